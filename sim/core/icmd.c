/* SPDX-License-Identifier: GPL-2.0-or-later */
/* icmd.c — the running firmware's ICMD interface on ConnectX-4, 4 Lx and 5, as mstflint
 * 4.21 reaches it through the VSEC (mtcr_ul/mtcr_ul_icmd_cif.c icmd_init_vcr,
 * icmd_send_command_com; hw-access.md §3.14).
 *
 * The VSEC's ICMD space (space 3) holds:
 *   0x000000  the control register: go/busy bit 0, exmb bit 1, status 15:8, opcode 31:16.
 *             Writing it with bit 0 set while idle starts the command in the mailbox; bit 0
 *             then reads 1 until the model clock passes the command's duration, and the
 *             status field is the command's. The other bits read back as written.
 *   0x001000  the mailbox size in bytes (0x340), read-only
 *   0x100000  the mailbox, 0x340 bytes: the command's input, and its answer once go clears
 * Anything else in the space is logged, counted as unmodelled and reads 0.
 * The semaphore mstflint takes around each command is the SEMAPHORE space's dword 0
 * (pcicfg.c sem_space); the model counts commands started without it (icmd_without_sem).
 * Before it uses the interface mstflint reads crspace 0xb0004 (CX4, 4 Lx) or 0xb5e04 (CX5)
 * bit 31, "static configuration not done": 0 when the firmware is up.
 *
 * The one opcode modelled is ACCESS_REGISTER 0x9001 (FLASH_REG_ACCESS, mtcr_icmd_cif.h),
 * answered by reg_access.c; any other ends with status 1 (invalid opcode).
 * Who answers: nobody in recovery mode (no firmware: go never clears — mstflint does not
 * try, icmd_open refuses a livefish device), nor with the `busy` fault; with `not-started`
 * 0xb0004/0xb5e04 bit 31 stays set and a command, if one is sent, ends with status 3.
 */
#include <string.h>

#include "card.h"

#define ICMD_CTRL 0x0              /* VCR_CTRL_ADDR, mtcr_ul_icmd_cif.c */
#define ICMD_SIZE_ADDR 0x1000      /* VCR_CMD_SIZE_ADDR: mailbox size, ibid. */
#define ICMD_MBOX 0x100000         /* VCR_CMD_ADDR: mailbox, ibid. */
#define ICMD_GO 0x1u               /* BUSY_BITOFF 0, ibid. */
#define ICMD_EXMB (1u << 1)        /* EXMB_BITOFF 1 (DMA mailbox; not modelled), ibid. */
#define ICMD_STATUS_SHIFT 8        /* STATUS_BITOFF 8, 8 bits, ibid. */
#define ICMD_STATUS_MASK (0xFFu << ICMD_STATUS_SHIFT)
#define ICMD_OPCODE(v) ((v) >> 16) /* OPCODE_BITOFF 16, 16 bits, ibid. */
#define OP_ACCESS_REGISTER 0x9001  /* FLASH_REG_ACCESS, mtcr_icmd_cif.h */

#define STAT_CFG_CX4 0xB0004       /* STAT_CFG_NOT_DONE_ADDR_CX4 (and 4 Lx), mtcr_ul_icmd_cif.c */
#define STAT_CFG_CX5 0xB5E04       /* STAT_CFG_NOT_DONE_ADDR_CX5, ibid. */
#define STAT_CFG_NOT_DONE (1u << 31) /* STAT_CFG_NOT_DONE_BITOFF_CX4/CX5 31, ibid. */

/* ICMD status values (translate_status, mtcr_ul_icmd_cif.c). */
enum { ICMD_OK = 0, ICMD_INVALID_OPCODE = 1, ICMD_OPERATIONAL_ERROR = 3 };

#define ICMD_BAD_OP_NS 5000        /* a refused command (UNCONFIRMED guess) */

bool sim_fw5_running(const struct cxsim_card *c)
{
	return c->chip->gen5_gw && cxsim_fw_running(c);
}

void sim_icmd_reset(struct cxsim_card *c)
{
	c->icmd = (struct icmd){0};
}

static uint32_t stat_cfg_addr(const struct cxsim_card *c)
{
	return c->chip->fs == 4 ? STAT_CFG_CX5 : STAT_CFG_CX4;
}

bool sim_icmd_cr_read(struct cxsim_card *c, uint32_t addr, uint32_t *val)
{
	if (!c->chip->gen5_gw || addr != stat_cfg_addr(c))
		return false;
	*val = sim_fw5_running(c) && c->p.icmd_fault != CXSIM_ICMD_NOT_STARTED ? 0 : STAT_CFG_NOT_DONE;
	return true;
}

/* Run the command in the mailbox now; its answer shows when go clears (settle). */
static void start(struct cxsim_card *c)
{
	struct icmd *m = &c->icmd;
	uint16_t op = (uint16_t)ICMD_OPCODE(m->ctrl);
	uint64_t ns = ICMD_BAD_OP_NS;

	m->busy = true;
	c->cnt.icmd_cmds++;
	if (c->vsec.sems[0] == 0)
		c->cnt.icmd_without_sem++;
	if (!sim_fw5_running(c) || c->p.icmd_fault == CXSIM_ICMD_BUSY) {
		m->done_at = UINT64_MAX; /* nobody will ever finish it */
		return;
	}
	memcpy(m->answer, m->mbox, sizeof(m->answer));
	if (c->p.icmd_fault == CXSIM_ICMD_NOT_STARTED) {
		m->status = ICMD_OPERATIONAL_ERROR;
	} else if (op == OP_ACCESS_REGISTER) {
		c->cnt.icmd_reg_access++;
		sim_reg_access5(c, m->answer, ICMD_MBOX_DWORDS, &ns);
		m->status = ICMD_OK;
	} else {
		sim_card_log(c, "ICMD: opcode 0x%04x not modelled", op);
		m->status = ICMD_INVALID_OPCODE;
	}
	m->done_at = c->now + ns;
}

static void settle(struct cxsim_card *c)
{
	struct icmd *m = &c->icmd;

	if (!m->busy || c->now < m->done_at)
		return;
	memcpy(m->mbox, m->answer, sizeof(m->mbox));
	m->ctrl = (m->ctrl & ~(ICMD_GO | ICMD_STATUS_MASK)) | (uint32_t)m->status << ICMD_STATUS_SHIFT;
	m->busy = false;
}

static uint32_t unmodelled(struct cxsim_card *c, uint32_t addr, const char *what)
{
	c->cnt.unmodelled++;
	sim_card_log(c, "ICMD space %s of unmodelled address 0x%06x", what, addr);
	return 0;
}

static bool in_mbox(uint32_t addr)
{
	return addr >= ICMD_MBOX && addr < ICMD_MBOX + ICMD_MBOX_BYTES && !(addr & 3);
}

uint32_t sim_icmd_space_read(struct cxsim_card *c, uint32_t addr)
{
	settle(c);
	if (addr == ICMD_CTRL)
		return c->icmd.ctrl | (c->icmd.busy ? ICMD_GO : 0);
	if (addr == ICMD_SIZE_ADDR)
		return ICMD_MBOX_BYTES;
	if (in_mbox(addr))
		return c->icmd.mbox[(addr - ICMD_MBOX) / 4];
	return unmodelled(c, addr, "read");
}

void sim_icmd_space_write(struct cxsim_card *c, uint32_t addr, uint32_t val)
{
	struct icmd *m = &c->icmd;

	settle(c);
	if (m->busy && (addr == ICMD_CTRL || in_mbox(addr))) {
		sim_card_log(c, "ICMD: write to 0x%06x while go is set, dropped", addr);
		return; /* the firmware owns the interface until it clears go */
	}
	if (addr == ICMD_CTRL) {
		m->ctrl = val & ~ICMD_GO;
		if (val & ICMD_GO)
			start(c);
		return;
	}
	if (in_mbox(addr)) {
		m->mbox[(addr - ICMD_MBOX) / 4] = val;
		return;
	}
	if (addr == ICMD_SIZE_ADDR)
		return; /* read-only */
	unmodelled(c, addr, "write");
}

static const char *const fault_names[CXSIM_ICMD_NFAULTS] = {
	[CXSIM_ICMD_OK] = "none",
	[CXSIM_ICMD_BUSY] = "busy",
	[CXSIM_ICMD_NOT_STARTED] = "not-started",
	[CXSIM_ICMD_SEM_HELD] = "sem-held",
	[CXSIM_ICMD_SECURE_FW] = "secure-fw",
};

const char *cxsim_icmd_fault_name(enum cxsim_icmd_fault f)
{
	return (unsigned)f < CXSIM_ICMD_NFAULTS ? fault_names[f] : "?";
}

int cxsim_icmd_fault_parse(const char *s, enum cxsim_icmd_fault *f)
{
	for (unsigned i = 0; i < CXSIM_ICMD_NFAULTS; i++)
		if (!strcmp(s, fault_names[i])) {
			*f = (enum cxsim_icmd_fault)i;
			return 0;
		}
	return -1;
}
