/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nv_settings.c — opening a card's settings and reading them all (see nv_settings.h);
 * nv_plan.c plans and applies a change. */
#include <stdio.h>
#include <string.h>

#include "ops/nv_settings.h"
#include "ops/nv_settings5.h"
#include "util/bytes.h"

/* QUERY_DEV_CAP mailbox offsets mstconfig reads (mlxcfg_param_lib.cpp@4.21, mlxcfg_4thgen_commander.h@4.21). */
#define DEVCAP_TOOL_CAPS 0xC0        /* TOOL_CAP_BITS_ADDR */
#define DEVCAP_MAX_VFS 0x38          /* MAX_VFS_ADDR: low byte, 0 means 128, one is the PF */
#define DEVCAP_MAX_BAR 0xC8          /* MAX_BAR_SZ_ADDR: bits 8:3 (EXTRACT64(data, 3, 6)) */
#define DEVCAP_DEF_BAR 0x48          /* DEFAULT_BAR_SZ_ADDR: bits 21:16, plus one (half the BAR) */
#define MAX_FUNCS_ALL 128            /* "if max_func_idx=0 then all functions(128) are operational" */
#define FW_MIN_MAJOR 2               /* "2.31.5000 or above required for CX3/PRO" (MCE_TOOLS_HCR_NOT_SUPP) */
#define FW_MIN_MINOR 31
#define FW_MIN_SUB 5000

static const char fw_down_advice[] =
	"; the tools interface may answer only once the host driver has started the firmware: run the same "
	"cxflash on the installed system with mlx4_core loaded (the stick carries it as cxrescue/bin/cxflash)";

static bool fw_older(const uint16_t v[3])
{
	if (v[0] != FW_MIN_MAJOR)
		return v[0] < FW_MIN_MAJOR;
	if (v[1] != FW_MIN_MINOR)
		return v[1] < FW_MIN_MINOR;
	return v[2] < FW_MIN_SUB;
}

static int open4(struct nv_session *s, struct cx_status *st)
{
	const char *bdf = s->d->pci.bdf;
	uint16_t fw[3];
	int rc;

	if ((rc = chip_running_fw(&s->d->chip, fw, st)))
		return rc;
	if (!fw[0] && !fw[1] && !fw[2])
		return cx_fail(st, CX_EFWDOWN, "%s: the card reports no running firmware%s", bdf, fw_down_advice);
	if (fw_older(fw))
		return cx_fail(st, CX_EUNSUPPORTED, "%s: its firmware %u.%u.%04u is older than 2.31.5000, the first "
			       "with the settings interface: update the firmware first", bdf, fw[0], fw[1], fw[2]);
	return CX_OK;
}

/* One QUERY_DEV_CAP read of the 8 bytes at off: (dword at off + 4) << 32 | dword at off
 * (tcif_query_dev_cap, cmdif/tools_cif.c@4.21). */
static int dev_cap(struct nv_session *s, unsigned off, uint64_t *v, struct cx_status *st)
{
	uint8_t q[8];
	int rc = hcr_mbox(&s->h, HCR_OP_QUERY_DEV_CAP, 0, 0, NULL, 0, true, q, off, sizeof(q), false, st);

	*v = (uint64_t)be32(q + 4) << 32 | be32(q);
	return rc;
}

/* What the first command's failure means (supportsToolsHCR, mlxcfg_4thgen_commander.cpp@4.21). */
static int first_fail(struct nv_session *s, struct cx_status *st)
{
	char why[CX_MSG_MAX];
	const char *bdf = s->d->pci.bdf;

	snprintf(why, sizeof(why), "%s", st->msg);
	cx_status_clear(st);
	if (s->h.result == HCR_ST_BAD_SYS)
		return cx_fail(st, CX_EFWDOWN, "%s: the card's firmware is not started (tools interface status 4)%s",
			       bdf, fw_down_advice);
	if (s->h.result == HCR_ST_BAD_OP)
		return cx_fail(st, CX_EUNSUPPORTED, "%s: the firmware does not know the settings commands (status 2): "
			       "firmware 2.31.5000 or later is needed", bdf);
	return cx_fail(st, s->h.result == HCR_E_SEM ? CX_EBUSY : CX_ETOOLS, "%s", why);
}

static int read_caps(struct nv_session *s, struct nv_state *o, struct cx_status *st)
{
	uint64_t v;

	if (dev_cap(s, DEVCAP_TOOL_CAPS, &v, st))
		return first_fail(s, st);
	o->caps = (uint32_t)v;
	if (dev_cap(s, DEVCAP_MAX_VFS, &v, st))
		return st->code;
	o->max_vfs = (unsigned)(v & 0xFF) ? (unsigned)(v & 0xFF) : MAX_FUNCS_ALL;
	o->max_vfs--;
	if (dev_cap(s, DEVCAP_MAX_BAR, &v, st))
		return st->code;
	o->max_log_bar = (unsigned)(v >> 3 & 0x3F);
	if (dev_cap(s, DEVCAP_DEF_BAR, &v, st))
		return st->code;
	o->def_log_bar = (unsigned)(v >> 16 & 0x3F) + 1;
	return CX_OK;
}

/* QUERY_DEF_PARAMS: global (port 0) or of a port, the answer as big-endian dwords. */
static int def_params(struct nv_session *s, uint8_t port, uint32_t *dw, unsigned ndw, struct cx_status *st)
{
	uint8_t b[4 * NV_DEF_PORT_DW];
	int rc = hcr_mbox(&s->h, HCR_OP_QUERY_DEF_PARAMS, port, 0, NULL, 0, false, b, 0, 4 * ndw, false, st);

	for (unsigned i = 0; !rc && i < ndw; i++)
		dw[i] = be32(b + 4 * i);
	return rc;
}

static int read_defaults(struct nv_session *s, struct nv_state *o, struct cx_status *st)
{
	int rc;

	if ((rc = def_params(s, 0, o->def_global, NV_DEF_GLOBAL_DW, st)))
		return rc;
	for (unsigned p = 0; p < NV_PORTS; p++) {
		struct cx_status pst = {0};
		rc = def_params(s, (uint8_t)(p + 1), o->def_port[p], NV_DEF_PORT_DW, &pst);
		/* A port the card lacks answers with a status; anything else stops. */
		if (rc && (s->h.result > 0xFF || s->h.result == HCR_ST_BAD_SYS)) {
			*st = pst;
			return rc;
		}
		o->port_ok[p] = !rc;
	}
	o->ports = o->port_ok[1] ? 2 : 1;
	return CX_OK;
}

static bool bit(uint32_t v, unsigned b)
{
	return v >> b & 1;
}

static bool gate_open(const struct nv_state *o, const struct nv_setting *r)
{
	const uint32_t *port = r->port ? o->def_port[r->port - 1] : NULL;

	if (r->port && !o->port_ok[r->port - 1])
		return false;
	switch (r->gate) {
	case NV_GATE_CAP: return bit(o->caps, r->gate_bit);
	case NV_GATE_PORT_BIT: return port && bit(port[r->gate_dword], r->gate_bit);
	case NV_GATE_GLOBAL_BIT: return bit(o->def_global[r->gate_dword], r->gate_bit);
	case NV_GATE_PORT: return port != NULL;
	}
	return false;
}

static uint32_t default_of(const struct nv_state *o, const struct nv_setting *r)
{
	const uint32_t *src = r->def_from == NV_DEF_GLOBAL ? o->def_global
			      : r->def_from == NV_DEF_PORT && r->port ? o->def_port[r->port - 1] : NULL;

	if (r->def_from == NV_DEF_BAR)
		return o->def_log_bar;
	return src ? src[r->def.dword] >> r->def.shift & ((1u << r->def.width) - 1) : 0;
}

int nv_state_record(struct nv_state *o, const struct nv_setting *r)
{
	for (unsigned i = 0; i < o->nrec; i++)
		if (o->rec[i].type == r->tlv && o->rec[i].port == r->port)
			return (int)i;
	if (o->nrec == NV_MAX_RECORDS)
		return -1;
	o->rec[o->nrec] = (struct nv_record){.type = r->tlv, .port = r->port, .ndw = r->tlv_dwords};
	return (int)o->nrec++;
}

static struct nv_record *record_of(struct nv_state *o, const struct nv_setting *r)
{
	int k = nv_state_record(o, r);

	return k < 0 ? NULL : &o->rec[k];
}

static int read4(struct nv_session *s, struct nv_state *o, struct cx_status *st)
{
	int rc;

	memset(o, 0, sizeof(*o));
	chip_running_fw(&s->d->chip, o->fw, &(struct cx_status){0});
	if ((rc = read_caps(s, o, st)) || (rc = read_defaults(s, o, st)))
		return rc;
	for (unsigned i = 0; i < nv_nsettings; i++) {
		const struct nv_setting *r = &nv_settings[i];
		if (r->gen != NV_GEN4)
			continue;
		o->avail[i] = gate_open(o, r);
		o->value[i] = o->def[i] = default_of(o, r);
	}
	/* One GET per record that holds a setting the card offers (mstconfig asks no other). */
	for (unsigned i = 0; i < nv_nsettings; i++) {
		const struct nv_setting *r = &nv_settings[i];
		struct nv_record *x;
		if (!o->avail[i] || !(x = record_of(o, r)))
			continue;
		bool seen = false;
		for (unsigned k = 0; k < i; k++)
			seen |= o->avail[k] && nv_settings[k].tlv == r->tlv && nv_settings[k].port == r->port;
		if (!seen && (rc = nv_mnva_get(&s->h, x->type, x->port, x->dw, x->ndw, &x->stored, st)))
			return rc;
	}
	for (unsigned i = 0; i < nv_nsettings; i++) {
		struct nv_record *x = o->avail[i] ? record_of(o, &nv_settings[i]) : NULL;
		if (x && x->stored)
			o->value[i] = nv_field_get(&nv_settings[i], x->dw);
	}
	return CX_OK;
}

static int get4(struct nv_session *s, struct nv_record *x, struct cx_status *st)
{
	return nv_mnva_get(&s->h, x->type, x->port, x->dw, x->ndw, &x->stored, st);
}

static int set4(struct nv_session *s, const struct nv_record *x, struct cx_status *st)
{
	return nv_mnva_set(&s->h, x->type, x->port, x->dw, x->ndw, st);
}

static int reset4(struct nv_session *s, struct cx_status *st)
{
	return nv_mnvia(&s->h, st);
}

/* Each generation's way to the card's records (enum nv_gen). */
static const struct nv_io {
	int (*open)(struct nv_session *, struct cx_status *);
	int (*read)(struct nv_session *, struct nv_state *, struct cx_status *);
	int (*get)(struct nv_session *, struct nv_record *, struct cx_status *);
	int (*set)(struct nv_session *, const struct nv_record *, struct cx_status *);
	int (*reset)(struct nv_session *, struct cx_status *);
} io[] = {
	[NV_GEN4] = {open4, read4, get4, set4, reset4},
	[NV_GEN5] = {nv5_open, nv5_read, nv5_get, nv5_set, nv5_reset},
};

int nv_open(struct nv_session *s, struct device *d, struct cx_status *st)
{
	const char *bdf = d->pci.bdf;

	*s = (struct nv_session){.d = d, .gen = (uint8_t)nv_gen_of(d->chip.desc->family)};
	hcr_init(&s->h, &d->chip.cr);
	if (d->chip.desc->family == CXF_CX2)
		return cx_fail(st, CX_EUNSUPPORTED, "%s: a ConnectX-2 has no settings store (\"ConnectX-2 is not "
			       "supported under mstconfig\"); its port type and boot settings come with its firmware "
			       "image and board .ini", bdf);
	if (s->gen >= NV_GEN_NONE)
		return cx_fail(st, CX_EUNSUPPORTED, "%s: cxflash does not change a %s's settings", bdf,
			       d->chip.desc->name);
	if (d->chip.recovery)
		return cx_fail(st, CX_EUNSUPPORTED, "%s: the card is in flash-recovery mode: no firmware runs to keep "
			       "its settings; burn an image first", bdf);
	return io[s->gen].open(s, st);
}

int nv_read(struct nv_session *s, struct nv_state *o, struct cx_status *st)
{
	return io[s->gen].read(s, o, st);
}

int nv_rec_get(struct nv_session *s, struct nv_record *x, struct cx_status *st)
{
	return io[s->gen].get(s, x, st);
}

int nv_rec_set(struct nv_session *s, const struct nv_record *x, struct cx_status *st)
{
	return io[s->gen].set(s, x, st);
}

int nv_reset(struct nv_session *s, struct cx_status *st)
{
	s->writes++;
	return io[s->gen].reset(s, st);
}

const char *nv_value_text(unsigned idx, uint32_t v, char *buf, unsigned len)
{
	const char *name = idx < nv_nsettings ? nv_value_name(&nv_settings[idx], v) : NULL;

	if (name)
		snprintf(buf, len, "%s(%u)", name, v);
	else
		snprintf(buf, len, "%u", v);
	return buf;
}

void nv_json_settings(struct json *j, const char *key, const struct nv_state *s)
{
	json_obj(j, key);
	for (unsigned i = 0; i < nv_nsettings; i++) {
		if (!s->avail[i])
			continue;
		const char *name = nv_value_name(&nv_settings[i], s->value[i]);
		json_obj(j, nv_settings[i].name);
		json_int(j, "value", s->value[i]);
		json_str(j, "text", name);
		json_int(j, "default", s->def[i]);
		json_close(j);
	}
	json_close(j);
}

void nv_json_records(struct json *j, const char *key, const struct nv_state *s)
{
	json_obj(j, key);
	for (unsigned i = 0; i < s->nrec; i++) {
		const struct nv_record *x = &s->rec[i];
		char k[16], hex[NV_MAX_DWORDS * 9 + 1] = "";
		size_t n = 0;
		snprintf(k, sizeof(k), "t%04xp%u", x->type, x->port);
		for (unsigned d = 0; d < x->ndw && n < sizeof(hex); d++)
			n += (size_t)snprintf(hex + n, sizeof(hex) - n, "%s%08x", d ? " " : "", x->dw[d]);
		json_str(j, k, x->stored ? hex : NULL);
	}
	json_close(j);
}
