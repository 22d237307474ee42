/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_fs3_query.c — `q [full]` on an FS3/FS4 file, the lines mstflint 4.21 prints for a file
 * (QuerySubCommand::printInfo, displayFs3Uids, printSecurityAttrInfo; fs3-format.md §5-§7),
 * plus cxflash's devid=/checksum= on each ROM; and the --json of the same. */
#include <string.h>

#include "cli/common.h"
#include "cli/fs3cli.h"
#include "image/info.h"

#define VSD_VENDOR_MLNX 0x15B3 /* MELLANOX_VENDOR_ID: VSD and PSID shown only for it (or 0), §5 */
#define T_KEYS_2048 0xa1       /* PUBLIC_KEYS_2048, §7 */
#define T_KEYS_4096 0xa4       /* PUBLIC_KEYS_4096, §7 */

/* A section of one of two types is listed. */
static bool has_section(const struct fs3_image *img, uint8_t a, uint8_t b)
{
	for (int i = 0; i < img->nentries; i++)
		if (!img->entries[i].in_dtoc && (img->entries[i].type == a || img->entries[i].type == b))
			return true;
	return false;
}

/* Fs3Operations::FsIntQueryAux: no security mode unless a signature was read, public keys
 * are listed and mcc_en is set (§7). */
static bool security_mode(const struct fs3_image *img)
{
	return img->signature && has_section(img, T_KEYS_2048, T_KEYS_4096) && img->info.mcc_en;
}

/* printSecurityAttrInfo: secure-fw before signed-fw, then ", debug", ", dev" (§7). */
const char *cli_fs3_security(const struct fs3_image *img)
{
	static char out[48];

	if (!security_mode(img) || (!img->info.secure_fw && !img->info.signed_fw))
		return "N/A";
	snprintf(out, sizeof(out), "%s%s%s", img->info.secure_fw ? "secure-fw" : "signed-fw",
		 img->info.debug_fw ? ", debug" : "", img->dev_keys ? ", dev" : "");
	return out;
}

static void print_uid(const char *label, const struct fs3_uid *u, bool guid, bool step)
{
	if (u->uid)
		printf(guid ? "%-18s     %016llx" : "%-18s     %012llx    ", label, (unsigned long long)u->uid);
	else
		printf("%-18s     %-16s", label, "N/A");
	printf(u->num ? "        %d" : "       N/A", u->num);
	if (step)
		printf(u->step ? "        %d" : "       N/A", u->step);
	printf("\n");
}

/* printFs3OrNewerUids: DEV_INFO's, then MFG_INFO's as "Orig" when they differ. */
static void print_uid_pair(const char *name, const struct fs3_uid *d, const struct fs3_uid *m, bool step)
{
	char label[32];
	bool guid = strstr(name, "GUID") != NULL;

	snprintf(label, sizeof(label), "Base %s:", name);
	print_uid(label, d, guid, step);
	if (d->uid != m->uid || d->num != m->num || (step && d->step != m->step)) {
		snprintf(label, sizeof(label), "Orig Base %s:", name);
		print_uid(label, m, guid, step);
	}
}

static void print_uids(const struct fs3_image *img)
{
	const struct fs3_devinfo *d = &img->dev, *m = &img->mfg;

	if (d->new_format) {
		printf(LABEL "UID                GuidsNumber\n", "Description:");
		print_uid_pair("GUID", &d->guids[0], &m->guids[0], false);
		print_uid_pair("MAC", &d->macs[0], &m->macs[0], false);
		return;
	}
	/* Without a new-layout DEV_INFO, MFG_INFO's bytes are shown in the old layout too, as
	 * mstflint 4.21 shows them (tested, fs3-format.md §6.2): a new-layout MFG_INFO's MAC (at
	 * the old layout's second GUID) is "Orig Base GUID2". */
	struct fs3_uid mg[2] = {m->guids[0], m->new_format ? m->macs[0] : m->guids[1]};
	struct fs3_uid mm[2] = {m->new_format ? (struct fs3_uid){0} : m->macs[0],
				m->new_format ? (struct fs3_uid){0} : m->macs[1]};
	printf(LABEL "UID                GuidsNumber  Step\n", "Description:");
	print_uid_pair("GUID1", &d->guids[0], &mg[0], true);
	print_uid_pair("GUID2", &d->guids[1], &mg[1], true);
	print_uid_pair("MAC1", &d->macs[0], &mm[0], true);
	print_uid_pair("MAC2", &d->macs[1], &mm[1], true);
}

static void print_head(const struct fs3_file *f, bool full)
{
	const struct fs3_image *img = &f->img;
	const struct fs3_info *in = &img->info;
	char v[32];

	printf(LABEL "%s\n", "Image type:", img->fmt->name);
	fmt_fw_version(v, sizeof(v), in->fw_ver);
	if (in->fw_ver[0] || in->fw_ver[1] || in->fw_ver[2])
		printf(LABEL "%s\n", "FW Version:", v);
	/* QuerySubCommand::printInfo: the running version when it differs (a burn not yet
	 * followed by a cold restart). */
	if ((in->fw_ver[0] || in->fw_ver[1] || in->fw_ver[2]) && f->have_running &&
	    memcmp(f->running, in->fw_ver, sizeof(f->running))) {
		fmt_fw_version(v, sizeof(v), f->running);
		printf(LABEL "%s\n", "FW Version(Running):", v);
	}
	if (in->rel_day || in->rel_month || in->rel_year)
		printf(LABEL "%x.%x.%x\n", "FW Release Date:", in->rel_day, in->rel_month, in->rel_year);
	if (full && (in->mic_ver[0] || in->mic_ver[1] || in->mic_ver[2]))
		printf(LABEL "%d.%d.%d\n", "MIC Version:", in->mic_ver[0], in->mic_ver[1], in->mic_ver[2]);
	if (full && in->prs_name[0])
		printf(LABEL "%s\n", "PRS Name:", in->prs_name);
	if (full && in->name[0])
		printf(LABEL "%s\n", "Part Number:", in->name);
	if (full && in->description[0])
		printf(LABEL "%s\n", "Description:", in->description);
	if (in->prod_ver[0])
		printf(LABEL "%s\n", "Product Version:", in->prod_ver);
	if (img->rom_entry >= 0)
		cli_print_roms("Rom Info:", img->roms, img->nroms);
}

static void print_text(const struct fs3_file *f, bool full, bool on_file)
{
	const struct fs3_image *img = &f->img;
	const struct fs3_info *in = &img->info;

	print_head(f, full);
	print_uids(img);
	if (!in->vsd_vendor_id || in->vsd_vendor_id == VSD_VENDOR_MLNX) {
		printf(LABEL "%s\n", "Image VSD:", in->vsd[0] ? in->vsd : "N/A");
		printf(LABEL "%s\n", "Device VSD:", img->dev.vsd[0] ? img->dev.vsd : "N/A");
		printf(LABEL "%s\n", "PSID:", in->psid);
		if (strncmp(in->psid, img->mfg.psid, 13))
			printf(LABEL "%s\n", "Orig PSID:", img->mfg.psid[0] ? img->mfg.psid : "N/A");
	} else {
		printf("-W- Not a Mellanox FW image (vendor_id = 0x%04x). VSD and PSID are not displayed.\n",
		       in->vsd_vendor_id);
	}
	printf(LABEL "%s\n", "Security Attributes:", cli_fs3_security(img));
	if (img->fmt->hw_pointers && on_file) /* 4.21 prints it for -i only (subcommands.cpp QuerySubCommand) */
		printf(LABEL "%u\n", "Security Ver:", img->security_version);
	if (full)
		printf(LABEL "%s\n", "Default Update Method:",
		       security_mode(img) ? "fw_ctrl" : "Legacy");
}

static void json_uids(struct json *j, const char *key, const struct fs3_uid *u, int n)
{
	json_arr(j, key);
	for (int i = 0; i < n; i++) {
		json_obj(j, NULL);
		json_hex(j, "base", u[i].uid, key[0] == 'g' ? 16 : 12);
		json_int(j, "count", u[i].num);
		json_int(j, "step", u[i].step);
		json_close(j);
	}
	json_close(j);
}

static void print_json(const struct fs3_image *img, bool full)
{
	const struct fs3_info *in = &img->info;
	int n = img->dev.new_format ? 1 : 2;
	char v[32];
	struct json j;

	json_begin(&j, stdout);
	json_str(&j, "image_type", img->fmt->name);
	fmt_fw_version(v, sizeof(v), in->fw_ver);
	json_str(&j, "fw_version", v);
	json_str(&j, "psid", in->psid);
	json_str(&j, "orig_psid", img->mfg.psid);
	json_str(&j, "product_version", in->prod_ver[0] ? in->prod_ver : NULL);
	json_arr(&j, "hw_ids");
	for (int i = 0; i < 4; i++)
		if (in->hw_ids[i])
			json_int(&j, NULL, in->hw_ids[i]);
	json_close(&j);
	cli_json_roms(&j, "roms", img->roms, img->nroms);
	json_uids(&j, "guids", img->dev.guids, n);
	json_uids(&j, "macs", img->dev.macs, n);
	json_str(&j, "vsd", img->dev.vsd);
	json_str(&j, "image_vsd", in->vsd);
	json_obj(&j, "security");
	json_bool(&j, "mcc_en", in->mcc_en);
	json_bool(&j, "signed_fw", in->signed_fw);
	json_bool(&j, "secure_fw", in->secure_fw);
	json_str(&j, "attributes", cli_fs3_security(img));
	json_close(&j);
	json_bool(&j, "guids_override_en", img->mfg.guids_override_en);
	if (full) {
		json_str(&j, "part_number", in->name[0] ? in->name : NULL);
		json_str(&j, "description", in->description[0] ? in->description : NULL);
		json_int(&j, "start", img->start);
		json_int(&j, "slot_size", img->log2_slot < 32 ? 1ll << img->log2_slot : 0);
	}
	json_end(&j);
}

int cli_fs3_query(struct cli *c, struct fs3_file *f, struct cx_status *st)
{
	bool full = false;
	int rc;

	if (c->nparams == 1) {
		if (strcmp(c->params[0], "full"))
			return cx_fail(st, CX_EUSAGE, "unknown parameter '%s' for q: only 'full'", c->params[0]);
		full = true;
	}
	/* Like mstflint's quick query, q refuses an image whose structure or shown sections do
	 * not verify (fs3-format.md §10); a bad CRC elsewhere is v's to find. */
	if ((rc = fs3_verdict_query(&f->img, st)))
		return rc;
	if (!f->img.info.present)
		return cx_fail(st, CX_EIMAGE, "image has no IMAGE_INFO section");
	if (c->json) {
		print_json(&f->img, full);
		c->json_done = true;
	} else {
		print_text(f, full, c->image != NULL);
	}
	return CX_OK;
}
