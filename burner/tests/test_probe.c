/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_probe.c — `probe` (ops/probe.h) against the card model in process: the verdict and
 * the failing rows on a healthy card (a ConnectX-3, and a ConnectX-2 with its one flash
 * semaphore) and on each fault (write protection, a held semaphore
 * of either kind, a gateway stuck busy, recovery mode with a blank or a damaged flash), the
 * lockdown row from a fake lockdown file, and that it never writes: the model counts no
 * erase, no program and no write-enable or status write, the flash is byte for byte what
 * it was, and each semaphore is as it was found. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "card.h"
#include "dev/lockdown.h"
#include "ops/probe.h"
#include "sim_cfg.h"
#include "card_fixture.h"
#include "fs3_card.h"
#include "fs3_sim_card.h"

#define IMAGE "--chip cx3 --ddr 1 --ddr-size 0x100 --no-rom --fw 2.42.5000"
#define OP_WRSR 0x01   /* SPI opcodes a write would send (hw-access.md §3.3) */
#define OP_PP 0x02
#define OP_WREN 0x06
#define OP_SSE 0x20
#define OP_SE 0xD8

struct run {
	struct probe p;
	int rc;
};

static const struct probe_check *row(const struct probe *p, const char *name)
{
	for (unsigned i = 0; i < p->nchecks; i++)
		if (!strcmp(p->checks[i].name, name))
			return &p->checks[i];
	fail_msg("no row %s", name);
	return NULL;
}

/* Probe the card opened up to its chip, as `probe` does, and check that nothing was
 * written: no write command counted, the flash unchanged. */
static void probe(struct cxsim_card *c, struct run *r)
{
	struct device d;
	struct cfg_dev cfg;
	struct pci_card pci = {.bdf = CARD_BDF, .device = cxsim_pci_device_now(c)};
	struct cx_status st = {0};
	size_t size;
	uint8_t *flash = cxsim_flash(c, &size);
	uint8_t *before = malloc(size);

	assert_non_null(before);
	memcpy(before, flash, size);
	cxsim_counters_reset(c);
	sim_cfg_attach(&cfg, c, pci.bdf);
	assert_int_equal(device_attach_chip(&d, cfg, &pci, &st), CX_OK);
	r->rc = probe_device(&d, &r->p, &st);
	device_close(&d);
	const struct cxsim_counters *k = cxsim_counters(c);
	assert_int_equal(k->erases + k->bytes_erased + k->bytes_programmed, 0);
	static const uint8_t writes[] = {OP_WRSR, OP_PP, OP_WREN, OP_SSE, OP_SE};
	for (unsigned i = 0; i < sizeof(writes); i++)
		assert_int_equal(k->gw_by_opcode[writes[i]], 0);
	assert_memory_equal(flash, before, size);
	free(before);
}

static struct cxsim_card *healthy(void)
{
	struct cxsim_card *c = card_new(&(struct card_spec){.chip = CXSIM_CX3, .part = "W25Q16", .image = IMAGE});
	assert_true(cxsim_boot_info(c)->booted);
	return c;
}

static void test_healthy_is_safe(void **state)
{
	(void)state;
	struct cxsim_card *c = healthy();
	struct run r;

	probe(c, &r);
	assert_int_equal(r.rc, CX_OK);
	assert_true(probe_safe(&r.p));
	for (unsigned i = 0; i < r.p.nchecks; i++)
		assert_int_equal(r.p.checks[i].result, PROBE_PASS);
	assert_string_equal(row(&r.p, "semaphores")->text, "0xf03a0 free, 0xf03fc free (each left as found)");
	assert_true(r.p.reads_agree && r.p.have_image && r.p.have_running);
	assert_string_equal(r.p.fw_flash, "2.42.5000");
	assert_string_equal(r.p.fw_running, "2.42.5000");
	assert_int_equal(r.p.flash_size, 2u << 20);
	assert_int_equal(r.p.boot_addr, r.p.image_start << 8);
	/* The semaphores were free, and are free again (a read took each; a write gave it back). */
	assert_false(sim_gpio_sem_held(c));
	struct device d;
	struct cx_status st = {0};
	card_open(&d, c);
	assert_int_equal(device_lock(&d, &st), CX_OK);
	device_unlock(&d);
	device_close(&d);
	cxsim_free(c);
}

/* A ConnectX-2 has no 0xf03a0 (§3.5): only 0xf03fc is read. */
static void test_cx2_has_one_semaphore(void **state)
{
	(void)state;
	struct cxsim_card *c = card_new(&(struct card_spec){.chip = CXSIM_CX2, .part = "M25P16",
							     .image = "--chip cx2 --ddr 1 --ddr-size 0x100 --no-rom"});
	struct run r;

	assert_true(cxsim_boot_info(c)->booted);
	probe(c, &r);
	assert_true(probe_safe(&r.p));
	assert_false(r.p.sems[0].present);
	assert_true(r.p.sems[1].checked && !r.p.sems[1].held);
	assert_string_equal(row(&r.p, "semaphores")->text, "0xf03fc free (each left as found)");
	assert_int_equal(cxsim_counters(c)->unmodelled, 0);
	cxsim_free(c);
}

static void test_write_protected_is_not_safe(void **state)
{
	(void)state;
	struct cxsim_card *c = card_new(&(struct card_spec){.chip = CXSIM_CX3, .part = "W25Q16", .image = IMAGE,
							     .write_protect = true});
	struct run r;

	probe(c, &r);
	assert_int_equal(r.rc, CX_OK);
	assert_false(probe_safe(&r.p));
	assert_int_equal(r.p.nfail, 1);
	assert_int_equal(row(&r.p, "protection")->result, PROBE_FAIL);
	assert_non_null(strstr(row(&r.p, "protection")->text, "write-protected"));
	assert_true(r.p.write_protected);
	assert_int_equal(row(&r.p, "image")->result, PROBE_PASS);   /* the rest still ran */
	cxsim_free(c);
}

/* An SST part powers on protected and cxflash clears it before writing: a note. */
static void test_sst_protection_is_a_note(void **state)
{
	(void)state;
	struct cxsim_card *c =
		card_new(&(struct card_spec){.chip = CXSIM_CX3, .part = "SST25VF016B", .image = IMAGE});
	struct run r;

	probe(c, &r);
	assert_true(probe_safe(&r.p));
	assert_true(r.p.write_protected);
	assert_int_equal(row(&r.p, "protection")->result, PROBE_NOTE);
	cxsim_free(c);
}

static void held(bool gpio, const char *held_one, const char *free_one)
{
	struct cxsim_card *c = healthy();
	struct cxsim_params *p = cxsim_params_mut(c);
	struct run r;

	p->sem_held_gpio = gpio;
	p->sem_held_flashprog = !gpio;
	cxsim_power_cycle(c);
	probe(c, &r);
	assert_int_equal(r.rc, CX_OK);
	assert_false(probe_safe(&r.p));
	assert_int_equal(r.p.nfail, 1);
	assert_int_equal(row(&r.p, "semaphores")->result, PROBE_FAIL);
	assert_non_null(strstr(row(&r.p, "semaphores")->text, held_one));
	assert_non_null(strstr(row(&r.p, "semaphores")->text, free_one));
	for (const char *const *n = (const char *const[]){"flash", "protection", "reads", "image", NULL}; *n; n++)
		assert_int_equal(row(&r.p, *n)->result, PROBE_SKIP);
	assert_int_equal(cxsim_counters(c)->gw_cmds, 0);     /* no flash access without the lock */
	/* Still held by the other agent, the free one free: a second probe finds the same. */
	probe(c, &r);
	assert_int_equal(r.p.nfail, 1);
	assert_non_null(strstr(row(&r.p, "semaphores")->text, held_one));
	assert_non_null(strstr(row(&r.p, "semaphores")->text, free_one));
	assert_false(sim_gpio_sem_held(c));
	cxsim_free(c);
}

static void test_held_gpio_semaphore_is_not_safe(void **state)
{
	(void)state;
	held(true, "0xf03fc held (reads 0x1)", "0xf03a0 free");
}

static void test_held_flashprog_semaphore_is_not_safe(void **state)
{
	(void)state;
	held(false, "0xf03a0 held (reads 0x1)", "0xf03fc free");
}

static void test_stuck_busy_is_not_safe(void **state)
{
	(void)state;
	struct cxsim_card *c = healthy();
	struct run r;

	cxsim_params_mut(c)->stuck_busy = true;
	probe(c, &r);
	assert_int_equal(r.rc, CX_OK);
	assert_false(probe_safe(&r.p));
	assert_int_equal(row(&r.p, "flash")->result, PROBE_FAIL);
	assert_non_null(strstr(row(&r.p, "flash")->text, "stuck busy"));
	assert_int_equal(row(&r.p, "reads")->result, PROBE_SKIP);
	cxsim_free(c);
}

/* Recovery mode (a blank flash, or a damaged image) is what a burn fixes: notes, safe. */
static void recovery(struct cxsim_card *c)
{
	struct run r;

	assert_false(cxsim_boot_info(c)->booted);
	probe(c, &r);
	assert_int_equal(r.rc, CX_OK);
	assert_true(probe_safe(&r.p));
	assert_true(r.p.recovery);
	assert_int_equal(row(&r.p, "chip")->result, PROBE_NOTE);
	assert_int_equal(row(&r.p, "image")->result, PROBE_NOTE);
	assert_non_null(strstr(row(&r.p, "image")->text, "no valid image"));
	assert_true(r.p.reads_agree);
	cxsim_free(c);
}

static void test_blank_recovery_card(void **state)
{
	(void)state;
	struct cxsim_card *c = card_new(&(struct card_spec){.chip = CXSIM_CX3, .part = "W25Q16"});
	cxsim_power_cycle(c);
	recovery(c);
}

static void test_corrupt_recovery_card(void **state)
{
	(void)state;
	struct cxsim_card *c = healthy();
	size_t size;
	uint8_t *flash = cxsim_flash(c, &size);

	flash[0x38 + 8] ^= 0xA5;       /* BOOT2's first code dword (as cxsim create --corrupt) */
	cxsim_flash_changed(c);
	cxsim_power_cycle(c);
	recovery(c);
}

static void test_lockdown_file(void **state)
{
	(void)state;
	struct cxsim_card *c = healthy();
	char path[] = "/tmp/cxflash-lockdown-XXXXXX";
	int fd = mkstemp(path);
	struct run r;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, "none [integrity] confidentiality\n", 33), 33);
	close(fd);
	setenv(LOCKDOWN_ENV, path, 1);
	assert_string_equal(lockdown_mode(), "integrity");
	probe(c, &r);
	assert_false(probe_safe(&r.p));
	assert_int_equal(r.p.nfail, 1);
	assert_non_null(strstr(row(&r.p, "lockdown")->text, "turn Secure Boot off in the firmware setup"));
	struct cx_status st = {0};
	cx_fail(&st, CX_EPERM, "cannot open config: %s (run as root)", strerror(EPERM));
	assert_int_equal(lockdown_explain(&st, CARD_BDF), CX_EPERM);
	assert_string_equal(st.msg, CARD_BDF ": Secure Boot's lockdown (integrity) forbids the PCI access "
				    "flashing needs; turn Secure Boot off in the firmware setup");
	/* The card's own lock is not the kernel's: its line stays. */
	cx_status_clear(&st);
	cx_fail(&st, CX_EPERM, "HW access is disabled on the card (crspace locked)");
	lockdown_explain(&st, CARD_BDF);
	assert_string_equal(st.msg, "HW access is disabled on the card (crspace locked)");
	/* "none" selected, and no file at all: nothing changes. */
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_int_equal(write(fd, "[none] integrity confidentiality\n", 33), 33);
	close(fd);
	cx_status_clear(&st);
	cx_fail(&st, CX_EPERM, "as it was");
	lockdown_explain(&st, CARD_BDF);
	assert_string_equal(st.msg, "as it was");
	probe(c, &r);
	assert_true(probe_safe(&r.p));
	unlink(path);
	assert_string_equal(lockdown_mode(), "none");
	unsetenv(LOCKDOWN_ENV);
	cxsim_free(c);
}

static struct f3 fs3_img;

/* A ConnectX-4 Lx / 5 in recovery mode holding an FS3 / FS4 image (fs3_sim_card.h). */
static struct cxsim_card *fs3_card(enum cxsim_chip chip, bool fs4, uint32_t hw_id)
{
	struct f3_spec s = f3_defaults(fs4);

	s.hw_id = hw_id;
	f3_build(&fs3_img, &s);
	fc_card_devdata(&fs3_img, SC_GUID);
	struct cxsim_card *c = sc_new(chip, false);
	assert_non_null(c);
	sc_install(c, &fs3_img, 1);
	return c;
}

/* The gateway's lock instead of the 0xf03xx semaphores, the FS3 image verified from the two
 * whole reads, the boot address per chip: safe, nothing written (probe() checks that). */
static void test_connectx4lx_recovery_card(void **state)
{
	(void)state;
	struct cxsim_card *c = fs3_card(CXSIM_CX4LX, false, 0x20B);
	struct run r;

	probe(c, &r);
	assert_int_equal(r.rc, CX_OK);
	assert_true(probe_safe(&r.p));
	assert_true(r.p.gw_lock && !r.p.gw_lock_held && r.p.recovery && r.p.reads_agree && r.p.have_image);
	assert_non_null(strstr(row(&r.p, "semaphores")->text, "lock (bit 31 of 0xf0400) free"));
	assert_non_null(strstr(row(&r.p, "image")->text, "FS3 FW"));
	assert_int_equal(r.p.image_start, 1u << sc_slot_log(&fs3_img));
	assert_int_equal(r.p.flash_size, 16u << 20);
	assert_int_equal(cxsim_counters(c)->gw_without_sem, 0);
	assert_int_equal(cxsim_counters(c)->gw_cache_rep_on, 0);
	cxsim_free(c);
}

/* Another tool holds the gateway's lock: FAIL, and the flash is not read. */
static void test_connectx5_gateway_lock_held(void **state)
{
	(void)state;
	struct cxsim_card *c = fs3_card(CXSIM_CX5, true, 0x20D);
	struct run r;

	cxsim_params_mut(c)->gw_lock_held = true;
	cxsim_power_cycle(c); /* the fault holds the lock from power-on */
	probe(c, &r);
	assert_false(probe_safe(&r.p));
	assert_true(r.p.gw_lock_held);
	assert_int_equal(row(&r.p, "semaphores")->result, PROBE_FAIL);
	assert_int_equal(row(&r.p, "flash")->result, PROBE_SKIP);
	assert_int_equal(cxsim_counters(c)->gw_cmds, 0);
	cxsim_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_healthy_is_safe),
		cmocka_unit_test(test_cx2_has_one_semaphore),
		cmocka_unit_test(test_write_protected_is_not_safe),
		cmocka_unit_test(test_sst_protection_is_a_note),
		cmocka_unit_test(test_held_gpio_semaphore_is_not_safe),
		cmocka_unit_test(test_held_flashprog_semaphore_is_not_safe),
		cmocka_unit_test(test_stuck_busy_is_not_safe),
		cmocka_unit_test(test_blank_recovery_card),
		cmocka_unit_test(test_corrupt_recovery_card),
		cmocka_unit_test(test_lockdown_file),
		cmocka_unit_test(test_connectx4lx_recovery_card),
		cmocka_unit_test(test_connectx5_gateway_lock_held),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
