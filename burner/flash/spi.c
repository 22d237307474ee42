/* SPDX-License-Identifier: GPL-2.0-or-later */
/* spi.c — SPI NOR commands and WIP polling over the gateway (hw-access.md §3.3, §3.7). */
#include "flash/spi.h"

#define WRSR_WIP_RETRY_US 300u     /* ours: mstflint only sleeps after WRSR (§3.7); we also */
#define WRSR_WIP_RETRIES 10000u    /* check WIP, with the sector-erase budget of §3.7 */
#define RES_SIG_BYTE 3u            /* RES: 3 dummy bytes, then the signature (M25P datasheet) */

uint32_t fl_spi_at(struct flash *f, uint32_t addr)
{
	f->gw.bank = f->log2size ? addr >> f->log2size : 0;
	return f->log2size ? addr & ((1u << f->log2size) - 1) : addr;
}

int fl_spi_rdsr(struct flash *f, uint8_t *sr, struct cx_status *st)
{
	uint8_t b[FL_REG_WINDOW];
	int rc = fl_gw_get(&f->gw, FL_GW_OP(FL_OP_RDSR), 0, b, sizeof(b), st);

	*sr = b[0];
	return rc;
}

int fl_spi_rdid(struct flash *f, uint8_t id[3], struct cx_status *st)
{
	uint8_t b[FL_REG_WINDOW];
	int rc = fl_gw_get(&f->gw, FL_GW_OP(FL_OP_RDID), 0, b, sizeof(b), st);

	for (unsigned i = 0; i < 3; i++)
		id[i] = b[i];
	return rc;
}

int fl_spi_res(struct flash *f, uint8_t *es, struct cx_status *st)
{
	uint8_t b[FL_REG_WINDOW];
	int rc = fl_gw_get(&f->gw, FL_GW_OP(FL_OP_RES), 0, b, sizeof(b), st);

	*es = b[RES_SIG_BYTE];
	return rc;
}

int fl_spi_wren(struct flash *f, struct cx_status *st)
{
	return fl_gw_set(&f->gw, FL_GW_OP(FL_OP_WREN), 0, NULL, 0, st);
}

int fl_spi_wrsr(struct flash *f, uint8_t val, struct cx_status *st)
{
	int rc;

	if ((rc = fl_spi_wren(f, st)) || (rc = fl_gw_set(&f->gw, FL_GW_OP(FL_OP_WRSR), 0, &val, 1, st)))
		return rc;
	return fl_spi_wait_wip(f, FL_WRSR_SLEEP_US, WRSR_WIP_RETRY_US, WRSR_WIP_RETRIES,
			       "status register write", 0, st);
}

int fl_spi_wait_wip(struct flash *f, unsigned init_us, unsigned retry_us, unsigned retries,
		    const char *what, uint32_t addr, struct cx_status *st)
{
	struct cfg_dev *cfg = f->gw.cr->cfg;
	uint8_t sr = 0;
	int rc;

	if (init_us)
		cfg_sleep_us(cfg, init_us);
	for (unsigned i = 0; i < retries; i++) {
		f->stats.wip_polls++;
		if ((rc = fl_spi_rdsr(f, &sr, st)))
			return rc;
		if (!(sr & FL_SR_WIP))
			return CX_OK;
		if (retry_us)
			cfg_sleep_us(cfg, retry_us);
	}
	return cx_fail(st, CX_EFLASH,
		       "%s: flash %s at 0x%06x did not finish: status register still 0x%02x (busy) "
		       "after %u polls over about %llu ms",
		       cfg->bdf, what, addr, sr, retries,
		       (unsigned long long)(init_us + (uint64_t)retries * retry_us) / 1000);
}
