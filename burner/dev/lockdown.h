/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lockdown.h — the kernel's lockdown state, and what it means for a refused access.
 *
 * Under Secure Boot, distribution kernels lock themselves down (the kernel's
 * lockdown LSM, security/lockdown/lockdown.c): in `integrity` and
 * `confidentiality` mode the kernel refuses writes to a PCI function's sysfs
 * `config` file and mmap of its `resource` files
 * (LOCKDOWN_PCI_ACCESS, drivers/pci/pci-sysfs.c), with EPERM. cxflash needs both
 * (the 0x58/0x5c window writes config space; BAR0 is mapped), so flashing cannot
 * work until Secure Boot is turned off.
 *
 * The state is the bracketed word of /sys/kernel/security/lockdown, e.g.
 * "none [integrity] confidentiality". $CXFLASH_LOCKDOWN_FILE names another file
 * (tests); a kernel without the LSM has no such file, which reads as "none".
 */
#ifndef CX_LOCKDOWN_H
#define CX_LOCKDOWN_H

#include <stdbool.h>

#include "util/status.h"

#define LOCKDOWN_FILE "/sys/kernel/security/lockdown" /* securityfs, lockdown LSM */
#define LOCKDOWN_ENV "CXFLASH_LOCKDOWN_FILE"          /* overrides LOCKDOWN_FILE (tests) */

/* "none", "integrity", "confidentiality" (or another bracketed word a newer kernel
 * has); "none" when the file is absent, unreadable or has no bracketed word. */
const char *lockdown_mode(void);

/* The mode forbids the PCI access flashing needs (integrity, confidentiality). */
bool lockdown_forbids_pci(void);

/* The one sentence for it, with the mode: "Secure Boot's lockdown (integrity) forbids ...". */
const char *lockdown_advice(void);

/* If st is the kernel's refusal (CX_EPERM, with strerror(EPERM) or strerror(EACCES)
 * in its line: not a card whose crspace is locked) and lockdown_forbids_pci(): replace its line with
 * "BDF: " (when bdf is given) and lockdown_advice(). Returns st->code. */
int lockdown_explain(struct cx_status *st, const char *bdf);

#endif
