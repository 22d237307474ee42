/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cxsim-pci.c — a Mellanox ConnectX-2 / 3 / 3 Pro / 4 / 4 Lx / 5 as a QEMU PCI device,
 * driven by cxsim's card model (sim/core, compiled into QEMU beside this file).
 *
 *   -device cxsim-pci,flash=STEM.flash[,model=cx2|cx3|cx3pro|cx4|cx4lx|cx5][,part=NAME]
 *                     [,subsys=VVVV:DDDD][,bar0=on|off]
 *
 * flash= is a card made by `cxsim create STEM ...`: STEM.flash is the flash array,
 * STEM.conf beside it the card's parameters. The card powers on at realize and shows
 * the IDs the model shows then (a flash without a valid image: the recovery ID, class
 * memory controller; a ConnectX-4/4 Lx/5 always, as the model runs no firmware for
 * them). Config dwords 0x58/0x5c (the crspace window, hw-access.md §2.3) go to the
 * model; so do the registers of the model's VSEC (§2.4, cxsim_vsec_header: on cx4,
 * cx4lx and cx5 by default), whose capability this device adds to QEMU's list at the
 * model's offset; the rest of config space is QEMU's. BAR0 is a 1 MiB 64-bit memory
 * BAR: on cx2/cx3/cx3pro non-prefetchable, decoding crspace as big-endian dwords
 * (§2.2), or reading all-ones with bar0=off, as the FUSE front end's resource0 does; on
 * cx4/cx4lx/cx5 prefetchable (the model's pcicfg.c BAR0_FLAGS) and always all-ones:
 * their BAR0 is the firmware's init segment, not crspace (§2.1), which the model lacks.
 * The model's clock follows QEMU_CLOCK_VIRTUAL. Every change the model makes to the flash is written
 * through to STEM.flash (pwrite, no fsync) as it happens, so killing QEMU mid-burn
 * leaves the file as a power cut would leave the chip. STEM.conf is never written.
 * The card's settings store (what mstconfig or cxflash config set for the next boot,
 * hw-access.md §8) is read from STEM.nv at realize and written back to it after every
 * change, so a `cxsim boot-check STEM` after QEMU exits shows them.
 *
 * A guest reboot (system reset) does not power-cycle the card: only a new QEMU does,
 * which is the cold restart these cards need to boot a new image (hw-access.md §4.4).
 */
#include "qemu/osdep.h"
#include "qemu/units.h"
#include "qemu/bswap.h"
#include "qemu/cutils.h"
#include "qemu/error-report.h"
#include "qemu/log.h"
#include "qemu/range.h"
#include "qemu/module.h"
#include "qemu/timer.h"
#include "qapi/error.h"
#include "hw/pci/pci.h"
#include "hw/qdev-properties.h"
#include "migration/vmstate.h"
#include "qom/object.h"

#include <sys/file.h>

#include "cxsim.h"

#define TYPE_CXSIM_PCI "cxsim-pci"
OBJECT_DECLARE_SIMPLE_TYPE(CxsimPciState, CXSIM_PCI)

#define CXSIM_VENDOR_MELLANOX 0x15b3
#define CXSIM_WIN_BASE 0x58   /* crspace address register; data at 0x5c, §2.3 */
#define CXSIM_WIN_END 0x60
#define CXSIM_VSEC_HDR_LEN 4  /* ID, next, length, type: QEMU's config bytes, §2.4 */
#define CXSIM_VSEC_LEN_BYTE 2 /* header byte 2: the capability's length, §2.4 */
#define CXSIM_VSEC_TYPE_BYTE 3 /* header byte 3: VSC type, §2.4 */
#define CXSIM_FORMAT_FS2 2    /* cxsim_chip_format of cx2/cx3/cx3pro: BAR0 may decode crspace */

struct CxsimPciState {
	PCIDevice parent_obj;

	MemoryRegion bar0;
	struct cxsim_card *card;
	int fd;                  /* the backing flash file, open read-write */
	int64_t last_ns;         /* QEMU_CLOCK_VIRTUAL when the model's clock last followed it */
	bool write_failed;       /* reported once */
	char *nv_path;           /* STEM.nv: the settings store */
	uint32_t vsec_base;      /* the VSEC registers the model answers: [base, end) */
	uint32_t vsec_end;       /* 0 when the card has no VSEC */

	/* Properties. */
	char *flash;
	char *model;
	char *part;
	char *subsys;
	bool bar0_on;
};

/* Let the model's clock catch up with the guest's virtual time. */
static void cxsim_pci_sync_clock(CxsimPciState *s)
{
	int64_t now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);

	if (now > s->last_ns) {
		cxsim_advance(s->card, (uint64_t)(now - s->last_ns));
	}
	s->last_ns = now;
}

/* The model changed flash[off, off + len): write it through to the backing file. */
static void cxsim_pci_flash_sink(void *ctx, size_t off, size_t len)
{
	CxsimPciState *s = ctx;
	size_t size;
	const uint8_t *flash = cxsim_flash(s->card, &size);

	while (len) {
		ssize_t n = pwrite(s->fd, flash + off, len, (off_t)off);

		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n <= 0) {
			if (!s->write_failed) {
				error_report("cxsim-pci: writing %s at 0x%zx: %s", s->flash, off,
					     n < 0 ? strerror(errno) : "short write");
				s->write_failed = true;
			}
			return;
		}
		off += (size_t)n;
		len -= (size_t)n;
	}
}

/* The settings store changed (an MNVA SET or MNVIA from the guest): save STEM.nv. */
static void cxsim_pci_nv_sink(void *ctx)
{
	CxsimPciState *s = ctx;
	char err[256];

	if (cxsim_nv_save(s->card, s->nv_path, err, sizeof(err)))
		error_report("cxsim-pci: %s", err);
}

static void cxsim_pci_log(void *ctx, const char *msg)
{
	(void)ctx;
	/* Unmodelled accesses etc.: visible with -d guest_errors, as device bugs are. */
	qemu_log_mask(LOG_GUEST_ERROR, "cxsim-pci: %s\n", msg);
}

/* ---- config space: the 0x58/0x5c window and the VSEC registers go to the model ---- */

/* Does the model answer this config byte? */
static bool cxsim_pci_model_byte(const CxsimPciState *s, uint32_t addr)
{
	return (addr >= CXSIM_WIN_BASE && addr < CXSIM_WIN_END) ||
	       (addr >= s->vsec_base && addr < s->vsec_end);
}

/* Does [addr, addr + len) touch the model's bytes, and is it wholly one aligned model access? */
static bool cxsim_pci_model_range(const CxsimPciState *s, uint32_t addr, int len, bool *whole)
{
	bool any = ranges_overlap(addr, len, CXSIM_WIN_BASE, CXSIM_WIN_END - CXSIM_WIN_BASE) ||
		   (s->vsec_end && ranges_overlap(addr, len, s->vsec_base, s->vsec_end - s->vsec_base));

	*whole = (len == 1 || len == 2 || len == 4) && !(addr % len) &&
		 cxsim_pci_model_byte(s, addr) && cxsim_pci_model_byte(s, addr + len - 1);
	return any;
}

static uint32_t cxsim_pci_config_read(PCIDevice *pdev, uint32_t addr, int len)
{
	CxsimPciState *s = CXSIM_PCI(pdev);
	uint32_t val = 0;
	bool whole;

	if (!cxsim_pci_model_range(s, addr, len, &whole)) {
		return pci_default_read_config(pdev, addr, len);
	}
	cxsim_pci_sync_clock(s);
	if (whole) {
		return cxsim_cfg_read(s->card, addr, (unsigned)len);
	}
	/* Unaligned or straddling an edge: byte by byte. */
	for (int i = 0; i < len; i++) {
		uint32_t b = cxsim_pci_model_byte(s, addr + i) ? cxsim_cfg_read(s->card, addr + i, 1)
							       : pci_default_read_config(pdev, addr + i, 1);
		val |= (b & 0xff) << (8 * i);
	}
	return val;
}

static void cxsim_pci_config_write(PCIDevice *pdev, uint32_t addr, uint32_t val, int len)
{
	CxsimPciState *s = CXSIM_PCI(pdev);
	bool whole;

	if (!cxsim_pci_model_range(s, addr, len, &whole)) {
		pci_default_write_config(pdev, addr, val, len);
		return;
	}
	cxsim_pci_sync_clock(s);
	if (whole) {
		cxsim_cfg_write(s->card, addr, val, (unsigned)len);
		return;
	}
	for (int i = 0; i < len; i++) {
		uint32_t b = (val >> (8 * i)) & 0xff;

		if (cxsim_pci_model_byte(s, addr + i)) {
			cxsim_cfg_write(s->card, addr + i, b, 1);
		} else {
			pci_default_write_config(pdev, addr + i, b, 1);
		}
	}
}

/* ---- BAR0: crspace, big-endian dwords ---- */

static uint64_t cxsim_pci_bar0_read(void *opaque, hwaddr addr, unsigned size)
{
	CxsimPciState *s = opaque;

	cxsim_pci_sync_clock(s);
	return cxsim_bar0_read(s->card, (unsigned)addr);
}

static void cxsim_pci_bar0_write(void *opaque, hwaddr addr, uint64_t val, unsigned size)
{
	CxsimPciState *s = opaque;

	cxsim_pci_sync_clock(s);
	cxsim_bar0_write(s->card, (unsigned)addr, (uint32_t)val);
}

static const MemoryRegionOps cxsim_pci_bar0_ops = {
	.read = cxsim_pci_bar0_read,
	.write = cxsim_pci_bar0_write,
	.endianness = DEVICE_BIG_ENDIAN,
	.valid = {
		.min_access_size = 4,
		.max_access_size = 8,   /* a 64-bit access is split into two dwords */
	},
	.impl = {
		.min_access_size = 4,
		.max_access_size = 4,
	},
};

/* ---- realize: load the card, take its IDs ---- */

static int cxsim_pci_parse_subsys(const char *str, uint16_t *vendor, uint16_t *device)
{
	unsigned v, d;
	int n = 0;

	if (sscanf(str, "%4x:%4x%n", &v, &d, &n) != 2 || str[n] || v > 0xffff || d > 0xffff) {
		return -1;
	}
	*vendor = (uint16_t)v;
	*device = (uint16_t)d;
	return 0;
}

/*
 * The card's parameters: its STEM.conf beside flash=STEM.flash, then the device's
 * properties over it (model, part, subsys, bar0). *stem_len is the length of STEM.
 */
static bool cxsim_pci_params(CxsimPciState *s, struct cxsim_params *p, size_t *stem_len,
			     Error **errp)
{
	char err[256];
	g_autofree char *conf = NULL;
	size_t len;

	if (!s->flash || !*s->flash) {
		error_setg(errp, "cxsim-pci: flash=STEM.flash is required (a card from 'cxsim create STEM')");
		return false;
	}
	len = strlen(s->flash);
	if (len <= 6 || strcmp(s->flash + len - 6, ".flash")) {
		error_setg(errp, "cxsim-pci: flash=%s: expected STEM.flash (with STEM.conf beside it)",
			   s->flash);
		return false;
	}
	*stem_len = len - 6;
	conf = g_strdup_printf("%.*s.conf", (int)(len - 6), s->flash);
	if (cxsim_read_conf(conf, p, err, sizeof(err))) {
		error_setg(errp, "cxsim-pci: %s", err);
		return false;
	}
	if (s->model) {
		enum cxsim_chip chip;
		struct cxsim_params d;

		if (cxsim_chip_parse(s->model, &chip)) {
			error_setg(errp, "cxsim-pci: model=%s: expected cx2, cx3, cx3pro, cx4, cx4lx or cx5",
				   s->model);
			return false;
		}
		if ((cxsim_chip_format(chip) == CXSIM_FORMAT_FS2) !=
		    (cxsim_chip_format(p->chip) == CXSIM_FORMAT_FS2)) {
			/* Flash part, VSEC and gateway differ across generations: a new card. */
			error_setg(errp, "cxsim-pci: model=%s: %s is a %s card; make a %s one with "
				   "'cxsim create STEM --chip %s'", s->model, s->flash,
				   cxsim_chip_name(p->chip), s->model, s->model);
			return false;
		}
		if (chip != p->chip) {
			/* Another chip: its own PCI ID and revision, the rest as the .conf says. */
			cxsim_params_default(&d, chip);
			p->chip = chip;
			p->pci_device = d.pci_device;
			p->hw_rev = d.hw_rev;
		}
	}
	if (s->part) {
		if (strlen(s->part) >= sizeof(p->flash_part)) {
			error_setg(errp, "cxsim-pci: part=%s: name too long", s->part);
			return false;
		}
		pstrcpy(p->flash_part, sizeof(p->flash_part), s->part);
	}
	if (s->subsys && cxsim_pci_parse_subsys(s->subsys, &p->subsys_vendor, &p->subsys_device)) {
		error_setg(errp, "cxsim-pci: subsys=%s: expected VVVV:DDDD (hex)", s->subsys);
		return false;
	}
	/* 5th generation: BAR0 is the init segment, not crspace (hw-access.md §2.1). */
	p->bar0_crspace = s->bar0_on && cxsim_chip_format(p->chip) == CXSIM_FORMAT_FS2;
	return true;
}

/*
 * The model's VSEC as a vendor-specific capability in QEMU's list, at the model's offset
 * so its registers forward unchanged; QEMU links it in (ID and next pointer), the length
 * and VSC type bytes are the model's.
 */
static bool cxsim_pci_add_vsec(PCIDevice *pdev, CxsimPciState *s, Error **errp)
{
	unsigned off = 0;
	uint32_t hdr = cxsim_vsec_header(s->card, &off);
	uint8_t len = (uint8_t)(hdr >> (8 * CXSIM_VSEC_LEN_BYTE));

	if (!hdr) {
		return true;
	}
	if (len <= CXSIM_VSEC_HDR_LEN) {
		error_setg(errp, "cxsim-pci: the model's VSEC at 0x%x has length %u", off, len);
		return false;
	}
	if (pci_add_capability(pdev, PCI_CAP_ID_VNDR, (uint8_t)off, len, errp) < 0) {
		return false;
	}
	pdev->config[off + CXSIM_VSEC_LEN_BYTE] = len;
	pdev->config[off + CXSIM_VSEC_TYPE_BYTE] = (uint8_t)(hdr >> (8 * CXSIM_VSEC_TYPE_BYTE));
	s->vsec_base = off + CXSIM_VSEC_HDR_LEN;
	s->vsec_end = off + len;
	return true;
}

/* The IDs the card shows after power-on (recovery ID when no image boots), and BAR0. */
static void cxsim_pci_show_card(PCIDevice *pdev, CxsimPciState *s)
{
	const struct cxsim_params *cp = cxsim_get_params(s->card);
	uint8_t *c = pdev->config;
	uint8_t bar_type = PCI_BASE_ADDRESS_SPACE_MEMORY | PCI_BASE_ADDRESS_MEM_TYPE_64;

	pci_config_set_vendor_id(c, CXSIM_VENDOR_MELLANOX);
	pci_config_set_device_id(c, cxsim_pci_device_now(s->card));
	pci_config_set_revision(c, cp->hw_rev);
	pci_config_set_class(c, (uint16_t)(cxsim_class_now(s->card) >> 8));
	pci_config_set_prog_interface(c, (uint8_t)cxsim_class_now(s->card));
	pci_set_word(c + PCI_SUBSYSTEM_VENDOR_ID, cp->subsys_vendor);
	pci_set_word(c + PCI_SUBSYSTEM_ID, cp->subsys_device);
	pci_config_set_interrupt_pin(c, 1);

	memory_region_init_io(&s->bar0, OBJECT(s), &cxsim_pci_bar0_ops, s, "cxsim-bar0",
			      CXSIM_BAR0_SIZE);
	if (cxsim_chip_format(cp->chip) != CXSIM_FORMAT_FS2) {
		bar_type |= PCI_BASE_ADDRESS_MEM_PREFETCH;   /* pcicfg.c BAR0_FLAGS */
	}
	pci_register_bar(pdev, 0, bar_type, &s->bar0);
}

static void cxsim_pci_realize(PCIDevice *pdev, Error **errp)
{
	CxsimPciState *s = CXSIM_PCI(pdev);
	struct cxsim_params p;
	char err[256];
	size_t stem_len;

	s->fd = -1;
	if (!cxsim_pci_params(s, &p, &stem_len, errp)) {
		return;
	}
	s->fd = qemu_open_old(s->flash, O_RDWR);
	if (s->fd < 0) {
		error_setg_errno(errp, errno, "cxsim-pci: cannot open %s read-write", s->flash);
		return;
	}
	if (flock(s->fd, LOCK_EX | LOCK_NB)) {
		error_setg_errno(errp, errno, "cxsim-pci: %s is in use by another QEMU", s->flash);
		goto fail;
	}
	s->card = cxsim_load_flash(&p, s->flash, err, sizeof(err));
	if (!s->card) {
		error_setg(errp, "cxsim-pci: %s", err);
		goto fail;
	}
	s->nv_path = g_strdup_printf("%.*s.nv", (int)stem_len, s->flash);
	if (cxsim_nv_load(s->card, s->nv_path, err, sizeof(err))) {
		error_setg(errp, "cxsim-pci: %s", err);
		cxsim_free(s->card);
		s->card = NULL;
		goto fail;
	}
	cxsim_set_log(s->card, cxsim_pci_log, s);
	cxsim_set_flash_sink(s->card, cxsim_pci_flash_sink, s);
	cxsim_set_nv_sink(s->card, cxsim_pci_nv_sink, s);
	s->last_ns = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
	if (!cxsim_pci_add_vsec(pdev, s, errp)) {
		cxsim_free(s->card);
		s->card = NULL;
		goto fail;
	}
	cxsim_pci_show_card(pdev, s);
	return;

fail:
	g_free(s->nv_path);
	s->nv_path = NULL;
	close(s->fd);
	s->fd = -1;
}

static void cxsim_pci_exit(PCIDevice *pdev)
{
	CxsimPciState *s = CXSIM_PCI(pdev);

	cxsim_free(s->card);
	s->card = NULL;
	g_free(s->nv_path);
	s->nv_path = NULL;
	if (s->fd >= 0) {
		close(s->fd);
		s->fd = -1;
	}
}

static Property cxsim_pci_properties[] = {
	DEFINE_PROP_STRING("flash", CxsimPciState, flash),
	DEFINE_PROP_STRING("model", CxsimPciState, model),
	DEFINE_PROP_STRING("part", CxsimPciState, part),
	DEFINE_PROP_STRING("subsys", CxsimPciState, subsys),
	DEFINE_PROP_BOOL("bar0", CxsimPciState, bar0_on, true),
	DEFINE_PROP_END_OF_LIST(),
};

/* The model's state is not described for migration: say so. */
static const VMStateDescription cxsim_pci_vmstate = {
	.name = TYPE_CXSIM_PCI,
	.unmigratable = 1,
};

static void cxsim_pci_class_init(ObjectClass *klass, void *data)
{
	DeviceClass *dc = DEVICE_CLASS(klass);
	PCIDeviceClass *k = PCI_DEVICE_CLASS(klass);

	k->realize = cxsim_pci_realize;
	k->exit = cxsim_pci_exit;
	k->config_read = cxsim_pci_config_read;
	k->config_write = cxsim_pci_config_write;
	/* Placeholders: realize sets the IDs the card shows. */
	k->vendor_id = CXSIM_VENDOR_MELLANOX;
	k->device_id = 0x1003;
	k->class_id = PCI_CLASS_NETWORK_OTHER;
	dc->desc = "Mellanox ConnectX-2/3/3 Pro/4/4 Lx/5 card simulated by cxsim (flash=STEM.flash)";
	dc->vmsd = &cxsim_pci_vmstate;
	device_class_set_props(dc, cxsim_pci_properties);
	set_bit(DEVICE_CATEGORY_NETWORK, dc->categories);
}

static const TypeInfo cxsim_pci_info = {
	.name = TYPE_CXSIM_PCI,
	.parent = TYPE_PCI_DEVICE,
	.instance_size = sizeof(CxsimPciState),
	.class_init = cxsim_pci_class_init,
	.interfaces = (InterfaceInfo[]) {
		{ INTERFACE_CONVENTIONAL_PCI_DEVICE },
		{ },
	},
};

static void cxsim_pci_register_types(void)
{
	type_register_static(&cxsim_pci_info);
}

type_init(cxsim_pci_register_types)
