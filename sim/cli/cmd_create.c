/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_create.c — `cxsim create`: a new card, its flash empty or holding an FS2 image; on the
 * FS3/FS4 chips (cx4, cx4lx, cx5) an image file is copied as it is: one of the part's size (a
 * whole-flash dump, `mkfs3 --dump`, or an mkfs3 FS4 file, which is flash-sized) over the whole
 * flash, anything smaller to slot 0. */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fs2patch.h"
#include "report.h"

#define CMD "create"

struct create_opts {
	const char *stem, *chip, *image, *flash;
	const char *pci_device, *rev, *hw_id, *subsys, *seed, *slot, *vsec;
	const char *ports, *max_vfs, *bar_size, *max_bar_size, *caps;  /* the settings profile */
	uint64_t slot_no;
	bool wo_window, empty, corrupt, no_cr_mbox, recovery;
	struct fs2_identity id;
};

/* An option and where its value goes in struct create_opts. */
struct opt {
	const char *name;
	size_t at;
};
#define AT(field) offsetof(struct create_opts, field)
/* The options that take a string. */
static const struct opt value_opts[] = {
	{"--chip", AT(chip)}, {"--pci-device", AT(pci_device)}, {"--rev", AT(rev)}, {"--hw-id", AT(hw_id)},
	{"--subsys", AT(subsys)},
	{"--flash", AT(flash)}, {"--seed", AT(seed)}, {"--image", AT(image)}, {"--slot", AT(slot)},
	{"--vsec", AT(vsec)}, {"--ports", AT(ports)}, {"--max-vfs", AT(max_vfs)}, {"--bar-size", AT(bar_size)},
	{"--max-bar-size", AT(max_bar_size)}, {"--caps", AT(caps)}, {"--psid", AT(id.psid)}, {"--vsd", AT(id.vsd)},
};
/* The options that are a flag (bool). */
static const struct opt flag_opts[] = {
	{"--no-cr-mbox", AT(no_cr_mbox)}, {"--wo-window", AT(wo_window)}, {"--empty", AT(empty)},
	{"--corrupt", AT(corrupt)}, {"--recovery", AT(recovery)},
};
#undef AT

/* --guid HEX or --mac HEX (argv[*i]): the identity's GUID or MAC. 0 or -1. */
static int parse_id(int argc, char **argv, int *i, struct create_opts *o)
{
	const char *a = argv[*i];
	bool mac = a[2] == 'm';
	const char *v = cli_value(argc, argv, i, CMD);

	if (!v)
		return -1;
	if (cli_hex64(v, mac ? 12 : 16, mac ? &o->id.mac : &o->id.guid)) {
		cli_usage(CMD, "%s: '%s' is not %s", a, v, mac ? "a MAC (12 hex digits)" : "a GUID (16 hex digits)");
		return -1;
	}
	*(mac ? &o->id.set_mac : &o->id.set_guid) = true;
	return 0;
}

/* One option or the STEM at argv[*i], its value too (advancing *i). 0 or -1. */
static int parse_one(int argc, char **argv, int *i, struct create_opts *o)
{
	const char *a = argv[*i];

	for (size_t k = 0; k < sizeof(value_opts) / sizeof(value_opts[0]); k++)
		if (!strcmp(a, value_opts[k].name)) {
			const char **val = (const char **)((char *)o + value_opts[k].at);

			return (*val = cli_value(argc, argv, i, CMD)) ? 0 : -1;
		}
	for (size_t k = 0; k < sizeof(flag_opts) / sizeof(flag_opts[0]); k++)
		if (!strcmp(a, flag_opts[k].name)) {
			*(bool *)((char *)o + flag_opts[k].at) = true;
			return 0;
		}
	if (!strcmp(a, "--guid") || !strcmp(a, "--mac"))
		return parse_id(argc, argv, i, o);
	if (a[0] == '-') {
		cli_usage(CMD, "unknown option %s", a);
		return -1;
	}
	return cli_operand(CMD, a, &o->stem, NULL) ? -1 : 0;
}

/* The options that exclude or need each other. 0 or -1. */
static int check_opts(struct create_opts *o)
{
	if (!o->stem) {
		cli_usage(CMD, "which STEM?");
		return -1;
	}
	if (o->empty && (o->image || o->corrupt)) {
		cli_usage(CMD, "--empty excludes --image and --corrupt");
		return -1;
	}
	if (o->corrupt && !o->image) {
		cli_usage(CMD, "--corrupt needs an --image to damage");
		return -1;
	}
	if (o->slot && number_parse(o->slot, 1, &o->slot_no)) {
		cli_usage(CMD, "--slot: '%s' is not 0 or 1", o->slot);
		return -1;
	}
	if (!o->image && (o->slot || o->id.psid || o->id.vsd || o->id.set_guid || o->id.set_mac)) {
		cli_usage(CMD, "--slot, --psid, --guid, --mac and --vsd need --image");
		return -1;
	}
	return 0;
}

static int parse(int argc, char **argv, struct create_opts *o)
{
	for (int i = 1; i < argc; i++)
		if (parse_one(argc, argv, &i, o))
			return -1;
	return check_opts(o);
}

/* One number option of the profile within [lo, hi]; 0 or an exit code. */
static int profile_num(const char *opt, const char *v, uint64_t lo, uint64_t hi, uint8_t *out)
{
	uint64_t n;

	if (!v)
		return CLI_OK;
	if (number_parse(v, hi, &n) || n < lo)
		return cli_usage(CMD, "%s: '%s' is not %llu..%llu", opt, v, (unsigned long long)lo,
				 (unsigned long long)hi);
	*out = (uint8_t)n;
	return CLI_OK;
}

/* The settings profile (cxsim.h struct cxsim_tools_profile): the ranges are what the
 * answers can carry (QUERY_DEV_CAP's fields, tools_cmds.c). */
static int set_profile(const struct create_opts *o, struct cxsim_params *p)
{
	struct cxsim_tools_profile *t = &p->tools;
	bool any = o->ports || o->max_vfs || o->bar_size || o->max_bar_size || o->caps || o->no_cr_mbox;
	int rc;

	if (!cxsim_chip_has_tools(p->chip))
		return any ? cli_usage(CMD, "a %s has no settings interface: --ports, --max-vfs, "
				       "--bar-size, --max-bar-size, --caps and --no-cr-mbox are for cx3 and "
				       "cx3pro", cxsim_chip_name(p->chip)) : CLI_OK;
	if ((rc = profile_num("--ports", o->ports, 1, 2, &t->ports)) ||
	    (rc = profile_num("--max-vfs", o->max_vfs, 0, 254, &t->max_vfs)) ||
	    (rc = profile_num("--bar-size", o->bar_size, 1, 64, &t->bar_size)) ||
	    (rc = profile_num("--max-bar-size", o->max_bar_size, 0, 63, &t->max_bar_size)))
		return rc;
	if (o->caps && cxsim_caps_parse(o->caps, &t->caps))
		return cli_usage(CMD, "--caps: '%s' is not a comma list of sriov, wol_p1, wol_p2, vpi_p1, "
				 "vpi_p2, bar_size, all, none", o->caps);
	if (t->bar_size > t->max_bar_size)
		return cli_usage(CMD, "--bar-size %u is above --max-bar-size %u", t->bar_size,
				 t->max_bar_size);
	if (t->def_num_vfs > t->max_vfs)
		t->def_num_vfs = t->max_vfs;   /* the default must be one the firmware allows */
	if (t->ports < 2)
		t->caps &= (uint8_t)~(CXSIM_CAP_WOL_P2 | CXSIM_CAP_VPI_P2);
	p->no_cr_mbox = o->no_cr_mbox;
	return CLI_OK;
}

static int set_params(const struct create_opts *o, struct cxsim_params *p)
{
	enum cxsim_chip chip = CXSIM_CX3;
	uint64_t v, d;

	if (o->chip && cxsim_chip_parse(o->chip, &chip))
		return cli_usage(CMD, "--chip: '%s' is not cx2, cx3, cx3pro, cx4, cx4lx or cx5", o->chip);
	cxsim_params_default(p, chip);
	if (o->recovery && cxsim_chip_format(chip) == 2)
		return cli_usage(CMD, "--recovery is for cx4, cx4lx and cx5 (an FS2 chip without a "
				 "valid image is in recovery mode anyway)");
	p->recovery = o->recovery;
	if (o->pci_device) {
		if (number_parse(o->pci_device, 0xFFFF, &v))
			return cli_usage(CMD, "--pci-device: '%s' is not a 16-bit ID", o->pci_device);
		p->pci_device = (uint16_t)v;
	}
	if (o->rev) {
		if (number_parse(o->rev, 0xFF, &v))
			return cli_usage(CMD, "--rev: '%s' is not 0..255", o->rev);
		p->hw_rev = (uint8_t)v;
	}
	if (o->hw_id) {
		if (number_parse(o->hw_id, 0xFFFF, &v) || !v)
			return cli_usage(CMD, "--hw-id: '%s' is not a 16-bit ID above 0", o->hw_id);
		p->hw_id = (uint16_t)v;
	}
	if (o->subsys) {
		const char *colon = strchr(o->subsys, ':');
		char vendor[8];

		if (!colon || colon - o->subsys > 6)
			return cli_usage(CMD, "--subsys: '%s' is not VVVV:DDDD", o->subsys);
		memcpy(vendor, o->subsys, (size_t)(colon - o->subsys));
		vendor[colon - o->subsys] = '\0';
		if (cli_hex64(vendor, 4, &v) || cli_hex64(colon + 1, 4, &d))
			return cli_usage(CMD, "--subsys: '%s' is not VVVV:DDDD", o->subsys);
		p->subsys_vendor = (uint16_t)v;
		p->subsys_device = (uint16_t)d;
	}
	if (o->flash) {
		if (strlen(o->flash) >= sizeof(p->flash_part))
			return cli_usage(CMD, "--flash: '%s' is too long", o->flash);
		strcpy(p->flash_part, o->flash);
	}
	if (o->seed && number_parse(o->seed, UINT64_MAX, &p->seed))
		return cli_usage(CMD, "--seed: '%s' is not a number", o->seed);
	p->wo_addr_window = o->wo_window;
	if (o->vsec && cxsim_vsec_parse(o->vsec, &p->vsec_spaces))
		return cli_usage(CMD, "--vsec: '%s' is not full, crspace-only, none or a list of spaces "
				 "(cr_space,icmd_ext,semaphore,... or numbers 0..31)", o->vsec);
	return set_profile(o, p);
}

static uint8_t *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long n;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
		goto out;
	buf = malloc(n ? (size_t)n : 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	*len = (size_t)n;
out:
	if (f)
		fclose(f);
	return buf;
}

/* FS3/FS4: the file as it is, at 0 (see the top); 0 or an exit code. */
static int install_raw(const struct create_opts *o, uint8_t *img, size_t len, uint8_t *flash,
		       size_t fsize)
{
	if (o->slot || o->corrupt || o->id.psid || o->id.vsd || o->id.set_guid || o->id.set_mac)
		return cli_usage(CMD, "--slot, --corrupt, --psid, --guid, --mac and --vsd are for FS2 "
				 "chips: give an FS3/FS4 image (mkfs3) made as wanted");
	if (len > fsize)
		return cli_err("%s: %zu bytes do not fit in the %zu-byte flash", o->image, len, fsize);
	memcpy(flash, img, len);
	return CLI_OK;
}

/* Patch, maybe damage, and install the image; 0 or an exit code. */
static int install(const struct create_opts *o, struct cxsim_card *c, uint32_t *start)
{
	char err[200];
	size_t len, fsize;
	uint8_t *img = read_file(o->image, &len), *flash = cxsim_flash(c, &fsize);
	int rc = CLI_OK;

	if (!img)
		return cli_err("cannot read image %s", o->image);
	if (cxsim_chip_format(cxsim_get_params(c)->chip) != 2)
		rc = install_raw(o, img, len, flash, fsize);
	else if (fs2_patch_identity(img, len, &o->id, err, sizeof(err)))
		rc = cli_err("%s: %s", o->image, err);
	else if (o->corrupt && fs2_damage(img, len, err, sizeof(err)))
		rc = cli_err("%s: %s", o->image, err);
	else if (fs2_install(flash, fsize, img, len, (unsigned)o->slot_no, start, err, sizeof(err)))
		rc = cli_err("%s: %s", o->image, err);
	free(img);
	cxsim_flash_changed(c);
	return rc;
}

int cmd_create(int argc, char **argv)
{
	struct create_opts o = { 0 };
	struct cxsim_params p;
	struct cxsim_card *c;
	const struct cxsim_boot *bi;
	uint32_t start = 0;
	size_t fsize;
	int rc;

	if (parse(argc, argv, &o))
		return CLI_USAGE;
	if ((rc = set_params(&o, &p)))
		return rc;
	c = cxsim_new(&p);
	if (!c)
		return cli_err("cannot make a %s card with flash part '%s'", cxsim_chip_name(p.chip),
			       p.flash_part);
	cxsim_flash(c, &fsize);
	if (o.image && (rc = install(&o, c, &start))) {
		cxsim_free(c);
		return rc;
	}
	cxsim_power_cycle(c);   /* the boot ROM looks at what was just installed */
	bi = cxsim_boot_info(c);
	if (o.corrupt && bi->booted) {
		cxsim_free(c);
		return cli_err("the damaged image still boots (model bug?)");
	}
	rc = cli_save(c, o.stem);
	if (!rc) {
		printf("created %s: %s %04x:%04x, %s %zu KiB, ", o.stem, cxsim_chip_name(p.chip),
		       PCI_VENDOR_MELLANOX, p.pci_device, p.flash_part, fsize / 1024);
		if (!o.image)
			printf("empty flash, ");
		else
			printf("image %s at 0x%" PRIx32 "%s, ", o.image, start,
			       o.corrupt ? " (damaged)" : "");
		if (bi->booted && !cxsim_fw_running(c))
			printf("FS%u image would boot from slot %u: FW %u.%u.%u, PSID %s; recovery mode "
			       "(PCI ID %04x): held there by --recovery\n", bi->fs, bi->slot,
			       bi->fw_ver[0], bi->fw_ver[1], bi->fw_ver[2], bi->psid,
			       cxsim_pci_device_now(c));
		else if (bi->booted)
			printf("boots slot %u: FW %u.%u.%u, PSID %s\n", bi->slot, bi->fw_ver[0],
			       bi->fw_ver[1], bi->fw_ver[2], bi->psid);
		else
			printf("recovery mode (PCI ID %04x): %s\n", cxsim_pci_device_now(c), bi->why);
	}
	cxsim_free(c);
	return rc;
}
