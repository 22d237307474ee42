/* SPDX-License-Identifier: GPL-2.0-or-later */
/* write_procedure.c — the order of every write to a card, and its state on every path (write_procedure.h). */
#include <stdio.h>
#include <string.h>

#include "image/fs3_devinfo.h"
#include "ops/write_procedure.h"

int cw_ask(const struct card_write *w, const char *question, struct cx_status *st)
{
	const struct write_hooks *h = w->hooks;

	if (!h || !h->confirm)
		return cx_fail(st, CX_EDECLINED, "%s (not confirmed: nothing written)", question);
	if (h->confirm(h->confirm_ctx, question, st))
		return st->code ? st->code : cx_fail(st, CX_EDECLINED, "not confirmed: nothing written");
	return CX_OK;
}

write_progress_fn *cw_progress(const struct card_write *w, void **arg)
{
	*arg = w->hooks ? w->hooks->progress_arg : NULL;
	return w->hooks ? w->hooks->progress : NULL;
}

void cw_image_of(struct cw_image *x, const struct dev_image *d)
{
	*x = (struct cw_image){d->buf != NULL, d->start, d->buf, d->len};
}

/* now, read from the card, is the image x: at its start, every byte the read holds equal. */
static bool is(const struct dev_image *now, const struct cw_image *x)
{
	return x->set && now->start == x->start && devimage_known_match(now, x->buf, x->len);
}

static int read_locked(void *ctx, uint32_t addr, uint8_t *buf, uint32_t len, struct cx_status *st)
{
	struct device *d = ctx;
	return flash_read(&d->flash, addr, buf, len, st);
}

/* An FS3/FS4 card's image read whole, judged as sg reads a card (image/fs3_devinfo.h): its
 * DEV_INFO is not the image. sg's FS4 order cut between the new copy's signature and the old
 * one's zeroing leaves two signed DEV_INFO, which the strict parse calls a structural fault
 * (fs3-format.md §4.5), and a card whose DEV_INFO was lost before sg still has none until its
 * end; either card boots (§6.7). A burn never writes DEV_INFO, so its judgement is unchanged. */
static int read_fs3_whole(struct card_write *w, struct devfs3 *now, struct cx_status *st)
{
	int rc = devfs3_read(now, read_locked, w->d, w->d->flash.size, st);

	if (rc == CX_EIMAGE && now->flash && now->img.nentries) {
		cx_status_clear(st);
		rc = fs3_parse_dev_lost(now->flash, now->size, &now->img, st);
	}
	return rc ? rc : fs3_devinfo_verdict(&now->img, true, st);
}

/* The same for an FS3/FS4 card (ops/devimage_fs3.h): the image found, whole (every CRC
 * good, its magic written last by failsafe_fs3.h), at the start of the new or the old. */
static enum card_state observe_fs3(struct card_write *w)
{
	struct devfs3 now;
	struct cx_status ignore = {0};
	enum card_state s = CARD_PARTIAL;

	memset(&now, 0, sizeof(now));
	if (!flash_wait_idle(&w->d->flash, &ignore) && !read_fs3_whole(w, &now, &ignore)) {
		if (w->new_boot.set && now.img.start == w->new_boot.start)
			s = CARD_NEW_BOOTS;
		else if (w->old_boot.set && now.img.start == w->old_boot.start)
			s = CARD_OLD_BOOTS;
	}
	devfs3_free(&now);
	return s;
}

/* Which image the card boots now, after a failed write that changed the flash. */
static enum card_state observe(struct card_write *w)
{
	struct dev_image now = {0};
	struct cx_status ignore = {0};
	enum card_state s = CARD_PARTIAL;

	/* A failure inside an erase or a page program can leave the part busy, and a
	 * busy part reads as 0xFF: wait for it, or the read below finds no image. */
	if (!flash_wait_idle(&w->d->flash, &ignore) &&
	    !devimage_read_meta(&now, read_locked, w->d, w->d->flash.size, w->d->chip.desc->start_positions,
				&ignore) && !now.parse_rc) {
		if (is(&now, &w->new_boot) || is(&now, &w->new_copy))
			s = CARD_NEW_BOOTS;
		else if (is(&now, &w->old_boot))
			s = CARD_OLD_BOOTS;
	}
	devimage_free(&now);
	return s;
}

/* A failure after the flash changed says what it means for the card. The
 * writers say it themselves (write_region.h), from the order they write in; the state
 * is what the card was read to hold afterwards, and wins: the message keeps the
 * writer's words only where they agree with it (the old image boots and they
 * say it is safe to power off; the flash is partly written and they say not to
 * power off), and is otherwise given the state's sentence. (Before any change
 * the messages say "nothing written" their own way, and the value is in
 * out.state for --json and the reports.) */
static bool says(const char *msg, enum card_state s)
{
	bool dont = strstr(msg, "do not power off") || strstr(msg, "before powering off");

	if (s == CARD_OLD_BOOTS)
		return !dont && strstr(msg, "safe to power off");
	return s == CARD_PARTIAL && dont;
}

static void tell_state(struct cx_status *st, enum card_state s)
{
	char msg[CX_MSG_MAX];
	const char *sentence = card_state_sentence(s);
	size_t room;

	if (says(st->msg, s))
		return;
	room = strlen(sentence) + 20 < CX_MSG_MAX ? CX_MSG_MAX - strlen(sentence) - 20 : 0;
	snprintf(msg, sizeof(msg), "%.*s; read back now: %s", (int)(strlen(st->msg) < room ? strlen(st->msg) : room),
		 st->msg, sentence);
	memcpy(st->msg, msg, sizeof(st->msg));
}

static void count(struct write_outcome *o, const struct flash_stats *a, const struct flash_stats *b)
{
	o->bytes_erased = b->bytes_erased - a->bytes_erased;
	o->bytes_programmed = b->bytes_programmed - a->bytes_programmed;
	o->bytes_read = b->bytes_read - a->bytes_read;
}

/* Steps 2 to 7 of write_procedure.h, the lock held. */
static int locked_steps(struct card_write *w, struct cx_status *st)
{
	const struct write_hooks *h = w->hooks;
	int rc;

	if (w->op->plan && (rc = w->op->plan(w, st)))
		return rc;
	if (w->out.nothing_to_do)
		return CX_OK;
	if ((rc = flash_check_writable(&w->d->flash, st)))
		return rc;
	if (w->dry_run) {
		w->out.dry_run = true;
		return CX_OK;
	}
	if (h && h->before_write && (rc = h->before_write(h->before_ctx, st)))
		return rc;
	w->out.backed_up = h && h->before_write;
	if ((rc = flash_prepare_write(&w->d->flash, st)) || (rc = w->op->write(w, st)))
		return rc;
	return w->op->verify ? w->op->verify(w, st) : CX_OK;
}

int card_write_run(struct card_write *w, struct cx_status *st)
{
	const struct write_hooks *h = w->hooks;
	struct flash_stats s0 = w->d->flash.stats, s1;
	int rc;

	memset(&w->out, 0, sizeof(w->out));
	w->out.state = CARD_UNTOUCHED;
	rc = w->op->check ? w->op->check(w, st) : CX_OK;
	if (!rc && !w->out.nothing_to_do && !(rc = device_lock(w->d, st))) {
		s0 = w->d->flash.stats;
		rc = locked_steps(w, st);
		s1 = w->d->flash.stats;
		if (s1.write_cmds != s0.write_cmds)
			w->out.state = !rc ? CARD_NEW_BOOTS
				       : w->d->chip.desc->format == CHIP_FW_FS2 ? observe(w) : observe_fs3(w);
		device_unlock(w->d);
	}
	s1 = w->d->flash.stats;
	count(&w->out, &s0, &s1);
	if (rc && w->out.state != CARD_UNTOUCHED)
		tell_state(st, w->out.state);
	if (h && h->after)
		h->after(h->after_ctx, rc, st, &w->out);
	return rc;
}
