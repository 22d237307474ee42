/* SPDX-License-Identifier: GPL-2.0-or-later */
/* flash.c — identifying the flash, reading it, its write protection (hw-access.md §3.4, §3.6, §4.1). */
#include <stdio.h>
#include <string.h>

#include "flash/fw_access.h"
#include "flash/spi.h"

#define IDENTIFY_TRIES 2           /* GET_FLASH_RETRY: detection is retried once, §3.4 step 9 */

/* A range inside the flash (CX_EVALUE: the caller asked for something impossible). */
int fl_check_range(struct flash *f, const char *what, uint32_t addr, uint32_t len, struct cx_status *st)
{
	if ((uint64_t)addr + len <= f->size)
		return CX_OK;
	return cx_fail(st, CX_EVALUE, "%s: %s of 0x%x bytes at 0x%06x is beyond the end of the %u KiB flash",
		       f->gw.cr->cfg->bdf, what, len, addr, f->size / 1024);
}

/* A tool killed during an erase or program leaves the part busy, and a busy
 * part answers RDID with 0xFF (it decodes nothing but RDSR): wait for it
 * first. A status of all ones is an undriven bus, not a busy part. */
int flash_wait_idle(struct flash *f, struct cx_status *st)
{
	uint8_t sr;
	int rc;

	if (f->via_fw)
		return CX_OK;
	if ((rc = fl_spi_rdsr(f, &sr, st)) || sr == FL_SR_NOBODY || !(sr & FL_SR_WIP))
		return rc;
	return fl_spi_wait_wip(f, 0, FL_WIP_ERASE_RETRY_US, FL_WIP_ERASE_RETRIES,
			       "operation started before cxflash (by another tool)", 0, st);
}

static int unsupported(struct flash *f, const struct fl_id *id, enum fl_id_kind kind, struct cx_status *st)
{
	const char *bdf = f->gw.cr->cfg->bdf;

	if (f->by_res)
		return cx_fail(st, CX_EFLASH,
			       "%s: the flash does not answer JEDEC ID (reads %02x %02x %02x) and its RES "
			       "signature 0x%02x is not a supported part", bdf, f->jedec[0], f->jedec[1],
			       f->jedec[2], f->res);
	if (kind == FL_ID_OK && id->log2size > FL_LOG2_3BYTE_MAX && f->chip->desc->gw == CHIP_GW_GEN4)
		return cx_fail(st, CX_EFLASH,
			       "%s: the flash (JEDEC ID %02x %02x %02x) is larger than 16 MiB: it needs "
			       "4-byte addresses, which ConnectX-2/-3 do not use", bdf, f->jedec[0],
			       f->jedec[1], f->jedec[2]);
	return cx_fail(st, CX_EFLASH,
		       "%s: unsupported flash part: JEDEC ID %02x %02x %02x (manufacturer 0x%02x, type 0x%02x, "
		       "size code 0x%02x) is not in cxflash's table", bdf, f->jedec[0], f->jedec[1],
		       f->jedec[2], id->vendor, id->type, f->jedec[2]);
}

/* One detection attempt, §3.4 steps 2-5; *none = no flash answered at all. */
static int identify(struct flash *f, bool *none, struct cx_status *st)
{
	struct fl_id id;
	enum fl_id_kind kind;
	int rc;

	*none = false;
	f->by_res = false;
	if ((rc = flash_wait_idle(f, st)) || (rc = fl_spi_rdid(f, f->jedec, st)))
		return rc;
	kind = fl_decode_jedec(f->jedec, &id);
	if (kind == FL_ID_NONE) {
		/* Too old for RDID, or absent: try RES (§3.4 step 3). */
		f->by_res = true;
		if ((rc = fl_spi_res(f, &f->res, st)))
			return rc;
		kind = fl_decode_res(f->res, &id);
		if (kind == FL_ID_NONE) {
			*none = true;
			return CX_OK;
		}
	}
	if (kind != FL_ID_OK || !(f->part = fl_part_lookup(&id)))
		return unsupported(f, &id, kind, st);
	f->log2size = id.log2size;
	/* 3-byte addresses reach 16 MiB of a 32 MiB part: the half mstflint 4.21 reaches on
	 * these chips (§3.13); what sits above it on a real card is UNCONFIRMED. */
	f->size = 1u << (id.log2size < f->chip->desc->log2_reach ? id.log2size : f->chip->desc->log2_reach);
	return CX_OK;
}

int flash_open(struct flash *f, struct chip *c, struct cx_status *st)
{
	bool none = true;
	int rc;

	if (c->fw_access)
		return fl_fw_open(f, c, st);
	*f = (struct flash){.chip = c};
	fl_gw_init(&f->gw, &c->cr, c->desc->gw);
	if ((rc = fl_gw_end_left_command(&f->gw, st)))
		return rc;
	for (unsigned i = 0; i < IDENTIFY_TRIES && none; i++)
		if ((rc = identify(f, &none, st)))
			return rc;
	if (none)
		return cx_fail(st, CX_EFLASH,
			       "%s: no flash answers behind the flash gateway (JEDEC ID reads %02x %02x %02x, "
			       "RES 0x%02x)", c->cr.cfg->bdf, f->jedec[0], f->jedec[1], f->jedec[2], f->res);
	return CX_OK;
}

int flash_read(struct flash *f, uint32_t addr, uint8_t *buf, uint32_t len, struct cx_status *st)
{
	const uint32_t cmd = FL_GW_OP(FL_OP_READ) | FL_GW_ADDR_PHASE;
	int rc;

	if ((rc = fl_check_range(f, "read", addr, len, st)))
		return rc;
	if (f->via_fw)
		return fl_fw_read(f, addr, buf, len, st);
	/* read_chunks, §3.6: aligned 16-byte READs; a partial block goes through tmp. */
	while (len) {
		uint32_t blk = addr & ~(FL_BLOCK - 1), off = addr - blk;
		uint32_t n = FL_BLOCK - off < len ? FL_BLOCK - off : len;
		uint8_t tmp[FL_BLOCK];
		uint8_t *dst = n == FL_BLOCK ? buf : tmp;

		if ((rc = fl_gw_get(&f->gw, cmd, fl_spi_at(f, blk), dst, FL_BLOCK, st)))
			return rc;
		if (dst == tmp)
			memcpy(buf, tmp + off, n);
		f->stats.bytes_read += FL_BLOCK;
		addr += n;
		buf += n;
		len -= n;
	}
	return CX_OK;
}

uint32_t flash_read_block(const struct flash *f)
{
	return f->via_fw ? (uint32_t)sizeof(f->fw_cache) : FL_BLOCK;
}

int flash_is_write_protected(struct flash *f, bool *wp, struct cx_status *st)
{
	uint8_t sr = 0;
	int rc = f->via_fw ? CX_OK : fl_spi_rdsr(f, &sr, st);

	*wp = (sr & f->part->bp_mask) != 0;
	return rc;
}

int flash_status(struct flash *f, uint8_t *sr, struct cx_status *st)
{
	if (f->via_fw)
		return cx_fail(st, CX_EUNSUPPORTED, "%s: the running firmware owns the flash: its status register "
			       "is not read", f->gw.cr->cfg->bdf);
	return fl_spi_rdsr(f, sr, st);
}

bool flash_clears_protection(const struct flash *f)
{
	if (f->via_fw)
		return false;
	return f->part->init_sr != FL_NO_INIT_SR;
}

/* The refusal for a part whose block-protect bits cxflash does not clear (§4.1 item 5):
 * a protected block ignores erase and program without an error, so writing anyway
 * would only fail at the verify. */
static int refuse_protected(const struct flash *f, uint8_t sr, struct cx_status *st)
{
	return cx_fail(st, CX_EPROTECTED,
		       "%s: the flash (%s) is write-protected (status register 0x%02x, BP2..BP0 = %u). "
		       "Nothing was erased or written. %s", f->gw.cr->cfg->bdf,
		       f->part->name, sr, (sr & FL_SR_BP_MASK) >> FL_SR_BP_SHIFT,
		       f->chip->desc->gw == CHIP_GW_GEN5
			       ? "burn --unprotect clears them for the burn (asked first)"
			       : "Like mstflint, cxflash does not clear these bits on this part: clear them with "
				 "an SPI programmer, then retry");
}

int flash_check_writable(struct flash *f, struct cx_status *st)
{
	uint8_t sr;
	int rc;

	if (f->write_ready || f->via_fw || flash_clears_protection(f))
		return CX_OK;
	if ((rc = fl_spi_rdsr(f, &sr, st)))
		return rc;
	return sr & f->part->bp_mask && !f->may_unprotect ? refuse_protected(f, sr, st) : CX_OK;
}

/* The BP bits cleared, the rest of the status register kept (§4.1 item 5). */
static int unprotect(struct flash *f, uint8_t sr, struct cx_status *st)
{
	uint8_t now;
	int rc;

	if ((rc = fl_spi_wrsr(f, sr & (uint8_t)~f->part->bp_mask, st)) || (rc = fl_spi_rdsr(f, &now, st)))
		return rc;
	if (now & f->part->bp_mask)
		return cx_fail(st, CX_EPROTECTED,
			       "%s: the flash (%s) stays write-protected (status register 0x%02x after clearing its "
			       "block-protect bits): the board may hold its /WP pin low. Nothing was erased or written",
			       f->gw.cr->cfg->bdf, f->part->name, now);
	f->unprotected = true;
	f->sr_before = sr;
	return CX_OK;
}

int flash_reprotect(struct flash *f, struct cx_status *st)
{
	if (!f->unprotected)
		return CX_OK;
	int rc = fl_spi_wrsr(f, f->sr_before, st);
	if (!rc)
		f->unprotected = false;
	return rc;
}

int flash_prepare_write(struct flash *f, struct cx_status *st)
{
	uint8_t sr;
	int rc;

	if (f->write_ready)
		return CX_OK;
	if (f->via_fw) {
		f->write_ready = true;
		return CX_OK;
	}
	/* SST and Atmel: mstflint's init write clears the BP bits (§3.4 step 8). */
	if (flash_clears_protection(f) && (rc = fl_spi_wrsr(f, (uint8_t)f->part->init_sr, st)))
		return rc;
	if ((rc = fl_spi_rdsr(f, &sr, st)))
		return rc;
	if (sr & f->part->bp_mask && f->may_unprotect && !flash_clears_protection(f)) {
		if ((rc = unprotect(f, sr, st)))
			return rc;
	} else if (sr & f->part->bp_mask) {
		if (flash_clears_protection(f))
			return cx_fail(st, CX_EPROTECTED,
				       "%s: the flash (%s) stays write-protected (status register 0x%02x after "
				       "writing 0x%02x): the board may hold its /WP pin low. Nothing was erased "
				       "or written", f->gw.cr->cfg->bdf, f->part->name, sr, f->part->init_sr);
		return refuse_protected(f, sr, st);
	}
	f->write_ready = true;
	return CX_OK;
}

const char *flash_describe(const struct flash *f, char *buf, unsigned len)
{
	if (f->by_res)
		snprintf(buf, len, "%s, %u KiB (RES signature 0x%02x)", f->part->name, f->size / 1024, f->res);
	else if (f->size < 1u << f->log2size)
		snprintf(buf, len, "%s, %u KiB, of which the first %u KiB are reached (JEDEC %02x %02x %02x)",
			 f->part->name, (1u << f->log2size) / 1024, f->size / 1024, f->jedec[0], f->jedec[1],
			 f->jedec[2]);
	else
		snprintf(buf, len, "%s, %u KiB (JEDEC %02x %02x %02x)", f->part->name, f->size / 1024,
			 f->jedec[0], f->jedec[1], f->jedec[2]);
	return buf;
}
