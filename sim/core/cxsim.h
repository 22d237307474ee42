/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cxsim.h — the card model: a ConnectX-2 / ConnectX-3 / ConnectX-3 Pro as seen
 * from PCI, at the register level. The manual of the hardware is
 * ../shared/docs/hw-access.md (section numbers below refer to it).
 *
 * The model is front-end agnostic: it has no I/O but the two state files it
 * loads and saves. Front ends (the in-process C interface used by tests and
 * benchmarks, the FUSE fake sysfs, later a QEMU device) call
 * cxsim_cfg_read()/cxsim_cfg_write() for PCI config space, which is where the
 * 0x58/0x5c crspace window lives (§2.3) and, when params.vsec_spaces is set,
 * the VSEC gateway (§2.4), and cxsim_bar0_read()/write() for the memory BAR.
 * By default BAR0 reads as all-ones (memory decode off), so tools fall back to
 * config cycles (§2.2); with params.bar0_crspace (the QEMU device) BAR0
 * decodes crspace.
 *
 * It shares no code with cxflash: a misreading of the spec must not cancel
 * itself out between burner and model.
 *
 * Time: the model keeps its own clock. Every config access costs
 * CXSIM_CFG_ACCESS_NS; a front end adds the time its client spends sleeping
 * with cxsim_advance(). Flash operations finish when the clock passes their
 * datasheet duration (the status register's WIP bit stays set until then).
 * Nothing depends on the wall clock, so a run is repeatable.
 */
#ifndef CXSIM_H
#define CXSIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CXSIM_CFG_SIZE 256          /* conventional PCI config space */
#define CXSIM_BAR0_SIZE (1u << 20)  /* 1 MiB BAR0, §2.2 */
#define CXSIM_CFG_ACCESS_NS 1000    /* one config read or write: 1 µs (issue 3's cost model) */
/* One BAR0 read or write when BAR0 decodes crspace: priced like a config access. The
 * cost model counts register accesses, not transports; a real non-posted MMIO read
 * over PCIe is of the same order (~1 µs). Not tuned. */
#define CXSIM_BAR0_ACCESS_NS CXSIM_CFG_ACCESS_NS

/* VSEC gateway address spaces (mtcr's AS_*, §2.4), as bits of params.vsec_spaces. */
#define CXSIM_AS_ICMD_EXT 0x1
#define CXSIM_AS_CR_SPACE 0x2       /* the only one modelled: it reaches crspace */
#define CXSIM_AS_SEMAPHORE 0xA
#define CXSIM_VSEC_BIT(space) (1u << (space))
/* What mtcr requires before it uses the VSEC (VSEC_MIN_SUPPORT_UL, §2.4). */
#define CXSIM_VSEC_FULL (CXSIM_VSEC_BIT(CXSIM_AS_CR_SPACE) | CXSIM_VSEC_BIT(CXSIM_AS_ICMD_EXT) | \
			 CXSIM_VSEC_BIT(CXSIM_AS_SEMAPHORE))
#define CXSIM_VSEC_CRSPACE_ONLY CXSIM_VSEC_BIT(CXSIM_AS_CR_SPACE)

enum cxsim_chip { CXSIM_CX2, CXSIM_CX3, CXSIM_CX3PRO };

/* What a card is. Saved beside the flash in a small key=value text file. */
struct cxsim_params {
	enum cxsim_chip chip;
	uint16_t pci_device;        /* normal PCI device ID (CX2 0x673c, CX3 0x1003, Pro 0x1007) */
	uint8_t hw_rev;             /* crspace 0xf0014 bits 23:16: CX2 0xB0, CX3 0 or 1, Pro 0 */
	uint16_t subsys_vendor, subsys_device;
	char flash_part[32];        /* a name from the SPI NOR table, e.g. "W25Q16" */
	bool wo_addr_window;        /* 0x58 is write-only: reads back 0xbadacce5, §2.3 */
	uint64_t seed;              /* makes "undefined" flash bytes deterministic */
	/* BAR0 decodes crspace (big-endian dwords on the bus, §2.2) instead of reading
	 * all-ones. A front end's choice, not a property of the card: not saved in
	 * STEM.conf, false by default (the FUSE front end: mstflint uses config cycles). */
	bool bar0_crspace;
	/* A vendor-specific capability (ID 9) after MSI-X: the VSEC gateway of §2.4,
	 * supporting the address spaces whose bits are set (CXSIM_VSEC_BIT). 0, the
	 * default, means no VSEC: whether CX2/CX3 have one is UNCONFIRMED (§2.1), and
	 * tools then use the window. The window works either way. */
	uint32_t vsec_spaces;

	/* Faults. */
	uint64_t power_cut_after;   /* lose power after this many config (or BAR0) accesses; 0 = never */
	bool stuck_busy;            /* the gateway BUSY bit never clears */
	bool sem_held_gpio;         /* 0xf03fc is held by another agent */
	bool sem_held_flashprog;    /* 0xf03a0 is held by another agent (CX3/Pro) */
	bool sem_held_vsec;         /* the VSEC gateway's semaphore is held by another agent */
	bool write_protect;         /* the flash powers on with its block-protect bits set */
	uint32_t stuck_addr;        /* with stuck_mask: a flash byte with bits that never change */
	uint8_t stuck_mask;         /* those bits (erase and program leave them as they are); 0 = none */
};

struct cxsim_counters {
	uint64_t cfg_reads, cfg_writes;
	uint64_t cr_reads, cr_writes;       /* crspace accesses (window and BAR0) */
	uint64_t bar0_reads, bar0_writes;   /* BAR0 accesses (decoded or not) */
	uint64_t unmodelled;                /* crspace accesses to addresses the model lacks */
	uint64_t gw_cmds;                   /* gateway transactions started */
	uint64_t gw_by_opcode[256];         /* ... by SPI opcode (transactions with a command phase) */
	uint64_t bytes_programmed, bytes_erased, bytes_read;
	uint64_t erases;
	uint64_t gw_without_sem;            /* gateway transactions while 0xf03fc was not held */
	uint64_t vsec_accesses;             /* VSEC gateway accesses started (ADDR writes) */
	uint64_t vsec_without_sem;          /* ... while the client did not hold the VSEC semaphore */
	uint64_t time_ns;                   /* the model's clock */
};

/* What the boot-ROM model found at the last power-on. */
struct cxsim_boot {
	bool booted;            /* false: no valid image, the card is in recovery mode */
	uint32_t start;         /* physical start of the image that boots */
	unsigned slot;          /* 0 or 1 */
	bool failsafe;
	unsigned nvalid;        /* valid images found */
	uint16_t fw_ver[3];
	uint16_t dev_type;
	char psid[17];
	char vsd[209];
	int nguids;             /* 4 or 6 entries in the GUID section */
	uint64_t guids[4];
	uint64_t macs[2];       /* derived from port GUIDs on 4-entry images */
	char why[160];          /* when !booted: why no image is valid */
};

struct cxsim_card;

/* Defaults for a chip: IDs, revision, a 2 MiB W25Q16, seed 1, no faults. */
void cxsim_params_default(struct cxsim_params *p, enum cxsim_chip chip);

/* A card whose flash is flash_size bytes of 0xFF; then power it on. */
struct cxsim_card *cxsim_new(const struct cxsim_params *p);

/* Load a card from STEM.conf and STEM.flash; NULL with *err set on failure. */
struct cxsim_card *cxsim_load(const char *stem, char *err, size_t errlen);

/* The two halves of cxsim_load, for front ends that adjust the params in between:
 * parse a STEM.conf file into *p (over cx3 defaults; 0, or -1 with *err set), and
 * make a powered-on card with params *p whose flash is read from path (which must
 * hold exactly the part's size; NULL with *err set). */
int cxsim_read_conf(const char *path, struct cxsim_params *p, char *err, size_t errlen);
struct cxsim_card *cxsim_load_flash(const struct cxsim_params *p, const char *path, char *err,
				    size_t errlen);

/* Save params and flash (only if changed) to STEM.conf / STEM.flash. 0 or -1. */
int cxsim_save(struct cxsim_card *c, const char *stem, char *err, size_t errlen);

void cxsim_free(struct cxsim_card *c);

/* A deep copy: the same flash, registers, chip state and clock. Power-cut
 * campaigns clone the card at a cut point and power-cycle the clone, which
 * is what cutting the power at that instant would do, without re-running
 * the client from the start for every cut. NULL when out of memory. */
struct cxsim_card *cxsim_clone(const struct cxsim_card *c);

/* Power-on: in-flight flash operations are lost (see cxsim_power_off), the
 * boot ROM scans the flash and the card takes its normal or recovery PCI ID. */
void cxsim_power_cycle(struct cxsim_card *c);
bool cxsim_powered(const struct cxsim_card *c);

/* PCI config space: len 1, 2 or 4, off aligned to len, off + len <= 256.
 * Values are the little-endian register values (as pread of sysfs config
 * gives them). Each call counts as one config access. */
uint32_t cxsim_cfg_read(struct cxsim_card *c, unsigned off, unsigned len);
void cxsim_cfg_write(struct cxsim_card *c, unsigned off, uint32_t val, unsigned len);

/* BAR0, one dword at off (4-aligned, below CXSIM_BAR0_SIZE). Without
 * params.bar0_crspace: reads all-ones, writes ignored (memory decode off, §2.2),
 * and no clock tick. With it: the crspace dword at off, as the natural register
 * value (the bus shows it big-endian: the front end swaps, §2.2); each access
 * counts as a crspace access, ticks CXSIM_BAR0_ACCESS_NS and counts towards
 * power_cut_after. A powered-off card or a bad offset reads all-ones. The
 * model does not gate on COMMAND's memory-enable bit: the front end does. */
uint32_t cxsim_bar0_read(struct cxsim_card *c, unsigned off);
void cxsim_bar0_write(struct cxsim_card *c, unsigned off, uint32_t val);

/* Let time pass (the client slept). */
void cxsim_advance(struct cxsim_card *c, uint64_t ns);

const struct cxsim_counters *cxsim_counters(const struct cxsim_card *c);
void cxsim_counters_reset(struct cxsim_card *c);
const struct cxsim_boot *cxsim_boot_info(const struct cxsim_card *c);
const struct cxsim_params *cxsim_get_params(const struct cxsim_card *c);
struct cxsim_params *cxsim_params_mut(struct cxsim_card *c); /* faults may change at run time */

/* The flash array, for create/inspect tools and tests (not for front ends). */
uint8_t *cxsim_flash(struct cxsim_card *c, size_t *size);
void cxsim_flash_changed(struct cxsim_card *c); /* after writing it directly */

/* Write-through: sink(ctx, off, len) is called right after every change the model
 * makes to the flash array (program, erase, an operation cut short by a power
 * loss; cxsim_flash_changed reports the whole array) with a range covering the
 * changed bytes, so a front end can copy cxsim_flash()[off, off + len) to its
 * backing file as it happens. NULL removes it. Not copied by cxsim_clone. */
void cxsim_set_flash_sink(struct cxsim_card *c, void (*sink)(void *ctx, size_t off, size_t len),
			  void *ctx);

/* The PCI IDs the card shows now. */
uint16_t cxsim_pci_device_now(const struct cxsim_card *c);
uint32_t cxsim_class_now(const struct cxsim_card *c);   /* 0x028000 or 0x050000 */

/* The VSEC's spaces from a front end's words: "none", "full" (CXSIM_VSEC_FULL),
 * "crspace-only", or a comma list of space names (icmd_ext, cr_space, icmd,
 * nodnic_init_seg, expansion_rom, nd_crspace, scan_crspace, semaphore,
 * recovery, mac) or numbers 0..31. 0 or -1. */
int cxsim_vsec_parse(const char *s, uint32_t *spaces);

/* Chip names and parsing for front ends: "cx2", "cx3", "cx3pro". */
const char *cxsim_chip_name(enum cxsim_chip chip);
int cxsim_chip_parse(const char *s, enum cxsim_chip *chip);

/* Messages about unmodelled accesses etc. go here (default: none). */
void cxsim_set_log(struct cxsim_card *c, void (*log)(void *ctx, const char *msg), void *ctx);

#endif
