/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pcicfg.c — the card's PCI configuration space and the 0x58/0x5c crspace window.
 *
 * A type-0 header with one 1 MiB 64-bit memory BAR (hw-access.md §2.2), the
 * capability list PM → PCIe → MSI-X and no vendor-specific capability (so a
 * tool probing for the VSEC gateway of §2.4 falls back to the window), and
 * the address/data window of §2.3 at 0x58/0x5c, in its normal form or with
 * the write-only address register (reads of 0x58 give 0xbadacce5).
 */
#include <string.h>

#include "card.h"

#define CFG_VENDOR 0x00
#define CFG_DEVICE 0x02
#define CFG_COMMAND 0x04
#define CFG_STATUS 0x06
#define CFG_REVISION 0x08
#define CFG_CLASS 0x09
#define CFG_HEADER_TYPE 0x0E
#define CFG_BAR0 0x10
#define CFG_BAR0_HI 0x14
#define CFG_SUBSYS_VENDOR 0x2C
#define CFG_SUBSYS_DEVICE 0x2E
#define CFG_CAP_PTR 0x34
#define CFG_INT_PIN 0x3D
#define CAP_PM 0x40           /* power management, 8 bytes */
#define CAP_PCIE 0x60         /* PCI Express v2, 0x3c bytes */
#define CAP_MSIX 0x9C         /* MSI-X, 12 bytes */
#define WIN_ADDR 0x58         /* crspace address, hw-access.md §2.3 */
#define WIN_DATA 0x5C         /* crspace data, §2.3 */
#define WIN_WO_READBACK 0xBADACCE5u /* write-only address register read-back, §2.3 */
#define WIN_WO_READ_FLAG 0x1  /* WO variant: address bit 0 asks for a read, §2.3 */

#define STATUS_CAP_LIST 0x0010
#define COMMAND_WRITABLE 0x0547 /* I/O, memory, master, parity, SERR, INTx disable */
#define BAR0_FLAGS 0xC          /* 64-bit, prefetchable memory */
#define BAR0_DEFAULT 0xFB000000u
#define PCI_VENDOR_MELLANOX 0x15B3

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

void sim_pcicfg_reset(struct cxsim_card *c)
{
	uint8_t *h = c->cfg;
	uint32_t cls = cxsim_class_now(c);

	memset(h, 0, CXSIM_CFG_SIZE);
	put16(h + CFG_VENDOR, PCI_VENDOR_MELLANOX);
	put16(h + CFG_DEVICE, cxsim_pci_device_now(c));
	put16(h + CFG_STATUS, STATUS_CAP_LIST);
	h[CFG_REVISION] = c->p.hw_rev;
	h[CFG_CLASS] = (uint8_t)cls;
	h[CFG_CLASS + 1] = (uint8_t)(cls >> 8);
	h[CFG_CLASS + 2] = (uint8_t)(cls >> 16);
	h[CFG_HEADER_TYPE] = 0;
	put16(h + CFG_SUBSYS_VENDOR, c->p.subsys_vendor);
	put16(h + CFG_SUBSYS_DEVICE, c->p.subsys_device);
	h[CFG_CAP_PTR] = CAP_PM;
	h[CFG_INT_PIN] = 1;
	/* Capabilities: id, next. */
	h[CAP_PM] = 0x01;
	h[CAP_PM + 1] = CAP_PCIE;
	put16(h + CAP_PM + 2, 0x0003);
	h[CAP_PCIE] = 0x10;
	h[CAP_PCIE + 1] = CAP_MSIX;
	put16(h + CAP_PCIE + 2, 0x0002);
	h[CAP_MSIX] = 0x11;
	h[CAP_MSIX + 1] = 0;
	c->bar0_lo = BAR0_DEFAULT;
	c->bar0_hi = 0;
	c->win_addr = 0;
	c->win_data = 0;
}

static uint32_t window_read(struct cxsim_card *c, unsigned reg)
{
	if (reg == WIN_ADDR)
		return c->p.wo_addr_window ? WIN_WO_READBACK : c->win_addr;
	return sim_cr_read(c, c->win_addr & ~(uint32_t)WIN_WO_READ_FLAG);
}

static void window_write(struct cxsim_card *c, unsigned reg, uint32_t val)
{
	if (!c->p.wo_addr_window) {
		if (reg == WIN_ADDR)
			c->win_addr = val;
		else
			sim_cr_write(c, c->win_addr, val);
		return;
	}
	/* Write-only address: data first, then the address write runs the
	 * access; bit 0 of the address turns it into a read set-up, §2.3. */
	if (reg == WIN_DATA) {
		c->win_data = val;
		return;
	}
	c->win_addr = val;
	if (!(val & WIN_WO_READ_FLAG))
		sim_cr_write(c, val, c->win_data);
}

static uint32_t dword_read(struct cxsim_card *c, unsigned off)
{
	if (off == WIN_ADDR || off == WIN_DATA)
		return window_read(c, off);
	if (off == CFG_BAR0)
		return c->bar0_lo | BAR0_FLAGS;
	if (off == CFG_BAR0_HI)
		return c->bar0_hi;
	return (uint32_t)c->cfg[off] | (uint32_t)c->cfg[off + 1] << 8 |
	       (uint32_t)c->cfg[off + 2] << 16 | (uint32_t)c->cfg[off + 3] << 24;
}

uint32_t sim_pcicfg_read(struct cxsim_card *c, unsigned off, unsigned len)
{
	if ((len != 1 && len != 2 && len != 4) || off % len || off + len > CXSIM_CFG_SIZE) {
		sim_card_log(c, "config read of %u bytes at 0x%x: not a valid access", len, off);
		return 0xFFFFFFFFu;
	}
	uint32_t dw = dword_read(c, off & ~3u);
	unsigned shift = 8 * (off & 3);
	return len == 4 ? dw : (dw >> shift) & ((1u << (8 * len)) - 1);
}

void sim_pcicfg_write(struct cxsim_card *c, unsigned off, uint32_t val, unsigned len)
{
	if ((len != 1 && len != 2 && len != 4) || off % len || off + len > CXSIM_CFG_SIZE) {
		sim_card_log(c, "config write of %u bytes at 0x%x: not a valid access", len, off);
		return;
	}
	unsigned base = off & ~3u;
	if (base == WIN_ADDR || base == WIN_DATA) {
		/* The window takes whole dwords; a partial write merges with the
		 * register's current value, as a byte-enable write would. */
		uint32_t cur = base == WIN_ADDR ? c->win_addr : (c->p.wo_addr_window ? c->win_data : 0);
		if (len != 4) {
			unsigned shift = 8 * (off & 3);
			uint32_t mask = ((1u << (8 * len)) - 1) << shift;
			val = (cur & ~mask) | ((val << shift) & mask);
		}
		window_write(c, base, val);
		return;
	}
	if (base == CFG_BAR0 && len == 4) {
		c->bar0_lo = val & ~(CXSIM_BAR0_SIZE - 1); /* sizing: writes of ~0 read back the size */
		return;
	}
	if (base == CFG_BAR0_HI && len == 4) {
		c->bar0_hi = val;
		return;
	}
	if (off == CFG_COMMAND && len >= 2) {
		put16(c->cfg + CFG_COMMAND, (uint16_t)(val & COMMAND_WRITABLE));
		return;
	}
	/* Everything else in the header is read-only here. */
}
