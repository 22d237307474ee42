/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The GPH wrapper and the simple sections: CNF, DDR, JMP, GUID. */
#include "sections.h"

#include "be.h"
#include "crc16.h"

/* §2.2: a blank GUID section stores CRC 0xFFFF. */
#define BLANK_CRC		0xFFFFu

/*
 * CNF: (CR-space address, value, mask) triples (§1.4, UNCONFIRMED semantics
 * inferred from a real image). The first triples write the FW_VERSION block
 * at 0x1F064 that mstflint's getRunningFwVer reads (§3.4 "q"): MAJOR in
 * 31:16 of the first dword, MINOR/SUBMINOR in the second, then time and
 * date (mstflint cibfw_FW_VERSION layout).
 */
#define CR_FW_VERSION		0x1F064u
#define CR_FW_MINOR		(CR_FW_VERSION + 4)
#define CR_FW_TIME		(CR_FW_VERSION + 8)
#define CR_FW_DATE		(CR_FW_VERSION + 12)
#define CNF_FULL_MASK		0xFFFFFFFFu
#define CNF0_FILLER_TRIPLES	12
#define CNF1_FILLER_TRIPLES	8
#define CNF0_FILLER_BASE	0x1F100u	/* after the FW_VERSION block */
#define CNF1_FILLER_BASE	0x40000u
#define CNF_ADDR_STEP_MAX	0x40u

/* JMP: (scratchpad address, jump address) pairs (§1.4, UNCONFIRMED). */
#define JMP_SCRATCH_BASE	0x1F0A0u

/* GUID section entries (§3.1): node, port1, port2, system image; then MACs. */
#define GUID_COUNT		4
#define MAC_COUNT		2
#define MAC_MASK		0x0000FFFFFFFFFFFFull

size_t sect_begin(struct buf *b, uint32_t type, uint32_t param)
{
	size_t gph = buf_append_be32(b, type);

	buf_append_be32(b, 0);		/* size, filled by sect_end */
	buf_append_be32(b, param);
	buf_append_be32(b, 0);		/* next, filled by sect_end */
	return gph;
}

uint32_t sect_end(struct buf *b, size_t gph, int last, int blank_crc)
{
	size_t data_len;
	uint32_t end;

	while ((b->len - gph) % 4)
		buf_append_byte(b, 0, 1);
	data_len = b->len - gph - GPH_SIZE;
	end = (uint32_t)(b->len + SECT_CRC_SIZE);
	put_be32(b->data + gph + GPH_OFF_SIZE, (uint32_t)(data_len / 4));
	/* Sections are contiguous, so "next" is simply where this one ends. */
	put_be32(b->data + gph + GPH_OFF_NEXT, last ? GPH_NEXT_END : end);
	buf_append_be32(b, blank_crc ? BLANK_CRC :
			crc16_fs2(b->data + gph, GPH_SIZE + data_len));
	return (uint32_t)(end - gph);
}

const char *sect_name(uint32_t type)
{
	switch (type) {
	case SECT_DDR:		return "DDR";
	case SECT_CNF:		return "CNF";
	case SECT_JMP:		return "JMP";
	case SECT_ROM:		return "ROM";
	case SECT_GUID:		return "GUID";
	case SECT_FW_CONF:	return "FW_CONF";
	case SECT_IMG_INFO:	return "IMAGE_INFO";
	}
	return "UNKNOWN";
}

/* mstflint prints tag 2 and the CR date with %x, so decimal digits go in as BCD. */
uint32_t to_bcd(unsigned int v)
{
	uint32_t r = 0;
	unsigned int shift = 0;

	do {
		r |= (uint32_t)(v % 10) << shift;
		v /= 10;
		shift += 4;
	} while (v && shift < 32);
	return r;
}

static void cnf_triple(struct buf *b, uint32_t addr, uint32_t val, uint32_t mask)
{
	buf_append_be32(b, addr);
	buf_append_be32(b, val);
	buf_append_be32(b, mask);
}

void cnf_data(struct buf *b, const struct config *c, struct rng *r, int index)
{
	uint32_t addr = index ? CNF1_FILLER_BASE : CNF0_FILLER_BASE;
	unsigned int n = index ? CNF1_FILLER_TRIPLES : CNF0_FILLER_TRIPLES;
	unsigned int i;

	if (index == 0) {
		cnf_triple(b, CR_FW_VERSION, (uint32_t)c->fw[0] << 16, CNF_FULL_MASK);
		cnf_triple(b, CR_FW_MINOR, (uint32_t)c->fw[1] << 16 | c->fw[2],
			   CNF_FULL_MASK);
		cnf_triple(b, CR_FW_TIME, FW_BUILD_TIME_BCD, CNF_FULL_MASK);
		cnf_triple(b, CR_FW_DATE, to_bcd(c->date[0]) << 16 |
			   to_bcd(c->date[1]) << 8 | to_bcd(c->date[2]), CNF_FULL_MASK);
	}
	/* Filler triples keep the real images' ascending-address order. */
	for (i = 0; i < n; i++) {
		uint32_t mask = rng_next32(r);

		addr += 4 * (1 + rng_next32(r) % (CNF_ADDR_STEP_MAX / 4));
		cnf_triple(b, addr, rng_next32(r) & mask, mask);
	}
}

void ddr_data(struct buf *b, struct rng *r, uint32_t size)
{
	buf_append_rand(b, r, size);
}

void jmp_data(struct buf *b, const uint32_t *ddr_params, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		buf_append_be32(b, JMP_SCRATCH_BASE + 4 * i);
		buf_append_be32(b, ddr_params[i]);
	}
}

static void append_be64(struct buf *b, uint64_t v)
{
	buf_append_be32(b, (uint32_t)(v >> 32));	/* §3.1: high dword first */
	buf_append_be32(b, (uint32_t)v);
}

void guid_data(struct buf *b, const struct config *c)
{
	unsigned int n = GUID_COUNT + (c->old_guids ? 0 : MAC_COUNT);
	unsigned int i;

	if (c->blank_guids) {
		buf_append_byte(b, 0xFF, 8 * n);
		return;
	}
	for (i = 0; i < GUID_COUNT; i++)
		append_be64(b, c->guid + i);	/* §3.1: guid .. guid+3 */
	if (c->old_guids)
		return;
	for (i = 0; i < MAC_COUNT; i++)
		append_be64(b, (c->mac + i) & MAC_MASK);	/* upper 16 bits 0 */
}
