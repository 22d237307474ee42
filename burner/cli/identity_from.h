/* SPDX-License-Identifier: GPL-2.0-or-later */
/* identity_from.h — `burn --identity-from BUNDLE`: a card's GUIDs, MACs and VSD from its backup.
 *
 * A card in recovery (livefish) mode cannot tell its identity (hw-access.md
 * §5), and typing four GUIDs and two MACs from a sticker is where mistakes
 * happen; a backup bundle (ops/backup.h) has them. The bundle is checked
 * whole (backup_verify) before anything is taken from it, it must be of the
 * same chip family as the card, and on a card whose own identity can be read
 * it must be that card's (another card's GUIDs on this one would give two
 * cards the same MACs) unless --force.
 */
#ifndef CX_CLI_IDENTITY_FROM_H
#define CX_CLI_IDENTITY_FROM_H

#include "cli/cli.h"
#include "ops/device.h"
#include "ops/identity.h"

/* Fill ident (GUIDs, MACs, and the VSD unless --vsd was given) from c->identity_from. */
int cli_identity_from(struct cli *c, struct device *d, struct identity_opts *ident, struct cx_status *st);

#endif
