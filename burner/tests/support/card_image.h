/* SPDX-License-Identifier: GPL-2.0-or-later */
/* card_image.h — test-only: a simulated card's whole flash filled from mkfs2.
 *
 * The one way the tests (burner's and the simulator's) put a generated image on a
 * cxsim card: mkfs2 makes a dump as large as the card's flash with the image in the
 * slot asked for, the dump replaces the flash, and the card is power-cycled so that it
 * boots what its flash holds (whether it did is for the test to check:
 * cxsim_boot_info). It needs only the model and mkfs2 (mkimage.h), not cxflash. */
#ifndef CX_TEST_CARD_IMAGE_H
#define CX_TEST_CARD_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "cxsim.h"

/* mkfs2's dump of opts (its options without --dump and --flash-size, which this adds)
 * with the image in 'slot', as large as the card's flash (malloc'd). */
uint8_t *card_dump(struct cxsim_card *card, const char *opts, int slot);

/* A copy of the card's whole flash (malloc'd; its size in *n). */
uint8_t *flash_copy(struct cxsim_card *card, size_t *n);

/* The card's whole flash = card_dump(card, opts, slot); the card then power-cycled. */
void card_install(struct cxsim_card *card, const char *opts, int slot);

/* A new card of the parameters p holding what mkfs2 makes from opts in slot 0, installed
 * as card_install() does; opts NULL: its flash as the model starts it (erased). */
struct cxsim_card *card_new_with(const struct cxsim_params *p, const char *opts);

#endif
