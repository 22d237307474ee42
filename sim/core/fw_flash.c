/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fw_flash.c — the running firmware's own SPI transactions on the card's flash, for the
 * flash access registers (MFPA, MFBA, MFBE; access_regs_cx4.c).
 *
 * The firmware of a ConnectX-4/4 Lx/5 owns the flash while it runs (hw-access.md §3.14):
 * a tool asks it for reads, writes and erases, and it drives the same chip the gateway
 * does. So these functions speak to the same SPI NOR model (spi_nor.c) byte by byte, as
 * gateway.c does: RDID, READ, WREN + page program, WREN + erase, and RDSR polls until WIP
 * clears, all on a clock the caller passes in (*t) and gets back moved on, so that a
 * register's ICMD command lasts as long as the flash work it did. Block protection,
 * stuck bits and power cuts act on these transactions as on the gateway's: a write to a
 * protected area is ignored by the chip, and the firmware does not notice (UNCONFIRMED:
 * real firmware may read back or check BP bits; what it then answers is not public).
 *
 * Parts over 16 MiB get the 4-byte-address opcodes (0x13, 0x12, 0x21, 0xdc), whatever
 * mode EN4B left the part in; which ones the real firmware uses is UNCONFIRMED.
 */
#include "card.h"

#define POLL_NS 10000            /* the firmware's RDSR poll interval (UNCONFIRMED guess) */
#define STEP_NS 100              /* one SPI transaction's bus time (a guess; µs scale is ICMD's) */
#define PAGE 256                 /* page program wraps within 256 bytes (datasheets) */
#define ERASE_4K 0x1000
#define ERASE_64K 0x10000
#define ADDR4_ABOVE (16u << 20)  /* parts larger than 16 MiB take 4-byte addresses */

static void sync_stats(struct cxsim_card *c)
{
	c->cnt.bytes_programmed = c->nor.stats.bytes_programmed;
	c->cnt.bytes_erased = c->nor.stats.bytes_erased;
	c->cnt.bytes_read = c->nor.stats.bytes_read;
	c->cnt.erases = c->nor.stats.erases;
}

/* Wait for WIP to clear: RDSR until the bit drops, the clock moving POLL_NS a poll. */
static void wait_ready(struct cxsim_card *c, uint64_t *t)
{
	for (;;) {
		spi_nor_select(&c->nor, *t);
		spi_nor_xfer(&c->nor, SPI_RDSR, *t);
		uint8_t sr = spi_nor_xfer(&c->nor, 0, *t);
		spi_nor_deselect(&c->nor, *t);
		if (!(sr & SPI_SR_WIP))
			return;
		*t += POLL_NS;
	}
}

static void op_addr(struct cxsim_card *c, uint8_t op3, uint8_t op4, uint32_t addr, uint64_t t)
{
	bool four = c->flash_size > ADDR4_ABOVE;

	spi_nor_xfer(&c->nor, four ? op4 : op3, t);
	if (four)
		spi_nor_xfer(&c->nor, (uint8_t)(addr >> 24), t);
	for (int shift = 16; shift >= 0; shift -= 8)
		spi_nor_xfer(&c->nor, (uint8_t)(addr >> shift), t);
}

static void wren(struct cxsim_card *c, uint64_t t)
{
	spi_nor_select(&c->nor, t);
	spi_nor_xfer(&c->nor, SPI_WREN, t);
	spi_nor_deselect(&c->nor, t);
}

static bool inside(const struct cxsim_card *c, uint32_t addr, uint32_t n)
{
	return addr < c->flash_size && n <= c->flash_size - addr;
}

int sim_fw_flash_read(struct cxsim_card *c, uint32_t addr, uint8_t *buf, unsigned n, uint64_t *t)
{
	if (!inside(c, addr, n))
		return -1;
	wait_ready(c, t);
	spi_nor_select(&c->nor, *t);
	op_addr(c, SPI_READ, SPI_READ4, addr, *t);
	for (unsigned i = 0; i < n; i++)
		buf[i] = spi_nor_xfer(&c->nor, 0, *t);
	spi_nor_deselect(&c->nor, *t);
	*t += STEP_NS;
	sync_stats(c);
	return 0;
}

int sim_fw_flash_program(struct cxsim_card *c, uint32_t addr, const uint8_t *buf, unsigned n,
			 uint64_t *t)
{
	if (!inside(c, addr, n))
		return -1;
	while (n) {
		unsigned k = PAGE - addr % PAGE; /* never across a page: it would wrap */

		if (k > n)
			k = n;
		wait_ready(c, t);
		wren(c, *t);
		spi_nor_select(&c->nor, *t);
		op_addr(c, SPI_PP, SPI_PP4, addr, *t);
		for (unsigned i = 0; i < k; i++)
			spi_nor_xfer(&c->nor, buf[i], *t);
		spi_nor_deselect(&c->nor, *t);
		*t += STEP_NS;
		addr += k;
		buf += k;
		n -= k;
	}
	wait_ready(c, t);
	sync_stats(c);
	return 0;
}

int sim_fw_flash_erase(struct cxsim_card *c, uint32_t addr, uint32_t size, uint64_t *t)
{
	if (!inside(c, addr, size) || (size != ERASE_4K && size != ERASE_64K) || addr % size)
		return -1;
	wait_ready(c, t);
	wren(c, *t);
	spi_nor_select(&c->nor, *t);
	if (size == ERASE_4K)
		op_addr(c, SPI_SSE, SPI_SSE4, addr, *t);
	else
		op_addr(c, SPI_SE, SPI_SE4, addr, *t);
	spi_nor_deselect(&c->nor, *t);
	*t += STEP_NS;
	wait_ready(c, t);
	sync_stats(c);
	return 0;
}

uint32_t sim_fw_flash_jedec(struct cxsim_card *c, uint64_t *t)
{
	uint32_t id = 0;

	wait_ready(c, t);
	spi_nor_select(&c->nor, *t);
	spi_nor_xfer(&c->nor, SPI_RDID, *t);
	for (int i = 0; i < 3; i++)
		id |= (uint32_t)spi_nor_xfer(&c->nor, 0, *t) << (8 * i);
	spi_nor_deselect(&c->nor, *t);
	*t += STEP_NS;
	return id;
}
