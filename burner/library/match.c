/* SPDX-License-Identifier: GPL-2.0-or-later */
/* match.c — a verdict for every library image on one card. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dev/chip.h"
#include "image/fs3.h"
#include "image/imgfile.h"
#include "image/rom_insert.h"
#include "library/match.h"
#include "ops/guard.h"
#include "util/fileio.h"

#define PCI_CLASS_ETHERNET 0x0200   /* PCI base class 02 subclass 00 (PCI code and ID assignment) */
#define PCI_CLASS_NET_OTHER 0x0280  /* 02/80: how VPI ConnectX boards enumerate (manifest.h) */
#define PCI_CLASS_INFINIBAND 0x0c06 /* 0c/06 */
#define MAX_RISKY_NAMED 4           /* ours: .ini keys named in the one-line reason */

static const char *const verdict_names[] = {"OK", "RISKY", "REFUSED"};
static const char *const relation_names[] = {"same PSID", "cross-flash", "unrelated PSID",
					     "card PSID unknown"};

const char *match_verdict_name(enum match_verdict v)
{
	return verdict_names[v];
}

const char *match_relation_name(enum match_relation r)
{
	return relation_names[r];
}

/* Add a reason and lower the verdict to at least v. Reasons of the worse verdict
 * go first, so the first reason is the one that decided. */
static void reason(struct match_candidate *c, enum match_verdict v, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void reason(struct match_candidate *c, enum match_verdict v, const char *fmt, ...)
{
	char text[MATCH_REASON_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (v > c->verdict)
		c->verdict = v;
	if (c->nreasons == MATCH_MAX_REASONS)
		return;
	int at = c->nreasons;
	while (at > 0 && c->reason_v[at - 1] < v)
		at--;
	memmove(c->reasons[at + 1], c->reasons[at], (size_t)(c->nreasons - at) * sizeof(c->reasons[0]));
	memmove(&c->reason_v[at + 1], &c->reason_v[at], (size_t)(c->nreasons - at) * sizeof(c->reason_v[0]));
	memcpy(c->reasons[at], text, sizeof(text));
	c->reason_v[at] = v;
	c->nreasons++;
}

static bool port_is_en(enum board_port p)
{
	return p == BOARD_PORT_EN;
}

static bool port_has_ib(enum board_port p)
{
	return p == BOARD_PORT_VPI || p == BOARD_PORT_IB;
}

static void card_port(const struct match_card *card, const struct board_table *t, struct match_result *r)
{
	r->card_port = manifest_port_type(card->dev_type, card->psid, card->ini_text, card->ini_len, t,
					  r->card_port_basis, sizeof(r->card_port_basis));
	if (r->card_port != BOARD_PORT_NONE || !card->pci_class)
		return;
	unsigned cls = card->pci_class >> 8;
	if (cls == PCI_CLASS_ETHERNET)
		r->card_port = BOARD_PORT_EN;
	else if (cls == PCI_CLASS_NET_OTHER || cls == PCI_CLASS_INFINIBAND)
		r->card_port = BOARD_PORT_VPI;
	else
		return;
	snprintf(r->card_port_basis, sizeof(r->card_port_basis),
		 "the card enumerates as PCI class 0x%06x (inferred)", card->pci_class);
}

/* A line cut to fit on purpose: the one-line summary quotes a reason that may be long. */
static void line_printf(char *out, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void line_printf(char *out, size_t n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(out, n, fmt, ap);
	va_end(ap);
}

static void fmt_ver(char *out, size_t n, const uint16_t v[3])
{
	snprintf(out, n, "%u.%u.%u", v[0], v[1], v[2]);
}

/* The image as the burn would write it: with the ROM o->rom picks, by the burn's own
 * rule (ops/burn_rom.h). The card's image, its ROM too, is whole in memory. */
static int with_rom(const struct fs2_image *now, const struct match_opts *o, uint8_t **buf, size_t *len,
		    struct fs2_image *img, struct cx_status *st)
{
	const uint8_t *rom = NULL;
	size_t rom_len = 0;
	bool changed;
	struct cx_status none = {0};

	if (now)
		(void)rom_sect_data(now, &rom, &rom_len, &none);
	return rom_pick_apply(&o->rom, now != NULL, rom, rom_len, buf, len, img, &changed, NULL, st);
}

static void refused_by_burn(struct match_candidate *c, int code, enum guard_rule rule, const char *why)
{
	c->burn_code = code;
	c->burn_rule = rule;
	reason(c, MATCH_REFUSED, "%s", why);
}

/* Every rule a burn applies (ops/guard.h), on the file as the burn reads it. */
static void judge_fit(const struct match_card *card, const struct manifest_entry *e, const struct match_opts *o,
		      struct match_candidate *c)
{
	static const struct guard_opts unknown = {.allow_psid_change = true}; /* match_opts.burn NULL */
	const struct fs2_image *now = card->recovery ? NULL : card->current;
	struct fs2_image *img = malloc(sizeof(*img));
	struct guard_verdict v;
	struct cx_status st = {0};
	uint8_t *buf = NULL;
	size_t len;
	int rc;

	if (!img || file_read(e->path, IMGFILE_MAX, &buf, &len, &st)) {
		reason(c, MATCH_REFUSED, "cannot read the image again: %s", img ? st.msg : "out of memory");
		free(img);
		return;
	}
	guard_check_file(buf, len, img, &v);
	if (!v.code && (rc = with_rom(now, o, &buf, &len, img, &st))) {
		refused_by_burn(c, rc, GUARD_NRULES, st.msg);
	} else if (!v.code) {
		struct guard_card g = {
			.hw_id = card->hw_id, .rev = card->rev, .flash_size = card->flash_size,
			.recovery = card->recovery, .current = card->current,
		};
		guard_check(&g, img, o->burn ? o->burn : &unknown, &v);
	}
	if (v.code)
		refused_by_burn(c, v.code, v.rule, v.reason);
	free(buf);
	free(img);
}

/* A file the library found unsound: in the burn's words when its file rules
 * refuse it too, else in the library's. Only a file the library read is read
 * again (one it refused unread may be a device or a FIFO). */
static void judge_unsound(const struct manifest_entry *e, struct match_candidate *c)
{
	struct fs2_image *img = malloc(sizeof(*img));
	struct guard_verdict v = {0};
	struct cx_status st = {0};
	uint8_t *buf = NULL;
	size_t len;

	/* An FS3/FS4 file has its reason already (manifest_fs3.h); no FS2 rule applies to it. */
	bool fs2 = e->format != FMT_FS3 && e->format != FMT_FS4;
	if (img && fs2 && e->status == CX_EIMAGE && e->sha256[0] &&
	    !file_read(e->path, IMGFILE_MAX, &buf, &len, &st))
		guard_check_file(buf, len, img, &v);
	if (v.code)
		refused_by_burn(c, v.code, v.rule, v.reason);
	else
		reason(c, MATCH_REFUSED, "%s", e->reason);
	line_printf(c->line, sizeof(c->line), "%s: %s", e->name, c->reasons[0]);
	free(buf);
	free(img);
}

static void judge_psid(const struct match_card *card, const struct match_result *r, const struct manifest_entry *e,
		       const struct match_opts *o, struct match_candidate *c)
{
	if (!card->psid || !card->psid[0]) {
		c->rel = REL_UNKNOWN;
		reason(c, MATCH_RISKY,
		       "the card's PSID cannot be read (recovery mode): only its backup or sticker says which "
		       "board it is");
		return;
	}
	if (!strcmp(card->psid, e->psid)) {
		c->rel = REL_SAME_PSID;
		return;
	}
	const struct board *row = r->card_row;
	if (row && row->stock_psid && !strcmp(row->stock_psid, e->psid)) {
		c->rel = REL_CROSS_FLASH;
		c->via = row;
		if (row->own)
			reason(c, MATCH_RISKY,
			       "the mapping %s -> %s is your own board table's (%s:%u), not cxrescue's: no source "
			       "shipped with cxrescue states it", card->psid, e->psid, row->file, row->line);
		else if (row->basis == BOARD_INFERRED)
			reason(c, MATCH_RISKY,
			       "the board table's mapping %s -> %s (line %u) is an inference, not stated by a source",
			       card->psid, e->psid, row->line);
		return;
	}
	c->rel = REL_UNRELATED;
	if (row && row->stock_psid)
		reason(c, o->expert ? MATCH_RISKY : MATCH_REFUSED,
		       "the card (%s) maps to %s, not to this image's %s%s", card->psid, row->stock_psid, e->psid,
		       o->expert ? " (expert mode)" : "; only expert mode allows it");
	else
		reason(c, o->expert ? MATCH_RISKY : MATCH_REFUSED,
		       "nothing ties the card's PSID %s to this image's %s (not in the board table)%s",
		       card->psid, e->psid, o->expert ? " (expert mode)" : "; only expert mode allows it");
}

static void judge_port(const struct match_result *r, const struct manifest_entry *e, struct match_candidate *c)
{
	if (port_has_ib(r->card_port) && port_is_en(e->port))
		reason(c, MATCH_RISKY,
		       "Ethernet-only firmware on a VPI/InfiniBand card: its ports would run Ethernet only "
		       "(card: %s; image: %s)", r->card_port_basis, e->port_basis);
	else if (port_is_en(r->card_port) && port_has_ib(e->port))
		reason(c, MATCH_RISKY,
		       "VPI/InfiniBand firmware on an Ethernet-only board (card: %s; image: %s)",
		       r->card_port_basis, e->port_basis);
}

static int judge_ini(struct match_result *r, const struct manifest_entry *e, struct match_candidate *c,
		     struct cx_status *st)
{
	bool counts = c->rel != REL_SAME_PSID;

	if (!r->have_card_ini || !e->have_ini) {
		if (counts)
			reason(c, MATCH_RISKY, "%s no board .ini: the hardware settings cannot be compared",
			       !r->have_card_ini ? "the card's flash holds" : "the image holds");
		return CX_OK;
	}
	struct cx_status ist = {0};
	if (ini_doc_parse(e->ini_text, e->ini_len, &c->image_ini, &ist)) {
		ini_doc_free(&c->image_ini);
		if (ist.code == CX_ENOMEM)
			return cx_fail(st, CX_ENOMEM, "%s", ist.msg);
		if (counts)
			reason(c, MATCH_RISKY, "the image's board .ini cannot be read: %s", ist.msg);
		return CX_OK;
	}
	int rc = ini_compare(&r->card_ini, &c->image_ini, &c->diff, st);
	if (rc)
		return rc;
	c->have_diff = true;
	if (!counts || !c->diff.nrisky)
		return CX_OK;
	char keys[MATCH_REASON_LEN] = "";
	size_t named = 0, used = 0;
	for (size_t i = 0; i < c->diff.n && named < MAX_RISKY_NAMED; i++) {
		const struct ini_pair *p = &c->diff.pairs[i];
		if (p->cls != INI_RISKY)
			continue;
		int w = snprintf(keys + used, sizeof(keys) - used, "%s%s", named ? ", " : "", p->key);
		if (w < 0 || (size_t)w >= sizeof(keys) - used)
			break;
		used += (size_t)w;
		named++;
	}
	reason(c, MATCH_RISKY, "the board .ini differs in %zu hardware setting%s: %s%s", c->diff.nrisky,
	       c->diff.nrisky == 1 ? "" : "s", keys, c->diff.nrisky > named ? ", ..." : "");
	return CX_OK;
}

static void summarise(const struct match_card *card, const struct manifest_entry *e, struct match_candidate *c)
{
	char from[24] = "?", to[24];
	const char *change = "";

	fmt_ver(to, sizeof(to), e->fw_ver);
	if (card->have_fw) {
		fmt_ver(from, sizeof(from), card->fw_ver);
		c->version_cmp = guard_cmp_version(e->fw_ver, card->fw_ver);
		change = c->version_cmp > 0 ? "upgrade" : c->version_cmp < 0 ? "downgrade" : "same version";
	} else {
		c->version_cmp = 2;
		change = "version on the card unknown";
	}
	const char *who = card->psid && card->psid[0] ? card->psid : "unknown PSID";
	const char *rel = c->rel == REL_CROSS_FLASH ? "cross-flash" : c->rel == REL_SAME_PSID ? "update" :
			  c->rel == REL_UNRELATED ? "PSID change" : "recovery burn";
	if (c->verdict == MATCH_OK)
		line_printf(c->line, sizeof(c->line), "%s %s -> %s %s: %s, %s", who, from,
			 e->psid, to, rel, change);
	else
		line_printf(c->line, sizeof(c->line), "%s %s -> %s %s: %s, %s; %s", who,
			 from, e->psid, to, rel, change, c->reasons[0]);
}

/* An FS3/FS4 image (ConnectX-4 and later, fs3-format.md): the rules of its own family. No
 * FS2 burn rule applies, and its board is its PSID (it carries no board .ini). */
static void judge_fit_fs3(const struct match_card *card, const struct manifest_entry *e,
			  struct match_candidate *c)
{
	const struct chip_desc *want = e->have_family ? chip_by_family(e->family) : NULL;
	const struct chip_desc *have = chip_by_hw_id(card->hw_id);
	bool fits = false;

	for (int i = 0; i < e->nhw_ids; i++)
		fits |= (uint16_t)e->hw_ids[i] == card->hw_id;
	if (!fits)
		reason(c, MATCH_REFUSED, "this image is for %s (HW ID 0x%x); the card is %s (HW ID 0x%x)",
		       want ? want->name : "another chip", e->nhw_ids ? (unsigned)(e->hw_ids[0] & 0xFFFF) : 0,
		       have ? have->name : "another chip", card->hw_id);
	if (have && have->support == CHIP_READ_ONLY)
		reason(c, MATCH_REFUSED, "%s: %s", have->name, have->limit);
	/* Two slots fit the flash (fs3-format.md §8); the device data sits above them. */
	if (card->flash_size && e->log2_slot < 31 && (2ull << e->log2_slot) > card->flash_size)
		reason(c, MATCH_REFUSED, "its slot is %u KiB: two do not fit the card's %u KiB flash",
		       (1u << e->log2_slot) >> 10, card->flash_size >> 10);
}

/* A card whose firmware is secure refuses a PSID change itself ("Changing PSID is
 * unsupported under Secure FW", quoted in the source of library/boards.txt's Dell
 * ConnectX-6 Dx row): only recovery mode writes past it, on a chip without hardware
 * secure boot (fs3-format.md §7). */
static void judge_secure(const struct match_card *card, struct match_candidate *c)
{
	const struct chip_desc *have = chip_by_hw_id(card->hw_id);

	if (card->secure_fw && c->rel != REL_SAME_PSID && have && have->support != CHIP_READ_ONLY)
		reason(c, MATCH_REFUSED, "the card runs secure firmware, which refuses a PSID change: only "
		       "recovery mode (the flash-not-present jumper) writes it, with the image unmodified");
}

static int judge(const struct match_card *card, struct match_result *r, const struct manifest_entry *e,
		 const struct match_opts *o, struct match_candidate *c, struct cx_status *st)
{
	memset(c, 0, sizeof(*c));
	c->e = e;
	c->version_cmp = 2;
	c->burn_rule = GUARD_NRULES;
	if (e->status != CX_OK && e->status != CX_EMISMATCH) {
		judge_unsound(e, c);
		return CX_OK;
	}
	if (e->status == CX_EMISMATCH)
		reason(c, MATCH_REFUSED, "%s", e->reason);
	bool fs3 = e->format == FMT_FS3 || e->format == FMT_FS4;
	if (fs3)
		judge_fit_fs3(card, e, c);
	else
		judge_fit(card, e, o, c);
	judge_psid(card, r, e, o, c);
	judge_port(r, e, c);
	if (fs3)
		judge_secure(card, c);
	int rc = fs3 ? CX_OK : judge_ini(r, e, c, st);
	summarise(card, e, c);
	return rc;
}

static int rank(const void *pa, const void *pb)
{
	const struct match_candidate *a = pa, *b = pb;

	if (a->verdict != b->verdict)
		return a->verdict < b->verdict ? -1 : 1;
	if (a->rel != b->rel)
		return a->rel < b->rel ? -1 : 1;
	int v = guard_cmp_version(a->e->fw_ver, b->e->fw_ver);
	if (v)
		return -v;
	return strcmp(a->e->name, b->e->name);
}

int match_card(const struct match_card *card, const struct manifest *m, const struct board_table *t,
	       const struct match_opts *o, struct match_result *r, struct cx_status *st)
{
	int rc = CX_OK;

	memset(r, 0, sizeof(*r));
	r->best = -1;
	if (t && card->psid && card->psid[0])
		r->card_row = boards_by_psid(t, card->psid);
	card_port(card, t, r);
	if (card->ini_text) {
		struct cx_status ist = {0};
		if (ini_doc_parse(card->ini_text, card->ini_len, &r->card_ini, &ist) == CX_OK)
			r->have_card_ini = true;
		else if (ist.code == CX_ENOMEM)
			rc = cx_fail(st, CX_ENOMEM, "%s", ist.msg);
		if (!r->have_card_ini)
			ini_doc_free(&r->card_ini);
	}
	if (!rc && m->n) {
		r->c = calloc(m->n, sizeof(*r->c));
		if (!r->c)
			rc = cx_fail(st, CX_ENOMEM, "out of memory");
	}
	for (size_t i = 0; !rc && i < m->n; i++) {
		rc = judge(card, r, &m->e[i], o, &r->c[i], st);
		r->n++;
	}
	if (rc) {
		match_free(r);
		return rc;
	}
	if (r->n)
		qsort(r->c, r->n, sizeof(*r->c), rank);
	if (r->n && r->c[0].verdict != MATCH_REFUSED)
		r->best = 0;
	return CX_OK;
}

void match_free(struct match_result *r)
{
	for (size_t i = 0; i < r->n; i++) {
		ini_diff_free(&r->c[i].diff);
		ini_doc_free(&r->c[i].image_ini);
	}
	free(r->c);
	if (r->have_card_ini)
		ini_doc_free(&r->card_ini);
	memset(r, 0, sizeof(*r));
	r->best = -1;
}
