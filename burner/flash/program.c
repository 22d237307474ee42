/* SPDX-License-Identifier: GPL-2.0-or-later */
/* program.c — erase and program with WIP polling and read-back verify (hw-access.md §3.7, §3.8). */
#include <string.h>

#include "flash/fw_access.h"
#include "flash/spi.h"

uint32_t flash_erase_unit(const struct flash *f)
{
	return f->part->sub_and_sector ? FL_SZ_4K : f->part->sector_size;
}

static bool has_64k(const struct flash *f)
{
	return f->part->sub_and_sector || f->part->sector_size == FL_SZ_64K;
}

/* WREN, then check WEL: an erase without it would do nothing and say nothing. */
static int write_enable(struct flash *f, uint32_t addr, struct cx_status *st)
{
	uint8_t sr;
	int rc;

	if ((rc = fl_spi_wren(f, st)) || (rc = fl_spi_rdsr(f, &sr, st)))
		return rc;
	if (sr & FL_SR_WEL)
		return CX_OK;
	return cx_fail(st, CX_EFLASH, "%s: the flash ignored write enable before the erase at 0x%06x "
		       "(status register 0x%02x)", f->gw.cr->cfg->bdf, addr, sr);
}

int flash_erase(struct flash *f, uint32_t addr, uint32_t size, struct cx_status *st)
{
	uint32_t unit = flash_erase_unit(f);
	int rc;

	if ((rc = fl_check_range(f, "erase", addr, size, st)))
		return rc;
	if (addr % unit || size % unit)
		return cx_fail(st, CX_EVALUE, "%s: erase of 0x%x bytes at 0x%06x: %s erases in units of "
			       "%u KiB", f->gw.cr->cfg->bdf, size, addr, f->part->name, unit / 1024);
	if ((rc = flash_prepare_write(f, st)))
		return rc;
	if (f->via_fw)
		return fl_fw_erase(f, addr, size, st);
	while (size) {
		/* 64 KiB where the part and the range allow: one command instead of 16. */
		bool big = has_64k(f) && !(addr % FL_SZ_64K) && size >= FL_SZ_64K;
		uint32_t len = big ? FL_SZ_64K : FL_SZ_4K;
		uint32_t cmd = FL_GW_OP(big ? FL_OP_SE : FL_OP_SSE) | FL_GW_ADDR_PHASE;

		/* cntx_st_spi_erase_sect, §3.8: WREN, erase, WIP poll (20 ms, 300 µs, 10000). */
		if ((rc = write_enable(f, addr, st)))
			return rc;
		f->stats.write_cmds++;
		if ((rc = fl_gw_set(&f->gw, cmd, fl_spi_at(f, addr), NULL, 0, st)) ||
		    (rc = fl_spi_wait_wip(f, FL_WIP_ERASE_INIT_US, FL_WIP_ERASE_RETRY_US,
					  FL_WIP_ERASE_RETRIES, "erase", addr, st)))
			return rc;
		f->stats.erases++;
		f->stats.bytes_erased += len;
		addr += len;
		size -= len;
	}
	return CX_OK;
}

/* Read back what was programmed (§3.8 "Verify"). */
static int verify(struct flash *f, uint32_t addr, const uint8_t *want, uint32_t len, struct cx_status *st)
{
	uint8_t got[FL_PAGE];
	int rc;

	if ((rc = flash_read(f, addr, got, len, st)))
		return rc;
	for (uint32_t i = 0; i < len; i++)
		if (got[i] != want[i])
			return cx_fail(st, CX_EFLASH,
				       "%s: verify failed at 0x%06x: wrote 0x%02x, the flash reads 0x%02x "
				       "(was it erased first?)", f->gw.cr->cfg->bdf, addr + i, want[i], got[i]);
	return CX_OK;
}

/* One page program (§3.8): WREN, then the 16-byte blocks as one SPI command
 * (CS_HOLD on every block but the last), then the WIP poll. [addr, addr+len)
 * lies in one page. Leading and trailing all-0xFF blocks are not sent. */
static int program_page(struct flash *f, uint32_t addr, const uint8_t *buf, uint32_t len,
			bool *done, struct cx_status *st)
{
	uint8_t blk[FL_PAGE];
	uint32_t base = addr & ~(FL_PAGE - 1), first, end;
	int rc;

	/* Pad to whole blocks with 0xFF, which programs nothing (write_chunks, §3.8). */
	memset(blk, 0xFF, sizeof(blk));
	memcpy(blk + (addr - base), buf, len);
	first = (addr - base) & ~(FL_BLOCK - 1);
	end = (addr - base + len + FL_BLOCK - 1) & ~(FL_BLOCK - 1);
	while (first < end && blk[first] == 0xFF && !memcmp(blk + first, blk + first + 1, FL_BLOCK - 1))
		first += FL_BLOCK;
	while (end > first && blk[end - 1] == 0xFF && !memcmp(blk + end - FL_BLOCK, blk + end - FL_BLOCK + 1,
							     FL_BLOCK - 1))
		end -= FL_BLOCK;
	*done = end > first;
	if (!*done)
		return CX_OK;
	if ((rc = fl_spi_wren(f, st)))
		return rc;
	f->stats.write_cmds++;
	for (uint32_t off = first; off < end; off += FL_BLOCK) {
		uint32_t cmd = off == first ? FL_GW_OP(FL_OP_PP) | FL_GW_ADDR_PHASE : 0;

		if (off + FL_BLOCK < end)
			cmd |= FL_GW_CS_HOLD;
		if ((rc = fl_gw_set(&f->gw, cmd, fl_spi_at(f, base + first), blk + off, FL_BLOCK, st))) {
			/* Do not leave chip select held: our next opcode would become page data. */
			if (cmd & FL_GW_CS_HOLD || off != first)
				fl_gw_end_command(&f->gw, &(struct cx_status){0});
			return rc;
		}
	}
	f->stats.bytes_programmed += end - first;
	return fl_spi_wait_wip(f, FL_WIP_PP_INIT_US + (end - first) * FL_WIP_PP_PER_BYTE_US,
			       FL_WIP_PP_RETRY_US, FL_WIP_PP_RETRIES, "page program", base + first, st);
}

/* SST 25VF: one byte per program command (cntx_sst_spi_block_write_ex, §3.8);
 * 0xFF bytes program nothing and are not sent. */
static int program_sst(struct flash *f, uint32_t addr, const uint8_t *buf, uint32_t len,
		       bool *done, struct cx_status *st)
{
	int rc;

	*done = false;
	for (uint32_t i = 0; i < len; i++) {
		if (buf[i] == 0xFF)
			continue;
		if ((rc = fl_spi_wren(f, st)))
			return rc;
		f->stats.write_cmds++;
		if ((rc = fl_gw_set(&f->gw, FL_GW_OP(FL_OP_PP) | FL_GW_ADDR_PHASE, fl_spi_at(f, addr + i),
				    &buf[i], 1, st)) ||
		    (rc = fl_spi_wait_wip(f, 0, 0, FL_WIP_SST_RETRIES, "byte program", addr + i, st)))
			return rc;
		f->stats.bytes_programmed++;
		*done = true;
	}
	return CX_OK;
}

int flash_program(struct flash *f, uint32_t addr, const uint8_t *buf, uint32_t len,
		  struct cx_status *st)
{
	int rc;

	if ((rc = fl_check_range(f, "program", addr, len, st)) || (rc = flash_prepare_write(f, st)))
		return rc;
	if (f->via_fw)
		return fl_fw_program(f, addr, buf, len, st);
	while (len) {
		uint32_t room = FL_PAGE - (addr & (FL_PAGE - 1));
		uint32_t n = len < room ? len : room;
		bool done;

		if (f->part->byte_program)
			rc = program_sst(f, addr, buf, n, &done, st);
		else
			rc = program_page(f, addr, buf, n, &done, st);
		if (rc || (done && (rc = verify(f, addr, buf, n, st))))
			return rc;
		if (done)
			f->stats.pages_programmed++;
		else
			f->stats.pages_skipped++;
		addr += n;
		buf += n;
		len -= n;
	}
	return CX_OK;
}
