/* SPDX-License-Identifier: GPL-2.0-or-later */
/* guard.c — the pre-burn rules, one function each, applied from one table. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "dev/chip.h"
#include "dev/pci_enum.h"
#include "image/rom_edit.h"
#include "ops/guard.h"


/* What a rule looks at. The verify rule parses buf into parsed; the others read img. */
struct guard_in {
	const struct guard_card *card;
	const struct guard_opts *o;
	const uint8_t *buf;
	size_t len;
	struct fs2_image *parsed;
	const struct fs2_image *img;
};

uint32_t guard_max_image_size(const struct fs2_image *img, uint32_t flash_size)
{
	return rom_max_image_size(img, flash_size);
}

int guard_cmp_version(const uint16_t a[3], const uint16_t b[3])
{
	for (int i = 0; i < 3; i++)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return 0;
}

static const char *family_of_hw(uint16_t hw_id)
{
	const struct chip_desc *d = chip_by_hw_id(hw_id);
	return d ? d->name : "an unknown chip";
}

static void ask(struct guard_verdict *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ask(struct guard_verdict *v, const char *fmt, ...)
{
	va_list ap;

	if (v->nquestions >= GUARD_MAX_QUESTIONS)
		return;
	va_start(ap, fmt);
	vsnprintf(v->questions[v->nquestions++], sizeof(v->questions[0]), fmt, ap);
	va_end(ap);
}

/* The card has an image to compare with: its PSID, version and chunk size. */
static const struct fs2_image *card_image(const struct guard_in *in)
{
	return in->card->recovery ? NULL : in->card->current;
}

static int rule_verify(const struct guard_in *in, struct guard_verdict *v, struct cx_status *st)
{
	struct cx_status pst = {0};
	int rc;

	(void)v;
	if ((rc = fs2_parse(in->buf, in->len, in->parsed, &pst)) ||
	    ((rc = fs2_verdict(in->parsed, &pst)) && rc != CX_EBLANK))
		return cx_fail(st, rc, "the image does not verify: %s", pst.msg);
	return CX_OK;
}

static int rule_trailing(const struct guard_in *in, struct guard_verdict *v, struct cx_status *st)
{
	(void)v;
	if (in->img->last_addr != in->len)
		return cx_fail(st, CX_EIMAGE, "the image file has %zu bytes after its last section: not a released image",
			       in->len - in->img->last_addr);
	return CX_OK;
}

/* The image's tag 10 lists (rev << 16 | hw_id) it runs on (CheckMatchingHwDevId, §3.3);
 * without it, the device type (tag 3) names the family (CheckMatchingDevId). */
static int rule_chip(const struct guard_in *in, struct guard_verdict *v, struct cx_status *st)
{
	const struct guard_card *c = in->card;
	const struct fs2_info *fi = &in->img->info;
	uint32_t want = (uint32_t)c->rev << 16 | c->hw_id;

	(void)v;
	if (in->o->no_devid_check)
		return CX_OK;
	if (fi->nhw_ids) {
		for (int i = 0; i < fi->nhw_ids; i++)
			if (fi->hw_ids[i] == want)
				return CX_OK;
		uint32_t h = fi->hw_ids[0];
		if ((h & 0xFFFF) != c->hw_id)
			return cx_fail(st, CX_EMISMATCH, "the image is for %s (HW 0x%x), this card is %s (HW 0x%x): refused",
				       family_of_hw(h & 0xFFFF), h & 0xFFFF, family_of_hw(c->hw_id), c->hw_id);
		return cx_fail(st, CX_EMISMATCH,
			       "the image is for revision 0x%x of %s, this card is revision 0x%x: refused "
			       "(a cross-revision burn leaves the card without working firmware)",
			       h >> 16, family_of_hw(c->hw_id), c->rev);
	}
	enum pci_kind kind;
	const char *fam;
	const struct chip_desc *mine = chip_by_hw_id(c->hw_id);
	if (!pci_id_known(fi->dev_type, &kind, &fam) || !mine || strcmp(fam, mine->name))
		return cx_fail(st, CX_EMISMATCH, "the image is for device %u, not for a %s: refused", fi->dev_type,
			       mine ? mine->name : "card of this kind");
	return CX_OK;
}

static int rule_size(const struct guard_in *in, struct guard_verdict *v, struct cx_status *st)
{
	if (in->img->last_addr > v->max_image_size)
		return cx_fail(st, CX_EMISMATCH, "the image is %u bytes; at most %u fit this card's %u KiB flash",
			       in->img->last_addr, v->max_image_size, in->card->flash_size >> 10);
	return CX_OK;
}

static int rule_psid(const struct guard_in *in, struct guard_verdict *v, struct cx_status *st)
{
	const struct fs2_image *now = card_image(in);
	const char *mine = in->img->info.psid;

	if (!now || !strcmp(now->info.psid, mine))
		return CX_OK;
	if (!in->o->allow_psid_change)
		return cx_fail(st, CX_EMISMATCH,
			       "PSID mismatch: the card is %s, the image is %s; cross-flashing needs --allow_psid_change",
			       now->info.psid, mine);
	ask(v, "Change the card's PSID from %s to %s?", now->info.psid, mine);
	return CX_OK;
}

/* Both slots of a failsafe flash are cut into chunks of the card's size (§1.5). */
static int rule_chunk(const struct guard_in *in, struct guard_verdict *v, struct cx_status *st)
{
	const struct fs2_image *now = card_image(in), *img = in->img;

	(void)v;
	if (now && now->failsafe && img->failsafe && now->log2chunk != img->log2chunk)
		return cx_fail(st, CX_EMISMATCH, "the image's chunk size (0x%x) differs from the card's (0x%x)",
			       1u << img->log2chunk, 1u << now->log2chunk);
	return CX_OK;
}

static int rule_identity(const struct guard_in *in, struct guard_verdict *v, struct cx_status *st)
{
	if (!in->o->ident)
		return CX_OK;
	return identity_decide(card_image(in), in->img, in->o->ident, &v->id, st);
}

typedef int guard_rule_fn(const struct guard_in *in, struct guard_verdict *v, struct cx_status *st);

static const struct {
	const char *name;
	guard_rule_fn *check;
} rules[GUARD_NRULES] = {
	[GUARD_VERIFY] = {"verify", rule_verify},
	[GUARD_TRAILING] = {"trailing", rule_trailing},
	[GUARD_CHIP] = {"chip", rule_chip},
	[GUARD_SIZE] = {"size", rule_size},
	[GUARD_PSID] = {"PSID", rule_psid},
	[GUARD_CHUNK] = {"chunk", rule_chunk},
	[GUARD_IDENTITY] = {"identity", rule_identity},
};

const char *guard_rule_name(enum guard_rule r)
{
	return r < GUARD_NRULES ? rules[r].name : "none";
}

/* Rules first..last in order; the first refusal ends it. */
static void apply(const struct guard_in *in, enum guard_rule first, enum guard_rule last, struct guard_verdict *v)
{
	for (int r = first; r <= (int)last; r++) {
		struct cx_status st = {0};
		int rc = rules[r].check(in, v, &st);
		if (rc) {
			v->code = rc;
			v->rule = (enum guard_rule)r;
			snprintf(v->reason, sizeof(v->reason), "%s", st.msg);
			return;
		}
	}
}

void guard_check_file(const uint8_t *buf, size_t len, struct fs2_image *img, struct guard_verdict *v)
{
	struct guard_in in = {.buf = buf, .len = len, .parsed = img, .img = img};

	memset(v, 0, sizeof(*v));
	v->rule = GUARD_NRULES;
	apply(&in, GUARD_VERIFY, GUARD_TRAILING, v);
}

void guard_check(const struct guard_card *c, const struct fs2_image *img, const struct guard_opts *o,
		 struct guard_verdict *v)
{
	struct guard_in in = {.card = c, .o = o, .img = img};
	char a[24], b[24];

	memset(v, 0, sizeof(*v));
	v->rule = GUARD_NRULES;
	v->max_image_size = guard_max_image_size(img, c->flash_size);
	apply(&in, GUARD_CHIP, GUARD_IDENTITY, v);
	const struct fs2_image *now = card_image(&in);
	if (v->code || !now)
		return;
	const struct fs2_info *cur = &now->info, *fi = &img->info;
	int cmp = guard_cmp_version(fi->fw_ver, cur->fw_ver);
	if (cmp <= 0) {
		snprintf(a, sizeof(a), "%u.%u.%u", cur->fw_ver[0], cur->fw_ver[1], cur->fw_ver[2]);
		snprintf(b, sizeof(b), "%u.%u.%u", fi->fw_ver[0], fi->fw_ver[1], fi->fw_ver[2]);
		if (cmp)
			ask(v, "The image (%s) is older than the card's firmware (%s). Downgrade?", b, a);
		else
			ask(v, "The card already has firmware %s. Burn it again?", b);
	}
}
