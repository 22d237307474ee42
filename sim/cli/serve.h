/* SPDX-License-Identifier: GPL-2.0-or-later */
/* serve.h — the cards `cxsim serve` holds, and the FUSE tree that shows them as sysfs. */
#ifndef CXSIM_SERVE_H
#define CXSIM_SERVE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "cxsim.h"
#include "sbuf.h"

struct served_card {
	struct cxsim_card *card;
	const char *stem;
	char bdf[16];               /* "0000:01:00.0" for the first card */
	unsigned index;             /* 0-based */
	pthread_mutex_t lock;       /* every model call holds it */
	uint64_t last_wall_ns;      /* --wall-clock: when the card last saw time pass */
};

struct server {
	struct served_card *cards;
	unsigned ncards;
	bool wall_clock;            /* also advance the model by real time between accesses */
	time_t started;             /* file times in the tree */
	FILE *log;                  /* --log FILE: the access log, or NULL */
};

/* Take a card's lock (and, with --wall-clock, let the real time since its last access
 * pass in the model); release it. */
struct cxsim_card *serve_lock(struct server *s, struct served_card *sc);
void serve_unlock(struct served_card *sc);

/* The access log (accesslog.c), `cxsim serve --log FILE`: one line per access a
 * client makes to a card's `config` or `resource0`, as the model saw it, with the
 * card's lock held (so each card's lines are in order):
 *
 *     TIME_NS BDF SPACE OP OFFSET LEN VALUE
 *     1042 0000:01:00.0 cfg w 0x00058 4 0x000f0014
 *
 * TIME_NS is the card's model clock after the access; SPACE is `cfg` (config
 * space: one line per aligned 1/2/4-byte piece, VALUE what was read or written)
 * or `bar0` (one line per FUSE request on resource0: the page cache stands between
 * a client's mmap and these, so OFFSET and LEN are a page fill's, and VALUE is the
 * first dword read, or 0 for a write, which goes nowhere); OP is r or w. Hex
 * numbers as shown. Line-buffered: complete lines only, even from a killed server. */
int serve_log_open(struct server *s, const char *path);
void serve_log_close(struct server *s);
void serve_log(struct server *s, struct served_card *sc, const char *space, char op, unsigned off,
	       unsigned len, uint32_t val);

/* The stats document: {"cards":[{"bdf","stem","params","boot","counters"}...]}. */
void serve_stats_json(struct server *s, struct sbuf *b);

/* The fake sysfs tree (fakesys.c); private_data is the struct server. */
struct fuse_operations;
const struct fuse_operations *fakesys_operations(void);

#endif
