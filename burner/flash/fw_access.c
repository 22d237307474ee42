/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fw_access.c — reading, erasing and programming through the running firmware (hw-access.md §3.14). */
#include <string.h>

#include "flash/fw_access.h"
#include "flash/spi.h"

int fl_fw_open(struct flash *f, struct chip *c, struct cx_status *st)
{
	struct mfpa m = {0};
	struct fl_id id;
	int rc;

	*f = (struct flash){.chip = c, .via_fw = true};
	fl_gw_init(&f->gw, &c->cr, c->desc->gw); /* never used: messages name the card through it */
	if ((rc = fw_mfpa(&c->icmd, &m, st)))
		return rc;
	f->jedec[0] = (uint8_t)(m.jedec >> 16);
	f->jedec[1] = (uint8_t)(m.jedec >> 8);
	f->jedec[2] = (uint8_t)m.jedec;
	f->fw_bulk64 = m.bulk64;
	/* run_mfpa_command: a second flash is a "bad parameter", and none at all reads flash_num 0. */
	if (!m.flash_num)
		return cx_fail(st, CX_EFLASH, "%s: the firmware reports no flash (MFPA flash_num 0)", c->cr.cfg->bdf);
	if (fl_decode_jedec(f->jedec, &id) != FL_ID_OK || !(f->part = fl_part_lookup(&id)))
		return cx_fail(st, CX_EFLASH, "%s: unsupported flash part: the firmware reports JEDEC ID %02x %02x %02x, "
			       "which is not in cxflash's table", c->cr.cfg->bdf, f->jedec[0], f->jedec[1], f->jedec[2]);
	f->log2size = id.log2size;
	/* 16 MiB reached, as on the gateway (§3.13): the images and device data live there. */
	f->size = 1u << (id.log2size < c->desc->log2_reach ? id.log2size : c->desc->log2_reach);
	return CX_OK;
}

/* Each MFBA is a whole ICMD command (~100 config accesses before its data), so small reads
 * are served from the last 256-byte block read, which any erase or program forgets. */
int fl_fw_read(struct flash *f, uint32_t addr, uint8_t *buf, uint32_t len, struct cx_status *st)
{
	while (len) {
		uint32_t blk = addr & ~(MFBA_MAX - 1), off = addr - blk;
		uint32_t n = MFBA_MAX - off < len ? MFBA_MAX - off : len;

		if (!f->fw_cached || f->fw_cache_addr != blk) {
			f->fw_cached = false;
			if (fw_mfba_read(&f->chip->icmd, blk, f->fw_cache, MFBA_MAX, st))
				return st->code;
			f->stats.bytes_read += MFBA_MAX;
			f->fw_cached = true;
			f->fw_cache_addr = blk;
		}
		memcpy(buf, f->fw_cache + off, n);
		addr += n;
		buf += n;
		len -= n;
	}
	return CX_OK;
}

int fl_fw_erase(struct flash *f, uint32_t addr, uint32_t size, struct cx_status *st)
{
	f->fw_cached = false;
	while (size) {
		bool big = f->fw_bulk64 && !(addr % FL_SZ_64K) && size >= FL_SZ_64K;
		uint32_t len = big ? FL_SZ_64K : FL_SZ_4K;

		f->stats.write_cmds++;
		if (fw_mfbe(&f->chip->icmd, addr, big, st))
			return st->code;
		f->stats.erases++;
		f->stats.bytes_erased += len;
		addr += len;
		size -= len;
	}
	return CX_OK;
}

int fl_fw_program(struct flash *f, uint32_t addr, const uint8_t *buf, uint32_t len, struct cx_status *st)
{
	f->fw_cached = false;
	while (len) {
		uint32_t page = addr & ~(FL_PAGE - 1), off = addr - page;
		uint32_t n = FL_PAGE - off < len ? FL_PAGE - off : len;
		uint32_t first = off & ~3u, end = (off + n + 3) & ~3u;
		uint8_t blk[FL_PAGE], got[FL_PAGE];

		/* 0xFF programs nothing: pad to dwords with it, and skip a page of nothing else. */
		memset(blk, 0xFF, sizeof(blk));
		memcpy(blk + off, buf, n);
		while (first < end && !memcmp(blk + first, "\xff\xff\xff\xff", 4))
			first += 4;
		while (end > first && !memcmp(blk + end - 4, "\xff\xff\xff\xff", 4))
			end -= 4;
		if (end > first) {
			f->stats.write_cmds++;
			if (fw_mfba_write(&f->chip->icmd, page + first, blk + first, end - first, st))
				return st->code;
			f->stats.bytes_programmed += end - first;
			if (fw_mfba_read(&f->chip->icmd, page + first, got + first, end - first, st))
				return st->code;
			f->stats.bytes_read += end - first;
			/* Only the bytes asked: the padding programmed nothing, and may sit on bytes a
			 * program-only step keeps (write_region.c), which are not 0xFF. */
			for (uint32_t i = off > first ? off : first; i < off + n && i < end; i++)
				if (got[i] != blk[i])
					return cx_fail(st, CX_EFLASH,
						       "%s: verify failed at 0x%06x: wrote 0x%02x, the flash reads 0x%02x "
						       "(the firmware wrote nothing: is the flash write-protected?)",
						       f->chip->cr.cfg->bdf, page + i, blk[i], got[i]);
			f->stats.pages_programmed++;
		} else {
			f->stats.pages_skipped++;
		}
		addr += n;
		buf += n;
		len -= n;
	}
	return CX_OK;
}
