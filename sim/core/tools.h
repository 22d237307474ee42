/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tools.h — the model's internals for the firmware's settings interface (hw-access.md §8):
 * the tools HCR and its mailboxes (tools_hcr.c), the commands it runs (tools_cmds.c),
 * the register framing of ACCESS_REGISTER (reg_access.c), the settings store and its
 * file (nv_store.c), the TLVs it knows (nv_tlvs.c) and the chips' profiles (profile.c).
 * Front ends use cxsim.h only.
 *
 * Byte order, as mstflint 4.25 moves the bytes (and so as the model must take them):
 * a mailbox is 72 dwords, each the big-endian reading of four mailbox bytes. The CR
 * mailbox shows dword k at crspace 0xe0000 + 4k (mwrite_buffer_ul, mtcr_ul_com.c@4.25).
 * MBOX_WRITE with input_modifier = k (even) stores in_param_l (HCR dword 1) as dword k
 * and in_param_h (HCR dword 0) as dword k+1; MBOX_READ answers dword k in out_param_l
 * (HCR dword 4) and dword k+1 in out_param_h (HCR dword 3) (tools_cmdif_mbox_write/_read,
 * mtcr_tools_cif.c@4.25). UNCONFIRMED on hardware: this is what upstream's packing
 * implies, not a datasheet. */
#ifndef CXSIM_TOOLS_H
#define CXSIM_TOOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cxsim.h"

#define TOOLS_MBOX_BYTES 288                     /* TOOLS_HCR_MAX_MBOX, mtcr_tools_cif.h@4.25 */
#define TOOLS_MBOX_DWORDS (TOOLS_MBOX_BYTES / 4)

/* HCR status codes (translate_status, mtcr_tools_cif.c@4.25). 3 is mlx4's BAD_PARAM
 * (the Linux driver's name, mlx4 cmd.c); mstflint reads it as "unknown TLV". */
enum {
	HCR_OK = 0x0,
	HCR_BUSY = 0x1,
	HCR_BAD_OP = 0x2,
	HCR_BAD_PARAM = 0x3,
	HCR_BAD_SYS = 0x4,
	HCR_RES_STATE = 0x9,
};

/* The tools HCR as the firmware keeps it. */
struct tools_hcr {
	uint32_t dw[7];          /* the seven dwords as last written / answered */
	bool busy;               /* go is set: a command runs until done_at */
	uint64_t done_at;        /* model time at which the running command completes */
	uint32_t mbox[TOOLS_MBOX_DWORDS];    /* the mailbox MBOX_WRITE/MBOX_READ reach */
	uint32_t cr_mbox[TOOLS_MBOX_DWORDS]; /* the CR mailbox at 0xe0000 */
};

/* One stored settings TLV: the firmware's "next boot" value. */
#define NV_TLV_MAX_DWORDS 32     /* MNVA's data[128], mlxconfig_4th_gen_layouts.h@4.25 */
#define NV_STORE_MAX 32          /* TLVs the store holds (the model's limit, not the card's) */
struct nv_tlv {
	uint32_t type;           /* 4th gen: the TLV type; 5th gen: NVDA's whole type dword */
	uint8_t type_mod;        /* port (1, 2) for per-port TLVs, 0 for global ones */
	uint8_t version;
	uint8_t len;             /* dwords, 1..NV_TLV_MAX_DWORDS */
	uint32_t dw[NV_TLV_MAX_DWORDS]; /* as the layouts number the bits */
};

struct nv_store {
	struct nv_tlv tlv[NV_STORE_MAX];  /* sorted by (type, type_mod) */
	unsigned n;
	bool dirty;              /* changed since loaded or saved */
};

struct cxsim_card;

/* tools_hcr.c: crspace at 0x80780..0x8079b and 0xe0000..0xe011f (true when addr is one
 * of them and the chip has the interface; then *val / the write is handled). */
bool sim_tools_read(struct cxsim_card *c, uint32_t addr, uint32_t *val);
bool sim_tools_write(struct cxsim_card *c, uint32_t addr, uint32_t val);
void sim_tools_reset(struct cxsim_card *c);
/* Does the card run firmware that answers the tools HCR (booted, 2.31.5000 or newer)? */
bool sim_tools_fw_new_enough(const struct cxsim_card *c);

/* tools_cmds.c: the commands, run when the go bit clears. cmd is the HCR's seven dwords
 * (answers go into dw[3], dw[4] and the mailboxes); returns the HCR status. */
struct tools_opcode {
	uint16_t opcode;
	const char *name;
	uint64_t exec_ns;        /* how long the go bit stays set (UNCONFIRMED: guesses) */
	int counter;             /* CXSIM_TOOLS_OP_* */
	uint8_t (*run)(struct cxsim_card *c, uint32_t dw[7]);
};
const struct tools_opcode *sim_tools_opcode(uint16_t opcode);

/* reg_access.c: ACCESS_REGISTER on a mailbox (operation TLV, reg TLV, payload); the
 * register status goes into the operation TLV. Returns the HCR status. */
uint8_t sim_reg_access(struct cxsim_card *c, uint32_t *mbox);
/* How long the register access in mbox takes (a write to NV costs more). */
uint64_t sim_reg_access_ns(const uint32_t *mbox);

/* nv_store.c */
const struct nv_tlv *nv_find(const struct nv_store *s, uint32_t type, uint8_t type_mod);
int nv_del(struct nv_store *s, uint32_t type, uint8_t type_mod); /* 0, or -1: not there */
int nv_put(struct nv_store *s, const struct nv_tlv *t);   /* 0, or -1 when full */
void nv_clear(struct nv_store *s);

/* nv_tlvs.c: the TLVs mlxconfig 4.25 writes on 4th-gen cards, and their fields. */
struct nv_field {
	const char *name;        /* mstconfig's name, without _Pn */
	uint8_t dword, shift, width;
	const char *const *texts; /* value names as mstconfig prints them, NULL-ended from 0; or NULL */
};
struct nv_tlv_info {
	uint16_t type;
	const char *name;
	bool per_port;
	uint8_t len;             /* dwords mlxconfig sends */
	const struct nv_field *fields;  /* ended by a NULL name */
};
const struct nv_tlv_info *nv_tlv_info(uint16_t type);
const struct nv_tlv_info *nv_tlv_table(size_t *n);

/* profile.c */
void sim_profile_default(struct cxsim_tools_profile *t, enum cxsim_chip chip);

#endif
