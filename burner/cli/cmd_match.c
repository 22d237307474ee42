/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_match.c — `match`: which library image this card should get, and why.
 *
 *   cxflash -d BDF match [--expert] [--identity-from BUNDLE]
 *   cxflash -i FILE match              the card this image (or flash dump) came from
 *
 * The card's facts come from its flash (PSID, version, board .ini); a card in
 * recovery mode has none, so --identity-from names its backup. Every image of
 * the library is listed with its verdict (library/match.h), the .ini risk report
 * of each one that is not refused, and the recommendation last. Exit 0 when
 * there is a recommendation, CX_EABSENT when every image is refused. A verdict
 * is judged with the rules `burn` applies (ops/guard.h) and this command line's
 * identity options (--guid/--mac, --vsd, --use_image_guids, --use_image_ps) and
 * --rom / --use_image_rom, as burn would get them.
 */
#include <stdlib.h>
#include <string.h>

#include "cli/common.h"
#include "image/ini.h"
#include "library/card_facts.h"
#include "library/library.h"
#include "library/match.h"
#include "ops/cardinfo.h"
#include "ops/oem.h"
#include "util/fileio.h"

#define FILE_FLASH_SIZE FS2_MAX_IMAGE /* -i FILE: no card, so no size limit but the format's */

/* What match is told, and what it shows about the card. */
struct match_subject {
	struct card_facts k;
	char label[48];             /* "0000:01:00.0", or the file */
	char chip[40];
	const char *oem;
	struct cardinfo ci;         /* -d: the card */
	struct imgfile f;           /* -i: the card's image, parsed */
};

static int facts_from_device(struct cli *c, struct match_subject *s, struct cx_status *st)
{
	struct device d;
	int rc = device_open(&d, c->sysfs, c->device, c->clear_sem, st);

	if (!rc)
		rc = cardinfo_read(&d, &s->ci, st);
	device_close(&d);
	if (rc)
		return rc;
	snprintf(s->label, sizeof(s->label), "%s", s->ci.pci.bdf);
	snprintf(s->chip, sizeof(s->chip), "%s", s->ci.chip);
	s->oem = s->ci.oem;
	card_facts_from_info(&s->k, &s->ci);
	if (!s->ci.have_image && c->identity_from)
		rc = card_facts_from_bundle(&s->k, c->identity_from, st);
	return rc;
}

/* An FS3/FS4 file (ConnectX-4 and later): the card it came from, by its image's own word.
 * CX_OK with *done false when the file is not one. */
static int facts_from_fs3(struct cli *c, struct match_subject *s, bool *done, struct cx_status *st)
{
	struct fs3_image *img = NULL;
	uint8_t *buf = NULL;
	size_t len;
	enum fs3_fmt fmt;
	int rc = CX_OK;

	*done = false;
	if (file_read(c->image, IMGFILE_MAX, &buf, &len, st))
		return st->code;
	fmt = fs3_detect(buf, len);
	if (fmt == FMT_FS3 || fmt == FMT_FS4) {
		*done = true;
		if (!(img = malloc(sizeof(*img))))
			rc = cx_fail(st, CX_ENOMEM, "out of memory");
		else if (!(rc = fs3_parse(buf, len, img, st)) && !(rc = fs3_verdict(img, st))) {
			card_facts_from_fs3(&s->k, img);
			/* A file that holds two slots is a whole flash (a dump, fs3-format.md §8):
			 * its size is the card's. A release file says nothing of the flash. */
			if (img->log2_slot < 31 && len >= (2ull << img->log2_slot))
				s->k.mc.flash_size = (uint32_t)len;
			const struct chip_desc *cd = chip_by_hw_id(s->k.mc.hw_id);
			snprintf(s->label, sizeof(s->label), "%s", c->image);
			snprintf(s->chip, sizeof(s->chip), "%s (%s)", cd ? cd->name : "unknown chip", img->fmt->name);
			s->oem = oem_from_psid(s->k.psid);
		}
	}
	free(img);
	free(buf);
	return rc;
}

static int facts_from_file(struct cli *c, struct match_subject *s, struct cx_status *st)
{
	struct card_facts *k = &s->k;
	bool fs3 = false;
	int rc = c->striped ? CX_OK : facts_from_fs3(c, s, &fs3, st);

	if (rc || (!c->striped && fs3))
		return rc;
	if ((rc = imgfile_open(&s->f, c->image, c->striped, st)))
		return rc;
	const struct fs2_info *in = &s->f.img.info;
	if (!in->nhw_ids)
		return cx_fail(st, CX_EABSENT, "%s names no HW ID (IMAGE_INFO tag 10): match needs -d BDF", c->image);
	snprintf(s->label, sizeof(s->label), "%s", c->image);
	k->mc.hw_id = in->hw_ids[0] & 0xFFFF;
	k->mc.rev = (uint8_t)(in->hw_ids[0] >> 16);
	k->mc.flash_size = c->striped ? (uint32_t)s->f.raw_len : FILE_FLASH_SIZE;
	const struct chip_desc *cd = chip_by_hw_id(k->mc.hw_id);
	snprintf(s->chip, sizeof(s->chip), "%s rev %u", cd ? cd->name : "unknown chip", k->mc.rev);
	card_facts_from_image(k, &s->f.img);
	if (s->f.img.fwconf_sect >= 0) {
		const struct fs2_item *it = &s->f.img.items[s->f.img.fwconf_sect];
		struct cx_status ist = {0};
		if (ini_inflate(s->f.cont + it->data_off, it->data_len, &k->ini, &k->ini_len, &ist) == CX_OK) {
			k->mc.ini_text = k->ini;
			k->mc.ini_len = k->ini_len;
			k->ini_source = "the image file";
		}
	}
	s->oem = oem_from_psid(k->psid);
	return CX_OK;
}

static void fmt_ver(char *out, size_t n, const uint16_t v[3])
{
	snprintf(out, n, "%u.%u.%u", v[0], v[1], v[2]);
}

static const char *class_name(enum ini_class k)
{
	return k == INI_SAME ? "same" : k == INI_EXPECTED ? "expected" : "risky";
}

static void print_card(const struct match_subject *s, const struct match_result *r)
{
	const struct card_facts *k = &s->k;
	char ver[24] = "?";

	if (k->mc.have_fw)
		fmt_ver(ver, sizeof(ver), k->mc.fw_ver);
	printf("card %s: %s, OEM %s, PSID %s, FW %s%s\n", s->label, s->chip, s->oem ? s->oem : "unknown",
	       k->mc.psid ? k->mc.psid : "unknown", ver, k->mc.recovery ? ", RECOVERY MODE" : "");
	if (k->identity_note)
		printf("  identity from the backup %s\n", k->identity_note);
	if (r->card_row)
		printf("  board table line %u: %s %s%s%s\n", r->card_row->line, r->card_row->oem,
		       r->card_row->oem_parts ? r->card_row->oem_parts : "",
		       r->card_row->stock_part ? " -> stock " : ", no stock target stated",
		       r->card_row->stock_part ? r->card_row->stock_part : "");
	printf("  port type: %s (%s)\n", r->card_port == BOARD_PORT_NONE ? "unknown" : board_port_name(r->card_port),
	       r->card_port_basis);
	const struct chip_desc *cd = chip_by_hw_id(k->mc.hw_id);
	if (cd && cd->support != CHIP_CARDS) {
		/* FS3/FS4 images carry no board .ini; their PSID names the board (fs3-format.md §5). */
		printf("  %s%s: %s\n", cd->name, k->mc.secure_fw ? ", secure firmware" : "",
		       cd->limit);
		return;
	}
	if (r->have_card_ini)
		printf("  board .ini: read from %s\n", k->ini_source);
	else
		printf("  board .ini: none%s\n", k->ini ? " readable" : "");
}

static void print_diff(const struct match_candidate *m)
{
	const struct ini_diff *d = &m->diff;

	if (!m->have_diff)
		return;
	printf("       .ini: %zu identical, %zu expected to differ, %zu risky\n", d->nsame, d->nexpected, d->nrisky);
	for (size_t i = 0; i < d->n; i++) {
		const struct ini_pair *p = &d->pairs[i];
		if (p->cls == INI_SAME)
			continue;
		printf("         %-8s [%s] %s: card %s, image %s\n", class_name(p->cls), p->section, p->key,
		       p->card ? p->card : "(absent)", p->image ? p->image : "(absent)");
	}
}

static void print_text(const struct match_subject *s, const struct library *l, const struct match_result *r)
{
	print_card(s, r);
	printf("library: %zu image%s; board table %s%s%s\n", l->m.n, l->m.n == 1 ? "" : "s",
	       l->boards_path ? l->boards_path : "none", l->own_path ? ", and yours: " : "",
	       l->own_path ? l->own_path : "");
	if (l->own_error[0])
		fprintf(stderr, "-W- %s\n", l->own_error);
	for (size_t i = 0; i < r->n; i++) {
		const struct match_candidate *m = &r->c[i];
		printf("%2zu. %-7s %s\n", i + 1, match_verdict_name(m->verdict), m->e->name);
		printf("       %s\n", m->line);
		if (m->via)
			printf("       via the board table, line %u: %s %s -> %s (%s)\n", m->via->line, m->via->oem,
			       m->via->oem_parts ? m->via->oem_parts : "", m->via->stock_part,
			       board_basis_name(m->via->basis));
		for (int j = 0; j < m->nreasons; j++)
			printf("       - %s: %s\n", match_verdict_name(m->reason_v[j]), m->reasons[j]);
		if (m->verdict != MATCH_REFUSED)
			print_diff(m);
	}
	if (r->best < 0)
		printf("no image in the library fits this card\n");
	else
		printf("recommended: %s (%s): %s\n", r->c[r->best].e->name, match_verdict_name(r->c[r->best].verdict),
		       r->c[r->best].line);
}

static void json_subject(struct json *j, const struct match_subject *s, const struct match_result *r)
{
	const struct card_facts *k = &s->k;
	char ver[24];

	json_obj(j, "card");
	json_str(j, "device", s->label);
	json_str(j, "chip", s->chip);
	json_str(j, "oem", s->oem);
	json_str(j, "psid", k->mc.psid);
	if (k->mc.have_fw) {
		fmt_ver(ver, sizeof(ver), k->mc.fw_ver);
		json_str(j, "fw_version", ver);
	} else {
		json_null(j, "fw_version");
	}
	json_bool(j, "recovery", k->mc.recovery);
	json_str(j, "identity_from", k->identity_note);
	if (r->card_row)
		json_int(j, "board_line", r->card_row->line);
	else
		json_null(j, "board_line");
	json_str(j, "port", r->card_port == BOARD_PORT_NONE ? NULL : board_port_name(r->card_port));
	json_str(j, "port_basis", r->card_port_basis);
	json_bool(j, "ini", r->have_card_ini);
	json_close(j);
}

/* The .ini differences of a candidate, the identical keys left out. */
static void json_diff(struct json *j, const struct ini_diff *d)
{
	json_obj(j, "ini");
	json_int(j, "same", (long long)d->nsame);
	json_int(j, "expected", (long long)d->nexpected);
	json_int(j, "risky", (long long)d->nrisky);
	json_arr(j, "differences");
	for (size_t n = 0; n < d->n; n++) {
		const struct ini_pair *p = &d->pairs[n];
		if (p->cls == INI_SAME)
			continue;
		json_obj(j, NULL);
		json_str(j, "class", class_name(p->cls));
		json_str(j, "section", p->section);
		json_str(j, "key", p->key);
		json_str(j, "card", p->card);
		json_str(j, "image", p->image);
		json_close(j);
	}
	json_close(j);
	json_close(j);
}

static void json_candidate(struct json *j, const struct match_candidate *m)
{
	char ver[24];

	json_obj(j, NULL);
	json_str(j, "file", m->e->name);
	json_str(j, "path", m->e->path);
	json_str(j, "sha256", m->e->sha256);
	json_str(j, "verdict", match_verdict_name(m->verdict));
	json_str(j, "relation", match_relation_name(m->rel));
	json_str(j, "psid", m->e->psid);
	fmt_ver(ver, sizeof(ver), m->e->fw_ver);
	json_str(j, "fw_version", ver);
	json_str(j, "version_change", m->version_cmp == 2 ? "unknown" : m->version_cmp > 0 ? "upgrade" :
		 m->version_cmp < 0 ? "downgrade" : "same");
	if (m->via)
		json_int(j, "board_line", m->via->line);
	json_str(j, "line", m->line);
	json_arr(j, "reasons");
	for (int n = 0; n < m->nreasons; n++) {
		json_obj(j, NULL);
		json_str(j, "verdict", match_verdict_name(m->reason_v[n]));
		json_str(j, "text", m->reasons[n]);
		json_close(j);
	}
	json_close(j);
	if (m->have_diff)
		json_diff(j, &m->diff);
	json_close(j);
}

static void print_json(const struct match_subject *s, const struct library *l, const struct match_result *r)
{
	struct json j;

	json_begin(&j, stdout);
	json_subject(&j, s, r);
	json_str(&j, "boards", l->boards_path);
	json_str(&j, "own_boards", l->own_path);
	json_arr(&j, "candidates");
	for (size_t i = 0; i < r->n; i++)
		json_candidate(&j, &r->c[i]);
	json_close(&j);
	json_str(&j, "recommended", r->best < 0 ? NULL : r->c[r->best].e->name);
	json_end(&j);
}

int cmd_match(struct cli *c, struct cx_status *st)
{
	struct match_subject *s = calloc(1, sizeof(*s));
	struct library l;
	struct match_result r;
	struct identity_opts ident;
	/* The burn the verdicts promise: `burn` with this command line's options. Its
	 * PSID change is judged with the board table (burn asks for --allow_psid_change);
	 * the identity is judged on a card that has one to keep and no --identity-from
	 * (a card in recovery mode needs --guid/--mac or a backup, named when it burns). */
	struct guard_opts burn = {.allow_psid_change = true};
	struct match_opts o = {.expert = c->expert, .burn = &burn};
	uint8_t *rom = NULL;
	int rc;

	if (!s)
		return cx_fail(st, CX_ENOMEM, "out of memory");
	if ((rc = cli_rom_choice(c, &o.rom, &rom, st))) {
		free(s);
		return rc;
	}
	memset(&l, 0, sizeof(l));
	memset(&r, 0, sizeof(r));
	if (c->identity_from && !c->device)
		rc = cx_fail(st, CX_EUSAGE, "--identity-from is for a card (-d BDF) in recovery mode");
	else
		rc = c->device ? facts_from_device(c, s, st) : facts_from_file(c, s, st);
	if (!rc && c->device && s->ci.have_image && !c->identity_from) {
		cli_identity_opts(c, &ident);
		burn.ident = &ident;
	}
	if (!rc)
		rc = library_open(c->boards, c->firmware, (size_t)c->nfirmware, &l, st);
	if (!rc)
		rc = match_card(&s->k.mc, &l.m, l.table, &o, &r, st);
	if (!rc) {
		if (c->json)
			print_json(s, &l, &r);
		else
			print_text(s, &l, &r);
		if (r.best < 0)
			rc = cx_fail(st, CX_EABSENT, "no library image fits this card (%zu looked at)", r.n);
	}
	match_free(&r);
	library_close(&l);
	imgfile_close(&s->f);
	cardinfo_free(&s->ci);
	card_facts_free(&s->k);
	free(s);
	free(rom);
	return rc;
}
