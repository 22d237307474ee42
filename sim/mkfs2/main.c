/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mkfs2: command-line options; writes a synthetic FS2 image, flash dump and map. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crc16.h"
#include "layout.h"
#include "mkfs2.h"
#include "romspec.h"
#include "sections.h"

#define EXIT_USAGE		2
#define DEFAULT_CHIP		"cx3"
#define DEFAULT_GUID		0x0002c903000a1b20ull
#define DEFAULT_MAC		0x0002c90a1b20ull
#define MAC_MAX			0xFFFFFFFFFFFFull	/* §3.1: MACs are 48 bits */
#define DEFAULT_CHUNK_LOG	3		/* §1.5: 0xF500000B = 512 KiB chunks */
#define DEFAULT_DDR_COUNT	4
#define DEFAULT_DDR_SIZE	0x4000u
#define MAX_SECTION_SIZE	0x400000u	/* §1.4 */
#define DEFAULT_FLASH_SIZE	0x200000u	/* 2 MiB, as on real CX3 boards */
#define MIN_FLASH_SIZE		0x10000u
#define MAX_FLASH_SIZE		0x4000000u	/* the largest chunk is 8 MiB (§1.5) */
#define ROM_PRODUCT_PXE		0x10		/* §4.5 product ids */
#define DEFAULT_ROM_VER		{ 3, 4, 752 }	/* FlexBoot of the real image */
#define U8_MAX_VAL		0xFFu
#define U16_MAX_VAL		0xFFFFu
#define YEAR_MAX		9999
#define MONTH_MAX		12
#define DAY_MAX			31

enum {
	OPT_CHIP = 256, OPT_REV, OPT_PSID, OPT_VSD, OPT_PRS, OPT_FW, OPT_DATE,
	OPT_GUID, OPT_MAC, OPT_OLD_GUIDS, OPT_BLANK_GUIDS, OPT_NO_FAILSAFE,
	OPT_CHUNK_LOG, OPT_NO_ROM, OPT_ROM_VER, OPT_ROM_PRODUCT, OPT_ROM_BAD_CSUM,
	OPT_NO_PRODUCT_VER, OPT_NO_FW_CONF, OPT_NO_MIC, OPT_INI, OPT_DDR,
	OPT_DDR_SIZE, OPT_SEED, OPT_DUMP, OPT_FLASH_SIZE, OPT_MAP, OPT_SELFTEST,
	OPT_INI_SET, OPT_INI_DEL, OPT_ROMS, OPT_ROM_ONLY,
};

static const struct option long_opts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "chip", required_argument, NULL, OPT_CHIP },
	{ "rev", required_argument, NULL, OPT_REV },
	{ "psid", required_argument, NULL, OPT_PSID },
	{ "vsd", required_argument, NULL, OPT_VSD },
	{ "prs", required_argument, NULL, OPT_PRS },
	{ "fw", required_argument, NULL, OPT_FW },
	{ "date", required_argument, NULL, OPT_DATE },
	{ "guid", required_argument, NULL, OPT_GUID },
	{ "mac", required_argument, NULL, OPT_MAC },
	{ "old-guids", no_argument, NULL, OPT_OLD_GUIDS },
	{ "blank-guids", no_argument, NULL, OPT_BLANK_GUIDS },
	{ "no-failsafe", no_argument, NULL, OPT_NO_FAILSAFE },
	{ "chunk-log", required_argument, NULL, OPT_CHUNK_LOG },
	{ "no-rom", no_argument, NULL, OPT_NO_ROM },
	{ "rom-ver", required_argument, NULL, OPT_ROM_VER },
	{ "rom-product", required_argument, NULL, OPT_ROM_PRODUCT },
	{ "rom-bad-checksum", no_argument, NULL, OPT_ROM_BAD_CSUM },
	{ "roms", required_argument, NULL, OPT_ROMS },
	{ "rom-only", required_argument, NULL, OPT_ROM_ONLY },
	{ "no-product-ver", no_argument, NULL, OPT_NO_PRODUCT_VER },
	{ "no-fw-conf", no_argument, NULL, OPT_NO_FW_CONF },
	{ "no-mic", no_argument, NULL, OPT_NO_MIC },
	{ "ini", required_argument, NULL, OPT_INI },
	{ "ini-set", required_argument, NULL, OPT_INI_SET },
	{ "ini-del", required_argument, NULL, OPT_INI_DEL },
	{ "ddr", required_argument, NULL, OPT_DDR },
	{ "ddr-size", required_argument, NULL, OPT_DDR_SIZE },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "dump", required_argument, NULL, OPT_DUMP },
	{ "flash-size", required_argument, NULL, OPT_FLASH_SIZE },
	{ "map", required_argument, NULL, OPT_MAP },
	{ "selftest", no_argument, NULL, OPT_SELFTEST },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void usage(FILE *f)
{
	fprintf(f,
"usage: mkfs2 -o OUT [options]    write a synthetic FS2 (ConnectX-2/3/3 Pro) image\n"
"       mkfs2 --rom-only ROM [options]  write only its ROM section's data\n"
"       mkfs2 --selftest          check the CRC16 implementation\n"
"  -o, --output FILE     output file (required unless --rom-only)\n"
"  --chip NAME           cx2 | cx3 | cx3pro (default cx3)\n"
"  --rev N               silicon revision (default: cx2 0xb0, cx3 1 = A1, cx3pro 0)\n"
"  --psid S              PSID, up to 16 chars (default per chip)\n"
"  --vsd S               VSD string, up to 208 chars (default empty)\n"
"  --prs NAME            IMAGE_INFO PRS name (default per chip)\n"
"  --fw X.Y.Z            FW version (default: cx2 2.9.1000, cx3/cx3pro 2.42.5000)\n"
"  --date YYYY-MM-DD     FW build date\n"
"  --guid HEX            GUID base: guid..guid+3 (default 0002c903000a1b20)\n"
"  --mac HEX             MAC base: mac, mac+1 (default 0002c90a1b20)\n"
"  --old-guids           4 GUID entries, no MACs (ConnectX-2 style)\n"
"  --blank-guids         all-0xFF GUIDs, GUID and full CRC 0xFFFF\n"
"  --no-failsafe         FS info word without the failsafe bit\n"
"  --chunk-log N         log2(chunk) - 16, 0..7 (default 3 = 512 KiB)\n"
"  --no-rom              no expansion ROM section\n"
"  --rom-ver X.Y.Z       ROM version (default 3.4.752)\n"
"  --rom-product N       ROM product id (default 0x10 = PXE)\n"
"  --rom-bad-checksum    leave the ROM 8-bit checksum wrong\n"
"  --roms LIST           several ROMs instead: TYPE:VERSION[:FIELD...],... with\n"
"                        TYPE pxe|uefi|clp, FIELD dev=N cpu=N proto=N kib=N badsum;\n"
"                        or hp544 (clp:8025,uefi:14.11.49,pxe:3.4.754:cpu=0:proto=255)\n"
"  --rom-only FILE       write the ROM section's data (the ROMs) to FILE\n"
"  --no-product-ver      omit IMAGE_INFO tag 7 (Product Version)\n"
"  --no-fw-conf          no FW_CONF section\n"
"  --no-mic              omit IMAGE_INFO tag 11 (disables the full-CRC check)\n"
"  --ini FILE            store FILE in FW_CONF instead of the default .ini\n"
"  --ini-set SECTION.key=VALUE\n"
"                        set key in the default .ini: its value replaced if\n"
"                        SECTION has it, else added to SECTION or a new SECTION\n"
"                        (repeatable, up to %d edits)\n"
"  --ini-del SECTION.key drop key from the default .ini (it must be there)\n"
"  --ddr N               number of DDR sections, 1..%d (default %d)\n"
"  --ddr-size BYTES      data bytes per DDR section, multiple of 4 (default 0x%x)\n"
"  --seed N              filler seed (default 1)\n"
"  --dump SLOT           write a raw zebra flash dump with the image in slot 0 or 1\n"
"  --flash-size BYTES    flash size for --dump and the .ini (default 2 MiB)\n"
"  --map FILE            write \"name offset size\" lines (contiguous offsets;\n"
"                        with --dump a last line dump_slot_S PHYS_START CHUNK)\n",
		INI_EDITS_MAX, DDR_MAX, DEFAULT_DDR_COUNT, DEFAULT_DDR_SIZE);
}

static void bad_arg(const char *opt, const char *arg, const char *why)
{
	fprintf(stderr, "mkfs2: --%s %s: %s\n", opt, arg, why);
	usage(stderr);
	exit(EXIT_USAGE);
}

static unsigned long long parse_num(const char *opt, const char *arg, int base,
				    unsigned long long max)
{
	unsigned long long v;
	char *end;

	if (!*arg || *arg == '-')
		bad_arg(opt, arg, "not a number");
	errno = 0;
	v = strtoull(arg, &end, base);
	if (errno || *end)
		bad_arg(opt, arg, "not a number");
	if (v > max)
		bad_arg(opt, arg, "out of range");
	return v;
}

/* "A<sep>B<sep>C" with each part <= its maximum. */
static void parse_triple(const char *opt, const char *arg, char sep,
			 const unsigned int max[3], unsigned int out[3])
{
	const char *p = arg;
	int i;

	for (i = 0; i < 3; i++) {
		unsigned long v;
		char *end;

		if (*p < '0' || *p > '9')
			bad_arg(opt, arg, "bad format");
		errno = 0;
		v = strtoul(p, &end, 10);
		if (errno || v > max[i])
			bad_arg(opt, arg, "field out of range");
		if (*end != (i < 2 ? sep : '\0'))
			bad_arg(opt, arg, "bad format");
		out[i] = (unsigned int)v;
		p = end + 1;
	}
}

static void parse_string(const char *opt, const char *arg, char *dst, size_t max)
{
	if (strlen(arg) > max)
		bad_arg(opt, arg, "too long");
	strcpy(dst, arg);
}

/* A section or key name: what the .ini syntax lets stand between [ ] or before
 * '=' (no blanks, brackets, '=' or comment marks), so the edit reads back as
 * the same name. */
static int ini_name_ok(const char *s, size_t n, size_t max)
{
	size_t i;

	if (!n || n > max)
		return 0;
	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] <= ' ' || (unsigned char)s[i] >= 0x7f || strchr("[]=;#", s[i]))
			return 0;
	return 1;
}

/* "SECTION.key=VALUE" (set) or "SECTION.key" (del). */
static void parse_ini_edit(struct config *c, const char *opt, const char *arg, int set)
{
	struct ini_edit *e = &c->ini_edits[c->n_ini_edits];
	const char *dot = strchr(arg, '.'), *eq, *p;
	size_t key_len;

	if (c->n_ini_edits == INI_EDITS_MAX)
		bad_arg(opt, arg, "too many .ini edits");
	eq = dot ? strchr(dot, '=') : NULL;
	if (!dot || (set && !eq) || (!set && eq))
		bad_arg(opt, arg, set ? "not SECTION.key=VALUE" : "not SECTION.key");
	key_len = set ? (size_t)(eq - dot - 1) : strlen(dot + 1);
	if (!ini_name_ok(arg, (size_t)(dot - arg), sizeof(e->section) - 1) ||
	    !ini_name_ok(dot + 1, key_len, sizeof(e->key) - 1))
		bad_arg(opt, arg, "bad section or key name");
	if (set)
		for (p = eq + 1; *p; p++)
			if ((unsigned char)*p < ' ' && *p != '\t')
				bad_arg(opt, arg, "the value must be one line of text");
	e->arg = arg;
	memcpy(e->section, arg, (size_t)(dot - arg));
	e->section[dot - arg] = '\0';
	memcpy(e->key, dot + 1, key_len);
	e->key[key_len] = '\0';
	e->value = set ? eq + 1 : NULL;
	c->n_ini_edits++;
}

static int write_file(const char *path, const uint8_t *p, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (!f) {
		perror(path);
		return -1;
	}
	if (fwrite(p, 1, len, f) != len || fclose(f)) {
		perror(path);
		return -1;
	}
	return 0;
}

/* The ROM options that cannot go together; 0 if they can. */
static int rom_args(const struct config *c, const char *roms, int legacy_rom)
{
	const char *clash = NULL;

	if (roms && legacy_rom)
		clash = "--roms replaces --rom-ver, --rom-product and --rom-bad-checksum";
	else if (!c->rom && (roms || c->rom_only))
		clash = "--no-rom: no --roms or --rom-only";
	if (!clash)
		return 0;
	fprintf(stderr, "mkfs2: %s\n", clash);
	usage(stderr);
	return -1;
}

/* --rom-only: the ROM section's data, GPH and CRC stripped (its map line spans all three). */
static int write_rom(const struct buf *img, const struct map *m, const char *path)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (!strcmp(m->e[i].name, "sect_ROM"))
			return write_file(path, img->data + m->e[i].off + GPH_SIZE,
					  m->e[i].size - GPH_SIZE - SECT_CRC_SIZE);
	return -1;
}

static void set_chip(struct config *c, const struct chip *ch)
{
	c->chip = ch;
	c->rev = ch->rev;
	strcpy(c->psid, ch->psid);
	c->prs = ch->prs;
	memcpy(c->fw, ch->fw, sizeof(c->fw));
	/* The table's dates are well-formed. */
	sscanf(ch->date, "%u-%u-%u", &c->date[0], &c->date[1], &c->date[2]);
}

/* main() goes on: no exit code yet. */
#define GO_ON (-1)

/* The options applied after the chip's defaults, so that they override them. */
struct late_opts {
	const char *chip_name, *rev, *psid, *prs, *fw, *date, *roms;
	unsigned int rom_ver[3], rom_product;
	int rom_bad_checksum, legacy_rom;
};

/* One option of getopt_long (opt, with optarg) into c or l: GO_ON, or main()'s exit code. */
static int parse_opt(int opt, struct config *c, struct late_opts *l)
{
	static const unsigned int rom_max[3] = { U8_MAX_VAL, U8_MAX_VAL, U16_MAX_VAL };

	switch (opt) {
	case 'o': c->out = optarg; break;
	case 'h': usage(stdout); return 0;
	case OPT_CHIP: l->chip_name = optarg; break;
	case OPT_REV: l->rev = optarg; break;
	case OPT_PSID: l->psid = optarg; break;
	case OPT_VSD: parse_string("vsd", optarg, c->vsd, VSD_LEN); break;
	case OPT_PRS: l->prs = optarg; break;
	case OPT_FW: l->fw = optarg; break;
	case OPT_DATE: l->date = optarg; break;
	case OPT_GUID: c->guid = parse_num("guid", optarg, 16, ~0ull); break;
	case OPT_MAC: c->mac = parse_num("mac", optarg, 16, MAC_MAX); break;
	case OPT_OLD_GUIDS: c->old_guids = 1; break;
	case OPT_BLANK_GUIDS: c->blank_guids = 1; break;
	case OPT_NO_FAILSAFE: c->failsafe = 0; break;
	case OPT_CHUNK_LOG:
		c->chunk_log = (unsigned int)parse_num("chunk-log", optarg, 0, CHUNK_LOG_MAX);
		break;
	case OPT_NO_ROM: c->rom = 0; break;
	case OPT_ROM_VER:
		parse_triple("rom-ver", optarg, '.', rom_max, l->rom_ver);
		l->legacy_rom = 1;
		break;
	case OPT_ROM_PRODUCT:
		l->rom_product = (unsigned int)parse_num("rom-product", optarg, 0, U16_MAX_VAL);
		l->legacy_rom = 1;
		break;
	case OPT_ROM_BAD_CSUM: l->rom_bad_checksum = l->legacy_rom = 1; break;
	case OPT_ROMS: l->roms = optarg; break;
	case OPT_ROM_ONLY: c->rom_only = optarg; break;
	case OPT_NO_PRODUCT_VER: c->product_ver = 0; break;
	case OPT_NO_FW_CONF: c->fw_conf = 0; break;
	case OPT_NO_MIC: c->mic = 0; break;
	case OPT_INI: c->ini_file = optarg; break;
	case OPT_INI_SET: parse_ini_edit(c, "ini-set", optarg, 1); break;
	case OPT_INI_DEL: parse_ini_edit(c, "ini-del", optarg, 0); break;
	case OPT_DDR:
		c->ddr_count = (unsigned int)parse_num("ddr", optarg, 0, DDR_MAX);
		if (!c->ddr_count)
			bad_arg("ddr", optarg, "at least 1");
		break;
	case OPT_DDR_SIZE:
		c->ddr_size = (uint32_t)parse_num("ddr-size", optarg, 0, MAX_SECTION_SIZE);
		if (!c->ddr_size || c->ddr_size % 4)
			bad_arg("ddr-size", optarg, "must be a non-zero multiple of 4");
		break;
	case OPT_SEED: c->seed = parse_num("seed", optarg, 0, ~0ull); break;
	case OPT_DUMP: c->dump_slot = (int)parse_num("dump", optarg, 0, 1); break;
	case OPT_FLASH_SIZE:
		c->flash_size = (uint32_t)parse_num("flash-size", optarg, 0, MAX_FLASH_SIZE);
		if (c->flash_size < MIN_FLASH_SIZE || (c->flash_size & (c->flash_size - 1)))
			bad_arg("flash-size", optarg, "must be a power of 2, >= 64 KiB");
		break;
	case OPT_MAP: c->map = optarg; break;
	case OPT_SELFTEST: return crc16_selftest() ? 1 : 0;
	default: usage(stderr); return EXIT_USAGE;
	}
	return GO_ON;
}

/* The chip's defaults, then the options that override them: GO_ON or EXIT_USAGE. */
static int apply_chip(struct config *c, const struct late_opts *l)
{
	static const unsigned int ver_max[3] = { U16_MAX_VAL, U16_MAX_VAL, U16_MAX_VAL };
	static const unsigned int date_max[3] = { YEAR_MAX, MONTH_MAX, DAY_MAX };
	const struct chip *ch = chip_find(l->chip_name);

	if (!ch) {
		fprintf(stderr, "mkfs2: unknown chip '%s' (known: ", l->chip_name);
		chip_list(", ");
		fprintf(stderr, ")\n");
		usage(stderr);
		return EXIT_USAGE;
	}
	set_chip(c, ch);
	if (rom_args(c, l->roms, l->legacy_rom))
		return EXIT_USAGE;
	if (l->roms) {
		const char *why = rom_specs_parse(l->roms, ch, c);

		if (why)
			bad_arg("roms", l->roms, why);
	} else {
		rom_spec_legacy(c, l->rom_product, l->rom_ver, l->rom_bad_checksum);
	}
	if (l->rev)
		c->rev = (unsigned int)parse_num("rev", l->rev, 0, U8_MAX_VAL);
	if (l->psid)
		parse_string("psid", l->psid, c->psid, PSID_LEN);
	if (l->prs)
		c->prs = l->prs;
	if (l->fw)
		parse_triple("fw", l->fw, '.', ver_max, c->fw);
	if (l->date) {
		parse_triple("date", l->date, '-', date_max, c->date);
		if (!c->date[0] || !c->date[1] || !c->date[2])
			bad_arg("date", l->date, "field out of range");
	}
	return GO_ON;
}

/* The .ini edits and the dump slot, against the rest: GO_ON or main()'s exit code. */
static int check_edits_and_dump(const struct config *c)
{
	if (c->n_ini_edits && (c->ini_file || !c->fw_conf)) {
		fprintf(stderr, "mkfs2: --ini-set and --ini-del edit the default .ini: not with %s\n",
			c->ini_file ? "--ini" : "--no-fw-conf");
		usage(stderr);
		return EXIT_USAGE;
	}
	if (c->n_ini_edits) {
		const struct ini_edit *bad;
		char *text = ini_default_text_edited(c, &bad);

		if (bad) {
			fprintf(stderr, "mkfs2: --ini-del %s: the default .ini has no such key\n", bad->arg);
			usage(stderr);
			return EXIT_USAGE;
		}
		if (!text)
			return 1;
		free(text);	/* built again with the image; this run only checked the edits */
	}
	if (c->dump_slot > 0 && !c->failsafe) {
		/* §1.1: a non-failsafe image must start at 0. */
		fprintf(stderr, "mkfs2: a --no-failsafe image can only be dumped to slot 0\n");
		usage(stderr);
		return EXIT_USAGE;
	}
	return GO_ON;
}

/* The image, and what was asked of it: the ROM alone, the image or a flash dump, the map. */
static int build_and_write(struct config *c, struct buf *img, struct buf *flash, struct map *map)
{
	if (build_image(c, img, map))
		return 1;
	if (c->rom_only && write_rom(img, map, c->rom_only))
		return 1;
	if (!c->out)
		return 0;
	if (c->dump_slot >= 0) {
		uint32_t chunk = 1u << (c->chunk_log + LOG2_CHUNK_BASE);

		if (build_dump(c, img, flash) || write_file(c->out, flash->data, flash->len))
			return 1;
		/* The only physical line: where the slot starts and its chunk size. */
		map_add(map, c->failsafe ? (uint32_t)c->dump_slot * chunk : 0,
			c->failsafe ? chunk : c->flash_size, "dump_slot_%d", c->dump_slot);
	} else if (write_file(c->out, img->data, img->len)) {
		return 1;
	}
	if (c->map && map_write(map, c->map))
		return 1;
	return 0;
}

int main(int argc, char **argv)
{
	struct config c = {
		.guid = DEFAULT_GUID, .mac = DEFAULT_MAC, .failsafe = 1,
		.chunk_log = DEFAULT_CHUNK_LOG, .rom = 1, .fw_conf = 1, .mic = 1, .product_ver = 1,
		.ddr_count = DEFAULT_DDR_COUNT, .ddr_size = DEFAULT_DDR_SIZE, .seed = 1,
		.dump_slot = -1, .flash_size = DEFAULT_FLASH_SIZE,
	};
	/* Chip-dependent defaults are applied first so later options override them. */
	struct late_opts late = {
		.chip_name = DEFAULT_CHIP, .rom_ver = DEFAULT_ROM_VER, .rom_product = ROM_PRODUCT_PXE,
	};
	struct buf img = { 0 }, flash = { 0 };
	struct map map = { 0 };
	int opt, rc;

	while ((opt = getopt_long(argc, argv, "o:h", long_opts, NULL)) != -1)
		if ((rc = parse_opt(opt, &c, &late)) != GO_ON)
			return rc;
	if (optind != argc || (!c.out && !c.rom_only)) {
		fprintf(stderr, "mkfs2: %s\n", optind != argc ? "unexpected argument" :
			"-o OUT is required");
		usage(stderr);
		return EXIT_USAGE;
	}
	if ((rc = apply_chip(&c, &late)) != GO_ON || (rc = check_edits_and_dump(&c)) != GO_ON)
		return rc;
	rc = build_and_write(&c, &img, &flash, &map);
	buf_free(&img);
	buf_free(&flash);
	map_free(&map);
	return rc;
}
