/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_config_gen5.c — the settings of a ConnectX-4 / 4 Lx / 5 whose firmware runs
 * (ops/nv_settings5.h over dev/nv_icmd.h), on the in-process card model: the defaults as
 * the model's firmware answers them, a change read back by cxflash and decoded by the model
 * with mstconfig's names, the valid bit a write sets, a field nobody asked about kept, bad
 * input refused with nothing written, reset, a backup bundle's settings.json and its records
 * put back (restore --settings), and a card in recovery mode refused before any command. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "card_fixture.h"
#include "fs3_sim_card.h"
#include "ops/backup.h"
#include "ops/nv_bundle.h"
#include "ops/nv_settings.h"
#include "scratch.h"

struct rig {
	struct cxsim_card *c;
	struct f3 img;
	struct device d;
	struct nv_session s;
	struct nv_state st;
};

static void rig_open(struct rig *r, enum cxsim_chip chip, bool fs4, uint32_t hw_id)
{
	struct cx_status st = {0};

	memset(r, 0, sizeof(*r));
	r->c = sc_running_with_image(chip, fs4, hw_id, &r->img);
	assert_non_null(r->c);
	card_open_listed(&r->d, r->c);
	assert_true(r->d.chip.fw_access);
	if (nv_open(&r->s, &r->d, &st) || nv_read(&r->s, &r->st, &st))
		fail_msg("%s", st.msg);
}

static void rig_close(struct rig *r)
{
	assert_int_equal(cxsim_counters(r->c)->icmd_without_sem, 0);
	device_close(&r->d);
	cxsim_free(r->c);
}

static unsigned idx(const char *name)
{
	unsigned i = 0;

	assert_non_null(nv_setting_find_gen(NV_GEN5, name, &i));
	return i;
}

static uint32_t val(const struct rig *r, const char *name)
{
	unsigned i = idx(name);

	assert_true(r->st.avail[i]);
	return r->st.value[i];
}

static int set(struct rig *r, const char *const *a, unsigned n, struct cx_status *st)
{
	struct nv_plan p;
	int rc = nv_plan(&r->st, a, n, &p, st);

	if (!rc && !(rc = nv_apply(&r->s, &p, st)))
		rc = nv_read(&r->s, &r->st, st);
	return rc;
}

/* The model's own decoding of its store (mstconfig's names): the value of name, or -1. */
static long model(const struct rig *r, const char *name)
{
	struct cxsim_setting v[64];
	size_t n = cxsim_nv_settings(r->c, v, 64);

	for (size_t i = 0; i < n && i < 64; i++)
		if (!strcmp(v[i].name, name))
			return v[i].value;
	return -1;
}

/* A running ConnectX-5: the seven settings and nothing of ConnectX-3's, at the defaults the
 * model's firmware answers (nv_tlvs_cx4.c), with its limit of VFs. */
static void defaults_read(void **state)
{
	struct rig r;
	char buf[32];

	(void)state;
	rig_open(&r, CXSIM_CX5, true, 0x20d);
	assert_int_equal(r.st.gen, NV_GEN5);
	assert_int_equal(r.st.ports, 2);
	assert_int_equal(r.st.max_vfs, 127);
	for (unsigned i = 0; i < nv_nsettings; i++)
		assert_int_equal(r.st.avail[i], nv_settings[i].gen == NV_GEN5);
	assert_int_equal(val(&r, "LINK_TYPE_P1"), 1);
	assert_int_equal(val(&r, "LINK_TYPE_P2"), 1);
	assert_int_equal(val(&r, "SRIOV_EN"), 0);
	assert_int_equal(val(&r, "NUM_OF_VFS"), 0);
	assert_int_equal(val(&r, "EXP_ROM_PXE_ENABLE"), 1);
	assert_int_equal(val(&r, "EXP_ROM_UEFI_x86_ENABLE"), 1);
	assert_int_equal(val(&r, "LEGACY_BOOT_PROTOCOL"), 1);
	assert_string_equal(nv_value_text(idx("LINK_TYPE_P1"), 2, buf, sizeof(buf)), "ETH(2)");
	assert_string_equal(nv_value_text(idx("LEGACY_BOOT_PROTOCOL"), 0, buf, sizeof(buf)), "NONE(0)");
	assert_int_equal(cxsim_counters(r.c)->nv_write_cmds, 0);
	rig_close(&r);
}

/* A change: cxflash reads it back, the model decodes the same values, sriov_valid is set,
 * and a field of the same record nobody named (NUM_OF_PF) is written at the firmware's
 * default (one PF, nv_tlvs_cx4.c), not zeroed: the record starts from NVDA's answer. */
static void set_read_back(void **state)
{
	struct rig r;
	struct cx_status st = {0};
	const char *const a[] = {"LINK_TYPE_P1=ETH", "SRIOV_EN=True", "NUM_OF_VFS=8", "EXP_ROM_PXE_ENABLE=0",
				 "LEGACY_BOOT_PROTOCOL=iscsi"};

	(void)state;
	rig_open(&r, CXSIM_CX5, true, 0x20d);
	assert_int_equal(set(&r, a, 5, &st), CX_OK);
	assert_int_equal(val(&r, "LINK_TYPE_P1"), 2);
	assert_int_equal(val(&r, "LINK_TYPE_P2"), 1);
	assert_int_equal(val(&r, "SRIOV_EN"), 1);
	assert_int_equal(val(&r, "NUM_OF_VFS"), 8);
	assert_int_equal(val(&r, "EXP_ROM_PXE_ENABLE"), 0);
	assert_int_equal(val(&r, "EXP_ROM_UEFI_x86_ENABLE"), 1);
	assert_int_equal(val(&r, "LEGACY_BOOT_PROTOCOL"), 2);
	assert_int_equal(model(&r, "LINK_TYPE_P1"), 2);
	assert_int_equal(model(&r, "SRIOV_EN"), 1);
	assert_int_equal(model(&r, "NUM_OF_VFS"), 8);
	assert_int_equal(model(&r, "EXP_ROM_PXE_ENABLE"), 0);
	assert_int_equal(model(&r, "LEGACY_BOOT_PROTOCOL"), 2);
	assert_int_equal(model(&r, "NUM_OF_PF"), 1);
	/* four records written: the port's, the global PCI one, the PCI one, the boot ROM's */
	assert_int_equal(cxsim_counters(r.c)->nv_write_cmds, 4);
	const struct nv_record *g = NULL;
	for (unsigned k = 0; k < r.st.nrec; k++)
		if (r.st.rec[k].type == NV5_REC(0, 128))
			g = &r.st.rec[k];
	assert_non_null(g);
	assert_true(g->dw[0] >> 31 & 1); /* sriov_valid */
	rig_close(&r);
}

/* Bad input: one line, its code, nothing written. */
static void bad_input(void **state)
{
	static const struct {
		const char *a;
		int code;
	} cases[] = {
		{"PHY_TYPE_P1=XFI", CX_ESETTING},        /* a ConnectX-3 setting */
		{"LEGACY_BOOT_PROTOCOL_P1=PXE", CX_ESETTING},
		{"LINK_TYPE_P1=VPI", CX_EVALUE},          /* not a value of these chips */
		{"LINK_TYPE_P1=0", CX_EVALUE},
		{"LEGACY_BOOT_PROTOCOL=3", CX_EVALUE},    /* a number without a name in the db */
		{"NUM_OF_VFS=128", CX_EVALUE},            /* above max_vfs_per_pf */
		{"SRIOV_EN=maybe", CX_EVALUE},
		{"SRIOV_EN", CX_EUSAGE},
	};
	struct rig r;

	(void)state;
	rig_open(&r, CXSIM_CX4LX, false, 0x20b);
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cx_status st = {0};
		struct nv_plan p;
		assert_int_equal(nv_plan(&r.st, &cases[i].a, 1, &p, &st), cases[i].code);
		assert_non_null(strchr(st.msg, ' '));
		assert_null(strchr(st.msg, '\n'));
	}
	assert_int_equal(cxsim_counters(r.c)->nv_write_cmds, 0);
	rig_close(&r);
}

/* reset: NVIA, the defaults again; the 4 Lx's own default link type (ETH). */
static void reset_to_defaults(void **state)
{
	struct rig r;
	struct cx_status st = {0};
	const char *const a[] = {"LINK_TYPE_P2=IB", "SRIOV_EN=1", "NUM_OF_VFS=4"};

	(void)state;
	rig_open(&r, CXSIM_CX4LX, false, 0x20b);
	assert_int_equal(val(&r, "LINK_TYPE_P1"), 2);
	assert_int_equal(set(&r, a, 3, &st), CX_OK);
	assert_int_equal(val(&r, "LINK_TYPE_P2"), 1);
	assert_true(cxsim_nv_count(r.c) > 0);
	assert_int_equal(nv_reset(&r.s, &st), CX_OK);
	assert_int_equal(cxsim_nv_count(r.c), 0);
	assert_int_equal(nv_read(&r.s, &r.st, &st), CX_OK);
	assert_int_equal(val(&r, "LINK_TYPE_P2"), 2);
	assert_int_equal(val(&r, "SRIOV_EN"), 0);
	assert_int_equal(val(&r, "NUM_OF_VFS"), 0);
	rig_close(&r);
}

/* The records put back as a bundle holds them (restore --settings): the same values. */
static void records_round_trip(void **state)
{
	struct rig r;
	struct cx_status st = {0};
	struct nv_plan p;
	struct nv_record saved[NV_MAX_RECORDS];
	const char *const a[] = {"LINK_TYPE_P1=ETH", "NUM_OF_VFS=16", "SRIOV_EN=1"};

	(void)state;
	rig_open(&r, CXSIM_CX4, false, 0x209);
	assert_int_equal(set(&r, a, 3, &st), CX_OK);
	unsigned n = r.st.nrec;
	memcpy(saved, r.st.rec, sizeof(saved));
	assert_int_equal(nv_reset(&r.s, &st), CX_OK);
	assert_int_equal(nv_read(&r.s, &r.st, &st), CX_OK);
	assert_int_equal(val(&r, "NUM_OF_VFS"), 0);
	assert_int_equal(nv_plan_records(&r.st, saved, n, &p, &st), CX_OK);
	assert_int_equal(nv_apply(&r.s, &p, &st), CX_OK);
	assert_int_equal(nv_read(&r.s, &r.st, &st), CX_OK);
	assert_int_equal(val(&r, "LINK_TYPE_P1"), 2);
	assert_int_equal(val(&r, "SRIOV_EN"), 1);
	assert_int_equal(val(&r, "NUM_OF_VFS"), 16);
	rig_close(&r);
}

/* A backup of the running card: its settings.json says available, holds the values set and
 * the records; after a reset, the records loaded from the bundle put them back. */
static void backup_bundle_round_trip(void **state)
{
	struct rig r;
	struct cx_status st = {0};
	struct backup_result res;
	struct nv_record rec[NV_MAX_RECORDS];
	struct nv_plan p;
	unsigned n = 0;
	char dir[128], path[BACKUP_PATH_MAX + 32];
	const char *const a[] = {"LINK_TYPE_P2=ETH", "SRIOV_EN=1", "NUM_OF_VFS=4", "LEGACY_BOOT_PROTOCOL=NONE"};

	(void)state;
	rig_open(&r, CXSIM_CX5, true, 0x20d);
	assert_int_equal(set(&r, a, 4, &st), CX_OK);
	scratch_dir(dir, sizeof(dir), "config_gen5");
	if (backup_card(&r.d, dir, &res, &st))
		fail_msg("backup_card: %s", st.msg);
	snprintf(path, sizeof(path), "%s/%s", res.path, BACKUP_SETTINGS);
	FILE *f = fopen(path, "r");
	char text[8192] = "";
	assert_non_null(f);
	assert_true(fread(text, 1, sizeof(text) - 1, f) > 0);
	fclose(f);
	assert_non_null(strstr(text, "\"available\":true"));
	assert_non_null(strstr(text, "\"LINK_TYPE_P2\":{\"value\":2,\"text\":\"ETH\""));
	assert_non_null(strstr(text, "\"NUM_OF_VFS\":{\"value\":4"));
	assert_int_equal(nv_reset(&r.s, &st), CX_OK);
	assert_int_equal(nv_read(&r.s, &r.st, &st), CX_OK);
	assert_int_equal(val(&r, "NUM_OF_VFS"), 0);
	if (nv_bundle_load(res.path, rec, &n, &st))
		fail_msg("nv_bundle_load: %s", st.msg);
	assert_int_equal(nv_plan_records(&r.st, rec, n, &p, &st), CX_OK);
	assert_int_equal(nv_apply(&r.s, &p, &st), CX_OK);
	assert_int_equal(nv_read(&r.s, &r.st, &st), CX_OK);
	assert_int_equal(val(&r, "LINK_TYPE_P2"), 2);
	assert_int_equal(val(&r, "SRIOV_EN"), 1);
	assert_int_equal(val(&r, "NUM_OF_VFS"), 4);
	assert_int_equal(val(&r, "LEGACY_BOOT_PROTOCOL"), 0);
	rig_close(&r);
	rm_rf(dir);
}

/* A ConnectX-3 bundle's records (MNVA's VPI record of port 1) on a ConnectX-4 Lx: refused,
 * nothing written. */
static void other_family_bundle_refused(void **state)
{
	struct rig r;
	struct cx_status st = {0};
	struct nv_plan p;
	struct nv_record cx3 = {.type = NV_TLV_VPI, .port = 1, .ndw = 1, .stored = true, .dw = {2}};

	(void)state;
	rig_open(&r, CXSIM_CX4LX, false, 0x20b);
	assert_int_equal(nv_plan_records(&r.st, &cx3, 1, &p, &st), CX_EMISMATCH);
	assert_non_null(strstr(st.msg, "t0012p1"));
	assert_int_equal(cxsim_counters(r.c)->nv_write_cmds, 0);
	rig_close(&r);
}

/* Recovery mode: refused by nv_open, no ICMD command sent. */
static void recovery_refused(void **state)
{
	struct cxsim_card *c = sc_new(CXSIM_CX5, false);
	struct device d;
	struct nv_session s;
	struct cx_status st = {0};

	(void)state;
	assert_non_null(c);
	card_open_listed(&d, c);
	assert_int_equal(nv_open(&s, &d, &st), CX_EUNSUPPORTED);
	assert_non_null(strstr(st.msg, "recovery"));
	assert_int_equal(cxsim_counters(c)->icmd_cmds, 0);
	device_close(&d);
	cxsim_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(defaults_read),
		cmocka_unit_test(set_read_back),
		cmocka_unit_test(bad_input),
		cmocka_unit_test(reset_to_defaults),
		cmocka_unit_test(records_round_trip),
		cmocka_unit_test(backup_bundle_round_trip),
		cmocka_unit_test(other_family_bundle_refused),
		cmocka_unit_test(recovery_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
