/* SPDX-License-Identifier: GPL-2.0-or-later */
/* library.c — finding and loading the board table and the firmware folders. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/library.h"

#define DEFAULT_BOARDS CXFLASH_DATADIR "/boards.txt"
#define DEFAULT_FIRMWARE CXFLASH_DATADIR "/firmware"

static int load_table(struct cli *c, struct cli_library *l, struct cx_status *st)
{
	const char *path = c->boards ? c->boards : getenv("CXFLASH_BOARDS");

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

static int pick_dirs(struct cli *c, const char *const *dirs, size_t ndirs, struct cli_library *l,
		     struct cx_status *st)
{
	const char *env = getenv("CXFLASH_FIRMWARE");

	if (ndirs || c->nfirmware) {
		const char *const *from = ndirs ? dirs : c->firmware;
		size_t n = ndirs ? ndirs : (size_t)c->nfirmware;
		if (n > CLI_LIBRARY_MAX_DIRS)
			return cx_fail(st, CX_EUSAGE, "at most %d firmware folders", CLI_LIBRARY_MAX_DIRS);
		for (size_t i = 0; i < n; i++)
			l->dirs[l->ndirs++] = from[i];
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
		if (l->ndirs == CLI_LIBRARY_MAX_DIRS)
			return cx_fail(st, CX_EVALUE, "CXFLASH_FIRMWARE names more than %d folders",
				       CLI_LIBRARY_MAX_DIRS);
		l->dirs[l->ndirs++] = d;
	}
	return CX_OK;
}

int cli_library_open(struct cli *c, const char *const *dirs, size_t ndirs, struct cli_library *l,
		     struct cx_status *st)
{
	int rc;

	memset(l, 0, sizeof(*l));
	if ((rc = load_table(c, l, st)) || (rc = pick_dirs(c, dirs, ndirs, l, st)))
		return rc;
	return manifest_scan(l->dirs, l->ndirs, l->table, &l->m, st);
}

void cli_library_close(struct cli_library *l)
{
	manifest_free(&l->m);
	if (l->table)
		boards_free(&l->t);
	free(l->env_copy);
	memset(l, 0, sizeof(*l));
}
