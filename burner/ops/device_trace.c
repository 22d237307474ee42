/* SPDX-License-Identifier: GPL-2.0-or-later */
/* device_trace.c — recording or replaying this process's card sessions. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "dev/trace_replay.h"
#include "dev/trace_write.h"
#include "ops/device.h"
#include "ops/device_trace.h"
#include "util/version.h"

/* The kernel's lockdown state (security/lockdown/lockdown.c: "none [integrity]
 * confidentiality", the brackets marking the one in force); "none" without it. */
#define LOCKDOWN_FILE "/sys/kernel/security/lockdown"

static struct {
	struct trace_writer *w;
	struct trace_replay *replay;
	char command[1024];
} tr;

bool device_trace_active(void)
{
	return tr.w || tr.replay;
}

int device_trace_record(const char *path, const char *command, struct cx_status *st)
{
	const char *t = getenv("CXFLASH_TRACE_TIME");

	if (device_trace_active())
		return cx_fail(st, CX_EUSAGE, "a trace is being recorded or replayed already");
	snprintf(tr.command, sizeof(tr.command), "%s", command);
	return trace_writer_open(&tr.w, path, !(t && !strcmp(t, "0")), st);
}

int device_trace_replay(const char *path, struct cx_status *st)
{
	if (device_trace_active())
		return cx_fail(st, CX_EUSAGE, "a trace is being recorded or replayed already");
	return trace_replay_open(&tr.replay, path, st);
}

bool device_trace_replaying(void)
{
	return tr.replay != NULL;
}

static void lockdown_state(char *out, size_t n)
{
	FILE *f = fopen(LOCKDOWN_FILE, "r");

	snprintf(out, n, "none");
	if (f && fgets(out, (int)n, f))
		out[strcspn(out, "\n")] = '\0';
	if (f)
		fclose(f);
}

static void header(const struct pci_card *pci)
{
	char lines[2048], lockdown[128];
	struct utsname u;
	const char *access = getenv("CXFLASH_ACCESS");

	lockdown_state(lockdown, sizeof(lockdown));
	snprintf(lines, sizeof(lines),
		 "cxflash=%s\nkernel=%s\nlockdown=%s\ncommand=%s\naccess=%s\nbdf=%s\nvendor=%04x\ndevice=%04x\n"
		 "subsystem=%04x:%04x\nclass=%06x\n",
		 CXFLASH_VERSION, uname(&u) ? "unknown" : u.release, lockdown, tr.command,
		 access && *access ? access : "auto", pci->bdf, PCI_VENDOR_MELLANOX, pci->device, pci->subsys_vendor,
		 pci->subsys_device, (unsigned)pci->class_code);
	trace_write_header(tr.w, lines);
}

int device_trace_wrap(const struct pci_card *pci, struct cfg_dev *cfg, struct crmem *mem, struct cx_status *st)
{
	int rc;

	if (!tr.w)
		return CX_OK;
	if (!trace_has_header(tr.w))
		header(pci);
	trace_write_note(tr.w, "open bdf=%s device=%04x subsystem=%04x:%04x class=%06x bar0=%d", pci->bdf,
			 pci->device, pci->subsys_vendor, pci->subsys_device, (unsigned)pci->class_code,
			 mem->ops != NULL);
	if ((rc = trace_record_cfg(cfg, tr.w, st)) || (rc = trace_record_mem(mem, tr.w, st)))
		return rc;
	return CX_OK;
}

bool device_trace_device(uint16_t *device)
{
	const char *v = tr.replay ? trace_header(trace_replay_reader(tr.replay), "device") : NULL;
	char *end;
	unsigned long n;

	if (!v)
		return false;
	n = strtoul(v, &end, 16);
	if (end == v || *end || n > 0xFFFF)
		return false;
	*device = (uint16_t)n;
	return true;
}

int device_trace_card(const char *bdf, struct pci_card *pci, struct cfg_dev *cfg, struct crmem *mem,
		      struct cx_status *st)
{
	return trace_replay_card(tr.replay, bdf, pci, cfg, mem, st);
}

void device_trace_ident(const struct device *d, int rc)
{
	if (!tr.w)
		return;
	trace_write_note(tr.w, "ident result=%d chip=%s rev=%u recovery=%d flash=%s size=%u", rc,
			 d->have_chip ? d->chip.desc->slug : "none", d->have_chip ? d->chip.rev : 0u,
			 d->have_chip && d->chip.recovery, d->have_flash ? d->flash.part->name : "none",
			 d->have_flash ? (unsigned)d->flash.size : 0u);
}

int device_trace_end(int rc, struct cx_status *st)
{
	struct cx_status wst = {0};

	if (tr.replay) {
		int r = trace_replay_finish(tr.replay, st);
		tr.replay = NULL;
		if (r)
			return r;
	}
	if (tr.w && trace_writer_close(tr.w, &wst) && !rc) {
		tr.w = NULL;
		return cx_fail(st, wst.code, "%s", wst.msg);
	}
	tr.w = NULL;
	return rc;
}
