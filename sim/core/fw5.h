/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fw5.h — the model's internals for the running firmware of ConnectX-4, 4 Lx and 5
 * (hw-access.md §3.14): the ICMD interface over the VSEC (icmd.c), the access registers
 * it carries (access_regs_cx4.c: MGIR, MCAM, MFPA, MFBA, MFBE; nv_regs_cx4.c: NVDA,
 * NVDI, NVQC, NVIA, NVQGC, with the TLVs of nv_tlvs_cx4.c) and the firmware's own SPI
 * transactions on the flash (fw_flash.c). Front ends use cxsim.h only.
 *
 * Byte order, as mstflint 4.21 moves the bytes: the ICMD mailbox is dwords, each the
 * big-endian reading of four mailbox bytes (mtcr_ul_com.c mwrite_buffer_ul /
 * mread_buffer_ul: __be32_to_cpu per dword), so a register's "0xN.b" field is bit b of
 * mailbox dword (20 + N) / 4 — the operation TLV (16 bytes) and the register TLV header
 * (4 bytes) come first (mreg_send_raw). */
#ifndef CXSIM_FW5_H
#define CXSIM_FW5_H

#include <stdbool.h>
#include <stdint.h>

#include "cxsim.h"
#include "tools.h"

#define ICMD_MBOX_BYTES 0x340   /* ICMD_MAX_CMD_SIZE, mtcr_ul/mtcr_icmd_cif.h */
#define ICMD_MBOX_DWORDS (ICMD_MBOX_BYTES / 4)

/* The ICMD interface as the firmware keeps it (icmd.c). */
struct icmd {
	uint32_t ctrl;           /* the control register as last written / answered */
	bool busy;               /* go is set: a command runs until done_at */
	uint64_t done_at;        /* model time at which it completes (UINT64_MAX: never) */
	uint32_t mbox[ICMD_MBOX_DWORDS];
	uint32_t answer[ICMD_MBOX_DWORDS]; /* the mailbox as it reads once go clears */
	uint8_t status;          /* the status the running command ends with */
};

struct cxsim_card;

/* icmd.c: the VSEC ICMD space (space 3) and the crspace register that says whether the
 * interface is up (true when addr is it). */
void sim_icmd_reset(struct cxsim_card *c);
uint32_t sim_icmd_space_read(struct cxsim_card *c, uint32_t addr);
void sim_icmd_space_write(struct cxsim_card *c, uint32_t addr, uint32_t val);
bool sim_icmd_cr_read(struct cxsim_card *c, uint32_t addr, uint32_t *val);
/* Does this card run 5th-generation firmware (ICMD, access registers)? */
bool sim_fw5_running(const struct cxsim_card *c);

/* access_regs_cx4.c: the register table ACCESS_REGISTER (ICMD opcode 0x9001) reaches on
 * these chips. A register's run() works on the payload p[0..ndw) in place and returns
 * a register status (reg_access.c REG_*); *ns is how long the firmware took. */
struct sim_reg {
	uint16_t id;
	const char *name;
	uint8_t methods;           /* bit per method (1 GET, 2 SET) */
	uint8_t min_dwords;        /* the register's shortest payload */
	int (*run)(struct cxsim_card *c, unsigned method, uint32_t *p, unsigned ndw, uint64_t *ns);
};
const struct sim_reg *sim_reg5_find(uint16_t id);

/* nv_regs_cx4.c: the settings registers, looked up the same way. */
const struct sim_reg *sim_nv5_find(uint16_t id);

/* nv_tlvs_cx4.c: the TLVs the firmware knows (mlxconfig_host.db names). */
#define NV5_MAX_DWORDS 8
struct nv5_tlv {
	const char *name;
	uint8_t cls;               /* type dword 31:24 */
	uint32_t index;            /* the TLV's index within its class */
	uint8_t size;              /* bytes */
	bool cap;                  /* a capability TLV: read-only */
	uint32_t defaults[NV5_MAX_DWORDS];
	const struct nv_field *fields; /* mstconfig's names of its fields (boot-check), NULL-ended */
};
const struct nv5_tlv *nv5_tlv_find(uint32_t type);
unsigned nv5_port(uint32_t type);  /* the port of a per-port type dword, else 0 */
void nv5_defaults(const struct cxsim_card *c, const struct nv5_tlv *t, uint32_t *dw);

/* reg_access.c: ACCESS_REGISTER on an ICMD mailbox of ndw dwords (operation TLV, reg
 * TLV, payload): the register status goes into the operation TLV; *ns: its duration. */
void sim_reg_access5(struct cxsim_card *c, uint32_t *mbox, unsigned ndw, uint64_t *ns);

/* fw_flash.c: the firmware's SPI transactions, starting at model time *t and moving it on
 * (each command waits for the previous one's WIP to clear). Return 0, or -1 when the
 * address range is outside the part. */
int sim_fw_flash_read(struct cxsim_card *c, uint32_t addr, uint8_t *buf, unsigned n, uint64_t *t);
int sim_fw_flash_program(struct cxsim_card *c, uint32_t addr, const uint8_t *buf, unsigned n,
			 uint64_t *t);
int sim_fw_flash_erase(struct cxsim_card *c, uint32_t addr, uint32_t size, uint64_t *t);
uint32_t sim_fw_flash_jedec(struct cxsim_card *c, uint64_t *t); /* RDID bytes 0,1,2 in 7:0,15:8,23:16 */

#endif
