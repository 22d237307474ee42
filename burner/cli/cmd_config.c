/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_config.c — `-d BDF config q [NAME...] | set NAME=VALUE... | reset`: the card's settings
 * as mstconfig 4.21 shows and changes them (ops/nv_settings.h). */
#include <stdio.h>
#include <string.h>

#include "cli/common.h"
#include "ops/nv_bundle.h"
#include "ops/nv_settings.h"
#include "util/json.h"

#define NAME_COL "         %-36s"   /* mstconfig's printSingleParam: 9 columns, then the name in 36 */
#define VALUE_COL "%-16s"

/* The opening lines of mstconfig's query (MlxCfg::printOpening, printConfHeader). */
static void opening(const struct device *d, bool with_new)
{
	printf("\nDevice #1:\n----------\n\n");
	printf("%-16s%s\n", "Device type:", d->chip.desc->name);
	printf("%-16s%s\n\n", "Device:", d->pci.bdf);
	printf("%-16s%38s%s\n", "Configurations:", "Next Boot", with_new ? "       New" : "");
}

static bool wanted(const struct cli *c, unsigned first, const char *name)
{
	if ((int)first >= c->nparams)
		return true;
	for (int i = (int)first; i < c->nparams; i++)
		if (!strcmp(c->params[i], name))
			return true;
	return false;
}

static void json_head(struct json *j, const struct device *d, const struct nv_state *s, const char *result)
{
	char fw[24];

	json_begin(j, stdout);
	if (result)
		json_str(j, "result", result);
	json_str(j, "device", d->pci.bdf);
	json_str(j, "chip", d->chip.desc->name);
	snprintf(fw, sizeof(fw), "%u.%u.%04u", s->fw[0], s->fw[1], s->fw[2]);
	json_str(j, "fw_running", fw);
	json_int(j, "ports", s->ports);
	json_int(j, "max_vfs", s->max_vfs);
	json_int(j, "max_log_bar_size", s->max_log_bar);
}

static int query(struct cli *c, struct device *d, const struct nv_state *s, struct cx_status *st)
{
	char buf[48];
	bool star = false;

	for (int i = 1; i < c->nparams; i++) {
		unsigned idx;
		if (!nv_setting_find_gen(s->gen, c->params[i], &idx))
			return cx_fail(st, CX_ESETTING, "unknown setting %s", c->params[i]);
		if (!s->avail[idx])
			return cx_fail(st, CX_ESETTING, "%s: this card does not offer it%s", c->params[i],
				       nv_settings[idx].port > s->ports ? " (it has one port)" : "");
	}
	if (c->json) {
		struct json j;
		json_head(&j, d, s, NULL);
		nv_json_settings(&j, "settings", s);
		json_end(&j);
		return CX_OK;
	}
	opening(d, false);
	for (unsigned i = 0; i < nv_nsettings; i++) {
		if (!s->avail[i] || !wanted(c, 1, nv_settings[i].name))
			continue;
		bool differs = s->value[i] != s->def[i];
		star |= differs;
		printf("%s", differs ? "*" : " ");
		printf(&NAME_COL[1], nv_settings[i].name); /* the star takes the first column */
		printf("%s\n", nv_value_text(i, s->value[i], buf, sizeof(buf)));
	}
	if (star)
		printf("The '*' shows parameters with next value different from default value.\n");
	return CX_OK;
}

/* The table of a change: each setting's next-boot value and its new one. */
static void show_plan(const struct device *d, const struct nv_plan *p)
{
	char a[48], b[48];

	opening(d, true);
	for (unsigned k = 0; k < p->nch; k++) {
		printf(NAME_COL VALUE_COL " %s\n", nv_settings[p->ch[k].idx].name,
		       nv_value_text(p->ch[k].idx, p->ch[k].from, a, sizeof(a)),
		       nv_value_text(p->ch[k].idx, p->ch[k].to, b, sizeof(b)));
	}
}

static void json_changes(struct json *j, const struct nv_plan *p)
{
	json_arr(j, "changes");
	for (unsigned k = 0; k < p->nch; k++) {
		json_obj(j, NULL);
		json_str(j, "name", nv_settings[p->ch[k].idx].name);
		json_int(j, "from", p->ch[k].from);
		json_int(j, "to", p->ch[k].to);
		json_close(j);
	}
	json_close(j);
}

/* After the checks: ask, apply, read back, report. */
static int change(struct cli *c, struct nv_session *ns, struct nv_state *s, const struct nv_plan *p, bool reset,
		  struct cx_status *st)
{
	const char *result = p->nch || p->nrec || reset ? (c->dry_run ? "dry-run" : "changed") : "nothing-to-do";
	char q[96];
	int rc = CX_OK;

	if (!c->json)
		show_plan(ns->d, p);
	if (!c->dry_run && (p->nch || p->nrec || reset)) {
		snprintf(q, sizeof(q), reset ? "Reset configuration for device %s?" : "Apply new Configuration?",
			 ns->d->pci.bdf);
		if ((rc = cli_confirm(c, q, st)))
			return rc;
		if (!c->json)
			printf("Applying... ");
		rc = reset ? nv_reset(ns, st) : nv_apply(ns, p, st);
		if (!c->json)
			printf(rc ? "Failed!\n" : "Done!\n");
		if (!rc)
			rc = nv_read(ns, s, st);
	}
	/* The card's state after a failure: settings writes sent may have changed its next boot. */
	if (rc && ns->writes) {
		size_t n = strlen(st->msg);
		snprintf(st->msg + n, sizeof(st->msg) - n, " (after %u settings write(s): its next boot may have "
			 "changed)", (unsigned)ns->writes);
	}
	if (rc)
		return rc;
	if (c->json) {
		struct json j;
		json_head(&j, ns->d, s, result);
		json_changes(&j, p);
		nv_json_settings(&j, "settings", s);
		json_end(&j);
	} else if (!strcmp(result, "changed")) {
		printf("-I- Power the machine off (a cold restart) for the card to load the new settings.\n");
	} else {
		printf("-I- %s\n", c->dry_run ? "--dry-run: nothing was sent to the card" : "nothing to change");
	}
	return CX_OK;
}

/* Open d and read its settings. */
static int open_read(struct cli *c, struct device *d, struct nv_session *ns, struct nv_state *s, struct cx_status *st)
{
	int rc = device_open_tools(d, c->sysfs, c->device, st);

	if (!rc && !(rc = nv_open(ns, d, st)))
		rc = nv_read(ns, s, st);
	return rc;
}

int cli_config_restore(struct cli *c, struct cx_status *st)
{
	struct nv_record want[NV_MAX_RECORDS];
	unsigned n = 0;
	struct device d;
	struct nv_session ns;
	struct nv_state s;
	struct nv_plan p;
	int rc;

	if ((rc = nv_bundle_load(c->params[0], want, &n, st)))
		return rc;
	if (!(rc = open_read(c, &d, &ns, &s, st)) && !(rc = nv_plan_records(&s, want, n, &p, st)))
		rc = change(c, &ns, &s, &p, false, st);
	device_close(&d);
	return rc;
}

int cmd_config(struct cli *c, struct cx_status *st)
{
	const char *verb = c->params[0];
	bool q = !strcmp(verb, "q") || !strcmp(verb, "query"), set = !strcmp(verb, "set"),
	     reset = !strcmp(verb, "reset");
	struct device d;
	struct nv_session ns = {0};
	struct nv_state s;
	struct nv_plan p;
	int rc;

	if (!q && !set && !reset)
		return cx_fail(st, CX_EUSAGE, "config %s: the verbs are q, set and reset", verb);
	if (c->image || !c->device)
		return cx_fail(st, CX_EUSAGE, "config works on a card: cxflash -d BDF config %s", verb);
	if ((set && c->nparams < 2) || (reset && c->nparams > 1))
		return cx_fail(st, CX_EUSAGE, "usage: cxflash -d BDF config %s", set ? "set NAME=VALUE..." : "reset");
	/* A register status (the interface works, a record does not read: a corrupt store; on a
	 * running ConnectX-4/4 Lx/5 ICMD's register status, not a command that failed) still
	 * lets a reset through, as mstconfig's reset goes: MNVIA is the remedy to try. */
	rc = open_read(c, &d, &ns, &s, st);
	if (rc == CX_ETOOLS && reset &&
	    (d.chip.fw_access ? d.chip.icmd.result == ICMD_E_REG : !ns.h.result)) {
		cx_status_clear(st);
		memset(&s, 0, sizeof(s));
		rc = CX_OK;
	}
	if (rc == CX_OK) {
		if (q)
			rc = query(c, &d, &s, st);
		else if (reset)
			rc = nv_plan_records(&s, NULL, 0, &p, st) ? st->code : change(c, &ns, &s, &p, true, st);
		else if (!(rc = nv_plan(&s, c->params + 1, (unsigned)c->nparams - 1, &p, st)))
			rc = change(c, &ns, &s, &p, false, st);
	}
	device_close(&d);
	return rc;
}
