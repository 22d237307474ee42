/* SPDX-License-Identifier: GPL-2.0-or-later */
/* flash.h — the SPI NOR flash of a ConnectX-2/-3/-3 Pro: identify, read, erase, program.
 *
 * The flash sits behind the chip's flash gateway (gateway.h, hw-access.md §3);
 * this layer speaks SPI NOR through it the way mstflint's mflash does:
 *
 *  - flash_open() ends any SPI command a killed tool left open, waits for an
 *    operation such a tool left running, reads the JEDEC ID (RES for parts
 *    too old for RDID) and looks the part up in parts.c. It writes nothing
 *    to the flash: mstflint's status-register writes at init (§3.4 step 8)
 *    are deferred to flash_prepare_write().
 *  - flash_read() reads any range with 16-byte READ transactions (§3.6).
 *  - flash_is_write_protected() reads the block-protect bits (§4.1 item 5).
 *  - flash_prepare_write() makes the part writable where mstflint would
 *    (SST: WRSR 0x80; Atmel: WRSR 0x00, §3.4 step 8) and otherwise refuses a
 *    part whose BP bits are set: a protected part ignores erase and program
 *    without an error, so writing would only be caught by the verify, after
 *    the good image had been erased elsewhere.
 *  - flash_erase() and flash_program() do the §3.8 sequences: WREN, command,
 *    WIP poll with a bounded number of retries (style.md Lessons 5); program
 *    skips all-0xFF pages and reads back every page it programs.
 *    Both call flash_prepare_write() first if the caller did not.
 *
 * Locking: the caller holds the flash semaphores (chip_lock(), §3.5) around
 * every use of a struct flash, and for a write session from the first erase
 * to the last program: a page program is several gateway transactions with
 * chip select held, which another agent must not interleave. These functions
 * never take or release the semaphores. Signals are the caller's business too.
 *
 * Errors (util/status.h): CX_EFLASH for an unknown or absent part, a gateway
 * stuck busy, a WIP timeout or a verify mismatch; CX_EPROTECTED for write
 * protection; CX_ENODEV when the card stops answering config cycles;
 * CX_EVALUE for a range outside the flash or not aligned as required.
 *
 * Only bank 0 is used (one flash: mstflint's default on ConnectX, §3.10).
 *
 * A ConnectX-4/4 Lx/5 whose firmware runs (chip->fw_access) is the exception: its
 * firmware owns the SPI bus, and every function here asks it instead (fw_access.h,
 * hw-access.md §3.14). There is no status register to read then: write protection is
 * not seen before a write (flash_is_write_protected says false, flash_status fails).
 */
#ifndef CX_FLASH_FLASH_H
#define CX_FLASH_FLASH_H

#include <stdbool.h>
#include <stdint.h>

#include "dev/chip.h"
#include "flash/gateway.h"
#include "flash/parts.h"

struct flash_stats {
	uint64_t bytes_read;         /* bytes read from the flash (whole 16-byte blocks) */
	uint64_t bytes_programmed;   /* data bytes sent in program commands (0xFF padding included) */
	uint64_t bytes_erased;
	uint64_t erases;             /* erase commands */
	uint64_t pages_programmed;   /* 256-byte pages written (SST: pages with a byte written) */
	uint64_t pages_skipped;      /* 256-byte pages left alone: all 0xFF */
	uint64_t wip_polls;          /* RDSR reads waiting for WIP to clear */
	/* Erase and program commands about to be sent, counted before they go: one
	 * that then fails (its WIP poll, its verify, the gateway) may have changed
	 * the flash, and erases/pages_programmed count only those that finished. */
	uint64_t write_cmds;
};

struct flash {
	struct chip *chip;
	struct fl_gw gw;             /* also counts transactions and BUSY polls */
	const struct fl_part *part;
	uint8_t jedec[3];            /* RDID answer: manufacturer, type, density */
	bool by_res;                 /* identified by RES (jedec[] was all 0xFF/0x00) */
	uint8_t res;                 /* the RES signature, if by_res */
	unsigned log2size;
	uint32_t size;               /* bytes cxflash reaches: the part, or 16 MiB of a larger one (§3.13) */
	bool via_fw;                 /* a running ConnectX-4/4 Lx/5: asked of its firmware (fw_access.h) */
	bool fw_bulk64;              /* ... which erases 64 KiB at once (MFPA) */
	bool fw_cached;              /* ... fw_cache holds the 256 bytes at fw_cache_addr */
	uint32_t fw_cache_addr;
	uint8_t fw_cache[256];
	bool write_ready;            /* flash_prepare_write() succeeded */
	bool may_unprotect;          /* set by the caller once a person agreed: prepare clears the BP bits */
	bool unprotected;            /* ... and it did; sr_before is what the status register held */
	uint8_t sr_before;
	struct flash_stats stats;
};

/* Identify the flash behind c's gateway. No erase, program or status write. */
int flash_open(struct flash *f, struct chip *c, struct cx_status *st);

/* Wait until the part has finished an erase or program still running (one
 * a failed or killed write left behind: it decodes nothing but RDSR until
 * then, and reads as 0xFF). CX_OK at once when it is idle. */
int flash_wait_idle(struct flash *f, struct cx_status *st);

/* Read len bytes at addr (any alignment; addr + len <= size). */
int flash_read(struct flash *f, uint32_t addr, uint8_t *buf, uint32_t len, struct cx_status *st);
/* The bytes one read transaction fetches, aligned to their size: 16 through the gateway, 256
 * through the firmware's MFBA. A reader that keeps track of what it read in these blocks asks
 * for no byte twice (ops/devimage_fs3.h). */
uint32_t flash_read_block(const struct flash *f);

/* *wp = the status register's block-protect bits [4:2] are not all 0. SST
 * parts power on protected and read true until flash_prepare_write(). */
int flash_is_write_protected(struct flash *f, bool *wp, struct cx_status *st);

/* The status register as it reads now (RDSR, §3.7): WIP, WEL and the BP bits. */
int flash_status(struct flash *f, uint8_t *sr, struct cx_status *st);
/* true if flash_prepare_write() clears protection itself on this part (SST, Atmel). */
bool flash_clears_protection(const struct flash *f);

/* What flash_prepare_write() can tell without writing anything (a dry run):
 * CX_EPROTECTED for a part whose protection cxflash does not clear. A part
 * that flash_prepare_write() unprotects passes; whether its /WP pin lets it
 * is only known by trying. */
int flash_check_writable(struct flash *f, struct cx_status *st);

/* Make the flash writable or refuse (CX_EPROTECTED); idempotent. With may_unprotect,
 * a part whose BP bits are set gets them cleared (WRSR with the other bits kept, as
 * mstflint's `hw set Flash0.WriteProtected=Disabled` does: mflash.c
 * mf_set_write_protect_direct_access) instead of a refusal; a part that keeps them
 * (its /WP pin held low) is CX_EPROTECTED. */
int flash_prepare_write(struct flash *f, struct cx_status *st);

/* Put back the status register flash_prepare_write() unprotected (a no-op otherwise). */
int flash_reprotect(struct flash *f, struct cx_status *st);

/* The smallest erase this part does: 4 KiB, or 64 KiB (M25P, SST, S25FL-P). */
uint32_t flash_erase_unit(const struct flash *f);

/* Erase [addr, addr + size): both multiples of flash_erase_unit(). Uses 64 KiB
 * erases where the part has them and the range allows, 4 KiB ones elsewhere. */
int flash_erase(struct flash *f, uint32_t addr, uint32_t size, struct cx_status *st);

/* Program len bytes at addr (any alignment) into erased flash, then read
 * every programmed page back: CX_EFLASH "verify failed at 0x..." on a
 * mismatch. NOR programming only clears bits, so the range must have been
 * erased; all-0xFF pages are skipped and not read back. */
int flash_program(struct flash *f, uint32_t addr, const uint8_t *buf, uint32_t len,
		  struct cx_status *st);

/* "W25QxxBV, 2 MiB (JEDEC ef 40 15)" */
const char *flash_describe(const struct flash *f, char *buf, unsigned len);

#endif
