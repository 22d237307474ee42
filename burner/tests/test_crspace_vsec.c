/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_crspace_vsec.c — the VSEC gateway (hw-access.md §2.4) against the card model in
 * process: what goes through it equals what goes through the 0x58/0x5c window; a gateway
 * with mtcr's minimum spaces is used and one with CR_SPACE alone is not; the BAR still
 * wins where it is used; CXFLASH_ACCESS picks; a held VSEC semaphore refuses before
 * anything is written and --clear-semaphore gets past it; the semaphore is free after
 * every access, failed ones included, and a signal never lands while it is held; and a
 * whole burn through the gateway boots with the card's identity. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/burn.h"
#include "card_fixture.h"
#include "card_ops.h"
#include "sim_cfg.h"
#include "mkimage.h"
#include "util/signals.h"

#define CARD_GUID "0002c90300c0ffe0"
#define CARD_MAC "0002c9c0ffe0"
#define CR_BOOT_ADDR 0xF0000     /* a plain read/write register of the model, §4.4 */
#define CR_FW_VERSION 0x1F064    /* §1.2 */
#define CR_GW_DATA 0xF0410       /* flash gateway data dwords, §3.1 */
#define VSEC_COUNTER 0x08        /* §2.4 */
#define VSEC_SEM 0x0C            /* §2.4 */
#define BDF "0000:01:00.0"

static struct cxsim_card *card(uint32_t vsec_spaces, bool bar, const char *opts)
{
	struct cxsim_params p;

	cxsim_params_default(&p, CXSIM_CX3);
	p.vsec_spaces = vsec_spaces;
	p.bar0_crspace = bar;
	return card_new_with(&p, opts);
}

static int attach(struct device *d, struct cxsim_card *c, bool clear_sem, struct cx_status *st)
{
	struct cfg_dev cfg;
	struct pci_card pci = {.bdf = BDF, .device = cxsim_pci_device_now(c)};

	sim_cfg_attach(&cfg, c, pci.bdf);
	return device_attach_mem(d, cfg, sim_crmem(c), &pci, clear_sem, st);
}

/* The model's VSEC semaphore register, read as any other agent would. */
static uint32_t vsec_sem(struct cxsim_card *c, const struct crspace *cr)
{
	assert_int_not_equal(cr->vsec, 0);
	return cxsim_cfg_read(c, cr->vsec + VSEC_SEM, 4);
}

/* Another agent takes the free semaphore with the ticket protocol. */
static void other_agent_takes(struct cxsim_card *c, const struct crspace *cr)
{
	uint32_t t = cxsim_cfg_read(c, cr->vsec + VSEC_COUNTER, 4);
	cxsim_cfg_write(c, cr->vsec + VSEC_SEM, t, 4);
	assert_int_equal(cxsim_cfg_read(c, cr->vsec + VSEC_SEM, 4), t);
}

static void test_vsec_and_window_agree(void **state)
{
	(void)state;
	struct cxsim_card *c = card(CXSIM_VSEC_FULL, false, "--chip cx3 --ddr 2 --fw 2.42.5000");
	struct cfg_dev cfg;
	struct crspace v, w;
	struct cx_status st = {0};
	/* Not the read-to-lock semaphores: their first read changes them. */
	static const uint32_t regs[] = {CR_HW_ID, CR_FW_VERSION, CR_FW_VERSION + 4, CR_BOOT_ADDR};
	uint32_t a, b;

	sim_cfg_attach(&cfg, c, BDF);
	assert_int_equal(cr_open(&v, &cfg, 0, &st), CX_OK);
	assert_int_equal(cr_open(&w, &cfg, CR_WINDOW, &st), CX_OK);
	assert_string_equal(cr_method(&v), "vsec");
	assert_string_equal(cr_method(&w), "config");
	assert_int_equal(v.vsec, w.vsec);   /* the window path found it too, and left it alone */
	cxsim_counters_reset(c);
	for (unsigned i = 0; i < sizeof(regs) / sizeof(regs[0]); i++) {
		assert_int_equal(cr_read(&v, regs[i], &a, &st), CX_OK);
		assert_int_equal(vsec_sem(c, &v), 0);
		assert_int_equal(cr_read(&w, regs[i], &b, &st), CX_OK);
		assert_int_equal(a, b);
	}
	/* Writes land in the same registers, whichever way they go. */
	assert_int_equal(cr_write(&v, CR_BOOT_ADDR, 0x00080000, &st), CX_OK);
	assert_int_equal(vsec_sem(c, &v), 0);
	assert_int_equal(cr_read(&w, CR_BOOT_ADDR, &b, &st), CX_OK);
	assert_int_equal(b, 0x00080000);
	assert_int_equal(cr_write(&w, CR_GW_DATA, 0xA5A5F00D, &st), CX_OK);
	assert_int_equal(cr_read(&v, CR_GW_DATA, &a, &st), CX_OK);
	assert_int_equal(a, 0xA5A5F00D);
	const struct cxsim_counters *k = cxsim_counters(c);
	assert_int_equal(k->vsec_accesses, 4 + 1 + 1);
	assert_int_equal(k->vsec_without_sem, 0);
	assert_int_equal(k->unmodelled, 0);
	cr_close(&v);
	cr_close(&w);
	cxsim_free(c);
}

static void test_which_method(void **state)
{
	(void)state;
	struct cx_status st = {0};
	struct device d;
	struct cxsim_card *c;

	/* mtcr's minimum (CR_SPACE, ICMD_EXT, SEMAPHORE): used. */
	c = card(CXSIM_VSEC_FULL, false, "--chip cx3 --ddr 2");
	assert_int_equal(attach(&d, c, false, &st), CX_OK);
	assert_string_equal(cr_method(&d.chip.cr), "vsec");
	device_close(&d);
	cxsim_free(c);

	/* CR_SPACE alone: mtcr would not use it, nor do we. */
	c = card(CXSIM_VSEC_CRSPACE_ONLY, false, "--chip cx3 --ddr 2");
	assert_int_equal(attach(&d, c, false, &st), CX_OK);
	assert_string_equal(cr_method(&d.chip.cr), "config");
	assert_int_not_equal(d.chip.cr.vsec, 0);
	assert_non_null(strstr(d.chip.cr.no_vsec, "lacks"));
	cxsim_counters_reset(c);
	assert_int_equal(cr_write(&d.chip.cr, CR_BOOT_ADDR, 0x80000, &st), CX_OK);
	assert_int_equal(cxsim_counters(c)->vsec_accesses, 0);
	assert_int_equal(vsec_sem(c, &d.chip.cr), 0);   /* the probe let go of it */
	/* ... and asking for it is an error that says why. */
	setenv("CXFLASH_ACCESS", "vsec", 1);
	device_close(&d);
	assert_int_equal(attach(&d, c, false, &st), CX_ENODEV);
	assert_non_null(strstr(st.msg, "CR_SPACE, ICMD_EXT or SEMAPHORE"));
	assert_non_null(strstr(st.msg, "CXFLASH_ACCESS=vsec"));
	device_close(&d);
	unsetenv("CXFLASH_ACCESS");
	cxsim_free(c);

	/* No VSEC at all (the default card): the window, as before. */
	c = card(0, false, "--chip cx3 --ddr 2");
	assert_int_equal(attach(&d, c, false, &st), CX_OK);
	assert_string_equal(cr_method(&d.chip.cr), "config");
	assert_int_equal(d.chip.cr.vsec, 0);
	device_close(&d);
	cxsim_free(c);

	/* The BAR wins where it is used today; CXFLASH_ACCESS picks otherwise. */
	c = card(CXSIM_VSEC_FULL, true, "--chip cx3 --ddr 2");
	assert_int_equal(attach(&d, c, false, &st), CX_OK);
	assert_string_equal(cr_method(&d.chip.cr), "bar0");
	device_close(&d);
	setenv("CXFLASH_ACCESS", "vsec", 1);
	assert_int_equal(attach(&d, c, false, &st), CX_OK);
	assert_string_equal(cr_method(&d.chip.cr), "vsec");
	device_close(&d);
	setenv("CXFLASH_ACCESS", "config", 1);
	cxsim_counters_reset(c);
	assert_int_equal(attach(&d, c, false, &st), CX_OK);
	assert_string_equal(cr_method(&d.chip.cr), "config");
	assert_int_equal(cxsim_counters(c)->vsec_accesses, 0);
	device_close(&d);
	unsetenv("CXFLASH_ACCESS");
	cxsim_free(c);
}

static void test_held_vsec_semaphore(void **state)
{
	(void)state;
	struct cxsim_card *c = card(CXSIM_VSEC_FULL, false, "--chip cx3 --ddr 2");
	struct cx_status st = {0};
	struct device d;
	uint32_t v;

	/* Held from power-on by another agent: refused at open, before any crspace access. */
	cxsim_params_mut(c)->sem_held_vsec = true;
	cxsim_power_cycle(c);
	cxsim_counters_reset(c);
	assert_int_equal(attach(&d, c, false, &st), CX_EBUSY);
	assert_non_null(strstr(st.msg, "VSEC gateway semaphore"));
	assert_non_null(strstr(st.msg, "--clear-semaphore"));
	assert_null(strchr(st.msg, '\n'));
	const struct cxsim_counters *k = cxsim_counters(c);
	assert_int_equal(k->cr_reads + k->cr_writes, 0);
	assert_true(k->time_ns >= 2000000000ull);   /* 2048 tries, 1 ms apart */
	device_close(&d);

	/* --clear-semaphore frees it first, as mtcr's Clear_Vsec_Semaphore. */
	cx_status_clear(&st);
	assert_int_equal(attach(&d, c, true, &st), CX_OK);
	assert_string_equal(cr_method(&d.chip.cr), "vsec");
	assert_int_equal(vsec_sem(c, &d.chip.cr), 0);

	/* Taken mid-session: the write is refused and nothing reaches crspace. */
	assert_int_equal(cr_read(&d.chip.cr, CR_BOOT_ADDR, &v, &st), CX_OK);
	other_agent_takes(c, &d.chip.cr);
	cxsim_counters_reset(c);
	assert_int_equal(cr_write(&d.chip.cr, CR_BOOT_ADDR, v ^ 0x100, &st), CX_EBUSY);
	assert_int_equal(k->cr_writes + k->cr_reads, 0);
	assert_int_not_equal(vsec_sem(c, &d.chip.cr), 0);   /* still theirs: we did not free it */
	device_close(&d);
	cx_status_clear(&st);
	assert_int_equal(attach(&d, c, true, &st), CX_OK);
	uint32_t after;
	assert_int_equal(cr_read(&d.chip.cr, CR_BOOT_ADDR, &after, &st), CX_OK);
	assert_int_equal(after, v);
	assert_int_equal(cr_write(&d.chip.cr, CR_BOOT_ADDR, v ^ 0x100, &st), CX_OK);
	assert_int_equal(cr_read(&d.chip.cr, CR_BOOT_ADDR, &after, &st), CX_OK);
	assert_int_equal(after, v ^ 0x100);
	device_close(&d);
	cxsim_free(c);
}

/* A signal sent while the VSEC semaphore is held must wait until it is free. */
struct sig_probe {
	struct cxsim_card *card;
	unsigned vsec;
	bool armed;
	int delivered;
	uint32_t sem_at_delivery;
};
static struct sig_probe probe;

static void on_sigterm(int sig)
{
	(void)sig;
	probe.delivered++;
	probe.sem_at_delivery = cxsim_cfg_read(probe.card, probe.vsec + VSEC_SEM, 4);
}

static void raise_while_held(void *ctx, struct cxsim_card *c)
{
	(void)ctx;
	if (probe.armed && cxsim_cfg_read(c, probe.vsec + VSEC_SEM, 4)) {
		probe.armed = false;
		raise(SIGTERM);
	}
}

static void test_semaphore_always_released(void **state)
{
	(void)state;
	struct cxsim_card *c = card(CXSIM_VSEC_FULL, false, "--chip cx3 --ddr 2");
	struct cfg_dev cfg;
	struct crspace cr;
	struct cx_status st = {0};
	uint32_t v;

	sim_cfg_attach(&cfg, c, BDF);
	assert_int_equal(cr_open(&cr, &cfg, 0, &st), CX_OK);
	assert_int_equal(vsec_sem(c, &cr), 0);

	/* SIGTERM raised right after the semaphore is taken arrives once it is free. */
	probe = (struct sig_probe){.card = c, .vsec = cr.vsec, .armed = true};
	signal(SIGTERM, on_sigterm);
	sim_cfg_set_hook(raise_while_held, NULL);
	assert_int_equal(cr_read(&cr, CR_HW_ID, &v, &st), CX_OK);
	sim_cfg_set_hook(NULL, NULL);
	signal(SIGTERM, SIG_DFL);
	assert_false(probe.armed);
	assert_int_equal(probe.delivered, 1);
	assert_int_equal(probe.sem_at_delivery, 0);
	assert_int_equal(v & 0xFFFF, 0x1F5);

	/* A failed access lets go too: the gateway stops offering CR_SPACE. */
	cxsim_params_mut(c)->vsec_spaces &= ~CXSIM_VSEC_BIT(CXSIM_AS_CR_SPACE);
	assert_int_equal(cr_read(&cr, CR_HW_ID, &v, &st), CX_ENODEV);
	assert_non_null(strstr(st.msg, "CR_SPACE"));
	assert_int_equal(vsec_sem(c, &cr), 0);
	cxsim_params_mut(c)->vsec_spaces = CXSIM_VSEC_FULL;
	cr_close(&cr);
	cxsim_free(c);
}

static void test_burn_through_vsec_keeps_identity(void **state)
{
	(void)state;
	struct cxsim_card *c = card(CXSIM_VSEC_FULL, false,
				    "--chip cx3 --ddr 3 --fw 2.40.7000 --guid " CARD_GUID " --mac " CARD_MAC);
	struct device d;
	struct cx_status st = {0};
	size_t fsize;
	uint8_t *buf;

	assert_int_equal(attach(&d, c, false, &st), CX_OK);
	assert_string_equal(cr_method(&d.chip.cr), "vsec");
	cxsim_counters_reset(c);
	device_burn_ok(&d, "--chip cx3 --ddr 3 --fw 2.42.5000 --seed 3");
	const struct cxsim_counters *k = cxsim_counters(c);
	assert_true(k->vsec_accesses > 1000);
	assert_int_equal(k->vsec_without_sem, 0);
	assert_int_equal(k->gw_without_sem, 0);
	assert_int_equal(vsec_sem(c, &d.chip.cr), 0);
	/* The whole flash read through the gateway is the model's flash. */
	assert_int_equal(device_read_flash(&d, &buf, &st), CX_OK);
	assert_memory_equal(buf, cxsim_flash(c, &fsize), d.flash.size);
	free(buf);
	device_close(&d);
	expect_cold_boot(c, 42, 0x0002c90300c0ffe0ull, 0x0002c9c0ffe0ull);
	cxsim_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vsec_and_window_agree),
		cmocka_unit_test(test_which_method),
		cmocka_unit_test(test_held_vsec_semaphore),
		cmocka_unit_test(test_semaphore_always_released),
		cmocka_unit_test(test_burn_through_vsec_keeps_identity),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
