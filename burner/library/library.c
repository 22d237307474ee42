/* SPDX-License-Identifier: GPL-2.0-or-later */
/* library.c — finding and loading the board table and the firmware folders. */
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
	return manifest_scan(l->dirs, l->ndirs, l->table, &l->m, st);
}

void library_close(struct library *l)
{
	manifest_free(&l->m);
	if (l->table)
		boards_free(&l->t);
	free(l->env_copy);
	memset(l, 0, sizeof(*l));
}
