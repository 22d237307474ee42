/* SPDX-License-Identifier: GPL-2.0-or-later */
/* step_upload.c — a fresh backup handed to the PXE server before anything is written
 * (step_upload.h).
 *
 * On a PXE boot the data folder is RAM: lost at power-off, and the only copy of a
 * backup until the server holds it. /init then sets $CXR_UPLOAD to its upload
 * command (rootfs/overlay/usr/lib/cxrescue/upload), run as `CMD backup BUNDLE`: it
 * sends the bundle, reads it back from the server and compares, retrying a bounded
 * number of times with its own lines on the console, and exits 0 only when the
 * server holds the bundle. A write waits for that here, since a card must never be
 * written while the only backup of it is in RAM, unless upload=optional says so. */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rescue/step_upload.h"

#define EXIT_CANNOT_EXEC 127 /* the shell's convention for "command not found" */

int wiz_upload_backup(struct wizard *w, const struct backup_result *r, struct cx_status *st)
{
	char why[64];
	int status = 0;
	pid_t pid;

	if (!w->o.upload_cmd)
		return CX_OK;
	wiz_say(w, "Uploading the backup %s to the server ...", r->name);
	fflush(w->out);
	if ((pid = fork()) < 0)
		return cx_fail(st, CX_ENOMEM, "cannot start the upload: %s", strerror(errno));
	if (pid == 0) {
		/* The card is open, so SIGINT/SIGTERM/... are blocked here (util/signals.h), and a
		 * mask survives exec: unblocked, the command's own timeout can end a stuck transfer. */
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		execl(w->o.upload_cmd, w->o.upload_cmd, "backup", r->path, (char *)NULL);
		_exit(EXIT_CANNOT_EXEC);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return cx_fail(st, CX_EIO, "the upload of %s: %s", r->name, strerror(errno));
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		wiz_say(w, "    the server holds the backup");
		return CX_OK;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == EXIT_CANNOT_EXEC)
		snprintf(why, sizeof(why), "%s could not be run", w->o.upload_cmd);
	else if (WIFEXITED(status))
		snprintf(why, sizeof(why), "the upload failed with status %d", WEXITSTATUS(status));
	else
		snprintf(why, sizeof(why), "the upload was killed by signal %d", WTERMSIG(status));
	if (w->o.upload_optional) {
		wiz_say(w, "    WARNING: the backup did not reach the server (%s); upload=optional: going on", why);
		return CX_OK;
	}
	return cx_fail(st, CX_EIO, "the backup %s did not reach the server (%s); it is kept in RAM, and nothing "
		       "is written to the card (upload=optional would go on)", r->name, why);
}
