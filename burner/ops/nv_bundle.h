/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nv_bundle.h — a card's settings in a backup bundle (settings.json), and back.
 *
 * Every bundle gets settings.json beside identity.json, in its SHA256SUMS:
 *
 *   {"format": "cxflash-settings-1", "available": true, "reason": null,
 *    "settings": {"LINK_TYPE_P1": {"value": 2, "text": "ETH", "default": 2}, ...},
 *    "records": {"t0012p1": "00000002", "t0011p0": null, ...}}
 *
 * "records" is what puts them back: each settings record the card was asked
 * for, by type and port, as its dwords in hex (null: the card held none, its
 * defaults applied). A card whose settings cannot be read (a ConnectX-2, a
 * card in recovery mode, firmware that is not started or too old) still gets
 * its backup: "available" is false and "reason" says why, in one line.
 * Reading them never stops a backup.
 */
#ifndef CX_NV_BUNDLE_H
#define CX_NV_BUNDLE_H

#include <stddef.h>

#include "ops/nv_settings.h"

#define BACKUP_SETTINGS "settings.json"
#define NV_BUNDLE_FORMAT "cxflash-settings-1"

/* settings.json of the opened card d, malloc'd; CX_ENOMEM only. */
int nv_bundle_json(struct device *d, char **text, size_t *len, struct cx_status *st);

/* The records of bundle/settings.json (checked with the bundle first:
 * backup_verify). CX_EABSENT when the bundle has no settings (an older bundle,
 * or "available": false, with its reason). */
int nv_bundle_load(const char *bundle, struct nv_record *rec, unsigned *n, struct cx_status *st);

#endif
