/* SPDX-License-Identifier: GPL-2.0-or-later */
/* journal.c — the wizard's session log and history lines (see journal.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rescue/journal.h"
#include "util/fileio.h"
#include "util/json.h"
#include "util/utc.h"

#define NAME_TRIES 100      /* "-2" ... "-99" when a log name is taken */
#define LINE_SMALL 512      /* a log line longer than this is formatted into the heap */

/* The first failure after the open, for the wizard's last screen. */
static void note_error(struct journal *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note_error(struct journal *j, const char *fmt, ...)
{
	va_list ap;

	if (j->write_error)
		return;
	j->write_error = true;
	va_start(ap, fmt);
	vsnprintf(j->error, sizeof(j->error), fmt, ap);
	va_end(ap);
}

/* dir exists as a folder afterwards, or st says why not. */
static int make_dir(const char *dir, struct cx_status *st)
{
	struct stat sb;

	if (mkdir(dir, 0755) && errno != EEXIST)
		return cx_fail(st, CX_EIO, "cannot create %s: %s", dir, strerror(errno));
	if (stat(dir, &sb))
		return cx_fail(st, CX_EIO, "cannot use %s: %s", dir, strerror(errno));
	if (!S_ISDIR(sb.st_mode))
		return cx_fail(st, CX_EIO, "%s is not a folder", dir);
	return CX_OK;
}

static void closed_journal(struct journal *j, const char *why)
{
	j->open = false;
	j->log_fd = -1;
	note_error(j, "%s", why);
}

int journal_open(struct journal *j, const char *data_dir, time_t now, struct cx_status *st)
{
	char logs[JOURNAL_PATH_MAX], stamp[UTC_STAMP_LEN];

	memset(j, 0, sizeof(*j));
	j->log_fd = -1;
	j->clock = time;
	if (!data_dir || !data_dir[0]) {
		cx_fail(st, CX_EUSAGE, "no folder given for the journal");
		closed_journal(j, st->msg);
		return CX_EUSAGE;
	}
	if ((size_t)snprintf(logs, sizeof(logs), "%s/%s", data_dir, JOURNAL_LOGS) >= sizeof(logs) ||
	    (size_t)snprintf(j->history_path, sizeof(j->history_path), "%s/%s", data_dir, JOURNAL_HISTORY) >=
		    sizeof(j->history_path)) {
		cx_fail(st, CX_EIO, "path too long: %s", data_dir);
		goto fail;
	}
	if (make_dir(data_dir, st) || make_dir(logs, st))
		goto fail;

	utc_stamp_of(stamp, now, true);
	for (int i = 1; i < NAME_TRIES; i++) {
		char suffix[8] = "";
		if (i > 1)
			snprintf(suffix, sizeof(suffix), "-%d", i);
		if ((size_t)snprintf(j->log_path, sizeof(j->log_path), "%s/cxrescue-%s%s.log", logs, stamp,
				     suffix) >= sizeof(j->log_path)) {
			cx_fail(st, CX_EIO, "path too long: %s", logs);
			goto fail;
		}
		j->log_fd = open(j->log_path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
		if (j->log_fd >= 0)
			break;
		if (errno != EEXIST) {
			cx_fail(st, CX_EIO, "cannot create %s: %s", j->log_path, strerror(errno));
			goto fail;
		}
	}
	if (j->log_fd < 0) {
		cx_fail(st, CX_EIO, "%s/cxrescue-%s.log and %d more names are taken", logs, stamp, NAME_TRIES - 2);
		goto fail;
	}
	if (dir_sync(logs)) {
		cx_fail(st, CX_EIO, "cannot flush %s to the disk: %s", logs, strerror(errno));
		close(j->log_fd);
		goto fail;
	}
	j->open = true;
	return CX_OK;
fail:
	closed_journal(j, st->msg);
	return st->code;
}

/* Control bytes (a newline in a message, an escape sequence from an image's
 * VSD) would break the one-event-one-line rule or a terminal showing the log. */
static void one_line(char *s, size_t *len)
{
	while (*len && (s[*len - 1] == '\n' || s[*len - 1] == '\r'))
		(*len)--;
	for (size_t i = 0; i < *len; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			s[i] = ' ';
}

void journal_log(struct journal *j, const char *fmt, ...)
{
	char small[LINE_SMALL], *line = small;
	struct tm tm;
	va_list ap, ap2;

	if (!j->open) {
		j->lost_lines++;
		return;
	}
	time_t t = j->clock ? j->clock(NULL) : time(NULL);
	if (!gmtime_r(&t, &tm))
		memset(&tm, 0, sizeof(tm));
	/* small[0] is a newline, sent only after a failed write: that one may have
	 * left half a line, which must not run into this one. */
	small[0] = '\n';
	size_t head = 1 + (size_t)snprintf(small + 1, sizeof(small) - 1, "%02d:%02d:%02d ", tm.tm_hour,
					   tm.tm_min, tm.tm_sec);

	va_start(ap, fmt);
	va_copy(ap2, ap);
	int n = vsnprintf(small + head, sizeof(small) - head, fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n >= sizeof(small) - head) {
		if ((line = malloc(head + (size_t)n + 1))) {
			memcpy(line, small, head);
			vsnprintf(line + head, (size_t)n + 1, fmt, ap2);
		}
	}
	va_end(ap2);
	if (n < 0 || !line) {
		j->lost_lines++;
		note_error(j, n < 0 ? "a log line could not be formatted" : "out of memory writing the log");
		return;
	}

	size_t len = (size_t)n;
	one_line(line + head, &len);
	len += head;
	line[len++] = '\n'; /* where the NUL was, or before it */
	size_t skip = j->log_torn ? 0 : 1;
	j->log_torn = fd_write_all(j->log_fd, line + skip, len - skip) != 0;
	if (j->log_torn) {
		j->lost_lines++;
		note_error(j, "cannot write %s: %s", j->log_path, strerror(errno));
	}
	if (line != small)
		free(line);
}

static void card_json(struct json *w, const struct history_card *c)
{
	json_obj(w, "card");
	json_str(w, "bdf", c->bdf);
	json_str(w, "chip", c->chip);
	json_str(w, "psid", c->psid);
	if (c->node_guid)
		json_hex(w, "node_guid", c->node_guid, 16);
	else
		json_null(w, "node_guid");
	if (c->nmacs > 0) {
		json_arr(w, "macs");
		for (int i = 0; i < c->nmacs && i < 2; i++)
			json_hex(w, NULL, c->mac[i], 12);
		json_close(w);
	} else {
		json_null(w, "macs");
	}
	json_close(w);
}

/* The line, with a '\n' in front that is sent only when the file's last line
 * is broken. */
static int history_line(const struct journal *j, const struct history_entry *e, char **buf, size_t *len,
			struct cx_status *st)
{
	char when[UTC_STAMP_LEN];
	struct json w;
	time_t t = j->clock ? j->clock(NULL) : time(NULL);
	FILE *out = open_memstream(buf, len);

	if (!out)
		return cx_fail(st, CX_ENOMEM, "out of memory");
	utc_stamp_of(when, t, false);
	fputc('\n', out);
	json_begin(&w, out);
	json_str(&w, "time", when);
	json_str(&w, "action", e->action);
	card_json(&w, &e->card);
	const struct history_from *from = e->from;
	const struct history_to *to = e->to;
	const struct history_backup *bk = e->backup;
	json_pairs(&w, "from", from ? (const char *[]){"psid", from->psid, "fw", from->fw, NULL} : NULL);
	json_pairs(&w, "to",
		   to ? (const char *[]){"psid", to->psid, "fw", to->fw, "file", to->file, "sha256", to->sha256, NULL}
		      : NULL);
	json_pairs(&w, "backup", bk ? (const char *[]){"path", bk->path, "sha256", bk->sha256, NULL} : NULL);
	json_str(&w, "result", e->result);
	json_str(&w, "message", e->message);
	const char *slash = strrchr(j->log_path, '/');
	json_str(&w, "log", slash ? slash + 1 : j->log_path);
	json_end(&w);
	if (fclose(out) || !*buf) {
		free(*buf);
		*buf = NULL;
		return cx_fail(st, CX_ENOMEM, "out of memory");
	}
	return CX_OK;
}

static int history_fail(struct journal *j, struct cx_status *st, const char *what, int err)
{
	note_error(j, "cannot %s %s: %s", what, j->history_path, strerror(err));
	return cx_fail(st, CX_EIO, "cannot %s %s: %s", what, j->history_path, strerror(err));
}

int journal_history(struct journal *j, const struct history_entry *e, struct cx_status *st)
{
	char *line = NULL, last = '\n';
	size_t len = 0;
	struct stat sb;
	int rc, fd;

	if (!j->open) {
		note_error(j, "the journal is not open");
		return cx_fail(st, CX_EIO, "history not written: the journal is not open%s%s", j->error[0] ? ": " : "",
			       j->error);
	}
	if (!e)
		return cx_fail(st, CX_EUSAGE, "no history entry given");
	if ((rc = history_line(j, e, &line, &len, st)))
		return rc;
	/* Read-write: the last byte says whether the file ends mid-line. */
	if ((fd = open(j->history_path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644)) < 0) {
		rc = history_fail(j, st, "open", errno);
		goto out;
	}
	errno = 0;
	if (fstat(fd, &sb) || (sb.st_size > 0 && pread(fd, &last, 1, sb.st_size - 1) != 1)) {
		rc = history_fail(j, st, "read", errno ? errno : EIO);
		close(fd);
		goto out;
	}
	/* One write() of the whole line; write_all only loops if the kernel took
	 * part of it, which on a regular file means the disk is full or failing. */
	size_t skip = last == '\n' ? 1 : 0;
	if (fd_write_all(fd, line + skip, len - skip) || fsync(fd)) {
		rc = history_fail(j, st, "write", errno);
		close(fd);
		goto out;
	}
	if (close(fd)) {
		rc = history_fail(j, st, "write", errno);
		goto out;
	}
	if (sb.st_size == 0) {
		/* A new history.jsonl: its folder entry must reach the disk too. */
		char dir[JOURNAL_PATH_MAX];
		snprintf(dir, sizeof(dir), "%s", j->history_path);
		char *slash = strrchr(dir, '/');
		if (slash)
			*slash = '\0';
		if (slash && dir_sync(dir)) {
			rc = history_fail(j, st, "flush the folder of", errno);
			goto out;
		}
	}
	/* The step's log lines go to the disk with its history line. */
	if (fsync(j->log_fd))
		note_error(j, "cannot write %s: %s", j->log_path, strerror(errno));
out:
	free(line);
	return rc;
}

void journal_close(struct journal *j)
{
	if (!j->open)
		return;
	if (fsync(j->log_fd))
		note_error(j, "cannot write %s: %s", j->log_path, strerror(errno));
	if (close(j->log_fd))
		note_error(j, "cannot write %s: %s", j->log_path, strerror(errno));
	j->open = false;
	j->log_fd = -1;
}
