/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The default board .ini text stored in FW_CONF (shape from fs2-format.md §5). */
#include <stdio.h>
#include <stdlib.h>

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

char *ini_default_text(const struct config *c)
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

	fprintf(f, "[PS_INFO]\n");
	fprintf(f, "Name = %s\n", ch->board);
	fprintf(f, "Description = %s synthetic test adapter\n", ch->long_name);
	fprintf(f, "PRS_name = %s\n\n", c->prs);

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
