/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_config.c — the card settings (ops/nv_settings.h over dev/tools_hcr.h and dev/nv_reg.h)
 * in process, on the tools-HCR stand-in of support/hcr_fake.h: every setting's encoding
 * and decoding, read-modify-write that keeps the other bits of a record, both mailbox
 * paths, each firmware status and register status, a semaphore another agent holds, a go
 * bit that never clears (bounded, named), and bad input refused with nothing sent that
 * writes (ConnectX-2, recovery mode and old firmware refused with no command sent). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "hcr_fake.h"
#include "ops/nv_settings.h"

struct rig {
	struct hcr_fake f;
	struct device d;
	struct nv_session s;
	struct nv_state st;
};

/* Open the fake as a card and read its settings; the open's code. */
static int rig_open(struct rig *r, uint16_t pci_device)
{
	struct cfg_dev cfg;
	struct pci_card pci = {.bdf = "0000:01:00.0", .device = pci_device};
	struct cx_status st = {0};
	int rc;

	hcr_fake_cfg(&cfg, &r->f);
	if ((rc = device_attach_chip(&r->d, cfg, &pci, &st)) || (rc = nv_open(&r->s, &r->d, &st)))
		return rc;
	return nv_read(&r->s, &r->st, &st);
}

static void rig_init(struct rig *r)
{
	memset(r, 0, sizeof(*r));
	hcr_fake_init(&r->f);
}

static int set(struct rig *r, const char *const *a, unsigned n, struct cx_status *st)
{
	struct nv_plan p;
	int rc = nv_plan(&r->st, a, n, &p, st);

	if (!rc && !(rc = nv_apply(&r->s, &p, st)))
		rc = nv_read(&r->s, &r->st, st);
	return rc;
}

static unsigned idx_of(const char *name)
{
	unsigned i = 0;
	assert_non_null(nv_setting_find(name, &i));
	return i;
}

/* Every ConnectX-3 setting: a value other than its default goes into its field and comes
 * back (the ConnectX-4/5 rows: test_config_gen5.c). */
static void test_every_setting_round_trips(void **state)
{
	(void)state;
	for (unsigned i = 0; i < nv_nsettings; i++) {
		const struct nv_setting *row = &nv_settings[i];
		struct rig r;
		struct cx_status st = {0};
		char a[64];
		if (row->gen != NV_GEN4)
			continue;
		rig_init(&r);
		assert_int_equal(rig_open(&r, 0x1003), CX_OK);
		assert_true(r.st.avail[i]);
		uint32_t v = r.st.def[i] == row->min ? row->min + 1 : row->min;
		if (!strcmp(row->name, "SRIOV_EN"))
			v = 1;
		snprintf(a, sizeof(a), "%s=%u", row->name, v);
		const char *as[] = {a};
		assert_int_equal(set(&r, as, 1, &st), CX_OK);
		struct fake_record *x = hcr_fake_record(&r.f, row->tlv, row->port);
		assert_non_null(x);
		assert_int_equal(x->ndw, row->tlv_dwords);
		uint32_t mask = row->field.width == 32 ? ~0u : (1u << row->field.width) - 1;
		assert_int_equal(x->dw[row->field.dword] >> row->field.shift & mask, v);
		assert_int_equal(r.st.value[i], v);
		device_close(&r.d);
	}
}

/* Names and numbers both parse, case aside, as mstconfig's parseUserInput. */
static void test_value_names(void **state)
{
	struct rig r;
	struct cx_status st = {0};
	(void)state;
	rig_init(&r);
	assert_int_equal(rig_open(&r, 0x1003), CX_OK);
	const char *as[] = {"LINK_TYPE_P1=eth", "LINK_TYPE_P2=1", "LEGACY_BOOT_PROTOCOL_P1=Both", "IP_VER_P2=0x1"};
	assert_int_equal(set(&r, as, 4, &st), CX_OK);
	assert_int_equal(r.st.value[idx_of("LINK_TYPE_P1")], 2);
	assert_int_equal(r.st.value[idx_of("LINK_TYPE_P2")], 1);
	assert_int_equal(r.st.value[idx_of("LEGACY_BOOT_PROTOCOL_P1")], 3);
	assert_int_equal(r.st.value[idx_of("IP_VER_P2")], 1);
	char buf[32];
	assert_string_equal(nv_value_text(idx_of("LINK_TYPE_P1"), 2, buf, sizeof(buf)), "ETH(2)");
	assert_string_equal(nv_value_text(idx_of("BOOT_VLAN_P1"), 7, buf, sizeof(buf)), "7");
	device_close(&r.d);
}

/* A record the card holds keeps every bit nobody asked to change; one it does not
 * hold is written with the defaults of its other fields (as mstconfig writes it). */
static void test_read_modify_write(void **state)
{
	struct rig r;
	struct cx_status st = {0};
	(void)state;
	rig_init(&r);
	r.f.rec[0] = (struct fake_record){.type = NV_TLV_WOL, .port = 1, .ndw = 2, .dw = {1u << 9 | 1u << 15, 0xABCD}};
	r.f.rec[1] = (struct fake_record){.type = NV_TLV_VPI, .port = 1, .ndw = 1, .dw = {2u << 2 | 1 | 3u << 4}};
	r.f.nrec = 2;
	assert_int_equal(rig_open(&r, 0x1003), CX_OK);
	assert_int_equal(r.st.value[idx_of("LINK_TYPE_P1")], 1);
	const char *as[] = {"WOL_MAGIC_EN_P1=True", "LINK_TYPE_P1=ETH", "BOOT_VLAN_P2=42"};
	assert_int_equal(set(&r, as, 3, &st), CX_OK);
	assert_int_equal(hcr_fake_record(&r.f, NV_TLV_WOL, 1)->dw[0], 1u << 9 | 1u << 10 | 1u << 15);
	assert_int_equal(hcr_fake_record(&r.f, NV_TLV_WOL, 1)->dw[1], 0xABCD);
	assert_int_equal(hcr_fake_record(&r.f, NV_TLV_VPI, 1)->dw[0], 2u << 2 | 2 | 3u << 4);
	/* preboot port 2 from its defaults: ROM on, PXE, 3 retries, VLAN 42 */
	assert_int_equal(hcr_fake_record(&r.f, NV_TLV_PREBOOT, 2)->dw[0], 1u << 31 | 3u << 24 | 1u << 16 | 42);
	assert_int_equal(r.f.nv_writes, 3);
	/* nothing to change: nothing written */
	struct nv_plan p;
	assert_int_equal(nv_plan(&r.st, as, 3, &p, &st), CX_OK);
	assert_int_equal(p.nch, 0);
	assert_int_equal(p.nrec, 0);
	device_close(&r.d);
}

/* Without the CR mailbox every register access moves its mailbox with 0x70/0x71, and
 * reads the same; QUERY_DEV_CAP/DEF_PARAMS always do. */
static void test_mailbox_fallback(void **state)
{
	struct rig a, b;
	struct cx_status st = {0};
	const char *as[] = {"SRIOV_EN=1", "NUM_OF_VFS=16", "CQ_TIMESTAMP=1"};
	(void)state;
	rig_init(&a);
	rig_init(&b);
	b.f.cr_mbox = false;
	assert_int_equal(rig_open(&a, 0x1003), CX_OK);
	assert_int_equal(rig_open(&b, 0x1003), CX_OK);
	unsigned wa = a.f.mbox_writes, wb = b.f.mbox_writes, rb = b.f.reg_accesses;
	assert_int_equal(set(&a, as, 3, &st), CX_OK);
	assert_int_equal(set(&b, as, 3, &st), CX_OK);
	/* the same QUERY_DEF_PARAMS mailboxes (3 x 36 quad words) in both; without the CR
	 * mailbox, a whole 288-byte mailbox more for each register access */
	assert_int_equal(a.f.mbox_writes - wa, 3 * 36);
	assert_true(b.f.reg_accesses - rb >= 4);
	assert_int_equal(b.f.mbox_writes - wb, 3 * 36 + 36 * (b.f.reg_accesses - rb));
	assert_memory_equal(a.st.value, b.st.value, sizeof(a.st.value));
	assert_memory_equal(a.f.rec, b.f.rec, sizeof(a.f.rec));
	device_close(&a.d);
	device_close(&b.d);
}

/* Each firmware status: the code and a line that names it. */
static void test_statuses(void **state)
{
	static const struct {
		unsigned status;
		int code;
		const char *says;
	} cases[] = {
		{4, CX_EFWDOWN, "not started"}, {2, CX_EUNSUPPORTED, "2.31.5000"}, {1, CX_ETOOLS, "busy"},
		{3, CX_ETOOLS, "unknown TLV"},  {9, CX_ETOOLS, "resource state"}, {0x33, CX_ETOOLS, "status 0x33"},
	};
	(void)state;
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rig r;
		struct cx_status st = {0};
		struct cfg_dev cfg;
		struct pci_card pci = {.bdf = "0000:01:00.0", .device = 0x1003};
		rig_init(&r);
		r.f.status = cases[i].status;
		hcr_fake_cfg(&cfg, &r.f);
		assert_int_equal(device_attach_chip(&r.d, cfg, &pci, &st), CX_OK);
		assert_int_equal(nv_open(&r.s, &r.d, &st), CX_OK);
		assert_int_equal(nv_read(&r.s, &r.st, &st), cases[i].code);
		assert_non_null(strstr(st.msg, cases[i].says));
		assert_null(strchr(st.msg, '\n'));
		assert_int_equal(r.f.sem, 0);                  /* released */
		device_close(&r.d);
	}
}

/* Register statuses: a corrupt store is named; "not available" is the defaults. */
static void test_register_statuses(void **state)
{
	struct rig r;
	struct cx_status st = {0};
	(void)state;
	rig_init(&r);
	assert_int_equal(rig_open(&r, 0x1003), CX_OK);     /* every GET: status 8, defaults */
	assert_int_equal(r.st.value[idx_of("NUM_OF_VFS")], 8);
	assert_int_equal(r.st.value[idx_of("LOG_BAR_SIZE")], 3);
	r.f.reg_status = 0x22;
	assert_int_equal(nv_read(&r.s, &r.st, &st), CX_ETOOLS);
	assert_non_null(strstr(st.msg, "corrupt"));
	device_close(&r.d);
}

/* A semaphore held by someone else, a go bit that never clears: bounded, named. */
static void test_semaphore_and_go_bit(void **state)
{
	struct rig r;
	struct cx_status st = {0};
	(void)state;
	rig_init(&r);
	r.f.sem_held = true;
	assert_int_equal(rig_open(&r, 0x1003), CX_EBUSY);
	assert_int_equal(r.f.commands, 0);
	device_close(&r.d);
	rig_init(&r);
	r.f.go_stuck = true;
	struct cfg_dev cfg;
	struct pci_card pci = {.bdf = "0000:01:00.0", .device = 0x1003};
	hcr_fake_cfg(&cfg, &r.f);
	assert_int_equal(device_attach_chip(&r.d, cfg, &pci, &st), CX_OK);
	assert_int_equal(nv_open(&r.s, &r.d, &st), CX_OK);
	assert_int_equal(nv_read(&r.s, &r.st, &st), CX_ETOOLS);
	assert_non_null(strstr(st.msg, "go bit"));
	assert_int_equal(r.f.commands, 1);
	assert_true(r.f.slept_us > 10000000 && r.f.slept_us < 20000000); /* upstream's ~16 s bound */
	device_close(&r.d);
}

/* Bad input: one line, its code, nothing written. */
static void test_bad_input(void **state)
{
	static const struct {
		const char *a, *b;
		int code;
		const char *says;
	} cases[] = {
		{"FOO=1", NULL, CX_ESETTING, "unknown setting FOO"},
		{"LINK_TYPE_P1=4", NULL, CX_EVALUE, "out of range"},
		{"LINK_TYPE_P1=FAST", NULL, CX_EVALUE, "IB, ETH, VPI"},
		{"LINK_TYPE_P1=ETH", "LINK_TYPE_P1=IB", CX_EVALUE, "two different values"},
		{"NUM_OF_VFS=65", NULL, CX_EVALUE, "at most 64 VFs"},
		{"SRIOV_EN=1", "NUM_OF_VFS=64", CX_EVALUE, "512 MB"},
		{"SRIOV_EN=1", "LOG_BAR_SIZE=8", CX_EVALUE, "512 MB"},
		{"LOG_BAR_SIZE=11", NULL, CX_EVALUE, "out of range"},
		{"SRIOV_EN", NULL, CX_EUSAGE, "NAME=VALUE"},
	};
	(void)state;
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rig r;
		struct cx_status st = {0};
		struct nv_plan p;
		const char *as[] = {cases[i].a, cases[i].b};
		rig_init(&r);
		assert_int_equal(rig_open(&r, 0x1003), CX_OK);
		unsigned cmds = r.f.commands;
		assert_int_equal(nv_plan(&r.st, as, cases[i].b ? 2 : 1, &p, &st), cases[i].code);
		assert_non_null(strstr(st.msg, cases[i].says));
		assert_int_equal(r.f.commands, cmds);
		assert_int_equal(r.f.nv_writes, 0);
		device_close(&r.d);
	}
}

/* A one-port card has no _P2 settings; a ConnectX-2, a card in recovery mode and old
 * firmware are refused before any command. */
static void test_refusals(void **state)
{
	struct rig r;
	struct cx_status st = {0};
	struct nv_plan p;
	(void)state;
	rig_init(&r);
	r.f.ports = 1;
	r.f.caps = 0x2B;    /* no WoL/VPI on port 2 */
	assert_int_equal(rig_open(&r, 0x1003), CX_OK);
	assert_int_equal(r.st.ports, 1);
	const char *as[] = {"LINK_TYPE_P2=ETH"};
	assert_int_equal(nv_plan(&r.st, as, 1, &p, &st), CX_ESETTING);
	assert_non_null(strstr(st.msg, "one port"));
	device_close(&r.d);

	static const struct {
		uint32_t hw_id;
		uint16_t pci, fw_minor;
		const char *says;
	} cases[] = {{0x00B00190, 0x673C, 42, "ConnectX-2"}, {0x000101F5, 0x01F6, 42, "recovery"},
		     {0x000101F5, 0x1003, 30, "older than 2.31.5000"}};
	for (unsigned i = 0; i < 3; i++) {
		struct cfg_dev cfg;
		struct pci_card pci = {.bdf = "0000:01:00.0", .device = cases[i].pci};
		rig_init(&r);
		r.f.hw_id = cases[i].hw_id;
		r.f.fw[1] = cases[i].fw_minor;
		hcr_fake_cfg(&cfg, &r.f);
		cx_status_clear(&st);
		assert_int_equal(device_attach_chip(&r.d, cfg, &pci, &st), CX_OK);
		assert_int_equal(nv_open(&r.s, &r.d, &st), CX_EUNSUPPORTED);
		assert_non_null(strstr(st.msg, cases[i].says));
		assert_int_equal(r.f.commands, 0);
		device_close(&r.d);
	}
}

/* Reset forgets every record; a bundle's records come back exactly. */
static void test_reset_and_records(void **state)
{
	struct rig r;
	struct cx_status st = {0};
	struct nv_plan p;
	(void)state;
	rig_init(&r);
	assert_int_equal(rig_open(&r, 0x1003), CX_OK);
	const char *as[] = {"LINK_TYPE_P1=ETH", "SRIOV_EN=1", "NUM_OF_VFS=4"};
	assert_int_equal(set(&r, as, 3, &st), CX_OK);
	struct nv_record saved[NV_MAX_RECORDS];
	unsigned n = r.st.nrec;
	memcpy(saved, r.st.rec, sizeof(saved));
	struct hcr_fake before = r.f;
	const char *other[] = {"LINK_TYPE_P2=IB", "NUM_OF_VFS=2"};
	assert_int_equal(set(&r, other, 2, &st), CX_OK);
	assert_int_equal(nv_plan_records(&r.st, saved, n, &p, &st), CX_OK);
	assert_true(p.reset_first);      /* LINK_TYPE_P2's record was not in the bundle */
	assert_int_equal(nv_apply(&r.s, &p, &st), CX_OK);
	assert_int_equal(r.f.nrec, before.nrec);
	for (unsigned i = 0; i < before.nrec; i++) {
		struct fake_record *x = hcr_fake_record(&r.f, before.rec[i].type, before.rec[i].port);
		assert_non_null(x);
		assert_memory_equal(x->dw, before.rec[i].dw, sizeof(x->dw));
	}
	assert_int_equal(nv_reset(&r.s, &st), CX_OK);
	assert_int_equal(r.f.nrec, 0);
	assert_int_equal(nv_read(&r.s, &r.st, &st), CX_OK);
	assert_int_equal(r.st.value[idx_of("NUM_OF_VFS")], 8);
	device_close(&r.d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_setting_round_trips),
		cmocka_unit_test(test_value_names),
		cmocka_unit_test(test_read_modify_write),
		cmocka_unit_test(test_mailbox_fallback),
		cmocka_unit_test(test_statuses),
		cmocka_unit_test(test_register_statuses),
		cmocka_unit_test(test_semaphore_and_go_bit),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_reset_and_records),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
