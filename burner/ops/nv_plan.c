/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nv_plan.c — checking a settings change, and applying it read-modify-write (see nv_settings.h). */
#include <stdio.h>
#include <string.h>

#include "ops/nv_settings.h"

#define NAME_MAX_LEN 40
#define BAR_BUDGET_MB 512   /* "(numOfVfs+1)*(2^log_uar_bar) <= 512 or else the node might not boot"
			     * (SriovParams4thGen::softLimitCheck, mlxcfg_param_lib.cpp@4.21) */

static const struct nv_record *find_rec(const struct nv_record *r, unsigned n, uint16_t type, uint8_t port)
{
	for (unsigned i = 0; i < n; i++)
		if (r[i].type == type && r[i].port == port)
			return &r[i];
	return NULL;
}

/* The record as it is now: what the card holds, or when it holds nothing every
 * field of it at its default (what mstconfig writes there: it fills each field it
 * knows from the defaults, mlxcfg_param_lib.cpp@4.21 getDefaultParams; on GEN5 the
 * record read with `default`). A GEN5 field whose valid bit is clear takes the value
 * shown, its default, as mstconfig's query puts it into the record it writes back. */
static void record_now(const struct nv_state *cur, const struct nv_setting *r, struct nv_record *x)
{
	const struct nv_record *held = find_rec(cur->rec, cur->nrec, r->tlv, r->port);

	*x = held ? *held : (struct nv_record){.type = r->tlv, .port = r->port, .ndw = r->tlv_dwords};
	if (held && !held->stored && cur->gen == NV_GEN5)
		memcpy(x->dw, cur->rec_def[held - cur->rec], sizeof(x->dw));
	for (unsigned i = 0; i < nv_nsettings; i++) {
		const struct nv_setting *f = &nv_settings[i];
		bool invalid = f->valid.width && !(x->dw[f->valid.dword] >> f->valid.shift & 1);
		if (f->gen == cur->gen && f->tlv == r->tlv && f->port == r->port && (!x->stored || invalid))
			nv_field_put(f, x->dw, cur->value[i]);
	}
}

/* Set row r's valid bit in dw, where it has one. */
static void mark_valid(const struct nv_setting *r, uint32_t *dw)
{
	if (r->valid.width)
		dw[r->valid.dword] |= 1u << r->valid.shift;
}

/* A row of generation gen lives in record type/port. */
static bool gen_has(unsigned gen, uint16_t type, uint8_t port)
{
	for (unsigned i = 0; i < nv_nsettings; i++)
		if (nv_settings[i].gen == gen && nv_settings[i].tlv == type && nv_settings[i].port == port)
			return true;
	return false;
}

static uint32_t max_of(const struct nv_state *cur, const struct nv_setting *r)
{
	return r->max == NV_MAX_IS_VFS ? cur->max_vfs : r->max == NV_MAX_IS_BAR ? cur->max_log_bar : r->max;
}

/* "IB, ETH or VPI (or 1..3)": what a row accepts. */
static const char *accepts(const struct nv_state *cur, const struct nv_setting *r, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	for (const struct nv_value_name *v = r->names; v && v->name && n < len; v++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "", v->name);
	if (n < len)
		snprintf(buf + n, len - n, "%s%u..%u%s", n ? " (or " : "", r->min, max_of(cur, r), n ? ")" : "");
	return buf;
}

/* One NAME=VALUE: its row and value, checked. */
static int parse_one(const struct nv_state *cur, const char *a, unsigned *idx, uint32_t *v, struct cx_status *st)
{
	char name[NAME_MAX_LEN], ok[160];
	const char *eq = strchr(a, '=');
	const struct nv_setting *r;

	if (!eq || eq == a || (size_t)(eq - a) >= sizeof(name))
		return cx_fail(st, CX_EUSAGE, "'%s': a setting is NAME=VALUE (LINK_TYPE_P1=ETH)", a);
	memcpy(name, a, (size_t)(eq - a));
	name[eq - a] = 0;
	if (!(r = nv_setting_find_gen(cur->gen, name, idx)))
		return cx_fail(st, CX_ESETTING, "unknown setting %s ('cxflash -d BDF config q' lists this card's)", name);
	if (r->port > cur->ports)
		return cx_fail(st, CX_ESETTING, "%s: this card has one port", name);
	if (!cur->avail[*idx])
		return cx_fail(st, CX_ESETTING, "%s: this card's firmware does not offer it", name);
	if (!nv_value_parse(r, eq + 1, v))
		return cx_fail(st, CX_EVALUE, "%s=%s: not a value of %s (%s)", name, eq + 1, name,
			       accepts(cur, r, ok, sizeof(ok)));
	/* GEN5 enums take a number only when it has a name (mlxcfg_param.cpp@4.21 EnumParamValue::parseValue). */
	if (r->gen == NV_GEN5 && r->names && !nv_value_name(r, *v))
		return cx_fail(st, CX_EVALUE, "%s=%s: not a value of %s (%s)", name, eq + 1, name,
			       accepts(cur, r, ok, sizeof(ok)));
	if (*v < r->min || *v > max_of(cur, r)) {
		if (r->max == NV_MAX_IS_VFS)
			return cx_fail(st, CX_EVALUE, "NUM_OF_VFS=%s: this card has at most %u VFs", eq + 1, cur->max_vfs);
		return cx_fail(st, CX_EVALUE, "%s=%s: out of range (%s)", name, eq + 1, accepts(cur, r, ok, sizeof(ok)));
	}
	return CX_OK;
}

/* mstconfig's BAR rule, on the settings as they would be. */
static int bar_rule(const struct nv_state *cur, const uint32_t *want, struct cx_status *st)
{
	unsigned en, vfs, bar;

	/* A ConnectX-3 rule: the GEN4 rows (not offered on another generation's card). */
	nv_setting_find_gen(NV_GEN4, "SRIOV_EN", &en);
	nv_setting_find_gen(NV_GEN4, "NUM_OF_VFS", &vfs);
	nv_setting_find_gen(NV_GEN4, "LOG_BAR_SIZE", &bar);
	uint32_t b = cur->avail[bar] ? want[bar] : cur->def_log_bar;
	if (!cur->avail[en] || !want[en] || b >= 32)
		return b >= 32 ? cx_fail(st, CX_EVALUE, "LOG_BAR_SIZE=%u: out of range", b) : CX_OK;
	uint64_t total = ((uint64_t)want[vfs] + 1) << b;
	if (total <= BAR_BUDGET_MB)
		return CX_OK;
	unsigned most = (unsigned)(BAR_BUDGET_MB >> b);
	most = most ? most - 1 : 0;
	return cx_fail(st, CX_EVALUE, "SR-IOV with NUM_OF_VFS=%u and LOG_BAR_SIZE=%u needs %llu MB of BARs, over "
		       "512 MB (the board might not boot): at most %u VFs with this BAR size", want[vfs], b,
		       (unsigned long long)total, most < cur->max_vfs ? most : cur->max_vfs);
}

/* The record changes that take cur to want. */
static int plan_records(const struct nv_state *cur, const uint32_t *want, struct nv_plan *p, struct cx_status *st)
{
	for (unsigned k = 0; k < p->nch; k++) {
		const struct nv_setting *r = &nv_settings[p->ch[k].idx];
		struct nv_record *to = (struct nv_record *)find_rec(p->to, p->nrec, r->tlv, r->port);
		if (!to) {
			if (p->nrec == NV_MAX_RECORDS)
				return cx_fail(st, CX_EUSAGE, "too many settings records");
			record_now(cur, r, &p->from[p->nrec]);
			to = &p->to[p->nrec];
			*to = p->from[p->nrec++];
			to->stored = true;
		}
		nv_field_put(r, to->dw, want[p->ch[k].idx]);
		mark_valid(r, to->dw);
	}
	return CX_OK;
}

int nv_plan(const struct nv_state *cur, const char *const *assign, unsigned n, struct nv_plan *p,
	    struct cx_status *st)
{
	uint32_t want[NV_MAX_SETTINGS];
	bool given[NV_MAX_SETTINGS] = {false};
	int rc;

	memset(p, 0, sizeof(*p));
	memcpy(want, cur->value, sizeof(want));
	for (unsigned i = 0; i < n; i++) {
		unsigned idx = 0;
		uint32_t v = 0;
		if ((rc = parse_one(cur, assign[i], &idx, &v, st)))
			return rc;
		if (given[idx] && want[idx] != v)
			return cx_fail(st, CX_EVALUE, "%s is given two different values", nv_settings[idx].name);
		given[idx] = true;
		want[idx] = v;
	}
	if ((rc = bar_rule(cur, want, st)))
		return rc;
	for (unsigned i = 0; i < nv_nsettings; i++)
		if (given[i] && want[i] != cur->value[i])
			p->ch[p->nch++] = (struct nv_change){i, cur->value[i], want[i]};
	return plan_records(cur, want, p, st);
}

int nv_plan_records(const struct nv_state *cur, const struct nv_record *want, unsigned nwant, struct nv_plan *p,
		    struct cx_status *st)
{
	memset(p, 0, sizeof(*p));
	/* Every record a row of this card's generation: a bundle of another family writes nothing. */
	for (unsigned i = 0; i < nwant; i++)
		if (!gen_has(cur->gen, want[i].type, want[i].port))
			return cx_fail(st, CX_EMISMATCH, "the bundle's settings record t%04xp%u is not one of this card's "
				       "(a bundle of another family?); nothing was written", want[i].type, want[i].port);
	/* A record the card holds that the bundle did not: only a reset forgets it. */
	for (unsigned i = 0; i < cur->nrec; i++) {
		const struct nv_record *w = find_rec(want, nwant, cur->rec[i].type, cur->rec[i].port);
		p->reset_first |= cur->rec[i].stored && (!w || !w->stored);
	}
	for (unsigned i = 0; i < nwant; i++) {
		const struct nv_record *now = find_rec(cur->rec, cur->nrec, want[i].type, want[i].port);
		struct nv_record none = {.type = want[i].type, .port = want[i].port, .ndw = want[i].ndw};
		if (!want[i].stored)
			continue;
		if (!now)
			now = &none;
		if (!p->reset_first && now->stored && now->ndw == want[i].ndw &&
		    !memcmp(now->dw, want[i].dw, sizeof(now->dw)))
			continue;
		if (p->nrec == NV_MAX_RECORDS)
			return cx_fail(st, CX_EIMAGE, "too many settings records");
		p->from[p->nrec] = *now;
		p->to[p->nrec++] = want[i];
	}
	/* Every setting whose next-boot value the records change, for the old -> new lines. */
	for (unsigned i = 0; i < nv_nsettings; i++) {
		const struct nv_setting *r = &nv_settings[i];
		const struct nv_record *w = find_rec(want, nwant, r->tlv, r->port);
		if (!cur->avail[i])
			continue;
		uint32_t to = w && w->stored ? nv_field_get(r, w->dw) : cur->def[i];
		if (to != cur->value[i])
			p->ch[p->nch++] = (struct nv_change){i, cur->value[i], to};
	}
	return CX_OK;
}

/* Read-modify-write of one planned record: the fields the plan changes go onto
 * what the card holds now (so a field nobody asked about stays as it is). */
static int write_record(struct nv_session *s, const struct nv_plan *p, unsigned k, struct cx_status *st)
{
	const struct nv_record *to = &p->to[k];
	struct nv_record now = {.type = to->type, .port = to->port, .ndw = to->ndw};
	uint32_t dw[NV_MAX_DWORDS];
	int rc;

	memcpy(dw, to->dw, sizeof(dw));
	if (!p->reset_first) {
		if ((rc = nv_rec_get(s, &now, st)))
			return rc;
		if (now.stored && p->nch) {
			memcpy(dw, now.dw, sizeof(dw));
			/* A field behind a clear valid bit: the plan's value (the one shown), not the stale one. */
			for (unsigned i = 0; i < nv_nsettings; i++) {
				const struct nv_setting *r = &nv_settings[i];
				if (r->gen == s->gen && r->tlv == to->type && r->port == to->port && r->valid.width &&
				    !(now.dw[r->valid.dword] >> r->valid.shift & 1))
					nv_field_put(r, dw, nv_field_get(r, to->dw));
			}
			for (unsigned c = 0; c < p->nch; c++) {
				const struct nv_setting *r = &nv_settings[p->ch[c].idx];
				if (r->tlv == to->type && r->port == to->port) {
					nv_field_put(r, dw, p->ch[c].to);
					mark_valid(r, dw);
				}
			}
		}
	}
	s->writes++;
	struct nv_record out = *to;
	memcpy(out.dw, dw, sizeof(dw));
	return nv_rec_set(s, &out, st);
}

int nv_apply(struct nv_session *s, const struct nv_plan *p, struct cx_status *st)
{
	int rc;

	if (p->reset_first && (rc = nv_reset(s, st)))
		return rc;
	for (unsigned k = 0; k < p->nrec; k++)
		if ((rc = write_record(s, p, k, st)))
			return rc;
	return CX_OK;
}
