/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_chip_table.c — dev/chip.c's chip table and dev/pci_enum.c's PCI ID table
 * agree with each other and with hw-access.md §1.1-1.2: one row per family with
 * the names and slugs that list, backups, job records and boards.txt print;
 * names, slugs and HW IDs unique; every family's recovery ("livefish") PCI ID is
 * its HW ID + 1 up to ConnectX-3 Pro and the HW ID itself from ConnectX-4 on (the row's
 * recovery_id, which chip_open() compares), and no other ID is; only ConnectX-2 to 3 Pro
 * are worked on as cards; every PCI ID
 * maps back to its own row and family; the lookups by family, name, slug and
 * HW ID round-trip; boards.txt's family words are the table's slugs. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "dev/chip.h"
#include "dev/pci_enum.h"
#include "library/boards.h"

/* hw-access.md §1.2 (HW IDs), the words the tool has always printed, and the
 * flash facts of §3.5 and §3.11 as chip.c holds them. */
static const struct {
	enum cx_family f;
	const char *name, *slug;
	uint16_t hw_id, recovery_id;
	bool flashprog_sem;
	unsigned start_positions;
	enum chip_support support;
} expect[] = {
	{CXF_CX2, "ConnectX-2", "cx2", 0x190, 0x0191, false, 6, CHIP_CARDS},
	{CXF_CX3, "ConnectX-3", "cx3", 0x1F5, 0x01F6, true, 10, CHIP_CARDS},
	{CXF_CX3PRO, "ConnectX-3 Pro", "cx3pro", 0x1F7, 0x01F8, true, 10, CHIP_CARDS},
	/* mstflint 4.21 dev_mgt/tools_dev_types.c, mtcr_ul/mtcr_ul_com.c live_fish_id_database */
	{CXF_CX4, "ConnectX-4", "cx4", 0x209, 0x0209, false, 0, CHIP_CARDS},
	{CXF_CX4LX, "ConnectX-4 Lx", "cx4lx", 0x20B, 0x020B, false, 0, CHIP_CARDS},
	{CXF_CX5, "ConnectX-5", "cx5", 0x20D, 0x020D, false, 0, CHIP_CARDS},
	{CXF_CX6, "ConnectX-6", "cx6", 0x20F, 0x020F, false, 0, CHIP_READ_ONLY},
	{CXF_CX6DX, "ConnectX-6 Dx", "cx6dx", 0x212, 0x0212, false, 0, CHIP_READ_ONLY},
	{CXF_CX6LX, "ConnectX-6 Lx", "cx6lx", 0x216, 0x0216, false, 0, CHIP_READ_ONLY},
};

#define N_EXPECT (sizeof(expect) / sizeof(expect[0]))

static void test_one_row_per_family(void **state)
{
	(void)state;
	assert_int_equal(CXF_COUNT, N_EXPECT);
	for (unsigned i = 0; i < N_EXPECT; i++) {
		const struct chip_desc *c = chip_by_family(expect[i].f);
		assert_non_null(c);
		assert_int_equal(c->family, expect[i].f);
		assert_string_equal(c->name, expect[i].name);
		assert_string_equal(c->slug, expect[i].slug);
		assert_int_equal(c->hw_id, expect[i].hw_id);
		assert_int_equal(c->flashprog_sem, expect[i].flashprog_sem);
		assert_int_equal(c->start_positions, expect[i].start_positions);
		assert_int_equal(c->recovery_id, expect[i].recovery_id);
		assert_int_equal(c->support, expect[i].support);
		/* a family cxflash does not write to says why, one phrase */
		assert_int_equal(c->limit != NULL, c->support != CHIP_CARDS);
	}
	assert_null(chip_by_family(CXF_COUNT));
	assert_null(chip_by_family((enum cx_family)-1));
}

/* The flash facts of each family (hw-access.md §4.4, §3.13; mstflint 4.21 mflash.c
 * mf_update_boot_addr, mf_set_reset_flash_on_warm_reboot; fw_ops.cpp GetFwFormatFromHwDevID). */
static void test_flash_rows(void **state)
{
	static const struct {
		enum cx_family f;
		enum chip_gw gw;
		enum chip_fw_format fmt;
		uint32_t boot, shift, warm;
	} want[] = {
		{CXF_CX2, CHIP_GW_GEN4, CHIP_FW_FS2, 0xF0000, 8, 0},
		{CXF_CX3, CHIP_GW_GEN4, CHIP_FW_FS2, 0xF0000, 8, 0},
		{CXF_CX3PRO, CHIP_GW_GEN4, CHIP_FW_FS2, 0xF0000, 8, 0},
		{CXF_CX4, CHIP_GW_GEN5, CHIP_FW_FS3, 0xF0000, 8, 0xF0204},
		{CXF_CX4LX, CHIP_GW_GEN5, CHIP_FW_FS3, 0xF0000, 8, 0xF0204},
		{CXF_CX5, CHIP_GW_GEN5, CHIP_FW_FS4, 0xF00C0, 0, 0xF0204},
	};
	(void)state;
	for (unsigned i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct chip_desc *c = chip_by_family(want[i].f);
		assert_int_equal(c->gw, want[i].gw);
		assert_int_equal(c->format, want[i].fmt);
		assert_int_equal(c->boot_addr_reg, want[i].boot);
		assert_int_equal(c->boot_addr_shift, want[i].shift);
		assert_int_equal(c->warm_reset_reg, want[i].warm);
		assert_int_equal(c->log2_reach, 24);
	}
}

static void test_unique(void **state)
{
	(void)state;
	for (int a = 0; a < CXF_COUNT; a++)
		for (int b = a + 1; b < CXF_COUNT; b++) {
			const struct chip_desc *x = chip_by_family(a), *y = chip_by_family(b);
			assert_ptr_not_equal(x, y);
			assert_string_not_equal(x->name, y->name);
			assert_string_not_equal(x->slug, y->slug);
			assert_int_not_equal(x->hw_id, y->hw_id);
		}
}

static void test_lookups_round_trip(void **state)
{
	(void)state;
	for (int f = 0; f < CXF_COUNT; f++) {
		const struct chip_desc *c = chip_by_family(f);
		assert_ptr_equal(chip_by_name(c->name), c);
		assert_ptr_equal(chip_by_slug(c->slug), c);
		assert_ptr_equal(chip_by_hw_id(c->hw_id), c);
		assert_ptr_equal(chip_by_family(c->family), c);
		/* a name is not a slug, nor the other way round */
		assert_null(chip_by_name(c->slug));
		assert_null(chip_by_slug(c->name));
	}
	/* exact and case-sensitive, as boards.txt and the job records are read */
	assert_null(chip_by_name("connectx-3"));
	assert_null(chip_by_name("ConnectX-3 "));
	assert_null(chip_by_slug("CX3"));
	assert_null(chip_by_name(""));
	assert_null(chip_by_slug(""));
	assert_null(chip_by_name(NULL));
	assert_null(chip_by_slug(NULL));
	/* §1.2: Connect-IB's HW ID is not ours, nor ConnectX-7's (tools_dev_types.c) */
	assert_null(chip_by_hw_id(0x1FF));
	assert_null(chip_by_hw_id(0x218));
	assert_null(chip_by_hw_id(0));
}

/* §1.1: every family's livefish ID is its row's recovery_id (HW ID + 1 up to ConnectX-3
 * Pro, the HW ID from ConnectX-4 on), once, and is the only ID of that kind. */
static void test_recovery_ids(void **state)
{
	size_t n;
	const struct pci_id *t = pci_id_table(&n);
	unsigned recovery[CXF_COUNT] = {0}, pf[CXF_COUNT] = {0};

	(void)state;
	for (size_t i = 0; i < n; i++) {
		const struct chip_desc *c = chip_by_family(t[i].family);
		assert_non_null(c);
		/* chip_open() calls a function recovered when its ID is recovery_id: these rows only */
		assert_int_equal(t[i].device == c->recovery_id, t[i].kind == PCI_KIND_RECOVERY);
		/* up to ConnectX-3 Pro a PCI ID equal to the HW ID is no ID of ours (0x1F7 is not a
		 * livefish ID, §1.1); from ConnectX-4 on it is the livefish ID */
		if (c->start_positions)
			assert_int_not_equal(t[i].device, c->hw_id);
		else
			assert_int_equal(c->recovery_id, c->hw_id);
		if (t[i].kind == PCI_KIND_RECOVERY)
			recovery[t[i].family]++;
		if (t[i].kind == PCI_KIND_PF)
			pf[t[i].family]++;
	}
	for (unsigned i = 0; i < N_EXPECT; i++) {
		const struct pci_id *r = pci_id_row(expect[i].recovery_id);
		assert_int_equal(recovery[expect[i].f], 1);
		assert_true(pf[expect[i].f] >= 1);
		assert_non_null(r);
		assert_int_equal(r->kind, PCI_KIND_RECOVERY);
		assert_int_equal(r->family, expect[i].f);
	}
	assert_null(pci_id_row(0x01F7));
}

/* Every PCI ID is in the table once and maps back to its row, kind and family name. */
static void test_pci_ids_map_back(void **state)
{
	size_t n;
	const struct pci_id *t = pci_id_table(&n);

	(void)state;
	assert_true(n > 0);
	for (size_t i = 0; i < n; i++) {
		enum pci_kind kind;
		const char *family = NULL;

		assert_ptr_equal(pci_id_row(t[i].device), &t[i]);
		for (size_t j = i + 1; j < n; j++)
			assert_int_not_equal(t[i].device, t[j].device);
		assert_true(pci_id_known(t[i].device, &kind, &family));
		assert_int_equal(kind, t[i].kind);
		assert_ptr_equal(family, chip_by_family(t[i].family)->name);
		assert_ptr_equal(chip_by_name(family), chip_by_family(t[i].family));
	}
}

/* Some IDs of §1.1 by name: mstflint's supported list, the VFs, and IDs not ours; from
 * ConnectX-4 on, Debian's pci.ids (5 Ex is a ConnectX-5, 0x20b the 4 Lx in recovery). */
static void test_pci_ids_of_the_doc(void **state)
{
	static const struct {
		uint16_t device;
		enum pci_kind kind;
		enum cx_family f;
	} rows[] = {
		{0x1003, PCI_KIND_PF, CXF_CX3},  {0x1007, PCI_KIND_PF, CXF_CX3PRO}, {0x1010, PCI_KIND_PF, CXF_CX3},
		{0x6340, PCI_KIND_PF, CXF_CX2},  {0x6778, PCI_KIND_PF, CXF_CX2},    {0x1002, PCI_KIND_VF, CXF_CX2},
		{0x1004, PCI_KIND_VF, CXF_CX3},  {0x1013, PCI_KIND_PF, CXF_CX4},    {0x1015, PCI_KIND_PF, CXF_CX4LX},
		{0x1019, PCI_KIND_PF, CXF_CX5},  {0x020B, PCI_KIND_RECOVERY, CXF_CX4LX},
		{0x1016, PCI_KIND_VF, CXF_CX4LX}, {0x101F, PCI_KIND_PF, CXF_CX6LX},
	};
	/* Connect-IB and its HW ID, ConnectX-7 and its livefish ID (mtcr_ul_com.c) */
	static const uint16_t not_ours[] = {0x1011, 0x1021, 0x01FF, 0x0218, 0x0000, 0xFFFF};
	enum pci_kind kind = PCI_KIND_PF;
	const char *family = NULL;

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct pci_id *r = pci_id_row(rows[i].device);
		assert_non_null(r);
		assert_int_equal(r->kind, rows[i].kind);
		assert_int_equal(r->family, rows[i].f);
	}
	for (size_t i = 0; i < sizeof(not_ours) / sizeof(not_ours[0]); i++) {
		assert_null(pci_id_row(not_ours[i]));
		assert_false(pci_id_known(not_ours[i], &kind, &family));
	}
	assert_null(family);
}

/* boards.txt's family field is the table's slug: each one parses to its family. */
static void test_board_families_are_slugs(void **state)
{
	(void)state;
	for (int f = 0; f < CXF_COUNT; f++) {
		const struct chip_desc *c = chip_by_family(f);
		struct board_table t;
		struct cx_status st = {0};
		char row[256];
		int len = snprintf(row, sizeof(row),
				   "HP | - | HP_1 | %s | - | - | - | en | - | stated | https://example.org/a | - | -\n",
				   c->slug);

		assert_string_equal(board_family_name(f), c->slug);
		assert_int_equal(boards_parse("t.txt", row, (size_t)len, &t, &st), CX_OK);
		assert_int_equal(t.n, 1);
		assert_int_equal(t.rows[0].family, f);
		boards_free(&t);
	}
	assert_string_equal(board_family_name(CXF_COUNT), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_row_per_family),
		cmocka_unit_test(test_flash_rows),
		cmocka_unit_test(test_unique),
		cmocka_unit_test(test_lookups_round_trip),
		cmocka_unit_test(test_recovery_ids),
		cmocka_unit_test(test_pci_ids_map_back),
		cmocka_unit_test(test_pci_ids_of_the_doc),
		cmocka_unit_test(test_board_families_are_slugs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
