/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fs3_devinfo.c — the new DEV_INFO `sg` writes on an FS3/FS4 card, and where (fs3_devinfo.h). */
#include <stdio.h>
#include <string.h>

#include "image/crc16.h"
#include "image/fs3_devinfo.h"
#include "util/bytes.h"

#define T_MFG_INFO 0xe0          /* FS3_MFG_INFO, fs3-format.md §3.3 */
#define T_DEV_INFO 0xe1          /* FS3_DEV_INFO, §3.3 */
#define DEV_SIG0 0x6d446576u     /* "mDev": fs4_ops.cpp DEV_INFO_SIG0, §6.2 */
#define DEV_SIG1 0x496e666fu     /* "Info" */
#define DEV_SIG2 0x2342cafau     /* TOC_RAND2 */
#define DEV_SIG3 0xbacafe00u     /* TOC_RAND3 */
#define DEV_VERSION 0x10         /* minor [7:0], major [16:8], §6.2 */
#define DEV_MAJOR_CX4 2u         /* the ConnectX-4 layout: one base GUID, one base MAC, §6.2 */
#define DEV_MIN_SIZE 0x200       /* CX4FW_DEVICE_INFO_SIZE: what the layout needs */
#define UID_GUID 0x20            /* base GUID entry, in DEV_INFO and MFG_INFO alike, §6.1-§6.2 */
#define UID_MAC 0x30             /* base MAC entry */
#define UID_STEP 2               /* step [15:8] of the entry's first dword */
#define UID_NUM 3                /* number allocated [7:0] */
#define UID_VALUE 8              /* the 64-bit UID in the entry's last two dwords */
#define DEV_VSD_VENDOR 0x6c      /* vsd_vendor_id [15:0] (cx4fw_device_info) */
#define MELLANOX_VENDOR 0x15b3   /* the VSD vendor q shows a VSD for, §5 */
#define MAC_MASK 0xffffffffffffull /* a MAC is the low 48 bits of its UID, §6.2 */
#define MAC_MULTICAST (1ull << 40) /* fw_ops.cpp CheckMac: "Multicast bit (bit 40) is set" */
#define FS3_DEVINFO_NEAR 0x1000  /* Fs3GetNewSectionAddr: the copies at MFG_INFO - 4 KiB ... */
#define FS3_DEVINFO_FAR 0x2000   /* ... and MFG_INFO - 8 KiB (fs3_ops.cpp) */
#define E_ADDR 20                /* entry dword 5: flash_addr [30:2], FS3 relative [31], §3.2 */
#define E_CRC 24                 /* entry dword 6: section_crc [15:0] */
#define E_ENTRY_CRC 28           /* entry dword 7: CRC16 of dwords 0-6 */

static bool signed_at(const uint8_t *d, uint32_t len)
{
	return len >= FS3_DEVINFO_SIG_LEN && be32(d) == DEV_SIG0 && be32(d + 4) == DEV_SIG1 &&
	       be32(d + 8) == DEV_SIG2 && be32(d + 12) == DEV_SIG3;
}

/* The item of entry i, or NULL (an FS4 DEV_INFO without its signature has none). */
static const struct fs3_item *item_of(const struct fs3_image *img, int i)
{
	for (int k = 0; k < img->nitems; k++)
		if (img->items[k].kind == FS3_ITEM_SECTION && img->items[k].entry == i)
			return &img->items[k];
	return NULL;
}

static bool dev_whole(const struct fs3_image *img, int i)
{
	const struct fs3_entry *e = &img->entries[i];
	const uint8_t *d = fs3_entry_data(img, e);
	const struct fs3_item *it = item_of(img, i);

	if (!it || !it->ok || e->size < DEV_MIN_SIZE || ((be32(d + DEV_VERSION) >> 8) & 0x1ff) != DEV_MAJOR_CX4)
		return false;
	return !img->fmt->dtoc || signed_at(d, e->size);
}

static int find_mfg(const struct fs3_image *img, struct fs3_devinfo_plan *p, const struct fs3_entry **mfg,
		    struct cx_status *st)
{
	*mfg = NULL;
	for (int i = img->fmt->dtoc ? img->nitoc : 0; i < img->nentries; i++)
		if (img->entries[i].type == T_MFG_INFO) {
			const struct fs3_item *it = item_of(img, i);
			if (!it || !it->ok)
				return cx_fail(st, CX_EIMAGE, "the card's MFG_INFO at 0x%x is damaged (wrong CRC): sg "
					       "builds the GUIDs/MACs against it; nothing was written",
					       img->entries[i].data_off);
			*mfg = &img->entries[i];
		}
	if (!*mfg)
		return cx_fail(st, CX_EIMAGE, "the card has no MFG_INFO (its factory record): sg cannot put its "
			       "GUIDs/MACs back; restore the whole flash from a backup; nothing was written");
	if (!img->mfg.present || !img->mfg.new_format)
		return cx_fail(st, CX_EUNSUPPORTED, "the card's MFG_INFO is of the old layout (%u.%u): sg on it is "
			       "not supported; nothing was written", img->mfg.major, img->mfg.minor);
	p->mfg_addr = (*mfg)->data_off;
	return CX_OK;
}

/* FS4: old = the DTOC DEV_INFO that is whole; target = another one; kill = every other signed one. */
static int where_fs4(const struct fs3_image *img, struct fs3_devinfo_plan *p, struct cx_status *st)
{
	int dev[FS3_MAX_TOCS], n = 0, old = -1;

	for (int i = img->nitoc; i < img->nentries; i++)
		if (img->entries[i].type == T_DEV_INFO)
			dev[n++] = i;
	if (n < 2)
		return cx_fail(st, CX_EUNSUPPORTED, "the card's DTOC lists %d DEV_INFO section%s, not the two a "
			       "failsafe change needs (fs4_ops.cpp UpdateSection); nothing was written", n, n == 1 ? "" : "s");
	for (int k = 0; k < n && old < 0; k++)
		if (dev_whole(img, dev[k]))
			old = dev[k];
	p->entry = old == dev[0] ? dev[1] : dev[0];
	for (int k = 0; k < n; k++) {
		const struct fs3_entry *e = &img->entries[dev[k]];
		if (dev[k] != p->entry && signed_at(fs3_entry_data(img, e), e->size))
			p->kill[p->nkill++] = e->data_off;
	}
	const struct fs3_entry *t = &img->entries[p->entry];
	if (t->crc_field != FS3_CRC_IN_SECTION)
		return cx_fail(st, CX_EUNSUPPORTED, "the DEV_INFO at 0x%x keeps its CRC in the DTOC, not in itself: "
			       "sg would have to rewrite the DTOC; nothing was written", t->data_off);
	p->old_valid = old >= 0;
	p->old_addr = old >= 0 ? img->entries[old].data_off : 0;
	p->target = t->data_off;
	p->len = t->size;
	return CX_OK;
}

/* FS3: the ITOC names one DEV_INFO, at MFG_INFO - 4 KiB or - 8 KiB; the new one goes to the other. */
static int where_fs3(const struct fs3_image *img, struct fs3_devinfo_plan *p, struct cx_status *st)
{
	int dev = -1;

	/* the first, as Fs3GetItocInfo finds it */
	for (int i = 0; i < img->nentries && dev < 0; i++)
		if (img->entries[i].type == T_DEV_INFO && img->entries[i].device_data)
			dev = i;
	if (dev < 0)
		return cx_fail(st, CX_EUNSUPPORTED, "the card's ITOC lists no DEV_INFO: sg on it is not supported; "
			       "restore the whole flash from a backup; nothing was written");
	const struct fs3_entry *e = &img->entries[dev];
	uint32_t near = p->mfg_addr - FS3_DEVINFO_NEAR, far = p->mfg_addr - FS3_DEVINFO_FAR;
	if (p->mfg_addr < FS3_DEVINFO_FAR || (e->data_off != near && e->data_off != far))
		return cx_fail(st, CX_EUNSUPPORTED, "the card's DEV_INFO is at 0x%x, not 4 or 8 KiB below its MFG_INFO "
			       "(0x%x), where its second copy would go (fs3_ops.cpp Fs3GetNewSectionAddr): "
			       "nothing was written", e->data_off, p->mfg_addr);
	if (e->no_crc)
		return cx_fail(st, CX_EUNSUPPORTED, "the card's DEV_INFO entry says no CRC: not supported; nothing "
			       "was written");
	p->entry = dev;
	p->old_valid = dev_whole(img, dev);
	p->old_addr = e->data_off;
	p->target = e->data_off == near ? far : near;
	p->len = e->size;
	return CX_OK;
}

static uint32_t old_size(const struct fs3_image *img, const struct fs3_devinfo_plan *p)
{
	for (int i = 0; i < img->nentries; i++)
		if (img->entries[i].type == T_DEV_INFO && img->entries[i].data_off == p->old_addr)
			return img->entries[i].size;
	return 0;
}

static void put_uid(uint8_t *d, uint64_t v)
{
	put_be64(d + UID_VALUE, v);
}

/* The bytes: the old DEV_INFO's, or a fresh one with MFG_INFO's allocation. */
static void build(const struct fs3_image *img, const struct fs3_entry *mfg, struct fs3_devinfo_plan *p)
{
	const uint8_t *m = fs3_entry_data(img, mfg);

	memset(p->data, 0, sizeof(p->data));
	if (p->old_valid) {
		const uint8_t *o = img->buf + p->old_addr;
		memcpy(p->data, o, p->len);
	} else {
		p->fresh = true;
		put_be32(p->data, DEV_SIG0);
		put_be32(p->data + 4, DEV_SIG1);
		put_be32(p->data + 8, DEV_SIG2);
		put_be32(p->data + 12, DEV_SIG3);
		put_be32(p->data + DEV_VERSION, DEV_MAJOR_CX4 << 8);
		p->data[UID_GUID + UID_STEP] = m[UID_GUID + UID_STEP];
		p->data[UID_GUID + UID_NUM] = m[UID_GUID + UID_NUM];
		p->data[UID_MAC + UID_STEP] = m[UID_MAC + UID_STEP];
		p->data[UID_MAC + UID_NUM] = m[UID_MAC + UID_NUM];
		put_be32(p->data + DEV_VSD_VENDOR, MELLANOX_VENDOR);
	}
	put_uid(p->data + UID_GUID, p->guid);
	put_uid(p->data + UID_MAC, p->mac);
	if (img->fmt->dtoc)
		put_be32(p->data + p->len - 4, crc16_be(p->data, p->len - 4));
	else
		p->crc = crc16_be(p->data, p->len);
}

static int values(const struct fs3_image *img, const struct fs3_sg_request *rq, bool allow_no_override,
		  struct fs3_devinfo_plan *p, struct cx_status *st)
{
	uint64_t mg = img->mfg.guids[0].uid, mm = img->mfg.macs[0].uid & MAC_MASK;

	if (p->old_valid) {
		p->old_guid = be64(img->buf + p->old_addr + UID_GUID + UID_VALUE);
		p->old_mac = be64(img->buf + p->old_addr + UID_MAC + UID_VALUE) & MAC_MASK;
	}
	p->guid = rq->have_guid ? rq->guid : p->old_valid ? p->old_guid : mg;
	p->mac = rq->have_mac ? rq->mac : p->old_valid ? p->old_mac : mm;
	if (rq->have_mac && (rq->mac & ~MAC_MASK))
		return cx_fail(st, CX_EVALUE, "bad MAC %llx: more than 48 bits are used; nothing was written",
			       (unsigned long long)rq->mac);
	if (rq->have_mac && (rq->mac & MAC_MULTICAST))
		return cx_fail(st, CX_EVALUE, "bad MAC %012llx: the multicast bit (bit 40) is set; nothing was written",
			       (unsigned long long)rq->mac);
	if ((rq->have_mac && (rq->mac == 0 || rq->mac == MAC_MASK)) || (rq->have_guid && (rq->guid == 0 || rq->guid == ~0ull)))
		return cx_fail(st, CX_EVALUE, "a blank GUID or MAC (all zeros or all ones) is not a card's identity; "
			       "nothing was written");
	if (img->mfg.guids_override_en)
		return CX_OK;
	if (!allow_no_override)
		return cx_fail(st, CX_EUNSUPPORTED, "guids override is not set, cannot set device guids (the card's "
			       "MFG_INFO says its GUIDs/MACs are the factory's; --restore-mfg-ids writes those back "
			       "into a lost DEV_INFO); nothing was written");
	if (p->guid != mg || p->mac != mm)
		return cx_fail(st, CX_EVALUE, "guids override is not set: the card uses its factory GUID %016llx and "
			       "MAC %012llx (MFG_INFO); --restore-mfg-ids writes only those; nothing was written",
			       (unsigned long long)mg, (unsigned long long)mm);
	return CX_OK;
}

int fs3_devinfo_plan(const struct fs3_image *img, const struct fs3_sg_request *rq, bool allow_no_override,
		     struct fs3_devinfo_plan *p, struct cx_status *st)
{
	const struct fs3_entry *mfg;
	int rc;

	memset(p, 0, sizeof(*p));
	p->fmt = img->fmt->fmt;
	p->entry = -1;
	if (!rq->have_guid && !rq->have_mac)
		return cx_fail(st, CX_EUSAGE, "sg needs --guid and/or --mac");
	if ((rc = find_mfg(img, p, &mfg, st)))
		return rc;
	if ((rc = img->fmt->dtoc ? where_fs4(img, p, st) : where_fs3(img, p, st)))
		return rc;
	if (p->len < DEV_MIN_SIZE || p->len > FS3_DEVINFO_MAX)
		return cx_fail(st, CX_EUNSUPPORTED, "the DEV_INFO at 0x%x is %u bytes, not a ConnectX-4 layout's "
			       "0x%x to 0x%x; nothing was written", p->target, p->len, DEV_MIN_SIZE, FS3_DEVINFO_MAX);
	if (p->old_valid && old_size(img, p) != p->len)
		return cx_fail(st, CX_EUNSUPPORTED, "the card's two DEV_INFO copies differ in size (0x%x, 0x%x): "
			       "not supported; nothing was written", old_size(img, p), p->len);
	if ((rc = values(img, rq, allow_no_override, p, st)))
		return rc;
	p->same = p->old_valid && p->old_guid == p->guid && p->old_mac == p->mac;
	build(img, mfg, p);
	return CX_OK;
}

int fs3_devinfo_repoint(uint8_t *buf, size_t len, const struct fs3_image *img, const struct fs3_devinfo_plan *p,
			struct cx_status *st)
{
	if (img->fmt->dtoc || p->entry < 0 || (uint64_t)p->target + p->len > len)
		return cx_fail(st, CX_EIMAGE, "no FS3 DEV_INFO entry to repoint");
	uint8_t *e = buf + img->entries[p->entry].entry_off;
	uint32_t a = be32(e + E_ADDR);
	put_be32(e + E_ADDR, (a & ~0x7ffffffcu) | (p->target & 0x7ffffffcu));
	put_be32(e + E_CRC, (be32(e + E_CRC) & 0xffff0000u) | p->crc);
	put_be32(e + E_ENTRY_CRC, (be32(e + E_ENTRY_CRC) & 0xffff0000u) | crc16_be(e, E_ENTRY_CRC));
	memcpy(buf + p->target, p->data, p->len);
	return CX_OK;
}

int fs3_devinfo_verdict(const struct fs3_image *img, bool whole, struct cx_status *st)
{
	struct fs3_image tmp;

	/* the query's verdict (what mstflint's sg checks first, FsIntQueryAux) of every item but the
	 * DEV_INFO sections: a copy with those marked right */
	memcpy(&tmp, img, sizeof(tmp));
	for (int i = 0; i < tmp.nitems; i++)
		if (tmp.items[i].kind == FS3_ITEM_SECTION && tmp.items[i].type == T_DEV_INFO)
			tmp.items[i].ok = true;
	return whole ? fs3_verdict(&tmp, st) : fs3_verdict_query(&tmp, st);
}
