/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tools_hcr.c — the firmware's tools HCR and its mailboxes, as crspace shows them
 * (hw-access.md §8, mtcr_ul/mtcr_tools_cif.c@4.25).
 *
 * Seven dwords at 0x80780: in_param_h, in_param_l, input_modifier, out_param_h,
 * out_param_l, token (31:16), and opcode (11:0) | opcode_modifier (15:12) | e (22) |
 * go (23) | status (31:24). Writing dword 6 with go set starts a command: go reads 1
 * until the model's clock passes the opcode's duration, then the command runs (its
 * effects and answers appear at once, when go clears) and status is set. The token
 * and the other dwords read back as written: the firmware never changes them but for
 * the answers in out_param_h/out_param_l. Writes while go is set are dropped (the
 * firmware owns the registers then).
 *
 * The CR mailbox, 72 dwords at 0xe0000, is absent with params.no_cr_mbox and on a
 * card without running firmware (UNCONFIRMED: mtcr calls it "virtual cr-space", so
 * firmware-backed): its addresses are then unmodelled and read 0, so mstflint's probe
 * (write 0xbadb00f, read it back, tools_cmdif_is_cr_mbox_supported) fails and it
 * moves mailboxes 8 bytes at a time with MBOX_WRITE/MBOX_READ.
 *
 * Who answers: no firmware (recovery mode) or the go-stuck fault: nobody, go never
 * clears. not-started: status 4 for every command; old-fw, or a running image older
 * than 2.31.5000: status 2 for every command (the extended tools HCR is newer;
 * MCE_TOOLS_HCR_NOT_SUPP, mlxcfg_4th_gen_commander.cpp@4.25). Then the opcode table
 * (tools_cmds.c); an unknown opcode gets status 2.
 */
#include "card.h"

#define HCR_ADDR 0x80780           /* TOOLS_HCR_ADDR, mtcr_tools_cif.c@4.25 */
#define HCR_DWORDS 7               /* CMD_IF_SIZE 28 bytes, ibid. */
#define HCR_CTRL 6                 /* the dword with opcode, go and status */
#define CR_MBOX_ADDR 0xE0000       /* CR_MBOX_ADDR, mtcr_tools_cif.c@4.25 */
#define HCR_GO (1u << 23)          /* go bit, ibid. (tools_cmdif_wait_go) */
#define HCR_OPCODE_MASK 0xFFFu     /* opcode 11:0, ibid. (tools_cmdif_pack) */
#define HCR_STATUS_SHIFT 24        /* status 31:24, ibid. (tools_cmdif_unpack) */
#define HCR_STATUS_MASK (0xFFu << HCR_STATUS_SHIFT)
#define HCR_UNKNOWN_OP_NS 4000     /* how long a bad opcode takes to be refused (a guess) */

/* The first firmware with the tools HCR mlxconfig needs: "version 2.31.5000 or above
 * required for CX3/PRO" (mlxcfg_4th_gen_commander.cpp@4.25 MCE_TOOLS_HCR_NOT_SUPP). */
static const uint16_t min_fw[3] = {2, 31, 5000};

bool sim_tools_fw_new_enough(const struct cxsim_card *c)
{
	const uint16_t *v = c->boot.fw_ver;

	if (!cxsim_fw_running(c))
		return false;
	for (int i = 0; i < 3; i++)
		if (v[i] != min_fw[i])
			return v[i] > min_fw[i];
	return true;
}

void sim_tools_reset(struct cxsim_card *c)
{
	/* A power cycle loses the registers and both mailboxes; the store is kept (card.c). */
	c->hcr = (struct tools_hcr){0};
}

static bool cr_mbox_present(const struct cxsim_card *c)
{
	return !c->p.no_cr_mbox && cxsim_fw_running(c);
}

/* Who answers a command, if anyone, before the opcode is looked at: an HCR status,
 * or -1 when the command is left for the opcode table. */
static int fault_status(const struct cxsim_card *c)
{
	if (c->p.hcr_fault == CXSIM_HCR_NOT_STARTED)
		return HCR_BAD_SYS;
	if (c->p.hcr_fault == CXSIM_HCR_OLD_FW || !sim_tools_fw_new_enough(c))
		return HCR_BAD_OP;
	return -1;
}

static uint64_t exec_ns(const struct cxsim_card *c, uint16_t opcode)
{
	const struct tools_opcode *op = sim_tools_opcode(opcode);

	if (fault_status(c) >= 0 || !op)
		return HCR_UNKNOWN_OP_NS;
	return op->exec_ns ? op->exec_ns : sim_reg_access_ns(c->hcr.dw[2] & 1 ? c->hcr.cr_mbox
										: c->hcr.mbox);
}

/* The firmware takes the command: it completes at now + its duration. */
static void start(struct cxsim_card *c)
{
	struct tools_hcr *h = &c->hcr;

	if (!sim_tools_sem_held(c))
		c->cnt.tools_without_sem++;
	h->dw[HCR_CTRL] &= ~HCR_STATUS_MASK;
	h->busy = true;
	/* No firmware, or the go-stuck fault: nobody will ever finish it. */
	h->done_at = !cxsim_fw_running(c) || c->p.hcr_fault == CXSIM_HCR_GO_STUCK
		     ? UINT64_MAX : c->now + exec_ns(c, (uint16_t)(h->dw[HCR_CTRL] & HCR_OPCODE_MASK));
}

static void complete(struct cxsim_card *c)
{
	struct tools_hcr *h = &c->hcr;
	uint16_t opcode = (uint16_t)(h->dw[HCR_CTRL] & HCR_OPCODE_MASK);
	const struct tools_opcode *op = sim_tools_opcode(opcode);
	int status = fault_status(c);

	c->cnt.tools_cmds++;
	if (status < 0 && !op) {
		sim_card_log(c, "tools HCR: unknown opcode 0x%x", opcode);
		status = HCR_BAD_OP;
	}
	if (status < 0) {
		c->cnt.tools_by_opcode[op->counter]++;
		status = op->run(c, h->dw);
	}
	h->dw[HCR_CTRL] = (h->dw[HCR_CTRL] & ~(HCR_GO | HCR_STATUS_MASK)) |
			  (uint32_t)status << HCR_STATUS_SHIFT;
	h->busy = false;
}

/* Let a running command finish if its time has come (called at every access). */
static void settle(struct cxsim_card *c)
{
	if (c->hcr.busy && c->now >= c->hcr.done_at)
		complete(c);
}

static bool in_hcr(uint32_t addr)
{
	return addr >= HCR_ADDR && addr < HCR_ADDR + 4 * HCR_DWORDS && !(addr & 3);
}

static bool in_cr_mbox(uint32_t addr)
{
	return addr >= CR_MBOX_ADDR && addr < CR_MBOX_ADDR + TOOLS_MBOX_BYTES && !(addr & 3);
}

bool sim_tools_read(struct cxsim_card *c, uint32_t addr, uint32_t *val)
{
	if (!c->chip->has_tools)
		return false;
	if (in_hcr(addr)) {
		settle(c);
		*val = c->hcr.dw[(addr - HCR_ADDR) / 4];
		return true;
	}
	if (in_cr_mbox(addr) && cr_mbox_present(c)) {
		settle(c);
		*val = c->hcr.cr_mbox[(addr - CR_MBOX_ADDR) / 4];
		return true;
	}
	return false;
}

bool sim_tools_write(struct cxsim_card *c, uint32_t addr, uint32_t val)
{
	if (!c->chip->has_tools)
		return false;
	if (in_hcr(addr)) {
		unsigned i = (addr - HCR_ADDR) / 4;

		settle(c);
		if (c->hcr.busy) {
			sim_card_log(c, "tools HCR: write of dword %u while go is set, dropped", i);
			return true;
		}
		c->hcr.dw[i] = val;
		if (i == HCR_CTRL && (val & HCR_GO))
			start(c);
		return true;
	}
	if (in_cr_mbox(addr) && cr_mbox_present(c)) {
		settle(c);
		c->hcr.cr_mbox[(addr - CR_MBOX_ADDR) / 4] = val;
		return true;
	}
	return false;
}
