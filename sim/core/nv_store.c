/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nv_store.c — the settings store: the TLVs MNVA has set, keyed by (type, type_mod), as
 * the firmware keeps them for the next boot (hw-access.md §8), its file STEM.nv, and
 * the decoded view `cxsim boot-check` prints.
 *
 * The store is the model's; where a real card keeps it on flash is not public (the
 * FS2 configuration area), so the flash array never sees it. It survives power cycles
 * and is saved beside the card. File format (cxsim.h cxsim_nv_load), one TLV a line:
 *     0x0011:0 0 0x80000008
 * TYPE:TYPE_MOD VERSION DWORD..., each in hex or decimal; '#' lines are comments.
 * On ConnectX-4/4 Lx/5 TYPE is the whole 32-bit type dword of NVDA (class 31:24, port or
 * host/function, index; nv_regs_cx4.c) and TYPE_MOD is 0.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "card.h"

static int cmp(const struct nv_tlv *t, uint32_t type, uint8_t mod)
{
	if (t->type != type)
		return t->type < type ? -1 : 1;
	return t->type_mod == mod ? 0 : t->type_mod < mod ? -1 : 1;
}

const struct nv_tlv *nv_find(const struct nv_store *s, uint32_t type, uint8_t type_mod)
{
	for (unsigned i = 0; i < s->n; i++)
		if (!cmp(&s->tlv[i], type, type_mod))
			return &s->tlv[i];
	return NULL;
}

int nv_put(struct nv_store *s, const struct nv_tlv *t)
{
	unsigned i = 0;

	while (i < s->n && cmp(&s->tlv[i], t->type, t->type_mod) < 0)
		i++;
	if (i < s->n && !cmp(&s->tlv[i], t->type, t->type_mod)) {
		s->tlv[i] = *t;
		return 0;
	}
	if (s->n == NV_STORE_MAX)
		return -1;
	memmove(&s->tlv[i + 1], &s->tlv[i], (s->n - i) * sizeof(s->tlv[0]));
	s->tlv[i] = *t;
	s->n++;
	return 0;
}

int nv_del(struct nv_store *s, uint32_t type, uint8_t type_mod)
{
	for (unsigned i = 0; i < s->n; i++)
		if (!cmp(&s->tlv[i], type, type_mod)) {
			memmove(&s->tlv[i], &s->tlv[i + 1], (s->n - i - 1) * sizeof(s->tlv[0]));
			s->n--;
			return 0;
		}
	return -1;
}

void nv_clear(struct nv_store *s)
{
	s->n = 0;
}

size_t cxsim_nv_count(const struct cxsim_card *c)
{
	return c->nv.n;
}

void cxsim_set_nv_sink(struct cxsim_card *c, void (*sink)(void *ctx), void *ctx)
{
	c->nv_sink = sink;
	c->nv_sink_ctx = ctx;
}

/* ---- the decoded view ---- */

static uint32_t field(const struct nv_tlv *t, const struct nv_field *f)
{
	uint32_t v = f->dword < t->len ? t->dw[f->dword] >> f->shift : 0;

	return f->width == 32 ? v : v & ((1u << f->width) - 1);
}

static const char *text(const struct nv_field *f, uint32_t v)
{
	for (uint32_t i = 0; f->texts && f->texts[i]; i++)
		if (i == v)
			return f->texts[i][0] ? f->texts[i] : NULL;
	return NULL;
}

static void put(struct cxsim_setting *out, size_t max, size_t n, const struct nv_tlv *t,
		const char *name, uint32_t v, const char *txt)
{
	if (n >= max)
		return;
	if (t->type_mod)
		snprintf(out[n].name, sizeof(out[n].name), "%s_P%u", name, t->type_mod);
	else
		snprintf(out[n].name, sizeof(out[n].name), "%s", name);
	out[n].value = v;
	out[n].text = txt;
	out[n].tlv_type = t->type;
	out[n].type_mod = t->type_mod;
}

/* A 5th-generation TLV: its fields by mstconfig's names (_Pn from the type's port), or the
 * raw first dword of one the firmware model does not know. */
static size_t nv5_settings(const struct nv_tlv *t, struct cxsim_setting *out, size_t max, size_t n)
{
	const struct nv5_tlv *info = nv5_tlv_find(t->type);
	struct nv_tlv named = *t;
	char raw[20];

	named.type_mod = (uint8_t)nv5_port(t->type);
	if (!info) {
		snprintf(raw, sizeof(raw), "TLV_0x%08x", (unsigned)t->type);
		put(out, max, n++, &named, raw, t->dw[0], NULL);
		return n;
	}
	for (const struct nv_field *f = info->fields; f->name; f++) {
		uint32_t v = field(t, f);

		put(out, max, n++, &named, f->name, v, text(f, v));
	}
	return n;
}

size_t cxsim_nv_settings(const struct cxsim_card *c, struct cxsim_setting *out, size_t max)
{
	size_t n = 0;

	for (unsigned i = 0; i < c->nv.n; i++) {
		const struct nv_tlv *t = &c->nv.tlv[i];
		const struct nv_tlv_info *info = t->type > 0xFFFF ? NULL : nv_tlv_info((uint16_t)t->type);
		/* (on ConnectX-4/4 Lx/5 the type is NVDA's type dword: nv5_settings) */
		char raw[20];

		if (c->chip->gen5_gw) { /* ConnectX-4/4 Lx/5: NVDA's type dword */
			n = nv5_settings(t, out, max, n);
			continue;
		}
		if (!info) { /* not from MNVA (the model refuses those); a hand-edited STEM.nv */
			snprintf(raw, sizeof(raw), "TLV_0x%04x", (unsigned)t->type);
			put(out, max, n++, t, raw, t->dw[0], NULL);
			continue;
		}
		for (const struct nv_field *f = info->fields; f->name; f++) {
			uint32_t v = field(t, f);

			put(out, max, n++, t, f->name, v, text(f, v));
		}
	}
	return n;
}

/* ---- STEM.nv ---- */

static int parse_line(char *line, struct nv_tlv *t, char *err, size_t errlen, int lineno)
{
	char *tok, *end, *save = NULL;
	unsigned long v[2 + NV_TLV_MAX_DWORDS + 1];
	unsigned n = 0;

	memset(t, 0, sizeof(*t));
	for (tok = strtok_r(line, " \t:", &save); tok; tok = strtok_r(NULL, " \t:", &save)) {
		if (n == sizeof(v) / sizeof(v[0]))
			break;
		errno = 0;
		v[n] = strtoul(tok, &end, 0);
		if (errno || *end || end == tok || v[n] > 0xFFFFFFFFul) {
			snprintf(err, errlen, "line %d: bad number '%s'", lineno, tok);
			return -1;
		}
		n++;
	}
	if (n < 4 || n > 3 + NV_TLV_MAX_DWORDS || v[1] > 0xFF || v[2] > 0xF) {
		snprintf(err, errlen, "line %d: expected TYPE:TYPE_MOD VERSION DWORD... (1 to %d dwords)",
			 lineno, NV_TLV_MAX_DWORDS);
		return -1;
	}
	t->type = (uint32_t)v[0];
	t->type_mod = (uint8_t)v[1];
	t->version = (uint8_t)v[2];
	t->len = (uint8_t)(n - 3);
	for (unsigned j = 0; j < t->len; j++)
		t->dw[j] = (uint32_t)v[3 + j];
	return 0;
}

int cxsim_nv_load(struct cxsim_card *c, const char *path, char *err, size_t errlen)
{
	char line[512];
	int lineno = 0, rc = 0;
	struct nv_tlv t;
	FILE *f;

	nv_clear(&c->nv);
	c->nv.dirty = false;
	if (!(f = fopen(path, "r"))) {
		if (errno == ENOENT)
			return 0;
		snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	while (!rc && fgets(line, sizeof(line), f)) {
		lineno++;
		line[strcspn(line, "\r\n#")] = '\0';
		if (!line[strspn(line, " \t")])
			continue;
		if ((rc = parse_line(line, &t, err, errlen, lineno)))
			break;
		if (nv_put(&c->nv, &t)) {
			snprintf(err, errlen, "line %d: more than %d TLVs", lineno, NV_STORE_MAX);
			rc = -1;
		}
	}
	fclose(f);
	if (rc)
		nv_clear(&c->nv);
	return rc;
}

int cxsim_nv_save(struct cxsim_card *c, const char *path, char *err, size_t errlen)
{
	char tmp[4200];
	FILE *f;
	int bad;

	snprintf(tmp, sizeof(tmp), "%s.new", path);
	if (!(f = fopen(tmp, "w"))) {
		snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
		return -1;
	}
	fprintf(f, "# cxsim settings store (sim/core/nv_store.c): TYPE:TYPE_MOD VERSION DWORD...\n");
	for (unsigned i = 0; i < c->nv.n; i++) {
		const struct nv_tlv *t = &c->nv.tlv[i];

		fprintf(f, "0x%04x:%u %u", (unsigned)t->type, t->type_mod, t->version);
		for (unsigned j = 0; j < t->len; j++)
			fprintf(f, " 0x%08x", t->dw[j]);
		fputc('\n', f);
	}
	bad = fflush(f) || fsync(fileno(f));
	bad |= fclose(f) != 0;
	if (bad || rename(tmp, path)) {
		snprintf(err, errlen, "cannot replace %s: %s", path, strerror(errno));
		return -1;
	}
	c->nv.dirty = false;
	return 0;
}
