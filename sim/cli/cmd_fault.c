/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_fault.c — `cxsim fault`: change a saved card's fault parameters. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

#define CMD "fault"

static int sem_held(const char *v, struct cxsim_params *p)
{
	static const struct {
		const char *name;
		bool gpio, flashprog;
	} kinds[] = {
		{ "none", false, false }, { "gpio", true, false },
		{ "flashprog", false, true }, { "both", true, true },
	};
	size_t i;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(v, kinds[i].name)) {
			p->sem_held_gpio = kinds[i].gpio;
			p->sem_held_flashprog = kinds[i].flashprog;
			return 0;
		}
	return -1;
}

/* "none", or ADDR[:MASK] (MASK 1..0xff, default 0xff: the whole byte). The address
 * is checked against the flash size once the card is loaded. */
static int stuck_bits(const char *v, struct cxsim_params *p)
{
	char addr[32];
	const char *colon = strchr(v, ':');
	uint64_t a, m = 0xFF;
	size_t n = colon ? (size_t)(colon - v) : strlen(v);

	if (!strcmp(v, "none")) {
		p->stuck_addr = 0;
		p->stuck_mask = 0;
		return 0;
	}
	if (n >= sizeof(addr))
		return -1;
	memcpy(addr, v, n);
	addr[n] = '\0';
	if (number_parse(addr, UINT32_MAX, &a) || (colon && (number_parse(colon + 1, 0xFF, &m) || !m)))
		return -1;
	p->stuck_addr = (uint32_t)a;
	p->stuck_mask = (uint8_t)m;
	return 0;
}

/* The field of p that an on/off option sets, or NULL when opt is not one. */
static bool *onoff_field(const char *opt, struct cxsim_params *p)
{
	if (!strcmp(opt, "--stuck-busy"))
		return &p->stuck_busy;
	if (!strcmp(opt, "--write-protect"))
		return &p->write_protect;
	if (!strcmp(opt, "--vsec-sem-held"))
		return &p->sem_held_vsec;
	if (!strcmp(opt, "--gw-lock-held"))
		return &p->gw_lock_held;
	return NULL;
}

/* Apply one option to p; 0 or an exit code. */
static int apply(const char *opt, const char *v, struct cxsim_params *p)
{
	bool *onoff = onoff_field(opt, p);

	if (onoff) {
		if (cli_onoff(v, onoff))
			return cli_usage(CMD, "%s: '%s' is not on or off", opt, v);
	} else if (!strcmp(opt, "--power-cut-after")) {
		if (number_parse(v, UINT64_MAX, &p->power_cut_after))
			return cli_usage(CMD, "%s: '%s' is not a number", opt, v);
	} else if (!strcmp(opt, "--stuck-bits")) {
		if (stuck_bits(v, p))
			return cli_usage(CMD, "%s: '%s' is not none or ADDR[:MASK] (MASK 0x01..0xff)", opt, v);
	} else if (!strcmp(opt, "--hcr")) {
		if (cxsim_hcr_fault_parse(v, &p->hcr_fault))
			return cli_usage(CMD, "%s: '%s' is not none, not-started, old-fw, nv-corrupt, "
					 "sem-held or go-stuck", opt, v);
	} else if (!strcmp(opt, "--icmd")) {
		if (cxsim_icmd_fault_parse(v, &p->icmd_fault))
			return cli_usage(CMD, "%s: '%s' is not none, busy, not-started, sem-held or "
					 "secure-fw", opt, v);
	} else if (!strcmp(opt, "--sem-held")) {
		if (sem_held(v, p))
			return cli_usage(CMD, "%s: '%s' is not none, gpio, flashprog or both", opt, v);
	} else {
		return cli_usage(CMD, "unknown option %s", opt);
	}
	return CLI_OK;
}

/* Apply every "--opt value" pair of argv (STEM skipped) to p; 0 or an exit code. */
static int apply_all(int argc, char **argv, const char *stem, struct cxsim_params *p)
{
	int i, rc;

	for (i = 1; i < argc; i++)
		if (argv[i] != stem && (rc = apply(argv[i], argv[i + 1], p)))
			return rc;
		else if (argv[i] != stem)
			i++;
	return CLI_OK;
}

int cmd_fault(int argc, char **argv)
{
	const char *stem = NULL;
	struct cxsim_card *c;
	struct cxsim_params p = { 0 };
	int i, rc;

	/* Every option takes a value. */
	for (i = 1; i < argc; i++) {
		if (argv[i][0] == '-') {
			if (!cli_value(argc, argv, &i, CMD))
				return CLI_USAGE;
		} else if (cli_operand(CMD, argv[i], &stem, NULL)) {
			return CLI_USAGE;
		}
	}
	if (!stem)
		return cli_usage(CMD, "which STEM?");
	if ((rc = apply_all(argc, argv, stem, &p)))   /* check every value before loading */
		return rc;
	c = cli_load(stem);
	if (!c)
		return CLI_FAIL;
	p = *cxsim_get_params(c);
	apply_all(argc, argv, stem, &p);
	size_t flash_size;
	cxsim_flash(c, &flash_size);
	if (p.stuck_mask && p.stuck_addr >= flash_size) {
		cxsim_free(c);
		return cli_usage(CMD, "--stuck-bits: address 0x%x is beyond the %zu KiB flash", p.stuck_addr,
				 flash_size / 1024);
	}
	*cxsim_params_mut(c) = p;
	rc = argc > 2 ? cli_save(c, stem) : CLI_OK;
	if (!rc) {
		char stuck[32] = "none";

		if (p.stuck_mask)
			snprintf(stuck, sizeof(stuck), "0x%06x:0x%02x", p.stuck_addr, p.stuck_mask);
		printf("%s: power_cut_after=%llu stuck_busy=%s sem_held_gpio=%s sem_held_flashprog=%s "
		       "write_protect=%s stuck_bits=%s sem_held_vsec=%s hcr=%s icmd=%s gw_lock_held=%s\n", stem,
		       (unsigned long long)p.power_cut_after, p.stuck_busy ? "on" : "off",
		       p.sem_held_gpio ? "on" : "off", p.sem_held_flashprog ? "on" : "off",
		       p.write_protect ? "on" : "off", stuck, p.sem_held_vsec ? "on" : "off",
		       cxsim_hcr_fault_name(p.hcr_fault), cxsim_icmd_fault_name(p.icmd_fault),
		       p.gw_lock_held ? "on" : "off");
	}
	cxsim_free(c);
	return rc;
}
