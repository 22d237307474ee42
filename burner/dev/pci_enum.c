/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pci_enum.c — libpci enumeration of our cards (hw-access.md §1.1). */
#include <pci/pci.h>
#include <setjmp.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dev/cfg.h"
#include "dev/pci_enum.h"

#define PF(id, f) {id, PCI_KIND_PF, f}
#define VF(id, f) {id, PCI_KIND_VF, f}
#define RECOVERY(id, f) {id, PCI_KIND_RECOVERY, f}

/* hw-access.md §1.1: mlx4's table, mstflint's supported and livefish lists. */
static const struct pci_id ids[] = {
	PF(0x6340, CXF_CX2), PF(0x634A, CXF_CX2), PF(0x6354, CXF_CX2), PF(0x6368, CXF_CX2),
	PF(0x6372, CXF_CX2), PF(0x6732, CXF_CX2), PF(0x673C, CXF_CX2), PF(0x6746, CXF_CX2),
	PF(0x6750, CXF_CX2), PF(0x675A, CXF_CX2), PF(0x6764, CXF_CX2), PF(0x676E, CXF_CX2),
	PF(0x6778, CXF_CX2), VF(0x1002, CXF_CX2),
	PF(0x1003, CXF_CX3), PF(0x1005, CXF_CX3), PF(0x1006, CXF_CX3), PF(0x1008, CXF_CX3),
	PF(0x1009, CXF_CX3), PF(0x100A, CXF_CX3), PF(0x100B, CXF_CX3), PF(0x100C, CXF_CX3),
	PF(0x100D, CXF_CX3), PF(0x100E, CXF_CX3), PF(0x100F, CXF_CX3), PF(0x1010, CXF_CX3),
	VF(0x1004, CXF_CX3), /* the VF of CX3 and CX3 Pro alike; listed once, skipped anyway */
	PF(0x1007, CXF_CX3PRO),
	RECOVERY(0x0191, CXF_CX2), RECOVERY(0x01F6, CXF_CX3), RECOVERY(0x01F8, CXF_CX3PRO),
	/* ConnectX-4 on (files only, dev/chip.h): Debian's pci.ids (package pci.ids), beside
	 * mstflint 4.21 mtcr_ul/mtcr_ul_com.c supported_dev_ids and live_fish_id_database. */
	PF(0x1013, CXF_CX4), VF(0x1014, CXF_CX4), RECOVERY(0x0209, CXF_CX4),
	PF(0x1015, CXF_CX4LX), VF(0x1016, CXF_CX4LX), RECOVERY(0x020B, CXF_CX4LX),
	PF(0x1017, CXF_CX5), VF(0x1018, CXF_CX5), PF(0x1019, CXF_CX5), VF(0x101A, CXF_CX5), /* 5 Ex too */
	RECOVERY(0x020D, CXF_CX5),
	PF(0x101B, CXF_CX6), VF(0x101C, CXF_CX6), RECOVERY(0x020F, CXF_CX6),
	PF(0x101D, CXF_CX6DX), RECOVERY(0x0212, CXF_CX6DX),
	VF(0x101E, CXF_CX6DX), /* pci.ids: "ConnectX Family mlx5Gen Virtual Function", 6 Dx and Lx; skipped anyway */
	PF(0x101F, CXF_CX6LX), RECOVERY(0x0216, CXF_CX6LX),
};

const struct pci_id *pci_id_table(size_t *n)
{
	*n = sizeof(ids) / sizeof(ids[0]);
	return ids;
}

const struct pci_id *pci_id_row(uint16_t device)
{
	for (unsigned i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		if (ids[i].device == device)
			return &ids[i];
	return NULL;
}

bool pci_id_known(uint16_t device, enum pci_kind *kind, const char **family)
{
	const struct pci_id *id = pci_id_row(device);

	if (!id)
		return false;
	*kind = id->kind;
	*family = chip_by_family(id->family)->name;
	return true;
}

static int by_bdf(const void *a, const void *b)
{
	return strcmp(((const struct pci_card *)a)->bdf, ((const struct pci_card *)b)->bdf);
}

/* libpci reports fatal errors through a noreturn callback that would exit the
 * process; ours jumps back into pci_enum() with the message instead. */
static jmp_buf pci_bail;
static char pci_msg[160];

/* libpci's error pointer has GNU noreturn in its type; clang gives _Noreturn
 * no such type, so say it both ways. */
static _Noreturn void pci_error(char *msg, ...) __attribute__((noreturn));

static _Noreturn void pci_error(char *msg, ...)
{
	va_list ap;

	va_start(ap, msg);
	vsnprintf(pci_msg, sizeof(pci_msg), msg, ap);
	va_end(ap);
	longjmp(pci_bail, 1);
}

static void pci_quiet(char *msg, ...)
{
	(void)msg;
}

int pci_enum(const char *root, struct pci_card *out, int max, int *n, struct cx_status *st)
{
	char dir[4096];
	struct stat sb;
	struct pci_access *a;

	*n = 0;
	snprintf(dir, sizeof(dir), "%s/devices", root ? root : CFG_SYSFS_DEFAULT);
	if (stat(dir, &sb) || !S_ISDIR(sb.st_mode))
		return cx_fail(st, CX_ENODEV, "no PCI device tree at %s", dir);
	a = pci_alloc();
	a->error = pci_error;
	a->warning = pci_quiet;
	if (setjmp(pci_bail)) {
		pci_cleanup(a);
		return cx_fail(st, CX_ENODEV, "libpci: %s", pci_msg);
	}
	if (root)
		pci_set_param(a, "sysfs.path", (char *)root);
	a->method = PCI_ACCESS_SYS_BUS_PCI;
	pci_init(a);
	pci_scan_bus(a);
	for (struct pci_dev *d = a->devices; d; d = d->next) {
		struct pci_card c = {0};
		pci_fill_info(d, PCI_FILL_IDENT | PCI_FILL_CLASS | PCI_FILL_SUBSYS);
		if (d->vendor_id != PCI_VENDOR_MELLANOX ||
		    !pci_id_known(d->device_id, &c.kind, &c.family) || c.kind == PCI_KIND_VF)
			continue;
		if (*n >= max) {
			pci_cleanup(a);
			return cx_fail(st, CX_EUNSUPPORTED, "more than %d cards", max);
		}
		snprintf(c.bdf, sizeof(c.bdf), "%04x:%02x:%02x.%d", d->domain, d->bus, d->dev, d->func);
		c.device = d->device_id;
		c.subsys_vendor = d->subsys_vendor_id;
		c.subsys_device = d->subsys_id;
		c.class_code = (uint32_t)d->device_class << 8;
		out[(*n)++] = c;
	}
	pci_cleanup(a);
	qsort(out, (size_t)*n, sizeof(*out), by_bdf);
	return CX_OK;
}

int pci_find(const char *root, const char *bdf, struct pci_card *out, struct cx_status *st)
{
	struct pci_card all[PCI_ENUM_MAX];
	char full[32];
	int n;

	snprintf(full, sizeof(full), "%s%s", strlen(bdf) <= 7 ? "0000:" : "", bdf);
	if (pci_enum(root, all, PCI_ENUM_MAX, &n, st))
		return st->code;
	for (int i = 0; i < n; i++)
		if (!strcasecmp(all[i].bdf, full)) {
			*out = all[i];
			return CX_OK;
		}
	return cx_fail(st, CX_ENODEV, "no ConnectX-2/3/3 Pro card at %s (try 'cxflash list')", full);
}
