/* SPDX-License-Identifier: GPL-2.0-or-later */
/* oem.c — OEM tables. */
#include <string.h>

#include "ops/oem.h"

static const struct {
	const char *prefix, *oem;
} psid_prefixes[] = {
	{"MT_", "Mellanox"},  /* stock, field-notes §3.2 */
	{"HP_", "HP"},        /* field-notes §3.1 rows 1, 7 */
	{"DEL", "Dell"},      /* §3.1 rows 5, 6 */
	{"IBM", "IBM"},       /* §3.1 row 4 */
	{"ORC", "Oracle"},    /* §3.1 row 2 */
	{"SUN", "Sun"},       /* §3.1 row 11, §3.2 */
	{"LNV", "Lenovo"},    /* §3.1 note (LNV0000000025) */
	{"ISL", "ISL (OEM not named)"}, /* §3.1 row 3 */
	{"HPE", "HPE"},       /* library/boards.txt: HPE0000000009 (872726-B21), HPE0000000035 */
	{"CIS", "Cisco"},     /* library/boards.txt: CIS0000000008 (Cisco CX623106A) */
};

static const struct {
	uint16_t vendor;
	const char *oem;
} subsys_vendors[] = {
	{0x15B3, "Mellanox"}, {0x103C, "HP"}, {0x1590, "HPE"}, {0x1028, "Dell"},
	{0x1014, "IBM"},      {0x108E, "Sun/Oracle"}, {0x17AA, "Lenovo"}, /* pci.ids vendor IDs */
};

const char *oem_from_psid(const char *psid)
{
	for (unsigned i = 0; psid && i < sizeof(psid_prefixes) / sizeof(psid_prefixes[0]); i++)
		if (!strncmp(psid, psid_prefixes[i].prefix, strlen(psid_prefixes[i].prefix)))
			return psid_prefixes[i].oem;
	return NULL;
}

const char *oem_from_subsys(uint16_t v)
{
	for (unsigned i = 0; i < sizeof(subsys_vendors) / sizeof(subsys_vendors[0]); i++)
		if (subsys_vendors[i].vendor == v)
			return subsys_vendors[i].oem;
	return NULL;
}

const char *oem_name(const char *psid, uint16_t subsys_vendor)
{
	const char *p = oem_from_psid(psid), *s = oem_from_subsys(subsys_vendor);

	if (p && strcmp(p, "Mellanox"))
		return p;
	if (s && strcmp(s, "Mellanox"))
		return s;
	return p ? p : s;
}
