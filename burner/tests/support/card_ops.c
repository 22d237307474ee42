/* SPDX-License-Identifier: GPL-2.0-or-later */
/* card_ops.c — burns and backups of fixture cards. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>

#include "card_fixture.h"
#include "card_ops.h"
#include "mkimage.h"

int confirm_yes(void *ctx, const char *q, struct cx_status *st)
{
	(void)q;
	(void)st;
	if (ctx)
		(*(int *)ctx)++;
	return CX_OK;
}

int run_burn_image(struct cxsim_card *c, const uint8_t *img, size_t len, struct burn_opts *o,
		    struct burn_result *r, struct cx_status *st)
{
	struct device d;

	card_open(&d, c);
	int rc = burn_card(&d, img, len, o, r, st);
	device_close(&d);
	return rc;
}

int run_burn(struct cxsim_card *c, const char *img_opts, struct burn_opts *o, struct burn_result *r,
	      struct cx_status *st)
{
	size_t len;
	uint8_t *img = mkimage(img_opts, &len);
	int rc = run_burn_image(c, img, len, o, r, st);

	free(img);
	return rc;
}

void device_burn_ok(struct device *d, const char *img_opts)
{
	struct burn_opts o = {.hooks.confirm = confirm_yes};
	struct burn_result r;
	struct cx_status st = {0};
	size_t len;
	uint8_t *img = mkimage(img_opts, &len);

	assert_int_equal(burn_card(d, img, len, &o, &r, &st), CX_OK);
	free(img);
}

void expect_cold_boot(struct cxsim_card *c, int minor, uint64_t guid, uint64_t mac)
{
	cxsim_power_cycle(c);
	const struct cxsim_boot *b = cxsim_boot_info(c);
	assert_true(b->booted);
	assert_int_equal(b->fw_ver[1], minor);
	assert_int_equal(b->guids[0], guid);
	assert_int_equal(b->macs[0], mac);
}

void card_backup(struct cxsim_card *c, const char *dir, struct backup_result *r)
{
	struct device d;
	struct cx_status st = {0};

	card_open(&d, c);
	assert_int_equal(backup_card(&d, dir, r, &st), CX_OK);
	device_close(&d);
}
