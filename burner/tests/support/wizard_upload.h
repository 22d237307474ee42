/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wizard_upload.h — test-only: a stand-in for the PXE server's upload command
 * ($CXR_UPLOAD, the wizard's upload_cmd), and a watch on when a card is first written.
 *
 * The stand-in is a shell script in the rig's folder, run by the wizard as
 * `CMD backup BUNDLE`: it appends its arguments to ROOT/upload.args (a line per call),
 * copies the bundle's flash.bin to ROOT/uploaded.bin (what the server got), and exits with
 * the status it was made with. */
#ifndef CX_TEST_WIZARD_UPLOAD_H
#define CX_TEST_WIZARD_UPLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "wizard_rig.h"

/* The stand-in that exits with status; its path into path. */
void upload_script(struct rig *r, int status, char *path, size_t n);

/* The upload command's calls so far: the lines of upload.args (its text into out, may be
 * NULL). */
int upload_calls(const struct rig *r, char *out, size_t n);

/* The upload command was called once, as `CMD backup BUNDLE` with this bundle. */
void expect_upload_of(const struct rig *r, const char *bundle);

/* The flash bytes the upload command handed to the server (its last call). */
void expect_uploaded(const struct rig *r, const uint8_t *flash, size_t n);

/* Watches a card's flash: how many changes, and how many upload calls had been made when
 * the first one came. */
struct first_write {
	const struct rig *r;
	uint64_t changes;
	int uploads_before;
};

/* Start watching c's flash (cxsim_set_flash_sink), or stop (f NULL). */
void watch_first_write(struct cxsim_card *c, struct first_write *f);

#endif
