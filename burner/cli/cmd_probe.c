/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_probe.c — `-d BDF probe`: every read-only check of ops/probe.h, then one verdict.
 * Safe: exit 0. Not safe: each reason on its own line, then the one error line and
 * CX_EUNSAFE (cxflash(1), EXIT STATUS). With --json, one object either way. */
#include <string.h>

#include "cli/common.h"
#include "ops/card_state.h"
#include "ops/probe.h"

static void print_text(const struct probe *p)
{
	printf("%s  %s\n", p->pci.bdf, p->chip);
	for (unsigned i = 0; i < p->nchecks; i++)
		printf("  %-13s %-5s %s\n", p->checks[i].name, probe_result_name(p->checks[i].result),
		       p->checks[i].text);
	if (probe_safe(p)) {
		printf("verdict: safe to write\n");
		return;
	}
	printf("verdict: not safe to write\n");
	for (unsigned i = 0; i < p->nchecks; i++)
		if (p->checks[i].result == PROBE_FAIL)
			printf("  - %s\n", p->checks[i].text);
}

/* A fact, or null when its check did not get that far. */
static void json_hex_if(struct json *j, const char *key, bool have, uint64_t v, int width)
{
	if (have)
		json_hex(j, key, v, width);
	else
		json_null(j, key);
}

static void json_strif(struct json *j, const char *key, bool have, const char *v)
{
	json_str(j, key, have ? v : NULL);
}

static void print_facts(struct json *j, const struct probe *p)
{
	json_str(j, "lockdown", p->lockdown);
	json_str(j, "chip", p->chip);
	json_hex(j, "pci_device", p->pci.device, 4);
	json_hex(j, "subsys_vendor", p->pci.subsys_vendor, 4);
	json_hex(j, "subsys_device", p->pci.subsys_device, 4);
	json_hex(j, "hw_id", p->hw_id, 4);
	json_hex(j, "revision", p->rev, 2);
	json_bool(j, "recovery", p->recovery);
	json_arr(j, "semaphores");
	for (unsigned i = 0; i < PROBE_NSEMS; i++) {
		if (!p->sems[i].present)
			continue;
		json_obj(j, NULL);
		json_hex(j, "addr", p->sems[i].addr, 5);
		json_strif(j, "state", p->sems[i].checked, p->sems[i].held ? "held" : "free");
		json_close(j);
	}
	json_close(j);
	json_strif(j, "flash", p->have_flash, p->flash);
	json_int(j, "flash_size", p->have_flash ? p->flash_size : 0);
	json_hex_if(j, "status_register", p->have_sr, p->sr, 2);
	if (p->have_sr)
		json_bool(j, "write_protected", p->write_protected);
	else
		json_null(j, "write_protected");
	json_bool(j, "reads_agree", p->reads_agree);
	json_strif(j, "flash_sha256", p->reads_agree, p->flash_sha256);
	json_bool(j, "image_verified", p->have_image);
	json_hex_if(j, "image_start", p->have_image, p->image_start, 6);
	json_strif(j, "fw_version", p->have_image, p->fw_flash);
	json_strif(j, "fw_running", p->have_running, p->fw_running);
	json_hex_if(j, "boot_address", p->have_boot_addr, p->boot_addr, 8);
}

static void print_json(const struct probe *p, int rc, const char *error)
{
	struct json j;

	json_begin(&j, stdout);
	json_str(&j, "bdf", p->pci.bdf);
	json_str(&j, "verdict", probe_safe(p) ? "safe" : "not-safe");
	json_arr(&j, "reasons");
	for (unsigned i = 0; i < p->nchecks; i++)
		if (p->checks[i].result == PROBE_FAIL)
			json_str(&j, NULL, p->checks[i].text);
	json_close(&j);
	json_arr(&j, "checks");
	for (unsigned i = 0; i < p->nchecks; i++) {
		json_obj(&j, NULL);
		json_str(&j, "name", p->checks[i].name);
		json_str(&j, "result", probe_result_name(p->checks[i].result));
		json_str(&j, "text", p->checks[i].text);
		json_close(&j);
	}
	json_close(&j);
	print_facts(&j, p);
	if (rc) {
		json_str(&j, "error", error);
		json_str(&j, "code", cx_code_name(rc));
		json_int(&j, "exit_code", rc);
	}
	json_str(&j, "card_state", card_state_name(CARD_UNTOUCHED));
	json_end(&j);
}

int cmd_probe(struct cli *c, struct cx_status *st)
{
	struct probe p;
	int rc;

	if (!c->device || c->image)
		return cx_fail(st, CX_EUSAGE, "probe takes a card and no image: cxflash -d BDF probe");
	if ((rc = probe_card(c->sysfs, c->device, &p, st)))
		return rc;
	if (!probe_safe(&p))
		rc = cx_fail(st, CX_EUNSAFE, "%s is not safe to write: %u reason%s (above); nothing was written",
			     p.pci.bdf, p.nfail, p.nfail == 1 ? "" : "s");
	if (c->json) {
		print_json(&p, rc, st->msg);
		c->json_done = true;
	} else {
		print_text(&p);
	}
	return rc;
}
