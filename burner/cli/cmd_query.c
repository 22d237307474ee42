/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_query.c — `q [full]`: what the image is and whose identity it carries.
 * Text lines follow flint's `q` for FS2 (labels padded to 23 columns); cxflash
 * adds HW IDs, each ROM's device id and checksum verdict, derived MACs, and in
 * `full` the image size, chunk size and failsafe flag. */
#include <string.h>

#include "cli/common.h"
#include "image/info.h"
#include "image/rom.h"

#define VSD_VENDOR_MLNX 0x15B3 /* tag 8: VSD and PSID are Mellanox's, fs2-format.md §3.2 */

struct query_view {
	char fw[32], date[32], mic[32];
	bool mlnx_vsd;
};

static void build_view(const struct fs2_image *img, struct query_view *v)
{
	const struct fs2_info *in = &img->info;

	memset(v, 0, sizeof(*v));
	if (in->fw_ver[0] || in->fw_ver[1] || in->fw_ver[2])
		fmt_fw_version(v->fw, sizeof(v->fw), in->fw_ver);
	/* Tag 2: day, month and year printed as hex digits (BCD-like), §3.2. */
	if (in->build_date)
		snprintf(v->date, sizeof(v->date), "%x.%x.%x", in->build_date & 0xff,
			 in->build_date >> 8 & 0xff, in->build_date >> 16);
	if (in->mic_ver[0] || in->mic_ver[1] || in->mic_ver[2])
		snprintf(v->mic, sizeof(v->mic), "%d.%d.%d", in->mic_ver[0], in->mic_ver[1],
			 in->mic_ver[2]);
	v->mlnx_vsd = in->vsd_vendor_id == 0 || in->vsd_vendor_id == VSD_VENDOR_MLNX;
}

static const char *proto_name(uint8_t p)
{
	return p == 0 ? "IB" : p == 1 ? "ETH" : p == 2 ? "VPI" : "N/A";
}

/* One ROM as mstflint's displayOneExpRomInfo shows it (subcommands.cpp 1134-1173), then
 * ours: devid= and checksum= (good, bad; none where mstflint does not judge). */
static void print_rom(const struct rom_info *r)
{
	char t1[12], t2[12], ver[24];

	rom_fmt_version(ver, sizeof(ver), r);
	if (ROM_ONE_VERSION_FIELD(r))
		printf("version_id=%s type=%s", ver, rom_type_name(r->product, t1));
	else
		printf("type=%s version=%s", rom_type_name(r->product, t1), ver);
	if (r->has_dev) {
		if (r->port)
			printf(" port=%d", r->port);
		if (r->product != 0x12 && r->proto != 0xff)
			printf(" proto=%s", proto_name(r->proto));
		if (r->cpu)
			printf(" cpu=%s", rom_cpu_name(r->cpu, t2));
		printf(" devid=%d", r->devid);
	}
	if (r->csum_ok >= 0)
		printf(" checksum=%s", r->csum_ok ? "good" : "bad");
}

void cli_print_roms(const char *label, const struct rom_info *r, int n)
{
	printf(LABEL, label);
	if (!n)
		printf("N/A (no version record in the ROM)");
	for (int i = 0; i < n; i++) {
		if (i)
			printf("\n" LABEL, "");
		print_rom(&r[i]);
	}
	printf("\n");
}

void cli_json_roms(struct json *j, const char *key, const struct rom_info *r, int n)
{
	char t[12], ver[24];

	json_arr(j, key);
	for (int i = 0; i < n; i++) {
		json_obj(j, NULL);
		json_str(j, "type", rom_type_name(r[i].product, t));
		rom_fmt_version(ver, sizeof(ver), &r[i]);
		json_str(j, "version", ver);
		if (r[i].has_dev) {
			json_int(j, "devid", r[i].devid);
			json_int(j, "port", r[i].port);
			json_str(j, "proto", r[i].proto == 0xff ? NULL : proto_name(r[i].proto));
			json_str(j, "cpu", r[i].cpu ? rom_cpu_name(r[i].cpu, t) : NULL);
		}
		json_str(j, "checksum", r[i].csum_ok < 0 ? NULL : r[i].csum_ok ? "good" : "bad");
		json_close(j);
	}
	json_close(j);
}

static void print_text(const struct imgfile *f, bool full, const struct query_view *v)
{
	const struct fs2_image *img = &f->img;
	const struct fs2_info *in = &img->info;
	const struct fs2_guids *g = &img->guids;

	printf(LABEL "%s\n", "Image type:", "FS2");
	if (v->fw[0])
		printf(LABEL "%s\n", "FW Version:", v->fw);
	if (v->date[0])
		printf(LABEL "%s\n", "FW Release Date:", v->date);
	if (full && v->mic[0])
		printf(LABEL "%s\n", "MIC Version:", v->mic);
	if (full && in->config_sectors)
		printf(LABEL "%u\n", "Config Sectors:", in->config_sectors);
	if (full && in->config_pad)
		printf(LABEL "%u\n", "Config Pad:", in->config_pad);
	if (full && in->prs_name[0])
		printf(LABEL "%s\n", "PRS Name:", in->prs_name);
	if (in->product_ver[0])
		printf(LABEL "%s\n", "Product Version:", in->product_ver);
	if (img->rom_sect >= 0)
		cli_print_roms("Rom Info:", img->roms, img->nroms);
	printf(LABEL "%d\n", "Device ID:", in->dev_type);
	if (in->nhw_ids) {
		printf(LABEL, "HW IDs:");
		for (int i = 0; i < in->nhw_ids; i++)
			printf("%s0x%x rev 0x%x", i ? ", " : "", in->hw_ids[i] & 0xffff, in->hw_ids[i] >> 16);
		printf("\n");
	}
	printf(LABEL "%-17s%-17s%-17s%s\n", "Description:", "Node", "Port1", "Port2", "Sys image");
	printf(LABEL, "GUIDs:");
	for (int i = 0; i < GUIDS_NGUID; i++)
		printf("%016llx ", (unsigned long long)g->guid[i]);
	printf("\n" LABEL "%-21s", "MACs:", "");
	for (int i = 0; i < GUIDS_NMAC; i++)
		printf("%s%012llx", i ? "     " : "", (unsigned long long)g->mac[i]);
	printf(g->macs_derived && !g->blank ? "   (derived from the port GUIDs)\n" : "\n");
	if (v->mlnx_vsd) {
		printf(LABEL "%s\n", "VSD:", in->vsd);
		printf(LABEL "%s\n", "PSID:", in->psid);
	} else {
		printf("-W- Not a Mellanox FW image (vendor_id = 0x%04x). VSD and PSID are not displayed.\n",
		       in->vsd_vendor_id);
	}
	if (full) {
		printf(LABEL "0x%x\n", "Image Size:", img->last_addr);
		printf(LABEL "0x%x\n", "Chunk Size:", 1u << img->log2chunk);
		printf(LABEL "%s\n", "Failsafe:", img->failsafe ? "yes" : "no");
	}
	if (g->blank)
		printf("-W- GUIDs/MACs values and their CRC are not set.\n");
}

static void print_json(const struct imgfile *f, bool full, const struct query_view *v)
{
	const struct fs2_image *img = &f->img;
	const struct fs2_info *in = &img->info;
	const struct fs2_guids *g = &img->guids;
	static const char *const gname[GUIDS_NGUID] = {"node", "port1", "port2", "sys_image"};
	struct json j;

	json_begin(&j, stdout);
	json_str(&j, "image_type", "FS2");
	json_str(&j, "fw_version", v->fw[0] ? v->fw : NULL);
	json_str(&j, "fw_release_date", v->date[0] ? v->date : NULL);
	json_str(&j, "product_version", in->product_ver[0] ? in->product_ver : NULL);
	cli_json_roms(&j, "roms", img->roms, img->nroms);
	json_int(&j, "device_id", in->dev_type);
	json_arr(&j, "hw_ids");
	for (int i = 0; i < in->nhw_ids; i++) {
		json_obj(&j, NULL);
		json_int(&j, "hw_id", in->hw_ids[i] & 0xffff);
		json_int(&j, "rev", in->hw_ids[i] >> 16);
		json_close(&j);
	}
	json_close(&j);
	json_int(&j, "guid_entries", g->n);
	json_bool(&j, "guids_blank", g->blank);
	json_obj(&j, "guids");
	for (int i = 0; i < GUIDS_NGUID; i++)
		json_hex(&j, gname[i], g->guid[i], 16);
	json_close(&j);
	json_obj(&j, "macs");
	json_hex(&j, "port1", g->mac[0], 12);
	json_hex(&j, "port2", g->mac[1], 12);
	json_close(&j);
	json_bool(&j, "macs_derived", g->macs_derived);
	json_str(&j, "vsd", v->mlnx_vsd ? in->vsd : NULL);
	json_str(&j, "psid", v->mlnx_vsd ? in->psid : NULL);
	if (full) {
		json_str(&j, "mic_version", v->mic[0] ? v->mic : NULL);
		json_int(&j, "config_sectors", in->config_sectors);
		json_int(&j, "config_pad", in->config_pad);
		json_str(&j, "prs_name", in->prs_name[0] ? in->prs_name : NULL);
		json_int(&j, "image_size", img->last_addr);
		json_int(&j, "chunk_size", 1ll << img->log2chunk);
		json_bool(&j, "failsafe", img->failsafe);
	}
	json_end(&j);
}

int cmd_query(struct cli *c, struct cx_status *st)
{
	struct imgfile f;
	struct query_view v;
	bool full = false;
	int rc;

	if (c->nparams == 1) {
		if (strcmp(c->params[0], "full"))
			return cx_fail(st, CX_EUSAGE, "unknown parameter '%s' for q: only 'full'",
				       c->params[0]);
		full = true;
	}
	rc = cli_open_image_shown(c, &f, st);
	/* Like flint, q refuses an image that does not verify (on a card: what it read,
	 * as flint's quick query checks its ROM section only); blank GUIDs are
	 * reported, not refused. */
	if (!rc && fs2_verdict(&f.img, st) == CX_EIMAGE)
		rc = CX_EIMAGE;
	if (!rc) {
		build_view(&f.img, &v);
		if (c->json)
			print_json(&f, full, &v);
		else
			print_text(&f, full, &v);
	}
	imgfile_close(&f);
	return rc;
}
