/* SPDX-License-Identifier: GPL-2.0-or-later */
/* crmem.h — the chip's register space mapped through BAR0 (hw-access.md §2.2).
 *
 * On a ConnectX-3 / CX3 Pro physical function (PCI ID 0x1003 / 0x1007) the
 * 1 MiB BAR0 is crspace itself, one big-endian dword per register, so a
 * register access is a single load or store instead of two config-space
 * accesses through the 0x58/0x5c window. mstflint (mtcr up to v4.30) prefers
 * it on those IDs and falls back to config cycles when the BAR reads all-ones
 * or 0xbadacce5 (memory decode off, no driver); crspace.c does the same and
 * also refuses a BAR whose HW ID disagrees with the window's.
 *
 * An access method behind struct crmem_ops, as for config space (cfg.h):
 * the sysfs `resource0` mapping of a real or QEMU-simulated card, or, in the
 * tests, the card model called in process. Offsets are crspace addresses;
 * values are the registers' natural values (the byte swap is the method's).
 */
#ifndef CX_CRMEM_H
#define CX_CRMEM_H

#include <stdint.h>

#include "util/status.h"

#define CRMEM_SIZE 0x100000u   /* MTCR_MAP_SIZE up to v4.30: the BAR must be exactly 1 MiB, §2.2 */

struct crmem_ops {
	const char *name;
	uint32_t (*read)(void *ctx, uint32_t off);
	void (*write)(void *ctx, uint32_t off, uint32_t val);
	void (*close)(void *ctx);
};

struct crmem {
	const struct crmem_ops *ops;   /* NULL: no BAR access */
	void *ctx;
};

/* Map DIR/devices/BDF/resource0 (O_RDWR|O_SYNC, MAP_SHARED, §2.2). CX_OK, or a
 * failure the caller treats as "use config cycles": not 1 MiB, cannot open
 * (kernel lockdown refuses it, §2.2), cannot map. */
int crmem_open_sysfs(struct crmem *m, const char *sysfs_root, const char *bdf, struct cx_status *st);

void crmem_close(struct crmem *m);

#endif
