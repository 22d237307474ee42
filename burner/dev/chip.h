/* SPDX-License-Identifier: GPL-2.0-or-later */
/* chip.h — which ConnectX a card is, whether it is in recovery mode, and its locks.
 *
 * The chip table is the one place a family is described: its display name
 * ("ConnectX-3 Pro", what list, backups and job records print), its slug
 * ("cx3pro", what boards.txt and file names use), its HW ID and its flash
 * facts. Everything that names a family reads it through the lookups below;
 * the PCI device IDs of each family are dev/pci_enum.c's table, keyed by
 * enum cx_family.
 *
 * chip_open() reads the HW ID (hw-access.md §1.2) and matches it against the
 * table; the row's recovery PCI ID (HW ID + 1 up to ConnectX-3, the HW ID itself from
 * ConnectX-4 on) means recovery ("livefish") mode (§1.3). A family cxflash does not work
 * on (chip_support) is refused there, CX_EUNSUPPORTED, after reading the HW ID alone.
 * Like every mstflint, it then reads 0x41270 and, when that says the firmware is
 * not up, applies mstflint's link-reset workaround (0xf3834), whatever the PCI
 * ID. chip_lock() takes the flash semaphores as mstflint
 * does (§3.5): 0xf03a0 first on CX3/CX3 Pro, then 0xf03fc; on a GEN5 gateway its own
 * lock instead, with the cache replacement off (§3.13). chip_unlock() releases what it
 * took. A writer holds them for its whole session.
 *
 * A GEN5 card outside recovery mode runs firmware that fetches code from the flash, so the
 * gateway is not ours to take: chip_open() opens ICMD to that firmware instead (fw_access,
 * §3.14), or refuses the card, unless chip_allow_direct_running() was asked for.
 */
#ifndef CX_CHIP_H
#define CX_CHIP_H

#include <stdbool.h>
#include <stdint.h>

#include "dev/crspace.h"
#include "dev/fw_regs.h"

/* The registers the read-only probe (ops/probe.c) looks at as well (hw-access.md). */
#define CHIP_SEM_GPIO 0xF03FC       /* SEMAP63, the flash-gateway semaphore, §3.5 */
#define CHIP_SEM_FLASHPROG 0xF03A0  /* HCR flash programming, CX3/Pro only, §3.5 */
#define CHIP_GW_CMD 0xF0400         /* flash gateway command word; on GEN5 also its lock, §3.1, §3.13 */
#define CHIP_GW_LOCK (1u << 31)     /* GEN5: HBO_LOCK, read-to-lock (mflash.c is4_flash_lock), §3.13 */

/* The families cxflash knows; CXF_COUNT is how many, not a family. */
enum cx_family { CXF_CX2, CXF_CX3, CXF_CX3PRO, CXF_CX4, CXF_CX4LX, CXF_CX5, CXF_CX6, CXF_CX6DX, CXF_CX6LX,
		 CXF_COUNT };

/* What cxflash does with a family. CHIP_CARDS: its cards and files (ConnectX-2 to 5).
 * CHIP_READ_ONLY: its files only, for good (ConnectX-6, 6 Dx, 6 Lx). A card of a family
 * without CHIP_CARDS is named by chip_open() and refused before anything is written to it. */
enum chip_support { CHIP_CARDS, CHIP_READ_ONLY };

/* The flash gateway's generation (hw-access.md §3.1, §3.13). GEN4 (ConnectX-2 to 3 Pro):
 * FLASH_ENABLE in every command word, the semaphores of §3.5 around it. GEN5 (ConnectX-4 to
 * 5): the gateway's own lock, bit 31 of its command word, and the firmware's cache
 * replacement turned off while it is held. */
enum chip_gw { CHIP_GW_GEN4, CHIP_GW_GEN5 };

/* The image format a family's flash holds: FS2 (fs2-format.md) or FS3/FS4 (fs3-format.md). */
enum chip_fw_format { CHIP_FW_FS2, CHIP_FW_FS3, CHIP_FW_FS4 };

struct chip_desc {
	enum cx_family family;
	const char *name;          /* "ConnectX-2", ...: shown to the user, kept in backups */
	const char *slug;          /* "cx2", "cx3", "cx3pro": boards.txt's family, file names */
	uint16_t hw_id;            /* crspace 0xf0014 bits 15:0 */
	uint16_t recovery_id;      /* PCI device ID in recovery (livefish) mode, hw-access.md §1.3 */
	bool flashprog_sem;        /* 0xf03a0 exists (CX3/Pro), hw-access.md §3.5 */
	unsigned start_positions;  /* FS2 start positions searched on flash, hw-access.md §3.11; 0: not FS2 */
	enum chip_support support;
	const char *limit;         /* without CHIP_CARDS: why cxflash does not write to it, a phrase */
	enum chip_gw gw;
	enum chip_fw_format format;
	uint32_t boot_addr_reg;    /* where a warm reset finds the image, hw-access.md §4.4, §3.13 */
	uint8_t boot_addr_shift;   /* ... which holds start << shift */
	uint32_t warm_reset_reg;   /* a bit to set after the boot address, 0 if none (§3.13) */
	uint8_t warm_reset_bit;
	uint8_t log2_reach;        /* the flash is addressed with 3 bytes: 16 MiB at most (§3.13) */
	uint32_t icmd_ready_reg;   /* running firmware: bit 31 "static configuration not done" (§3.14); 0: no ICMD */
};

struct chip {
	struct crspace cr;
	const struct chip_desc *desc;
	uint8_t rev;               /* 0xf0014 bits 23:16 */
	uint16_t pci_device;       /* as the PCI function shows it now */
	bool recovery;
	bool fw_access;            /* GEN5 with its firmware running: the flash through icmd (§3.14) */
	bool direct_running;       /* ... or directly all the same, as asked (chip_allow_direct_running) */
	struct icmd_link icmd;          /* fw_access: opened by chip_open() */
	struct mgir mgir;          /* fw_access: what runs, once chip_mgir() asked */
	bool have_mgir;
	bool held_gpio, held_flashprog, held_gw, held_fw_flash;
};
/* --risk-fw-hang: on a ConnectX-4/4 Lx/5 whose firmware runs, take the flash gateway
 * as in recovery mode instead of asking the firmware (mstflint's -ocr). The firmware fetches
 * code from that flash and may hang until a cold restart. Off unless a person asked. */
void chip_allow_direct_running(bool yes);

/* Identify the chip behind cfg; pci_device is the function's device ID.
 * cr_flags go to cr_open() (CR_CLEAR_SEM, CR_WINDOW: crspace.h). */
int chip_open(struct chip *c, struct cfg_dev *cfg, uint16_t pci_device, unsigned cr_flags, struct cx_status *st);

/* Take the flash semaphores (§3.5); CX_EBUSY with advice if another agent holds one. */
int chip_lock(struct chip *c, struct cx_status *st);
void chip_unlock(struct chip *c);

/* fw_access: MGIR, asked the first time only (mstflint asks it for q and burn, not for v). */
int chip_mgir(struct chip *c, const struct mgir **m, struct cx_status *st);
/* The FW version the card is running (crspace 0x1f064, hw-access.md §1.2);
 * all zero when none runs (recovery mode). */
int chip_running_fw(struct chip *c, uint16_t ver[3], struct cx_status *st);

/* Where a warm reset boots from: the row's register = start << shift (hw-access.md §4.4,
 * §3.13), then its warm-reset bit where it has one. */
int chip_set_boot_addr(struct chip *c, uint32_t start, struct cx_status *st);

/* --clear-semaphore: release both flash semaphores whoever holds them (the
 * VSEC gateway's, if any, was freed by chip_open() with CR_CLEAR_SEM). */
int chip_clear_semaphores(struct chip *c, struct cx_status *st);

/* Unlock and park the window. */
void chip_close(struct chip *c);

/* "ConnectX-3 A1", "ConnectX-2 B0", ... */
const char *chip_label(const struct chip *c, char *buf, unsigned len);

/* The table's row for a family; NULL for a value outside enum cx_family. */
const struct chip_desc *chip_by_family(enum cx_family f);

/* The row by HW ID (e.g. matching an image's tag 10), by display name
 * ("ConnectX-3", exact) or by slug ("cx3", exact); NULL if none. */
const struct chip_desc *chip_by_hw_id(uint16_t hw_id);
const struct chip_desc *chip_by_name(const char *name);
const struct chip_desc *chip_by_slug(const char *slug);

#endif
