/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mkfs3's options into a struct config: see options.h and README.md "Options". */
#include "options.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "damage_names.h"
#include "number.h"

#define DEFAULT_CHIP		"cx4lx"
#define DEFAULT_GUID		0x248a0703005a1b20ull	/* OUI 24:8a:07 (Mellanox) */
#define DEFAULT_MAC		0x248a075a1b20ull
#define MAC_MAX			0xFFFFFFFFFFFFull	/* MACs are 48 bits */
#define FS3_DEFAULT_SLOT_LOG	21	/* fs3_ops.cpp FS3_LOG_CHUNK_SIZE */
#define FS4_DEFAULT_SLOT_LOG	22	/* UNCONFIRMED: 4 MiB slots, the log2 stock CX5/CX6 files carry */
#define SLOT_LOG_MIN		17	/* the smallest slot that holds a signed image */
#define SLOT_LOG_MAX		24	/* two 16 MiB slots in a 32 MiB (W25Q256) flash */
#define MAX_FLASH_SIZE		0x4000000u
#define SECTOR_BYTES		0x1000u	/* FS3/FS4_DEFAULT_SECTOR_SIZE: the flash size is whole sectors */
#define DEFAULT_ROM_VER		{ 3, 6, 502 }	/* a FlexBoot version */
#define VER_FIELD_MAX		0xFFFFu	/* FW_VERSION fields are 16 bits */
#define ROM_MAJOR_MAX		0xFFu	/* mlxsign major: 8 bits */

enum {
	OPT_FORMAT = 256, OPT_CHIP, OPT_FW, OPT_PSID, OPT_GUID, OPT_MAC, OPT_VSD,
	OPT_ROM_VER, OPT_NO_ROM, OPT_SLOT_LOG, OPT_NO_DEV, OPT_DEV_SECTIONS,
	OPT_GUIDS_OVERRIDE, OPT_MCC_EN, OPT_SIGNED_FW, OPT_SECURE_FW, OPT_SIGNED,
	OPT_HW_IDS, OPT_INI, OPT_SEED, OPT_MAP, OPT_DUMP, OPT_DUMP_SLOT,
	OPT_FLASH_SIZE, OPT_DEV_AFTER_IMAGE, OPT_DEV_INFO_BELOW, OPT_DAMAGE, OPT_SELFTEST,
};

static const struct option long_opts[] = {
	{ "output", required_argument, NULL, 'o' }, { "format", required_argument, NULL, OPT_FORMAT },
	{ "chip", required_argument, NULL, OPT_CHIP }, { "fw", required_argument, NULL, OPT_FW },
	{ "psid", required_argument, NULL, OPT_PSID }, { "guid", required_argument, NULL, OPT_GUID },
	{ "mac", required_argument, NULL, OPT_MAC }, { "vsd", required_argument, NULL, OPT_VSD },
	{ "rom-ver", required_argument, NULL, OPT_ROM_VER }, { "no-rom", no_argument, NULL, OPT_NO_ROM },
	{ "slot-log", required_argument, NULL, OPT_SLOT_LOG },
	{ "no-dev-data", no_argument, NULL, OPT_NO_DEV },
	{ "dev-sections", required_argument, NULL, OPT_DEV_SECTIONS },
	{ "guids-override", no_argument, NULL, OPT_GUIDS_OVERRIDE },
	{ "mcc-en", no_argument, NULL, OPT_MCC_EN }, { "signed-fw", no_argument, NULL, OPT_SIGNED_FW },
	{ "secure-fw", no_argument, NULL, OPT_SECURE_FW }, { "signed", no_argument, NULL, OPT_SIGNED },
	{ "hw-ids", required_argument, NULL, OPT_HW_IDS }, { "ini", no_argument, NULL, OPT_INI },
	{ "seed", required_argument, NULL, OPT_SEED }, { "map", required_argument, NULL, OPT_MAP },
	{ "dump", no_argument, NULL, OPT_DUMP }, { "dump-slot", required_argument, NULL, OPT_DUMP_SLOT },
	{ "flash-size", required_argument, NULL, OPT_FLASH_SIZE },
	{ "dev-after-image", no_argument, NULL, OPT_DEV_AFTER_IMAGE },
	{ "dev-info-below-mfg", no_argument, NULL, OPT_DEV_INFO_BELOW },
	{ "damage", required_argument, NULL, OPT_DAMAGE },
	{ "selftest", no_argument, NULL, OPT_SELFTEST }, { "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

void usage(FILE *f)
{
	fputs(
"usage: mkfs3 -o OUT [options]   write a synthetic FS3/FS4 (ConnectX-4/4 Lx/5/6) image\n"
"       mkfs3 --selftest         check the CRCs against bitwise references\n"
"  --chip cx4|cx4lx|cx5|cx6|cx6dx|cx6lx (default cx4lx)   --format fs3|fs4 (default: the chip's)\n"
"  --fw X.Y.Z  --psid S  --vsd S  --guid HEX  --mac HEX  --hw-ids ID[,ID...] (up to 4)\n"
"  --rom-ver X.Y.Z | --no-rom   --ini (DBG_FW_INI)   --slot-log N (17..24; FS3 21, FS4 22)\n"
"  --no-dev-data | --dev-sections mfg,dev,nv,vpd|none   --guids-override\n"
"  --mcc-en --signed-fw --secure-fw (IMAGE_INFO flags)   --signed (signature/key sections)\n"
"  --seed N  --map FILE  --dump [--dump-slot 0|1|both]   --flash-size BYTES (default: the\n"
"     chip's, 16 MiB; cx6* 32 MiB): a dump's size, and an FS4 file's (device data at its top)\n"
"  --dev-after-image (FS4 file: device data and DTOC right after the image instead)\n"
"  --dev-info-below-mfg (FS3: DEV_INFO 4 KiB below MFG_INFO, the sector below it free)\n"
"  --damage KIND (repeatable): crc:SECTION, itoc-hdr-crc, itoc-entry-crc, no-mfg,\n"
"     itoc-trunc, too-many, two-dev-info, trunc-file; FS4 only: dtoc-place, hw-ptr-crc,\n"
"     tools-crc, hashes-crc, hashes-hdr-crc\n", f);
}

/* X.Y.Z, each field at most max[i]. */
static int parse_ver(const char *s, unsigned int v[3], const unsigned int max[3])
{
	char tail;
	unsigned int i;

	if (sscanf(s, "%u.%u.%u%c", &v[0], &v[1], &v[2], &tail) != 3)
		return -1;
	for (i = 0; i < 3; i++)
		if (v[i] > max[i])
			return -1;
	return 0;
}

static int parse_hw_ids(const char *s, struct config *c)
{
	char buf[128], *tok, *save = NULL;
	uint64_t v;

	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	c->n_hw_ids = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (c->n_hw_ids == HW_IDS_MAX || number_parse(tok, UINT32_MAX, &v))
			return -1;
		c->hw_ids[c->n_hw_ids++] = (uint32_t)v;
	}
	return c->n_hw_ids ? 0 : -1;
}

static int parse_hex(const char *s, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || s[0] == '-' || s[0] == '+' || s[0] == ' ')
		return -1;
	v = strtoull(s, &end, 16);
	if (*end || v > max)
		return -1;
	*out = v;
	return 0;
}

/* What the user typed, before the chip's defaults fill the rest. */
struct seen {
	const char *chip, *format, *psid, *fw;
	int slot_log, hw_ids, fs4_damage, bad, flash_size;
};

static int set_string(char *dst, const char *s, size_t max)
{
	if (strlen(s) > max)
		return -1;
	strcpy(dst, s);
	return 0;
}

static int one_damage(const char *arg, struct config *c, struct seen *seen)
{
	const char *why;
	int fs4_only;

	if (c->n_damages == DAMAGES_MAX) {
		fprintf(stderr, "mkfs3: at most %d --damage\n", DAMAGES_MAX);
		return -1;
	}
	why = damage_parse(arg, &c->damages[c->n_damages], &fs4_only);
	if (why) {
		fprintf(stderr, "mkfs3: --damage %s: %s\n", arg, why);
		return -1;
	}
	c->n_damages++;
	seen->fs4_damage |= fs4_only;
	return 0;
}

static int one_numeric(int opt, const char *arg, struct config *c, struct seen *seen)
{
	static const unsigned int fw_max[3] = { VER_FIELD_MAX, VER_FIELD_MAX, VER_FIELD_MAX };
	static const unsigned int rom_max[3] = { ROM_MAJOR_MAX, ROM_MAJOR_MAX, VER_FIELD_MAX };
	uint64_t v;

	switch (opt) {
	case OPT_FW: seen->fw = arg; return parse_ver(arg, c->fw, fw_max);
	case OPT_ROM_VER: c->rom = 1; return parse_ver(arg, c->rom_ver, rom_max);
	case OPT_GUID: return parse_hex(arg, UINT64_MAX, &c->guid);
	case OPT_MAC: return parse_hex(arg, MAC_MAX, &c->mac);
	case OPT_HW_IDS: seen->hw_ids = 1; return parse_hw_ids(arg, c);
	case OPT_SEED: return number_parse(arg, UINT64_MAX, &c->seed);
	case OPT_SLOT_LOG:
		if (number_parse(arg, SLOT_LOG_MAX, &v) || v < SLOT_LOG_MIN)
			return -1;
		c->slot_log = (unsigned int)v;
		seen->slot_log = 1;
		return 0;
	case OPT_DUMP_SLOT:
		c->dump_both = !strcmp(arg, "both");
		c->dump_slot = 0;
		if (c->dump_both)
			return 0;
		if (number_parse(arg, 1, &v))
			return -1;
		c->dump_slot = (unsigned int)v;
		return 0;
	case OPT_FLASH_SIZE:
		if (number_parse(arg, MAX_FLASH_SIZE, &v) || v % SECTOR_BYTES)
			return -1;
		c->flash_size = (uint32_t)v;
		seen->flash_size = 1;
		return 0;
	}
	return -1;
}

/* One option; -1 = bad argument (usage error). */
static int one_option(int opt, const char *arg, struct config *c, struct seen *seen)
{
	switch (opt) {
	case 'o': c->out = arg; return 0;
	case OPT_FORMAT: seen->format = arg; return 0;
	case OPT_CHIP: seen->chip = arg; return 0;
	case OPT_PSID: seen->psid = arg; return set_string(c->psid, arg, PSID_LEN);
	case OPT_VSD: return set_string(c->vsd, arg, VSD_LEN);
	case OPT_NO_ROM: c->rom = 0; return 0;
	case OPT_NO_DEV: c->dev = 0; return 0;
	case OPT_DEV_SECTIONS: return dev_sections_parse(arg, &c->dev);
	case OPT_GUIDS_OVERRIDE: c->guids_override = 1; return 0;
	case OPT_MCC_EN: c->mcc_en = 1; return 0;
	case OPT_SIGNED_FW: c->signed_fw = 1; return 0;
	case OPT_SECURE_FW: c->secure_fw = 1; return 0;
	case OPT_SIGNED: c->sig_sections = 1; return 0;
	case OPT_INI: c->ini = 1; return 0;
	case OPT_MAP: c->map = arg; return 0;
	case OPT_DUMP: c->dump = 1; return 0;
	case OPT_DEV_AFTER_IMAGE: c->dev_after_image = 1; return 0;
	case OPT_DEV_INFO_BELOW: c->dev_info_below_mfg = 1; return 0;
	case OPT_DAMAGE: return one_damage(arg, c, seen);
	default: return one_numeric(opt, arg, c, seen);
	}
}

static void defaults(struct config *c)
{
	static const unsigned int rom_ver[3] = DEFAULT_ROM_VER;

	memset(c, 0, sizeof(*c));
	c->guid = DEFAULT_GUID;
	c->mac = DEFAULT_MAC;
	c->rom = 1;
	memcpy(c->rom_ver, rom_ver, sizeof(rom_ver));
	c->dev = DEV_ALL;
	c->seed = 1;
}

/* The chip's defaults where the user gave none, and the checks across options. */
static int finish(struct config *c, const struct seen *seen)
{
	c->chip = chip_find(seen->chip ? seen->chip : DEFAULT_CHIP);
	if (!c->chip) {
		fprintf(stderr, "mkfs3: --chip takes ");
		chip_list(", ");
		fprintf(stderr, "\n");
		return -1;
	}
	c->format = c->chip->format;
	if (seen->format) {
		if (!strcmp(seen->format, "fs3"))
			c->format = FMT_FS3;
		else if (!strcmp(seen->format, "fs4"))
			c->format = FMT_FS4;
		else
			return -1;
	}
	if (!seen->psid)
		strcpy(c->psid, c->chip->psid);
	if (!seen->fw)
		memcpy(c->fw, c->chip->fw, sizeof(c->fw));
	if (!seen->hw_ids) {
		c->hw_ids[0] = c->chip->hw_id;
		c->n_hw_ids = 1;
	}
	if (!seen->flash_size)
		c->flash_size = c->chip->flash_size;
	if (!seen->slot_log)
		c->slot_log = c->format == FMT_FS3 ? FS3_DEFAULT_SLOT_LOG : FS4_DEFAULT_SLOT_LOG;
	if (c->dump_both && !c->dump) {
		fprintf(stderr, "mkfs3: --dump-slot both needs --dump\n");
		return -1;
	}
	if (c->dev_after_image && (c->dump || c->format != FMT_FS4)) {
		fprintf(stderr, "mkfs3: --dev-after-image is for an FS4 file (not --dump)\n");
		return -1;
	}
	if (c->dev_info_below_mfg && c->format != FMT_FS3) {
		fprintf(stderr, "mkfs3: --dev-info-below-mfg is for FS3 (an FS4 DTOC lists both places)\n");
		return -1;
	}
	if (seen->fs4_damage && c->format != FMT_FS4) {
		fprintf(stderr, "mkfs3: that --damage exists only in FS4 images\n");
		return -1;
	}
	return 0;
}

enum parse_result options_parse(int argc, char **argv, struct config *c)
{
	struct seen seen;
	int opt, selftest = 0;

	defaults(c);
	memset(&seen, 0, sizeof(seen));
	while ((opt = getopt_long(argc, argv, "o:h", long_opts, NULL)) != -1) {
		if (opt == 'h') {
			usage(stdout);
			return PARSE_EXIT_OK;
		}
		if (opt == OPT_SELFTEST) {
			selftest = 1;
			continue;
		}
		if (opt == '?' || one_option(opt, optarg, c, &seen)) {
			if (opt != '?')
				fprintf(stderr, "mkfs3: bad argument to option: %s\n", argv[optind - 1]);
			return PARSE_USAGE;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "mkfs3: unexpected argument %s\n", argv[optind]);
		return PARSE_USAGE;
	}
	if (selftest)
		return PARSE_SELFTEST;
	if (!c->out) {
		fprintf(stderr, "mkfs3: -o OUT is required\n");
		return PARSE_USAGE;
	}
	return finish(c, &seen) ? PARSE_USAGE : PARSE_OK;
}
