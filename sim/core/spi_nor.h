/* SPDX-License-Identifier: GPL-2.0-or-later */
/* spi_nor.h — one SPI NOR flash chip, byte by byte on the wire.
 *
 * The flash gateway (gateway.c) turns each gateway transaction into chip
 * select, bytes exchanged, and (unless CS is held) deselect. The chip acts
 * like its datasheet says: an instruction is latched by its first byte;
 * parts over 16 MiB also take 4-byte-address instructions (0x12, 0x13, 0x21,
 * 0xDC) and EN4B/EX4B (0xB7/0xE9: 4-byte mode for the 3-byte ones; power-on
 * is 3-byte mode, so a 3-byte address reaches the lower 16 MiB only);
 * program, erase and status-register writes need WEL (set by WREN) and start
 * when CS goes high; WIP stays set for the operation's datasheet time on the
 * model clock, and while it is set every instruction but RDSR is ignored;
 * programming only clears bits; page program wraps within its 256-byte page;
 * block-protect bits make writes to the protected area silently do nothing.
 * A fault can make some bits of one byte stuck: no erase or program changes them
 * (a worn cell), so a read-back after the write shows the difference.
 *
 * Parts come from a table (spi_parts.c): flashrom's way — data, not code per part.
 */
#ifndef CXSIM_SPI_NOR_H
#define CXSIM_SPI_NOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* SPI opcodes, hw-access.md §3.3. The 4-byte-address forms and the address-mode
 * instructions are those of parts over 16 MiB (W25Q256JV, MX25L25645G datasheets;
 * mstflint 4.21 mflash.c gen_4byte_address_access_commands uses 0x21, 0xDC, 0x12, 0x13). */
enum spi_op {
	SPI_WRSR = 0x01, SPI_PP = 0x02, SPI_READ = 0x03, SPI_WRDI = 0x04, SPI_RDSR = 0x05,
	SPI_WREN = 0x06, SPI_PP4 = 0x12, SPI_READ4 = 0x13, SPI_SSE = 0x20, SPI_SSE4 = 0x21,
	SPI_BE32 = 0x52, SPI_RDID = 0x9F, SPI_RES = 0xAB, SPI_EN4B = 0xB7, SPI_CE = 0xC7,
	SPI_SE = 0xD8, SPI_SE4 = 0xDC, SPI_EX4B = 0xE9,
};

#define SPI_SR_WIP 0x01
#define SPI_SR_WEL 0x02

struct spi_part {
	const char *name;        /* "W25Q16", "M25P32", "SST25VF016B", ... */
	uint8_t jedec[3];        /* manufacturer, memory type, density (RDID) */
	uint8_t res_id;          /* electronic signature returned by RES (0xAB) */
	uint32_t size;           /* bytes */
	bool erase_4k;           /* 0x20 erases 4 KiB */
	bool erase_64k;          /* 0xD8 erases 64 KiB */
	bool byte_program;       /* SST: 0x02 programs one byte per command */
	uint8_t sr_bp_mask;      /* status-register block-protect bits (BP2:0 or BP3:0 from bit 2) */
	uint32_t bp_unit;        /* bytes BP = 1 protects at the top (doubling per step); 0 = 64 KiB */
	bool addr4;              /* over 16 MiB: 4-byte opcodes, EN4B/EX4B; 3-byte mode at power-on */
	uint8_t sr_power_on;     /* SR value at power-on (SST: BP bits set) */
	/* Datasheet typical times, ns. */
	uint64_t t_page_prog;    /* one 256-byte page program (or one byte, SST) */
	uint64_t t_erase_4k, t_erase_64k, t_chip_erase, t_wrsr;
	const char *source;      /* which datasheet, which table */
};

extern const struct spi_part spi_parts[];
extern const unsigned spi_nparts;
const struct spi_part *spi_part_find(const char *name);

struct spi_nor_stats {
	uint64_t bytes_programmed, bytes_erased, bytes_read, erases;
};

struct spi_nor {
	const struct spi_part *part;
	uint8_t *mem;            /* part->size bytes, owned by the caller */
	uint8_t sr;
	uint64_t seed;
	/* The instruction in progress on the wire. */
	bool selected;
	unsigned nbytes;         /* bytes clocked since select */
	uint8_t op;
	unsigned alen;           /* address bytes of the instruction in progress: 3 or 4 */
	bool mode4;              /* EN4B given: 3-byte instructions take 4 address bytes */
	uint32_t addr;
	uint8_t wbuf[256];       /* bytes to program, by page offset */
	bool wmask[256];
	unsigned nwritten;
	/* The internal operation that holds WIP. */
	uint8_t busy_op;
	uint32_t busy_addr;
	uint64_t busy_start, busy_until;
	struct spi_nor_stats stats;
	bool changed;            /* memory was modified since the flag was cleared */
	/* Fault: the bits of stuck_mask in the byte at stuck_addr never change. */
	uint32_t stuck_addr;
	uint8_t stuck_mask;
	/* Told the range of every change to mem, right after it is made (program,
	 * erase, an interrupted operation at power loss). NULL: nobody listens. */
	void (*sink)(void *ctx, size_t off, size_t len);
	void *sink_ctx;
};

/* Power-on state; mem keeps its contents. */
void spi_nor_init(struct spi_nor *f, const struct spi_part *p, uint8_t *mem, uint64_t seed,
		  bool protect);

/* Make the bits of mask in the byte at addr stuck (mask 0: none). Kept across
 * spi_nor_power_loss(); spi_nor_init() clears it. */
void spi_nor_set_stuck(struct spi_nor *f, uint32_t addr, uint8_t mask);

/* Report every change to mem to sink (NULL: none). spi_nor_init() clears it. */
void spi_nor_set_sink(struct spi_nor *f, void (*sink)(void *ctx, size_t off, size_t len), void *ctx);

void spi_nor_select(struct spi_nor *f, uint64_t now);
uint8_t spi_nor_xfer(struct spi_nor *f, uint8_t mosi, uint64_t now);
void spi_nor_deselect(struct spi_nor *f, uint64_t now);

/* Power lost at 'now': an operation in flight leaves a partially programmed
 * page, or an erased sector whose bytes are undefined (deterministic per seed). */
void spi_nor_power_loss(struct spi_nor *f, uint64_t now);

#endif
