/* SPDX-License-Identifier: GPL-2.0-or-later */
/* library.c — finding and loading the board table and the firmware folders. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "library/library.h"

#define DEFAULT_BOARDS CXFLASH_DATADIR "/boards.txt"
#define DEFAULT_FIRMWARE CXFLASH_DATADIR "/firmware"

static int load_table(const char *boards, struct library *l, struct cx_status *st)
{
	const char *path = boards ? boards : getenv("CXFLASH_BOARDS");

	if (path && !*path)
		path = NULL;
	if (!path) {
		if (access(DEFAULT_BOARDS, F_OK))
			return CX_OK;
		path = DEFAULT_BOARDS;
	}
	int rc = boards_load(path, &l->t, st);
	if (rc)
		return rc;
	l->table = &l->t;
	l->boards_path = path;
	return CX_OK;
}

/* $CXFLASH_BOARDS_OWN, chained after the shipped table; on any fault left out. */
static void load_own(struct library *l)
{
	const char *path = getenv("CXFLASH_BOARDS_OWN");
	struct cx_status st = {0};

	if (!path || !*path || access(path, F_OK))
		return;
	if (boards_load(path, &l->own, &st)) {
		snprintf(l->own_error, sizeof(l->own_error), "your board table is left out: %s", st.msg);
		return;
	}
	for (size_t i = 0; i < l->own.n; i++) {
		struct board *b = &l->own.rows[i];
		const struct board *dup = l->table ? boards_by_psid(l->table, b->oem_psid) : NULL;
		if (dup) {
			snprintf(l->own_error, sizeof(l->own_error),
				 "your board table is left out: %s:%u: PSID %s is in cxrescue's table already "
				 "(%s:%u); yours may only add boards", path, b->line, b->oem_psid, dup->file, dup->line);
			boards_free(&l->own);
			return;
		}
		b->own = true;
	}
	if (l->table)
		l->t.next = &l->own;
	else
		l->table = &l->own;
	l->own_path = path;
}

static int pick_dirs(const char *const *dirs, size_t ndirs, struct library *l, struct cx_status *st)
{
	const char *env = getenv("CXFLASH_FIRMWARE");

	if (ndirs) {
		if (ndirs > LIBRARY_MAX_DIRS)
			return cx_fail(st, CX_EUSAGE, "at most %d firmware folders", LIBRARY_MAX_DIRS);
		for (size_t i = 0; i < ndirs; i++)
			l->dirs[l->ndirs++] = dirs[i];
		return CX_OK;
	}
	if (!env || !*env) {
		l->dirs[l->ndirs++] = DEFAULT_FIRMWARE;
		return CX_OK;
	}
	l->env_copy = strdup(env);
	if (!l->env_copy)
		return cx_fail(st, CX_ENOMEM, "out of memory");
	for (char *save = NULL, *d = strtok_r(l->env_copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		if (l->ndirs == LIBRARY_MAX_DIRS)
			return cx_fail(st, CX_EVALUE, "CXFLASH_FIRMWARE names more than %d folders",
				       LIBRARY_MAX_DIRS);
		l->dirs[l->ndirs++] = d;
	}
	return CX_OK;
}

int library_open(const char *boards, const char *const *dirs, size_t ndirs, struct library *l,
		 struct cx_status *st)
{
	int rc;

	memset(l, 0, sizeof(*l));
	if ((rc = load_table(boards, l, st)) || (rc = pick_dirs(dirs, ndirs, l, st)))
		return rc;
	load_own(l);
	return manifest_scan(l->dirs, l->ndirs, l->table, &l->m, st);
}

void library_close(struct library *l)
{
	manifest_free(&l->m);
	if (l->table == &l->t)
		boards_free(&l->t);
	boards_free(&l->own);
	free(l->env_copy);
	memset(l, 0, sizeof(*l));
}
