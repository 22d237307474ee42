/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nv_settings5.c — a ConnectX-4 / 4 Lx / 5's settings over ICMD (see nv_settings5.h). */
#include <string.h>

#include "ops/nv_settings5.h"

#define CAP_DWORDS 5                  /* nv_global_pci_cap: 20 bytes, the largest capability record */
#define CAP_MAX_VFS_VALID 0, 31       /* nv_global_pci_cap max_vfs_per_pf_valid 0x0.31 (mlxconfig_host.db) */
#define CAP_MAX_VFS 1, 0, 16          /* max_vfs_per_pf 0x4.0, 16 bits */
#define FIELD_MAX_VFS 0xFFFFu         /* total_vfs is 16 bits: the limit without max_vfs_per_pf */
#define MAX_CAPS 4
#define GLOBAL_PCI_CAP NV5_REC(0, 129) /* nv_global_pci_cap (mlxconfig_host.db tlvs) */

static uint32_t type_of(uint16_t rec, uint8_t port)
{
	return nv5_type(NV5_REC_CLASS(rec), NV5_REC_INDEX(rec), port);
}

int nv5_open(struct nv_session *s, struct cx_status *st)
{
	if (!s->d->chip.fw_access)
		return cx_fail(st, CX_EUNSUPPORTED, "%s: its settings are asked of its running firmware over ICMD, "
			       "and this card was not opened that way", s->d->pci.bdf);
	return CX_OK;
}

int nv5_get(struct nv_session *s, struct nv_record *x, struct cx_status *st)
{
	return nv_nvda_get(&s->d->chip.icmd, type_of(x->type, x->port), NV5_NEXT, x->dw, x->ndw, &x->stored, st);
}

int nv5_set(struct nv_session *s, const struct nv_record *x, struct cx_status *st)
{
	return nv_nvda_set(&s->d->chip.icmd, type_of(x->type, x->port), x->dw, x->ndw, st);
}

int nv5_reset(struct nv_session *s, struct cx_status *st)
{
	return nv_nvia(&s->d->chip.icmd, st);
}

/* The capability records read so far. */
struct caps {
	uint16_t rec[MAX_CAPS];
	uint32_t dw[MAX_CAPS][CAP_DWORDS];
	unsigned n;
};

static int cap_bit(struct nv_session *s, struct caps *c, uint16_t rec, unsigned dword, unsigned bit, bool *on,
		   struct cx_status *st)
{
	unsigned i;
	bool stored;
	int rc;

	for (i = 0; i < c->n && c->rec[i] != rec; i++)
		;
	if (i == c->n) {
		if (c->n == MAX_CAPS)
			return cx_fail(st, CX_EUSAGE, "too many capability records");
		if ((rc = nv_nvda_get(&s->d->chip.icmd, type_of(rec, 0), NV5_NEXT, c->dw[i], CAP_DWORDS, &stored, st)))
			return rc;
		c->rec[c->n++] = rec;
	}
	*on = dword < CAP_DWORDS && c->dw[i][dword] >> bit & 1;
	return CX_OK;
}

static int readable(struct nv_session *s, const struct nv_setting *r, bool *rd, struct cx_status *st)
{
	struct icmd_link *ic = &s->d->chip.icmd;
	bool wr;
	int rc = nv_nvqc(ic, type_of(r->tlv, r->port), rd, &wr, st);

	/* mstconfig: "Don't throw exception if we fail to run nvqc, maybe its an old fw". */
	if (rc && ic->result == ICMD_E_REG) {
		cx_status_clear(st);
		*rd = false;
		return CX_OK;
	}
	return rc;
}

static int gate(struct nv_session *s, const struct nv_state *o, struct caps *c, const struct nv_setting *r,
		bool *open, struct cx_status *st)
{
	*open = false;
	if (r->port > o->ports)
		return CX_OK;
	switch (r->gate) {
	case NV_GATE_NVQC: return readable(s, r, open, st);
	case NV_GATE_CAP_TLV: return cap_bit(s, c, r->cap_tlv, r->gate_dword, r->gate_bit, open, st);
	case NV_GATE_ALWAYS: *open = true; return CX_OK;
	}
	return CX_OK;
}

static uint32_t field_of(const struct nv_field *f, const uint32_t *dw)
{
	return f->width ? dw[f->dword] >> f->shift & (f->width >= 32 ? 0xFFFFFFFFu : (1u << f->width) - 1) : 1;
}

int nv5_read(struct nv_session *s, struct nv_state *o, struct cx_status *st)
{
	const struct mgir *m;
	struct caps c = {0};
	int rc;

	/* What runs and its ports: mstconfig asks MGIR too (the _Pn settings). */
	if ((rc = chip_mgir(&s->d->chip, &m, st)))
		return rc;
	memset(o, 0, sizeof(*o));
	o->gen = NV_GEN5;
	memcpy(o->fw, m->ver, sizeof(o->fw));
	o->ports = m->num_ports >= NV_PORTS ? NV_PORTS : 1;
	o->port_ok[0] = true;
	o->port_ok[1] = o->ports == NV_PORTS;
	for (unsigned i = 0; i < nv_nsettings; i++) {
		const struct nv_setting *r = &nv_settings[i];
		if (r->gen != NV_GEN5)
			continue;
		if ((rc = gate(s, o, &c, r, &o->avail[i], st)))
			return rc;
		if (o->avail[i] && nv_state_record(o, r) < 0)
			return cx_fail(st, CX_EUSAGE, "too many settings records");
	}
	/* NUM_OF_VFS's maximum: the capability record, read when SR-IOV's gate asked it. */
	o->max_vfs = FIELD_MAX_VFS;
	for (unsigned i = 0; i < c.n; i++) {
		struct nv_field valid = {CAP_MAX_VFS_VALID, 1}, max = {CAP_MAX_VFS};
		if (c.rec[i] == GLOBAL_PCI_CAP && field_of(&valid, c.dw[i]))
			o->max_vfs = field_of(&max, c.dw[i]);
	}
	for (unsigned k = 0; k < o->nrec; k++) {
		struct nv_record *x = &o->rec[k];
		bool dummy;
		if ((rc = nv5_get(s, x, st)) ||
		    (rc = nv_nvda_get(&s->d->chip.icmd, type_of(x->type, x->port), NV5_DEFAULT, o->rec_def[k], x->ndw,
				      &dummy, st)))
			return rc;
	}
	for (unsigned i = 0; i < nv_nsettings; i++) {
		const struct nv_setting *r = &nv_settings[i];
		if (!o->avail[i])
			continue;
		int k = nv_state_record(o, r);
		const struct nv_record *x = &o->rec[k];
		o->def[i] = field_of(&r->field, o->rec_def[k]);
		o->value[i] = x->stored && field_of(&r->valid, x->dw) ? field_of(&r->field, x->dw) : o->def[i];
	}
	return CX_OK;
}
