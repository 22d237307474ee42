/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pci_list.c — test helper: list PCI functions through libpci (the static musl
 * build cxflash links), optionally with its sysfs tree moved to DIR:
 *   pci-list [DIR]  →  one "BDF vendor:device class subsys_vendor:subsys_device" line each. */
#include <pci/pci.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	struct pci_access *a = pci_alloc();

	if (argc > 1)
		pci_set_param(a, "sysfs.path", argv[1]);
	a->method = PCI_ACCESS_SYS_BUS_PCI;
	pci_init(a);
	pci_scan_bus(a);
	for (struct pci_dev *d = a->devices; d; d = d->next) {
		pci_fill_info(d, PCI_FILL_IDENT | PCI_FILL_CLASS | PCI_FILL_SUBSYS);
		printf("%04x:%02x:%02x.%d %04x:%04x %04x %04x:%04x\n", d->domain, d->bus, d->dev,
		       d->func, d->vendor_id, d->device_id, d->device_class, d->subsys_vendor_id,
		       d->subsys_id);
	}
	pci_cleanup(a);
	return 0;
}
