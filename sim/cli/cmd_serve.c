/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_serve.c — `cxsim serve`: load cards, mount the fake sysfs tree (and, with --log,
 * record every access to it: serve.h), save everything on exit. */
#define FUSE_USE_VERSION 35
#include <fuse.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "cli.h"
#include "report.h"
#include "serve.h"

#define CMD "serve"
#define MAX_THREADS 8

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

struct cxsim_card *serve_lock(struct server *s, struct served_card *sc)
{
	pthread_mutex_lock(&sc->lock);
	if (s->wall_clock) {
		uint64_t now = mono_ns();

		if (sc->last_wall_ns && now > sc->last_wall_ns)
			cxsim_advance(sc->card, now - sc->last_wall_ns);
		sc->last_wall_ns = now;
	}
	return sc->card;
}

void serve_unlock(struct served_card *sc)
{
	pthread_mutex_unlock(&sc->lock);
}

void serve_stats_json(struct server *s, struct sbuf *b)
{
	unsigned i;

	sb_printf(b, "{\"wall_clock\":%s,\"cards\":[", s->wall_clock ? "true" : "false");
	for (i = 0; i < s->ncards; i++) {
		struct served_card *sc = &s->cards[i];
		struct cxsim_card *c = serve_lock(s, sc);

		sb_printf(b, "%s{\"bdf\":\"%s\",\"stem\":", i ? "," : "", sc->bdf);
		sb_json_str(b, sc->stem);
		sb_printf(b, ",\"params\":");
		report_params_json(b, cxsim_get_params(c));
		sb_printf(b, ",\"boot\":");
		report_boot_json(b, c);
		sb_printf(b, ",\"counters\":");
		report_counters_json(b, cxsim_counters(c));
		sb_printf(b, "}");
		serve_unlock(sc);
	}
	sb_printf(b, "]}\n");
}

static void log_msg(void *ctx, const char *msg)
{
	const struct served_card *sc = ctx;

	fprintf(stderr, "cxsim %s: %s\n", sc->bdf, msg);
}

/* mkdir -p DIR; a mount point left by a killed server ("Transport endpoint is not
 * connected") is detached first. */
static int prepare_dir(const char *dir)
{
	struct stat st;
	char *p, *path;

	if (stat(dir, &st) && errno == ENOTCONN) {
		if (umount2(dir, MNT_DETACH))
			return cli_err("%s: stale FUSE mount, and umount failed: %s", dir,
				       strerror(errno));
	}
	path = strdup(dir);
	if (!path)
		return cli_err("out of memory");
	for (p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST) {
			free(path);
			return cli_err("cannot create %s: %s", dir, strerror(errno));
		}
		*p = '/';
	}
	free(path);
	if (mkdir(dir, 0755) && errno != EEXIST)
		return cli_err("cannot create %s: %s", dir, strerror(errno));
	return CLI_OK;
}

static int write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	int bad;

	if (!f)
		return cli_err("cannot write %s: %s", path, strerror(errno));
	bad = fputs(text, f) < 0;
	bad |= fclose(f) != 0;
	return bad ? cli_err("cannot write %s", path) : CLI_OK;
}

/* Save every card and write STEM.stats for each. */
static int save_all(struct server *s)
{
	struct sbuf b = { 0 };
	unsigned i;
	int rc = CLI_OK;

	serve_stats_json(s, &b);
	for (i = 0; i < s->ncards; i++) {
		struct served_card *sc = &s->cards[i];
		char path[4096];

		pthread_mutex_lock(&sc->lock);
		rc |= cli_save(sc->card, sc->stem);
		pthread_mutex_unlock(&sc->lock);
		snprintf(path, sizeof(path), "%s.stats", sc->stem);
		rc |= write_text(path, b.p ? b.p : "{}\n");
	}
	sb_free(&b);
	return rc ? CLI_FAIL : CLI_OK;
}

static int run_fuse(struct server *s, const char *dir)
{
	char *fargv[] = { "cxsim", "-o", "fsname=cxsim,subtype=cxsim", NULL };
	struct fuse_args args = FUSE_ARGS_INIT(3, fargv);
	struct fuse_loop_config *lc;
	struct fuse *f;
	int rc = CLI_OK;

	f = fuse_new(&args, fakesys_operations(), sizeof(struct fuse_operations), s);
	if (!f)
		return cli_err("fuse_new failed");
	if (fuse_mount(f, dir)) {
		fuse_destroy(f);
		return cli_err("cannot mount FUSE at %s (is /dev/fuse there, are we root?)", dir);
	}
	if (fuse_set_signal_handlers(fuse_get_session(f))) {
		rc = cli_err("cannot install signal handlers");
		goto unmount;
	}
	lc = fuse_loop_cfg_create();
	if (!lc) {
		rc = cli_err("out of memory");
		goto handlers;
	}
	fuse_loop_cfg_set_max_threads(lc, MAX_THREADS);
	printf("serving %u card(s) at %s\n", s->ncards, dir);
	fflush(stdout);
	if (fuse_loop_mt(f, lc) < 0)
		rc = cli_err("the FUSE loop failed");
	fuse_loop_cfg_destroy(lc);
handlers:
	fuse_remove_signal_handlers(fuse_get_session(f));
	/* Stopped: no request is in flight any more. Save before unmounting. */
	rc |= save_all(s);
unmount:
	fuse_unmount(f);
	fuse_destroy(f);
	fuse_opt_free_args(&args);
	return rc ? CLI_FAIL : CLI_OK;
}

int cmd_serve(int argc, char **argv)
{
	struct server s = { 0 };
	const char *dir = NULL, *log = NULL;
	unsigned i, nstems = 0;
	int a, rc;

	s.cards = calloc((size_t)argc, sizeof(*s.cards));
	if (!s.cards)
		return cli_err("out of memory");
	for (a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--wall-clock"))
			s.wall_clock = true;
		else if (!strcmp(argv[a], "--log") && a + 1 < argc)
			log = argv[++a];
		else if (!strcmp(argv[a], "--log"))
			return free(s.cards), cli_usage(CMD, "--log needs a FILE");
		else if (argv[a][0] == '-')
			return free(s.cards), cli_usage(CMD, "unknown option %s", argv[a]);
		else if (!dir)
			dir = argv[a];
		else
			s.cards[nstems++].stem = argv[a];
	}
	if (!dir || !nstems)
		return free(s.cards), cli_usage(CMD, "need DIR and at least one STEM");
	if (nstems > 255)
		return free(s.cards), cli_usage(CMD, "at most 255 cards");
	s.started = time(NULL);
	rc = CLI_OK;
	for (i = 0; i < nstems && !rc; i++) {
		struct served_card *sc = &s.cards[i];

		sc->index = i;
		snprintf(sc->bdf, sizeof(sc->bdf), "0000:%02x:00.0", i + 1);
		pthread_mutex_init(&sc->lock, NULL);
		sc->card = cli_load(sc->stem);
		if (!sc->card)
			rc = CLI_FAIL;
		else
			cxsim_set_log(sc->card, log_msg, sc);
		s.ncards = i + 1;
	}
	if (!rc && log)
		rc = serve_log_open(&s, log);
	if (!rc)
		rc = prepare_dir(dir);
	if (!rc)
		rc = run_fuse(&s, dir);
	serve_log_close(&s);
	for (i = 0; i < s.ncards; i++) {
		if (s.cards[i].card)
			cxsim_free(s.cards[i].card);
		pthread_mutex_destroy(&s.cards[i].lock);
	}
	free(s.cards);
	return rc;
}
