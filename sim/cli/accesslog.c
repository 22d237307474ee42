/* SPDX-License-Identifier: GPL-2.0-or-later */
/* accesslog.c — `cxsim serve --log FILE`: one line per config and BAR0 access (serve.h). */
#include <errno.h>
#include <string.h>

#include "cli.h"
#include "serve.h"

int serve_log_open(struct server *s, const char *path)
{
	if (!(s->log = fopen(path, "w")))
		return cli_err("cannot write the access log %s: %s", path, strerror(errno));
	/* A line reaches the file when it is complete: a test may read the log
	 * while the server runs, and a killed server leaves a usable prefix. */
	setvbuf(s->log, NULL, _IOLBF, 0);
	return CLI_OK;
}

void serve_log_close(struct server *s)
{
	if (s->log)
		fclose(s->log);
	s->log = NULL;
}

void serve_log(struct server *s, struct served_card *sc, const char *space, char op, unsigned off,
	       unsigned len, uint32_t val)
{
	if (!s->log)
		return;
	/* Called with the card's lock held, so one card's lines are in access order. */
	fprintf(s->log, "%llu %s %s %c 0x%05x %u 0x%08x\n",
		(unsigned long long)cxsim_counters(sc->card)->time_ns, sc->bdf, space, op, off, len, val);
}
