/* SPDX-License-Identifier: GPL-2.0-or-later */
/* card_state.h — what a write left on the card, as a value every front end prints from.
 *
 * style.md Lessons 7: every result says which state the card is in. The
 * write procedure (ops/write_procedure.h) sets one of four values on every path,
 * success and failure alike; the CLI's text and --json, the wizard, the
 * unattended report and pxe-report print its name or its sentence instead of
 * composing their own. The names are part of the JSON output: they never
 * change meaning once released.
 *
 *   untouched        no erase or program command reached the flash
 *   old-image-boots  the flash changed, but the card boots the image it booted
 *                    before (a failsafe write stopped before the switch)
 *   new-image-boots  the new content is on the flash and verified (or, after a
 *                    failure, its image is the one the card boots)
 *   partly-written   neither can be shown: write it again before powering off
 */
#ifndef CX_CARD_STATE_H
#define CX_CARD_STATE_H

enum card_state { CARD_UNTOUCHED, CARD_OLD_BOOTS, CARD_NEW_BOOTS, CARD_PARTIAL };

/* "untouched", "old-image-boots", "new-image-boots", "partly-written". */
const char *card_state_name(enum card_state s);

/* One sentence for a person, e.g. "nothing on the flash was changed: safe to power off". */
const char *card_state_sentence(enum card_state s);

#endif
