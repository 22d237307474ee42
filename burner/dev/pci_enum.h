/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pci_enum.h — finding the ConnectX-2/3/3 Pro functions on the PCI bus with libpci.
 *
 * Knows the PCI device IDs of hw-access.md §1.1: physical functions, virtual
 * functions (listed by the table but skipped: a VF has no flash of its own)
 * and the flash-recovery IDs. The sysfs root is libpci's `sysfs.path`
 * parameter, so a simulated tree (cxsim serve DIR) is found the same way.
 */
#ifndef CX_PCI_ENUM_H
#define CX_PCI_ENUM_H

#include <stdbool.h>
#include <stdint.h>

#include "util/status.h"

#define PCI_VENDOR_MELLANOX 0x15B3
#define PCI_ENUM_MAX 32

enum pci_kind { PCI_KIND_PF, PCI_KIND_VF, PCI_KIND_RECOVERY };

struct pci_card {
	char bdf[16];
	uint16_t device, subsys_vendor, subsys_device;
	uint32_t class_code;        /* 24-bit class, e.g. 0x028000 */
	enum pci_kind kind;
	const char *family;         /* "ConnectX-2", "ConnectX-3", "ConnectX-3 Pro" */
};

/* What a Mellanox device ID is; false if not one of ours. */
bool pci_id_known(uint16_t device, enum pci_kind *kind, const char **family);

/* List our cards (PFs and recovery functions; VFs skipped), sorted by BDF.
 * sysfs_root NULL means the default /sys/bus/pci. */
int pci_enum(const char *sysfs_root, struct pci_card *out, int max, int *n, struct cx_status *st);

/* Look up one function by BDF ("0000:01:00.0" or "01:00.0"). */
int pci_find(const char *sysfs_root, const char *bdf, struct pci_card *out, struct cx_status *st);

#endif
