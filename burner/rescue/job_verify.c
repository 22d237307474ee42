/* SPDX-License-Identifier: GPL-2.0-or-later */
/* job_verify.c — job=verify (jobs.h): after the cold restart, is each card running what was
 * written?
 *
 * The PXE server (scripts/pxe-serve) knows what the node's last write job wrote from its
 * report, and puts it on the verify boot entry as
 *
 *   cxrescue.expect=GUID:PSID:FW:OLD[,GUID:PSID:FW:OLD ...]
 *
 * one item per card the write job wrote: the card's node GUID (16 hex digits, the report's
 * node_guid), the PSID and FW it wrote, and the FW the card ran before (OLD, "-" when the
 * report did not say). Cards are found by node GUID, not by slot: a card moved to another
 * slot is still the same card. A card of the node with no item was not written and is
 * "nothing-to-do". For a card with an item the check is, in order:
 *   - its flash holds an image with that PSID and FW (else: failed, the flash is not
 *     what the report says was written);
 *   - it runs a FW (its running version can be read);
 *   - it runs FW: ok. Running OLD means the restart was not cold (a warm reboot keeps the
 *     old firmware in the card): failed, and says so. Anything else: failed.
 * A card the write left in recovery mode, or whose flash has no identity, fails too. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rescue/inventory.h"
#include "rescue/jobs.h"

#define EXPECT_FIELDS 4     /* GUID:PSID:FW:OLD */
#define GUID_HEX_DIGITS 16  /* a node GUID as the report writes it ("%016llx") */

static bool fw_syntax(const char *s)
{
	unsigned a, b, c;
	int end = -1;

	return sscanf(s, "%u.%u.%u%n", &a, &b, &c, &end) == 3 && end == (int)strlen(s);
}

static bool psid_syntax(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > INFO_PSID_LEN)
		return false;
	return strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") == n;
}

/* One GUID:PSID:FW:OLD item (len bytes of s) into e; false with why. */
static bool parse_item(const char *s, size_t len, struct verify_expect *e, char *why, size_t n)
{
	char item[128], *f[EXPECT_FIELDS], *save = NULL;
	int k = 0;

	if (len >= sizeof(item)) {
		snprintf(why, n, "expect=: an item is too long");
		return false;
	}
	memcpy(item, s, len);
	item[len] = '\0';
	for (char *p = item; k < EXPECT_FIELDS; p = NULL) {
		if (!(f[k] = strtok_r(p, ":", &save)))
			break;
		k++;
	}
	if (k != EXPECT_FIELDS || strtok_r(NULL, ":", &save)) {
		snprintf(why, n, "expect=%s: not GUID:PSID:FW:OLD", item);
		return false;
	}
	char *end = NULL;
	e->guid = strtoull(f[0], &end, 16);
	if (strlen(f[0]) != GUID_HEX_DIGITS || *end || strspn(f[0], "0123456789abcdefABCDEF") != GUID_HEX_DIGITS) {
		snprintf(why, n, "expect=%s: the GUID is not 16 hex digits", item);
		return false;
	}
	if (!psid_syntax(f[1]) || !fw_syntax(f[2]) || (strcmp(f[3], "-") && !fw_syntax(f[3]))) {
		snprintf(why, n, "expect=%s: PSID (up to %d letters, digits, _), FW and OLD (like 2.42.5000, "
			 "OLD may be -)", item, INFO_PSID_LEN);
		return false;
	}
	snprintf(e->psid, sizeof(e->psid), "%s", f[1]);
	snprintf(e->fw, sizeof(e->fw), "%s", f[2]);
	snprintf(e->old, sizeof(e->old), "%s", strcmp(f[3], "-") ? f[3] : "");
	return true;
}

bool wizard_expect_parse(const char *text, struct verify_expect *e, int max, int *count, char *why, size_t n)
{
	const char *s = text ? text : "";

	*count = 0;
	while (*s) {
		size_t len = strcspn(s, ",");
		if (*count >= max) {
			snprintf(why, n, "expect=: more than %d cards", max);
			return false;
		}
		if (!parse_item(s, len, &e[*count], why, n))
			return false;
		for (int k = 0; k < *count; k++)
			if (e[k].guid == e[*count].guid) {
				snprintf(why, n, "expect=: the GUID %016" PRIx64 " is named twice", e[k].guid);
				return false;
			}
		(*count)++;
		s += len + (s[len] == ',');
	}
	return true;
}

/* The node GUID a card is found by: its image's, or a ConnectX-4/4 Lx/5's base GUID. */
static uint64_t guid_of(const struct wizard_card *c)
{
	if (c->ci.have_fs3)
		return inv_own_guid(c);
	return c->ci.have_image && !c->ci.f.img.guids.blank ? c->ci.f.img.guids.guid[0] : 0;
}

const struct verify_expect *job_verify_find(const struct verify_expect *e, int n, const struct wizard_card *c)
{
	uint64_t g = guid_of(c);

	for (int k = 0; g && k < n; k++)
		if (e[k].guid == g)
			return &e[k];
	return NULL;
}

const char *job_verify_card(const struct wizard_card *c, const struct verify_expect *e, char *msg, size_t n)
{
	const char *psid = inv_psid(c) ? inv_psid(c) : "";

	if (!e) {
		if (!guid_of(c) || (c->ci.recovery && !c->ci.have_fs3)) {
			snprintf(msg, n, "the card's flash has no readable identity (recovery mode?): it cannot be "
				 "matched to the write report");
			return "failed";
		}
		snprintf(msg, n, "not written by the last job: nothing to check");
		return "nothing-to-do";
	}
	if (strcmp(psid, e->psid) || strcmp(c->fw, e->fw)) {
		snprintf(msg, n, "the flash holds %s %s, not the %s %s the write report says was written",
			 *psid ? psid : "no PSID", c->fw[0] ? c->fw : "no FW", e->psid, e->fw);
		return "failed";
	}
	if (c->fs3 && c->ci.recovery) {
		/* Recovery mode runs no firmware: the flash is all there is to check (a running
		 * ConnectX-4/4 Lx/5 is checked as any card: its running FW is MGIR's). */
		snprintf(msg, n, "the flash holds %s %s, the one written; the card is in recovery mode (no firmware "
			 "runs): remove its flash-not-present jumper to boot it", e->psid, e->fw);
		return "ok";
	}
	if (!c->running[0]) {
		snprintf(msg, n, "the flash holds %s %s, but the card's running FW cannot be read", e->psid, e->fw);
		return "failed";
	}
	if (!strcmp(c->running, e->fw)) {
		snprintf(msg, n, "running FW %s, the one written (%s)", e->fw, e->psid);
		return "ok";
	}
	if (e->old[0] && !strcmp(c->running, e->old)) {
		snprintf(msg, n, "running the old firmware %s, not the %s on its flash: the restart was not cold "
			 "(power the node off, wait 10 s, power it on)", c->running, e->fw);
		return "failed";
	}
	snprintf(msg, n, "running FW %s, neither the %s written nor the old %s", c->running, e->fw,
		 e->old[0] ? e->old : "(unknown)");
	return "failed";
}
