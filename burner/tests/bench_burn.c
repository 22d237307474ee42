/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bench_burn.c — what a burn costs on the card model, beside the least it could cost.
 *
 * make bench runs it. It measures and reports; it asserts nothing about speed
 * (a broken burn stops it, so no number comes from one). The card is the
 * in-process model (sim/core): 1 µs per config access, datasheet typical
 * flash times, time that passes only in the model, so every run prints the
 * same numbers.
 *
 * The floor of a case is computed from the flash before and after it, the
 * part's datasheet times in the model's table (sim/core/spi_parts.c) and the
 * gateway traffic the changes need (hw-access.md §2.3, §3.2, §3.6, §3.8; a
 * crspace access through the 0x58/0x5c window is two config accesses):
 *
 *   floor = sum over the erase units that differ of
 *             erase:   t_erase + 16 accesses (WREN, address, command, BUSY, one RDSR)
 *                      + 14 accesses per 16-byte block of the unit no program reads back
 *                        (the erase verified)
 *             program: per page with bytes to program: t_PP + 12 accesses (WREN, address,
 *                      one RDSR) + 26 accesses per 16-byte block holding such bytes
 *                      (12 to send it, 14 to read it back)
 *           where a unit "differs" when a byte changes; it needs the erase when a
 *           byte needs a 0→1 bit, and then all its non-0xFF bytes are programmed
 *           again, else only the changed ones; per 64 KiB block the cheaper of
 *           one 64 KiB erase or its 4 KiB sectors' own erases is taken.
 *   time  = the datasheet times + accesses x 1 µs (CXSIM_CFG_ACCESS_NS).
 *
 * BAR0 (the second set of rows: device_attach_mem with the card's BAR0, the
 * default path of cxflash on a ConnectX-3 / Pro PF, hw-access.md §2.2): a
 * crspace access is one BAR access instead of two config accesses, priced the
 * same (CXSIM_BAR0_ACCESS_NS = 1 µs). The same steps, counted in crspace
 * accesses (the window's numbers above halved), plus what the BAR needs and the
 * window does not: on CX3 / Pro every read that follows a write is preceded by
 * the ordering flush (§2.2.1: write 0xf0380, read it back as 0; cxflash and
 * mtcr do it), 2 accesses, once per transaction (its write of the command word
 * is followed by the BUSY read):
 *
 *   erase    8 + 3 flushes = 14  (WREN 2+2, address 1, command 1, BUSY 1+2, RDSR 3+2)
 *   page     6 + 2 flushes = 10  (WREN 2+2, address 1, RDSR 3+2)
 *   send     6 + 1 flush   =  8  per 16-byte block (4 data, command 1, BUSY 1+2)
 *   read     7 + 1 flush   =  9  per 16-byte block (address, command, BUSY 1+2, 4 data)
 *
 * and time = the datasheet times + BAR accesses x 1 µs. Without the flush the
 * numbers would be 8, 6, 6, 7: the window's crspace counts exactly. The re-burn
 * row shows the 9 in the model's counters: 997744 bytes read = 62359 blocks,
 * 561262 BAR accesses = 9 x 62359 + 31.
 *
 * It leaves out what finding the differences costs. "+ compare" adds the
 * least reading a writer that trusts no byte it has not read must do: every
 * byte of the region it establishes whose unit is identical or program-only
 * (14 accesses per 16 bytes), and one 16-byte block of each unit that needs
 * an erase. Neither counts the card-image checks of a burn (about 2.5 KiB read).
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image/fs2.h"
#include "image/zebra.h"
#include "ops/backup.h"
#include "ops/burn.h"
#include "ops/restore.h"
#include "ops/write_region.h"
#include "card_fixture.h"
#include "fs3_card.h"
#include "fs3_sim_card.h"
#include "mkimage.h"
#include "prng.h"
#include "scratch.h"
#include "spi_nor.h"

#define KIB 1024u
#define SZ_4K 0x1000u
#define SZ_64K 0x10000u
#define PAGE 256u
#define BLOCK 16u
#define ACC_ERASE 16u         /* WREN 4, address 2, command 2, BUSY 2, one RDSR 6 */
#define ACC_PAGE 12u          /* WREN 4, address 2, one RDSR 6 */
#define ACC_SEND 12u          /* per 16-byte block sent: 4 data 8, command 2, BUSY 2 */
#define ACC_READ 14u          /* per 16-byte block read: address, command, BUSY, 4 data */
/* The same steps through BAR0 (see the top comment): crspace accesses + the CX3 flush (2 each). */
#define FLUSH 2u              /* §2.2.1: write 0xf0380, read it back */
#define BAR_ERASE (ACC_ERASE / 2 + 3 * FLUSH) /* 14: WREN 2+2, address 1, command 1, BUSY 1+2, RDSR 3+2 */
#define BAR_PAGE (ACC_PAGE / 2 + 2 * FLUSH)   /* 10: WREN 2+2, address 1, RDSR 3+2 */
#define BAR_SEND (ACC_SEND / 2 + FLUSH)       /*  8: 4 data, command 1, BUSY 1+2 */
#define BAR_READ (ACC_READ / 2 + FLUSH)       /*  9: address, command, BUSY 1+2, 4 data */
#define MAX_RANGES 8

/* The images: a 0.96 MiB ConnectX-3 image, as scripts/bench-mstflint.sh makes them. */
#define IMG "--chip cx3 --ddr 60 --ddr-size 0x4000"
#define OLD IMG " --fw 2.40.7000"
#define NEW IMG " --fw 2.42.5000 --seed 2"
#define NEWER IMG " --fw 2.42.6000 --seed 4"

/* How the card is reached, and what the floor's steps cost through it. */
struct transport {
	const char *name;             /* what cr_method() must say during the burn */
	bool bar;                     /* device_attach_mem with the card's BAR0 */
	unsigned erase, page, send, read;
	uint64_t access_ns;
};

static const struct transport WINDOW = {"config", false, ACC_ERASE, ACC_PAGE, ACC_SEND, ACC_READ,
					CXSIM_CFG_ACCESS_NS};
static const struct transport BAR0 = {"bar0", true, BAR_ERASE, BAR_PAGE, BAR_SEND, BAR_READ, CXSIM_BAR0_ACCESS_NS};

struct region {
	unsigned n;
	uint32_t lo[MAX_RANGES], hi[MAX_RANGES];
};

struct floor {
	double s, compare_s;
};

struct result {
	const char *what, *part;
	double s;
	uint64_t acc, bar_acc, erased, programmed, read;
	struct floor fl;
};

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "bench_burn: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(1);
}

/* ---- the floor ---- */

struct costing {
	const struct transport *t;
	const struct spi_part *part;
	const uint8_t *b, *a;         /* flash before and after */
	uint64_t ns, acc;
};

static bool block_has(const uint8_t *b, const uint8_t *a, uint32_t at, bool erased)
{
	for (uint32_t i = at; i < at + BLOCK; i++)
		if (erased ? a[i] != 0xFF : a[i] != b[i])
			return true;
	return false;
}

/* Programs of [u, u + size) (after an erase: every non-0xFF block; else the
 * changed ones), their read-back, and after an erase the read of the rest. */
static void refill(struct costing *c, uint32_t u, uint32_t size, bool erased, uint64_t *ns, uint64_t *acc)
{
	for (uint32_t pg = u; pg < u + size; pg += PAGE) {
		unsigned blocks = 0;

		for (uint32_t at = pg; at < pg + PAGE; at += BLOCK)
			blocks += block_has(c->b, c->a, at, erased);
		if (blocks) {
			*ns += c->part->t_page_prog;
			*acc += c->t->page + blocks * (uint64_t)(c->t->send + c->t->read);
		}
		if (erased)
			*acc += (PAGE / BLOCK - blocks) * (uint64_t)c->t->read;
	}
}

enum ustate { SAME, PROGRAM, ERASE };

static enum ustate state_of(const uint8_t *b, const uint8_t *a, uint32_t u, uint32_t size)
{
	enum ustate s = SAME;

	for (uint32_t i = u; i < u + size; i++)
		if (a[i] != b[i]) {
			if ((b[i] & a[i]) != a[i])
				return ERASE;
			s = PROGRAM;
		}
	return s;
}

/* The cheapest way to bring one unit of the smallest size to after, on its own. */
static void unit_cost(struct costing *c, uint32_t u, uint32_t size, uint64_t t_erase, uint64_t *ns,
		      uint64_t *acc)
{
	enum ustate s = state_of(c->b, c->a, u, size);

	if (s == ERASE) {
		*ns += t_erase;
		*acc += c->t->erase;
	}
	if (s != SAME)
		refill(c, u, size, s == ERASE, ns, acc);
}

static double seconds(const struct transport *t, uint64_t ns, uint64_t acc)
{
	return (double)(ns + acc * t->access_ns) / 1e9;
}

static uint32_t unit0(const struct spi_part *p)
{
	return p->erase_4k ? SZ_4K : SZ_64K;
}

static struct floor floor_of(const struct transport *t, const struct spi_part *p, const uint8_t *before,
			     const uint8_t *after, uint32_t size, const struct region *r)
{
	struct costing c = {t, p, before, after, 0, 0};
	uint32_t u0 = unit0(p);
	uint64_t rd = 0;
	struct floor f;

	for (uint32_t blk = 0; blk < size; blk += SZ_64K) {
		uint64_t ns = 0, acc = 0;

		for (uint32_t u = blk; u < blk + SZ_64K; u += u0)
			unit_cost(&c, u, u0, u0 == SZ_4K ? p->t_erase_4k : p->t_erase_64k, &ns, &acc);
		if (u0 == SZ_4K && p->erase_64k && state_of(before, after, blk, SZ_64K) == ERASE) {
			uint64_t bns = p->t_erase_64k, bacc = t->erase;

			refill(&c, blk, SZ_64K, true, &bns, &bacc);
			if (seconds(t, bns, bacc) < seconds(t, ns, acc))
				ns = bns, acc = bacc;
		}
		c.ns += ns;
		c.acc += acc;
	}
	f.s = seconds(t, c.ns, c.acc);
	/* The compare read over the region the operation establishes. */
	for (unsigned i = 0; i < r->n; i++)
		for (uint32_t u = r->lo[i] & ~(u0 - 1); u < r->hi[i]; u += u0) {
			uint32_t lo = u > r->lo[i] ? u : r->lo[i], hi = u + u0 < r->hi[i] ? u + u0 : r->hi[i];

			rd += state_of(before, after, lo, hi - lo) == ERASE ? BLOCK : hi - lo;
		}
	f.compare_s = f.s + seconds(t, 0, (rd + BLOCK - 1) / BLOCK * t->read);
	return f;
}

/* Where an image of len bytes lies on the flash, starting at start (zebra slots). */
static struct region image_region(const uint8_t *img, size_t len, uint32_t start)
{
	struct fs2_image *pi = malloc(sizeof(*pi));
	struct cx_status st = {0};
	struct region r = {0};

	if (!pi || fs2_parse(img, len, pi, &st))
		die("cannot parse the image: %s", st.msg);
	uint32_t chunk = 1u << pi->log2chunk;
	for (uint32_t off = 0; off < len && r.n < MAX_RANGES; off += chunk) {
		uint32_t n = len - off < chunk ? (uint32_t)(len - off) : chunk;
		uint32_t phys = pi->failsafe ? zebra_cont2phys(off, pi->log2chunk, start != 0) : start + off;

		r.lo[r.n] = phys;
		r.hi[r.n++] = phys + n;
	}
	free(pi);
	return r;
}

/* ---- the card ---- */

static struct cxsim_card *new_card(const struct transport *t, const char *part, const char *opts)
{
	/* BAR0 decodes crspace (as with the QEMU device), else reads all-ones */
	return card_new(&(struct card_spec){.chip = CXSIM_CX3, .part = part, .image = opts, .bar0_crspace = t->bar});
}

static void open_dev(struct device *d, struct cxsim_card *c, const struct transport *t)
{
	struct cx_status st = {0};

	if (card_attach(d, c, t->bar, &st))
		die("cannot open the card: %s", st.msg);
	if (strcmp(cr_method(&d->chip.cr), t->name))
		die("the card is reached through %s, not %s (CXFLASH_ACCESS?)", cr_method(&d->chip.cr), t->name);
}

static int yes(void *ctx, const char *q, struct cx_status *st)
{
	(void)ctx, (void)q, (void)st;
	return CX_OK;
}

/* Counters before an operation; the result's numbers are the differences. */
struct snap {
	struct cxsim_counters k;
	uint8_t *flash;
	size_t size;
};

static void snap(struct cxsim_card *c, struct snap *s)
{
	uint8_t *f = cxsim_flash(c, &s->size);

	s->k = *cxsim_counters(c);
	if (!(s->flash = malloc(s->size)))
		die("out of memory");
	memcpy(s->flash, f, s->size);
}

static struct result done(const struct transport *t, struct cxsim_card *c, struct snap *s, const char *what,
			  const char *part, const struct region *r)
{
	const struct cxsim_counters *k = cxsim_counters(c);
	size_t size;
	const uint8_t *after = cxsim_flash(c, &size);
	struct result res = {
		what, part, (double)(k->time_ns - s->k.time_ns) / 1e9,
		k->cfg_reads + k->cfg_writes - s->k.cfg_reads - s->k.cfg_writes,
		k->bar0_reads + k->bar0_writes - s->k.bar0_reads - s->k.bar0_writes,
		k->bytes_erased - s->k.bytes_erased, k->bytes_programmed - s->k.bytes_programmed,
		k->bytes_read - s->k.bytes_read, {0, 0},
	};

	res.fl = floor_of(t, spi_part_find(part), s->flash, after, (uint32_t)size, r);
	free(s->flash);
	return res;
}

/* burn_card() of opts onto c, measured; the card must boot it afterwards. */
static struct result burn(const struct transport *t, struct cxsim_card *c, const char *part, const char *what,
			  const char *opts, unsigned minor, bool expect_nothing)
{
	struct burn_opts o = {.hooks.confirm = yes};
	struct burn_result r;
	struct cx_status st = {0};
	struct device d;
	struct snap s;
	size_t len;
	uint8_t *img = mkimage(opts, &len);

	snap(c, &s);
	open_dev(&d, c, t);
	int rc = burn_card(&d, img, len, &o, &r, &st);
	device_close(&d);
	if (rc || r.nothing_to_do != expect_nothing)
		die("%s on %s: rc %d, nothing to do %d: %s", what, part, rc, r.nothing_to_do, st.msg);
	/* The floor's region: the slot written, or the one compared. */
	struct region reg = image_region(img, len, r.start);
	struct result res = done(t, c, &s, what, part, &reg);
	cxsim_power_cycle(c);
	if (!cxsim_boot_info(c)->booted || cxsim_boot_info(c)->fw_ver[1] * 10000u + cxsim_boot_info(c)->fw_ver[2] !=
	    minor)
		die("%s on %s: the card does not boot the new image", what, part);
	free(img);
	return res;
}

/* The card made to differ from what it holds in three erase units (random data there). */
static void scramble3(struct cxsim_card *c, const char *part)
{
	static const uint32_t at[3] = {0x05000, 0x13A000, 0x1F0000};
	size_t size;
	uint8_t *flash = cxsim_flash(c, &size);
	uint32_t u0 = unit0(spi_part_find(part)), x = 0x12345678u;

	for (unsigned i = 0; i < 3; i++)
		for (uint32_t a = at[i] & ~(u0 - 1); a < (at[i] & ~(u0 - 1)) + u0; a++)
			flash[a] = (uint8_t)prng32(&x);
	cxsim_flash_changed(c);
}

/* One full read of the flash through t: what a restore must read at least once
 * to know which units differ, and a backup to have every byte. */
static double full_read_s(const struct transport *t, size_t size)
{
	return seconds(t, 0, (size + BLOCK - 1) / BLOCK * t->read);
}

/* A backup restore: write_region over the whole flash, the card differing from
 * the backup in three erase units. */
static struct result restore(const struct transport *t, struct cxsim_card *c, const char *part)
{
	struct write_progress wp = {0};
	struct cx_status st = {0};
	struct device d;
	struct snap s;
	size_t size;
	uint8_t *flash = cxsim_flash(c, &size);
	uint8_t *backup = malloc(size);

	if (!backup)
		die("out of memory");
	memcpy(backup, flash, size);
	scramble3(c, part);
	snap(c, &s);
	open_dev(&d, c, t);
	int rc = device_lock(&d, &st);
	if (!rc)
		rc = write_region(&d.flash, 0, backup, (uint32_t)size, false, &wp, &st);
	device_unlock(&d);
	device_close(&d);
	if (rc || memcmp(cxsim_flash(c, &size), backup, size))
		die("restore on %s: rc %d: %s", part, rc, st.msg);
	struct region reg = {1, {0}, {(uint32_t)size}};
	free(backup);
	return done(t, c, &s, "write_region: 2 MiB, 3 units differ", part, &reg);
}

static char *temp_dir(void)
{
	static char dir[64];

	snprintf(dir, sizeof(dir), "/tmp/cxbench-XXXXXX");
	if (!mkdtemp(dir))
		die("cannot make a temporary folder");
	return dir;
}

/* restore_card() of a bundle of the card's flash, the card then differing from it in
 * three erase units: what a user waits for. Its floor (the issue's): one full read,
 * then the erase, program and read-back of the units that differ. */
static struct result restore_bundle(const struct transport *t, struct cxsim_card *c, const char *part)
{
	struct restore_opts o = {.hooks.confirm = yes}; /* the bench's images have blank GUIDs: restore asks */
	struct restore_result r;
	struct backup_result b;
	struct cx_status st = {0};
	struct device d;
	struct snap s;
	size_t size;
	char *dir = temp_dir();

	open_dev(&d, c, t);
	if (backup_card(&d, dir, &b, &st))
		die("backup on %s: %s", part, st.msg);
	device_close(&d);
	scramble3(c, part);
	snap(c, &s);
	open_dev(&d, c, t);
	int rc = restore_card(&d, b.path, &o, &r, &st);
	device_close(&d);
	if (rc || r.out.state != CARD_NEW_BOOTS)
		die("restore_card on %s: rc %d, state %s: %s", part, rc, card_state_name(r.out.state), st.msg);
	cxsim_flash(c, &size);
	struct region reg = {1, {0}, {(uint32_t)size}};
	struct result res = done(t, c, &s, "restore_card: 2 MiB, 3 units differ", part, &reg);
	res.fl.s = res.fl.compare_s = res.fl.s + full_read_s(t, size);
	rm_rf(dir);
	return res;
}

static int backup_first(void *ctx, struct cx_status *st)
{
	struct backup_result b;
	void **x = ctx;

	return backup_card(x[0], x[1], &b, st);
}

/* The default path of `cxflash burn`: a backup of the whole flash, then the burn.
 * Its floor: the backup's two full reads (design.md: a backup is read twice and kept
 * only when both agree) and the burn's; the burn plans from the backup's read
 * (ops/burn.c write), so nothing else is read but what the write reads back. */
static struct result backup_burn(const struct transport *t, struct cxsim_card *c, const char *part,
				 const char *opts, unsigned minor)
{
	struct burn_opts o = {.hooks.confirm = yes};
	struct burn_result r;
	struct cx_status st = {0};
	struct device d;
	struct snap s;
	size_t len, size;
	uint8_t *img = mkimage(opts, &len);
	void *x[2] = {&d, temp_dir()};

	o.hooks.before_write = backup_first;
	o.hooks.before_ctx = x;
	snap(c, &s);
	open_dev(&d, c, t);
	int rc = burn_card(&d, img, len, &o, &r, &st);
	device_close(&d);
	if (rc || !r.out.backed_up)
		die("backup + burn on %s: rc %d: %s", part, rc, st.msg);
	struct region reg = image_region(img, len, r.start);
	struct result res = done(t, c, &s, "backup + burn (the default path)", part, &reg);
	cxsim_flash(c, &size);
	res.fl.s += 2 * full_read_s(t, size);
	res.fl.compare_s += 2 * full_read_s(t, size);
	cxsim_power_cycle(c);
	if (!cxsim_boot_info(c)->booted || cxsim_boot_info(c)->fw_ver[1] * 10000u + cxsim_boot_info(c)->fw_ver[2] !=
	    minor)
		die("backup + burn on %s: the card does not boot the new image", part);
	rm_rf(x[1]);
	free(img);
	return res;
}

static void ratio_of(char *buf, size_t n, const struct result *r)
{
	snprintf(buf, n, "-"); /* nothing differs: the floor is 0 */
	if (r->fl.s > 0)
		snprintf(buf, n, "%.2f", r->s / r->fl.s);
}

static void print(const struct result *r)
{
	char ratio[16];

	ratio_of(ratio, sizeof(ratio), r);
	printf("%-34s %-6s %7.2f %9llu %8llu %9llu %8llu %7.2f %6s %8.2f\n", r->what, r->part, r->s,
	       (unsigned long long)r->acc, (unsigned long long)r->erased, (unsigned long long)r->programmed,
	       (unsigned long long)r->read, r->fl.s, ratio, r->fl.compare_s);
}

/* A BAR0 row: its BAR accesses beside the config ones, and its time as a fraction of the window's. */
static void print_bar(const struct result *r, const struct result *win)
{
	char ratio[16];

	ratio_of(ratio, sizeof(ratio), r);
	printf("%-34s %-6s %7.2f %9llu %9llu %8llu %9llu %8llu %7.2f %6s %8.2f %7.2f\n", r->what, r->part, r->s,
	       (unsigned long long)r->acc, (unsigned long long)r->bar_acc, (unsigned long long)r->erased,
	       (unsigned long long)r->programmed, (unsigned long long)r->read, r->fl.s, ratio, r->fl.compare_s,
	       r->s / win->s);
}

/* The cases on a fresh card per part, reached through t. */
#define NCASES 6
static void run(const struct transport *t, struct result res[NCASES][2])
{
	static const char *parts[] = {"W25Q16", "M25P16"};

	for (int i = 0; i < 2; i++) {
		const char *p = parts[i];
		struct cxsim_card *c = new_card(t, p, OLD);

		/* The card holds OLD in slot 0, slot 1 is blank: bench-mstflint.sh's case. */
		res[0][i] = burn(t, c, p, "first burn (other slot blank)", NEW, 420000 + 5000, false);
		/* Back to slot 0, which still holds OLD's body: the second upgrade of a card. */
		res[1][i] = burn(t, c, p, "burn over an older image", NEWER, 420000 + 6000, false);
		res[2][i] = burn(t, c, p, "re-burn of the image it holds", NEWER, 420000 + 6000, true);
		res[3][i] = restore(t, c, p);
		res[4][i] = restore_bundle(t, c, p);
		res[5][i] = backup_burn(t, c, p, NEW, 420000 + 5000);
		cxsim_free(c);
	}
	for (int k = 0; k < NCASES; k++)
		for (int i = 0; i < 2; i++)
			if (!t->bar && res[k][i].bar_acc)
				die("%s on %s: %llu BAR accesses through the window", res[k][i].what, res[k][i].part,
				    (unsigned long long)res[k][i].bar_acc);
}

/* A backup of a ConnectX-4 Lx / 5 card's 16 MiB flash (backup_card: the flash read twice),
 * in recovery mode (the 5th-generation gateway through the VSEC) and with its firmware
 * running (MFBA through ICMD). No floor is computed: both transports cost what mtcr's
 * protocol costs per access (hw-access.md §2.4, §3.6, §3.14), which the reads already
 * follow; the row says what a user waits for, and mstflint's whole-flash read of the same
 * card is bench-cx4.sh's to measure. */
static void backup_fs3_rows(void)
{
	static const struct {
		const char *name;
		enum cxsim_chip chip;
		bool running;
	} rows[] = {
		{"cx4lx recovery", CXSIM_CX4LX, false}, {"cx4lx running", CXSIM_CX4LX, true},
		{"cx5 recovery", CXSIM_CX5, false},     {"cx5 running", CXSIM_CX5, true},
	};

	printf("\n== ConnectX-4 Lx / 5, a 16 MiB W25Q128JV: backup (two whole reads) ==\n");
	printf("%-16s %9s %12s %10s %10s\n", "card", "model s", "cfg acc", "read MiB", "us/KiB");
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct f3 img;
		struct f3_spec spec = f3_defaults(rows[i].chip == CXSIM_CX5);
		struct cx_status st = {0};
		struct backup_result b;
		struct device d;
		char *dir = temp_dir();

		f3_build(&img, &spec);
		fc_card_devdata(&img, SC_GUID);
		struct cxsim_card *c = rows[i].running ? sc_new_running(rows[i].chip, false, NULL, CXSIM_ICMD_OK)
						       : sc_new(rows[i].chip, false);
		if (!c)
			die("%s: no card", rows[i].name);
		sc_install(c, &img, 0);
		if (cxsim_fw_running(c) != rows[i].running)
			die("%s: the model's firmware %s", rows[i].name, rows[i].running ? "does not run" : "runs");
		cxsim_counters_reset(c);
		if (card_attach(&d, c, false, &st) || backup_card(&d, dir, &b, &st))
			die("%s: backup: %s", rows[i].name, st.msg);
		device_close(&d);
		const struct cxsim_counters *k = cxsim_counters(c);
		printf("%-16s %9.1f %12llu %10.1f %10.1f\n", rows[i].name, k->time_ns / 1e9,
		       (unsigned long long)(k->cfg_reads + k->cfg_writes), k->bytes_read / 1048576.0,
		       k->bytes_read ? k->time_ns / 1e3 / (k->bytes_read / 1024.0) : 0.0);
		rm_rf(dir);
		cxsim_free(c);
	}
}

int main(void)
{
	struct result win[NCASES][2], bar[NCASES][2];

	setvbuf(stdout, NULL, _IOLBF, 0);
	run(&WINDOW, win);
	run(&BAR0, bar);
	printf("cxflash on the card model (config access 1 us, datasheet typical flash times); "
	       "0.96 MiB ConnectX-3 images\n");
	printf("\n== transport: the 0x58/0x5c config window (device_attach): "
	       "a crspace access is 2 config accesses ==\n");
	printf("%-34s %-6s %7s %9s %8s %9s %8s %7s %6s %8s\n", "case", "part", "model s", "cfg acc", "erased",
	       "programd", "read", "floor s", "xfloor", "+compare");
	for (int k = 0; k < NCASES; k++)
		for (int i = 0; i < 2; i++)
			print(&win[k][i]);
	printf("\n== transport: BAR0 (device_attach_mem, the card's BAR0 decoding crspace): a crspace access "
	       "is 1 BAR access, 1 us ==\n");
	printf("%-34s %-6s %7s %9s %9s %8s %9s %8s %7s %6s %8s %7s\n", "case", "part", "model s", "cfg acc",
	       "BAR acc", "erased", "programd", "read", "floor s", "xfloor", "+compare", "xwindow");
	for (int k = 0; k < NCASES; k++)
		for (int i = 0; i < 2; i++)
			print_bar(&bar[k][i], &win[k][i]);
	printf("\nfloor: erase/program time (datasheet) and gateway traffic of the units that differ, "
	       "read-back included (bench_burn.c);\n+compare: the floor plus reading what is left "
	       "unerased. mstflint's burn of the first case: make bench-mstflint.\n"
	       "BAR0 floor: the same crspace accesses, 1 BAR access each, plus the CX3 ordering flush "
	       "(2 accesses) before each\ntransaction's first read (hw-access.md §2.2.1); cfg acc there: "
	       "opening the card (chip ID, window checks) and closing it.\nxwindow: model s over the same "
	       "case's through the window.\nrestore_card: its floor adds one full read of the flash (it must "
	       "read every byte once to know what differs);\nbackup + burn: two (backup_card reads the flash "
	       "twice by design, design.md; the burn plans from that read).\n");
	backup_fs3_rows();
	return 0;
}
