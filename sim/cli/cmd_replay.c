/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_replay.c — `cxsim replay FILE STEM`: a cxflash trace's accesses made to a model
 * card, each read compared with what the recorded card answered. The first read that
 * differs is reported with its access number, offset, both values and the cxflash
 * command of the recording. The card is not saved: a replay never changes STEM. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "trace_in.h"

#define CMD "replay"
#define REPLAY_DIFFERS 3   /* exit status: a read differs (usage text) */

struct replay {
	struct cxsim_card *card;
	bool recorded_clock;       /* --clock recorded: the model's clock follows the trace's */
	uint64_t t0_ns;            /* the model's clock when the replay began */
	unsigned long long accesses, reads, writes, sleeps;
	char bdf[32];
};

static const char *what(enum tin_kind k)
{
	static const char *const names[] = { "config read", "config write", "BAR0 read", "BAR0 write" };
	return names[k];
}

/* --clock recorded: before an access, let the model's clock catch up with the trace's. */
static void follow_clock(struct replay *p, const struct tin_rec *r)
{
	uint64_t now = cxsim_counters(p->card)->time_ns - p->t0_ns, want = r->us * 1000u;

	if (p->recorded_clock && want > now)
		cxsim_advance(p->card, want - now);
}

/* A note: only open notes matter, and all must be of the header's card. */
static int note(struct replay *p, const struct tin_rec *r)
{
	const char *b = strstr(r->text, " bdf=");
	char bdf[32];

	if (strncmp(r->text, "open ", 5) || !b)
		return CLI_OK;
	if (sscanf(b + 5, "%31s", bdf) != 1 || (p->bdf[0] && strcmp(bdf, p->bdf)))
		return cli_err("the trace opens a second card (%s after %s): replay models one", bdf, p->bdf);
	snprintf(p->bdf, sizeof(p->bdf), "%s", bdf);
	return CLI_OK;
}

/* One record to the model; REPLAY_DIFFERS after reporting a read that differs. */
static int step(struct replay *p, const struct tin_rec *r, const char *command)
{
	uint32_t got;

	if (r->kind == TIN_NOTE)
		return note(p, r);
	if (r->kind == TIN_SLEEP) {
		p->sleeps++;
		return CLI_OK;
	}
	p->accesses++;
	follow_clock(p, r);
	switch (r->kind) {
	case TIN_CFG_WR: p->writes++; cxsim_cfg_write(p->card, r->off, r->val, 4); return CLI_OK;
	case TIN_BAR_WR: p->writes++; cxsim_bar0_write(p->card, r->off, r->val); return CLI_OK;
	case TIN_CFG_RD: got = cxsim_cfg_read(p->card, r->off, 4); break;
	default: got = cxsim_bar0_read(p->card, r->off); break;
	}
	p->reads++;
	if (r->failed || got == r->val)
		return CLI_OK;
	printf("access %llu (%s 0x%x, during '%s'): recorded 0x%08x, model 0x%08x\n", p->accesses,
	       what(r->kind), (unsigned)r->off, command, (unsigned)r->val, (unsigned)got);
	return REPLAY_DIFFERS;
}

static int run(struct tin *t, struct replay *p)
{
	struct tin_rec r;
	char err[256] = "";
	const char *cmd = tin_header(t, "command");
	char command[1024];
	int n, rc = CLI_OK;

	snprintf(command, sizeof(command), "%s", *cmd ? cmd : "unknown command");
	while (rc == CLI_OK && (n = tin_next(t, &r, err, sizeof(err))) == 1)
		rc = step(p, &r, command);
	if (rc != CLI_OK)
		return rc;
	if (n < 0)
		return cli_err("the trace is damaged: %s (after access %llu)", err, p->accesses);
	printf("replayed %llu accesses (%llu reads, %llu writes) and %llu sleeps of '%s': "
	       "every read as recorded%s\n", p->accesses, p->reads, p->writes, p->sleeps, command,
	       tin_complete(t) ? "" : " (the trace was cut short: no end note)");
	return CLI_OK;
}

int cmd_replay(int argc, char **argv)
{
	const char *file = NULL, *stem = NULL;
	struct replay p = { 0 };
	char err[256] = "";
	struct tin *t;
	int i, rc;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--clock")) {
			const char *v = cli_value(argc, argv, &i, CMD);
			if (!v)
				return CLI_USAGE;
			if (strcmp(v, "accesses") && strcmp(v, "recorded"))
				return cli_usage(CMD, "--clock accesses|recorded, not '%s'", v);
			p.recorded_clock = !strcmp(v, "recorded");
		} else if (argv[i][0] == '-') {
			return cli_usage(CMD, "unknown option %s", argv[i]);
		} else if (cli_operand(CMD, argv[i], &file, &stem)) {
			return CLI_USAGE;
		}
	}
	if (!stem)
		return cli_usage(CMD, "needs a trace FILE and a card STEM");
	if (!(t = tin_open(file, err, sizeof(err))))
		return cli_err("%s", err);
	if (!(p.card = cli_load(stem))) {
		tin_close(t);
		return CLI_FAIL;
	}
	p.t0_ns = cxsim_counters(p.card)->time_ns;
	rc = run(t, &p);
	cxsim_free(p.card);
	tin_close(t);
	return rc;
}
