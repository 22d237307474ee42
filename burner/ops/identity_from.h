/* SPDX-License-Identifier: GPL-2.0-or-later */
/* identity_from.h — a card's GUIDs, MACs and VSD taken from its backup bundle.
 *
 * A card in recovery (livefish) mode cannot tell its identity (hw-access.md
 * §3.12), and typing four GUIDs and two MACs from a sticker is where mistakes
 * happen; a backup bundle (ops/backup.h) has them. `burn --identity-from
 * BUNDLE` and the wizard's unbrick use this. The bundle is checked whole
 * (backup_verify) before anything is taken from it, it must be of the same
 * chip family as the card, and on a card whose own identity can be read it
 * must be that card's (another card's GUIDs on this one would give two cards
 * the same MACs) unless force.
 */
#ifndef CX_OPS_IDENTITY_FROM_H
#define CX_OPS_IDENTITY_FROM_H

#include <stdbool.h>

#include "ops/backup.h"
#include "ops/device.h"
#include "ops/identity.h"

/* Fill ident (GUIDs, MACs, and the VSD unless ident->vsd is set) from the
 * bundle. id receives the bundle's identity.json and must outlive ident:
 * ident->vsd may point into it. CX_EUSAGE when ident already has given
 * GUIDs/MACs; CX_EABSENT for a bundle without an identity; CX_EMISMATCH for
 * another family, or another card without force; backup_verify's errors. */
int identity_from_bundle(const char *bundle, bool force, struct device *d, struct identity_opts *ident,
			 struct backup_identity *id, struct cx_status *st);

#endif
