/* SPDX-License-Identifier: GPL-2.0-or-later */
/* job_settings.c — a job's settings=NAME=VALUE,... (jobs.h): the card settings of
 * `cxflash config set` (ops/nv_settings.h), set by an unattended job.
 *
 * The list is checked twice before anything is written: once without a card (every
 * name known, every value one of its values; nv_plan() against a card that offers
 * everything), then on each chosen card (read through its running firmware, planned:
 * a port it lacks, more VFs than it has). A refusal there refuses the whole job. A
 * card whose settings cannot be read (a ConnectX-2, recovery mode, firmware too old,
 * firmware not started) is noted, and its write still goes on; the job then fails on
 * that card with the reason. After a card's write succeeded (or there was nothing to
 * write) the plan is made again on what the card holds then and applied; the values
 * are read back for the report. They take effect at the next cold boot: after a
 * cross-flash the old firmware stores them, the new one boots with them (a burn never
 * touches the configuration area; UNCONFIRMED on hardware that another PSID's firmware
 * reads the same records: mstconfig offers no other way, and cxsim keeps them with the card).
 * Each card that was to get them has a history line "settings": before -> after, or why not. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rescue/jobs.h"

/* "LINK_TYPE_P1" of "LINK_TYPE_P1=ETH" into out. */
static const char *name_of(const char *item, char *out, size_t n)
{
	snprintf(out, n, "%.*s", (int)strcspn(item, "="), item);
	return out;
}

int job_settings_parse(const char *list, struct job_settings *s, struct cx_status *st)
{
	struct nv_state any = {.ports = NV_PORTS, .max_vfs = 0xFFFF, .max_log_bar = 31};
	struct nv_plan p;
	struct cx_status other = {0};

	memset(s, 0, sizeof(*s));
	if (!(s->text = strdup(list)))
		return cx_fail(st, CX_ENOMEM, "out of memory");
	for (char *save = NULL, *t = strtok_r(s->text, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (s->n == NV_MAX_ASSIGN)
			return cx_fail(st, CX_EUSAGE, "more than %d settings", NV_MAX_ASSIGN);
		s->item[s->n++] = t;
	}
	for (unsigned i = 0; i < nv_nsettings; i++)
		any.avail[i] = true;
	if (!s->n)
		return cx_fail(st, CX_EUSAGE, "settings= is NAME=VALUE,... (LINK_TYPE_P1=ETH)");
	/* A list one generation's cards take (ops/nv_table.h: ConnectX-3's, or ConnectX-4/4 Lx/5's,
	 * whose names and values differ in part); each chosen card checks it again as its own. */
	any.gen = NV_GEN4;
	if (!nv_plan(&any, s->item, s->n, &p, st))
		return CX_OK;
	any.gen = NV_GEN5;
	if (!nv_plan(&any, s->item, s->n, &p, &other)) {
		cx_status_clear(st);
		return CX_OK;
	}
	/* Refused by both: the reason of the generation that knows every name, if one does
	 * (LEGACY_BOOT_PROTOCOL=bogus: a bad value, not an unknown setting). */
	if (st->code == CX_ESETTING && other.code != CX_ESETTING) {
		cx_status_clear(st);
		return cx_fail(st, other.code, "%s", other.msg);
	}
	return st->code;
}

void job_settings_free(struct job_settings *s)
{
	free(s->text);
	s->text = NULL;
}

int job_settings_check(struct wizard *w, int i, const struct job_settings *s, struct job_settings_card *c,
		       struct cx_status *st)
{
	struct device d;
	struct nv_session ns;
	struct nv_state cur;
	struct nv_plan p;
	struct cx_status why = {0};
	int rc = wiz_open_settings(w, i, &d, &ns, &cur, &why);

	device_close(&d);
	c->asked = true;
	c->n = s->n;
	/* the rows of the card's generation (ops/nv_table.h): the same name is another row on a
	 * ConnectX-4/4 Lx/5 than on a ConnectX-3 */
	for (unsigned k = 0; k < s->n; k++) {
		name_of(s->item[k], c->name[k], sizeof(c->name[k]));
		if (rc || !nv_setting_find_gen(cur.gen, c->name[k], &c->idx[k]))
			nv_setting_find(c->name[k], &c->idx[k]);
	}
	if (rc) {
		c->rc = rc;                   /* the card's, not the list's: the write goes on */
		snprintf(c->why, sizeof(c->why), "%s", why.msg);
		return CX_OK;
	}
	for (unsigned k = 0; k < s->n; k++)
		c->before[k] = cur.value[c->idx[k]];
	c->have_before = true;
	return nv_plan(&cur, s->item, s->n, &p, st);
}

/* The history line "settings", as the menu's change writes it (flow_settings.c): each value
 * before -> after, or why it failed. */
static void history(struct wizard *w, int i, const struct job_settings *s, const struct job_settings_card *c,
		    int rc, const struct cx_status *st)
{
	char msg[CX_MSG_MAX], a[48], b[48];
	size_t used = 0;

	msg[0] = '\0';
	for (unsigned k = 0; !rc && c->have_before && c->have_after && k < s->n && used < sizeof(msg); k++)
		used += (size_t)snprintf(msg + used, sizeof(msg) - used, "%s%s %s -> %s", k ? ", " : "", c->name[k],
					 nv_value_text(c->idx[k], c->before[k], b, sizeof(b)),
					 nv_value_text(c->idx[k], c->after[k], a, sizeof(a)));
	wiz_history(w, &w->cards[i], "settings", NULL, NULL, NULL, rc ? "failed" : "ok", rc ? st->msg : msg);
}

int job_settings_apply(struct wizard *w, int i, const struct job_settings *s, struct job_settings_card *c,
		       struct cx_status *st)
{
	struct device d;
	struct nv_session ns;
	struct nv_state cur;
	struct nv_plan p;
	int rc;

	if (c->rc) {
		wiz_history(w, &w->cards[i], "settings", NULL, NULL, NULL, "failed", c->why);
		return cx_fail(st, c->rc, "%s", c->why);
	}
	if (!(rc = wiz_open_settings(w, i, &d, &ns, &cur, st)) && !(rc = nv_plan(&cur, s->item, s->n, &p, st))) {
		struct cx_status again = {0};
		rc = nv_apply(&ns, &p, st);
		/* read back even after a failure: a record written before it stays written */
		int rb = nv_read(&ns, &cur, rc ? &again : st);
		for (unsigned k = 0; !rb && k < s->n; k++)
			c->after[k] = cur.value[c->idx[k]];
		c->have_after = !rb;
		rc = rc ? rc : rb;
		c->changed = rc ? 0 : p.nch;
	}
	device_close(&d);
	history(w, i, s, c, rc, st);
	return rc;
}

void job_settings_json(struct json *j, const struct job_settings_card *c)
{
	char buf[48];

	if (!c->asked)
		return;
	json_arr(j, "settings");
	for (unsigned k = 0; k < c->n; k++) {
		json_obj(j, NULL);
		json_str(j, "name", c->name[k]);
		json_str(j, "before", c->have_before ? nv_value_text(c->idx[k], c->before[k], buf, sizeof(buf)) : NULL);
		json_str(j, "after", c->have_after ? nv_value_text(c->idx[k], c->after[k], buf, sizeof(buf)) : NULL);
		json_close(j);
	}
	json_close(j);
}
