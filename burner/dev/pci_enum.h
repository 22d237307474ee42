/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pci_enum.h — finding the ConnectX-2/3/3 Pro functions on the PCI bus with libpci.
 *
 * Knows the PCI device IDs of hw-access.md §1.1: physical functions, virtual
 * functions (listed by the table but skipped: a VF has no flash of its own)
 * and the flash-recovery IDs, each with its family (enum cx_family: the names
 * are the chip table's, dev/chip.h). The sysfs root is libpci's `sysfs.path`
 * parameter, so a simulated tree (cxsim serve DIR) is found the same way.
 */
#ifndef CX_PCI_ENUM_H
#define CX_PCI_ENUM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dev/chip.h"
#include "util/status.h"

#define PCI_VENDOR_MELLANOX 0x15B3
#define PCI_ENUM_MAX 32

enum pci_kind { PCI_KIND_PF, PCI_KIND_VF, PCI_KIND_RECOVERY };

struct pci_card {
	char bdf[16];
	uint16_t device, subsys_vendor, subsys_device;
	uint32_t class_code;        /* 24-bit class, e.g. 0x028000 */
	enum pci_kind kind;
	const char *family;         /* the chip table's name: "ConnectX-2", "ConnectX-3", ... */
};

/* One Mellanox device ID of ours and what it is. */
struct pci_id {
	uint16_t device;
	enum pci_kind kind;
	enum cx_family family;
};

/* The whole table (hw-access.md §1.1), *n rows; each device ID once. */
const struct pci_id *pci_id_table(size_t *n);

/* The row of a device ID, or NULL if it is not one of ours. (Not pci_id_lookup:
 * libpci, linked statically, has one.) */
const struct pci_id *pci_id_row(uint16_t device);

/* The same, as kind and the family's display name; false if not one of ours. */
bool pci_id_known(uint16_t device, enum pci_kind *kind, const char **family);

/* List our cards (PFs and recovery functions; VFs skipped), sorted by BDF.
 * sysfs_root NULL means the default /sys/bus/pci. */
int pci_enum(const char *sysfs_root, struct pci_card *out, int max, int *n, struct cx_status *st);

/* Look up one function by BDF ("0000:01:00.0" or "01:00.0"). */
int pci_find(const char *sysfs_root, const char *bdf, struct pci_card *out, struct cx_status *st);

#endif
