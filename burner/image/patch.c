/* SPDX-License-Identifier: GPL-2.0-or-later */
/* patch.c — GUID, MAC and VSD patches with their CRCs (fs2-format.md §3.3). */
#include <stdlib.h>
#include <string.h>

#include "image/crc16.h"
#include "image/patch.h"
#include "util/bytes.h"

#define FULL_CRC_MASK 0xFFFF /* 0x20 bits 15:0, §2.2 */

void patch_expand_guid(uint64_t base, uint64_t out[GUIDS_NGUID])
{
	for (int i = 0; i < GUIDS_NGUID; i++)
		out[i] = base + (uint64_t)i;
}

void patch_expand_mac(uint64_t base, uint64_t out[GUIDS_NMAC])
{
	for (int i = 0; i < GUIDS_NMAC; i++)
		out[i] = base + (uint64_t)i;
}

void patch_section_crc(uint8_t *buf, const struct fs2_item *it)
{
	uint16_t crc = crc16_be(buf + it->off, FS2_GPH_SIZE + it->data_len);

	put_be32(buf + it->data_off + it->data_len, crc);
}

void patch_full_crc(uint8_t *buf, const struct fs2_image *img)
{
	uint32_t w = be32(buf + FS2_OFF_FULL_CRC) & ~(uint32_t)FULL_CRC_MASK;

	put_be32(buf + FS2_OFF_FULL_CRC, w | fs2_full_crc(buf, img->last_addr));
}

int patch_guids(uint8_t *buf, const struct fs2_image *img, const struct guid_request *req,
		struct cx_status *st)
{
	int n = img->guids.n;

	if (img->guid_sect < 0)
		return cx_fail(st, CX_EABSENT, "the image has no GUID section");
	const struct fs2_item *sect = &img->items[img->guid_sect];
	uint8_t *d = buf + sect->data_off;

	if (n < GUIDS_NGUID)
		return cx_fail(st, CX_EUNSUPPORTED, "GUID section holds %d entries; at least %d are needed",
			       n, GUIDS_NGUID);
	if (req->have_macs && n < GUIDS_FULL)
		return cx_fail(st, CX_EUNSUPPORTED,
			       "this image stores only %d GUIDs and no MACs (its MACs derive from the port GUIDs): set GUIDs instead",
			       n);
	for (int i = 0; req->have_macs && i < GUIDS_NMAC; i++)
		if (guids_check_mac(req->mac[i], st))
			return st->code;
	/* flint refuses to keep an invalid stored MAC too (CheckMac, §3.1). */
	for (int i = 0; !req->have_macs && !img->guids.blank && n >= GUIDS_FULL && i < GUIDS_NMAC; i++)
		if (!guids_mac_is_blank(img->guids.raw[GUIDS_NGUID + i]) &&
		    guids_check_mac(img->guids.raw[GUIDS_NGUID + i], st))
			return st->code;
	if (img->guids.blank && !(req->have_guids && (req->have_macs || n < GUIDS_FULL)))
		return cx_fail(st, CX_EVALUE,
			       "image has blank GUIDs: give both GUIDs and MACs, or the blank group would stay blank");
	for (int i = 0; req->have_guids && i < GUIDS_NGUID; i++)
		put_be64(d + 8 * i, req->guid[i]);
	for (int i = 0; req->have_macs && i < GUIDS_NMAC; i++)
		put_be64(d + 8 * (GUIDS_NGUID + i), req->mac[i]);
	patch_section_crc(buf, sect);
	patch_full_crc(buf, img);
	return CX_OK;
}

int patch_vsd(uint8_t *buf, const struct fs2_image *img, const char *vsd, struct cx_status *st)
{
	size_t len = strlen(vsd);

	if (img->info_sect < 0 || !img->info.have[TAG_VSD])
		return cx_fail(st, CX_EABSENT, "image has no VSD field (Image Info tag 5)");
	uint32_t cap = img->info.payload_len[TAG_VSD];
	if (cap > INFO_VSD_LEN)
		cap = INFO_VSD_LEN;
	if (len > cap)
		return cx_fail(st, CX_EVALUE, "VSD is %zu characters: at most %u fit", len, cap);
	const struct fs2_item *sect = &img->items[img->info_sect];
	uint8_t *p = buf + sect->data_off + img->info.payload_off[TAG_VSD];
	memset(p, 0, img->info.payload_len[TAG_VSD]);
	memcpy(p, vsd, len);
	patch_section_crc(buf, sect);
	/* A blank-GUID image keeps its 0xFFFF full CRC until GUIDs are set, §3.1. */
	if (!(img->guids.blank && img->full_crc_stored == 0xFFFF))
		patch_full_crc(buf, img);
	return CX_OK;
}

int patch_check_result(const uint8_t *buf, size_t len, struct cx_status *st)
{
	struct fs2_image *img = malloc(sizeof(*img));
	struct cx_status inner = {0};
	int rc;

	if (!img)
		return cx_fail(st, CX_ENOMEM, "out of memory");
	rc = fs2_parse(buf, len, img, &inner);
	if (!rc)
		rc = fs2_verdict(img, &inner);
	free(img);
	if (rc && rc != CX_EBLANK)
		return cx_fail(st, CX_EIMAGE, "internal error: the patched image does not verify (%s)",
			       inner.msg);
	return CX_OK;
}
