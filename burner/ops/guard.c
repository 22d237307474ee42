/* SPDX-License-Identifier: GPL-2.0-or-later */
/* guard.c — the pre-burn rules. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "dev/chip.h"
#include "dev/pci_enum.h"
#include "ops/guard.h"

#define DEFAULT_SECTOR (64u << 10) /* FS2 default fw sector size on CX2/CX3, §1.5 */
#define RESERVE_MAX (64u << 10)    /* reserve = min(config_sectors * S, 64 KiB), §1.5 */

uint32_t guard_max_image_size(const struct fs2_image *img, uint32_t flash_size)
{
	const struct fs2_info *in = &img->info;
	uint32_t s = DEFAULT_SECTOR;

	if (in->have_sector_size && in->log2_sector_kib < 16)
		s = (1u << in->log2_sector_kib) << 10;
	uint64_t reserve = (uint64_t)in->config_sectors * s;
	if (reserve > RESERVE_MAX)
		reserve = RESERVE_MAX;
	uint64_t pad = (uint64_t)in->config_pad * s;
	uint64_t cut = img->failsafe ? reserve + pad : 2 * reserve + pad;
	uint64_t room = img->failsafe ? flash_size / 2 : flash_size;
	return cut >= room ? 0 : (uint32_t)(room - cut);
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

static void refuse(struct guard_verdict *v, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void refuse(struct guard_verdict *v, int code, const char *fmt, ...)
{
	va_list ap;

	if (v->code)
		return;
	v->code = code;
	va_start(ap, fmt);
	vsnprintf(v->reason, sizeof(v->reason), fmt, ap);
	va_end(ap);
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

/* The image's tag 10 lists (rev << 16 | hw_id) it runs on (CheckMatchingHwDevId, §3.3). */
static void check_hw(const struct guard_card *c, const struct fs2_image *img, struct guard_verdict *v)
{
	const struct fs2_info *in = &img->info;
	uint32_t want = (uint32_t)c->rev << 16 | c->hw_id;

	if (in->nhw_ids) {
		for (int i = 0; i < in->nhw_ids; i++)
			if (in->hw_ids[i] == want)
				return;
		uint32_t h = in->hw_ids[0];
		if ((h & 0xFFFF) != c->hw_id)
			refuse(v, CX_EMISMATCH, "the image is for %s (HW 0x%x), this card is %s (HW 0x%x): refused",
			       family_of_hw(h & 0xFFFF), h & 0xFFFF, family_of_hw(c->hw_id), c->hw_id);
		else
			refuse(v, CX_EMISMATCH,
			       "the image is for revision 0x%x of %s, this card is revision 0x%x: refused "
			       "(a cross-revision burn leaves the card without working firmware)",
			       h >> 16, family_of_hw(c->hw_id), c->rev);
		return;
	}
	/* No tag 10: the device type (tag 3) names the family (CheckMatchingDevId). */
	enum pci_kind kind;
	const char *fam;
	const struct chip_desc *mine = chip_by_hw_id(c->hw_id);
	if (!pci_id_known(in->dev_type, &kind, &fam) || !mine || strcmp(fam, mine->name))
		refuse(v, CX_EMISMATCH, "the image is for device %u, not for a %s: refused", in->dev_type,
		       mine ? mine->name : "card of this kind");
}

void guard_check(const struct guard_card *c, const struct fs2_image *img, const struct guard_opts *o,
		 struct guard_verdict *v)
{
	char a[24], b[24];

	memset(v, 0, sizeof(*v));
	if (!o->no_devid_check)
		check_hw(c, img, v);
	v->max_image_size = guard_max_image_size(img, c->flash_size);
	if (img->last_addr > v->max_image_size)
		refuse(v, CX_EMISMATCH, "the image is %u bytes; at most %u fit this card's %u KiB flash",
		       img->last_addr, v->max_image_size, c->flash_size >> 10);
	if (v->code || c->recovery || !c->current)
		return;
	const struct fs2_info *now = &c->current->info, *in = &img->info;
	if (strcmp(now->psid, in->psid)) {
		if (!o->allow_psid_change)
			refuse(v, CX_EMISMATCH,
			       "PSID mismatch: the card is %s, the image is %s; cross-flashing needs --allow_psid_change",
			       now->psid, in->psid);
		else
			ask(v, "Change the card's PSID from %s to %s?", now->psid, in->psid);
	}
	int cmp = guard_cmp_version(in->fw_ver, now->fw_ver);
	if (cmp <= 0) {
		snprintf(a, sizeof(a), "%u.%u.%u", now->fw_ver[0], now->fw_ver[1], now->fw_ver[2]);
		snprintf(b, sizeof(b), "%u.%u.%u", in->fw_ver[0], in->fw_ver[1], in->fw_ver[2]);
		if (cmp)
			ask(v, "The image (%s) is older than the card's firmware (%s). Downgrade?", b, a);
		else
			ask(v, "The card already has firmware %s. Burn it again?", b);
	}
}
