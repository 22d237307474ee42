/* SPDX-License-Identifier: GPL-2.0-or-later */
/* flow_resume.c — at start-up, what the last session left behind (flows.h, pending.h): a
 * write that finished is checked against the firmware the card runs now (the cold restart
 * happened, or not); a write a power cut interrupted is offered again, the same way (the
 * restore or burn step, step_restore.h, step_burn.h), after the same checks. */
#include <stdlib.h>
#include <string.h>

#include "image/patch.h"
#include "ops/identity_from.h"
#include "rescue/flows.h"
#include "rescue/inventory.h"
#include "rescue/pending.h"
#include "rescue/step_burn.h"
#include "rescue/step_restore.h"

/* This boot's id: a "checked" record of another boot is old news. */
static void boot_id(char *out, size_t n)
{
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");

	out[0] = '\0';
	if (f) {
		if (!fgets(out, (int)n, f))
			out[0] = '\0';
		fclose(f);
	}
	out[strcspn(out, "\n")] = '\0';
}

static int find_card(const struct wizard *w, const struct pending *p)
{
	for (int i = 0; i < w->ncards; i++) {
		const struct cardinfo *ci = &w->cards[i].ci;
		if (!ci->pci.family || strcmp(ci->pci.family, p->family))
			continue;
		if (p->guid[0]) {
			char g[17];
			uint64_t own = ci->have_fs3 ? inv_own_guid(&w->cards[i]) :
				       ci->have_image && !ci->f.img.guids.blank ? ci->f.img.guids.guid[0] : 0;
			if (!own)
				continue;
			snprintf(g, sizeof(g), "%016llx", (unsigned long long)own);
			if (!strcmp(g, p->guid))
				return i;
		} else if (!strcmp(ci->pci.bdf, p->bdf)) {
			return i;
		}
	}
	/* An unbrick keyed by slot: the card now shows its identity. The slot decides. */
	for (int i = 0; i < w->ncards; i++)
		if (w->cards[i].ci.pci.family && !strcmp(w->cards[i].ci.pci.family, p->family) &&
		    !strcmp(w->cards[i].ci.pci.bdf, p->bdf))
			return i;
	return -1;
}

/* A write finished last time and the machine was powered off: does the card run it? */
static void check_written(struct wizard *w, const struct pending *p)
{
	struct cx_status st = {0};
	int i = find_card(w, p);

	if (i < 0) {
		wiz_say(w, "The %s of %s card %s (%s) finished last time; that card is not in this machine now.",
			p->action, p->family, p->guid[0] ? p->guid : p->bdf, p->time);
		return;
	}
	const struct wizard_card *c = &w->cards[i];
	struct history_to to = {.psid = p->to_psid[0] ? p->to_psid : NULL, .fw = p->to_fw[0] ? p->to_fw : NULL,
				.file = p->file, .sha256 = p->sha256[0] ? p->sha256 : NULL};
	char msg[300];
	bool ok = !c->ci.recovery && (!p->to_fw[0] || !strcmp(c->running, p->to_fw));
	if (c->fs3 && c->ci.recovery && c->ci.have_fs3 && !strcmp(c->ci.fs3_psid, p->to_psid) &&
	    !strcmp(c->fw, p->to_fw)) {
		/* A ConnectX-4/4 Lx/5 still strapped: its flash is all there is to see. */
		wiz_say(w, "card %s is still in recovery mode; its flash holds %s FW %s, as written (%s): power off, "
			"remove its flash-not-present jumper, and power on to run it", c->ci.pci.bdf, p->to_psid, p->to_fw,
			p->action);
		return;
	}
	if (ok)
		snprintf(msg, sizeof(msg), "after the cold restart card %s runs FW %s, as written (%s)", c->ci.pci.bdf,
			 c->running[0] ? c->running : "?", p->action);
	else
		snprintf(msg, sizeof(msg), "card %s runs %s%s, but FW %s was written (%s): power off, unplug for 10 s, "
			 "and power on again", c->ci.pci.bdf, c->ci.recovery ? "nothing (recovery mode)" : "FW ",
			 c->ci.recovery ? "" : c->running, p->to_fw, p->action);
	wiz_say(w, "%s%s", ok ? "" : "WARNING: ", msg);
	/* Every console says it; one writes it down and marks the record checked in this
	 * boot. A failed check stays "written", to be checked again at the next boot. */
	if (!ok || strcmp(p->state, "written") || !wiz_take_quiet(w))
		return;
	struct pending now = *p;
	if (pending_reload(w->o.data_dir, &now) && !strcmp(now.state, "written")) {
		wiz_history(w, c, "boot-check", NULL, &to, NULL, "ok", msg);
		snprintf(now.state, sizeof(now.state), "checked");
		boot_id(now.boot_id, sizeof(now.boot_id));
		if (pending_write(w->o.data_dir, &now, &st))
			wiz_say(w, "WARNING: %s", st.msg);
	}
	wiz_give(w);
}

static int identity_of(struct wizard *w, int i, const struct pending *p, struct identity_opts *id,
		       struct backup_identity *bid, struct cx_status *st)
{
	unsigned long long g, m, v[GUIDS_FULL];

	memset(id, 0, sizeof(*id));
	if (sscanf(p->identity, PENDING_DAMAGED_FMT, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5]) == GUIDS_FULL) {
		for (int k = 0; k < GUIDS_NGUID; k++)
			id->given.guid[k] = v[k];
		id->given.mac[0] = v[GUIDS_NGUID];
		id->given.mac[1] = v[GUIDS_NGUID + 1];
		id->given.have_guids = id->given.have_macs = true;
		return CX_OK;
	}
	if (!strncmp(p->identity, "bundle:", 7)) {
		struct device d;
		int rc = wiz_open(w, i, &d, st);
		if (!rc)
			rc = identity_from_bundle(p->identity + 7, false, &d, id, bid, st);
		device_close(&d);
		return rc;
	}
	if (sscanf(p->identity, "sticker:%16llx,%12llx", &g, &m) == 2) {
		patch_expand_guid(g, id->given.guid);
		patch_expand_mac(m, id->given.mac);
		id->given.have_guids = id->given.have_macs = true;
	}
	return CX_OK;
}

static const struct match_candidate *finish_target(struct wizard *w, int i, const struct pending *p,
						   struct cx_status *st);
static bool is_restore(const struct pending *p);
static int finish_job(struct wizard *w, int i, const struct pending *p, const struct match_candidate *m,
		      struct cx_status *st);

/* A write a power cut interrupted: offer to do it again, the same way. */
static int finish(struct wizard *w, const struct pending *p, struct cx_status *st)
{
	int i = find_card(w, p), rc;
	char q[600];

	if (i < 0)
		return cx_fail(st, CX_EABSENT, "the %s of card %s (started %s) was interrupted; that card is not in "
			       "this machine now", p->action, p->guid[0] ? p->guid : p->bdf, p->time);
	const struct wizard_card *c = &w->cards[i];
	wiz_say(w, "\nThe %s of card %s (started %s, %s) was INTERRUPTED: the machine lost power or was switched "
		   "off during the write.", p->action, c->ci.pci.bdf, p->time, p->file);
	if (c->ci.recovery)
		wiz_say(w, "The card is in recovery mode now.");
	else
		wiz_say(w, "The card holds a whole image now: PSID %s, FW %s.", inv_psid(c) ? inv_psid(c) : "?",
			c->fw[0] ? c->fw : "?");
	snprintf(q, sizeof(q), "Finish the job now (the same %s, after the same checks)?", p->action);
	bool yes = (rc = prompt_yes_no(&w->p, q, false, st)) == CX_OK;
	if (!yes && w->p.closed)
		return rc;
	if (!wiz_take(w))
		return CX_OK;
	/* Under the lock, the record as it is now: a write another console was running while
	 * the question was asked has since become "written", and is not to be done again. */
	struct pending now = *p;
	if (!pending_reload(w->o.data_dir, &now) || strcmp(now.state, p->state)) {
		wiz_give(w);
		wiz_say(w, "That job was settled on another console meanwhile.");
		return CX_OK;
	}
	cx_status_clear(st);
	const struct match_candidate *m = NULL;
	if (yes && !is_restore(p) && !(m = finish_target(w, i, p, st))) {
		wiz_give(w);
		return st->code;
	}
	pending_remove(w->o.data_dir, p, st);
	cx_status_clear(st);
	if (!yes) {
		wiz_give(w);
		wiz_say(w, "Left as it is; the record is dropped (the history keeps the interrupted write).");
		return CX_OK;
	}
	rc = finish_job(w, i, p, m, st);
	wiz_give(w);
	return rc;
}

/* What finishing p needs, found before its record is dropped: the library entry of
 * its image (a restore needs its bundle only). NULL with st filled when it is gone. */
static const struct match_candidate *finish_target(struct wizard *w, int i, const struct pending *p,
						   struct cx_status *st)
{
	const struct wizard_card *c = &w->cards[i];

	for (size_t k = 0; k < c->mr.n; k++)
		if (!strcmp(c->mr.c[k].e->path, p->file) && !strcmp(c->mr.c[k].e->sha256, p->sha256))
			return &c->mr.c[k];
	cx_fail(st, CX_EABSENT, "%s (SHA-256 %.16s...) is not in the library now: the record stays, for a boot "
		"that has it; or choose the image again from the menu", p->file, p->sha256);
	return NULL;
}

static bool is_restore(const struct pending *p)
{
	return !strncmp(p->identity, "bundle:", 7) && !strcmp(p->identity + 7, p->file);
}

static int finish_job(struct wizard *w, int i, const struct pending *p, const struct match_candidate *m,
		      struct cx_status *st)
{
	int rc;

	if (is_restore(p))
		return wiz_restore(w, i, p->file, p->action, true, NULL, NULL, st);
	struct identity_opts id;
	struct backup_identity bid;
	if ((rc = identity_of(w, i, p, &id, &bid, st)))
		return rc;
	bool given = id.given.have_guids || id.given.have_macs;
	struct write_request rq = {.card = i, .e = m->e, .m = m, .action = p->action, .ident = given ? &id : NULL,
				   .identity_note = p->identity, .rom = p->rom, .ask = true};
	return flow_burn(w, &rq, st);
}

void flow_resume(struct wizard *w)
{
	struct pending *v;
	struct cx_status st = {0};
	int n;

	if (pending_list(w->o.data_dir, &v, &n, &st)) {
		wiz_say(w, "WARNING: %s", st.msg);
		return;
	}
	for (int k = 0; k < n; k++) {
		cx_status_clear(&st);
		if (!strcmp(v[k].state, "checked")) {
			char id[40];
			boot_id(id, sizeof(id));
			if (!strcmp(v[k].boot_id, id)) {
				check_written(w, &v[k]);      /* checked by another console a moment ago */
			} else if (wiz_take_quiet(w)) {
				pending_remove(w->o.data_dir, &v[k], &st);
				wiz_give(w);
			}
		} else if (!strcmp(v[k].state, "written")) {
			check_written(w, &v[k]);
		} else if (w->o.job != JOB_NONE) {
			wiz_say(w, "WARNING: the %s of card %s (started %s) was interrupted; start the wizard "
				   "without a job to finish it", v[k].action, v[k].guid[0] ? v[k].guid : v[k].bdf, v[k].time);
		} else if (!wiz_take_quiet(w)) {
			/* Another console holds the session lock: the write may be running there now
			 * (every console's wizard reads the records at its start). Not offered. */
			wiz_say(w, "The %s of card %s (started %s) is not settled, and another console holds the "
				   "session lock: its write may be this one. Nothing is offered here; this "
				   "console offers it at its next start if it is still unsettled then.",
				v[k].action, v[k].guid[0] ? v[k].guid : v[k].bdf, v[k].time);
		} else {
			wiz_give(w);
			int rc = finish(w, &v[k], &st);
			if (rc && rc != CX_EDECLINED) {
				w->failed = true;
				snprintf(w->last_error, sizeof(w->last_error), "finishing the %s: %s", v[k].action, st.msg);
				wiz_say(w, "*** %s", w->last_error);
			} else if (rc) {
				wiz_say(w, "%s", st.msg);
			}
		}
	}
	free(v);
}
