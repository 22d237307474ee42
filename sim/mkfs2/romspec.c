/* SPDX-License-Identifier: GPL-2.0-or-later */
/* --roms LIST: the ROMs of the ROM section, parsed into struct rom_spec (mkfs2.h). */
#include "romspec.h"
#include "number.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROM_PRODUCT_CLP_STR	0x0F	/* §4.5: the CLP with a version string */
#define ROM_PRODUCT_PXE		0x10
#define ROM_PRODUCT_UEFI	0x11
#define ROM_CPU_AMD64		1	/* mstflint ExpRomCpuArch */
#define ROM_PROTO_NONE		0xFF	/* mstflint prints no proto= for 0xff */
#define ROM_BLOCKS_MAX		255	/* the header's byte 2 */
#define KIB_BLOCKS		2	/* 512-byte blocks per KiB */
#define FIELD_MAX		64
#define LEGACY_ROM_BLOCKS	16	/* 8 KiB, the size mkfs2 always gave its one ROM */

/* Per type: the product and its defaults (sizes small but realistic-looking). */
static const struct rom_type {
	const char *name;
	unsigned int product, blocks, cpu;
	int chip_proto;		/* the chip's protocol, else none (0xff) */
} rom_types[] = {
	{ "pxe", ROM_PRODUCT_PXE, 32, ROM_CPU_AMD64, 1 },
	{ "uefi", ROM_PRODUCT_UEFI, 64, ROM_CPU_AMD64, 0 },
	{ "clp", ROM_PRODUCT_CLP_STR, 16, 0, 0 },
};

/* HP's 544+ (ConnectX-3 Pro, FW 2.42.5700): CLP 8025, UEFI 14.11.49, PXE 3.4.754,
 * in that order, PXE without cpu or proto, as mstflint shows such a card (issue 19;
 * github.com/Mellanox/mstflint/issues/1157 shows the same set on an HP CX3 Pro). */
static const struct rom_preset {
	const char *name, *list;
} presets[] = {
	{ "hp544", "clp:8025,uefi:14.11.49,pxe:3.4.754:cpu=0:proto=255" },
};

static int num(const char *s, unsigned long max, unsigned int *out)
{
	uint64_t v;

	if (number_parse(s, max, &v))
		return -1;
	*out = (unsigned int)v;
	return 0;
}

static const char *version(const char *v, struct rom_spec *s)
{
	static const unsigned long max[3] = { 0xFF, 0xFF, 0xFFFF };
	char part[FIELD_MAX];
	size_t i, n;

	if (s->product == ROM_PRODUCT_CLP_STR) {
		if (!*v || strlen(v) > ROM_VER_STR_MAX || strspn(v, "0123456789") != strlen(v))
			return "a CLP version is 1 to 8 digits";
		strcpy(s->ver_str, v);
		return NULL;
	}
	for (i = 0; i < 3; i++) {
		n = strcspn(v, ".");
		if (!n || n >= sizeof(part) || (i < 2) != (v[n] == '.'))
			return "a version is X.Y.Z";
		memcpy(part, v, n);
		part[n] = '\0';
		if (num(part, max[i], &s->ver[i]))
			return "a version field out of range";
		v += n + (i < 2);
	}
	return NULL;
}

static const char *option(const char *f, struct rom_spec *s)
{
	unsigned int kib;

	if (!strcmp(f, "badsum")) {
		s->bad_checksum = 1;
		return NULL;
	}
	if (!strncmp(f, "dev=", 4))
		return num(f + 4, 0xFFFF, &s->devid) ? "dev= takes 0..0xffff" : NULL;
	if (!strncmp(f, "cpu=", 4))
		return num(f + 4, 0xF, &s->cpu) ? "cpu= takes 0..15" : NULL;
	if (!strncmp(f, "proto=", 6))
		return num(f + 6, 0xFF, &s->proto) ? "proto= takes 0..255" : NULL;
	if (!strncmp(f, "kib=", 4)) {
		if (num(f + 4, ROM_BLOCKS_MAX / KIB_BLOCKS, &kib) || !kib)
			return "kib= takes 1..127";
		s->blocks = kib * KIB_BLOCKS;
		return NULL;
	}
	return "unknown field (dev=, cpu=, proto=, kib=, badsum)";
}

/* One "TYPE:VERSION[:FIELD...]" entry of len bytes. */
static const char *entry(const char *e, size_t len, const struct chip *ch, struct rom_spec *s)
{
	char buf[FIELD_MAX * 4], *f, *save = NULL;
	const char *why;
	size_t i;

	if (len >= sizeof(buf))
		return "an entry is too long";
	memcpy(buf, e, len);
	buf[len] = '\0';
	f = strtok_r(buf, ":", &save);
	for (i = 0; f && i < sizeof(rom_types) / sizeof(rom_types[0]); i++)
		if (!strcmp(f, rom_types[i].name))
			break;
	if (!f || i == sizeof(rom_types) / sizeof(rom_types[0]))
		return "a ROM type is pxe, uefi or clp";
	memset(s, 0, sizeof(*s));
	s->product = rom_types[i].product;
	s->blocks = rom_types[i].blocks;
	s->cpu = rom_types[i].cpu;
	s->proto = rom_types[i].chip_proto ? ch->rom_proto : ROM_PROTO_NONE;
	s->devid = ch->dev_id;
	f = strtok_r(NULL, ":", &save);
	if (!f)
		return "each ROM needs TYPE:VERSION";
	if ((why = version(f, s)))
		return why;
	while ((f = strtok_r(NULL, ":", &save)))
		if ((why = option(f, s)))
			return why;
	return NULL;
}

const char *rom_specs_parse(const char *arg, const struct chip *ch, struct config *c)
{
	const char *p = arg, *why;
	size_t i;

	for (i = 0; i < sizeof(presets) / sizeof(presets[0]); i++)
		if (!strcmp(arg, presets[i].name))
			p = presets[i].list;
	c->n_roms = 0;
	while (*p) {
		size_t n = strcspn(p, ",");

		if (c->n_roms == ROMS_MAX)
			return "at most 5 ROMs";
		if ((why = entry(p, n, ch, &c->roms[c->n_roms++])))
			return why;
		p += n + (p[n] == ',');
	}
	return c->n_roms ? NULL : "an empty list";
}

void rom_spec_legacy(struct config *c, unsigned int product, const unsigned int ver[3],
		     int bad_checksum)
{
	struct rom_spec *s = &c->roms[0];

	memset(s, 0, sizeof(*s));
	s->product = product;
	memcpy(s->ver, ver, sizeof(s->ver));
	s->devid = c->chip->dev_id;
	s->cpu = ROM_CPU_AMD64;
	s->proto = c->chip->rom_proto;
	s->blocks = LEGACY_ROM_BLOCKS;
	s->bad_checksum = bad_checksum;
	c->n_roms = 1;
}
