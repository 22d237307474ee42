/* SPDX-License-Identifier: GPL-2.0-or-later */
/* spi.h — the SPI NOR commands cxflash sends, over the gateway (hw-access.md §3.3, §3.7).
 *
 * Internal to burner/flash/: opcodes, status-register bits, the WIP timing
 * constants of mstflint, and one function per SPI command. Everything goes
 * through fl_gw_get()/fl_gw_set() (gateway.h). Status and ID reads use a
 * 4-byte data window as mstflint does (§3.1 "1–4 byte register reads"), so
 * the command words are exactly the ones derived in §3.2.
 */
#ifndef CX_FLASH_SPI_H
#define CX_FLASH_SPI_H

#include <stdint.h>

#include "flash/flash.h"

/* Opcodes, §3.3 (StFlashCommand). */
#define FL_OP_WRSR 0x01              /* write status register, §3.3/§3.7 */
#define FL_OP_PP 0x02                /* page program; SST: byte program, §3.3/§3.8 */
#define FL_OP_READ 0x03              /* read, §3.3/§3.6 */
#define FL_OP_RDSR 0x05              /* read status register, §3.3/§3.7 */
#define FL_OP_WREN 0x06              /* write enable, §3.3/§3.7 */
#define FL_OP_SSE 0x20               /* 4 KiB subsector erase, §3.3/§3.8 */
#define FL_OP_RDID 0x9F              /* JEDEC ID, §3.3/§3.4 */
#define FL_OP_RES 0xAB               /* release power-down / electronic signature, §3.3/§3.4 */
#define FL_OP_SE 0xD8                /* 64 KiB sector erase, §3.3/§3.8 */

#define FL_SZ_4K 0x1000u             /* SSE erase size (FSS_4KB), §3.4 */
#define FL_SZ_64K 0x10000u           /* SE erase size (FSS_64KB), §3.4 */
#define FL_PAGE 256u                 /* page_write: one PP command programs one page, §3.8 */
#define FL_BLOCK 16u                 /* block_write/read: one gateway transaction, §3.6/§3.8 */
#define FL_REG_WINDOW 4u             /* status/ID reads: a 4-byte data phase, §3.1 */

/* Status register, §3.7 and §4.1 item 5. */
#define FL_SR_WIP 0x01               /* write in progress (bit 0), §3.7 */
#define FL_SR_WEL 0x02               /* write enable latch (bit 1): SPI NOR datasheets; hw-access.md §3.7 */
#define FL_SR_BP_SHIFT 2             /* BP_OFFSET, §4.1 item 5 */
#define FL_SR_BP_MASK 0x1Cu          /* BP2..BP0 = bits [4:2] (BP_SIZE 3), §4.1 item 5 */
#define FL_SR_NOBODY 0xFFu           /* an undriven bus reads all ones: no flash answers (our reading) */

/* WIP polling (st_spi_wait_wip), µs and counts, §3.7 FlashConstant. */
#define FL_WIP_PP_INIT_US 10u        /* page program: 10 µs ... */
#define FL_WIP_PP_PER_BYTE_US 1u     /* ... plus 1 µs per byte written, §3.7 */
#define FL_WIP_PP_RETRY_US 10u       /* §3.7 */
#define FL_WIP_PP_RETRIES 30000u     /* §3.7 */
#define FL_WIP_ERASE_INIT_US 20000u  /* sector erase, §3.7 */
#define FL_WIP_ERASE_RETRY_US 300u   /* §3.7 */
#define FL_WIP_ERASE_RETRIES 10000u  /* §3.7 */
#define FL_WIP_SST_RETRIES 50000u    /* SST byte program: no delays, 50000 polls, §3.7 */
#define FL_WRSR_SLEEP_US 40000u      /* sleep after WRSR (SST/Atmel), §3.7 */

/* CX_EVALUE unless [addr, addr + len) lies inside the flash (flash.c). */
int fl_check_range(struct flash *f, const char *what, uint32_t addr, uint32_t len, struct cx_status *st);

/* Bank of addr (command-word bit 11) and the address inside it, §3.10. */
uint32_t fl_spi_at(struct flash *f, uint32_t addr);

/* RDSR: the status byte is data0[31:24] of a 4-byte read, §3.1/§3.7. */
int fl_spi_rdsr(struct flash *f, uint8_t *sr, struct cx_status *st);

/* RDID: manufacturer, memory type, density (the first 3 of 4 bytes), §3.4. */
int fl_spi_rdid(struct flash *f, uint8_t id[3], struct cx_status *st);

/* RES: the electronic signature. Datasheets (M25P) send it after three dummy
 * bytes, i.e. as the 4th byte of the 4-byte window; mstflint takes the 1st
 * (§3.4 step 3 with §3.1). We follow the datasheets (RES_SIG_BYTE in spi.c). */
int fl_spi_res(struct flash *f, uint8_t *es, struct cx_status *st);

/* WREN as its own transaction, §3.7. */
int fl_spi_wren(struct flash *f, struct cx_status *st);

/* WREN, WRSR with one byte, then the fixed sleep of §3.7 and a WIP check. */
int fl_spi_wrsr(struct flash *f, uint8_t val, struct cx_status *st);

/* st_spi_wait_wip, §3.7: sleep init_us, then up to retries RDSR reads,
 * retry_us apart, until WIP is 0; CX_EFLASH naming what/addr on exhaustion. */
int fl_spi_wait_wip(struct flash *f, unsigned init_us, unsigned retry_us, unsigned retries,
		    const char *what, uint32_t addr, struct cx_status *st);

#endif
