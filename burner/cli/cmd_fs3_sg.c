/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_fs3_sg.c — `sg --guid G --mac M -d BDF` on a ConnectX-4, 4 Lx or 5 card: the base GUID
 * and MAC (as printed on its sticker) into its DEV_INFO (ops/setid_fs3.h), after showing the
 * current ones, or "none/damaged", and the new ones and asking (default no; -y answers yes;
 * --json asks nothing, as sg on a ConnectX-3 card). */
#include <stdio.h>
#include <string.h>

#include "cli/common.h"
#include "cli/fs3cli.h"
#include "ops/setid_fs3.h"

#define MAC_BITS 0xffffffffffffull /* the MAC's 48 bits, as q prints them */

/* --guid G expands to G..G+3 and --mac M to M, M+1 (patch.h): the ConnectX-4 layout keeps one
 * base of each, so a --guids/--macs list that is not such an expansion has no place here. */
static int request(const struct cli *c, struct fs3_sg_request *rq, struct cx_status *st)
{
	const struct guid_request *g = &c->guids;

	for (int i = 1; g->have_guids && i < GUIDS_NGUID; i++)
		if (g->guid[i] != g->guid[0] + (uint64_t)i)
			return cx_fail(st, CX_EUSAGE, "a ConnectX-4/4 Lx/5 card has one base GUID: give --guid G, not "
				       "--guids; nothing was written");
	for (int i = 1; g->have_macs && i < GUIDS_NMAC; i++)
		if (g->mac[i] != g->mac[0] + (uint64_t)i)
			return cx_fail(st, CX_EUSAGE, "a ConnectX-4/4 Lx/5 card has one base MAC: give --mac M, not "
				       "--macs; nothing was written");
	*rq = (struct fs3_sg_request){g->have_guids, g->have_macs, g->guid[0], g->mac[0]};
	return CX_OK;
}

static int review(void *ctx, const struct fs3_devinfo_plan *p, struct cx_status *st)
{
	struct cli *c = ctx;
	char og[24] = "none/damaged", om[24] = "none/damaged";

	if (c->json)
		return CX_OK;
	if (p->old_valid) {
		snprintf(og, sizeof(og), "%016llx", (unsigned long long)p->old_guid);
		snprintf(om, sizeof(om), "%012llx", (unsigned long long)(p->old_mac & MAC_BITS));
	}
	printf("    You are about to %s the GUIDs/MACs in the card's DEV_INFO:\n\n",
	       p->old_valid ? "change" : "put back");
	printf("%-20s%-24s%s\n", "", "New Values", "Current Values");
	printf("        %-12s%016llx        %s\n", "Base GUID:", (unsigned long long)p->guid, og);
	printf("        %-12s    %012llx        %s\n", "Base MAC:", (unsigned long long)p->mac, om);
	printf("\n");
	if (p->same)
		return CX_OK;
	return cli_confirm(c, " Do you want to continue ?", st);
}

static void report(struct cli *c, const struct setid_fs3_result *r, const struct cli_backup *b)
{
	const char *word = r->nothing_to_do ? "nothing-to-do" : c->dry_run ? "dry-run" : "updated";

	if (c->json) {
		struct json j;
		json_begin(&j, stdout);
		json_str(&j, "result", word);
		json_str(&j, "updated", "GUIDs/MACs");
		json_str(&j, "device", c->device);
		json_str(&j, "method", r->reburned ? "dev-info-and-reburn" : "dev-info");
		json_int(&j, "start", r->start);
		cli_json_write_end(&j, c, r->out.bytes_erased, r->out.bytes_programmed, b);
	} else if (r->nothing_to_do) {
		printf("-I- the card's DEV_INFO already holds these GUIDs/MACs: nothing written\n");
	} else if (c->dry_run) {
		printf("-I- dry run: a new DEV_INFO would be written%s; nothing written\n",
		       r->reburned ? " and the image burned again" : "");
	} else {
		printf("-I- GUIDs/MACs written to the DEV_INFO of %s%s: %llu bytes erased, %llu programmed.\n"
		       "-I- Power the machine OFF (cold restart) for the card to use them.\n", c->device,
		       r->reburned ? " (the image burned again, failsafe, to name it)" : "",
		       (unsigned long long)r->out.bytes_erased, (unsigned long long)r->out.bytes_programmed);
	}
}

int cli_fs3_sg(struct cli *c, struct cx_status *st)
{
	struct device d;
	struct cli_backup b = {.c = c, .d = &d, .action = "writing"};
	struct setid_fs3_opts o = {.dry_run = c->dry_run, .restore_mfg_ids = c->restore_mfg_ids,
				   .review = review, .review_ctx = c};
	struct setid_fs3_result r;
	int rc;

	if (!c->guids.have_guids && !c->guids.have_macs)
		return cx_fail(st, CX_EUSAGE, "sg needs --guid and/or --mac");
	if ((rc = request(c, &o.rq, st)))
		return rc;
	cli_write_hooks(c, &b, &o.hooks);
	memset(&r, 0, sizeof(r));
	rc = device_open(&d, c->sysfs, c->device, c->clear_sem, st);
	if (!rc) {
		rc = setid_fs3_card(&d, &o, &r, st);
		c->card_state = card_state_name(r.out.state);
	}
	device_close(&d);
	if (!rc)
		report(c, &r, &b);
	return rc;
}
