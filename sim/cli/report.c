/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report.c — boot info, parameters and counters of a card, as JSON (boot-check, stats) or text. */
#include "report.h"

#include <inttypes.h>

static const char *const guid_names[4] = { "node", "port1", "port2", "sys_image" };

static void fw_version(char *out, size_t n, const struct cxsim_boot *bi)
{
	snprintf(out, n, "%u.%u.%u", bi->fw_ver[0], bi->fw_ver[1], bi->fw_ver[2]);
}

static const char *yes(bool v)
{
	return v ? "true" : "false";
}

/* FS3/FS4 chips: the boot ROM's verdict, whether the firmware runs, and the IDs. */
static void boot_json_fs3(struct sbuf *b, const struct cxsim_card *c)
{
	const struct cxsim_boot *bi = cxsim_boot_info(c);
	char ver[32];

	sb_printf(b, "{\"format\":\"FS%u\",\"would_boot\":%s,\"booted\":%s", bi->fs,
		  yes(bi->booted), yes(bi->booted));
	if (bi->booted) {
		fw_version(ver, sizeof(ver), bi);
		sb_printf(b, ",\"slot\":%u,\"start\":\"0x%" PRIx32 "\",\"slot_log\":%u,"
			  "\"valid_images\":%u,\"fw_version\":\"%s\",\"psid\":", bi->slot, bi->start,
			  bi->slot_log, bi->nvalid, ver);
		sb_json_str(b, bi->psid);
	} else {
		sb_printf(b, ",\"recovery_reason\":");
		sb_json_str(b, bi->why);
	}
	sb_printf(b, ",\"fw_running\":%s,\"pci_vendor\":\"0x%04x\",\"pci_device\":\"0x%04x\","
		  "\"class\":\"0x%06x\",\"powered\":%s,\"next_boot_settings\":",
		  yes(cxsim_fw_running(c)), PCI_VENDOR_MELLANOX, cxsim_pci_device_now(c),
		  cxsim_class_now(c), yes(cxsim_powered(c)));
	report_settings_json(b, c);
	sb_printf(b, "}");
}

void report_boot_json(struct sbuf *b, const struct cxsim_card *c)
{
	const struct cxsim_boot *bi = cxsim_boot_info(c);
	char ver[32];
	int i;

	if (bi->fs == 3 || bi->fs == 4) {
		boot_json_fs3(b, c);
		return;
	}
	sb_printf(b, "{\"booted\":%s", yes(bi->booted));
	if (bi->booted) {
		fw_version(ver, sizeof(ver), bi);
		sb_printf(b, ",\"slot\":%u,\"start\":\"0x%" PRIx32 "\",\"failsafe\":%s,"
			  "\"valid_images\":%u,\"fw_version\":\"%s\",\"dev_type\":%u,\"psid\":",
			  bi->slot, bi->start, yes(bi->failsafe), bi->nvalid, ver, bi->dev_type);
		sb_json_str(b, bi->psid);
		sb_printf(b, ",\"vsd\":");
		sb_json_str(b, bi->vsd);
		sb_printf(b, ",\"guid_entries\":%d,\"guids\":{", bi->nguids);
		for (i = 0; i < 4; i++)
			sb_printf(b, "%s\"%s\":\"%016" PRIx64 "\"", i ? "," : "", guid_names[i],
				  bi->guids[i]);
		sb_printf(b, "},\"macs\":{\"port1\":\"%012" PRIx64 "\",\"port2\":\"%012" PRIx64 "\"}",
			  bi->macs[0], bi->macs[1]);
	} else {
		sb_printf(b, ",\"recovery_reason\":");
		sb_json_str(b, bi->why);
	}
	sb_printf(b, ",\"pci_vendor\":\"0x%04x\",\"pci_device\":\"0x%04x\",\"class\":\"0x%06x\","
		  "\"powered\":%s,\"next_boot_settings\":", PCI_VENDOR_MELLANOX, cxsim_pci_device_now(c),
		  cxsim_class_now(c), yes(cxsim_powered(c)));
	report_settings_json(b, c);
	sb_printf(b, "}");
}

void report_params_json(struct sbuf *b, const struct cxsim_params *p)
{
	sb_printf(b, "{\"chip\":\"%s\",\"pci_device\":\"0x%04x\",\"hw_rev\":\"0x%02x\","
		  "\"subsys\":\"%04x:%04x\",\"flash_part\":", cxsim_chip_name(p->chip),
		  p->pci_device, p->hw_rev, p->subsys_vendor, p->subsys_device);
	sb_json_str(b, p->flash_part);
	sb_printf(b, ",\"wo_addr_window\":%s,\"seed\":%" PRIu64 ",\"power_cut_after\":%" PRIu64
		  ",\"stuck_busy\":%s,\"sem_held_gpio\":%s,\"sem_held_flashprog\":%s,"
		  "\"write_protect\":%s,\"vsec_spaces\":\"0x%04" PRIx32 "\",\"sem_held_vsec\":%s,"
		  "\"stuck_bits\":", yes(p->wo_addr_window), p->seed,
		  p->power_cut_after, yes(p->stuck_busy), yes(p->sem_held_gpio),
		  yes(p->sem_held_flashprog), yes(p->write_protect), p->vsec_spaces, yes(p->sem_held_vsec));
	if (p->stuck_mask)
		sb_printf(b, "{\"addr\":\"0x%06" PRIx32 "\",\"mask\":\"0x%02x\"}", p->stuck_addr,
			  p->stuck_mask);
	else
		sb_printf(b, "null");
	sb_printf(b, ",\"tools\":");
	report_tools_json(b, p);
	sb_printf(b, "}");
}

void report_counters_json(struct sbuf *b, const struct cxsim_counters *k)
{
	unsigned op, n = 0;

	sb_printf(b, "{\"cfg_reads\":%" PRIu64 ",\"cfg_writes\":%" PRIu64 ",\"cr_reads\":%" PRIu64
		  ",\"cr_writes\":%" PRIu64 ",\"unmodelled\":%" PRIu64 ",\"gw_cmds\":%" PRIu64
		  ",\"gw_without_sem\":%" PRIu64 ",\"vsec_accesses\":%" PRIu64
		  ",\"vsec_without_sem\":%" PRIu64 ",\"gw_by_opcode\":{",
		  k->cfg_reads, k->cfg_writes, k->cr_reads, k->cr_writes, k->unmodelled,
		  k->gw_cmds, k->gw_without_sem, k->vsec_accesses, k->vsec_without_sem);
	for (op = 0; op < 256; op++)
		if (k->gw_by_opcode[op])
			sb_printf(b, "%s\"0x%02x\":%" PRIu64, n++ ? "," : "", op, k->gw_by_opcode[op]);
	sb_printf(b, "},\"bytes_programmed\":%" PRIu64 ",\"bytes_erased\":%" PRIu64
		  ",\"bytes_read\":%" PRIu64 ",\"erases\":%" PRIu64, k->bytes_programmed,
		  k->bytes_erased, k->bytes_read, k->erases);
	sb_printf(b, ",\"gw_cache_rep_on\":%" PRIu64 ",\"hw_sem_takes\":%" PRIu64
		  ",\"vsec_sem_takes\":%" PRIu64, k->gw_cache_rep_on, k->hw_sem_takes,
		  k->vsec_sem_takes);
	sb_printf(b, ",\"tools_cmds\":%" PRIu64 ",\"tools_by_opcode\":{\"QUERY_DEV_CAP\":%" PRIu64
		  ",\"QUERY_DEF_PARAMS\":%" PRIu64 ",\"ACCESS_REGISTER\":%" PRIu64 ",\"MBOX\":%" PRIu64
		  "},\"tools_without_sem\":%" PRIu64 ",\"nv_write_cmds\":%" PRIu64 ",\"nv_writes\":%"
		  PRIu64 ",\"icmd_cmds\":%" PRIu64 ",\"icmd_without_sem\":%" PRIu64
		  ",\"icmd_reg_access\":%" PRIu64 ",\"fw_flash_cmds\":%" PRIu64
		  ",\"time_ns\":%" PRIu64 "}", k->tools_cmds,
		  k->tools_by_opcode[CXSIM_TOOLS_OP_DEV_CAP], k->tools_by_opcode[CXSIM_TOOLS_OP_DEF_PARAMS],
		  k->tools_by_opcode[CXSIM_TOOLS_OP_REG_ACCESS], k->tools_by_opcode[CXSIM_TOOLS_OP_MBOX],
		  k->tools_without_sem, k->nv_write_cmds, k->nv_writes, k->icmd_cmds,
		  k->icmd_without_sem, k->icmd_reg_access, k->fw_flash_cmds, k->time_ns);
}

/* FS3/FS4 chips: whether an image would boot, and whether its firmware runs. */
static void boot_text_fs3(FILE *f, const struct cxsim_card *c)
{
	const struct cxsim_boot *bi = cxsim_boot_info(c);
	char ver[32];

	if (!bi->booted) {
		fprintf(f, "boots:       recovery mode: no FS%u image would boot: %s\n", bi->fs, bi->why);
	} else {
		fw_version(ver, sizeof(ver), bi);
		fprintf(f, "would boot:  FS%u image in slot %u (0x%" PRIx32 ", slot size 2^%u), "
			"%u valid image(s)\n", bi->fs, bi->slot, bi->start, bi->slot_log, bi->nvalid);
		fprintf(f, "FW version:  %s\n", ver);
		fprintf(f, "PSID:        %s\n", bi->psid);
		if (cxsim_fw_running(c))
			fprintf(f, "boots:       yes: the firmware runs (ICMD, access registers)\n");
		else
			fprintf(f, "boots:       recovery mode all the same: held there (--recovery)\n");
	}
	fprintf(f, "PCI ID:      %04x:%04x, class 0x%06x\n", PCI_VENDOR_MELLANOX,
		cxsim_pci_device_now(c), cxsim_class_now(c));
}

void report_boot_text(FILE *f, const struct cxsim_card *c)
{
	const struct cxsim_boot *bi = cxsim_boot_info(c);
	char ver[32];
	int i;

	if (bi->fs == 3 || bi->fs == 4) {
		boot_text_fs3(f, c);
		return;
	}
	if (!bi->booted) {
		fprintf(f, "boots:       recovery mode: %s\n", bi->why);
	} else {
		fw_version(ver, sizeof(ver), bi);
		fprintf(f, "boots:       slot %u (0x%" PRIx32 "), %s, %u valid image(s)\n",
			bi->slot, bi->start, bi->failsafe ? "failsafe" : "not failsafe", bi->nvalid);
		fprintf(f, "FW version:  %s\n", ver);
		fprintf(f, "PSID:        %s\n", bi->psid);
		fprintf(f, "VSD:         %s\n", bi->vsd);
		fprintf(f, "GUIDs:      ");
		for (i = 0; i < 4; i++)
			fprintf(f, " %016" PRIx64, bi->guids[i]);
		fprintf(f, "%s\n", bi->nguids < 6 ? " (4 entries)" : "");
		fprintf(f, "MACs:        %012" PRIx64 " %012" PRIx64 "%s\n", bi->macs[0], bi->macs[1],
			bi->nguids < 6 ? " (derived from the port GUIDs)" : "");
	}
	fprintf(f, "PCI ID:      %04x:%04x, class 0x%06x\n", PCI_VENDOR_MELLANOX,
		cxsim_pci_device_now(c), cxsim_class_now(c));
}
