/* SPDX-License-Identifier: GPL-2.0-or-later */
/* probe.h — `cxflash -d BDF probe`: is this card safe to write? Strictly read-only.
 *
 * probe_card() opens the card only up to its chip (ops/device.h), then runs a
 * table of checks in order, each filling one row: the kernel's lockdown, the
 * PCI and HW IDs and recovery mode, each flash semaphore (on a ConnectX-4/4 Lx/5 the
 * gateway's lock, taken by a read and given back at once, hw-access.md §3.13; an FS3/FS4
 * image is verified by image/fs3.h), the flash part, its
 * status register, the whole flash read twice and compared, the image on it
 * verified, the FW the card runs against the flash's, and the boot address.
 * A check that needs what an earlier one could not give (no flash read while
 * a semaphore is held) is skipped, and says so.
 *
 * Each row is PASS, NOTE (unexpected but no reason not to write: recovery mode,
 * no valid image, a FW that differs from the flash's; a burn is how such a card
 * is fixed), FAIL (a write would fail or could do harm) or SKIP. The card is
 * safe to write when no row failed; every FAIL row's text is one reason.
 *
 * What reaches the card: config-space reads, and the config writes that select
 * a crspace address in the 0x58/0x5c window (or the VSEC's own protocol) to read
 * it — reads in effect; crspace reads; flash gateway transactions that read
 * (RDID, RES, RDSR, READ), plus the gateway's no-phase transaction that ends a
 * chained command (flash_open(), flash/gateway.h), which moves no data. A
 * semaphore a read took (it was free) is given back with a write of 0, so each
 * is left as found (§3.5). No erase, program or status-register write is sent.
 * In recovery mode chip_open() applies mstflint's link-reset workaround (one
 * crspace register, dev/chip.h): that is a register of the chip, not the flash.
 */
#ifndef CX_PROBE_H
#define CX_PROBE_H

#include <stdbool.h>
#include <stdint.h>

#include "ops/device.h"

enum probe_result { PROBE_PASS, PROBE_NOTE, PROBE_FAIL, PROBE_SKIP };

#define PROBE_TEXT_MAX 240
#define PROBE_NSEMS 2

struct probe_check {
	const char *name;              /* "lockdown", "chip", ... (JSON and text) */
	enum probe_result result;
	char text[PROBE_TEXT_MAX];     /* what was found, one line */
};

/* The facts, for --json; a field is valid only when its check ran. */
struct probe_sem {
	uint32_t addr;                 /* crspace address, hw-access.md §3.5 */
	bool present;                  /* the chip has it (0xf03a0: CX3/Pro only) */
	bool checked, held;
	uint32_t value;                /* what the read returned: 0 free, else the holder's */
};

struct probe {
	const char *lockdown;          /* dev/lockdown.h */
	struct pci_card pci;
	char chip[40];
	uint16_t hw_id;
	uint8_t rev;
	bool recovery;
	struct probe_sem sems[PROBE_NSEMS];
	bool gw_lock;                  /* ConnectX-4/4 Lx/5: the gateway's own lock instead (§3.13) */
	bool gw_lock_held;
	bool have_flash;
	char flash[96];                /* flash_describe() */
	uint8_t jedec[3];
	uint32_t flash_size;
	bool have_sr;
	uint8_t sr;                    /* status register */
	bool write_protected;          /* BP bits set */
	bool reads_agree;              /* the two whole reads were identical */
	char flash_sha256[65];
	bool have_image;               /* located, parsed and verified */
	uint32_t image_start;
	char fw_flash[24];
	bool have_running;
	char fw_running[24];
	bool have_boot_addr;
	uint32_t boot_addr;            /* crspace 0xf0000, hw-access.md §4.4 */
	unsigned nchecks, nfail;
	struct probe_check checks[16];
};

/* Probe the card at bdf. CX_OK when the checks ran (whatever they found: see
 * probe_safe()); an error when the card could not be opened at all (no such
 * card, access refused: with the lockdown's line), or CX_ENOMEM/CX_EINTR. */
int probe_card(const char *sysfs, const char *bdf, struct probe *p, struct cx_status *st);

/* The same on a card opened by device_open_chip() (or, in tests, one attached
 * with its flash: then the semaphores are checked and the flash is kept). */
int probe_device(struct device *d, struct probe *p, struct cx_status *st);

/* The same without the whole-flash reads, for a write about to happen (the wizard): the
 * backup before the write reads the whole flash and compares it with a second read or with
 * the bundle it equals, and the burn verifies the whole image, so reading it here too would
 * read a 2 MiB flash twice more for nothing. "reads" is skipped, "image" reads only the
 * image's structure. */
int probe_device_before_write(struct device *d, struct probe *p, struct cx_status *st);

/* No check failed. */
bool probe_safe(const struct probe *p);

/* "pass", "note", "FAIL", "skip". */
const char *probe_result_name(enum probe_result r);

#endif
