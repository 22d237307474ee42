/* SPDX-License-Identifier: GPL-2.0-or-later */
/* card.c — a card's life: parameters, power, the boot ROM's verdict, state files. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "bootrom.h"
#include "card.h"

#define PCI_VENDOR_MELLANOX 0x15B3
#define CLASS_NETWORK 0x028000   /* network controller, "other" (0x0280) */
#define CLASS_MEMORY 0x050000    /* memory controller: what a recovery-mode card shows */

/* hw-access.md §1.1 (PCI IDs), §1.2 (HW ID and revision), §3.5 (0xf03a0 on CX3/Pro
 * only), §3.11 (CX2 boot ROM probes 6 start positions, CX3 10), §8 (the tools HCR:
 * CX3/Pro only; mlxconfig knows HW IDs 501 and 503, mlxcfg_4th_gen_commander.cpp@4.25).
 * CX4, 4 Lx, 5 (hw-access.md §1.1, §3.13, fs3-format.md §1.1; mstflint 4.21): HW IDs and PF IDs from
 * dev_mgt/tools_dev_types.c; recovery PCI ID = HW ID (mtcr_ul_com.c
 * live_fish_id_database, dm_is_livefish_mode); boot address 0xf0000 bits 31:8 on CX4/4 Lx,
 * 0xf00c0 on CX5 (mflash.c mf_update_boot_addr); HW semaphore 0xe250c on CX4/4 Lx, 0xe74e0
 * on CX5 (tools_res_mgmt.c g_dev_sem_info_db). No revision is known: 0. Their firmware runs
 * when the flash holds a valid image (hw-access.md §3.14), and their VSEC offers the ICMD
 * space besides CXSIM_VSEC_FULL (mtcr_ul_icmd_cif.c SET_SPACE_FOR_ICMD_ACCESS: mstflint
 * reaches the ICMD mailbox there; without it its accesses would land in crspace). */
#define GEN5(nm, hw, pf, format, bootreg, shift, sem) \
	{.name = nm, .hw_id = hw, .default_pci = pf, .default_rev = 0, .boot_positions = 10, \
	 .recovery_pci = hw, .fs = format, .gen5_gw = true, .boot_addr_reg = bootreg, \
	 .boot_addr_shift = shift, .hw_sem = sem, .default_part = "W25Q128JV", \
	 .default_vsec = CXSIM_VSEC_FULL | CXSIM_VSEC_BIT(CXSIM_AS_ICMD)}
#define GEN4(nm, hw, pf, rev, fps, npos, tools) \
	{.name = nm, .hw_id = hw, .default_pci = pf, .default_rev = rev, .has_flashprog_sem = fps, \
	 .boot_positions = npos, .has_tools = tools, .recovery_pci = hw + 1, .fs = 2, \
	 .boot_addr_reg = 0xF0000, .boot_addr_shift = 8, .default_part = "W25Q16"}
static const struct sim_chip_info chips[] = {
	[CXSIM_CX2] = GEN4("cx2", 0x190, 0x673C, 0xB0, false, 6, false),
	[CXSIM_CX3] = GEN4("cx3", 0x1F5, 0x1003, 0x01, true, 10, true),
	[CXSIM_CX3PRO] = GEN4("cx3pro", 0x1F7, 0x1007, 0x00, true, 10, true),
	[CXSIM_CX4] = GEN5("cx4", 0x209, 0x1013, 3, 0xF0000, 8, 0xE250C),
	[CXSIM_CX4LX] = GEN5("cx4lx", 0x20B, 0x1015, 3, 0xF0000, 8, 0xE250C),
	[CXSIM_CX5] = GEN5("cx5", 0x20D, 0x1017, 4, 0xF00C0, 0, 0xE74E0),
};

const struct sim_chip_info *sim_chip_info(enum cxsim_chip chip)
{
	return &chips[chip];
}

const char *cxsim_chip_name(enum cxsim_chip chip)
{
	return chips[chip].name;
}

unsigned cxsim_chip_format(enum cxsim_chip chip)
{
	return chips[chip].fs;
}

int cxsim_chip_parse(const char *s, enum cxsim_chip *chip)
{
	for (unsigned i = 0; i < sizeof(chips) / sizeof(chips[0]); i++)
		if (!strcasecmp(s, chips[i].name)) {
			*chip = (enum cxsim_chip)i;
			return 0;
		}
	return -1;
}

void sim_card_log(struct cxsim_card *c, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	if (!c->log)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	c->log(c->log_ctx, msg);
}

void cxsim_set_log(struct cxsim_card *c, void (*log)(void *ctx, const char *msg), void *ctx)
{
	c->log = log;
	c->log_ctx = ctx;
}

void cxsim_params_default(struct cxsim_params *p, enum cxsim_chip chip)
{
	memset(p, 0, sizeof(*p));
	p->chip = chip;
	p->pci_device = chips[chip].default_pci;
	p->hw_rev = chips[chip].default_rev;
	p->subsys_vendor = PCI_VENDOR_MELLANOX;
	p->subsys_device = 0x0050;
	snprintf(p->flash_part, sizeof(p->flash_part), "%s", chips[chip].default_part);
	p->vsec_spaces = chips[chip].default_vsec;
	p->seed = 1;
	sim_profile_default(&p->tools, chip);
}

static struct cxsim_card *alloc_card(const struct cxsim_params *p, char *err, size_t errlen)
{
	const struct spi_part *part = spi_part_find(p->flash_part);
	struct cxsim_card *c;

	if (!part) {
		snprintf(err, errlen, "unknown flash part '%s'", p->flash_part);
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c || !(c->flash = malloc(part->size))) {
		free(c);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	c->p = *p;
	c->chip = &chips[p->chip];
	c->flash_size = part->size;
	memset(c->flash, 0xFF, part->size);
	return c;
}

struct cxsim_card *cxsim_new(const struct cxsim_params *p)
{
	char err[128];
	struct cxsim_card *c = alloc_card(p, err, sizeof(err));

	if (c)
		cxsim_power_cycle(c);
	return c;
}

struct cxsim_card *cxsim_clone(const struct cxsim_card *c)
{
	struct cxsim_card *k = malloc(sizeof(*k));

	if (!k)
		return NULL;
	*k = *c;
	if (!(k->flash = malloc(c->flash_size))) {
		free(k);
		return NULL;
	}
	memcpy(k->flash, c->flash, c->flash_size);
	k->nor.mem = k->flash; /* the chip model points into the array it owns */
	k->sink = NULL;        /* the clone's changes are its own */
	k->sink_ctx = NULL;
	k->nv_sink = NULL;
	k->nv_sink_ctx = NULL;
	spi_nor_set_sink(&k->nor, NULL, NULL);
	return k;
}

void cxsim_free(struct cxsim_card *c)
{
	if (!c)
		return;
	free(c->flash);
	free(c);
}

/* p.write_protect is the non-volatile block-protect state of M25P and W25Q
 * parts: a client's WRSR since power-on updates it; otherwise it is the
 * parameter as set (cxsim fault). SST protection is volatile and comes from
 * the part table at every power-on. */
static void sync_write_protect(struct cxsim_card *c)
{
	const struct spi_part *part = c->nor.part;

	if (!part || part->byte_program)
		return;
	uint8_t bp = c->nor.sr & part->sr_bp_mask;
	if (bp != c->sr_bp_power_on)
		c->p.write_protect = bp != 0;
}

static void set_running_identity(struct cxsim_card *c)
{
	c->boot_addr = 0;
	if (cxsim_fw_running(c))
		c->boot_addr = c->boot.start << c->chip->boot_addr_shift; /* as a burner leaves it, §4.4
									    * (UNCONFIRMED at power-on) */
}

bool cxsim_fw_running(const struct cxsim_card *c)
{
	return c->boot.booted && !(c->chip->gen5_gw && c->p.recovery);
}

static void boot_rom(struct cxsim_card *c)
{
	if (c->chip->fs == 2)
		bootrom_scan(c->flash, c->flash_size, c->chip->boot_positions, &c->boot);
	else
		bootrom_scan_fs3(c->flash, c->flash_size, c->chip->fs, &c->boot);
}

void cxsim_power_cycle(struct cxsim_card *c)
{
	const struct spi_part *part = spi_part_find(c->p.flash_part);

	if (c->powered)
		spi_nor_power_loss(&c->nor, c->now);
	if (c->nor.changed)
		c->flash_dirty = true;
	/* Counters run across power cycles; block-protect bits are non-volatile
	 * on M25P and W25Q parts (volatile on SST, whose table sets them at
	 * power-on), so they survive too. */
	struct spi_nor_stats stats = c->nor.stats;
	sync_write_protect(c);
	spi_nor_init(&c->nor, part, c->flash, c->p.seed, c->p.write_protect);
	spi_nor_set_stuck(&c->nor, c->p.stuck_addr, c->p.stuck_mask);
	spi_nor_set_sink(&c->nor, c->sink, c->sink_ctx);
	c->nor.stats = stats;
	c->sr_bp_power_on = c->nor.sr & part->sr_bp_mask;
	c->powered = true;
	c->accesses = 0;
	boot_rom(c);
	sim_cr_reset(c);
	sim_gw_reset(c);
	sim_tools_reset(c);   /* the settings store (c->nv) is non-volatile: kept */
	sim_icmd_reset(c);
	sim_pcicfg_reset(c);
	set_running_identity(c);
}

bool cxsim_powered(const struct cxsim_card *c)
{
	return c->powered;
}

/* One config (or BAR0) access: the clock ticks, and a power cut may strike after it. */
static void tick(struct cxsim_card *c, uint64_t ns)
{
	c->now += ns;
	c->cnt.time_ns = c->now;
	c->accesses++;
}

static void maybe_cut_power(struct cxsim_card *c)
{
	if (c->p.power_cut_after && c->accesses >= c->p.power_cut_after) {
		sim_card_log(c, "power cut after %llu config accesses", (unsigned long long)c->accesses);
		spi_nor_power_loss(&c->nor, c->now);
		if (c->nor.changed)
			c->flash_dirty = true;
		c->powered = false;
		c->p.power_cut_after = 0; /* one shot: the next power-on runs normally */
	}
}

uint32_t cxsim_cfg_read(struct cxsim_card *c, unsigned off, unsigned len)
{
	uint32_t v;

	if (!c->powered)
		return len == 4 ? 0xFFFFFFFFu : (1u << (8 * len)) - 1; /* no device answers */
	tick(c, CXSIM_CFG_ACCESS_NS);
	c->cnt.cfg_reads++;
	v = sim_pcicfg_read(c, off, len);
	maybe_cut_power(c);
	return v;
}

void cxsim_cfg_write(struct cxsim_card *c, unsigned off, uint32_t val, unsigned len)
{
	if (!c->powered)
		return;
	tick(c, CXSIM_CFG_ACCESS_NS);
	c->cnt.cfg_writes++;
	sim_pcicfg_write(c, off, val, len);
	maybe_cut_power(c);
}

static bool bar0_decodes(const struct cxsim_card *c, unsigned off)
{
	return c->p.bar0_crspace && c->powered && off < CXSIM_BAR0_SIZE && !(off & 3);
}

uint32_t cxsim_bar0_read(struct cxsim_card *c, unsigned off)
{
	uint32_t v;

	c->cnt.bar0_reads++;
	if (!bar0_decodes(c, off))
		return 0xFFFFFFFFu; /* memory decode off: tools fall back to config cycles, §2.2 */
	tick(c, CXSIM_BAR0_ACCESS_NS);
	v = sim_cr_read(c, off);
	maybe_cut_power(c);
	return v;
}

void cxsim_bar0_write(struct cxsim_card *c, unsigned off, uint32_t val)
{
	c->cnt.bar0_writes++;
	if (!bar0_decodes(c, off))
		return;
	tick(c, CXSIM_BAR0_ACCESS_NS);
	sim_cr_write(c, off, val);
	maybe_cut_power(c);
}

void cxsim_advance(struct cxsim_card *c, uint64_t ns)
{
	c->now += ns;
	c->cnt.time_ns = c->now;
}

const struct cxsim_counters *cxsim_counters(const struct cxsim_card *c)
{
	return &c->cnt;
}

void cxsim_counters_reset(struct cxsim_card *c)
{
	uint64_t t = c->cnt.time_ns;

	memset(&c->cnt, 0, sizeof(c->cnt));
	memset(&c->nor.stats, 0, sizeof(c->nor.stats));
	c->cnt.time_ns = t;
}

const struct cxsim_boot *cxsim_boot_info(const struct cxsim_card *c)
{
	return &c->boot;
}

const struct cxsim_params *cxsim_get_params(const struct cxsim_card *c)
{
	return &c->p;
}

struct cxsim_params *cxsim_params_mut(struct cxsim_card *c)
{
	return &c->p;
}

uint8_t *cxsim_flash(struct cxsim_card *c, size_t *size)
{
	*size = c->flash_size;
	return c->flash;
}

void cxsim_flash_changed(struct cxsim_card *c)
{
	c->flash_dirty = true;
	if (c->sink)
		c->sink(c->sink_ctx, 0, c->flash_size);
}

void cxsim_set_flash_sink(struct cxsim_card *c, void (*sink)(void *ctx, size_t off, size_t len),
			  void *ctx)
{
	c->sink = sink;
	c->sink_ctx = ctx;
	spi_nor_set_sink(&c->nor, sink, ctx);
}

uint16_t cxsim_pci_device_now(const struct cxsim_card *c)
{
	/* Recovery ("livefish") ID: HW ID + 1 up to CX3 Pro (hw-access.md §1.1, §1.3), the
	 * HW ID itself from CX4 on (the chip table). */
	return cxsim_fw_running(c) ? c->p.pci_device : c->chip->recovery_pci;
}

uint32_t cxsim_class_now(const struct cxsim_card *c)
{
	return cxsim_fw_running(c) ? CLASS_NETWORK : CLASS_MEMORY;
}

/* ---- state files: STEM.conf (key=value) and STEM.flash (raw) ---- */

/* Keys marked OPTIONAL are written only when they differ from the chip's default (0 for
 * the faults), so that a card without them keeps the .conf file it had before they
 * existed (and older readers still take it). The tools_* keys are the settings
 * profile (cxsim.h struct cxsim_tools_profile); a chip= line resets them to the chip's
 * defaults, so it comes first. */
#define U(field) {#field, offsetof(struct cxsim_params, field), sizeof(((struct cxsim_params *)0)->field), false}
#define OPTIONAL(field) {#field, offsetof(struct cxsim_params, field), sizeof(((struct cxsim_params *)0)->field), true}
#define TOOLS(field) {"tools_" #field, offsetof(struct cxsim_params, tools.field), \
		      sizeof(((struct cxsim_params *)0)->tools.field), true}
static const struct {
	const char *key;
	size_t off, size;
	bool optional;
} num_keys[] = {
	U(pci_device), U(hw_rev), U(subsys_vendor), U(subsys_device), U(wo_addr_window), U(seed),
	U(power_cut_after), U(stuck_busy), U(sem_held_gpio), U(sem_held_flashprog), U(write_protect),
	U(stuck_addr), U(stuck_mask), OPTIONAL(vsec_spaces), OPTIONAL(sem_held_vsec),
	OPTIONAL(no_cr_mbox), OPTIONAL(hw_id), OPTIONAL(recovery),
	OPTIONAL(gw_lock_held),
	TOOLS(ports), TOOLS(max_vfs), TOOLS(bar_size), TOOLS(max_bar_size), TOOLS(caps), TOOLS(supp),
	TOOLS(def_sriov_en), TOOLS(def_num_vfs), TOOLS(def_link_type), TOOLS(def_phy_type),
	TOOLS(def_xfi_mode), TOOLS(def_force_mode), TOOLS(def_wol_magic), TOOLS(def_boot_rom),
	TOOLS(def_boot_vlan_en), TOOLS(def_boot_retry), TOOLS(def_boot_protocol), TOOLS(def_boot_vlan),
	TOOLS(def_boot_pkey), TOOLS(def_ip_ver), TOOLS(def_cq_timestamp), TOOLS(def_steer_force_vlan),
	TOOLS(def_phy_param_mode), TOOLS(def_clock_map),
};

static void put_num(struct cxsim_params *p, size_t i, unsigned long long v)
{
	uint8_t *f = (uint8_t *)p + num_keys[i].off;

	switch (num_keys[i].size) {
	case 1: *f = (uint8_t)v; break;
	case 2: { uint16_t x = (uint16_t)v; memcpy(f, &x, 2); break; }
	case 4: { uint32_t x = (uint32_t)v; memcpy(f, &x, 4); break; }
	case 8: memcpy(f, &v, 8); break;
	}
	if (num_keys[i].size == 1 && (num_keys[i].off == offsetof(struct cxsim_params, wo_addr_window) ||
				      num_keys[i].off == offsetof(struct cxsim_params, stuck_busy) ||
				      num_keys[i].off == offsetof(struct cxsim_params, sem_held_gpio) ||
				      num_keys[i].off == offsetof(struct cxsim_params, sem_held_flashprog) ||
				      num_keys[i].off == offsetof(struct cxsim_params, sem_held_vsec) ||
				      num_keys[i].off == offsetof(struct cxsim_params, no_cr_mbox) ||
				      num_keys[i].off == offsetof(struct cxsim_params, recovery) ||
				      num_keys[i].off == offsetof(struct cxsim_params, gw_lock_held) ||
				      num_keys[i].off == offsetof(struct cxsim_params, write_protect)))
		*f = v != 0;
}

static unsigned long long get_num(const struct cxsim_params *p, size_t i)
{
	const uint8_t *f = (const uint8_t *)p + num_keys[i].off;
	uint16_t x;
	uint32_t w;
	uint64_t y;

	switch (num_keys[i].size) {
	case 1: return *f;
	case 2: memcpy(&x, f, 2); return x;
	case 4: memcpy(&w, f, 4); return w;
	default: memcpy(&y, f, 8); return y;
	}
}

static int parse_conf(FILE *in, struct cxsim_params *p, char *err, size_t errlen)
{
	char line[256];
	int lineno = 0;

	while (fgets(line, sizeof(line), in)) {
		char *eq, *val, *end;
		size_t i;

		lineno++;
		line[strcspn(line, "\r\n")] = '\0';
		if (!line[0] || line[0] == '#')
			continue;
		if (!(eq = strchr(line, '='))) {
			snprintf(err, errlen, "line %d: expected key=value", lineno);
			return -1;
		}
		*eq = '\0';
		val = eq + 1;
		if (!strcmp(line, "chip")) {
			if (cxsim_chip_parse(val, &p->chip)) {
				snprintf(err, errlen, "line %d: unknown chip '%s'", lineno, val);
				return -1;
			}
			sim_profile_default(&p->tools, p->chip);
			p->vsec_spaces = chips[p->chip].default_vsec; /* OPTIONAL: saved when it differs */
			continue;
		}
		if (!strcmp(line, "hcr_fault")) {
			if (cxsim_hcr_fault_parse(val, &p->hcr_fault)) {
				snprintf(err, errlen, "line %d: unknown hcr_fault '%s'", lineno, val);
				return -1;
			}
			continue;
		}
		if (!strcmp(line, "icmd_fault")) {
			if (cxsim_icmd_fault_parse(val, &p->icmd_fault)) {
				snprintf(err, errlen, "line %d: unknown icmd_fault '%s'", lineno, val);
				return -1;
			}
			continue;
		}
		if (!strcmp(line, "flash_part")) {
			snprintf(p->flash_part, sizeof(p->flash_part), "%s", val);
			continue;
		}
		for (i = 0; i < sizeof(num_keys) / sizeof(num_keys[0]); i++)
			if (!strcmp(line, num_keys[i].key))
				break;
		if (i == sizeof(num_keys) / sizeof(num_keys[0])) {
			snprintf(err, errlen, "line %d: unknown key '%s'", lineno, line);
			return -1;
		}
		errno = 0;
		unsigned long long v = strtoull(val, &end, 0);
		if (errno || end == val || *end) {
			snprintf(err, errlen, "line %d: bad number '%s'", lineno, val);
			return -1;
		}
		if (num_keys[i].size < 8 && v >> (8 * num_keys[i].size)) {
			snprintf(err, errlen, "line %d: %s=%s does not fit in %zu bytes", lineno, line, val,
				 num_keys[i].size);
			return -1;
		}
		put_num(p, i, v);
	}
	return 0;
}

int cxsim_read_conf(const char *path, struct cxsim_params *p, char *err, size_t errlen)
{
	FILE *f;
	int rc;

	cxsim_params_default(p, CXSIM_CX3);
	if (!(f = fopen(path, "r"))) {
		snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	rc = parse_conf(f, p, err, errlen);
	fclose(f);
	return rc;
}

struct cxsim_card *cxsim_load_flash(const struct cxsim_params *p, const char *path, char *err,
				    size_t errlen)
{
	struct cxsim_card *c;
	FILE *f;

	if (!(c = alloc_card(p, err, errlen)))
		return NULL;
	if (!(f = fopen(path, "rb"))) {
		snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
		cxsim_free(c);
		return NULL;
	}
	size_t got = fread(c->flash, 1, c->flash_size, f);
	int extra = fgetc(f);
	fclose(f);
	if (got != c->flash_size || extra != EOF) {
		snprintf(err, errlen, "%s is not %zu bytes (the size of a %s)", path, c->flash_size,
			 p->flash_part);
		cxsim_free(c);
		return NULL;
	}
	cxsim_power_cycle(c);
	c->flash_dirty = false;
	return c;
}

struct cxsim_card *cxsim_load(const char *stem, char *err, size_t errlen)
{
	char path[4096];
	struct cxsim_params p;
	struct cxsim_card *c;

	snprintf(path, sizeof(path), "%s.conf", stem);
	if (cxsim_read_conf(path, &p, err, errlen))
		return NULL;
	snprintf(path, sizeof(path), "%s.flash", stem);
	if (!(c = cxsim_load_flash(&p, path, err, errlen)))
		return NULL;
	snprintf(path, sizeof(path), "%s.nv", stem);
	if (cxsim_nv_load(c, path, err, errlen)) {
		cxsim_free(c);
		return NULL;
	}
	return c;
}

static int write_atomic(const char *path, const void *buf, size_t len, char *err, size_t errlen)
{
	char tmp[4200];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.new", path);
	if (!(f = fopen(tmp, "wb")) || fwrite(buf, 1, len, f) != len || fflush(f) ||
	    fsync(fileno(f))) {
		snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
		if (f)
			fclose(f);
		return -1;
	}
	if (fclose(f) || rename(tmp, path)) {
		snprintf(err, errlen, "cannot replace %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

int cxsim_save(struct cxsim_card *c, const char *stem, char *err, size_t errlen)
{
	char path[4096], conf[2048];
	struct cxsim_params def;
	size_t n;

	sync_write_protect(c);
	cxsim_params_default(&def, c->p.chip);
	n = (size_t)snprintf(conf, sizeof(conf),
			     "# cxsim card parameters (sim/core/cxsim.h struct cxsim_params)\n"
			     "chip=%s\nflash_part=%s\n", c->chip->name, c->p.flash_part);
	for (size_t i = 0; i < sizeof(num_keys) / sizeof(num_keys[0]) && n < sizeof(conf); i++)
		if (!num_keys[i].optional || get_num(&c->p, i) != get_num(&def, i))
			n += (size_t)snprintf(conf + n, sizeof(conf) - n, "%s=0x%llx\n", num_keys[i].key,
					      get_num(&c->p, i));
	if (c->p.hcr_fault && n < sizeof(conf))
		n += (size_t)snprintf(conf + n, sizeof(conf) - n, "hcr_fault=%s\n",
				      cxsim_hcr_fault_name(c->p.hcr_fault));
	if (c->p.icmd_fault && n < sizeof(conf))
		n += (size_t)snprintf(conf + n, sizeof(conf) - n, "icmd_fault=%s\n",
				      cxsim_icmd_fault_name(c->p.icmd_fault));
	if (n >= sizeof(conf)) {
		snprintf(err, errlen, "the parameters do not fit in %zu bytes (model bug)", sizeof(conf));
		return -1;
	}
	snprintf(path, sizeof(path), "%s.conf", stem);
	if (write_atomic(path, conf, n, err, errlen))
		return -1;
	if (c->nor.changed)
		c->flash_dirty = true;
	snprintf(path, sizeof(path), "%s.flash", stem);
	if ((c->flash_dirty || access(path, F_OK)) &&
	    write_atomic(path, c->flash, c->flash_size, err, errlen))
		return -1;
	c->flash_dirty = false;
	c->nor.changed = false;
	snprintf(path, sizeof(path), "%s.nv", stem);
	if (c->nv.dirty && cxsim_nv_save(c, path, err, errlen))
		return -1;
	return 0;
}
