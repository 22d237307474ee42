/* SPDX-License-Identifier: GPL-2.0-or-later */
/* crspace.c — the chip's register space as the window sees it (hw-access.md §1–§4).
 *
 * Modelled: the HW ID, the read-to-lock semaphores, the ordering flush, the
 * flash gateway (gateway.c), the boot-address register, the livefish
 * registers, the running FW version, and on CX3/Pro the settings interface's
 * tools HCR and CR mailbox (tools_hcr.c). Any other address is logged, counted
 * and reads 0 — never all-ones, which at 0x41270 would mean recovery mode.
 *
 * 5th generation (CX4, 4 Lx, 5; hw-access.md §3.13): the boot-address register sits where
 * the chip table says (CX5: 0xf00c0, the address in bits 31:0), the tools' HW
 * semaphore (0xe250c or 0xe74e0) is read-to-lock like the others, and 0xf0204 is a
 * plain register (mstflint sets bit 1, power_boot_partial_reset, after it moves the
 * boot address). The gateway reaches up to 0xf0420 (gateway.c). With firmware running,
 * 0xb0004 (CX4, 4 Lx) or 0xb5e04 (CX5) says whether ICMD is up (icmd.c).
 */
#include "card.h"

#define CR_SW_RESET 0xF0010       /* SW reset, §4.5 */
#define CR_HW_ID 0xF0014          /* HW ID (15:0) and revision (23:16), §1.2 */
#define CR_FLUSH 0xF0380          /* ordering-flush semaphore, §2.2.1 */
#define CR_FLUSH_SLOTS_END 0xF0390 /* mst driver's per-open flush slots, §2.2.1 */
#define CR_SEM_FLASHPROG 0xF03A0  /* HCR flash-programming semaphore, CX3/Pro only, §3.5 */
#define CR_SEM_TRM 0xF03BC        /* tools main semaphore, §3.5; the tools HCR's "sem47", §8 */
#define CR_SEM_GPIO 0xF03FC       /* SEMAP63, the flash-gateway semaphore, §3.5 */
#define CR_GW_FIRST 0xF0400       /* flash gateway, §3.1 */
#define CR_GW_LAST 0xF041C
#define CR_GW5_LAST 0xF0420       /* 5th gen: + cache-replacement enable, mflash_pack_layer.h */
#define CR_F0204 0xF0204          /* 5th gen: bit 1 power_boot_partial_reset, mflash.c
				   * mf_set_reset_flash_on_warm_reboot (CX4, 4 Lx, 5) */
#define CR_LIVEFISH 0x41270       /* > 0xfff00000 in recovery mode, §1.3 */
#define CR_LINK_RESET 0xF3834     /* bits 28:27 = 2 disables auto reset on link down, §1.3 */
#define CR_FW_VERSION 0x1F064     /* running FW version block, 4 dwords, fs2-format.md §1.4 CNF */
#define CR_FW_VERSION_END 0x1F074
#define LIVEFISH_VALUE 0xFFFFFFFFu /* UNCONFIRMED exact value; anything > 0xfff00000 */

void sim_cr_reset(struct cxsim_card *c)
{
	c->sem_gpio = (struct semaphore){c->p.sem_held_gpio, c->p.sem_held_gpio};
	c->sem_flashprog = (struct semaphore){c->p.sem_held_flashprog, c->p.sem_held_flashprog};
	c->sem_trm = (struct semaphore){0, false};
	c->sem_hw = (struct semaphore){0, false};
	c->reg_f3834 = 0;
	c->reg_f0204 = 0;
}

/* Read-to-lock: a read returns the old value; reading a free semaphore takes it. */
static uint32_t sem_read(struct semaphore *s)
{
	uint32_t old = s->value;

	if (!old)
		s->value = 1;
	return old;
}

static void sem_write(struct semaphore *s, uint32_t v)
{
	s->value = v ? 1 : 0;
	if (!v)
		s->other_agent = false;
}

/* The running FW version: MAJOR in 31:16 of the first dword, MINOR and SUBMINOR
 * in the second (cibfw_FW_VERSION as mstflint's getRunningFwVer reads it). */
static uint32_t fw_version_reg(const struct cxsim_card *c, uint32_t addr)
{
	const struct cxsim_boot *b = &c->boot;

	if (!cxsim_fw_running(c))
		return 0;
	switch (addr - CR_FW_VERSION) {
	case 0: return (uint32_t)b->fw_ver[0] << 16;
	case 4: return (uint32_t)b->fw_ver[1] << 16 | b->fw_ver[2];
	default: return 0;
	}
}

static uint32_t unmodelled(struct cxsim_card *c, uint32_t addr, const char *what)
{
	c->cnt.unmodelled++;
	sim_card_log(c, "crspace %s of unmodelled address 0x%05x", what, addr);
	return 0;
}

static bool in_gateway(const struct cxsim_card *c, uint32_t addr)
{
	return addr >= CR_GW_FIRST && addr <= (c->chip->gen5_gw ? CR_GW5_LAST : CR_GW_LAST);
}

/* The registers whose place depends on the chip; true if addr is one. */
static bool chip_reg_read(struct cxsim_card *c, uint32_t addr, uint32_t *v)
{
	const struct sim_chip_info *k = c->chip;

	if (addr == k->boot_addr_reg)
		*v = c->boot_addr;
	else if (k->hw_sem && addr == k->hw_sem) {
		*v = sem_read(&c->sem_hw);
		if (!*v)
			c->cnt.hw_sem_takes++;
	} else if (k->gen5_gw && addr == CR_F0204)
		*v = c->reg_f0204;
	else
		return false;
	return true;
}

static bool chip_reg_write(struct cxsim_card *c, uint32_t addr, uint32_t val)
{
	const struct sim_chip_info *k = c->chip;

	if (addr == k->boot_addr_reg)
		c->boot_addr = val;
	else if (k->hw_sem && addr == k->hw_sem)
		sem_write(&c->sem_hw, val);
	else if (k->gen5_gw && addr == CR_F0204)
		c->reg_f0204 = val;
	else
		return false;
	return true;
}

uint32_t sim_cr_read(struct cxsim_card *c, uint32_t addr)
{
	uint32_t v;

	c->cnt.cr_reads++;
	if (in_gateway(c, addr))
		return sim_gw_read(c, addr);
	if (chip_reg_read(c, addr, &v))
		return v;
	if (sim_tools_read(c, addr, &v) || sim_icmd_cr_read(c, addr, &v))
		return v;
	switch (addr) {
	case CR_HW_ID:
		return (uint32_t)c->p.hw_rev << 16 | (c->p.hw_id ? c->p.hw_id : c->chip->hw_id);
	case CR_SEM_GPIO:
		return sem_read(&c->sem_gpio);
	case CR_SEM_FLASHPROG:
		if (!c->chip->has_flashprog_sem)
			break;
		return sem_read(&c->sem_flashprog);
	case CR_SEM_TRM:
		if (c->p.hcr_fault == CXSIM_HCR_SEM_HELD)
			return 1; /* the fault: another agent has it and never lets go */
		return sem_read(&c->sem_trm);
	case CR_LIVEFISH:
		return cxsim_fw_running(c) ? 0 : LIVEFISH_VALUE;
	case CR_LINK_RESET:
		return c->reg_f3834;
	}
	if (addr >= CR_FLUSH && addr < CR_FLUSH_SLOTS_END)
		return 0; /* the flush completes at once: writes have landed */
	if (addr >= CR_FW_VERSION && addr < CR_FW_VERSION_END)
		return fw_version_reg(c, addr);
	return unmodelled(c, addr, "read");
}

void sim_cr_write(struct cxsim_card *c, uint32_t addr, uint32_t val)
{
	c->cnt.cr_writes++;
	if (in_gateway(c, addr)) {
		sim_gw_write(c, addr, val);
		return;
	}
	if (chip_reg_write(c, addr, val))
		return;
	if (sim_tools_write(c, addr, val))
		return;
	switch (addr) {
	case CR_HW_ID:
		return; /* read-only */
	case CR_SEM_GPIO:
		sem_write(&c->sem_gpio, val);
		return;
	case CR_SEM_FLASHPROG:
		if (!c->chip->has_flashprog_sem)
			break;
		sem_write(&c->sem_flashprog, val);
		return;
	case CR_SEM_TRM:
		if (c->p.hcr_fault == CXSIM_HCR_SEM_HELD)
			return; /* the fault: writing 0 does not free it */
		sem_write(&c->sem_trm, val);
		return;
	case CR_LINK_RESET:
		c->reg_f3834 = val;
		return;
	case CR_SW_RESET:
		sim_card_log(c, "SW reset requested (0x%x): not modelled, power-cycle the card", val);
		return;
	}
	if (addr >= CR_FLUSH && addr < CR_FLUSH_SLOTS_END)
		return;
	unmodelled(c, addr, "write");
}

bool sim_gpio_sem_held(const struct cxsim_card *c)
{
	return c->sem_gpio.value && !c->sem_gpio.other_agent;
}

bool sim_tools_sem_held(const struct cxsim_card *c)
{
	return c->sem_trm.value && !c->sem_trm.other_agent;
}
