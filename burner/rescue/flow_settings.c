/* SPDX-License-Identifier: GPL-2.0-or-later */
/* flow_settings.c — a card's settings in the wizard (flows.h, issue 20): the "port type and
 * SR-IOV" screen after a cross-flash, and the menu's "Card settings".
 *
 * The settings are the running firmware's (ops/nv_settings.h): it keeps them apart from the
 * image, and the card takes them at its next cold boot. A ConnectX-3 and a ConnectX-4/4 Lx/5
 * whose firmware runs are asked the same way, each through its generation's rows of the one
 * table (ops/nv_table.h: the state read says which). A change goes through the checks of
 * `cxflash config set` (nv_plan), shows each value old -> new and takes the typed word; a
 * card without a bundle on the stick is backed up first (a bundle carries its settings.json);
 * then nv_apply(), the values read back, and the history line "settings" with them before
 * and after. What cannot be done here (a ConnectX-2, firmware not started, recovery mode,
 * a bad NAME=VALUE) is one line, nothing is sent that writes, and the wizard goes on. */
#include <stdio.h>
#include <string.h>

#include "ops/nv_settings.h"
#include "rescue/data_area.h"
#include "rescue/flows.h"
#include "rescue/inventory.h"
#include "rescue/step_backup.h"

#define TURNS 32          /* answers to one screen: a console that keeps answering cannot hold us */
#define NPORT 4           /* the rows of the port type and SR-IOV screen */
#define VALUE_TEXT 48
#define CHOICES 8         /* value names of one setting, at most */

static const char *const port_rows[NPORT] = {"LINK_TYPE_P1", "LINK_TYPE_P2", "SRIOV_EN", "NUM_OF_VFS"};

struct wiz_nv {
	struct device d;
	struct nv_session ns;
	struct nv_state s;
};

/* What the user can do nothing about here, nothing written: one line (the firmware-not-started
 * one names the README's way round it), and CX_OK: the wizard goes on. */
static int refused(struct wizard *w, int rc, const struct cx_status *st)
{
	if (rc != CX_EFWDOWN && rc != CX_EUNSUPPORTED && rc != CX_ESETTING && rc != CX_EVALUE && rc != CX_EUSAGE)
		return rc;
	wiz_say(w, "%s%s; nothing written", st->msg,
		rc == CX_EFWDOWN ? " (README: \"Using cxflash on your installed system\")" : "");
	return CX_OK;
}

/* "LINK_TYPE_P1 VPI(3) -> ETH(2), ...": every value that differs between a and b. */
static void diff_text(const struct nv_state *a, const struct nv_state *b, char *out, size_t n)
{
	char x[VALUE_TEXT], y[VALUE_TEXT];
	size_t k = 0;

	out[0] = '\0';
	for (unsigned i = 0; i < nv_nsettings && k < n; i++)
		if (a->avail[i] && a->value[i] != b->value[i])
			k += (size_t)snprintf(out + k, n - k, "%s%s %s -> %s", k ? ", " : "", nv_settings[i].name,
					      nv_value_text(i, a->value[i], x, sizeof(x)),
					      nv_value_text(i, b->value[i], y, sizeof(y)));
}

/* The plan shown, the word, the backup a card without one gets, the write, the values read
 * back, the history line and the result. */
static int write_plan(struct wizard *w, int i, struct wiz_nv *x, const struct nv_plan *p, struct cx_status *st)
{
	struct wizard_card *c = &w->cards[i];
	struct nv_state before = x->s;
	struct backup_result bk;
	char a[VALUE_TEXT], b[VALUE_TEXT], msg[1024];
	int rc;

	fprintf(w->out, "\n== settings: card %s ==\n", c->ci.pci.bdf);
	for (unsigned k = 0; k < p->nch; k++)
		fprintf(w->out, "  %-24s %s -> %s\n", nv_settings[p->ch[k].idx].name,
			nv_value_text(p->ch[k].idx, p->ch[k].from, a, sizeof(a)),
			nv_value_text(p->ch[k].idx, p->ch[k].to, b, sizeof(b)));
	fprintf(w->out, "  The card's firmware keeps them; they take effect at its next cold boot.\n");
	if ((rc = wiz_confirm_write(w, "write the settings", st))) {
		wiz_history(w, c, "settings", NULL, NULL, NULL, "declined", st->msg);
		return rc;
	}
	if (!c->has_backup)
		rc = wiz_backup_card(w, i, &x->d, "before changing its settings", &bk, st);
	if (!rc && !(rc = nv_apply(&x->ns, p, st)))
		rc = nv_read(&x->ns, &x->s, st);
	if (rc) {
		wiz_history(w, c, "settings", NULL, NULL, NULL, "failed", st->msg);
		return rc;
	}
	diff_text(&before, &x->s, msg, sizeof(msg));
	wiz_history(w, c, "settings", NULL, NULL, NULL, "ok", msg);
	wiz_say(w, "card %s: OK: %s. The new values take effect at the next cold boot (power off, not a reboot).",
		c->ci.pci.bdf, msg[0] ? msg : "the stored settings are forgotten, the values stay");
	return CX_OK;
}

/* A new value for row idx into *v (now its value): a menu of its names, default *v, or a
 * number typed, Enter keeping *v. */
static int ask_value(struct wizard *w, unsigned idx, uint32_t *v, struct cx_status *st)
{
	const struct nv_setting *r = &nv_settings[idx];
	char q[80], labels[CHOICES][VALUE_TEXT];
	const char *items[CHOICES];
	uint32_t vals[CHOICES];
	int n = 0, def = 0, choice, rc;

	if (!r->names) {
		snprintf(q, sizeof(q), "%s, a number (Enter keeps %u)", r->name, *v);
		if ((rc = prompt_line(&w->p, q, labels[0], sizeof(labels[0]), st)) || !labels[0][0])
			return rc;
		if (!nv_value_parse(r, labels[0], v))
			return cx_fail(st, CX_EVALUE, "%s=%s: not a number", r->name, labels[0]);
		return CX_OK;
	}
	for (const struct nv_value_name *nm = r->names; nm->name && n < CHOICES; nm++) {
		def = nm->value == *v ? n : def;
		vals[n] = nm->value;
		items[n] = nv_value_text(idx, nm->value, labels[n], sizeof(labels[n]));
		n++;
	}
	snprintf(q, sizeof(q), "%s:", r->name);
	if ((rc = prompt_menu(&w->p, q, items, n, def, &choice, st)))
		return rc;
	*v = vals[choice];
	return CX_OK;
}

/* The port type and SR-IOV screen: one row per setting the card offers, old -> new once
 * changed; Enter on the first row keeps them, or writes the changes. */
static int port_screen(struct wizard *w, int i, struct wiz_nv *x, struct cx_status *st)
{
	const char *bdf = w->cards[i].ci.pci.bdf;
	unsigned idx[NPORT], n = 0, m = 0;
	uint32_t want[NPORT];
	char labels[NPORT][2 * VALUE_TEXT + 40], a[VALUE_TEXT], b[VALUE_TEXT], as[NPORT][VALUE_TEXT];
	const char *items[NPORT + 1], *asp[NPORT];
	struct nv_plan p;
	int choice = -1, rc;

	for (unsigned k = 0; k < NPORT; k++)
		if (nv_setting_find_gen(x->s.gen, port_rows[k], &idx[n]) && x->s.avail[idx[n]]) {
			want[n] = x->s.value[idx[n]];
			items[n + 1] = labels[n];
			n++;
		}
	if (!n)
		return cx_fail(st, CX_EUNSUPPORTED, "%s: its firmware offers neither port type nor SR-IOV", bdf);
	fprintf(w->out, "\n== Port type and SR-IOV: card %s ==\nWhat the card will boot with (Enter keeps it):\n", bdf);
	for (int turn = 0; turn < TURNS && choice; turn++) {
		bool changed = false;
		for (unsigned k = 0; k < n; k++) {
			bool ch = want[k] != x->s.value[idx[k]];
			changed |= ch;
			snprintf(labels[k], sizeof(labels[k]), "%s: %s%s%s", nv_settings[idx[k]].name,
				 nv_value_text(idx[k], x->s.value[idx[k]], a, sizeof(a)), ch ? " -> " : "",
				 ch ? nv_value_text(idx[k], want[k], b, sizeof(b)) : "");
		}
		items[0] = changed ? "write these changes" : "keep these settings";
		if ((rc = prompt_menu(&w->p, NULL, items, (int)n + 1, 0, &choice, st)))
			return rc;
		if (choice && (rc = ask_value(w, idx[choice - 1], &want[choice - 1], st)) && w->p.closed)
			return rc;
		if (choice && rc)
			wiz_say(w, "%s", st->msg);
	}
	if (choice)
		return cx_fail(st, CX_EDECLINED, "no decision after %d answers: nothing written", TURNS);
	for (unsigned k = 0; k < n; k++)
		if (want[k] != x->s.value[idx[k]]) {
			snprintf(as[m], sizeof(as[m]), "%s=%u", nv_settings[idx[k]].name, want[k]);
			asp[m] = as[m];
			m++;
		}
	if (!m) {
		wiz_say(w, "card %s: settings kept, nothing written", bdf);
		return CX_OK;
	}
	if ((rc = nv_plan(&x->s, asp, m, &p, st)))
		return rc;
	return write_plan(w, i, x, &p, st);
}

void flow_settings_after_crossflash(struct wizard *w, int i)
{
	struct cx_status st = {0};
	struct wiz_nv x;

	/* A ConnectX-4/4 Lx/5 in recovery mode: no firmware runs to ask (nv_open would say so). */
	if (w->cards[i].fs3 && w->cards[i].ci.recovery) {
		wiz_say(w, "Port type and SR-IOV: card %s is in recovery mode, and its settings are its running "
			"firmware's: it keeps the ones it had (the burn does not write them); change them with \"Card "
			"settings\" once its firmware runs", w->cards[i].ci.pci.bdf);
		return;
	}
	int rc = wiz_open_settings(w, i, &x.d, &x.ns, &x.s, &st);

	if (!rc)
		rc = port_screen(w, i, &x, &st);
	device_close(&x.d);
	if (rc && !w->p.closed)
		wiz_say(w, "Port type and SR-IOV: %s%s", st.msg,
			rc == CX_EFWDOWN ? " (README: \"Using cxflash on your installed system\")" : "");
}

/* Every setting the card offers, with its default where it differs; change one, or reset. */
static int settings_menu(struct wizard *w, int i, struct wiz_nv *x, struct cx_status *st)
{
	static const char *const items[] = {"change one setting (NAME=VALUE)", "reset every setting to its default",
					    "back to the menu"};
	const struct wizard_card *c = &w->cards[i];
	char a[VALUE_TEXT], d[VALUE_TEXT], line[96];
	const char *as[1] = {line};
	struct nv_plan p;
	int choice, rc;

	fprintf(w->out, "\n== Card settings: card %s (%s), for its next boot ==\n", c->ci.pci.bdf, c->ci.chip);
	for (unsigned k = 0; k < nv_nsettings; k++) {
		if (!x->s.avail[k])
			continue;
		fprintf(w->out, "  %-24s %s", nv_settings[k].name, nv_value_text(k, x->s.value[k], a, sizeof(a)));
		if (x->s.value[k] != x->s.def[k])
			fprintf(w->out, "  (default %s)", nv_value_text(k, x->s.def[k], d, sizeof(d)));
		fputc('\n', w->out);
	}
	if ((rc = prompt_menu(&w->p, NULL, items, 3, 2, &choice, st)))
		return rc;
	if (choice == 2)
		return cx_fail(st, CX_EDECLINED, "back to the menu");
	if (choice == 0) {
		if ((rc = prompt_line(&w->p, "NAME=VALUE (LINK_TYPE_P1=ETH; Enter: back)", line, sizeof(line), st)))
			return rc;
		if (!line[0])
			return cx_fail(st, CX_EDECLINED, "back to the menu");
		rc = nv_plan(&x->s, as, 1, &p, st);
	} else {
		rc = nv_plan_records(&x->s, NULL, 0, &p, st);
	}
	if (rc)
		return rc;
	if (!p.nch && !p.nrec && !p.reset_first) {
		wiz_say(w, "card %s: nothing to change", c->ci.pci.bdf);
		return CX_OK;
	}
	return write_plan(w, i, x, &p, st);
}

/* Every card but one that refuses every write (wizard_card.no_write): what its firmware
 * cannot answer (a ConnectX-2, recovery mode) nv_open() says in one line. */
static bool settable(const struct wizard_card *c)
{
	return !c->no_write;
}

int flow_settings(struct wizard *w, struct cx_status *st)
{
	struct wiz_nv x;
	int i, rc;

	if ((rc = wiz_choose_card(w, "The settings of which card?", settable, "no card whose settings cxflash reaches", &i, st)))
		return rc;
	if (!(rc = wiz_open_settings(w, i, &x.d, &x.ns, &x.s, st)))
		rc = settings_menu(w, i, &x, st);
	device_close(&x.d);
	return refused(w, rc, st);
}
