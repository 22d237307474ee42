/* SPDX-License-Identifier: GPL-2.0-or-later */
/* probe.c — the read-only checks of `probe`, one table row each (probe.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dev/lockdown.h"
#include "image/fs3.h"
#include "image/info.h"
#include "ops/probe.h"
#include "util/sha256.h"

/* The flash semaphores in the order dev/chip.c takes them (hw-access.md §3.5). The
 * addresses are chip.c's too; they are repeated here because the probe reads them
 * one at a time, once, where chip_lock() spins until it owns them. */

struct probe_ctx {
	struct device *d;
	struct probe *p;
	uint8_t *reads[2];             /* the two whole reads of the flash */
	struct dev_image di;
	bool before_write;             /* probe_device_before_write(): no whole reads */
	struct cx_status *st;          /* only CX_ENOMEM and CX_EINTR stop the probe */
};

typedef void check_fn(struct probe_ctx *x, struct probe_check *c);

static void say(struct probe_check *c, enum probe_result r, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void say(struct probe_check *c, enum probe_result r, const char *fmt, ...)
{
	va_list ap;

	c->result = r;
	va_start(ap, fmt);
	vsnprintf(c->text, sizeof(c->text), fmt, ap);
	va_end(ap);
}

/* A device error as the row's result; CX_ENOMEM and CX_EINTR also stop the probe. */
static void failed(struct probe_ctx *x, struct probe_check *c, const struct cx_status *e)
{
	say(c, PROBE_FAIL, "%s", e->msg);
	if (e->code == CX_ENOMEM || e->code == CX_EINTR)
		cx_fail(x->st, e->code, "%s", e->msg);
}

static void check_lockdown(struct probe_ctx *x, struct probe_check *c)
{
	x->p->lockdown = lockdown_mode();
	if (lockdown_forbids_pci())
		say(c, PROBE_FAIL, "%s", lockdown_advice());
	else
		say(c, PROBE_PASS, "the kernel is not locked down (none)");
}

static void check_chip(struct probe_ctx *x, struct probe_check *c)
{
	struct probe *p = x->p;
	const struct chip *ch = &x->d->chip;

	p->pci = x->d->pci;
	chip_label(ch, p->chip, sizeof(p->chip));
	p->hw_id = ch->desc->hw_id;
	p->rev = ch->rev;
	p->recovery = ch->recovery;
	say(c, p->recovery ? PROBE_NOTE : PROBE_PASS,
	    "%s: PCI %04x:%04x, subsystem %04x:%04x, HW ID 0x%03x revision 0x%02x, %s", p->chip, PCI_VENDOR_MELLANOX,
	    p->pci.device, p->pci.subsys_vendor, p->pci.subsys_device, p->hw_id, p->rev,
	    p->recovery ? "recovery (livefish) mode: no firmware runs; burning a whole image is the way back"
			: "normal mode");
}

/* One read of a read-to-lock semaphore (§3.5): 0 means it was free and the read
 * has just taken it, so it is given back at once with a write of 0; anything else
 * is its holder's value, and a read of a held semaphore changes nothing, so it is
 * left alone. Either way it is as it was found. */
static int peek_sem(struct probe_ctx *x, struct probe_sem *s, struct cx_status *e)
{
	struct crspace *cr = &x->d->chip.cr;

	if (cr_read(cr, s->addr, &s->value, e))
		return e->code;
	s->checked = true;
	s->held = s->value != 0;
	return s->held ? CX_OK : cr_write(cr, s->addr, 0, e);
}

/* GEN5: a read of the command word takes the gateway's lock when it is free; chip_lock()
 * does that (and turns the cache replacement off), chip_unlock() gives both back. */
static void check_gw_lock(struct probe_ctx *x, struct probe_check *c)
{
	struct probe *p = x->p;
	struct cx_status e = {0};

	p->gw_lock = true;
	if (chip_lock(&x->d->chip, &e) == CX_EBUSY) {
		p->gw_lock_held = true;
		return say(c, PROBE_FAIL, "the flash gateway's lock (bit 31 of 0x%05x) is held by another tool, "
			   "nothing can be written while it is; if nothing else uses the card, --clear-semaphore "
			   "frees it", CHIP_GW_CMD);
	}
	if (e.code)
		return failed(x, c, &e);
	chip_unlock(&x->d->chip);
	say(c, PROBE_PASS, "the flash gateway's lock (bit 31 of 0x%05x) free (taken and given back)", CHIP_GW_CMD);
}

static void check_semaphores(struct probe_ctx *x, struct probe_check *c)
{
	struct probe *p = x->p;
	struct cx_status e = {0};
	char each[PROBE_TEXT_MAX] = "";
	bool any_held = false;

	if (x->d->chip.desc->gw == CHIP_GW_GEN5)
		return check_gw_lock(x, c);
	p->sems[0] = (struct probe_sem){.addr = CHIP_SEM_FLASHPROG, .present = x->d->chip.desc->flashprog_sem};
	p->sems[1] = (struct probe_sem){.addr = CHIP_SEM_GPIO, .present = true};
	for (unsigned i = 0; i < PROBE_NSEMS; i++) {
		struct probe_sem *s = &p->sems[i];
		if (!s->present)
			continue;
		if (peek_sem(x, s, &e))
			return failed(x, c, &e);
		any_held |= s->held;
		size_t n = strlen(each);
		if (s->held)
			snprintf(each + n, sizeof(each) - n, "%s0x%05x held (reads 0x%x)", n ? ", " : "", s->addr, s->value);
		else
			snprintf(each + n, sizeof(each) - n, "%s0x%05x free", n ? ", " : "", s->addr);
	}
	if (any_held)
		say(c, PROBE_FAIL, "flash semaphore %s: held by firmware or another tool, nothing can be written "
		    "while it is; if nothing else uses the card, --clear-semaphore frees it", each);
	else
		say(c, PROBE_PASS, "%s (each left as found)", each);
}

static bool sems_free(const struct probe *p)
{
	if (p->gw_lock)
		return !p->gw_lock_held;
	for (unsigned i = 0; i < PROBE_NSEMS; i++)
		if (p->sems[i].present && (!p->sems[i].checked || p->sems[i].held))
			return false;
	return true;
}

static void check_flash(struct probe_ctx *x, struct probe_check *c)
{
	struct probe *p = x->p;
	struct cx_status e = {0};

	if (!sems_free(p))
		return say(c, PROBE_SKIP, "not checked: the flash is behind a semaphore that is not free");
	if (!x->d->have_flash && device_open_flash(x->d, &e))
		return failed(x, c, &e);
	p->have_flash = true;
	flash_describe(&x->d->flash, p->flash, sizeof(p->flash));
	memcpy(p->jedec, x->d->flash.jedec, sizeof(p->jedec));
	p->flash_size = x->d->flash.size;
	say(c, PROBE_PASS, "%s", p->flash);
}

static void check_protection(struct probe_ctx *x, struct probe_check *c)
{
	struct probe *p = x->p;
	struct flash *f = &x->d->flash;
	struct cx_status e = {0};

	if (!p->have_flash)
		return say(c, PROBE_SKIP, "not checked: no flash identified");
	/* A ConnectX-4/4 Lx/5 whose firmware runs: the firmware owns the flash and its status
	 * register (flash_status refuses it), and the burn asks nothing of it: nothing to judge. */
	if (f->via_fw)
		return say(c, PROBE_SKIP, "not checked: the running firmware owns the flash and its protection; "
			   "the burn goes through it");
	if (device_lock(x->d, &e))
		return failed(x, c, &e);
	int rc = flash_status(f, &p->sr, &e);
	device_unlock(x->d);
	if (rc)
		return failed(x, c, &e);
	p->have_sr = true;
	p->write_protected = (p->sr & f->part->bp_mask) != 0;
	if (!p->write_protected)
		say(c, PROBE_PASS, "status register 0x%02x: not write-protected", p->sr);
	else if (flash_clears_protection(f))
		say(c, PROBE_NOTE, "status register 0x%02x: block-protected, as %s parts power on; a write "
		    "clears it first, as mstflint does", p->sr, f->part->name);
	else if (p->gw_lock)
		say(c, PROBE_FAIL, "status register 0x%02x: the flash is write-protected; burn --unprotect clears "
		    "its block-protect bits for the burn (asked first)", p->sr);
	else
		say(c, PROBE_FAIL, "status register 0x%02x: the flash is write-protected, and cxflash (like "
		    "mstflint) does not clear it on a %s: clear it with an SPI programmer", p->sr, f->part->name);
}

/* The first offset where a and b differ, or n. */
static uint32_t first_difference(const uint8_t *a, const uint8_t *b, uint32_t n)
{
	uint32_t i = 0;

	while (i < n && a[i] == b[i])
		i++;
	return i;
}

static void check_reads(struct probe_ctx *x, struct probe_check *c)
{
	struct probe *p = x->p;
	struct cx_status e = {0};
	uint8_t digest[SHA256_LEN];

	if (!p->have_flash)
		return say(c, PROBE_SKIP, "not checked: no flash identified");
	if (x->before_write)
		return say(c, PROBE_SKIP, "not read here: the backup before the write reads the whole flash and "
			   "compares it");
	for (unsigned i = 0; i < 2; i++)
		if (device_read_flash(x->d, &x->reads[i], &e))
			return failed(x, c, &e);
	uint32_t at = first_difference(x->reads[0], x->reads[1], p->flash_size);
	if (at < p->flash_size)
		return say(c, PROBE_FAIL, "the flash read twice differs at 0x%06x (0x%02x, then 0x%02x): "
			   "its reads cannot be trusted", at, x->reads[0][at], x->reads[1][at]);
	p->reads_agree = true;
	sha256(x->reads[0], p->flash_size, digest);
	sha256_hex(digest, p->flash_sha256);
	say(c, PROBE_PASS, "read twice, %u KiB, identical (SHA-256 %.16s...)", p->flash_size / 1024,
	    p->flash_sha256);
}

/* An FS3/FS4 card: the image read by image/fs3.h from the first whole read (or, before a
 * write, only what q reads, ops/devimage_fs3.h). */
static void check_image_fs3(struct probe_ctx *x, struct probe_check *c)
{
	struct probe *p = x->p;
	struct cx_status e = {0};
	struct fs3_image *img = calloc(1, sizeof(*img));
	struct devfs3 q = {0};
	int rc;

	if (!img) {
		cx_fail(&e, CX_ENOMEM, "out of memory");
		return failed(x, c, &e);
	}
	if (x->before_write) {
		rc = p->have_flash ? device_read_fs3_query(x->d, &q, &e) : CX_EABSENT;
		if (rc == CX_OK)
			*img = q.img;
		if (!rc)
			rc = fs3_verdict_query(img, &e);
	} else {
		rc = p->reads_agree ? fs3_parse(x->reads[0], p->flash_size, img, &e) : CX_EABSENT;
		if (!rc)
			rc = fs3_verdict(img, &e);
	}
	if (rc == CX_EABSENT)
		say(c, PROBE_SKIP, "not checked: no trustworthy read of the flash");
	else if (rc == CX_ENOMEM || rc == CX_EINTR)
		failed(x, c, &e);
	else if (rc)
		say(c, PROBE_NOTE, "no valid %s image on the flash: %s", x->d->chip.desc->format == CHIP_FW_FS4 ? "FS4" : "FS3",
		    e.msg);
	else {
		p->have_image = true;
		p->image_start = img->start;
		snprintf(p->fw_flash, sizeof(p->fw_flash), "%u.%u.%04u", img->info.fw_ver[0], img->info.fw_ver[1],
			 img->info.fw_ver[2]);
		say(c, PROBE_PASS, "%s FW %s at 0x%06x (slot %u), %s", img->fmt->name, p->fw_flash, img->start,
		    img->start ? 1 : 0, x->before_write ? "what q reads verified" : "verified");
	}
	devfs3_free(&q);
	free(img);
}

/* Before a write: the image's structure, GUIDs and IMAGE_INFO only (device_read_image_meta,
 * ~2.5 KiB); the burn verifies the whole image, the backup reads the whole flash. */
static void image_structure(struct probe_ctx *x, struct probe_check *c)
{
	struct probe *p = x->p;
	struct cx_status e = {0};

	if (!p->have_flash)
		return say(c, PROBE_SKIP, "not checked: no flash identified");
	int rc = device_read_image_meta(x->d, &x->di, &e);
	if (rc == CX_ENOMEM || rc == CX_EINTR)
		return failed(x, c, &e);
	if (!rc && x->di.parse_rc)
		rc = cx_fail(&e, x->di.parse_rc, "%s", x->di.parse_msg);
	if (rc)
		return say(c, PROBE_NOTE, "no valid image on the flash: %s", e.msg);
	p->have_image = true;
	p->image_start = x->di.start;
	fmt_fw_version(p->fw_flash, sizeof(p->fw_flash), x->di.img.info.fw_ver);
	say(c, PROBE_PASS, "FW %s at 0x%06x (slot %u%s), its structure read (the write verifies the whole image)",
	    p->fw_flash, x->di.start, x->di.slot, x->di.failsafe ? ", failsafe" : "");
}

static void check_image(struct probe_ctx *x, struct probe_check *c)
{
	struct probe *p = x->p;
	struct devimage_mem m = {x->reads[0], p->flash_size};
	struct cx_status e = {0};

	if (x->d->chip.desc->format != CHIP_FW_FS2)
		return check_image_fs3(x, c);
	if (x->before_write)
		return image_structure(x, c);
	if (!p->reads_agree)
		return say(c, PROBE_SKIP, "not checked: no trustworthy read of the flash");
	int rc = devimage_read(&x->di, devimage_mem_read, &m, p->flash_size, x->d->chip.desc->start_positions, &e);
	if (rc == CX_ENOMEM)
		return failed(x, c, &e);
	if (!rc && x->di.parse_rc)
		rc = cx_fail(&e, x->di.parse_rc, "%s", x->di.parse_msg);
	if (!rc)
		rc = fs2_verdict(&x->di.img, &e);
	if (rc && rc != CX_EBLANK)
		return say(c, PROBE_NOTE, "no valid image on the flash: %s", e.msg);
	p->have_image = true;
	p->image_start = x->di.start;
	fmt_fw_version(p->fw_flash, sizeof(p->fw_flash), x->di.img.info.fw_ver);
	say(c, rc ? PROBE_NOTE : PROBE_PASS, "FW %s at 0x%06x (slot %u%s), verified%s", p->fw_flash, x->di.start,
	    x->di.slot, x->di.failsafe ? ", failsafe" : "", rc ? "; its GUIDs/MACs are blank" : "");
}

static void check_running(struct probe_ctx *x, struct probe_check *c)
{
	struct probe *p = x->p;
	struct cx_status e = {0};
	uint16_t v[3];

	if (p->recovery)
		return say(c, PROBE_PASS, "no firmware runs (recovery mode)");
	if (chip_running_fw(&x->d->chip, v, &e))
		return failed(x, c, &e);
	p->have_running = v[0] || v[1] || v[2];
	fmt_fw_version(p->fw_running, sizeof(p->fw_running), v);
	if (!p->have_running)
		return say(c, PROBE_NOTE, "the card reports no running firmware (0x1f064 reads 0)");
	if (!p->have_image)
		return say(c, PROBE_NOTE, "the card runs FW %s; the flash holds no valid image", p->fw_running);
	if (strcmp(p->fw_running, p->fw_flash))
		return say(c, PROBE_NOTE, "the card runs FW %s, the flash holds %s: a burn not yet followed by a "
			   "reboot, or the card booted another image", p->fw_running, p->fw_flash);
	say(c, PROBE_PASS, "the card runs FW %s, the one on the flash", p->fw_running);
}

static void check_boot_addr(struct probe_ctx *x, struct probe_check *c)
{
	struct probe *p = x->p;
	struct cx_status e = {0};

	if (cr_read(&x->d->chip.cr, x->d->chip.desc->boot_addr_reg, &p->boot_addr, &e))
		return failed(x, c, &e);
	p->have_boot_addr = true;
	uint32_t want = p->image_start << x->d->chip.desc->boot_addr_shift;
	unsigned shift = x->d->chip.desc->boot_addr_shift;
	/* What it holds at power-on is UNCONFIRMED (§4.4): a mismatch is only a note. */
	if (p->have_image && p->boot_addr != want)
		return say(c, PROBE_NOTE, "0x%08x, not the image's start 0x%06x << %u (0x%08x)", p->boot_addr,
			   p->image_start, shift, want);
	if (p->have_image)
		say(c, PROBE_PASS, "0x%08x: the image's start << %u", p->boot_addr, shift);
	else
		say(c, PROBE_PASS, "0x%08x", p->boot_addr);
}

/* The checks, in the order they run: later rows use what earlier ones found. */
static const struct {
	const char *name;
	check_fn *run;
} checks[] = {
	{"lockdown", check_lockdown},
	{"chip", check_chip},
	{"semaphores", check_semaphores},
	{"flash", check_flash},
	{"protection", check_protection},
	{"reads", check_reads},
	{"image", check_image},
	{"running_fw", check_running},
	{"boot_address", check_boot_addr},
	/* To come with the settings issue: "settings", the settings interface answering. */
};

static int run_checks(struct device *d, struct probe *p, bool before_write, struct cx_status *st)
{
	struct probe_ctx x = {.d = d, .p = p, .before_write = before_write, .st = st};
	_Static_assert(sizeof(checks) / sizeof(checks[0]) <= sizeof(p->checks) / sizeof(p->checks[0]),
		       "room for every check");

	memset(p, 0, sizeof(*p));
	for (unsigned i = 0; i < sizeof(checks) / sizeof(checks[0]) && !st->code; i++) {
		struct probe_check *c = &p->checks[p->nchecks++];
		c->name = checks[i].name;
		checks[i].run(&x, c);
		p->nfail += c->result == PROBE_FAIL;
	}
	free(x.reads[0]);
	free(x.reads[1]);
	devimage_free(&x.di);
	return st->code;
}

int probe_device(struct device *d, struct probe *p, struct cx_status *st)
{
	return run_checks(d, p, false, st);
}

int probe_device_before_write(struct device *d, struct probe *p, struct cx_status *st)
{
	return run_checks(d, p, true, st);
}

int probe_card(const char *sysfs, const char *bdf, struct probe *p, struct cx_status *st)
{
	struct device d;
	int rc = device_open_chip(&d, sysfs, bdf, st);

	if (!rc)
		rc = probe_device(&d, p, st);
	device_close(&d);
	return rc;
}

bool probe_safe(const struct probe *p)
{
	return p->nfail == 0;
}

const char *probe_result_name(enum probe_result r)
{
	static const char *const names[] = {"pass", "note", "FAIL", "skip"};

	return (unsigned)r < sizeof(names) / sizeof(names[0]) ? names[r] : "?";
}
