/* SPDX-License-Identifier: GPL-2.0-or-later */
/* crspace.h — 32-bit access to the chip's register space (hw-access.md §2).
 *
 * Three ways in, chosen as mstflint chooses (§2.1):
 *
 * - The VSEC gateway (§2.4), when config space has a vendor-specific
 *   capability (ID 9) of the functional type that supports the CR_SPACE,
 *   ICMD_EXT and SEMAPHORE address spaces (mtcr's minimum). cr_open() runs
 *   mtcr's open sequence: find the capability, take its semaphore (the
 *   ticket protocol, 2048 tries), probe the spaces, release. If that
 *   semaphore stays held, cr_open() fails with CX_EBUSY unless CR_CLEAR_SEM
 *   (--clear-semaphore) first writes 0 to it, as mtcr's Clear_Vsec_Semaphore
 *   does. Each access then is mtcr's single access: take the semaphore,
 *   select CR_SPACE, write the address (and data) and poll the flag (at most
 *   2048 polls), release — with SIGINT/SIGTERM deferred in between
 *   (util/signals.h), so that a signal never leaves the semaphore held.
 *   Whether a ConnectX-2/3 has such a capability is UNCONFIRMED (§2.1); the
 *   simulator has one on request (cxsim create --vsec).
 * - Otherwise the config-space address/data window at 0x58/0x5c (§2.3), in its
 *   normal form or, when 0x58 reads back 0xbadacce5, the write-only-address
 *   form. CR_WINDOW forces it even where a VSEC is usable (real cards with a
 *   VSEC keep the window too).
 * - cr_use_mem() switches to the BAR0 mapping (crmem.h, §2.2) when it answers
 *   with the same HW ID as the config-space path; from then on every access
 *   goes there, with mstflint's "ConnectX ordering workaround" (§2.2.1): after
 *   a write, the next read first writes 0 to 0xf0380 and waits for it to read 0.
 *
 * Every config-space access pair (window) or sequence (VSEC, from taking its
 * semaphore to releasing it) holds the inter-process config lock (cfg.h:
 * mstflint's lock file), so no other cxflash or window user of mstflint can
 * split it. cr_close() parks the window on the HW ID register, so that a later
 * config-space dump cannot take a read-to-lock semaphore by accident.
 */
#ifndef CX_CRSPACE_H
#define CX_CRSPACE_H

#include <stdbool.h>
#include <stdint.h>

#include "dev/cfg.h"
#include "dev/crmem.h"

#define CR_HW_ID 0xF0014   /* HW ID 15:0, revision 23:16, hw-access.md §1.2 */

/* cr_open() flags. */
enum {
	CR_CLEAR_SEM = 1 << 0,   /* free the VSEC semaphore before taking it (--clear-semaphore) */
	CR_WINDOW = 1 << 1,      /* never use the VSEC: the 0x58/0x5c window (CXFLASH_ACCESS=config) */
};

struct crspace {
	struct cfg_dev *cfg;
	bool wo_addr;      /* write-only address register, §2.3 */
	unsigned vsec;     /* config offset of the VSEC capability, 0: none, §2.4 */
	bool use_vsec;     /* accesses go through it */
	const char *no_vsec; /* when !use_vsec: why, for messages */
	struct crmem mem;  /* BAR0 in use when mem.ops is set */
	bool flush_wa;     /* the ordering workaround applies to this chip, §2.2.1 */
	bool need_flush;   /* a BAR write happened since the last flush */
	uint64_t reads, writes;
};

/* Pick the VSEC or the window (flags: CR_*), as above. */
int cr_open(struct crspace *cr, struct cfg_dev *cfg, unsigned flags, struct cx_status *st);
int cr_read(struct crspace *cr, uint32_t addr, uint32_t *val, struct cx_status *st);
int cr_write(struct crspace *cr, uint32_t addr, uint32_t val, struct cx_status *st);
/* Use BAR0 from now on if it answers like config space does; then crspace
 * owns mem and closes it. false (mem untouched, still the caller's) when the
 * BAR reads all-ones or 0xbadacce5 (memory decode off, §2.2) or disagrees. */
bool cr_use_mem(struct crspace *cr, struct crmem mem);

/* The VSEC's other address spaces (mtcr_com_defs.h@4.21 AS_*, hw-access.md §2.4, §3.14). */
#define CR_AS_ICMD 0x3           /* AS_ICMD: the ICMD control word and mailbox */
#define CR_AS_SEMAPHORE 0xA      /* AS_SEMAPHORE: the ICMD semaphore at 0x0 */

/* n dwords at addr, addr + 4, ... of another address space, read into or written from
 * vals, under one hold of the VSEC semaphore (mtcr's block access). CX_EUNSUPPORTED
 * without the VSEC; CX_ENODEV when the gateway does not offer the space. */
int cr_space_access(struct crspace *cr, uint16_t space, uint32_t addr, uint32_t *vals, unsigned n, bool write,
		    struct cx_status *st);
/* n dwords of crspace at addr, addr + 4, ...: through the VSEC under one hold of its
 * semaphore, CR_SPACE selected once (mtcr's mread4_block/mwrite4_block, which mflash_gw.c
 * 4.21 uses for the flash gateway's data registers); through the window or BAR0, n single
 * accesses, as mtcr's block access is there. */
int cr_block(struct crspace *cr, uint32_t addr, uint32_t *vals, unsigned n, bool write, struct cx_status *st);
/* A non-zero value from the VSEC's ticket counter (§2.4): unique among the agents that
 * draw from it, and recorded like any read, so that --replay draws the same one. */
int cr_ticket(struct crspace *cr, uint32_t *ticket, struct cx_status *st);
/* "bar0", "vsec" or "config" (the window): what the accesses go through now. */
const char *cr_method(const struct crspace *cr);

/* Park the window on 0xf0014 (§2.3 "Close") and unmap the BAR. */
void cr_close(struct crspace *cr);

#endif
