/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_tools_hcr.c — the settings interface of the card model against hw-access.md §8
 * and mstflint 4.25's side of it: the tools HCR (go bit on the model clock, token,
 * status), its semaphore, both mailbox paths, the opcodes, ACCESS_REGISTER framing,
 * MNVA/MNVIA and the store (persistence, power cycles), the faults, the counters.
 *
 * The client side here is written from the spec, as mstflint drives it: take 0xf03bc,
 * write the seven dwords, write dword 6 with go, poll go, read, release. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "card_image.h" /* burner/tests/support: the tests' one image installer */
#include "cxsim.h"

/* hw-access.md §8 (mtcr_tools_cif.c@4.25, cmdif/tools_cif.c@4.25). */
#define HCR 0x80780
#define HCR_SEM 0xf03bc
#define CR_MBOX 0xe0000
#define GO (1u << 23)
#define OP_DEV_CAP 0x03
#define OP_REG 0x3b
#define OP_MBOX_W 0x70
#define OP_MBOX_R 0x71
#define OP_DEF_PARAMS 0x73
#define POLL_NS 1000000u        /* mstflint backs off to 8 ms; 1 ms is enough here */
#define POLLS 2000              /* CMD_IF_WAIT_GO */
/* Registers and TLVs (mlxconfig_4th_gen_registers.c@4.25, mlxcfg_param_lib.h@4.25). */
#define MNVA 0x9024
#define MNVIA 0x9029
#define GET 1
#define SET 2
#define TLV_SRIOV 0x11
#define TLV_VPI 0x12
#define TLV_PREBOOT 0x2021
/* Register statuses (return_by_reg_status, mtcr_ul_com.c@4.25). */
#define RS_UNKNOWN_TLV 3
#define RS_REG_NOT_SUPP 4
#define RS_CLASS 5
#define RS_METHOD 6
#define RS_BAD_PARAM 7
#define RS_RES_NOT_AVLBL 8
#define RS_CONF_CORRUPT 0x22
#define TIMEOUT 0x100           /* hcr(): go never cleared */

static void cr_w(struct cxsim_card *c, uint32_t a, uint32_t v)
{
	cxsim_cfg_write(c, 0x58, a, 4);
	cxsim_cfg_write(c, 0x5c, v, 4);
}

static uint32_t cr_r(struct cxsim_card *c, uint32_t a)
{
	cxsim_cfg_write(c, 0x58, a, 4);
	return cxsim_cfg_read(c, 0x5c, 4);
}

/* One command as mstflint sends it, semaphore included; the status, or TIMEOUT. */
static unsigned hcr(struct cxsim_card *c, uint32_t in_h, uint32_t in_l, uint32_t mod, unsigned op,
		    unsigned opmod, uint32_t out[2])
{
	uint32_t w;
	int i;

	assert_int_equal(cr_r(c, HCR_SEM), 0);
	cr_w(c, HCR + 0, in_h);
	cr_w(c, HCR + 4, in_l);
	cr_w(c, HCR + 8, mod);
	cr_w(c, HCR + 20, 0x1234u << 16);          /* a token */
	cr_w(c, HCR + 24, op | opmod << 12);
	cr_w(c, HCR + 24, op | opmod << 12 | GO);
	for (i = 0; i < POLLS && ((w = cr_r(c, HCR + 24)) & GO); i++)
		cxsim_advance(c, POLL_NS);
	if (out) {
		out[0] = cr_r(c, HCR + 12);
		out[1] = cr_r(c, HCR + 16);
	}
	assert_int_equal(cr_r(c, HCR + 20), 0x1234u << 16); /* the token is as written */
	cr_w(c, HCR_SEM, 0);
	return i == POLLS ? TIMEOUT : w >> 24;
}

/* The whole mailbox through MBOX_WRITE, 8 bytes a command (tools_cmdif_mbox_write). */
static void mbox_put(struct cxsim_card *c, const uint32_t *mb, unsigned n)
{
	for (unsigned k = 0; k < n; k += 2)
		assert_int_equal(hcr(c, mb[k + 1], mb[k], k, OP_MBOX_W, 0, NULL), 0);
}

static void mbox_get(struct cxsim_card *c, uint32_t *mb, unsigned n)
{
	uint32_t out[2];

	for (unsigned k = 0; k < n; k += 2) {
		assert_int_equal(hcr(c, 0, 0, k, OP_MBOX_R, 0, out), 0);
		mb[k] = out[1];          /* out_param_l: the first dword */
		mb[k + 1] = out[0];      /* out_param_h */
	}
}

static struct cxsim_card *template_cx3, *template_old, *template_cx2;

static struct cxsim_card *with_image(enum cxsim_chip chip, const char *opts)
{
	struct cxsim_params p;
	struct cxsim_card *c;

	cxsim_params_default(&p, chip);
	c = card_new_with(&p, opts);
	assert_true(cxsim_boot_info(c)->booted);
	return c;
}

static int setup(void **state)
{
	(void)state;
	template_cx3 = with_image(CXSIM_CX3, "--chip cx3");            /* 2.42.5000 */
	template_old = with_image(CXSIM_CX3, "--chip cx3 --fw 2.31.4999");
	template_cx2 = with_image(CXSIM_CX2, "--chip cx2");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	cxsim_free(template_cx3);
	cxsim_free(template_old);
	cxsim_free(template_cx2);
	return 0;
}

static struct cxsim_card *card(void)
{
	struct cxsim_card *c = cxsim_clone(template_cx3);

	assert_non_null(c);
	return c;
}

/* An ACCESS_REGISTER mailbox: operation TLV, reg TLV, nv_hdr, data (mreg_send_raw). */
static void reg_frame(uint32_t *mb, unsigned reg, unsigned method, uint16_t type, uint8_t mod,
		      unsigned len, const uint32_t *data)
{
	memset(mb, 0, 288);
	mb[0] = 1u << 27 | 4u << 16;                       /* Type 1, len 4 */
	mb[1] = (uint32_t)reg << 16 | method << 8 | 1;      /* class 1 */
	mb[4] = 3u << 27 | (uint32_t)(1 + 2 + len) << 16;  /* reg TLV: header + nv_hdr + data */
	mb[5] = (uint32_t)len << 18 | type;
	mb[6] = (uint32_t)mod << 16;
	for (unsigned j = 0; data && j < len; j++)
		mb[7 + j] = data[j];
}

static unsigned op_status(const uint32_t *mb)
{
	return (mb[0] >> 8) & 0x7f;
}

/* A register access through the CR mailbox (input_modifier 1); the register status. */
static unsigned reg_cr(struct cxsim_card *c, uint32_t *mb)
{
	for (unsigned k = 0; k < 72; k++)
		cr_w(c, CR_MBOX + 4 * k, mb[k]);
	assert_int_equal(hcr(c, 0, 0, 1, OP_REG, 0, NULL), 0);
	for (unsigned k = 0; k < 72; k++)
		mb[k] = cr_r(c, CR_MBOX + 4 * k);
	return op_status(mb);
}

/* The same through MBOX_WRITE/MBOX_READ (input_modifier 0). */
static unsigned reg_mbox(struct cxsim_card *c, uint32_t *mb)
{
	mbox_put(c, mb, 72);
	assert_int_equal(hcr(c, 0, 0, 0, OP_REG, 0, NULL), 0);
	mbox_get(c, mb, 16);
	return op_status(mb);
}

static void test_go_bit_clears_on_the_model_clock(void **state)
{
	(void)state;
	struct cxsim_card *c = card();
	uint64_t t0;

	cr_w(c, HCR + 20, 0xbeefu << 16);
	cr_w(c, HCR + 24, OP_DEV_CAP | GO);
	t0 = cxsim_counters(c)->time_ns;
	assert_true(cr_r(c, HCR + 24) & GO);       /* still running right after */
	assert_int_equal(cxsim_counters(c)->tools_cmds, 0);
	cr_w(c, HCR + 8, 0x55);                    /* the firmware owns the HCR meanwhile */
	while (cr_r(c, HCR + 24) & GO)
		assert_true(cxsim_counters(c)->time_ns - t0 < 1000000);
	assert_true(cxsim_counters(c)->time_ns - t0 >= 10000); /* took model time, not zero */
	assert_int_equal(cr_r(c, HCR + 24) >> 24, 0);
	assert_int_equal(cr_r(c, HCR + 8), 0);
	assert_int_equal(cr_r(c, HCR + 20), 0xbeefu << 16);
	assert_int_equal(cxsim_counters(c)->tools_cmds, 1);
	assert_int_equal(cxsim_counters(c)->tools_without_sem, 1); /* we did not take 0xf03bc */
	cxsim_free(c);
}

static void test_semaphore(void **state)
{
	(void)state;
	struct cxsim_card *c = card();

	assert_int_equal(cr_r(c, HCR_SEM), 0);   /* taken */
	assert_int_equal(cr_r(c, HCR_SEM), 1);   /* held */
	cr_w(c, HCR_SEM, 0);
	assert_int_equal(cr_r(c, HCR_SEM), 0);
	cr_w(c, HCR_SEM, 0);
	cxsim_params_mut(c)->hcr_fault = CXSIM_HCR_SEM_HELD;
	for (int i = 0; i < 1024; i++)          /* TOOLS_SEM_TRIES */
		assert_int_equal(cr_r(c, HCR_SEM), 1);
	cr_w(c, HCR_SEM, 0);                     /* does not free it */
	assert_int_equal(cr_r(c, HCR_SEM), 1);
	cxsim_params_mut(c)->hcr_fault = CXSIM_HCR_OK;
	cr_w(c, HCR_SEM, 0);
	assert_int_equal(hcr(c, 0, 0, 0, OP_DEV_CAP, 0, NULL), 0);
	assert_int_equal(cxsim_counters(c)->tools_without_sem, 0);
	cxsim_free(c);
}

static void test_mbox_write_read(void **state)
{
	(void)state;
	struct cxsim_card *c = card();
	uint32_t out[2];

	assert_int_equal(hcr(c, 0x22222222, 0x11111111, 4, OP_MBOX_W, 0, NULL), 0);
	assert_int_equal(hcr(c, 0, 0, 4, OP_MBOX_R, 0, out), 0);
	assert_int_equal(out[1], 0x11111111);   /* out_param_l = in_param_l = mailbox dword 4 */
	assert_int_equal(out[0], 0x22222222);
	assert_int_equal(hcr(c, 0, 0, 3, OP_MBOX_R, 0, out), 3);   /* odd: not a quad word */
	assert_int_equal(hcr(c, 0, 0, 71, OP_MBOX_W, 0, NULL), 3); /* past 288 bytes */
	assert_int_equal(hcr(c, 0, 0, 70, OP_MBOX_W, 0, NULL), 0); /* the last quad word */
	assert_int_equal(hcr(c, 0, 0, 0, 0x60, 0, NULL), 2);       /* HW_ACCESS: not modelled */
	assert_int_equal(hcr(c, 0, 0, 0, 0xfff, 0, NULL), 2);
	assert_int_equal(cxsim_counters(c)->tools_by_opcode[CXSIM_TOOLS_OP_MBOX], 5); /* the refused ones count too */
	cxsim_free(c);
}

static void test_query_dev_cap(void **state)
{
	(void)state;
	struct cxsim_card *c = card();
	uint32_t mb[72];

	assert_int_equal(hcr(c, 0, 0, 0, OP_DEV_CAP, 0, NULL), 0);
	mbox_get(c, mb, 72);
	assert_int_equal(mb[0x38 / 4] & 0xff, 0);          /* 127 VFs + PF = 128: written 0 */
	assert_int_equal((mb[0x48 / 4] >> 16) & 0x3f, 3 - 1);
	assert_int_equal(mb[0xc0 / 4] & 0x3f, 0x3f);
	assert_int_equal((mb[0xc8 / 4] >> 3) & 0x3f, 5);
	struct cxsim_tools_profile *t = &cxsim_params_mut(c)->tools;
	t->ports = 1;
	t->max_vfs = 16;
	t->bar_size = 4;
	t->max_bar_size = 6;
	assert_int_equal(hcr(c, 0, 0, 0, OP_DEV_CAP, 0, NULL), 0);
	mbox_get(c, mb, 72);
	assert_int_equal(mb[0x38 / 4] & 0xff, 17);
	assert_int_equal((mb[0x48 / 4] >> 16) & 0x3f, 3);
	assert_int_equal(mb[0xc0 / 4] & 0x3f, 0x3f & ~0x14); /* no WOL_P2, VPI_P2 */
	assert_int_equal((mb[0xc8 / 4] >> 3) & 0x3f, 6);
	cxsim_free(c);
}

static void test_query_def_params(void **state)
{
	(void)state;
	struct cxsim_card *c = card();
	uint32_t mb[8];

	assert_int_equal(hcr(c, 0, 0, 0, OP_DEF_PARAMS, 0, NULL), 0);
	mbox_get(c, mb, 6);
	assert_int_equal(mb[0] & 0x3c000, 0x3c000);   /* the four CX3 global support bits */
	assert_int_equal(mb[1] & 0xff, 8);            /* num_vfs */
	assert_int_equal(mb[1] >> 31, 0);             /* sriov_en */
	assert_int_equal((mb[1] >> 21) & 1, 1);       /* boot_ip_ver supported */
	assert_int_equal((mb[1] >> 29) & 1, 1);       /* default_cq_timestamp */
	for (unsigned port = 1; port <= 2; port++) {
		assert_int_equal(hcr(c, 0, 0, 0, OP_DEF_PARAMS, port, NULL), 0);
		mbox_get(c, mb, 8);
		assert_int_equal(mb[0] & 0xe0000, 0xc0000); /* vpi, wol; no force mode */
		assert_int_equal(mb[1] & 0xfff, 1);         /* default_boot_vlan */
		assert_int_equal((mb[1] >> 16) & 0xf, 1);   /* PXE */
		assert_int_equal((mb[1] >> 25) & 3, 3);     /* VPI */
		assert_int_equal((mb[1] >> 29) & 1, 1);     /* option ROM on */
		assert_int_equal(mb[2] >> 28, 0x9);         /* boot parameters, IB boot settings */
	}
	assert_int_equal(hcr(c, 0, 0, 0, OP_DEF_PARAMS, 3, NULL), 3);
	cxsim_params_mut(c)->tools.ports = 1;
	assert_int_equal(hcr(c, 0, 0, 0, OP_DEF_PARAMS, 2, NULL), 3);
	assert_int_equal(cxsim_counters(c)->tools_by_opcode[CXSIM_TOOLS_OP_DEF_PARAMS], 5);
	cxsim_free(c);
}

static void test_cr_mailbox_probe(void **state)
{
	(void)state;
	struct cxsim_card *c = card();
	uint32_t mb[72];

	cr_w(c, CR_MBOX, 0xbadb00f);                   /* tools_cmdif_is_cr_mbox_supported */
	assert_int_equal(cr_r(c, CR_MBOX), 0xbadb00f);
	cr_w(c, CR_MBOX + 284, 7);
	assert_int_equal(cr_r(c, CR_MBOX + 284), 7);
	cxsim_params_mut(c)->no_cr_mbox = true;
	cxsim_power_cycle(c);
	cr_w(c, CR_MBOX, 0xbadb00f);
	assert_int_not_equal(cr_r(c, CR_MBOX), 0xbadb00f);
	assert_true(cxsim_counters(c)->unmodelled >= 2);
	reg_frame(mb, MNVA, GET, TLV_SRIOV, 0, 1, NULL);
	mbox_put(c, mb, 72);
	assert_int_equal(hcr(c, 0, 0, 1, OP_REG, 0, NULL), 3);   /* no CR mailbox to use */
	assert_int_equal(hcr(c, 0, 0, 0, OP_REG, 0, NULL), 0);   /* the HCR mailbox works */
	mbox_get(c, mb, 8);
	assert_int_equal(op_status(mb), RS_RES_NOT_AVLBL);
	cxsim_free(c);
}

static void test_mnva_both_paths(void **state)
{
	(void)state;
	struct cxsim_card *c = card();
	uint32_t mb[72], v = 0x80000010;            /* SRIOV_EN=1, NUM_OF_VFS=16 */
	struct cxsim_setting s[8];

	reg_frame(mb, MNVA, GET, TLV_SRIOV, 0, 1, NULL);
	assert_int_equal(reg_cr(c, mb), RS_RES_NOT_AVLBL);      /* never set: defaults apply */
	reg_frame(mb, MNVA, SET, TLV_SRIOV, 0, 1, &v);
	assert_int_equal(reg_cr(c, mb), 0);
	reg_frame(mb, MNVA, GET, TLV_SRIOV, 0, 1, NULL);
	assert_int_equal(reg_cr(c, mb), 0);
	assert_int_equal(mb[7], v);
	reg_frame(mb, MNVA, GET, TLV_SRIOV, 0, 1, NULL);
	assert_int_equal(reg_mbox(c, mb), 0);                    /* the 0x70/0x71 path sees it too */
	assert_int_equal(mb[7], v);
	v = 0x2;                                                 /* LINK_TYPE_P2=ETH */
	reg_frame(mb, MNVA, SET, TLV_VPI, 2, 1, &v);
	assert_int_equal(reg_mbox(c, mb), 0);
	assert_int_equal(cxsim_nv_count(c), 2);
	assert_int_equal(cxsim_nv_settings(c, s, 8), 6);         /* SRIOV: 2 fields, VPI: 4 */
	assert_string_equal(s[0].name, "SRIOV_EN");
	assert_int_equal(s[0].value, 1);
	assert_string_equal(s[1].name, "NUM_OF_VFS");
	assert_int_equal(s[1].value, 16);
	assert_string_equal(s[2].name, "LINK_TYPE_P2");
	assert_int_equal(s[2].value, 2);
	assert_string_equal(s[2].text, "ETH");
	const struct cxsim_counters *k = cxsim_counters(c);
	assert_int_equal(k->nv_write_cmds, 2);
	assert_int_equal(k->nv_writes, 2);
	assert_int_equal(k->tools_by_opcode[CXSIM_TOOLS_OP_REG_ACCESS], 5);
	cxsim_free(c);
}

static void test_register_framing_errors(void **state)
{
	(void)state;
	struct cxsim_card *c = card();
	uint32_t mb[72], v = 1;

	reg_frame(mb, 0x9023, GET, TLV_SRIOV, 0, 1, NULL);
	assert_int_equal(reg_cr(c, mb), RS_REG_NOT_SUPP);
	reg_frame(mb, MNVA, 3, TLV_SRIOV, 0, 1, NULL);
	assert_int_equal(reg_cr(c, mb), RS_METHOD);
	reg_frame(mb, MNVIA, GET, 0, 0, 0, NULL);
	assert_int_equal(reg_cr(c, mb), RS_METHOD);              /* MNVIA is SET only */
	reg_frame(mb, MNVA, GET, TLV_SRIOV, 0, 1, NULL);
	mb[0] = 2u << 27 | 4u << 16;
	assert_int_equal(reg_cr(c, mb), RS_UNKNOWN_TLV);
	reg_frame(mb, MNVA, GET, TLV_SRIOV, 0, 1, NULL);
	mb[1] = (mb[1] & ~0xffu) | 0x0a;
	assert_int_equal(reg_cr(c, mb), RS_CLASS);
	reg_frame(mb, MNVA, SET, 0x99, 0, 1, &v);                /* a TLV the firmware lacks */
	assert_int_equal(reg_cr(c, mb), RS_BAD_PARAM);
	reg_frame(mb, MNVA, SET, TLV_VPI, 0, 1, &v);             /* per port, without a port */
	assert_int_equal(reg_cr(c, mb), RS_BAD_PARAM);
	reg_frame(mb, MNVA, SET, TLV_SRIOV, 1, 1, &v);           /* global, with one */
	assert_int_equal(reg_cr(c, mb), RS_BAD_PARAM);
	reg_frame(mb, MNVA, SET, TLV_SRIOV, 0, 0, &v);           /* no data */
	assert_int_equal(reg_cr(c, mb), RS_BAD_PARAM);
	reg_frame(mb, MNVA, GET, TLV_SRIOV, 0, 1, NULL);
	mb[4] = 3u << 27 | 2u << 16;                            /* reg TLV too short for its data */
	assert_int_equal(reg_cr(c, mb), RS_BAD_PARAM);
	cxsim_params_mut(c)->tools.ports = 1;
	reg_frame(mb, MNVA, SET, TLV_PREBOOT, 2, 1, &v);         /* a port the card lacks */
	assert_int_equal(reg_cr(c, mb), RS_BAD_PARAM);
	reg_frame(mb, MNVA, GET, TLV_PREBOOT, 2, 1, NULL);       /* ... holds nothing */
	assert_int_equal(reg_cr(c, mb), RS_RES_NOT_AVLBL);
	assert_int_equal(cxsim_nv_count(c), 0);
	assert_int_equal(cxsim_counters(c)->nv_writes, 0);
	assert_int_equal(cxsim_counters(c)->nv_write_cmds, 5);   /* the five SETs above */
	cxsim_free(c);
}

static void test_mnvia_clears_and_store_persists(void **state)
{
	(void)state;
	struct cxsim_card *c = card();
	uint32_t mb[72], v = 0x80010007;                         /* ROM on, PXE, VLAN 7 */
	char stem[] = "/tmp/cxsim-nv-XXXXXX", err[256], path[64];
	int fd = mkstemp(stem);

	assert_true(fd >= 0);
	close(fd);
	reg_frame(mb, MNVA, SET, TLV_PREBOOT, 1, 1, &v);
	assert_int_equal(reg_cr(c, mb), 0);
	cxsim_power_cycle(c);                                   /* a cold boot keeps it */
	assert_int_equal(cr_r(c, HCR + 20), 0);                 /* ... and loses the HCR */
	reg_frame(mb, MNVA, GET, TLV_PREBOOT, 1, 1, NULL);
	assert_int_equal(reg_cr(c, mb), 0);
	assert_int_equal(mb[7], v);
	assert_int_equal(cxsim_save(c, stem, err, sizeof(err)), 0);
	struct cxsim_card *d = cxsim_load(stem, err, sizeof(err));
	assert_non_null(d);
	assert_int_equal(cxsim_nv_count(d), 1);
	reg_frame(mb, MNVA, GET, TLV_PREBOOT, 1, 1, NULL);
	assert_int_equal(reg_cr(d, mb), 0);
	assert_int_equal(mb[7], v);
	reg_frame(mb, MNVIA, SET, 0, 0, 0, NULL);               /* mlxconfig reset */
	assert_int_equal(reg_cr(d, mb), 0);
	assert_int_equal(cxsim_nv_count(d), 0);
	assert_int_equal(cxsim_counters(d)->nv_writes, 1);
	assert_int_equal(cxsim_save(d, stem, err, sizeof(err)), 0);
	cxsim_free(d);
	d = cxsim_load(stem, err, sizeof(err));
	assert_non_null(d);
	assert_int_equal(cxsim_nv_count(d), 0);
	/* A damaged STEM.nv is refused with a reason. */
	snprintf(path, sizeof(path), "%s.nv", stem);
	FILE *f = fopen(path, "w");
	fputs("0x2021:1 0 nonsense\n", f);
	fclose(f);
	assert_int_equal(cxsim_nv_load(d, path, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "line 1"));
	cxsim_free(d);
	cxsim_free(c);
	for (const char *ext = ".conf\0.flash\0.nv\0"; *ext; ext += strlen(ext) + 1) {
		snprintf(path, sizeof(path), "%s%s", stem, ext);
		unlink(path);
	}
	unlink(stem);
}

static void test_faults(void **state)
{
	(void)state;
	struct cxsim_card *c = card();
	uint32_t mb[72], v = 1;

	cxsim_params_mut(c)->hcr_fault = CXSIM_HCR_NOT_STARTED;
	assert_int_equal(hcr(c, 0, 0, 0, OP_DEV_CAP, 0, NULL), 4);
	assert_int_equal(hcr(c, 0, 0, 0, OP_MBOX_W, 0, NULL), 4);
	cxsim_params_mut(c)->hcr_fault = CXSIM_HCR_OLD_FW;
	assert_int_equal(hcr(c, 0, 0, 0, OP_DEV_CAP, 0, NULL), 2);
	assert_int_equal(hcr(c, 0, 0, 0, OP_MBOX_R, 0, NULL), 2);
	cxsim_params_mut(c)->hcr_fault = CXSIM_HCR_NV_CORRUPT;
	reg_frame(mb, MNVA, GET, TLV_SRIOV, 0, 1, NULL);
	assert_int_equal(reg_cr(c, mb), RS_CONF_CORRUPT);
	reg_frame(mb, MNVA, SET, TLV_SRIOV, 0, 1, &v);
	assert_int_equal(reg_cr(c, mb), RS_CONF_CORRUPT);
	reg_frame(mb, MNVIA, SET, 0, 0, 0, NULL);
	assert_int_equal(reg_cr(c, mb), 0);                     /* reset runs, and does not cure it */
	reg_frame(mb, MNVA, GET, TLV_SRIOV, 0, 1, NULL);
	assert_int_equal(reg_cr(c, mb), RS_CONF_CORRUPT);
	cxsim_params_mut(c)->hcr_fault = CXSIM_HCR_GO_STUCK;
	uint64_t n = cxsim_counters(c)->tools_cmds;
	assert_int_equal(hcr(c, 0, 0, 0, OP_DEV_CAP, 0, NULL), TIMEOUT);
	assert_int_equal(cxsim_counters(c)->tools_cmds, n);     /* nothing ran */
	cxsim_params_mut(c)->hcr_fault = CXSIM_HCR_OK;
	assert_true(cr_r(c, HCR + 24) & GO);                     /* still stuck until a power cycle */
	cxsim_power_cycle(c);
	assert_int_equal(hcr(c, 0, 0, 0, OP_DEV_CAP, 0, NULL), 0);
	cxsim_free(c);
}

static void test_who_answers(void **state)
{
	(void)state;
	/* Firmware older than 2.31.5000: BAD_OP, as mlxconfig expects of it. */
	struct cxsim_card *c = cxsim_clone(template_old);
	assert_int_equal(hcr(c, 0, 0, 0, OP_DEV_CAP, 0, NULL), 2);
	cxsim_free(c);
	/* Recovery mode: no firmware runs, go never clears; no CR mailbox either. */
	c = card();
	size_t size;
	uint8_t *flash = cxsim_flash(c, &size);
	memset(flash, 0xff, size);
	cxsim_flash_changed(c);
	cxsim_power_cycle(c);
	assert_false(cxsim_boot_info(c)->booted);
	assert_int_equal(hcr(c, 0, 0, 0, OP_DEV_CAP, 0, NULL), TIMEOUT);
	cr_w(c, CR_MBOX, 0xbadb00f);
	assert_int_not_equal(cr_r(c, CR_MBOX), 0xbadb00f);
	assert_int_equal(cxsim_counters(c)->tools_cmds, 0);
	cxsim_free(c);
	/* ConnectX-2: no settings interface at all, nothing there executes. */
	c = cxsim_clone(template_cx2);
	cr_w(c, HCR + 24, OP_DEV_CAP | GO);
	assert_int_equal(cr_r(c, HCR + 24), 0);
	assert_int_equal(cxsim_counters(c)->tools_cmds, 0);
	assert_int_equal(cxsim_counters(c)->unmodelled, 2);
	assert_false(cxsim_chip_has_tools(CXSIM_CX2));
	cxsim_free(c);
}

static void test_profile_in_conf(void **state)
{
	(void)state;
	char stem[] = "/tmp/cxsim-prof-XXXXXX", err[256], path[64], line[256];
	int fd = mkstemp(stem);
	struct cxsim_card *c = card();
	bool saw_ports = false, saw_vfs = false, saw_fault = false;

	assert_true(fd >= 0);
	close(fd);
	cxsim_params_mut(c)->tools.ports = 1;
	cxsim_params_mut(c)->no_cr_mbox = true;
	cxsim_params_mut(c)->hcr_fault = CXSIM_HCR_NV_CORRUPT;
	assert_int_equal(cxsim_save(c, stem, err, sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s.conf", stem);
	FILE *f = fopen(path, "r");
	while (fgets(line, sizeof(line), f)) {
		saw_ports |= !strcmp(line, "tools_ports=0x1\n");
		saw_vfs |= !strncmp(line, "tools_max_vfs=", 14);   /* the default: not written */
		saw_fault |= !strcmp(line, "hcr_fault=nv-corrupt\n");
	}
	fclose(f);
	assert_true(saw_ports && !saw_vfs && saw_fault);
	struct cxsim_card *d = cxsim_load(stem, err, sizeof(err));
	assert_non_null(d);
	assert_int_equal(cxsim_get_params(d)->tools.ports, 1);
	assert_int_equal(cxsim_get_params(d)->tools.max_vfs, 127);
	assert_true(cxsim_get_params(d)->no_cr_mbox);
	assert_int_equal(cxsim_get_params(d)->hcr_fault, CXSIM_HCR_NV_CORRUPT);
	cxsim_free(d);
	cxsim_free(c);
	unlink(path);
	snprintf(path, sizeof(path), "%s.flash", stem);
	unlink(path);
	unlink(stem);
}

static void test_names(void **state)
{
	(void)state;
	enum cxsim_hcr_fault f;
	uint8_t caps;

	for (int i = 0; i < CXSIM_HCR_NFAULTS; i++) {
		assert_int_equal(cxsim_hcr_fault_parse(cxsim_hcr_fault_name((enum cxsim_hcr_fault)i), &f), 0);
		assert_int_equal(f, i);
	}
	assert_int_equal(cxsim_hcr_fault_parse("bogus", &f), -1);
	assert_int_equal(cxsim_caps_parse("sriov,bar_size", &caps), 0);
	assert_int_equal(caps, CXSIM_CAP_SRIOV | CXSIM_CAP_BAR_SIZE);
	assert_int_equal(cxsim_caps_parse("none", &caps), 0);
	assert_int_equal(caps, 0);
	assert_int_equal(cxsim_caps_parse("sriov,wifi", &caps), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_go_bit_clears_on_the_model_clock),
		cmocka_unit_test(test_semaphore),
		cmocka_unit_test(test_mbox_write_read),
		cmocka_unit_test(test_query_dev_cap),
		cmocka_unit_test(test_query_def_params),
		cmocka_unit_test(test_cr_mailbox_probe),
		cmocka_unit_test(test_mnva_both_paths),
		cmocka_unit_test(test_register_framing_errors),
		cmocka_unit_test(test_mnvia_clears_and_store_persists),
		cmocka_unit_test(test_faults),
		cmocka_unit_test(test_who_answers),
		cmocka_unit_test(test_profile_in_conf),
		cmocka_unit_test(test_names),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
