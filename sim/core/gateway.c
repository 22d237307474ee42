/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gateway.c — the flash gateway at crspace 0xf0400 (hw-access.md §3.1, §3.2).
 *
 * Writing the command word with BUSY set runs one SPI transaction on the
 * chip: select (unless the previous one held chip select), the opcode if the
 * command phase is on, three address bytes from 0xf0404 if the address phase
 * is on, then 2^MSIZE data bytes into or out of the four data registers
 * (first flash byte = most significant byte of data0), and deselect unless
 * CS_HOLD is set. FLASH_ENABLE (bit 13) must be set on these chips or
 * nothing reaches the flash. Bank 1 (bit 11) has no chip: reads see 0xFF.
 *
 * A client that dies between chained transactions leaves chip select
 * asserted; the next transaction's opcode and address then reach the chip as
 * more data of the unfinished command (a page program writes them when CS
 * finally drops). The gateway has no "deselect" of its own in hw-access.md,
 * so the model clocks on, as wires would: UNCONFIRMED on real silicon.
 *
 * The 5th generation (CX4, 4 Lx, 5; hw-access.md §3.13), as mstflint 4.21
 * drives it (mflash.c fifth_gen_flash_init, connectib_flash_lock, is4_flash_lock;
 * mflash_gw.c cntx_exec_cmd): the same registers, but
 *  - the lock is bit 31 of the command register: a read returns it and, when it was
 *    clear, sets it (read-to-lock); a command write keeps it as bit 31 says, so writing
 *    0 releases it. There is no 0xf03fc semaphore in the gateway's way: gw_without_sem
 *    counts transactions started while the lock was not held;
 *  - FLASH_ENABLE does not exist (mflash_dev_capability.c is_flash_enable_needed: 0):
 *    bit 13 is ignored;
 *  - 0xf0408 [25:0] (cache-replacement offset) and 0xf040c [23:16] (its command) read
 *    0 in recovery mode: no firmware runs, so nothing waits to be replaced and mstflint
 *    takes the direct-access path (check_cache_replacement_guard). With firmware running
 *    (hw-access.md §3.14) they read non-zero, the firmware fetching its code from the
 *    flash, so mstflint leaves the gateway alone and asks the firmware (ICMD, MFBA). The
 *    values are UNCONFIRMED (any non-zero one sends mstflint that way). Writes are
 *    ignored, counted as unmodelled;
 *  - the fault gw_lock_held: another agent holds the lock from power-on; bit 31 reads 1
 *    and a read does not take it, until a client writes the command register with bit 31
 *    clear (a forced release). The running firmware needs the gateway for its own flash
 *    work, so meanwhile its flash registers answer "busy" (access_regs_cx4.c);
 *  - 0xf0420 bit 0 enables cache replacement; it reads 1 at power-on (UNCONFIRMED:
 *    mstflint clears it while it holds the lock and sets it again on release, so
 *    that is the state it expects to find). Transactions while it is set are counted
 *    (gw_cache_rep_on): on a card with firmware they could race the cache.
 */
#include "card.h"

#define GW_CMD 0xF0400
#define GW_ADDR 0xF0404
#define GW_DATA0 0xF0410
#define GW_DATA3 0xF041C
#define GW_CACHE_REP_OFF 0xF0408   /* 5th gen: cache-replacement offset [25:0], mflash_pack_layer.h */
#define GW_CACHE_REP_CMD 0xF040C   /* 5th gen: cache-replacement command [23:16], ditto */
#define GW_CACHE_REP_EN 0xF0420    /* 5th gen: bit 0 cache replacement on, HCR_CACHE_REPLACEMNT_EN_ADDR */
#define GW_CACHE_REP_ON 0x1u       /* mflash.c disable_cache_replacement: bit 0 */
#define GW_LOCK (1u << 31)         /* 5th gen: HBO_LOCK, mflash.c is4_flash_lock */
#define GUARD_OFF_RUNNING 0x4000u  /* with firmware: an offset being fetched (UNCONFIRMED value) */
#define GUARD_CMD_RUNNING (0x0Bu << 16) /* with firmware: a fetch command in [23:16] (UNCONFIRMED:
					 * the SPI fast-read opcode, a guess) */

#define GW_READ_OP (1u << 0)       /* data phase reads the flash, §3.1 */
#define GW_CMD_PHASE (1u << 2)
#define GW_ADDR_PHASE (1u << 3)
#define GW_DATA_PHASE (1u << 4)
#define GW_CS_HOLD (1u << 5)
#define GW_MSIZE_SHIFT 8           /* bits 10:8: 2^MSIZE data bytes */
#define GW_MSIZE_MASK 0x7u
#define GW_CHIP_SELECT (1u << 11)  /* bank */
#define GW_FLASH_ENABLE (1u << 13) /* must be 1 on CX2/CX3/CX3 Pro */
#define GW_ADDR_4BYTE (1u << 14)
#define GW_OPCODE_SHIFT 16         /* bits 23:16 */
#define GW_BUSY (1u << 30)
#define GW_DATA_MAX 16             /* four data registers */

void sim_gw_reset(struct cxsim_card *c)
{
	c->gw = (struct gateway){0};
	if (c->chip->gen5_gw) {
		c->gw.cache_rep_en = GW_CACHE_REP_ON;
		c->gw.other_holds = c->p.gw_lock_held;
	}
}

bool sim_gw_other_holds(const struct cxsim_card *c)
{
	return c->gw.other_holds;
}

/* Reading the 5th generation's command register: the lock as it was, and taken (unless
 * another agent holds it: then it reads 1 and stays theirs). */
static uint32_t gen5_cmd_read(struct gateway *g)
{
	uint32_t v = (g->cmd & ~GW_LOCK) | (g->locked || g->other_holds ? GW_LOCK : 0);

	if (!g->other_holds)
		g->locked = true;
	return v;
}

static bool gen5_read(struct cxsim_card *c, uint32_t addr, uint32_t *v)
{
	if (!c->chip->gen5_gw)
		return false;
	switch (addr) {
	case GW_CMD: *v = gen5_cmd_read(&c->gw); return true;
	case GW_CACHE_REP_OFF: *v = sim_fw5_running(c) ? GUARD_OFF_RUNNING : 0; return true;
	case GW_CACHE_REP_CMD: *v = sim_fw5_running(c) ? GUARD_CMD_RUNNING : 0; return true;
	case GW_CACHE_REP_EN: *v = c->gw.cache_rep_en; return true;
	default: return false;
	}
}

uint32_t sim_gw_read(struct cxsim_card *c, uint32_t addr)
{
	uint32_t v;

	if (gen5_read(c, addr, &v))
		return v;
	if (addr == GW_CMD)
		return c->gw.cmd;
	if (addr == GW_ADDR)
		return c->gw.addr;
	if (addr >= GW_DATA0 && addr <= GW_DATA3 && !(addr & 3))
		return c->gw.data[(addr - GW_DATA0) / 4];
	c->cnt.unmodelled++;
	sim_card_log(c, "gateway read of unmodelled register 0x%05x", addr);
	return 0;
}

static uint8_t data_byte(const struct gateway *g, unsigned i)
{
	return (uint8_t)(g->data[i / 4] >> (8 * (3 - i % 4)));
}

static void set_data_byte(struct gateway *g, unsigned i, uint8_t v)
{
	unsigned shift = 8 * (3 - i % 4);

	g->data[i / 4] = (g->data[i / 4] & ~(0xFFu << shift)) | (uint32_t)v << shift;
}

static void sync_stats(struct cxsim_card *c)
{
	c->cnt.bytes_programmed = c->nor.stats.bytes_programmed;
	c->cnt.bytes_erased = c->nor.stats.bytes_erased;
	c->cnt.bytes_read = c->nor.stats.bytes_read;
	c->cnt.erases = c->nor.stats.erases;
}

static void run(struct cxsim_card *c, uint32_t cmd)
{
	struct gateway *g = &c->gw;
	bool bank1 = cmd & GW_CHIP_SELECT;
	uint8_t op = (uint8_t)(cmd >> GW_OPCODE_SHIFT);
	unsigned n = 1u << ((cmd >> GW_MSIZE_SHIFT) & GW_MSIZE_MASK);

	c->cnt.gw_cmds++;
	/* Faults may change at run time (cxsim_params_mut): the chip sees them now. */
	spi_nor_set_stuck(&c->nor, c->p.stuck_addr, c->p.stuck_mask);
	if (cmd & GW_CMD_PHASE)
		c->cnt.gw_by_opcode[op]++;
	if (c->chip->gen5_gw ? !g->locked : !sim_gpio_sem_held(c))
		c->cnt.gw_without_sem++;
	if (c->chip->gen5_gw && (g->cache_rep_en & GW_CACHE_REP_ON))
		c->cnt.gw_cache_rep_on++;
	if (!(cmd & GW_FLASH_ENABLE) && !c->chip->gen5_gw) {
		sim_card_log(c, "gateway command 0x%08x without FLASH_ENABLE: the flash sees nothing", cmd);
		return;
	}
	if (n > GW_DATA_MAX) {
		sim_card_log(c, "gateway command 0x%08x: MSIZE above 16 bytes, clipped", cmd);
		n = GW_DATA_MAX;
	}
	if (bank1) {
		/* No chip on bank 1: nothing answers, the data lines float high. */
		if ((cmd & GW_DATA_PHASE) && (cmd & GW_READ_OP))
			for (unsigned i = 0; i < n; i++)
				set_data_byte(g, i, 0xFF);
		return;
	}
	if (!g->cs_held)
		spi_nor_select(&c->nor, c->now);
	if (cmd & GW_CMD_PHASE)
		spi_nor_xfer(&c->nor, op, c->now);
	if (cmd & GW_ADDR_PHASE) {
		if (cmd & GW_ADDR_4BYTE)
			spi_nor_xfer(&c->nor, (uint8_t)(g->addr >> 24), c->now);
		for (int shift = 16; shift >= 0; shift -= 8)
			spi_nor_xfer(&c->nor, (uint8_t)(g->addr >> shift), c->now);
	}
	if (cmd & GW_DATA_PHASE) {
		for (unsigned i = 0; i < n; i++) {
			if (cmd & GW_READ_OP)
				set_data_byte(g, i, spi_nor_xfer(&c->nor, 0x00, c->now));
			else
				spi_nor_xfer(&c->nor, data_byte(g, i), c->now);
		}
	}
	g->cs_held = cmd & GW_CS_HOLD;
	if (!g->cs_held)
		spi_nor_deselect(&c->nor, c->now);
	sync_stats(c);
}

void sim_gw_write(struct cxsim_card *c, uint32_t addr, uint32_t val)
{
	struct gateway *g = &c->gw;

	if (addr == GW_ADDR) {
		g->addr = val;
		return;
	}
	if (addr >= GW_DATA0 && addr <= GW_DATA3 && !(addr & 3)) {
		g->data[(addr - GW_DATA0) / 4] = val;
		return;
	}
	if (c->chip->gen5_gw && addr == GW_CACHE_REP_EN) {
		g->cache_rep_en = val;
		return;
	}
	if (addr != GW_CMD) {
		c->cnt.unmodelled++;
		sim_card_log(c, "gateway write of unmodelled register 0x%05x", addr);
		return;
	}
	g->cmd = val;
	if (c->chip->gen5_gw) {
		g->locked = val & GW_LOCK;
		if (!(val & GW_LOCK))
			g->other_holds = false; /* a forced release frees whoever held it */
	}
	if (!(val & GW_BUSY))
		return;
	if (c->p.stuck_busy)
		return; /* the fault: BUSY stays set and the transaction never runs */
	run(c, val);
	g->cmd = val & ~GW_BUSY;
}
