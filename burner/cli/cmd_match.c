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
 * there is a recommendation, CX_EABSENT when every image is refused.
 */
#include <stdlib.h>
#include <string.h>

#include "cli/common.h"
#include "cli/library.h"
#include "image/ini.h"
#include "library/match.h"
#include "ops/cardinfo.h"
#include "ops/oem.h"
#include "util/fileio.h"

#define FILE_FLASH_SIZE FS2_MAX_IMAGE /* -i FILE: no card, so no size limit but the format's */

struct card_facts {
	struct match_card mc;
	char label[48];             /* "0000:01:00.0", or the file */
	char chip[40];
	const char *oem;
	struct cardinfo ci;         /* -d: the card */
	struct imgfile f;           /* -i: the card's image, parsed */
	bool have_image;
	char *ini;                  /* -i and --identity-from: malloc'd */
	size_t ini_len;
	char psid[INFO_PSID_LEN + 1];
	const char *identity_note;  /* where the PSID came from when not the flash */
	const char *ini_source;     /* "the flash", "the image file", "the backup" */
};

static void facts_from_image(struct card_facts *k, const struct fs2_image *img)
{
	k->have_image = true;
	k->mc.current = img;
	snprintf(k->psid, sizeof(k->psid), "%s", img->info.psid);
	k->mc.psid = k->psid;
	k->mc.have_fw = true;
	memcpy(k->mc.fw_ver, img->info.fw_ver, sizeof(k->mc.fw_ver));
	k->mc.dev_type = img->info.dev_type;
}

/* "2.42.5000" -> {2, 42, 5000}. */
static bool parse_ver(const char *s, uint16_t v[3])
{
	unsigned a, b, c;
	char tail;

	if (sscanf(s, "%u.%u.%u%c", &a, &b, &c, &tail) != 3 || a > 0xFFFF || b > 0xFFFF || c > 0xFFFF)
		return false;
	v[0] = (uint16_t)a, v[1] = (uint16_t)b, v[2] = (uint16_t)c;
	return true;
}

/* A card without a readable image: its PSID, version and .ini from its backup. */
static int facts_from_bundle(struct cli *c, struct card_facts *k, struct cx_status *st)
{
	struct backup_identity id;
	char path[BACKUP_PATH_MAX];
	int rc;

	if ((rc = backup_verify(c->identity_from, st)) || (rc = backup_load_identity(c->identity_from, &id, st)))
		return rc;
	if (!id.have_image)
		return cx_fail(st, CX_EABSENT, "the backup %s holds no readable image either: it cannot say "
			       "which board this is", c->identity_from);
	snprintf(k->psid, sizeof(k->psid), "%s", id.psid);
	k->mc.psid = k->psid;
	k->mc.have_fw = parse_ver(id.fw_version, k->mc.fw_ver);
	k->identity_note = c->identity_from;
	if (id.have_ini) {
		uint8_t *buf;
		size_t len;
		snprintf(path, sizeof(path), "%s/%s", c->identity_from, BACKUP_INI);
		if ((rc = file_read(path, INI_MAX_TEXT, &buf, &len, st)))
			return rc;
		k->ini = (char *)buf;
		k->ini_len = len;
		k->ini_source = "the backup";
		k->mc.ini_text = k->ini;
		k->mc.ini_len = len;
	}
	return CX_OK;
}

static int facts_from_device(struct cli *c, struct card_facts *k, struct cx_status *st)
{
	struct device d;
	int rc = device_open(&d, c->sysfs, c->device, c->clear_sem, st);

	if (!rc)
		rc = cardinfo_read(&d, &k->ci, st);
	device_close(&d);
	if (rc)
		return rc;
	const struct pci_card pci = k->ci.pci;
	snprintf(k->label, sizeof(k->label), "%s", pci.bdf);
	snprintf(k->chip, sizeof(k->chip), "%s", k->ci.chip);
	k->mc.hw_id = k->ci.hw_id;
	k->mc.rev = k->ci.rev;
	k->mc.flash_size = k->ci.flash_size;
	k->mc.recovery = k->ci.recovery;
	k->mc.pci_class = pci.class_code;
	k->mc.subsys_vendor = pci.subsys_vendor;
	k->mc.subsys_device = pci.subsys_device;
	k->oem = k->ci.oem;
	if (k->ci.have_image) {
		facts_from_image(k, &k->ci.f.img);
		if (k->ci.ini) {
			k->mc.ini_text = k->ci.ini;
			k->mc.ini_len = k->ci.ini_len;
			k->ini_source = "the flash";
		}
	} else if (c->identity_from) {
		rc = facts_from_bundle(c, k, st);
	}
	return rc;
}

static int facts_from_file(struct cli *c, struct card_facts *k, struct cx_status *st)
{
	int rc = imgfile_open(&k->f, c->image, c->striped, st);

	if (rc)
		return rc;
	const struct fs2_info *in = &k->f.img.info;
	if (!in->nhw_ids)
		return cx_fail(st, CX_EABSENT, "%s names no HW ID (IMAGE_INFO tag 10): match needs -d BDF", c->image);
	snprintf(k->label, sizeof(k->label), "%s", c->image);
	k->mc.hw_id = in->hw_ids[0] & 0xFFFF;
	k->mc.rev = (uint8_t)(in->hw_ids[0] >> 16);
	k->mc.flash_size = c->striped ? (uint32_t)k->f.raw_len : FILE_FLASH_SIZE;
	const struct chip_desc *cd = chip_by_hw_id(k->mc.hw_id);
	snprintf(k->chip, sizeof(k->chip), "%s rev %u", cd ? cd->name : "unknown chip", k->mc.rev);
	facts_from_image(k, &k->f.img);
	if (k->f.img.fwconf_sect >= 0) {
		const struct fs2_item *s = &k->f.img.items[k->f.img.fwconf_sect];
		struct cx_status ist = {0};
		if (ini_inflate(k->f.cont + s->data_off, s->data_len, &k->ini, &k->ini_len, &ist) == CX_OK) {
			k->mc.ini_text = k->ini;
			k->mc.ini_len = k->ini_len;
			k->ini_source = "the image file";
		}
	}
	k->oem = oem_from_psid(k->psid);
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

static void print_card(const struct card_facts *k, const struct match_result *r)
{
	char ver[24] = "?";

	if (k->mc.have_fw)
		fmt_ver(ver, sizeof(ver), k->mc.fw_ver);
	printf("card %s: %s, OEM %s, PSID %s, FW %s%s\n", k->label, k->chip, k->oem ? k->oem : "unknown",
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

static void print_text(const struct card_facts *k, const struct cli_library *l, const struct match_result *r)
{
	print_card(k, r);
	printf("library: %zu image%s; board table %s\n", l->m.n, l->m.n == 1 ? "" : "s",
	       l->boards_path ? l->boards_path : "none");
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

static void print_json(const struct card_facts *k, const struct cli_library *l, const struct match_result *r)
{
	struct json j;
	char ver[24];

	json_begin(&j, stdout);
	json_obj(&j, "card");
	json_str(&j, "device", k->label);
	json_str(&j, "chip", k->chip);
	json_str(&j, "oem", k->oem);
	json_str(&j, "psid", k->mc.psid);
	if (k->mc.have_fw) {
		fmt_ver(ver, sizeof(ver), k->mc.fw_ver);
		json_str(&j, "fw_version", ver);
	} else {
		json_null(&j, "fw_version");
	}
	json_bool(&j, "recovery", k->mc.recovery);
	json_str(&j, "identity_from", k->identity_note);
	if (r->card_row)
		json_int(&j, "board_line", r->card_row->line);
	else
		json_null(&j, "board_line");
	json_str(&j, "port", r->card_port == BOARD_PORT_NONE ? NULL : board_port_name(r->card_port));
	json_str(&j, "port_basis", r->card_port_basis);
	json_bool(&j, "ini", r->have_card_ini);
	json_close(&j);
	json_str(&j, "boards", l->boards_path);
	json_arr(&j, "candidates");
	for (size_t i = 0; i < r->n; i++) {
		const struct match_candidate *m = &r->c[i];
		json_obj(&j, NULL);
		json_str(&j, "file", m->e->name);
		json_str(&j, "path", m->e->path);
		json_str(&j, "sha256", m->e->sha256);
		json_str(&j, "verdict", match_verdict_name(m->verdict));
		json_str(&j, "relation", match_relation_name(m->rel));
		json_str(&j, "psid", m->e->psid);
		fmt_ver(ver, sizeof(ver), m->e->fw_ver);
		json_str(&j, "fw_version", ver);
		json_str(&j, "version_change", m->version_cmp == 2 ? "unknown" : m->version_cmp > 0 ? "upgrade" :
			 m->version_cmp < 0 ? "downgrade" : "same");
		if (m->via)
			json_int(&j, "board_line", m->via->line);
		json_str(&j, "line", m->line);
		json_arr(&j, "reasons");
		for (int n = 0; n < m->nreasons; n++) {
			json_obj(&j, NULL);
			json_str(&j, "verdict", match_verdict_name(m->reason_v[n]));
			json_str(&j, "text", m->reasons[n]);
			json_close(&j);
		}
		json_close(&j);
		if (m->have_diff) {
			json_obj(&j, "ini");
			json_int(&j, "same", (long long)m->diff.nsame);
			json_int(&j, "expected", (long long)m->diff.nexpected);
			json_int(&j, "risky", (long long)m->diff.nrisky);
			json_arr(&j, "differences");
			for (size_t n = 0; n < m->diff.n; n++) {
				const struct ini_pair *p = &m->diff.pairs[n];
				if (p->cls == INI_SAME)
					continue;
				json_obj(&j, NULL);
				json_str(&j, "class", class_name(p->cls));
				json_str(&j, "section", p->section);
				json_str(&j, "key", p->key);
				json_str(&j, "card", p->card);
				json_str(&j, "image", p->image);
				json_close(&j);
			}
			json_close(&j);
			json_close(&j);
		}
		json_close(&j);
	}
	json_close(&j);
	json_str(&j, "recommended", r->best < 0 ? NULL : r->c[r->best].e->name);
	json_end(&j);
}

int cmd_match(struct cli *c, struct cx_status *st)
{
	struct card_facts k;
	struct cli_library l;
	struct match_result r;
	struct match_opts o = {.expert = c->expert};
	int rc;

	memset(&k, 0, sizeof(k));
	memset(&l, 0, sizeof(l));
	memset(&r, 0, sizeof(r));
	if (c->identity_from && !c->device)
		rc = cx_fail(st, CX_EUSAGE, "--identity-from is for a card (-d BDF) in recovery mode");
	else
		rc = c->device ? facts_from_device(c, &k, st) : facts_from_file(c, &k, st);
	if (!rc)
		rc = cli_library_open(c, NULL, 0, &l, st);
	if (!rc)
		rc = match_card(&k.mc, &l.m, l.table, &o, &r, st);
	if (!rc) {
		if (c->json)
			print_json(&k, &l, &r);
		else
			print_text(&k, &l, &r);
		if (r.best < 0)
			rc = cx_fail(st, CX_EABSENT, "no library image fits this card (%zu looked at)", r.n);
	}
	match_free(&r);
	cli_library_close(&l);
	imgfile_close(&k.f);
	cardinfo_free(&k.ci);
	free(k.ini);
	return rc;
}
