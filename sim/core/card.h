/* SPDX-License-Identifier: GPL-2.0-or-later */
/* card.h — the model's internals, shared by card.c, pcicfg.c, crspace.c, gateway.c and
 * the settings interface's files (tools.h). Front ends use cxsim.h only. */
#ifndef CXSIM_CARD_H
#define CXSIM_CARD_H

#include "cxsim.h"
#include "spi_nor.h"
#include "tools.h"
#include "fw5.h"

/* Chip facts, hw-access.md §1.1–§1.2 (CX4 and later: hw-access.md §3.13, and mstflint 4.21 as
 * cited in card.c). */
struct sim_chip_info {
	const char *name;
	uint16_t hw_id;          /* crspace 0xf0014 bits 15:0 */
	uint16_t default_pci;    /* normal PCI device ID */
	uint8_t default_rev;     /* 0xf0014 bits 23:16 */
	bool has_flashprog_sem;  /* 0xf03a0 exists (CX3/Pro only), §3.5 */
	unsigned boot_positions; /* FS2 start positions the boot ROM searches, §3.11 */
	bool has_tools;          /* the firmware's tools HCR (settings interface), §8: CX3/Pro */
	uint16_t recovery_pci;   /* PCI device ID in recovery mode */
	unsigned fs;             /* image format: 2 (FS2), 3 (FS3) or 4 (FS4) */
	bool gen5_gw;            /* 5th-generation gateway: lock bit 31, cache replacement */
	uint32_t boot_addr_reg;  /* the boot-address register */
	unsigned boot_addr_shift; /* where the address sits in it (8: bits 31:8) */
	uint32_t hw_sem;         /* the tools' HW semaphore (read-to-lock), 0 = none */
	const char *default_part; /* SPI NOR part of a new card */
	uint32_t default_vsec;   /* VSEC spaces of a new card (0 = no VSEC) */
};

const struct sim_chip_info *sim_chip_info(enum cxsim_chip chip);

/* A read-to-lock semaphore, §3.5: reading returns the old value and takes it when free. */
struct semaphore {
	uint32_t value;          /* 0 free, 1 held */
	bool other_agent;        /* held by someone who is not the client (a fault) */
};

struct gateway {
	uint32_t cmd, addr, data[4];
	bool cs_held;            /* the previous transaction kept chip select asserted */
	bool locked;             /* 5th generation: the lock, bit 31 of the command register */
	bool other_holds;        /* 5th generation: another agent holds the lock (a fault) */
	uint32_t cache_rep_en;   /* 5th generation: 0xf0420, bit 0 = cache replacement on */
};

#define VSEC_NSEMS 16            /* dwords modelled in the VSEC SEMAPHORE space (0x0..0x3c) */

/* The VSEC gateway's registers, §2.4 (offsets in pcicfg.c). */
struct vsec {
	uint16_t space;          /* CTRL 15:0, the selected address space */
	uint32_t counter;        /* the next ticket COUNTER hands out; never 0 */
	uint32_t sem;            /* SEMAPHORE: 0 free, else the owner's ticket */
	bool sem_other;          /* held by someone who is not the client (a fault) */
	uint32_t addr;           /* ADDR as last written, bit 31 as the hardware left it */
	uint32_t data;           /* DATA */
	uint32_t sems[VSEC_NSEMS]; /* the SEMAPHORE space's semaphores: 0 free, else the owner's value */
};

struct cxsim_card {
	struct cxsim_params p;
	const struct sim_chip_info *chip;
	uint8_t *flash;
	size_t flash_size;
	struct spi_nor nor;
	bool flash_dirty;
	uint8_t sr_bp_power_on;       /* block-protect bits as the last power-on set them */

	bool powered;
	struct cxsim_boot boot;
	uint64_t now;                 /* model clock, ns */
	uint64_t accesses;            /* config accesses since power-on */
	struct cxsim_counters cnt;

	/* PCI config space. */
	uint8_t cfg[CXSIM_CFG_SIZE];
	uint32_t bar0_lo, bar0_hi;
	uint32_t win_addr;            /* 0x58 */
	uint32_t win_data;            /* 0x5c latch (write-only-address variant) */
	struct vsec vsec;             /* used when p.vsec_spaces != 0 */

	/* crspace registers that hold state. */
	struct semaphore sem_gpio, sem_flashprog, sem_trm;
	struct semaphore sem_hw;      /* 5th generation: the tools' HW semaphore (chip->hw_sem) */
	uint32_t boot_addr;           /* the boot-address register (chip->boot_addr_reg) */
	uint32_t reg_f0204;           /* 5th generation: bit 1 power_boot_partial_reset */
	uint32_t reg_f3834;           /* livefish link-reset tweak, §1.3 */
	struct gateway gw;
	struct tools_hcr hcr;         /* the settings interface, tools.h */
	struct nv_store nv;           /* the settings store: survives power cycles */
	struct icmd icmd;             /* 5th generation: the firmware's ICMD interface (icmd.c) */

	void (*log)(void *ctx, const char *msg);
	void *log_ctx;
	void (*sink)(void *ctx, size_t off, size_t len); /* flash write-through */
	void *sink_ctx;
	void (*nv_sink)(void *ctx);   /* settings-store write-through */
	void *nv_sink_ctx;
};

void sim_card_log(struct cxsim_card *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* pcicfg.c */
void sim_pcicfg_reset(struct cxsim_card *c);
uint32_t sim_pcicfg_read(struct cxsim_card *c, unsigned off, unsigned len);
void sim_pcicfg_write(struct cxsim_card *c, unsigned off, uint32_t val, unsigned len);

/* crspace.c */
uint32_t sim_cr_read(struct cxsim_card *c, uint32_t addr);
void sim_cr_write(struct cxsim_card *c, uint32_t addr, uint32_t val);
void sim_cr_reset(struct cxsim_card *c);
bool sim_gpio_sem_held(const struct cxsim_card *c); /* by the client, not another agent */
bool sim_tools_sem_held(const struct cxsim_card *c); /* 0xf03bc, likewise */

/* gateway.c */
uint32_t sim_gw_read(struct cxsim_card *c, uint32_t addr);
bool sim_gw_other_holds(const struct cxsim_card *c); /* 5th gen: the lock is another agent's */
void sim_gw_write(struct cxsim_card *c, uint32_t addr, uint32_t val);
void sim_gw_reset(struct cxsim_card *c);

#endif
