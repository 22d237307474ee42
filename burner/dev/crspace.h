/* SPDX-License-Identifier: GPL-2.0-or-later */
/* crspace.h — 32-bit access to the chip's register space (hw-access.md §2).
 *
 * Through the config-space address/data window at 0x58/0x5c (§2.3), in its
 * normal form or, when 0x58 reads back 0xbadacce5, the write-only-address
 * form. cr_close() parks the window on the HW ID register, so that a later
 * config-space dump cannot take a read-to-lock semaphore by accident.
 *
 * cr_use_mem() switches to the BAR0 mapping (crmem.h, §2.2) when it answers
 * with the same HW ID as the window; from then on every access goes there,
 * with mstflint's "ConnectX ordering workaround" (§2.2.1): after a write, the
 * next read first writes 0 to 0xf0380 and waits for it to read 0.
 */
#ifndef CX_CRSPACE_H
#define CX_CRSPACE_H

#include <stdbool.h>
#include <stdint.h>

#include "dev/cfg.h"
#include "dev/crmem.h"

#define CR_HW_ID 0xF0014   /* HW ID 15:0, revision 23:16, hw-access.md §1.2 */

struct crspace {
	struct cfg_dev *cfg;
	bool wo_addr;      /* write-only address register, §2.3 */
	bool has_vsec;     /* a vendor-specific capability exists (not used: §2.4, UNCONFIRMED on CX2/3) */
	struct crmem mem;  /* BAR0 in use when mem.ops is set */
	bool flush_wa;     /* the ordering workaround applies to this chip, §2.2.1 */
	bool need_flush;   /* a BAR write happened since the last flush */
	uint64_t reads, writes;
};

/* Detect the window's variant and probe for a VSEC. */
int cr_open(struct crspace *cr, struct cfg_dev *cfg, struct cx_status *st);
int cr_read(struct crspace *cr, uint32_t addr, uint32_t *val, struct cx_status *st);
int cr_write(struct crspace *cr, uint32_t addr, uint32_t val, struct cx_status *st);
/* Use BAR0 from now on if it answers like the window does; then crspace owns
 * mem and closes it. false (mem untouched, still the caller's) when the BAR
 * reads all-ones or 0xbadacce5 (memory decode off, §2.2) or disagrees. */
bool cr_use_mem(struct crspace *cr, struct crmem mem);

/* "bar0" or "config": what the accesses go through now. */
const char *cr_method(const struct crspace *cr);

/* Park the window on 0xf0014 (§2.3 "Close") and unmap the BAR. */
void cr_close(struct crspace *cr);

#endif
