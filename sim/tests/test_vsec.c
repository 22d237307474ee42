/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_vsec.c — the model's VSEC gateway against hw-access.md §2.4, register by register:
 * the capability, space selection and status, the ticket counter and semaphore (and the
 * fault that holds it), the ADDR flag for reads and writes, accesses to spaces it does not
 * model, partial writes, the window beside it, the state file and the option words. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cxsim.h"
#include "scratch.h" /* burner/tests/support: the tests' one rm_rf */

#define VSEC 0xC0                /* where the model puts it */
#define CTRL (VSEC + 0x04)
#define COUNTER (VSEC + 0x08)
#define SEM (VSEC + 0x0C)
#define ADDR (VSEC + 0x10)
#define DATA (VSEC + 0x14)
#define FLAG 0x80000000u
#define STATUS(v) ((v) >> 29)

static struct cxsim_card *card(uint32_t spaces, bool sem_held)
{
	struct cxsim_params p;

	cxsim_params_default(&p, CXSIM_CX3);
	p.vsec_spaces = spaces;
	p.sem_held_vsec = sem_held;
	struct cxsim_card *c = cxsim_new(&p);
	assert_non_null(c);
	return c;
}

static uint32_t rd(struct cxsim_card *c, unsigned off)
{
	return cxsim_cfg_read(c, off, 4);
}

static void wr(struct cxsim_card *c, unsigned off, uint32_t v)
{
	cxsim_cfg_write(c, off, v, 4);
}

static void select_space(struct cxsim_card *c, uint16_t space)
{
	wr(c, CTRL, (rd(c, CTRL) & 0xFFFF0000u) | space);
}

static uint32_t vsec_read(struct cxsim_card *c, uint32_t addr)
{
	wr(c, ADDR, addr);
	assert_true(rd(c, ADDR) & FLAG);   /* done at the first poll */
	return rd(c, DATA);
}

static void vsec_write(struct cxsim_card *c, uint32_t addr, uint32_t v)
{
	wr(c, DATA, v);
	wr(c, ADDR, addr | FLAG);
	assert_false(rd(c, ADDR) & FLAG);
}

static uint32_t window_read(struct cxsim_card *c, uint32_t addr)
{
	wr(c, 0x58, addr);
	return rd(c, 0x5C);
}

static unsigned find_cap(struct cxsim_card *c, uint8_t id)
{
	unsigned ptr = cxsim_cfg_read(c, 0x34, 1), seen = 0;

	while (ptr && seen++ < 48) {
		if (cxsim_cfg_read(c, ptr, 1) == id)
			return ptr;
		ptr = cxsim_cfg_read(c, ptr + 1, 1);
	}
	return 0;
}

static void test_capability(void **state)
{
	(void)state;
	struct cxsim_card *c = card(0, false);
	assert_int_equal(find_cap(c, 0x09), 0);          /* the default card has none */
	cxsim_free(c);

	c = card(CXSIM_VSEC_FULL, false);
	assert_int_equal(find_cap(c, 0x11), 0x9C);       /* MSI-X is still there ... */
	assert_int_equal(find_cap(c, 0x09), VSEC);       /* ... and links to the VSEC */
	uint32_t hdr = rd(c, VSEC);
	assert_int_equal(hdr & 0xFF, 0x09);
	assert_int_equal((hdr >> 8) & 0xFF, 0);          /* last in the list */
	assert_int_equal((hdr >> 16) & 0xFF, 0x18);
	assert_int_equal(hdr >> 24, 0);                  /* functional */
	assert_int_equal(window_read(c, 0xF0014), 0x000101F5);   /* the window still works */
	cxsim_free(c);
}

static void test_space_status(void **state)
{
	(void)state;
	struct cxsim_card *c = card(CXSIM_VSEC_FULL, false);
	static const struct {
		uint16_t space;
		bool ok;
	} t[] = {{1, true}, {2, true}, {0xA, true}, {3, false}, {4, false}, {0xF, false}, {0x101, false}};

	for (unsigned i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		select_space(c, t[i].space);
		uint32_t v = rd(c, CTRL);
		assert_int_equal(v & 0xFFFF, t[i].space);
		assert_int_equal(STATUS(v) != 0, t[i].ok);
	}
	/* The status bits are read-only: writing them back (mtcr's read-modify-write) or
	 * setting them changes nothing. */
	wr(c, CTRL, 0xE0000003u);
	assert_int_equal(rd(c, CTRL), 3);
	cxsim_free(c);

	c = card(CXSIM_VSEC_CRSPACE_ONLY, false);
	select_space(c, 1);
	assert_int_equal(STATUS(rd(c, CTRL)), 0);
	select_space(c, 2);
	assert_int_not_equal(STATUS(rd(c, CTRL)), 0);
	cxsim_free(c);
}

static void test_ticket_semaphore(void **state)
{
	(void)state;
	struct cxsim_card *c = card(CXSIM_VSEC_FULL, false);
	uint32_t t1 = rd(c, COUNTER), t2 = rd(c, COUNTER);

	assert_int_not_equal(t1, 0);
	assert_int_equal(t2, t1 + 1);                    /* one more on each read */
	assert_int_equal(rd(c, SEM), 0);
	wr(c, SEM, t2);                                  /* free: the ticket takes it */
	assert_int_equal(rd(c, SEM), t2);
	wr(c, SEM, t1);                                  /* held: someone else's ticket is ignored */
	assert_int_equal(rd(c, SEM), t2);
	wr(c, SEM, 0);
	assert_int_equal(rd(c, SEM), 0);
	cxsim_free(c);

	/* Held by another agent from power-on (cxsim fault --vsec-sem-held on) until 0 is written. */
	c = card(CXSIM_VSEC_FULL, true);
	uint32_t held = rd(c, SEM);
	assert_int_not_equal(held, 0);
	wr(c, SEM, rd(c, COUNTER));
	assert_int_equal(rd(c, SEM), held);
	wr(c, SEM, 0);
	assert_int_equal(rd(c, SEM), 0);
	cxsim_power_cycle(c);
	assert_int_equal(rd(c, SEM), held);
	cxsim_free(c);
}

static void test_crspace_through_the_flag(void **state)
{
	(void)state;
	struct cxsim_card *c = card(CXSIM_VSEC_FULL, false);

	select_space(c, CXSIM_AS_CR_SPACE);
	wr(c, SEM, rd(c, COUNTER));
	cxsim_counters_reset(c);
	/* Read: the address with flag 0; the hardware sets the flag when DATA holds the value. */
	wr(c, ADDR, 0xF0014);
	assert_int_equal(rd(c, ADDR), FLAG | 0xF0014);
	assert_int_equal(rd(c, DATA), 0x000101F5);
	/* Write: DATA, then the address with flag 1; the hardware clears it when done. */
	vsec_write(c, 0xF0000, 0x00080000);
	assert_int_equal(rd(c, ADDR), 0xF0000);
	assert_int_equal(vsec_read(c, 0xF0000), 0x00080000);
	const struct cxsim_counters *k = cxsim_counters(c);
	assert_int_equal(k->vsec_accesses, 3);
	assert_int_equal(k->vsec_without_sem, 0);
	assert_int_equal(k->cr_reads, 2);
	assert_int_equal(k->cr_writes, 1);
	/* The same crspace as the window's. */
	assert_int_equal(window_read(c, 0xF0000), 0x00080000);
	/* An access without the semaphore still works, and is counted. */
	wr(c, SEM, 0);
	assert_int_equal(vsec_read(c, 0xF0014), 0x000101F5);
	assert_int_equal(k->vsec_without_sem, 1);
	cxsim_free(c);
}

static int logged;
static void count_log(void *ctx, const char *msg)
{
	(void)ctx;
	if (strstr(msg, "VSEC"))
		logged++;
}

static void test_other_spaces(void **state)
{
	(void)state;
	struct cxsim_card *c = card(CXSIM_VSEC_FULL, false);

	cxsim_set_log(c, count_log, NULL);
	logged = 0;
	select_space(c, CXSIM_AS_CR_SPACE);
	vsec_write(c, 0xF0000, 0x1234);
	cxsim_counters_reset(c);
	/* Supported but not modelled (ICMD_EXT), and not supported (ICMD, 3): both read 0,
	 * write nothing, and are logged and counted. */
	for (uint16_t space = 1; space <= 3; space += 2) {
		select_space(c, space);
		wr(c, DATA, 0xDEAD);
		assert_int_equal(vsec_read(c, 0xF0000), 0);
		vsec_write(c, 0xF0000, 0x5678);
	}
	assert_int_equal(cxsim_counters(c)->unmodelled, 4);
	assert_int_equal(cxsim_counters(c)->cr_reads + cxsim_counters(c)->cr_writes, 0);
	assert_int_equal(logged, 4);
	select_space(c, CXSIM_AS_CR_SPACE);
	assert_int_equal(vsec_read(c, 0xF0000), 0x1234);
	cxsim_free(c);
}

static void test_partial_writes(void **state)
{
	(void)state;
	struct cxsim_card *c = card(CXSIM_VSEC_FULL, false);

	cxsim_cfg_write(c, CTRL, 0x02, 1);               /* a byte write selects a space too */
	assert_int_equal(rd(c, CTRL) & 0xFFFF, 2);
	cxsim_cfg_write(c, DATA + 2, 0xBEEF, 2);
	assert_int_equal(rd(c, DATA), 0xBEEF0000u);
	uint32_t t = rd(c, COUNTER);
	cxsim_cfg_write(c, SEM, t & 0xFFFF, 2);
	assert_int_equal(rd(c, SEM), t & 0xFFFF);
	cxsim_free(c);
}

static void test_state_file(void **state)
{
	(void)state;
	char dir[] = "/tmp/cxsim-vsec-XXXXXX", stem[64], path[80], err[160], line[128];
	bool seen = false;

	assert_non_null(mkdtemp(dir));
	snprintf(stem, sizeof(stem), "%s/card", dir);
	snprintf(path, sizeof(path), "%s.conf", stem);
	/* A card without a VSEC keeps the .conf it always had: no new keys. */
	struct cxsim_card *c = card(0, false);
	assert_int_equal(cxsim_save(c, stem, err, sizeof(err)), 0);
	cxsim_free(c);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		seen |= strstr(line, "vsec") != NULL;
	fclose(f);
	assert_false(seen);
	/* With one, both keys come back. */
	c = card(CXSIM_VSEC_CRSPACE_ONLY, true);
	assert_int_equal(cxsim_save(c, stem, err, sizeof(err)), 0);
	cxsim_free(c);
	c = cxsim_load(stem, err, sizeof(err));
	assert_non_null(c);
	assert_int_equal(cxsim_get_params(c)->vsec_spaces, CXSIM_VSEC_CRSPACE_ONLY);
	assert_true(cxsim_get_params(c)->sem_held_vsec);
	assert_int_not_equal(rd(c, SEM), 0);
	cxsim_free(c);
	rm_rf(dir);
}

static void test_option_words(void **state)
{
	(void)state;
	uint32_t m;

	assert_int_equal(cxsim_vsec_parse("full", &m), 0);
	assert_int_equal(m, CXSIM_VSEC_FULL);
	assert_int_equal(m, (1u << 1) | (1u << 2) | (1u << 0xA));
	assert_int_equal(cxsim_vsec_parse("crspace-only", &m), 0);
	assert_int_equal(m, 1u << 2);
	assert_int_equal(cxsim_vsec_parse("none", &m), 0);
	assert_int_equal(m, 0);
	assert_int_equal(cxsim_vsec_parse("cr_space,icmd_ext,semaphore", &m), 0);
	assert_int_equal(m, CXSIM_VSEC_FULL);
	assert_int_equal(cxsim_vsec_parse("2,1,0xa", &m), 0);
	assert_int_equal(m, CXSIM_VSEC_FULL);
	assert_int_equal(cxsim_vsec_parse("mac,31", &m), 0);
	assert_int_equal(m, (1u << 0xF) | (1u << 31));
	static const char *const bad[] = {"", "foo", "32", "cr_space,", ",", "2x", "-1", "Full"};
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(cxsim_vsec_parse(bad[i], &m), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_capability),
		cmocka_unit_test(test_space_status),
		cmocka_unit_test(test_ticket_semaphore),
		cmocka_unit_test(test_crspace_through_the_flag),
		cmocka_unit_test(test_other_spaces),
		cmocka_unit_test(test_partial_writes),
		cmocka_unit_test(test_state_file),
		cmocka_unit_test(test_option_words),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
