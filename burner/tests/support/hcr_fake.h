/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hcr_fake.h — test-only: a ConnectX-3 that answers the tools HCR, behind the config window.
 *
 * Until cxsim models the tools interface (branch h-cfg-sim), the settings code
 * is tested against this small stand-in: a crspace with the HW ID, the running
 * FW version, the 0xf03bc semaphore, the seven HCR dwords at 0x80780, the CR
 * mailbox at 0xe0000 (or none), and QUERY_DEV_CAP, QUERY_DEF_PARAMS,
 * MBOX_WRITE/READ and ACCESS_REGISTER (MNVA GET/SET, MNVIA) over a record
 * store. It is written from hw-access.md §8 by the same hand as cxflash, so it
 * proves the code does what we read, not that we read right; cxsim and
 * mstconfig are the independent checks (tests/test_cxflash_config.py). */
#ifndef CX_TEST_HCR_FAKE_H
#define CX_TEST_HCR_FAKE_H

#include <stdbool.h>
#include <stdint.h>

#include "dev/cfg.h"

#define FAKE_RECORDS 16

struct fake_record {
	uint16_t type;
	uint8_t port, ndw;
	uint32_t dw[8];
};

struct hcr_fake {
	uint32_t hw_id;              /* 0xf0014 */
	uint16_t fw[3];              /* running FW at 0x1f064 */
	unsigned ports;
	bool cr_mbox;                /* the CR mailbox answers */
	bool sem_held;               /* 0xf03bc never reads 0 */
	bool go_stuck;               /* go never clears */
	unsigned status;             /* answer every command with this status (0: none) */
	unsigned reg_status;         /* answer every register access with this status */
	uint32_t caps, max_funcs, max_bar, def_bar;
	uint32_t def_global[5], def_port[2][7];
	struct fake_record rec[FAKE_RECORDS];
	unsigned nrec;
	/* counters */
	unsigned commands, mbox_writes, mbox_reads, reg_accesses, nv_writes;
	uint64_t slept_us;
	/* internals */
	uint32_t win_addr, sem, hcr[7];
	uint8_t mbox[288];
};

/* A two-port CX3 A1 with FW 2.42.5000, every capability, the CR mailbox, no records. */
void hcr_fake_init(struct hcr_fake *f);

/* Config space of the fake as an access method. */
void hcr_fake_cfg(struct cfg_dev *d, struct hcr_fake *f);

/* The stored record (type, port), or NULL. */
struct fake_record *hcr_fake_record(struct hcr_fake *f, uint16_t type, uint8_t port);

#endif
