/* SPDX-License-Identifier: GPL-2.0-or-later */
/* oem.h — whose card it is: from the PSID's vendor prefix and the PCI subsystem vendor.
 * The PSID prefix is the vendor symbol of fs2-format.md §5 ("Assigning PSID"); the
 * prefixes and subsystem IDs come from field-notes.md §3 and pci.ids. */
#ifndef CX_OEM_H
#define CX_OEM_H

#include <stdint.h>

/* "Mellanox", "HP", "Dell", ... or NULL when neither source names one. */
const char *oem_from_psid(const char *psid);
const char *oem_from_subsys(uint16_t subsys_vendor);
/* The PSID's verdict if it has one (an OEM PSID is the stronger evidence), else the subsystem's. */
const char *oem_name(const char *psid, uint16_t subsys_vendor);

#endif
