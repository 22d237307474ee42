/* SPDX-License-Identifier: GPL-2.0-or-later */
/* chip.c — identification, recovery mode and the flash semaphores (hw-access.md §1, §3.5). */
#include <stdio.h>
#include <string.h>

#include "dev/chip.h"

#define HW_ID_LOCKED 0xBAD0CAFEu   /* crspace locked ("secure host"), §1.2 */
#define HW_ID_REFUSED 0xBADACCE5u  /* access refused, §1.2 */
#define CX2_REV 0xB0               /* ConnectX-2; 0xA0 is first-gen ConnectX, unsupported, §1.2 */
#define CR_LIVEFISH 0x41270        /* > LIVEFISH_MIN in recovery mode, §1.3 */
#define LIVEFISH_MIN 0xFFF00000u
#define CR_LINK_RESET 0xF3834      /* bits 28:27 = 2: no auto reset on link down, §1.3 */
#define LINK_RESET_SHIFT 27
#define LINK_RESET_MASK (3u << LINK_RESET_SHIFT)
#define LINK_RESET_OFF (2u << LINK_RESET_SHIFT)
#define SEM_GPIO_TRIES 1024        /* GPIO_SEM_TRIES, 1 ms apart, §3.5 */
#define SEM_FLASHPROG_TRIES 40     /* MAX_FLASH_PROG_SEM_RETRY_CNT, 500 ms apart, §3.5 */
#define SEM_FLASHPROG_SLEEP_US 500000
#define SEM_GPIO_SLEEP_US 1000
#define GW_CACHE_REP_EN 0xF0420    /* GEN5: bit 0 = cache replacement on, HCR_CACHE_REPLACEMNT_EN_ADDR, §3.13 */
#define GW_CACHE_REP_ON 0x1u       /* mflash.c disable_cache_replacement / restore_cache_replacemnt */
#define CR_FW_VERSION 0x1F064      /* running FW version: MAJOR 31:16, then MINOR 31:16 | SUBMINOR, §1.2 */
/* On ConnectX-2/3/3 Pro the boot address (BOOT_CX3) is start << 8, a plain dword
 * write (§4.4, mf_update_boot_addr): what
 * mstflint 4.9.0-1 and later write (4.21's mflash/mflash.c: boot_addr << 8 for
 * CX2/CX3/CX3 Pro). mstflint 3.8 and 4.x up to 4.8.0-2 wrote (start << 8) | 0x06:
 * bits 2:1 set, 0x08000006 for the slot at 0x80000 (src/mflash/mflash.c:2648;
 * hw-access.md §9.2 D2). What bits 2:1 mean is UNCONFIRMED (§6 item 7); both were
 * shipped for years for these cards, and a cold boot scans the flash anyway. */

#define SIGNED_ONLY "its firmware is signed and the chip enforces it (life cycle, secure boot: mstflint " \
	"4.21 mlxfwops/lib/signature_manager.h), so cxflash only reads its files"

#define BOOT_CX3 0xF0000           /* boot address, start << 8: hw-access.md §4.4; mflash.c mf_update_boot_addr */
#define BOOT_CX5 0xF00C0           /* ConnectX-5: start << 0, mflash.c mf_update_boot_addr (4.21) */
#define BOOT_CX6 0xF0080           /* ConnectX-6/6 Dx/6 Lx: start << 0, ditto (never written: read-only) */
#define WARM_RESET_GEN5 0xF0204    /* bit 1: flash reset on warm reboot, mf_set_reset_flash_on_warm_reboot */
#define WARM_RESET_GEN5_BIT 1
#define LOG2_3BYTE 24              /* 3-byte addresses: mstflint 4.21 uses no other on CX3..CX5, §3.13 */

#define GEN4_FS2 CHIP_GW_GEN4, CHIP_FW_FS2, BOOT_CX3, 8, 0, 0, LOG2_3BYTE
#define ICMD_READY_CX4 0xB0004     /* STAT_CFG_NOT_DONE_ADDR_CX4, bit 31: mtcr_ul_icmd_cif.c@4.21 */
#define ICMD_READY_CX5 0xB5E04     /* STAT_CFG_NOT_DONE_ADDR_CX5, bit 31 (CX6: 0xb5f04, never opened) */
#define ICMD_READY_BIT 31
#define ICMD_SEM_ADDR 0x0          /* SEMAPHORE space: ICMD's own (VCR_SEMAPHORE62), mtcr_ul_icmd_cif.c@4.21 */
#define FW_FLASH_SEM 0x10          /* SEMAPHORE space: TRM_RES_FLASH_PROGRAMING, tools_res_mgmt.c@4.21 */
#define FW_FLASH_SEM_TRIES 40      /* MAX_FLASH_PROG_SEM_RETRY_CNT, mflash_access_layer.c@4.21 */
#define FW_FLASH_SEM_SLEEP_US 3000 /* mstflint sleeps 1..5 ms at random; a fixed mean keeps --replay exact */

#define GEN5(fmt, boot, shift, ready) CHIP_GW_GEN5, fmt, boot, shift, WARM_RESET_GEN5, WARM_RESET_GEN5_BIT, \
	LOG2_3BYTE, ready

/* One row per family, in enum order (chip_by_family indexes it). HW IDs: hw-access.md §1.2
 * up to ConnectX-3 Pro; from ConnectX-4 on, mstflint 4.21 dev_mgt/tools_dev_types.c, whose
 * recovery ID is the HW ID itself (mtcr_ul/mtcr_ul_com.c live_fish_id_database, Debian's
 * pci.ids "Flash Recovery" entries 0209..0216). Formats: mstflint 4.21
 * fw_ops.cpp GetFwFormatFromHwDevID (fs3-format.md §1). */
static const struct chip_desc chips[CXF_COUNT] = {
	[CXF_CX2] = {CXF_CX2, "ConnectX-2", "cx2", 0x190, 0x191, false, 6, CHIP_CARDS, NULL, GEN4_FS2},
	[CXF_CX3] = {CXF_CX3, "ConnectX-3", "cx3", 0x1F5, 0x1F6, true, 10, CHIP_CARDS, NULL, GEN4_FS2},
	[CXF_CX3PRO] = {CXF_CX3PRO, "ConnectX-3 Pro", "cx3pro", 0x1F7, 0x1F8, true, 10, CHIP_CARDS, NULL, GEN4_FS2},
	[CXF_CX4] = {CXF_CX4, "ConnectX-4", "cx4", 0x209, 0x209, false, 0, CHIP_CARDS, NULL,
		     GEN5(CHIP_FW_FS3, BOOT_CX3, 8, ICMD_READY_CX4)},
	[CXF_CX4LX] = {CXF_CX4LX, "ConnectX-4 Lx", "cx4lx", 0x20B, 0x20B, false, 0, CHIP_CARDS, NULL,
		       GEN5(CHIP_FW_FS3, BOOT_CX3, 8, ICMD_READY_CX4)},
	[CXF_CX5] = {CXF_CX5, "ConnectX-5", "cx5", 0x20D, 0x20D, false, 0, CHIP_CARDS, NULL,
		     GEN5(CHIP_FW_FS4, BOOT_CX5, 0, ICMD_READY_CX5)},
	[CXF_CX6] = {CXF_CX6, "ConnectX-6", "cx6", 0x20F, 0x20F, false, 0, CHIP_READ_ONLY, SIGNED_ONLY,
		     GEN5(CHIP_FW_FS4, BOOT_CX6, 0, 0)},
	[CXF_CX6DX] = {CXF_CX6DX, "ConnectX-6 Dx", "cx6dx", 0x212, 0x212, false, 0, CHIP_READ_ONLY, SIGNED_ONLY,
		       GEN5(CHIP_FW_FS4, BOOT_CX6, 0, 0)},
	[CXF_CX6LX] = {CXF_CX6LX, "ConnectX-6 Lx", "cx6lx", 0x216, 0x216, false, 0, CHIP_READ_ONLY, SIGNED_ONLY,
		       GEN5(CHIP_FW_FS4, BOOT_CX6, 0, 0)},
};

const struct chip_desc *chip_by_family(enum cx_family f)
{
	return (unsigned)f < CXF_COUNT ? &chips[f] : NULL;
}

const struct chip_desc *chip_by_hw_id(uint16_t hw_id)
{
	for (unsigned i = 0; i < CXF_COUNT; i++)
		if (chips[i].hw_id == hw_id)
			return &chips[i];
	return NULL;
}

/* The row whose name (or, with by_slug, slug) is s. */
static const struct chip_desc *by_word(const char *s, bool by_slug)
{
	for (unsigned i = 0; s && i < CXF_COUNT; i++)
		if (!strcmp(by_slug ? chips[i].slug : chips[i].name, s))
			return &chips[i];
	return NULL;
}

const struct chip_desc *chip_by_name(const char *name)
{
	return by_word(name, false);
}

const struct chip_desc *chip_by_slug(const char *slug)
{
	return by_word(slug, true);
}

const char *chip_label(const struct chip *c, char *buf, unsigned len)
{
	if (c->desc->family == CXF_CX2)
		snprintf(buf, len, "%s %X%X", c->desc->name, c->rev >> 4, c->rev & 0xF);
	else
		snprintf(buf, len, "%s A%u", c->desc->name, c->rev);
	return buf;
}

/* mstflint's livefish workaround, hw-access.md §1.3: turn off "auto reset on link down" when
 * 0x41270 says the firmware is not up, on every open and whatever the PCI ID, as
 * mstflint does: 3.8 in src/mflash/mflash.c:1793-1800 (hw-access.md §9.2 D5), 4.21/4.25 in
 * mflash/mflash.c cntx_flash_init_direct_access, the path every CX2/CX3/CX3 Pro
 * flash open takes. A card whose firmware died but that still enumerates with its
 * normal ID gets it too. */
static int livefish_fixup(struct chip *c, struct cx_status *st)
{
	uint32_t v;

	if (cr_read(&c->cr, CR_LIVEFISH, &v, st))
		return st->code;
	if (v <= LIVEFISH_MIN)
		return CX_OK;
	if (cr_read(&c->cr, CR_LINK_RESET, &v, st))
		return st->code;
	return cr_write(&c->cr, CR_LINK_RESET, (v & ~LINK_RESET_MASK) | LINK_RESET_OFF, st);
}

static bool direct_running;

void chip_allow_direct_running(bool yes)
{
	direct_running = yes;
}

/* A GEN5 chip whose firmware runs (§3.14): the firmware fetches code from the flash, so the
 * flash is asked of it (ICMD access registers), as mstflint 4.21 does when the cache-
 * replacement guard is set. --risk-fw-hang takes the
 * gateway instead, as mstflint's -ocr. */
static int open_running(struct chip *c, unsigned cr_flags, struct cx_status *st)
{
	const char *bdf = c->cr.cfg->bdf;
	uint32_t zero = 0;

	if (direct_running) {
		c->direct_running = true;
		return CX_OK;
	}
	if (!c->desc->icmd_ready_reg)
		return cx_fail(st, CX_EUNSUPPORTED, "%s is a %s whose firmware runs: cxflash does not speak to it; "
			       "nothing was written", bdf, c->desc->name);
	/* --clear-semaphore frees the ICMD semaphore too, which mstflint's cannot: its
	 * icmd_clear_semaphore opens ICMD first, and that takes the same semaphore (§3.14). */
	if (cr_flags & CR_CLEAR_SEM && c->cr.use_vsec)
		cr_space_access(&c->cr, CR_AS_SEMAPHORE, ICMD_SEM_ADDR, &zero, 1, true, &(struct cx_status){0});
	if (icmd_open(&c->icmd, &c->cr, c->desc->icmd_ready_reg, ICMD_READY_BIT, st)) {
		/* The firmware answered, but not yet or not now: its own words, and nothing more. */
		if (st->code != CX_EUNSUPPORTED)
			return st->code;
		*st = (struct cx_status){0};
		return cx_fail(st, CX_EUNSUPPORTED, "%s is a %s whose firmware runs and fetches code from the flash, "
			       "and cxflash cannot ask that firmware for it (no ICMD in its VSEC); nothing was "
			       "written. A direct write could hang the firmware: --risk-fw-hang asks for one "
			       "(then power-cycle)", bdf, c->desc->name);
	}
	c->fw_access = true;
	return CX_OK;
}

int chip_open(struct chip *c, struct cfg_dev *cfg, uint16_t pci_device, unsigned cr_flags, struct cx_status *st)
{
	uint32_t id;
	int rc;

	*c = (struct chip){.pci_device = pci_device};
	if ((rc = cr_open(&c->cr, cfg, cr_flags, st)) || (rc = cr_read(&c->cr, CR_HW_ID, &id, st)))
		return rc;
	if (id == HW_ID_LOCKED)
		return cx_fail(st, CX_EPERM, "%s: HW access is disabled on the card (crspace locked)",
			       cfg->bdf);
	if (id == 0xFFFFFFFFu || id == HW_ID_REFUSED)
		return cx_fail(st, CX_ENODEV, "%s: the card refuses register access (HW ID reads 0x%08x)",
			       cfg->bdf, id);
	c->desc = chip_by_hw_id(id & 0xFFFF);
	c->rev = (uint8_t)(id >> 16);
	if (!c->desc)
		return cx_fail(st, CX_EUNSUPPORTED, "%s: HW ID 0x%x is not a ConnectX cxflash knows (ConnectX-2 to ConnectX-6 Lx)",
			       cfg->bdf, id & 0xFFFF);
	/* Before livefish_fixup(): its register is ConnectX-3's, and nothing is written to a
	 * card cxflash does not work on. */
	c->recovery = pci_device == c->desc->recovery_id;
	if (c->desc->support != CHIP_CARDS)
		return cx_fail(st, CX_EUNSUPPORTED, "%s is a %s: %s; nothing was written", cfg->bdf,
			       c->desc->name, c->desc->limit);
	if (c->desc->family == CXF_CX2 && c->rev != CX2_REV)
		return cx_fail(st, CX_EUNSUPPORTED,
			       "%s: revision 0x%02x of HW ID 0x190 is a first-generation ConnectX, not supported",
			       cfg->bdf, c->rev);
	/* ConnectX-3's registers: a GEN5 chip has neither (mstflint 4.21 applies it on the
	 * cntx_flash_init path only, mflash.c). */
	if (c->desc->gw == CHIP_GW_GEN4)
		return livefish_fixup(c, st);
	return c->recovery ? CX_OK : open_running(c, cr_flags, st);
}

/* Read-to-lock: a read whose mask bits are 0 means we now hold it (§3.5; the 5th-gen
 * gateway's bit 31, §3.13). The refusal names it as pre, the address, post. */
static int take(struct chip *c, uint32_t addr, uint32_t mask, unsigned tries, unsigned sleep_us, bool *held,
		const char *pre, const char *post, struct cx_status *st)
{
	uint32_t v;

	for (unsigned i = 0; i < tries; i++) {
		if (cr_read(&c->cr, addr, &v, st))
			return st->code;
		if (!(v & mask)) {
			*held = true;
			return CX_OK;
		}
		cfg_sleep_us(c->cr.cfg, sleep_us);
	}
	return cx_fail(st, CX_EBUSY,
		       "%s: %s0x%05x%s is held by someone else (firmware or another tool); "
		       "if nothing else is using the card, retry with --clear-semaphore",
		       c->cr.cfg->bdf, pre, addr, post);
}

/* GEN5 (§3.13, mflash.c connectib_flash_lock): the gateway's lock, then the cache
 * replacement off for as long as it is held. Reading the command word takes the lock
 * when bit 31 reads 0 (is4_flash_lock: up to GPIO_SEM_TRIES reads, 1 ms apart). */
static int gw_lock(struct chip *c, struct cx_status *st)
{
	uint32_t v;
	int rc = take(c, CHIP_GW_CMD, CHIP_GW_LOCK, SEM_GPIO_TRIES, SEM_GPIO_SLEEP_US, &c->held_gw,
		      "the flash gateway's lock (bit 31 of ", ")", st);

	if (rc)
		return rc;
	if (cr_read(&c->cr, GW_CACHE_REP_EN, &v, st) || cr_write(&c->cr, GW_CACHE_REP_EN, v & ~GW_CACHE_REP_ON, st)) {
		chip_unlock(c);
		return st->code;
	}
	return CX_OK;
}

/* restore_cache_replacemnt, then the lock released by a zero command word (is4_flash_lock). */
static void gw_unlock(struct chip *c)
{
	struct cx_status ignore = {0};
	uint32_t v;

	if (!cr_read(&c->cr, GW_CACHE_REP_EN, &v, &ignore))
		cr_write(&c->cr, GW_CACHE_REP_EN, v | GW_CACHE_REP_ON, &ignore);
	cr_write(&c->cr, CHIP_GW_CMD, 0, &ignore);
}

/* The firmware-access flash semaphore (SEMAPHORE space 0x10), our ICMD ticket written and
 * read back, as mstflint's lock_icommand_gateway_semaphore around its flash work. */
static int fw_flash_lock(struct chip *c, struct cx_status *st)
{
	for (unsigned i = 0; i < FW_FLASH_SEM_TRIES; i++) {
		uint32_t v = c->icmd.ticket;

		if (cr_space_access(&c->cr, CR_AS_SEMAPHORE, FW_FLASH_SEM, &v, 1, true, st) ||
		    cr_space_access(&c->cr, CR_AS_SEMAPHORE, FW_FLASH_SEM, &v, 1, false, st))
			return st->code;
		if (v == c->icmd.ticket) {
			c->held_fw_flash = true;
			return CX_OK;
		}
		cfg_sleep_us(c->cr.cfg, FW_FLASH_SEM_SLEEP_US);
	}
	return cx_fail(st, CX_EBUSY, "%s: the firmware's flash-programming semaphore is held by another tool; "
		       "if nothing else is using the card, retry with --clear-semaphore", c->cr.cfg->bdf);
}

int chip_lock(struct chip *c, struct cx_status *st)
{
	int rc;

	if (c->fw_access)
		return c->held_fw_flash ? CX_OK : fw_flash_lock(c, st);

	if (c->desc->gw == CHIP_GW_GEN5)
		return c->held_gw ? CX_OK : gw_lock(c, st);

	if (c->desc->flashprog_sem && !c->held_flashprog &&
	    (rc = take(c, CHIP_SEM_FLASHPROG, ~0u, SEM_FLASHPROG_TRIES, SEM_FLASHPROG_SLEEP_US, &c->held_flashprog,
		       "flash semaphore ", "", st)))
		return rc;
	if (!c->held_gpio && (rc = take(c, CHIP_SEM_GPIO, ~0u, SEM_GPIO_TRIES, SEM_GPIO_SLEEP_US, &c->held_gpio,
					"flash semaphore ", "", st))) {
		chip_unlock(c);
		return rc;
	}
	return CX_OK;
}

void chip_unlock(struct chip *c)
{
	struct cx_status ignore = {0};

	if (c->held_gw)
		gw_unlock(c);
	if (c->held_fw_flash) {
		uint32_t zero = 0;

		cr_space_access(&c->cr, CR_AS_SEMAPHORE, FW_FLASH_SEM, &zero, 1, true, &ignore);
	}
	if (c->held_gpio)
		cr_write(&c->cr, CHIP_SEM_GPIO, 0, &ignore);
	if (c->held_flashprog)
		cr_write(&c->cr, CHIP_SEM_FLASHPROG, 0, &ignore);
	c->held_gpio = c->held_flashprog = c->held_gw = c->held_fw_flash = false;
}

int chip_mgir(struct chip *c, const struct mgir **m, struct cx_status *st)
{
	if (!c->fw_access)
		return cx_fail(st, CX_EUNSUPPORTED, "%s: MGIR is the running firmware's: none is asked here",
			       c->cr.cfg->bdf);
	if (!c->have_mgir && fw_mgir(&c->icmd, &c->mgir, st))
		return st->code;
	c->have_mgir = true;
	*m = &c->mgir;
	return CX_OK;
}

int chip_running_fw(struct chip *c, uint16_t ver[3], struct cx_status *st)
{
	uint32_t w0, w1;

	if (c->fw_access) {
		const struct mgir *m;

		if (chip_mgir(c, &m, st))
			return st->code;
		memcpy(ver, m->ver, sizeof(m->ver));
		return CX_OK;
	}
	if (cr_read(&c->cr, CR_FW_VERSION, &w0, st) || cr_read(&c->cr, CR_FW_VERSION + 4, &w1, st))
		return st->code;
	ver[0] = (uint16_t)(w0 >> 16);
	ver[1] = (uint16_t)(w1 >> 16);
	ver[2] = (uint16_t)w1;
	return CX_OK;
}

int chip_set_boot_addr(struct chip *c, uint32_t start, struct cx_status *st)
{
	const struct chip_desc *d = c->desc;
	uint32_t v;

	/* Through the firmware mstflint asks it to activate the image (ISFU) or gives up with
	 * "power cycle the device" (fs3_ops.cpp bootAddrUpdate); cxflash always ends with the
	 * cold restart, where the boot ROM finds the new image by its magic (§3.14). */
	if (c->fw_access)
		return CX_OK;
	if (cr_write(&c->cr, d->boot_addr_reg, start << d->boot_addr_shift, st))
		return st->code;
	if (!d->warm_reset_reg)
		return CX_OK;
	if (cr_read(&c->cr, d->warm_reset_reg, &v, st))
		return st->code;
	return cr_write(&c->cr, d->warm_reset_reg, v | 1u << d->warm_reset_bit, st);
}

int chip_clear_semaphores(struct chip *c, struct cx_status *st)
{
	if (c->fw_access) {
		uint32_t zero = 0;

		if (cr_space_access(&c->cr, CR_AS_SEMAPHORE, FW_FLASH_SEM, &zero, 1, true, st))
			return st->code;
		c->held_fw_flash = false;
		return CX_OK;
	}
	if (c->desc->gw == CHIP_GW_GEN5) {
		if (cr_write(&c->cr, CHIP_GW_CMD, 0, st))
			return st->code;
		c->held_gw = false;
		return CX_OK;
	}
	if (cr_write(&c->cr, CHIP_SEM_GPIO, 0, st))
		return st->code;
	if (c->desc->flashprog_sem && cr_write(&c->cr, CHIP_SEM_FLASHPROG, 0, st))
		return st->code;
	c->held_gpio = c->held_flashprog = false;
	return CX_OK;
}

void chip_close(struct chip *c)
{
	if (c->desc)
		chip_unlock(c);
	cr_close(&c->cr);
}
