/* SPDX-License-Identifier: GPL-2.0-or-later */
/* serve.h — the cards `cxsim serve` holds, and the FUSE tree that shows them as sysfs. */
#ifndef CXSIM_SERVE_H
#define CXSIM_SERVE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
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
};

/* Take a card's lock (and, with --wall-clock, let the real time since its last access
 * pass in the model); release it. */
struct cxsim_card *serve_lock(struct server *s, struct served_card *sc);
void serve_unlock(struct served_card *sc);

/* The stats document: {"cards":[{"bdf","stem","params","boot","counters"}...]}. */
void serve_stats_json(struct server *s, struct sbuf *b);

/* The fake sysfs tree (fakesys.c); private_data is the struct server. */
struct fuse_operations;
const struct fuse_operations *fakesys_operations(void);

#endif
