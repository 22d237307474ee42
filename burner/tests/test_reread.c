/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_reread.c — after a write the wizard reads the written card again in its place
 * (rescue/inventory.h: inv_reread), not the whole bus: the table keeps its size and every
 * index stays the card it was. Issue 28 found the other way: after a write the wizard read
 * every card again, rebuilt the table, and went on with the same integer index to the port
 * type and SR-IOV screen that follows a cross-flash; a bus that then listed fewer cards, or
 * could not be listed (ncards 0, cards NULL), had it index past the table.
 *
 * Each session here cross-flashes the SECOND of two cards from the menu, on a bus that lists
 * both at the start and then fewer, or fails, whenever it is asked again. This is built with
 * AddressSanitizer (make check-unit): an index past the table is a heap overflow or a NULL
 * dereference, and the process dies with its report. The session must instead go on: the
 * screen opens for the card written, the power-off screen follows, the card boots the new
 * image, and the bus was listed once, at the start. Whole sessions on in-process simulated
 * cards (tests/support/), driven through the public API (rescue/menu.h) as the test_wizard_*.c sessions. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "card_fixture.h"
#include "rescue/menu.h"
#include "sim_cfg.h"
#include "util/fileio.h"

#define HP_PSID "HP_0280210019"
#define STOCK_PSID "MT_1090120019"   /* mkfs2's default ConnectX-3 PSID */
#define SMALL "--ddr 2 --ddr-size 0x1000"
#define NCARDS 2
#define G_HP 0x0002c90300c0ffe0ull
#define M_HP 0x0002c9c0ffe0ull

/* The HP board maps to the stock one, stated: its cross-flash is OK, not RISKY. */
static const char *const boards =
	"HP | 649281-B21 | " HP_PSID " | cx3 | 103c:18d6 | MCX354A-FCBT | " STOCK_PSID " | vpi | FDR | stated | "
	"https://example.org/src | - | -\n";

enum later { LISTS_ALL, LISTS_FEWER, LISTS_NOTHING };

struct bench {
	char root[64], data[96], fw[96], table[96];
	const char *fw_dirs[1];
	struct cxsim_card *card[NCARDS];
	enum later later;            /* what the bus lists after its first listing */
	int lists;                   /* times the bus was listed */
	char *screen;
	size_t screen_len;
};

static void make_file(const char *path, const char *text)
{
	struct cx_status st = {0};

	assert_int_equal(file_write(path, (const uint8_t *)text, strlen(text), &st), CX_OK);
}

/* A ConnectX-3 with mkfs2's image of opts (GUID guid, MAC mac) and this subsystem. */
static struct cxsim_card *card_with(const char *opts, uint16_t sv, uint16_t sd, uint64_t guid, uint64_t mac)
{
	struct cxsim_params p;
	char o[300];

	cxsim_params_default(&p, CXSIM_CX3);
	snprintf(p.flash_part, sizeof(p.flash_part), "W25Q80");
	p.subsys_vendor = sv;
	p.subsys_device = sd;
	struct cxsim_card *c = cxsim_new(&p);
	assert_non_null(c);
	snprintf(o, sizeof(o), "%s --guid %016llx --mac %012llx", opts, (unsigned long long)guid,
		 (unsigned long long)mac);
	card_install(c, o, 0);
	return c;
}

/* Slot 1: a stock card one version behind; slot 2: an HP card, to be cross-flashed to stock.
 * The test's initial state says what the bus lists after the start (enum later). */
static int setup(void **state)
{
	struct bench *b = calloc(1, sizeof(*b));
	char cmd[512];

	assert_non_null(b);
	b->later = *(const enum later *)*state;
	snprintf(b->root, sizeof(b->root), "/tmp/cx-reread-XXXXXX");
	assert_non_null(mkdtemp(b->root));
	snprintf(b->data, sizeof(b->data), "%s/data", b->root);
	snprintf(b->fw, sizeof(b->fw), "%s/firmware", b->root);
	snprintf(b->table, sizeof(b->table), "%s/boards.txt", b->root);
	assert_int_equal(mkdir(b->data, 0755), 0);
	assert_int_equal(mkdir(b->fw, 0755), 0);
	make_file(b->table, boards);
	snprintf(cmd, sizeof(cmd), "%s/host/mkfs2 -o %s/stock.bin --chip cx3 --fw 2.42.5000 " SMALL
		 " --flash-size 0x100000 >/dev/null", getenv("CXR_BUILD") ? getenv("CXR_BUILD") : "build", b->fw);
	assert_int_equal(system(cmd), 0);
	b->card[0] = card_with("--chip cx3 --fw 2.40.5030 " SMALL, 0x15b3, 0x0022, 0x0002c90300b0bbb0ull,
			       0x0002c9b0bbb0ull);
	b->card[1] = card_with("--chip cx3 --psid " HP_PSID " --fw 2.40.5030 " SMALL, 0x103c, 0x18d6, G_HP, M_HP);
	*state = b;
	return 0;
}

static int teardown(void **state)
{
	struct bench *b = *state;
	char cmd[128];

	for (int i = 0; i < NCARDS; i++)
		cxsim_free(b->card[i]);
	free(b->screen);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", b->root);
	if (system(cmd))
		return -1;
	free(b);
	return 0;
}

/* Both cards the first time; then as b->later says. */
static int bus_list(void *ctx, struct pci_card *out, int max, int *n, struct cx_status *st)
{
	struct bench *b = ctx;
	bool again = b->lists++ > 0;
	int shown = again && b->later == LISTS_FEWER ? 1 : NCARDS;

	if (again && b->later == LISTS_NOTHING)
		return cx_fail(st, CX_EIO, "the bus cannot be read now");
	*n = 0;
	for (int i = 0; i < shown && *n < max; i++) {
		struct pci_card *p = &out[(*n)++];
		const struct cxsim_params *pp = cxsim_get_params(b->card[i]);
		memset(p, 0, sizeof(*p));
		snprintf(p->bdf, sizeof(p->bdf), "0000:%02x:00.0", i + 1);
		p->device = cxsim_pci_device_now(b->card[i]);
		p->subsys_vendor = pp->subsys_vendor;
		p->subsys_device = pp->subsys_device;
		p->class_code = cxsim_class_now(b->card[i]);
		assert_true(pci_id_known(p->device, &p->kind, &p->family));
	}
	return CX_OK;
}

/* Every card stays where it is: only the listing changes. */
static int bus_open(void *ctx, const struct pci_card *pci, struct device *d, struct cx_status *st)
{
	struct bench *b = ctx;
	struct cfg_dev cfg;
	unsigned slot;

	if (sscanf(pci->bdf, "0000:%2x:00.0", &slot) != 1 || slot < 1 || slot > NCARDS)
		return cx_fail(st, CX_EABSENT, "no card at %s", pci->bdf);
	sim_cfg_attach(&cfg, b->card[slot - 1], pci->bdf);
	return device_attach(d, cfg, pci, false, st);
}

/* One session with these answers; the screen into b->screen. */
static int session(struct bench *b, const char *answers)
{
	struct wizard_bus bus = {.list = bus_list, .open = bus_open, .ctx = b};
	struct wizard_opts o = {.data_dir = b->data, .data_kind = "stick", .console = "test", .boards = b->table,
				.firmware = b->fw_dirs, .nfirmware = 1};
	char *in = strdup(answers);
	struct prompt p = {0};

	assert_non_null(in);
	b->fw_dirs[0] = b->fw;
	p.in = fmemopen(in, strlen(in), "r");
	p.out = open_memstream(&b->screen, &b->screen_len);
	assert_non_null(p.in);
	assert_non_null(p.out);
	int rc = wizard_run(&p, &bus, &o);
	fclose(p.in);
	fclose(p.out);
	free(in);
	if (getenv("WIZARD_SHOW"))
		fprintf(stderr, "---- wizard (rc %d) ----\n%s---- end ----\n", rc, b->screen);
	return rc;
}

static void said(const struct bench *b, const char *text)
{
	if (!strstr(b->screen, text))
		fail_msg("the wizard did not say \"%s\":\n%s", text, b->screen);
}

/* The second card cross-flashed from the menu, the screen that follows kept, power off, on a
 * bus that lists, after the start, as the test's state says: the same cards (the case that
 * always worked), only the first card (the second, just written, is still card 2 of the
 * table, and the screen after its cross-flash is its own), or nothing at all. */
static void test_cross_flash_the_second(void **state)
{
	struct bench *b = *state;

	/* 2 update / cross-flash, card 2 (HP), the word, Enter: keep the settings, Enter: power off. */
	assert_int_equal(session(b, "2\n2\nFLASH\n\n\n"), CX_OK);
	said(b, "== crossflash: card 0000:02:00.0");
	said(b, "card 0000:02:00.0: OK: FW 2.40.5030 -> 2.42.5000, PSID " HP_PSID " -> " STOCK_PSID);
	said(b, "== Port type and SR-IOV: card 0000:02:00.0 ==");
	said(b, "card 0000:02:00.0: settings kept, nothing written");
	said(b, "Power off for a cold restart");
	assert_int_equal(b->lists, 1);      /* the start's listing only: the write read its card alone */
	cxsim_power_cycle(b->card[1]);
	const struct cxsim_boot *boot = cxsim_boot_info(b->card[1]);
	assert_true(boot->booted);
	assert_string_equal(boot->psid, STOCK_PSID);
	assert_int_equal(boot->guids[0], G_HP);  /* its own identity kept */
	assert_int_equal(boot->macs[0], M_HP);
}

/* "List the cards again" is the one way the table is rebuilt: then the bus's fewer cards
 * are what the inventory shows, and the menu goes on with them. */
static void test_list_again_takes_the_bus_as_it_is(void **state)
{
	struct bench *b = *state;

	/* 9 list the cards again, 10 power off (no shell row: the menu numbers the rows shown). */
	assert_int_equal(session(b, "9\n10\n"), CX_OK);
	assert_int_equal(b->lists, 2);
	said(b, "2 cards found");
	said(b, "1 card found");
}

int main(void)
{
	static enum later same = LISTS_ALL, fewer = LISTS_FEWER, nothing = LISTS_NOTHING;
	const struct CMUnitTest tests[] = {
		{"test_reread_same_bus", test_cross_flash_the_second, setup, teardown, &same},
		{"test_reread_fewer_cards", test_cross_flash_the_second, setup, teardown, &fewer},
		{"test_reread_bus_fails", test_cross_flash_the_second, setup, teardown, &nothing},
		{"test_list_again_takes_the_bus_as_it_is", test_list_again_takes_the_bus_as_it_is, setup, teardown,
		 &fewer},
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
