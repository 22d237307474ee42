/* SPDX-License-Identifier: GPL-2.0-or-later */
/* card_ops.h — test-only: cxflash's operations run on a fixture card (card_fixture.h),
 * each through a device opened for it and closed after, as `cxflash -d BDF ...` runs one.
 *
 * The burn's and restore's questions (their hooks' confirm) are answered by the test;
 * confirm_yes answers yes and counts them. */
#ifndef CX_TEST_CARD_OPS_H
#define CX_TEST_CARD_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "cxsim.h"
#include "ops/backup.h"
#include "ops/burn.h"

/* A confirm hook that answers yes; ctx, when not NULL, is an int that counts the questions. */
int confirm_yes(void *ctx, const char *q, struct cx_status *st);

/* burn_card() of img[0..len) onto the card; its code, st says why. */
int run_burn_image(struct cxsim_card *c, const uint8_t *img, size_t len, struct burn_opts *o,
		    struct burn_result *r, struct cx_status *st);

/* run_burn_image() of what mkfs2 makes from img_opts. */
int run_burn(struct cxsim_card *c, const char *img_opts, struct burn_opts *o, struct burn_result *r,
	      struct cx_status *st);

/* burn_card() of what mkfs2 makes from img_opts onto the open device d, its questions
 * answered yes; it must succeed. */
void device_burn_ok(struct device *d, const char *img_opts);

/* After a cold restart the card boots FW 2.minor with node GUID guid and first MAC mac. */
void expect_cold_boot(struct cxsim_card *c, int minor, uint64_t guid, uint64_t mac);

/* backup_card() of the card into dir, which must succeed. */
void card_backup(struct cxsim_card *c, const char *dir, struct backup_result *r);

#endif
