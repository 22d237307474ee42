/* SPDX-License-Identifier: GPL-2.0-or-later */
/* scratch.h — test-only: a test's own folder under /tmp, and the files it puts there.
 *
 * A test that writes files makes a folder of its own (scratch_dir), so two tests never
 * see each other's files, and removes it with everything in it when done (rm_rf). Each
 * call that fails fails the running test through cmocka. */
#ifndef CX_TEST_SCRATCH_H
#define CX_TEST_SCRATCH_H

#include <stddef.h>

/* A new, empty folder /tmp/cx-WHAT-XXXXXX (mkdtemp): its path into out. */
void scratch_dir(char *out, size_t n, const char *what);

/* Remove path and everything below it (rm -rf); an absent path is no failure. */
void rm_rf(const char *path);

/* The file at path holds buf[0..len) (created or replaced). */
void write_file(const char *path, const void *buf, size_t len);

/* The same for DIR/NAME. */
void spit(const char *dir, const char *name, const void *buf, size_t len);

/* The file at path holds text (without its NUL). */
void write_text(const char *path, const char *text);

/* The whole file as a NUL-terminated string (malloc'd), or NULL when it cannot be read. */
char *read_text(const char *path);

#endif
