/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report_settings.c — the settings interface of a card as JSON or text: its profile and
 * faults (stats, fault), and the next-boot settings its store holds (boot-check). */
#include "report.h"

#include <inttypes.h>

#define MAX_SETTINGS 96   /* more than the TLV table's fields times two ports */

static const char *yes(bool v)
{
	return v ? "true" : "false";
}

void report_tools_json(struct sbuf *b, const struct cxsim_params *p)
{
	const struct cxsim_tools_profile *t = &p->tools;

	sb_printf(b, "{\"hcr_fault\":\"%s\",\"cr_mbox\":%s,\"ports\":%u,\"max_vfs\":%u,"
		  "\"bar_size\":%u,\"max_bar_size\":%u,\"caps\":\"0x%02x\",\"supp\":\"0x%03x\","
		  "\"defaults\":{\"SRIOV_EN\":%u,\"NUM_OF_VFS\":%u,\"LINK_TYPE\":%u,\"PHY_TYPE\":%u,"
		  "\"XFI_MODE\":%u,\"FORCE_MODE\":%u,\"WOL_MAGIC_EN\":%u,\"BOOT_OPTION_ROM_EN\":%u,"
		  "\"BOOT_VLAN_EN\":%u,\"BOOT_RETRY_CNT\":%u,\"LEGACY_BOOT_PROTOCOL\":%u,"
		  "\"BOOT_VLAN\":%u,\"BOOT_PKEY\":%u,\"IP_VER\":%u,\"CQ_TIMESTAMP\":%u,"
		  "\"STEER_FORCE_VLAN\":%u,\"PHY_PARAMETER_MODE\":%u,\"INT_CLOCK_TO_USER\":%u}}",
		  cxsim_hcr_fault_name(p->hcr_fault), yes(!p->no_cr_mbox), t->ports, t->max_vfs,
		  t->bar_size, t->max_bar_size, t->caps, t->supp, t->def_sriov_en, t->def_num_vfs,
		  t->def_link_type, t->def_phy_type, t->def_xfi_mode, t->def_force_mode,
		  t->def_wol_magic, t->def_boot_rom, t->def_boot_vlan_en, t->def_boot_retry,
		  t->def_boot_protocol, t->def_boot_vlan, t->def_boot_pkey, t->def_ip_ver,
		  t->def_cq_timestamp, t->def_steer_force_vlan, t->def_phy_param_mode, t->def_clock_map);
}

void report_settings_json(struct sbuf *b, const struct cxsim_card *c)
{
	struct cxsim_setting s[MAX_SETTINGS];
	size_t n = cxsim_nv_settings(c, s, MAX_SETTINGS);

	if (n > MAX_SETTINGS)
		n = MAX_SETTINGS;
	sb_printf(b, "{\"tlvs\":%zu,\"values\":{", cxsim_nv_count(c));
	for (size_t i = 0; i < n; i++)
		sb_printf(b, "%s\"%s\":%" PRIu32, i ? "," : "", s[i].name, s[i].value);
	sb_printf(b, "}}");
}

void report_settings_text(FILE *f, const struct cxsim_card *c)
{
	struct cxsim_setting s[MAX_SETTINGS];
	size_t n = cxsim_nv_settings(c, s, MAX_SETTINGS);
	const struct cxsim_params *p = cxsim_get_params(c);

	if (!cxsim_chip_has_tools(p->chip) && cxsim_chip_format(p->chip) == 2)
		return; /* a ConnectX-2 has no settings at all */
	if (n > MAX_SETTINGS)
		n = MAX_SETTINGS;
	if (!n) {
		fprintf(f, "next boot:   no stored settings (the firmware's defaults apply)\n");
		return;
	}
	fprintf(f, "next boot:   %zu stored setting TLV(s)\n", cxsim_nv_count(c));
	for (size_t i = 0; i < n; i++) {
		if (s[i].text)
			fprintf(f, "  %-28s %s(%" PRIu32 ")\n", s[i].name, s[i].text, s[i].value);
		else
			fprintf(f, "  %-28s %" PRIu32 "\n", s[i].name, s[i].value);
	}
}
