/* SPDX-License-Identifier: GPL-2.0-or-later */
/* spi_nor.c — one SPI NOR flash chip, byte by byte on the wire (spec: spi_nor.h).
 *
 * What the wire does (datasheet behaviour of M25P / W25Q / SST25VF...B):
 *  - The first byte after select is the instruction. While WIP is set every
 *    instruction but RDSR is not decoded: it returns high-Z (0xFF) and does nothing.
 *    Opcodes the part lacks (0x20 on M25P, 0x52 everywhere, EWSR on non-SST) are
 *    likewise not decoded.
 *  - MISO is high-Z (read as 0xFF) whenever the chip does not drive it: during the
 *    instruction, address and dummy bytes, and after the defined ID bytes.
 *  - RDID: manufacturer, type, density; then high-Z.
 *  - RES (0xAB), ST/Winbond: three dummy bytes, then the signature, repeated for as
 *    long as it is clocked. mstflint reads RES as a 4-byte window and takes the first
 *    byte after the opcode (hw-access.md §3.1/§3.4), which per the datasheets is a dummy
 *    byte; the model gives it 0xFF (high-Z) rather than inventing a value.
 *    SST: 0xAB takes a 3-byte address and then returns manufacturer (even address) and
 *    device ID (odd address), toggling.
 *  - RDSR repeats the live status register while clocked (WIP drops mid-transaction
 *    when the clock passes the end of the operation).
 *  - WREN, WRDI, EWSR, CE: executed at deselect only after exactly one byte; erase
 *    only after exactly 4 bytes; WRSR only after exactly 2; PP after 4 + at least one
 *    data byte. Otherwise the instruction is not executed (WEL is kept).
 *  - PP, erase, WRSR need WEL (SST WRSR: WEL, or EWSR as the instruction just before).
 *    A PP/erase that touches the block-protected area is refused: nothing happens but
 *    WEL is cleared. Chip erase is refused if any area is protected.
 *  - An accepted operation sets WIP for the part's typical time; its effect on the
 *    array (or SR) is applied when the model clock reaches busy_until, on the first
 *    call that sees it; WIP and WEL clear then.
 *  - PP wraps within its 256-byte page (the last byte sent for an offset wins); SST PP
 *    programs only the first data byte, at the address given.
 *  - Chip erase answers to 0xC7 and 0x60 on every part (M25P documents only 0xC7).
 *  - SRWD/BPL are plain writable bits: /WP is not modelled (taken as high).
 *  - W25Q TB/SEC/CMP, SR2 and volatile-SR writes are not modelled (SR1 bits 6:5 read 0;
 *    on 4-bit-BP parts bit 5 is BP3). RDSR2/RDSR3/RDCR (0x35, 0x15) are not decoded.
 *  - Parts over 16 MiB (addr4): 0x13/0x12/0x21/0xDC take 4 address bytes and act as
 *    READ/PP/SSE/SE; EN4B (0xB7) makes the 3-byte instructions take 4 too, EX4B
 *    (0xE9) undoes it; power-on (and power loss) is 3-byte mode. Without 4-byte
 *    addressing the address wraps within the lower 16 MiB (the high byte is 0).
 *
 * Stuck bits (a fault, spi_nor_set_stuck): in one byte, the bits of a mask keep their
 * value through every erase and program (also an interrupted one). The command itself
 * behaves normally (WIP, timing, counters); only a read-back shows it.
 *
 * Power loss: a page program keeps the prefix of its bytes (in wire order, starting at
 * the start address and wrapping in the page) proportional to the time elapsed; an
 * erase leaves every byte of its region a pseudo-random function of (seed, address).
 * Then the chip is in power-on state: SR = power-on value, with the non-volatile SR bits
 * of ST/Winbond parts (SRWD, BP2:0) kept as they were — only SST's BP bits are volatile.
 *
 * Sink (spi_nor_set_sink): after every change to the array — a program that changed
 * bytes (the range from the first to the last changed page offset), an erase (its whole
 * region), an interrupted program or erase at power loss — the sink hears the range, so
 * a front end can write the change through to a backing file at once.
 */
#include <limits.h>
#include <string.h>

#include "spi_nor.h"

#define SPI_EWSR 0x50      /* SST: enable write status register */
#define SPI_CE_60 0x60     /* chip erase, second opcode */
#define OP_NONE 0x00       /* nothing decoded (ignored, unknown or not executed) */
#define HIGHZ 0xFF         /* what the gateway reads when the chip does not drive MISO */
#define SR_SRWD 0x80       /* SRWD (ST/Winbond), BPL (SST) */
#define PAGE 256u
#define SZ_4K 0x1000u
#define SZ_64K 0x10000u

/* The SST 25VF command set: one byte per PP, EWSR, RES with an address, volatile BP
 * bits. The table marks these parts by byte_program. */
static bool is_sst(const struct spi_part *p)
{
	return p->byte_program;
}

static uint8_t sr_writable(const struct spi_part *p)
{
	return (uint8_t)(p->sr_bp_mask | SR_SRWD);
}

static uint8_t sr_nonvolatile(const struct spi_part *p)
{
	return is_sst(p) ? 0 : sr_writable(p);
}

/* Bytes protected at the top of the array for the BP value in sr. M25P80/16/32,
 * W25Q80/16/32 (TB=0) and SST25VF080B/016B/032B tables all read: BP=0 none, BP=n upper
 * 64 KiB << (n-1), capped at the whole array; the 16 and 32 MiB parts the same with
 * their own unit (part->bp_unit: W25Q128JV 256 KiB) and BP3:0 where they have it (e.g. SST25VF016B: 1 → 1F0000-1FFFFF,
 * 2 → 1E0000-, 3 → 1C0000-, 4 → 180000-, 5 → 100000-, 6 and 7 → all). */
static uint32_t protected_bytes(const struct spi_part *p, uint8_t sr)
{
	uint32_t unit = p->bp_unit ? p->bp_unit : SZ_64K;
	unsigned shift = 0;
	unsigned bp;

	if (!p->sr_bp_mask)
		return 0;
	while (!((p->sr_bp_mask >> shift) & 1))
		shift++;
	bp = (unsigned)(sr & p->sr_bp_mask) >> shift;
	if (bp == 0)
		return 0;
	if (bp - 1 >= 16 || ((uint64_t)unit << (bp - 1)) >= p->size)
		return p->size;
	return unit << (bp - 1);
}

static bool touches_protected(const struct spi_nor *f, uint32_t base, uint32_t len)
{
	uint32_t prot = protected_bytes(f->part, f->sr);

	return prot && (uint64_t)base + len > f->part->size - prot;
}

/* Deterministic "undefined" byte for an interrupted erase. */
static uint8_t undefined_byte(uint64_t seed, uint32_t addr)
{
	uint64_t z = seed ^ ((uint64_t)addr * 0x9E3779B97F4A7C15ull) ^ 0xD1B54A32D192ED03ull;

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	z ^= z >> 31;
	return (uint8_t)(z >> 56);
}

/* The value a byte takes when a write turns old into new: stuck bits stay. */
static uint8_t settle(const struct spi_nor *f, uint32_t addr, uint8_t old, uint8_t new)
{
	if (f->stuck_mask && addr == f->stuck_addr)
		return (uint8_t)((new & ~f->stuck_mask) | (old & f->stuck_mask));
	return new;
}

/* Tell the sink that mem[off, off + len) changed. */
static void report(const struct spi_nor *f, uint32_t off, uint32_t len)
{
	if (f->sink && len)
		f->sink(f->sink_ctx, off, len);
}

/* Program the first k page bytes in wire order (wmask set), starting at the start
 * address and wrapping within the page. */
static void program(struct spi_nor *f, unsigned k)
{
	uint32_t page = f->busy_addr & ~(PAGE - 1);
	unsigned start = f->busy_addr & (PAGE - 1);
	unsigned done = 0, lo = PAGE, hi = 0;

	for (unsigned i = 0; i < PAGE && done < k; i++) {
		unsigned off = (start + i) & (PAGE - 1);
		uint8_t *m = &f->mem[page + off];
		uint8_t v;

		if (!f->wmask[off])
			continue;
		v = settle(f, page + off, *m, *m & f->wbuf[off]);
		if (v != *m) {
			*m = v;
			f->changed = true;
			if (off < lo)
				lo = off;
			if (off + 1 > hi)
				hi = off + 1;
		}
		f->stats.bytes_programmed++;
		done++;
	}
	if (lo < hi)
		report(f, page + lo, hi - lo);
}

static uint32_t erase_len(const struct spi_nor *f, uint8_t op)
{
	switch (op) {
	case SPI_SSE:
		return SZ_4K;
	case SPI_SE:
		return SZ_64K;
	default:
		return f->part->size;
	}
}

static void complete(struct spi_nor *f)
{
	uint32_t len;

	switch (f->busy_op) {
	case SPI_PP:
		program(f, PAGE);
		break;
	case SPI_SSE:
	case SPI_SE:
	case SPI_CE:
		len = erase_len(f, f->busy_op);
		for (uint32_t i = 0; i < len; i++) {
			uint32_t a = f->busy_addr + i;
			uint8_t v = settle(f, a, f->mem[a], 0xFF);

			if (v != f->mem[a]) {
				f->mem[a] = v;
				f->changed = true;
			}
		}
		report(f, f->busy_addr, len);
		f->stats.bytes_erased += len;
		f->stats.erases++;
		break;
	case SPI_WRSR: {
		uint8_t w = sr_writable(f->part);

		f->sr = (uint8_t)((f->sr & ~w) | (f->busy_addr & w));
		break;
	}
	default:
		break;
	}
	f->busy_op = 0;
	f->sr &= (uint8_t)~(SPI_SR_WIP | SPI_SR_WEL);
}

/* Finish the internal operation if the clock has reached its end. */
static void tick(struct spi_nor *f, uint64_t now)
{
	if (f->busy_op && now >= f->busy_until)
		complete(f);
}

static void start(struct spi_nor *f, uint8_t op, uint32_t addr, uint64_t t, uint64_t now)
{
	f->busy_op = op;
	f->busy_addr = addr;
	f->busy_start = now;
	f->busy_until = now + t;
	f->sr |= SPI_SR_WIP;
}

static void power_on(struct spi_nor *f, uint8_t sr)
{
	f->sr = sr;
	f->selected = false;
	f->nbytes = 0;
	f->op = OP_NONE;
	f->alen = 3;
	f->mode4 = false;
	f->addr = 0;
	memset(f->wbuf, 0xFF, sizeof f->wbuf);
	memset(f->wmask, 0, sizeof f->wmask);
	f->nwritten = 0;
	f->busy_op = 0;
	f->busy_addr = 0;
	f->busy_start = f->busy_until = 0;
}

void spi_nor_init(struct spi_nor *f, const struct spi_part *p, uint8_t *mem, uint64_t seed,
		  bool protect)
{
	memset(f, 0, sizeof *f);
	f->part = p;
	f->mem = mem;
	f->seed = seed;
	power_on(f, (uint8_t)(p->sr_power_on | (protect ? p->sr_bp_mask : 0)));
}

void spi_nor_set_stuck(struct spi_nor *f, uint32_t addr, uint8_t mask)
{
	f->stuck_addr = addr;
	f->stuck_mask = mask;
}

void spi_nor_set_sink(struct spi_nor *f, void (*sink)(void *ctx, size_t off, size_t len), void *ctx)
{
	f->sink = sink;
	f->sink_ctx = ctx;
}

void spi_nor_select(struct spi_nor *f, uint64_t now)
{
	tick(f, now);
	if (f->selected)
		return; /* CS already low: the instruction continues */
	f->selected = true;
	f->nbytes = 0;
}

static bool decodes(const struct spi_part *p, uint8_t op)
{
	switch (op) {
	case SPI_RDSR: case SPI_RDID: case SPI_RES: case SPI_READ: case SPI_WREN:
	case SPI_WRDI: case SPI_WRSR: case SPI_PP: case SPI_CE: case SPI_CE_60:
		return true;
	case SPI_SSE:
		return p->erase_4k;
	case SPI_SE:
		return p->erase_64k;
	case SPI_EWSR:
		return is_sst(p);
	case SPI_READ4: case SPI_PP4: case SPI_EN4B: case SPI_EX4B:
		return p->addr4;
	case SPI_SSE4:
		return p->addr4 && p->erase_4k;
	case SPI_SE4:
		return p->addr4 && p->erase_64k;
	default:
		return false; /* includes SPI_BE32: no part here has a 32 KiB time in the table */
	}
}

/* The 3-byte instruction a 4-byte-address one acts as (or op itself). */
static uint8_t base_op(uint8_t op)
{
	switch (op) {
	case SPI_CE_60: return SPI_CE;
	case SPI_READ4: return SPI_READ;
	case SPI_PP4: return SPI_PP;
	case SPI_SSE4: return SPI_SSE;
	case SPI_SE4: return SPI_SE;
	default: return op;
	}
}

static void latch(struct spi_nor *f, uint8_t op)
{
	uint8_t prev = f->op;

	f->addr = 0;
	if ((f->busy_op && op != SPI_RDSR) || !decodes(f->part, op)) {
		f->op = OP_NONE;
		return;
	}
	f->op = base_op(op);
	f->alen = (f->op != op && op != SPI_CE_60) || f->mode4 ? 4 : 3;
	if (op == SPI_PP) {
		memset(f->wmask, 0, sizeof f->wmask);
		f->nwritten = 0;
	} else if (op == SPI_WRSR) {
		f->addr = prev == SPI_EWSR; /* SST: WRSR right after EWSR is enabled */
	}
}

/* Address bytes 1..alen (n is the byte index since select, the opcode being 0). */
static void addr_byte(struct spi_nor *f, unsigned n, uint8_t mosi)
{
	f->addr = (f->addr << 8) | mosi;
	if (n == f->alen)
		f->addr &= f->part->size - 1; /* the part ignores address bits above its size */
}

uint8_t spi_nor_xfer(struct spi_nor *f, uint8_t mosi, uint64_t now)
{
	const struct spi_part *p = f->part;
	unsigned n;
	uint8_t v;

	tick(f, now);
	if (!f->selected)
		return HIGHZ;
	n = f->nbytes;
	if (f->nbytes < UINT_MAX)
		f->nbytes++;
	if (n == 0) {
		latch(f, mosi);
		return HIGHZ;
	}
	switch (f->op) {
	case SPI_RDSR:
		return f->sr;
	case SPI_RDID:
		return n <= 3 ? p->jedec[n - 1] : HIGHZ;
	case SPI_RES:
		if (n <= 3) {
			if (is_sst(p))
				addr_byte(f, n, mosi);
			return HIGHZ;
		}
		if (is_sst(p))
			return ((f->addr + (n - 4)) & 1) ? p->res_id : p->jedec[0];
		return p->res_id;
	case SPI_READ:
		if (n <= f->alen) {
			addr_byte(f, n, mosi);
			return HIGHZ;
		}
		v = f->mem[f->addr];
		f->addr = (f->addr + 1) & (p->size - 1);
		f->stats.bytes_read++;
		return v;
	case SPI_PP:
		if (n <= f->alen) {
			addr_byte(f, n, mosi);
			return HIGHZ;
		}
		if (!is_sst(p) || f->nwritten == 0) {
			unsigned off = (f->addr + f->nwritten) & (PAGE - 1);

			f->wbuf[off] = mosi;
			f->wmask[off] = true;
		}
		if (f->nwritten < UINT_MAX)
			f->nwritten++;
		return HIGHZ;
	case SPI_SSE:
	case SPI_SE:
		if (n <= f->alen)
			addr_byte(f, n, mosi);
		return HIGHZ;
	case SPI_WRSR:
		if (n == 1)
			f->wbuf[0] = mosi;
		return HIGHZ;
	default:
		return HIGHZ;
	}
}

static void start_pp(struct spi_nor *f, uint64_t now)
{
	if (!(f->sr & SPI_SR_WEL))
		return;
	if (touches_protected(f, f->addr & ~(PAGE - 1), PAGE)) {
		f->sr &= (uint8_t)~SPI_SR_WEL;
		return;
	}
	start(f, SPI_PP, f->addr, f->part->t_page_prog, now);
}

static void start_erase(struct spi_nor *f, uint8_t op, uint64_t now)
{
	uint32_t len = erase_len(f, op);
	uint32_t base = op == SPI_CE ? 0 : f->addr & ~(len - 1);
	uint64_t t = op == SPI_SSE ? f->part->t_erase_4k
		   : op == SPI_SE ? f->part->t_erase_64k : f->part->t_chip_erase;

	if (!(f->sr & SPI_SR_WEL))
		return;
	if (touches_protected(f, base, len)) {
		f->sr &= (uint8_t)~SPI_SR_WEL;
		return;
	}
	start(f, op, base, t, now);
}

static void start_wrsr(struct spi_nor *f, uint64_t now)
{
	if (!(f->sr & SPI_SR_WEL) && !(is_sst(f->part) && f->addr == 1))
		return;
	start(f, SPI_WRSR, f->wbuf[0], f->part->t_wrsr, now);
}

void spi_nor_deselect(struct spi_nor *f, uint64_t now)
{
	unsigned n = f->nbytes;

	tick(f, now);
	if (!f->selected)
		return;
	f->selected = false;
	if (n == 0)
		return; /* no instruction on the wire (f->op is still the previous one) */
	switch (f->op) {
	case SPI_WREN:
		if (n == 1)
			f->sr |= SPI_SR_WEL;
		break;
	case SPI_WRDI:
		if (n == 1)
			f->sr &= (uint8_t)~SPI_SR_WEL;
		break;
	case SPI_EWSR:
		if (n != 1)
			f->op = OP_NONE;
		break;
	case SPI_WRSR:
		if (n == 2)
			start_wrsr(f, now);
		break;
	case SPI_PP:
		if (n >= f->alen + 2)
			start_pp(f, now);
		break;
	case SPI_SSE:
	case SPI_SE:
		if (n == f->alen + 1)
			start_erase(f, f->op, now);
		break;
	case SPI_EN4B:
	case SPI_EX4B:
		if (n == 1)
			f->mode4 = f->op == SPI_EN4B;
		break;
	case SPI_CE:
		if (n == 1)
			start_erase(f, SPI_CE, now);
		break;
	default:
		break;
	}
	tick(f, now); /* an operation with no duration (SST WRSR) is done at once */
}

void spi_nor_power_loss(struct spi_nor *f, uint64_t now)
{
	const struct spi_part *p = f->part;

	tick(f, now);
	if (f->busy_op) {
		uint64_t total = f->busy_until - f->busy_start;
		uint64_t done = now > f->busy_start ? now - f->busy_start : 0;

		switch (f->busy_op) {
		case SPI_PP: {
			unsigned nbytes = 0;

			for (unsigned i = 0; i < PAGE; i++)
				nbytes += f->wmask[i];
			/* done < total here, and nbytes <= 256: the product cannot overflow
			 * for any operation shorter than ~2 years. */
			program(f, (unsigned)(nbytes * done / total));
			break;
		}
		case SPI_SSE:
		case SPI_SE:
		case SPI_CE: {
			uint32_t len = erase_len(f, f->busy_op);

			for (uint32_t i = 0; i < len; i++) {
				uint32_t a = f->busy_addr + i;

				f->mem[a] = settle(f, a, f->mem[a], undefined_byte(f->seed, a));
			}
			f->changed = true;
			report(f, f->busy_addr, len);
			break;
		}
		default: /* WRSR: the old non-volatile bits stay */
			break;
		}
	}
	power_on(f, (uint8_t)(p->sr_power_on | (f->sr & sr_nonvolatile(p))));
}
