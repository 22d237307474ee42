/* SPDX-License-Identifier: GPL-2.0-or-later */
/* profile.c — what each chip's firmware reports through the settings interface by
 * default (the profile of cxsim.h), and the names front ends use for its faults and
 * capability bits.
 *
 * The values are plausible for a stock dual-port ConnectX-3 / 3 Pro with 2.42.5000 and
 * NOT measured on a card (UNCONFIRMED): two ports, 127 VFs at most, LOG_BAR_SIZE 3 of at
 * most 5, every capability and support bit set but VPI force mode, SR-IOV off with 8
 * VFs, ports VPI, the option ROM on with PXE and boot VLAN 1, IPv4. A ConnectX-2 has no
 * settings interface: its profile is all zeros (hw-access.md §8, "ConnectX-2 is not
 * supported under mstconfig", github.com/Mellanox/mstflint/issues/4). */
#include <string.h>
#include <strings.h>

#include "card.h"

#define SUPP_STOCK (CXSIM_SUPP_CQ_TIMESTAMP | CXSIM_SUPP_STEER_FORCE_VLAN | \
		    CXSIM_SUPP_PHY_PARAM_MODE | CXSIM_SUPP_CLOCK_MAP | CXSIM_SUPP_BOOT_IP_VER | \
		    CXSIM_SUPP_VPI | CXSIM_SUPP_WOL | CXSIM_SUPP_IB_BOOT | CXSIM_SUPP_BOOT_PARAMS)

static const struct cxsim_tools_profile stock_cx3 = {
	.ports = 2, .max_vfs = 127, .bar_size = 3, .max_bar_size = 5,
	.caps = CXSIM_CAP_ALL, .supp = SUPP_STOCK,
	.def_sriov_en = 0, .def_num_vfs = 8, .def_link_type = 3,
	.def_phy_type = 2, .def_xfi_mode = 0, .def_force_mode = 0,
	.def_wol_magic = 0, .def_boot_rom = 1, .def_boot_vlan_en = 0, .def_boot_retry = 0,
	.def_boot_protocol = 1, .def_boot_vlan = 1, .def_boot_pkey = 0, .def_ip_ver = 0,
	.def_cq_timestamp = 1, .def_steer_force_vlan = 0, .def_phy_param_mode = 0,
	.def_clock_map = 1,
};

void sim_profile_default(struct cxsim_tools_profile *t, enum cxsim_chip chip)
{
	if (cxsim_chip_has_tools(chip))
		*t = stock_cx3;
	else
		memset(t, 0, sizeof(*t));
}

static const char *const fault_names[CXSIM_HCR_NFAULTS] = {
	[CXSIM_HCR_OK] = "none",
	[CXSIM_HCR_NOT_STARTED] = "not-started",
	[CXSIM_HCR_OLD_FW] = "old-fw",
	[CXSIM_HCR_NV_CORRUPT] = "nv-corrupt",
	[CXSIM_HCR_SEM_HELD] = "sem-held",
	[CXSIM_HCR_GO_STUCK] = "go-stuck",
};

const char *cxsim_hcr_fault_name(enum cxsim_hcr_fault f)
{
	return (unsigned)f < CXSIM_HCR_NFAULTS ? fault_names[f] : "?";
}

int cxsim_hcr_fault_parse(const char *s, enum cxsim_hcr_fault *f)
{
	for (unsigned i = 0; i < CXSIM_HCR_NFAULTS; i++)
		if (!strcmp(s, fault_names[i])) {
			*f = (enum cxsim_hcr_fault)i;
			return 0;
		}
	return -1;
}

static const struct {
	const char *name;
	uint8_t bit;
} cap_names[] = {
	{"sriov", CXSIM_CAP_SRIOV}, {"wol_p1", CXSIM_CAP_WOL_P1}, {"wol_p2", CXSIM_CAP_WOL_P2},
	{"vpi_p1", CXSIM_CAP_VPI_P1}, {"vpi_p2", CXSIM_CAP_VPI_P2}, {"bar_size", CXSIM_CAP_BAR_SIZE},
	{"all", CXSIM_CAP_ALL}, {"none", 0},
};

int cxsim_caps_parse(const char *s, uint8_t *caps)
{
	uint8_t v = 0;

	while (*s) {
		size_t n = strcspn(s, ","), i;

		for (i = 0; i < sizeof(cap_names) / sizeof(cap_names[0]); i++)
			if (strlen(cap_names[i].name) == n && !strncasecmp(s, cap_names[i].name, n))
				break;
		if (i == sizeof(cap_names) / sizeof(cap_names[0]))
			return -1;
		v |= cap_names[i].bit;
		s += n + (s[n] == ',');
	}
	*caps = v;
	return 0;
}

bool cxsim_chip_has_tools(enum cxsim_chip chip)
{
	return sim_chip_info(chip)->has_tools;
}
