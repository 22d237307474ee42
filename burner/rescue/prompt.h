/* SPDX-License-Identifier: GPL-2.0-or-later */
/* prompt.h — the only place the rescue wizard reads the keyboard.
 *
 * Plain lines, so the wizard behaves the same on a VGA console and on a
 * serial line: a question is printed, the terminal's line discipline does the
 * editing, and the answer is the line the user ends with Enter. No cursor
 * addressing, no colours, no raw mode. Everything goes through a struct
 * prompt, so the tests drive it with fmemopen() and open_memstream():
 *
 *   struct prompt p = { .in = stdin, .out = stdout };
 *
 * Answers. Blanks (space, tab, CR) around an answer are ignored. An answer
 * longer than the function accepts (PROMPT_ANSWER_MAX, or len - 1 for
 * prompt_line) is read to its end and rejected whole, never split into two
 * answers. An answer holding any other control character (a tab or CR
 * inside it, a NUL, a Backspace or an arrow key the console did not turn
 * into editing) is rejected too, so what is taken is what the user saw:
 * printable text (UTF-8 passes). An answer is only what Enter ended: input
 * that ends in the middle of a line is no answer, as if it had ended before
 * it.
 *
 * Retries. A question that has a right and a wrong answer (a menu, y/n, a
 * GUID or MAC, an overlong line) says in one line what it accepts and asks
 * again, at most p->tries answers in all (PROMPT_TRIES when 0). The
 * confirmation word is the exception: a wrong word cancels at once.
 *
 * Results. Every function returns CX_OK or fills st and returns:
 *   CX_EDECLINED  the user answered no, typed the wrong confirmation word,
 *                 gave no valid answer within p->tries, or the input ended
 *                 ("no answer (input closed)") or failed. When the input is
 *                 gone p->closed is set and every later call returns
 *                 CX_EDECLINED at once without printing, so a menu loop on
 *                 a closed console ends instead of spinning.
 *   CX_EVALUE     the caller's own arguments are unusable (no menu items, a
 *                 default out of range, a zero-size buffer).
 * The caller shows st->msg; the prompt prints only questions, read-backs and
 * the one-line "what is accepted" of a retry. Output is flushed before every
 * read.
 */
#ifndef CX_PROMPT_H
#define CX_PROMPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/status.h"

#define PROMPT_TRIES 5        /* answers per question when p->tries is 0 */
#define PROMPT_ANSWER_MAX 128 /* longest answer to a menu, a word, y/n, a GUID or MAC */

struct prompt {
	FILE *in, *out;
	int tries;   /* answers allowed per question; 0: PROMPT_TRIES */
	bool closed; /* the input ended or failed; set by the prompt */
};

/* A numbered menu: title, then items[0..n-1] as "  1. item" .. "  n. item",
 * then "Choose 1-n [d]: " (without " [d]" when def is -1). The answer is a
 * number in range; an empty line picks def when there is one. *choice gets
 * the 0-based index. */
int prompt_menu(struct prompt *p, const char *title, const char *const items[], int n, int def,
		int *choice, struct cx_status *st);

/* The confirmation a destructive step needs:
 *   "Type FLASH to write the card, anything else cancels: "
 * with word "FLASH" and action "write the card". CX_OK only for exactly the
 * word (case-sensitive, surrounding blanks ignored); anything else, an empty
 * line included, is CX_EDECLINED "cancelled: nothing written", with no
 * second chance. */
int prompt_word(struct prompt *p, const char *action, const char *word, struct cx_status *st);

/* A question that changes nothing by itself: "question [y/N]: " when
 * default_no, else "question [Y/n]: ". y, yes, n, no in any case; an empty
 * line takes the default. CX_OK for yes, CX_EDECLINED ("answered no") for no. */
int prompt_yes_no(struct prompt *p, const char *question, bool default_no, struct cx_status *st);

/* A GUID typed from the card's sticker, what naming it ("node GUID"):
 *
 *   node GUID (16 hex digits from the card's sticker): 0002C903-000A1B2C
 *   You typed 0002c903000a1b2c.
 *   Type the node GUID again to confirm: 0002c903000a1b2c
 *
 * The forms are guids_parse_guid()'s (optional 0x, ':' or '-' between
 * digits, any case), but all 16 digits must be there: a sticker prints them
 * all, and a dropped digit would still parse as another card's GUID. All
 * zeros and all ones (a blank flash) are refused. The read-back is in the
 * form cxflash prints GUIDs (query, list). The second entry must parse to the
 * same value, or the user is told both and it starts over. Every invalid
 * entry and every mismatch uses up one of p->tries. */
int prompt_guid(struct prompt *p, const char *what, uint64_t *out, struct cx_status *st);

/* The same for a MAC ("port 1 MAC"): 12 hex digits, guids_parse_mac()'s
 * forms and checks (guids_check_mac refuses a multicast address, which
 * includes the blank ffffffffffff), and all zeros refused. */
int prompt_mac(struct prompt *p, const char *what, uint64_t *out, struct cx_status *st);

/* A free line, e.g. a path: "question: ", the answer trimmed into buf (at
 * most len - 1 characters, else asked again). An empty answer is CX_OK with
 * buf "": what an empty answer means is the caller's to say. */
int prompt_line(struct prompt *p, const char *question, char *buf, size_t len, struct cx_status *st);

#endif
