/* SPDX-License-Identifier: GPL-2.0-or-later */
/* card_state.c — the names and sentences of card_state.h, one table. */
#include "ops/card_state.h"

static const struct {
	const char *name, *sentence;
} states[] = {
	[CARD_UNTOUCHED] = {"untouched", "nothing on the flash was changed: safe to power off"},
	[CARD_OLD_BOOTS] = {"old-image-boots", "the card still boots the image it had: safe to power off"},
	[CARD_NEW_BOOTS] = {"new-image-boots", "the new image is on the flash and boots after a cold restart"},
	[CARD_PARTIAL] = {"partly-written",
			  "the flash is partly written: do not power off or reset the card before it is written "
			  "again"},
};

const char *card_state_name(enum card_state s)
{
	return (unsigned)s < sizeof(states) / sizeof(states[0]) ? states[s].name : "unknown";
}

const char *card_state_sentence(enum card_state s)
{
	return (unsigned)s < sizeof(states) / sizeof(states[0]) ? states[s].sentence : "unknown state";
}
