/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_icmd.c — a ConnectX-4 Lx / 5 whose firmware runs, in process, against hw-access.md
 * §3.14: the running identity and the cache-replacement guard, ICMD over the VSEC (go bit
 * held for the command's time, status, mailbox), ACCESS_REGISTER with MGIR, MCAM, MFPA,
 * MFBA (byte order) and MFBE on the flash, the settings registers over the store, the
 * ICMD faults, and the recovery strap. The image is a minimal FS3/FS4 front built here,
 * just what the boot ROM model checks (sim/core/bootrom_fs3.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cxsim.h"
#include "fs2_lite.h" /* the model's own CRC16 */

#define VSEC 0xC0
#define CTRL (VSEC + 0x04)
#define SEM (VSEC + 0x0C)
#define ADDR (VSEC + 0x10)
#define DATA (VSEC + 0x14)
#define FLAG 0x80000000u
#define AS_ICMD 3
#define AS_CR 2
#define AS_SEM 0xA
#define ICMD_MBOX 0x100000
#define GO 1u
#define OP_REG 0x9001u
#define PID 0x1234u

/* ---- a minimal FS3 image: magic, BOOT2, ITOC with IMAGE_INFO (docs/fs3-format.md) ---- */

static void be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static void crc_after(uint8_t *p, unsigned ndw)
{
	uint16_t crc = FS2L_CRC_INIT;

	for (unsigned i = 0; i < 4 * ndw; i++)
		crc = fs2l_crc_byte(crc, p[i]);
	be32(p + 4 * ndw, fs2l_crc_final(crc));
}

static void fs3_image(uint8_t *f)
{
	static const uint32_t magic[4] = {0x4D544657, 0x8CDFD000, 0xDEAD9270, 0x4154BEEF};
	static const uint32_t itoc[4] = {0x49544F43, 0x04081516, 0x2342CAFA, 0xBACAFE00};

	for (int i = 0; i < 4; i++) {
		be32(f + 4 * i, magic[i]);
		be32(f + 0x1000 + 4 * i, itoc[i]);
	}
	be32(f + 0x24, 0x03140101);        /* FS3, slot 2^20, bin version */
	be32(f + 0x3C, 4);                 /* BOOT2 at 0x38: N = 4 */
	crc_after(f + 0x38, 7);
	crc_after(f + 0x1000, 7);
	be32(f + 0x1020, 0x10u << 24 | 0x100); /* IMAGE_INFO entry */
	be32(f + 0x1034, 0x80000000u | 0x2000); /* relative, at 0x2000 */
	be32(f + 0x1040, 0xFFu << 24);     /* end */
	be32(f + 0x2004, 14u << 16);       /* 14.32.1010 */
	be32(f + 0x2008, 32u << 16 | 1010);
	memcpy(f + 0x2024, "SIM_CX4LX", 9);
}

static struct cxsim_card *card(enum cxsim_icmd_fault fault, bool recovery)
{
	struct cxsim_params p;
	struct cxsim_card *c;
	size_t n;

	cxsim_params_default(&p, CXSIM_CX4LX);
	p.icmd_fault = fault;
	p.recovery = recovery;
	assert_non_null(c = cxsim_new(&p));
	fs3_image(cxsim_flash(c, &n));
	cxsim_flash_changed(c);
	cxsim_power_cycle(c);
	return c;
}

/* ---- the VSEC ---- */

static uint32_t rd(struct cxsim_card *c, unsigned off)
{
	return cxsim_cfg_read(c, off, 4);
}

static void wr(struct cxsim_card *c, unsigned off, uint32_t v)
{
	cxsim_cfg_write(c, off, v, 4);
}

static uint32_t vread(struct cxsim_card *c, unsigned space, uint32_t a)
{
	wr(c, CTRL, space);
	wr(c, ADDR, a);
	return rd(c, DATA);
}

static void vwrite(struct cxsim_card *c, unsigned space, uint32_t a, uint32_t v)
{
	wr(c, CTRL, space);
	wr(c, DATA, v);
	wr(c, ADDR, a | FLAG);
}

/* One ICMD ACCESS_REGISTER: op TLV, reg TLV, payload p[n]; answers into p, returns the
 * register status (or -1: the go bit did not clear within the time allowed). */
static int reg(struct cxsim_card *c, uint16_t id, unsigned method, uint32_t *p, unsigned n)
{
	uint32_t mb[5] = {1u << 27 | 4u << 16, (uint32_t)id << 16 | method << 8 | 1, 0, 0,
			  3u << 27 | (n + 1) << 16};
	uint32_t ctrl;

	vwrite(c, AS_SEM, 0, PID);
	assert_int_equal(vread(c, AS_SEM, 0), PID);
	for (unsigned i = 0; i < 5 + n; i++)
		vwrite(c, AS_ICMD, ICMD_MBOX + 4 * i, i < 5 ? mb[i] : p[i - 5]);
	vwrite(c, AS_ICMD, 0, OP_REG << 16 | GO);
	assert_true(vread(c, AS_ICMD, 0) & GO);   /* held for the command's time */
	cxsim_advance(c, 1000000000ull);
	ctrl = vread(c, AS_ICMD, 0);
	vwrite(c, AS_SEM, 0, 0);
	if (ctrl & GO)
		return -1;
	assert_int_equal((ctrl >> 8) & 0xFF, 0);  /* ICMD status */
	for (unsigned i = 0; i < n; i++)
		p[i] = vread(c, AS_ICMD, ICMD_MBOX + 4 * (5 + i));
	return (int)((vread(c, AS_ICMD, ICMD_MBOX) >> 8) & 0x7F);
}

static void running_identity_and_guard(void **state)
{
	(void)state;
	struct cxsim_card *c = card(CXSIM_ICMD_OK, false);

	assert_true(cxsim_fw_running(c));
	assert_int_equal(cxsim_cfg_read(c, 2, 2), 0x1015);
	assert_int_not_equal(vread(c, AS_CR, 0xF0408) & 0x3FFFFFF, 0);
	assert_int_equal(vread(c, AS_CR, 0xB0004) >> 31, 0);      /* ICMD up */
	assert_int_equal(vread(c, AS_ICMD, 0x1000), 0x340);       /* mailbox size */
	cxsim_free(c);
}

static void mgir_and_mcam(void **state)
{
	(void)state;
	struct cxsim_card *c = card(CXSIM_ICMD_OK, false);
	uint32_t p[40] = {0};

	assert_int_equal(reg(c, 0x9020, 1, p, 40), 0);
	assert_int_equal(p[2] & 0xFFFF, 0x20B);                   /* hw_dev_id */
	assert_int_equal((p[1] >> 16) & 0xFF, 2);                 /* num_ports */
	assert_int_equal(p[17], 14);
	assert_int_equal(p[18], 32);
	assert_int_equal(p[19], 1010);
	assert_int_equal(p[12], 0x53494D5Fu);                     /* "SIM_" */
	assert_int_equal(p[8] >> 24 & 3, 0);                      /* not secured */
	memset(p, 0, sizeof(p));
	assert_int_equal(reg(c, 0x907F, 1, p, 18), 0);
	/* mask byte 15 - n/8: MGIR (n = 0x20) in byte 11 bit 0; MCDA (0x63) byte 3 bit 3: clear */
	assert_int_equal((p[2 + 11 / 4] >> (24 - 8 * (11 % 4))) & 1, 1);
	assert_int_equal((p[2 + 3 / 4] >> (24 - 8 * (3 % 4))) & 0x1F, 0);
	assert_int_equal(reg(c, 0x402D, 1, p, 4), 4);             /* MLOCK: not supported */
	cxsim_free(c);
}

static void flash_registers(void **state)
{
	(void)state;
	struct cxsim_card *c = card(CXSIM_ICMD_OK, false);
	uint32_t p[3 + 64] = {0};
	size_t n;
	uint8_t *f = cxsim_flash(c, &n);

	assert_int_equal(reg(c, 0x9010, 1, p, 8), 0);             /* MFPA */
	assert_int_equal(p[5], 0x1840EF);                         /* W25Q128JV, RDID in order */
	assert_int_equal(p[4] & 0xF, 1);
	memset(p, 0, sizeof(p));
	p[2] = 0x200000;                                          /* MFBE 4 KiB */
	assert_int_equal(reg(c, 0x9012, 2, p, 3), 0);
	p[0] = 0;
	p[1] = 8;
	p[2] = 0x200000;
	p[3] = 0x44332211;
	p[4] = 0x88776655;
	assert_int_equal(reg(c, 0x9011, 2, p, 5), 0);             /* MFBA SET */
	assert_memory_equal(f + 0x200000, "\x11\x22\x33\x44\x55\x66\x77\x88", 8);
	memset(p, 0, sizeof(p));
	p[1] = 4;
	p[2] = 0x0;
	assert_int_equal(reg(c, 0x9011, 1, p, 4), 0);             /* MFBA GET: the FS3 magic */
	assert_int_equal(p[3], 0x5746544D);                       /* "MTFW", first byte in 7:0 */
	p[0] = 1 << 4;                                            /* a second flash: none */
	assert_int_equal(reg(c, 0x9011, 1, p, 4), 7);
	cxsim_free(c);
}

static void settings_registers(void **state)
{
	(void)state;
	struct cxsim_card *c = card(CXSIM_ICMD_OK, false);
	uint32_t link_p1 = 1u << 24 | 1u << 16 | 18, p[8] = {0};

	p[0] = link_p1;
	assert_int_equal(reg(c, 0x9030, 1, p, 2), 0);             /* NVQC */
	assert_int_equal(p[1] & 3, 3);
	memset(p, 0, sizeof(p));
	p[0] = 256;
	p[1] = link_p1;
	assert_int_equal(reg(c, 0x9024, 1, p, 8), 0);             /* default: ETH on a 4 Lx */
	assert_int_equal(p[3], 2u << 2);
	p[0] = 4;
	p[3] = 1u << 2;                                           /* IB */
	assert_int_equal(reg(c, 0x9024, 2, p, 4), 0);
	assert_int_equal(cxsim_nv_count(c), 1);
	p[0] = 256;
	p[3] = 0;
	assert_int_equal(reg(c, 0x9024, 1, p, 8), 0);
	assert_int_equal(p[3], 1u << 2);
	memset(p, 0, sizeof(p));
	p[1] = link_p1;
	assert_int_equal(reg(c, 0x9025, 2, p, 3), 0);             /* NVDI */
	assert_int_equal(cxsim_nv_count(c), 0);
	p[0] = 4;
	p[1] = 1u << 24 | 3u << 16 | 18;                          /* port 3: none */
	assert_int_equal(reg(c, 0x9024, 2, p, 4), 7);
	p[0] = 256;
	p[1] = 0x00ABCDEF;                                        /* unknown, never set */
	assert_int_equal(reg(c, 0x9024, 1, p, 8), 8);
	assert_int_equal(reg(c, 0x9033, 2, p, 2), 0);             /* NVIA */
	cxsim_free(c);
}

static void faults(void **state)
{
	(void)state;
	uint32_t p[4] = {0};
	struct cxsim_card *c = card(CXSIM_ICMD_BUSY, false);

	assert_int_equal(reg(c, 0x9020, 1, p, 4), -1);            /* go never clears */
	cxsim_free(c);
	c = card(CXSIM_ICMD_NOT_STARTED, false);
	assert_int_equal(vread(c, AS_CR, 0xB0004) >> 31, 1);
	cxsim_free(c);
	c = card(CXSIM_ICMD_SEM_HELD, false);
	vwrite(c, AS_SEM, 0, PID);
	assert_int_not_equal(vread(c, AS_SEM, 0), PID);           /* someone else's */
	vwrite(c, AS_SEM, 0, 0);                                  /* -clear_semaphore */
	vwrite(c, AS_SEM, 0, PID);
	assert_int_equal(vread(c, AS_SEM, 0), PID);
	cxsim_free(c);
	c = card(CXSIM_ICMD_SECURE_FW, false);
	uint32_t m[40] = {0};
	assert_int_equal(reg(c, 0x9020, 1, m, 40), 0);
	assert_int_equal(m[8] >> 24 & 3, 3);                      /* secured, signed */
	m[2] = 0x200000;
	assert_int_equal(reg(c, 0x9012, 2, m, 3), 6);             /* MFBE refused */
	cxsim_free(c);
}

static void recovery_strap(void **state)
{
	(void)state;
	struct cxsim_card *c = card(CXSIM_ICMD_OK, true);

	assert_false(cxsim_fw_running(c));
	assert_true(cxsim_boot_info(c)->booted);
	assert_int_equal(cxsim_cfg_read(c, 2, 2), 0x20B);
	assert_int_equal(vread(c, AS_CR, 0xF0408), 0);
	assert_int_equal(vread(c, AS_CR, 0xB0004) >> 31, 1);
	cxsim_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(running_identity_and_guard),
		cmocka_unit_test(mgir_and_mcam),
		cmocka_unit_test(flash_registers),
		cmocka_unit_test(settings_registers),
		cmocka_unit_test(faults),
		cmocka_unit_test(recovery_strap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
