/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fs3_info.c — what the sections say (fs3-format.md): IMAGE_INFO (§5), MFG_INFO and DEV_INFO (§6), the
 * ROM (§6.5), where the .ini is; and mstflint's name of every section type (§3.3). */
#include <string.h>

#include "image/fs3.h"
#include "util/bytes.h"

#define T_IMAGE_INFO 0x10      /* FS3_IMAGE_INFO, §5 */
#define T_ROM_CODE 0x18        /* FS3_ROM_CODE, §6.5 */
#define T_DBG_FW_INI 0x30      /* FS3_DBG_FW_INI, §6.6 */
#define T_SIG_256 0xa0         /* FS3_IMAGE_SIGNATURE_256, §7 */
#define T_SIG_512 0xa3         /* FS3_IMAGE_SIGNATURE_512, §7 */
#define SIG_KEYPAIR_OFF 0x10   /* cx4fw_image_signature_*: keypair_uuid[4], §7 */
#define T_MFG_INFO 0xe0        /* FS3_MFG_INFO, §6.1 */
#define T_DEV_INFO 0xe1        /* FS3_DEV_INFO, §6.2 */
#define INFO_SIZE 0x400        /* image_layout_image_info: 1 KiB, §5 */
#define MFG_SIZE 0x140         /* cibfw_mfg_info: 320 bytes, §6.1 */
#define DEV_SIZE 0x200         /* cibfw_device_info: 512 bytes, §6.2 */
#define UIDS_OFF 0x20          /* guids in MFG_INFO and DEV_INFO, §6.1-§6.2 */
#define DEV_VSD_OFF 0x70       /* DEV_INFO vsd, §6.2 */
#define MFG_FLAGS_OFF 0x1c     /* MFG_INFO override bit, versions, §6.1 */

static const struct {
	uint8_t type;
	const char *name;
} names[] = { /* Fs3Operations::_fs3SectionsInfoArr, §3.3 */
	{0x01, "BOOT_CODE"}, {0x02, "PCI_CODE"}, {0x03, "MAIN_CODE"}, {0x04, "PCIE_LINK_CODE"},
	{0x05, "IRON_PREP_CODE"}, {0x06, "POST_IRON_BOOT_CODE"}, {0x07, "UPGRADE_CODE"},
	{0x08, "HW_BOOT_CFG"}, {0x09, "HW_MAIN_CFG"}, {0x0a, "PHY_UC_CODE"}, {0x0b, "PHY_UC_CONSTS"},
	{0x0c, "PCIE_PHY_UC_CODE"}, {0x0d, "CCIR_INFRA_CODE"}, {0x0e, "CCIR_ALGO_CODE"},
	{0x0f, "BOOT3_CODE"}, {0x10, "IMAGE_INFO"}, {0x11, "FW_BOOT_CFG"}, {0x12, "FW_MAIN_CFG"},
	{0x14, "APU_KERNEL"}, {0x15, "APU_APPS"}, {0x18, "ROM_CODE"}, {0x20, "RESET_INFO"},
	{0x30, "DBG_FW_INI"}, {0x32, "DBG_FW_PARAMS"}, {0x33, "FW_ADB"}, {0x34, "GB_FW_CODE"},
	{0x35, "TILE_FW_CODE"}, {0x36, "FW_TILE_INI"}, {0x37, "HW_TILE_INI"},
	{0xa0, "IMAGE_SIGNATURE_256"}, {0xa1, "PUBLIC_KEYS_2048"}, {0xa2, "FORBIDDEN_VERSIONS"},
	{0xa3, "IMAGE_SIGNATURE_512"}, {0xa4, "PUBLIC_KEYS_4096"}, {0xa5, "HMAC_DIGEST"},
	{0xa6, "RSA_PUBLIC_KEY"}, {0xa7, "RSA_4096_SIGNATURES"}, {0xb0, "EXCLKSYNC_INFO"},
	{0xe0, "MFG_INFO"}, {0xe1, "DEV_INFO"}, {0xe2, "NV_DATA"}, {0xe3, "VPD_R0"}, {0xe4, "NV_DATA"},
	{0xe5, "FW_NV_LOG"}, {0xe6, "NV_DATA"}, {0xe7, "DEV_INFO1"}, {0xe8, "DEV_INFO2"},
	{0xe9, "CRDUMP_MASK_DATA"}, {0xea, "FW_INTERNAL_USAGE"}, {0xeb, "PROGRAMMABLE_HW_FW"},
	{0xec, "PROGRAMMABLE_HW_FW"}, {0xed, "DIGITAL_CERT_PTR"}, {0xee, "DIGITAL_CERT_RW"},
	{0xef, "LC_INI1_TABLE"}, {0xf0, "LC_INI2_TABLE"}, {0xf1, "LC_INI_NV_DATA"},
	{0xf2, "CERT_CHAIN_0"}, {0xf3, "DIGITAL_CACERT_RW"}, {0xfa, "HASHES_TABLE"},
	{0xfb, "HW_POINTERS"}, {0xfc, "TOOLS_AREA"}, {0xfd, "ITOC_HEADER"}, {0xfe, "DTOC_HEADER"},
	{0xff, "END"},
};

const char *fs3_sect_name(uint8_t type)
{
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].type == type)
			return names[i].name;
	return NULL;
}

/* A string field of n bytes at off (adb strings are plain bytes), NUL-terminated in out. */
static void str_at(const uint8_t *p, uint32_t off, size_t n, char *out)
{
	memcpy(out, p + off, n);
	out[n] = '\0';
}

/* The section's first want bytes, zero-padded when it is shorter. */
static void copy_padded(uint8_t *dst, size_t want, const uint8_t *src, uint32_t len)
{
	memset(dst, 0, want);
	memcpy(dst, src, len < want ? len : want);
}

static int image_info(struct fs3_image *img, const uint8_t *s, uint32_t len, struct cx_status *st)
{
	uint8_t p[INFO_SIZE];
	struct fs3_info *in = &img->info;
	uint32_t d0;

	copy_padded(p, sizeof(p), s, len);
	d0 = be32(p);
	in->major = d0 >> 24;
	in->minor = (d0 >> 16) & 0xff;
	if (in->major != 0) /* GetImageInfo, §5 */
		return cx_fail(st, CX_EIMAGE, "unknown IMAGE_INFO format version (%u.%u)", in->major, in->minor);
	in->present = true;
	in->dev_sec_boot = (d0 >> 2) & 1;
	in->encrypted_fw = (d0 >> 3) & 3;
	in->mcc_en = (d0 >> 8) & 1;
	in->debug_fw = (d0 >> 13) & 1;
	in->signed_fw = (d0 >> 14) & 1;
	in->secure_fw = (d0 >> 15) & 1;
	in->fw_ver[0] = (uint16_t)(be32(p + 0x4) >> 16);
	in->fw_ver[1] = (uint16_t)(be32(p + 0x8) >> 16);
	in->fw_ver[2] = (uint16_t)(be32(p + 0x8) & 0xffff);
	in->rel_day = p[0x13];
	in->rel_month = p[0x12];
	in->rel_year = (uint16_t)(be32(p + 0x10) >> 16);
	in->mic_ver[0] = (uint16_t)(be32(p + 0x14) >> 16);
	in->mic_ver[1] = (uint16_t)(be32(p + 0x18) >> 16);
	in->mic_ver[2] = (uint16_t)(be32(p + 0x18) & 0xffff);
	in->pci_device_id = (uint16_t)(be32(p + 0x1c) >> 16);
	in->vsd_vendor_id = (uint16_t)(be32(p + 0x34) & 0xffff);
	str_at(p, 0x24, 16, in->psid);
	str_at(p, 0x38, 208, in->vsd);
	for (int i = 0; i < 4; i++)
		in->hw_ids[i] = be32(p + 0x118 + 4 * i);
	str_at(p, 0x1c0, 16, in->prod_ver);
	if (in->minor == 3) { /* name/description/prs_name at these offsets only in 0.3, §5 */
		str_at(p, 0x1d0, 256, in->description);
		str_at(p, 0x340, 64, in->name);
		str_at(p, 0x380, 128, in->prs_name);
	}
	return CX_OK;
}

static void uid_at(const uint8_t *p, uint32_t off, struct fs3_uid *u)
{
	u->num = p[off + 3];
	u->step = p[off + 2];
	u->uid = be64(p + off + 8);
}

/* The UID allocations of MFG_INFO/DEV_INFO: new format one GUID and one MAC, old two each (§6.2). */
static void uids(const uint8_t *p, struct fs3_devinfo *d)
{
	if (d->new_format) {
		uid_at(p, UIDS_OFF, &d->guids[0]);
		uid_at(p, UIDS_OFF + 0x10, &d->macs[0]);
		return;
	}
	for (int i = 0; i < 2; i++) {
		uid_at(p, UIDS_OFF + 0x10 * i, &d->guids[i]);
		uid_at(p, UIDS_OFF + 0x20 + 0x10 * i, &d->macs[i]);
	}
}

static int mfg_info(struct fs3_image *img, const uint8_t *s, uint32_t len, struct cx_status *st)
{
	uint8_t p[MFG_SIZE];
	struct fs3_devinfo *m = &img->mfg;
	uint32_t f;

	copy_padded(p, sizeof(p), s, len);
	f = be32(p + MFG_FLAGS_OFF);
	m->major = f >> 24;
	m->minor = (f >> 16) & 0xff;
	if (m->major > 1) /* GetMfgInfo: 1 new, 0 old, §6.1 */
		return cx_fail(st, CX_EIMAGE, "unknown MFG_INFO format version (%u.%u)", m->major, m->minor);
	m->present = true;
	m->new_format = m->major == 1;
	m->guids_override_en = f & 1;
	str_at(p, 0, 16, m->psid);
	uids(p, m);
	return CX_OK;
}

static int dev_info(struct fs3_image *img, const uint8_t *s, uint32_t len, struct cx_status *st)
{
	uint8_t p[DEV_SIZE];
	struct fs3_devinfo *d = &img->dev;
	uint32_t v;

	copy_padded(p, sizeof(p), s, len);
	v = be32(p + 0x10);
	d->minor = v & 0xff;
	d->major = (v >> 8) & 0x1ff;
	if (d->major != 1 && d->major != 2) /* GetDevInfo: 2 new, 1 old, §6.2 */
		return cx_fail(st, CX_EIMAGE, "unknown DEV_INFO format version (%u.%u)", d->major, d->minor);
	d->present = true;
	d->new_format = d->major == 2;
	str_at(p, DEV_VSD_OFF, 208, d->vsd);
	uids(p, d);
	return CX_OK;
}

/* GetImgSigInfo: development keys when one of the UUID's first three dwords is set, the
 * fourth is 0 and the third's low half is 0 (§7). */
static void signature(struct fs3_image *img, const uint8_t *s, uint32_t len)
{
	img->signature = true;
	if (len < SIG_KEYPAIR_OFF + 16)
		return;
	uint32_t u0 = be32(s + SIG_KEYPAIR_OFF), u1 = be32(s + SIG_KEYPAIR_OFF + 4);
	uint32_t u2 = be32(s + SIG_KEYPAIR_OFF + 8), u3 = be32(s + SIG_KEYPAIR_OFF + 12);
	if ((u0 || u1 || u2) && u3 == 0 && (u2 & 0xffff) == 0)
		img->dev_keys = true;
}

int fs3_section_info(struct fs3_image *img, int idx, struct cx_status *st)
{
	const struct fs3_entry *e = &img->entries[idx];
	const uint8_t *s = fs3_entry_data(img, e);

	switch (e->type) {
	case T_IMAGE_INFO:
		img->info_entry = idx;
		return image_info(img, s, e->size, st);
	case T_MFG_INFO:
		return mfg_info(img, s, e->size, st);
	case T_DEV_INFO:
		return dev_info(img, s, e->size, st);
	case T_ROM_CODE:
		img->rom_entry = idx;
		img->nroms = rom_parse(s, e->size, img->roms);
		return CX_OK;
	case T_DBG_FW_INI:
		img->ini_entry = idx;
		return CX_OK;
	case T_SIG_256:
	case T_SIG_512:
		signature(img, s, e->size);
		return CX_OK;
	default:
		return CX_OK;
	}
}
