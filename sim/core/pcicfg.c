/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pcicfg.c — the card's PCI configuration space, the 0x58/0x5c crspace window
 * and the optional VSEC gateway.
 *
 * A type-0 header with one 1 MiB 64-bit memory BAR (hw-access.md §2.2), the
 * capability list PM → PCIe → MSI-X, and the address/data window of §2.3 at
 * 0x58/0x5c, in its normal form or with the write-only address register
 * (reads of 0x58 give 0xbadacce5).
 *
 * By default there is no vendor-specific capability, so a tool probing for the
 * VSEC gateway of §2.4 falls back to the window. With params.vsec_spaces set
 * (`cxsim create --vsec`), MSI-X links to one at 0xc0 (free space after
 * MSI-X), and the window keeps working beside it, as on real cards with a VSEC:
 *   +0x00 header: ID 9, next 0, length 0x18, VSC type 0 (functional) in 31:24
 *   +0x04 CTRL: space select 15:0; status 31:29 reads 1 when that space is
 *         in vsec_spaces, 0 otherwise
 *   +0x08 COUNTER: a ticket, one more on each read (never 0)
 *   +0x0c SEMAPHORE: 0 free; writing a ticket while free takes it, writing 0
 *         frees it (whoever holds it), other writes while held are ignored
 *   +0x10 ADDR: writing an address with bit 31 = 0 reads crspace into DATA
 *         and sets bit 31; with bit 31 = 1 it writes DATA there and clears
 *         bit 31. Both complete at once (the flag is right at the first poll).
 *   +0x14 DATA
 * CR_SPACE (2) reaches the crspace the window reaches; ICMD (3), on CX4 and later, the
 * firmware's ICMD interface (icmd.c, hw-access.md §3.14); SEMAPHORE (0xa) holds 16
 * semaphores at 0x0..0x3c (mstflint's flash-programming and ICMD ones, at 0x10 and 0x0,
 * tools_res_mgmt.c g_vsec_sem_addr: write-your-value-to-lock, sem_space() below). An
 * access in any other space (or place), supported or not, reads 0 and is logged and
 * counted as unmodelled. Each access (ADDR write) is counted, and so is one made while the
 * client does not hold the VSEC semaphore (counters vsec_accesses and
 * vsec_without_sem). params.sem_held_vsec: another agent holds the semaphore
 * from power-on until someone writes 0.
 */
#include <stdlib.h>
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
#define CAP_VSEC 0xC0         /* vendor-specific (VSEC gateway), 0x18 bytes, §2.4 */
#define CAP_ID_VSEC 0x09      /* vendor-specific capability ID, §2.4 */
#define VSEC_LEN 0x18         /* header byte 2: six dwords, §2.4 */
#define VSEC_TYPE_BYTE 3      /* header 31:24: VSC type, §2.4 */
#define VSC_FUNCTIONAL 0      /* VSC type of a gateway tools may use (2 = recovery), §2.4 */
#define VSEC_CTRL 0x04        /* space select 15:0, status 31:29, §2.4 */
#define VSEC_COUNTER 0x08     /* ticket counter, §2.4 */
#define VSEC_SEM 0x0C         /* semaphore, §2.4 */
#define VSEC_ADDR 0x10        /* crspace address 29:0, flag 31, §2.4 */
#define VSEC_DATA 0x14        /* data, §2.4 */
#define VSEC_SPACE_MASK 0xFFFF /* CTRL 15:0, §2.4 */
#define VSEC_STATUS_OK (1u << 29) /* CTRL 31:29 non-zero: space supported, §2.4 */
#define VSEC_FLAG (1u << 31)  /* ADDR 31: read done (1) / write pending (1), §2.4 */
#define VSEC_ADDR_MASK 0x3FFFFFFFu /* ADDR 29:0, §2.4 */
#define VSEC_OTHER_TICKET 0x5EC0u  /* what another agent's ticket looks like (any non-zero) */
#define ICMD_SEM 0                /* SEMAPHORE dword 0: ICMD (VCR_SEMAPHORE62, mtcr_ul_icmd_cif.c) */

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
	if (c->p.vsec_spaces) {
		h[CAP_MSIX + 1] = CAP_VSEC;
		h[CAP_VSEC] = CAP_ID_VSEC;
		h[CAP_VSEC + 2] = VSEC_LEN;
		h[CAP_VSEC + VSEC_TYPE_BYTE] = VSC_FUNCTIONAL;
	}
	c->vsec = (struct vsec){.counter = 1};   /* the SEMAPHORE space's semaphores too */
	if (c->p.icmd_fault == CXSIM_ICMD_SEM_HELD)
		c->vsec.sems[ICMD_SEM] = VSEC_OTHER_TICKET; /* another agent's ICMD command, for good */
	if (c->p.sem_held_vsec) {
		c->vsec.sem = VSEC_OTHER_TICKET;
		c->vsec.sem_other = true;
	}
	c->bar0_lo = BAR0_DEFAULT;
	c->bar0_hi = 0;
	c->win_addr = 0;
	c->win_data = 0;
}

uint32_t cxsim_vsec_header(const struct cxsim_card *c, unsigned *off)
{
	const uint8_t *h = c->cfg + CAP_VSEC;

	if (!c->p.vsec_spaces)
		return 0;
	*off = CAP_VSEC;
	return (uint32_t)h[0] | (uint32_t)h[1] << 8 | (uint32_t)h[2] << 16 | (uint32_t)h[3] << 24;
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

/* The VSEC register at off, if off is one (the header is plain config bytes). */
static bool is_vsec_reg(const struct cxsim_card *c, unsigned off)
{
	return c->p.vsec_spaces && off >= CAP_VSEC + VSEC_CTRL && off <= CAP_VSEC + VSEC_DATA;
}

static bool vsec_supports(const struct cxsim_card *c, unsigned space)
{
	return space < 32 && (c->p.vsec_spaces >> space & 1);
}

static uint32_t vsec_read(struct cxsim_card *c, unsigned reg)
{
	struct vsec *v = &c->vsec;
	uint32_t t;

	switch (reg) {
	case VSEC_CTRL:
		return v->space | (vsec_supports(c, v->space) ? VSEC_STATUS_OK : 0);
	case VSEC_COUNTER:
		t = v->counter++;
		if (!v->counter)
			v->counter = 1;   /* 0 would read as "free" in SEMAPHORE */
		return t;
	case VSEC_SEM:
		return v->sem;
	case VSEC_ADDR:
		return v->addr;
	default:
		return v->data;
	}
}

/* The SEMAPHORE space (tools_res_mgmt.c lock_icommand_gateway_semaphore: write your
 * value, read it back; yours if it reads back; write 0 to free): a write of a non-zero
 * value takes a free semaphore and is ignored on a held one; a write of 0 frees it. */
static bool sem_space(struct cxsim_card *c, uint32_t a, bool write)
{
	struct vsec *v = &c->vsec;
	uint32_t *s;

	if (a % 4 || a / 4 >= VSEC_NSEMS)
		return false;
	s = &v->sems[a / 4];
	if (!write)
		v->data = *s;
	else if (!v->data)
		*s = 0;
	else if (!*s) {
		*s = v->data;
		c->cnt.vsec_sem_takes++;
	}
	return true;
}

/* One access through ADDR: it completes before the next config cycle. */
static void vsec_access(struct cxsim_card *c, uint32_t val)
{
	struct vsec *v = &c->vsec;
	uint32_t a = val & VSEC_ADDR_MASK;
	bool write = val & VSEC_FLAG;
	bool ok = vsec_supports(c, v->space);

	c->cnt.vsec_accesses++;
	if (!v->sem || v->sem_other)
		c->cnt.vsec_without_sem++;
	if (v->space == CXSIM_AS_CR_SPACE && ok) {
		if (write)
			sim_cr_write(c, a, v->data);
		else
			v->data = sim_cr_read(c, a);
	} else if (v->space == CXSIM_AS_SEMAPHORE && ok && sem_space(c, a, write)) {
		/* done */
	} else if (v->space == CXSIM_AS_ICMD && ok && c->chip->gen5_gw) {
		if (write)
			sim_icmd_space_write(c, a, v->data);
		else
			v->data = sim_icmd_space_read(c, a);
	} else {
		c->cnt.unmodelled++;
		sim_card_log(c, "VSEC %s of address 0x%05x in %sspace 0x%x: not modelled",
			     write ? "write" : "read", a, vsec_supports(c, v->space) ? "" : "unsupported ",
			     v->space);
		if (!write)
			v->data = 0;
	}
	v->addr = write ? val & ~VSEC_FLAG : val | VSEC_FLAG;
}

static void vsec_write(struct cxsim_card *c, unsigned reg, uint32_t val)
{
	struct vsec *v = &c->vsec;

	switch (reg) {
	case VSEC_CTRL:
		v->space = (uint16_t)(val & VSEC_SPACE_MASK);   /* the status bits are read-only */
		return;
	case VSEC_COUNTER:
		return;   /* read-only */
	case VSEC_SEM:
		if (!val) {
			v->sem = 0;
			v->sem_other = false;
		} else if (!v->sem) {
			v->sem = val;
		}
		return;
	case VSEC_ADDR:
		vsec_access(c, val);
		return;
	default:
		v->data = val;
	}
}

/* What a partial write merges with: the register as written, not as read
 * (a byte write to CTRL must not tick COUNTER or set status bits). */
static uint32_t vsec_current(const struct cxsim_card *c, unsigned reg)
{
	switch (reg) {
	case VSEC_CTRL: return c->vsec.space;
	case VSEC_SEM: return c->vsec.sem;
	case VSEC_ADDR: return c->vsec.addr;
	case VSEC_DATA: return c->vsec.data;
	default: return 0;
	}
}

static uint32_t dword_read(struct cxsim_card *c, unsigned off)
{
	if (off == WIN_ADDR || off == WIN_DATA)
		return window_read(c, off);
	if (is_vsec_reg(c, off))
		return vsec_read(c, off - CAP_VSEC);
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
	if (is_vsec_reg(c, base)) {
		if (len != 4) {
			unsigned shift = 8 * (off & 3);
			uint32_t mask = ((1u << (8 * len)) - 1) << shift;
			val = (vsec_current(c, base - CAP_VSEC) & ~mask) | ((val << shift) & mask);
		}
		vsec_write(c, base - CAP_VSEC, val);
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

/* mtcr's names of the address spaces (enum AS_*, §2.4). */
static const struct {
	const char *name;
	unsigned space;
} vsec_names[] = {
	{"icmd_ext", 0x1}, {"cr_space", 0x2}, {"icmd", 0x3}, {"nodnic_init_seg", 0x4},
	{"expansion_rom", 0x5}, {"nd_crspace", 0x6}, {"scan_crspace", 0x7}, {"semaphore", 0xA},
	{"recovery", 0xC}, {"mac", 0xF},
};

static int vsec_space(const char *s, size_t n, unsigned *space)
{
	char *end;
	unsigned long v;

	for (size_t i = 0; i < sizeof(vsec_names) / sizeof(vsec_names[0]); i++)
		if (strlen(vsec_names[i].name) == n && !strncmp(s, vsec_names[i].name, n)) {
			*space = vsec_names[i].space;
			return 0;
		}
	if (!n || s[0] < '0' || s[0] > '9')
		return -1;
	v = strtoul(s, &end, 0);
	if ((size_t)(end - s) != n || v > 31)
		return -1;
	*space = (unsigned)v;
	return 0;
}

int cxsim_vsec_parse(const char *s, uint32_t *spaces)
{
	uint32_t m = 0;

	if (!strcmp(s, "none") || !strcmp(s, "full") || !strcmp(s, "crspace-only")) {
		*spaces = s[0] == 'n' ? 0 : s[0] == 'f' ? CXSIM_VSEC_FULL : CXSIM_VSEC_CRSPACE_ONLY;
		return 0;
	}
	for (;;) {
		size_t n = strcspn(s, ",");
		unsigned sp;

		if (vsec_space(s, n, &sp))
			return -1;
		m |= CXSIM_VSEC_BIT(sp);
		if (!s[n])
			break;
		s += n + 1;
	}
	*spaces = m;
	return 0;
}
