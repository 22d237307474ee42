/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nv_settings5.h — the settings of a ConnectX-4 / 4 Lx / 5 whose firmware runs (NV_GEN5):
 * the reads and writes nv_settings.h dispatches to for these cards.
 *
 *   nv5_open()  needs the ICMD link chip_open() opened (chip.fw_access): without it (a card
 *               opened for direct flash access) CX_EUNSUPPORTED, nothing sent.
 *   nv5_read()  as mstconfig 4.21's query: the ports from MGIR (chip.mgir.num_ports); for
 *               each NV_GEN5 row its gate (NVQC of its record, a bit of its capability
 *               record, or none for an EXP_ROM record), then each record the rows that
 *               remain live in: NVDA GET (next boot) and NVDA GET with `default`. A field
 *               whose valid bit is clear shows its default. NUM_OF_VFS's maximum is
 *               nv_global_pci_cap's max_vfs_per_pf (0x4 15:0, when max_vfs_per_pf_valid).
 *   nv5_get(), nv5_set(), nv5_reset(): NVDA GET / SET of one record, NVIA.
 * A register status on NVQC (an old firmware without it) means "not readable", as
 * mstconfig takes it; any other failure stops with the ICMD layer's line.
 */
#ifndef CX_NV_SETTINGS5_H
#define CX_NV_SETTINGS5_H

#include "ops/nv_settings.h"

int nv5_open(struct nv_session *s, struct cx_status *st);
int nv5_read(struct nv_session *s, struct nv_state *o, struct cx_status *st);
int nv5_get(struct nv_session *s, struct nv_record *x, struct cx_status *st);
int nv5_set(struct nv_session *s, const struct nv_record *x, struct cx_status *st);
int nv5_reset(struct nv_session *s, struct cx_status *st);

#endif
