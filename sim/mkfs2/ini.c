/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The default board .ini text stored in FW_CONF (shape from fs2-format.md §5),
 * and the --ini-set/--ini-del edits that make OEM variants of it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sections.h"

/* §5 [FW]: log_flash_sector_size 2 = 4 KiB sectors, matching tag 19. */
#define LOG_FLASH_SECTOR_SIZE	2
#define NV_CONFIG_SECTORS	2
#define NUM_PORTS		2
#define PCI_CLASS_NET_ETH	0x020000u
#define PCI_CLASS_NET_OTHER	0x028000u
#define GPIO_MODE0		0x00000000u
#define GPIO_MODE1		0x000a02a8u
#define GPIO_DEFAULT_VAL	0x00000100u
#define GPIO_PULL_UP		0x00000008u
#define GPIO_PULL_ENABLE	0x00000008u

static const char *const month_abbr[] = {
	"Jan", "Feb", "Mar", "Apr", "May", "Jun",
	"Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
};

static unsigned int log2_u32(uint32_t v)
{
	unsigned int l = 0;

	while (v > 1) {
		v >>= 1;
		l++;
	}
	return l;
}

static void ini_adapter(FILE *f, const struct config *c)
{
	const struct chip *ch = c->chip;

	fprintf(f, "[ADAPTER]\n");
	fprintf(f, "PSID = %s\n", c->psid);
	fprintf(f, "adapter_dev_id = 0x%x\n", ch->dev_id);
	fprintf(f, "silicon_rev = 0x%x\n", c->rev);
	fprintf(f, "pcie_gen2_speed_supported = true\n");
	fprintf(f, "pcie_gen3_speed_supported = %s\n", ch->pcie_gen3 ? "true" : "false");
	fprintf(f, "gpio_mode0 = 0x%08x\n", GPIO_MODE0);
	fprintf(f, "gpio_mode1 = 0x%08x\n", GPIO_MODE1);
	fprintf(f, "gpio_default_val = 0x%08x\n", GPIO_DEFAULT_VAL);
	fprintf(f, "gpio_pull_up = 0x%08x\n", GPIO_PULL_UP);
	fprintf(f, "gpio_pull_enable = 0x%08x\n", GPIO_PULL_ENABLE);
	fprintf(f, "receiver_detect_en = true\n");
	fprintf(f, "nv_cfg_en = true\n");
	fprintf(f, "nv_config_sectors = %d\n\n", NV_CONFIG_SECTORS);
}

static void ini_hca(FILE *f, const struct config *c)
{
	const struct chip *ch = c->chip;

	fprintf(f, "[HCA]\n");
	fprintf(f, "hca_header_device_id = 0x%x\n", ch->dev_id);
	fprintf(f, "hca_header_subsystem_id = 0x%04x\n", ch->subsys_id);
	fprintf(f, "hca_header_class_code = 0x%06x\n",
		ch->eth_only ? PCI_CLASS_NET_ETH : PCI_CLASS_NET_OTHER);
	fprintf(f, "dpdp_en = true\n");
	fprintf(f, "eth_xfi_en = true\n");
	fprintf(f, "mdio_en_port1 = 0\n");
	fprintf(f, "led_gt_mode_en = true\n\n");
}

static void ini_ib(FILE *f, const struct config *c)
{
	int port, lane;

	fprintf(f, "[IB]\n");
	fprintf(f, "num_of_ports = %d\n", NUM_PORTS);
	fprintf(f, "gen_guids_from_mac = %s\n", c->chip->eth_only ? "true" : "false");
	fprintf(f, "do_sense = true\n");
	for (port = 1; port <= NUM_PORTS; port++) {
		fprintf(f, "phy_type_port%d = %s\n", port, c->chip->eth_only ? "XFI" : "QSFP");
		fprintf(f, "port%d_802_3ap_kr_ability = true\n", port);
		fprintf(f, "port%d_802_3ap_kx4_ability = false\n", port);
		fprintf(f, "port%d_802_3ap_kr_enable = false\n", port);
	}
	/* Identity lane maps: a synthetic board has nothing to swap. */
	for (lane = 0; lane < 4 * NUM_PORTS; lane++) {
		fprintf(f, "tx_logic_%d_serdes = %d\n", lane, lane);
		fprintf(f, "rx_logic_%d_serdes = %d\n", lane, lane);
	}
	fprintf(f, "\n");
}

/* An OEM board's .ini names the board as well as its PSID (fs2-format.md §5), so
 * a --psid other than the chip's stock one renames the board: an OEM image then
 * differs from its stock twin in exactly the keys that name a board. The stock
 * PSID keeps the stock names, and the bytes of images made before --psid did this. */
static void ini_ps_info(FILE *f, const struct config *c)
{
	const struct chip *ch = c->chip;

	fprintf(f, "[PS_INFO]\n");
	if (!strcmp(c->psid, ch->psid)) {
		fprintf(f, "Name = %s\n", ch->board);
		fprintf(f, "Description = %s synthetic test adapter\n", ch->long_name);
	} else {
		fprintf(f, "Name = SYNTH-%s\n", c->psid);
		fprintf(f, "Description = %s synthetic test adapter, PSID %s\n", ch->long_name, c->psid);
	}
	fprintf(f, "PRS_name = %s\n\n", c->prs);
}

static char *ini_generate(const struct config *c)
{
	const struct chip *ch = c->chip;
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	if (!f) {
		perror("open_memstream");
		return NULL;
	}
	fprintf(f, ";; Generated automatically by iniprep tool on %s %2u 12:00:00 %u from ./%s\n",
		month_abbr[c->date[1] - 1], c->date[2], c->date[0], c->prs);
	fprintf(f, ";; Synthetic %s board written by cxrescue mkfs2; not vendor data.\n\n",
		ch->long_name);

	ini_ps_info(f, c);

	ini_adapter(f, c);
	ini_hca(f, c);
	ini_ib(f, c);

	fprintf(f, "[PLL]\n");
	fprintf(f, "lbist_en = false\n");
	fprintf(f, "pll_stabilize = 0x13\n");
	fprintf(f, "core_f = 44\n");
	fprintf(f, "core_r = 27\n\n");

	fprintf(f, "[FW]\n");
	fprintf(f, "flash_has_suspend_resume = true\n");
	fprintf(f, "log_flashdev_size = %u\n", log2_u32(c->flash_size));
	fprintf(f, "log_flash_sector_size = %d\n", LOG_FLASH_SECTOR_SIZE);

	if (fclose(f)) {
		perror("open_memstream");
		free(text);
		return NULL;
	}
	return text;
}

/* ---- --ini-set and --ini-del ---- */

static int is_blank(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r';
}

/* Whether [p, p + n) is name, ignoring case and blanks around it. */
static int name_is(const char *p, size_t n, const char *name)
{
	while (n && is_blank(*p))
		p++, n--;
	while (n && is_blank(p[n - 1]))
		n--;
	return n == strlen(name) && !strncasecmp(p, name, n);
}

/* One line of .ini text (without its '\n'): a section header sets *name and
 * *len to the text between the brackets and returns 1; a key line sets them to
 * the key, blanks trimmed, and returns 2; anything else returns 0. */
static int ini_line(const char *p, size_t n, const char **name, size_t *len)
{
	const char *end = p + n, *q;

	while (p < end && is_blank(*p))
		p++;
	if (p == end || *p == ';' || *p == '#')
		return 0;
	if (*p == '[') {
		q = memchr(p, ']', (size_t)(end - p));
		if (!q)
			return 0;
		*name = p + 1;
		*len = (size_t)(q - p - 1);
		return 1;
	}
	q = memchr(p, '=', (size_t)(end - p));
	if (!q)
		return 0;
	*name = p;
	for (*len = (size_t)(q - p); *len && is_blank(p[*len - 1]); (*len)--)
		;
	return 2;
}

/* Apply e to text. Setting replaces the key's value where the section has it,
 * else adds the key after the section's last key line, else adds the section
 * at the end; dropping removes the key's lines, and a key that is not there is
 * an error (*missing set), as a typo would otherwise pass unnoticed. */
static char *ini_edit(const char *text, const struct ini_edit *e, int *missing)
{
	size_t insert_at = 0, len, size = 0;
	int in_section = 0, have_section = 0, have_key = 0;
	const char *p, *next, *name;
	char *out = NULL;
	FILE *f;

	/* Where the key is, or where a new one goes. */
	for (p = text; *p; p = next) {
		const char *nl = strchr(p, '\n');
		int kind;

		next = nl ? nl + 1 : p + strlen(p);
		kind = ini_line(p, (size_t)(next - p) - (nl != NULL), &name, &len);
		if (kind == 1) {
			in_section = name_is(name, len, e->section);
			have_section |= in_section;
		}
		if (in_section && kind) {
			insert_at = (size_t)(next - text);
			have_key |= kind == 2 && name_is(name, len, e->key);
		}
	}
	if (!e->value && !have_key) {
		*missing = 1;
		return NULL;
	}

	f = open_memstream(&out, &size);
	if (!f) {
		perror("open_memstream");
		return NULL;
	}
	in_section = 0;
	for (p = text; *p; p = next) {
		const char *nl = strchr(p, '\n');
		int kind;

		next = nl ? nl + 1 : p + strlen(p);
		kind = ini_line(p, (size_t)(next - p) - (nl != NULL), &name, &len);
		if (kind == 1)
			in_section = name_is(name, len, e->section);
		if (in_section && kind == 2 && name_is(name, len, e->key)) {
			if (e->value)	/* the key as the file spells it */
				fprintf(f, "%.*s = %s\n", (int)len, name, e->value);
		} else {
			fwrite(p, 1, (size_t)(next - p), f);
			if (!nl && e->value && !have_key)
				fputc('\n', f);
		}
		if (e->value && !have_key && have_section && (size_t)(next - text) == insert_at)
			fprintf(f, "%s = %s\n", e->key, e->value);
	}
	if (e->value && !have_section)
		fprintf(f, "\n[%s]\n%s = %s\n", e->section, e->key, e->value);
	if (fclose(f)) {
		perror("open_memstream");
		free(out);
		return NULL;
	}
	return out;
}

char *ini_default_text_edited(const struct config *c, const struct ini_edit **bad)
{
	char *text = ini_generate(c);
	unsigned int i;

	*bad = NULL;
	for (i = 0; text && i < c->n_ini_edits; i++) {
		int missing = 0;
		char *edited = ini_edit(text, &c->ini_edits[i], &missing);

		free(text);
		text = edited;
		if (missing)
			*bad = &c->ini_edits[i];
	}
	return text;
}

char *ini_default_text(const struct config *c)
{
	const struct ini_edit *bad;
	char *text = ini_default_text_edited(c, &bad);

	if (bad)
		fprintf(stderr, "mkfs2: --ini-del %s: the default .ini has no such key\n", bad->arg);
	return text;
}
