/* SPDX-License-Identifier: GPL-2.0-or-later */
/* card_image.c — a simulated card's flash filled from an mkfs2 dump. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "card_image.h"
#include "mkimage.h"

uint8_t *card_dump(struct cxsim_card *card, const char *opts, int slot)
{
	char o[400];
	size_t fsize, len;
	uint8_t *d;

	cxsim_flash(card, &fsize);
	snprintf(o, sizeof(o), "%s --dump %d --flash-size %zu", opts, slot, fsize);
	d = mkimage(o, &len);
	if (len != fsize)
		print_error("card_image: '%s' gave %zu bytes for a %zu-byte flash\n", o, len, fsize);
	assert_int_equal(len, fsize);
	return d;
}

uint8_t *flash_copy(struct cxsim_card *card, size_t *n)
{
	uint8_t *f = cxsim_flash(card, n), *copy = malloc(*n);

	assert_non_null(copy);
	memcpy(copy, f, *n);
	return copy;
}

void card_install(struct cxsim_card *card, const char *opts, int slot)
{
	size_t fsize;
	uint8_t *flash = cxsim_flash(card, &fsize), *d = card_dump(card, opts, slot);

	memcpy(flash, d, fsize);
	free(d);
	cxsim_flash_changed(card);
	cxsim_power_cycle(card);
}

struct cxsim_card *card_new_with(const struct cxsim_params *p, const char *opts)
{
	struct cxsim_card *c = cxsim_new(p);

	assert_non_null(c);
	if (opts)
		card_install(c, opts, 0);
	return c;
}
