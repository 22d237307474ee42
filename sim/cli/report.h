/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report.h — a card's boot info, parameters, counters and settings as JSON or text. */
#ifndef CXSIM_REPORT_H
#define CXSIM_REPORT_H

#include <stdio.h>

#include "cxsim.h"
#include "sbuf.h"

#define PCI_VENDOR_MELLANOX 0x15b3

/* {"booted":..., "slot":..., "fw_version":..., "psid":..., "guids":[...], ..., "pci_device":...} */
void report_boot_json(struct sbuf *b, const struct cxsim_card *c);
/* {"chip":..., "pci_device":..., "flash_part":..., faults...} */
void report_params_json(struct sbuf *b, const struct cxsim_params *p);
/* {"cfg_reads":..., ..., "gw_by_opcode":{"0x02":n,...}, "time_ns":...} */
void report_counters_json(struct sbuf *b, const struct cxsim_counters *k);
/* The same as report_boot_json, for people. */
void report_boot_text(FILE *f, const struct cxsim_card *c);

/* report_settings.c: the settings interface (hw-access.md §8).
 * {"hcr_fault":"none","cr_mbox":true,"ports":2,...,"defaults":{"SRIOV_EN":0,...}} */
void report_tools_json(struct sbuf *b, const struct cxsim_params *p);
/* The next-boot settings: {"tlvs":N,"values":{"SRIOV_EN":1,"LINK_TYPE_P1":2,...}}
 * (mstconfig's names, only what the store holds). */
void report_settings_json(struct sbuf *b, const struct cxsim_card *c);
/* The same for people: one "NAME  Text(value)" line each, as mstconfig shows them
 * (nothing on a ConnectX-2). */
void report_settings_text(FILE *f, const struct cxsim_card *c);

#endif
