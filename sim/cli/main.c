/* SPDX-License-Identifier: GPL-2.0-or-later */
/* main.c — cxsim's command table: create, boot-check, fault, serve, replay. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char usage_text[] =
"usage: cxsim <command> [options]\n"
"\n"
"  create STEM [--chip cx2|cx3|cx3pro|cx4|cx4lx|cx5] [--pci-device ID] [--rev N]\n"
"         [--hw-id ID]"
" [--subsys VVVV:DDDD]\n"
"         [--flash PART] [--seed N] [--wo-window] [--vsec SPACES]\n"
"         [--image FILE [--slot 0|1] [--psid S] [--guid G] [--mac M] [--vsd S]]\n"
"         [--empty] [--corrupt] [--recovery]\n"
"         [--ports 1|2] [--max-vfs N] [--bar-size LOG] [--max-bar-size LOG]\n"
"         [--caps LIST] [--no-cr-mbox]\n"
"      write a new card to STEM.conf and STEM.flash (default: cx3, empty flash);\n"
"      --vsec adds the VSEC gateway (vendor-specific capability 9 at config 0xc0)\n"
"      beside the 0x58/0x5c window. SPACES: full (cr_space,icmd_ext,semaphore: what\n"
"      mstflint needs to use it), crspace-only (tools must fall back to the window),\n"
"      none (the default up to cx3pro; full on cx4, cx4lx, cx5), or a comma list of\n"
"      names or numbers 0..31 (cx4 and later: full plus icmd); cr_space, icmd and\n"
"      semaphore reach something. cx4, cx4lx and cx5 run their firmware when the flash\n"
"      holds a valid image (ICMD, access registers; hw-access.md §3.14), unless\n"
"      --recovery straps them into recovery mode; their --image (an mkfs3 file or\n"
"      --dump) is copied as it is. The settings interface (cx3, cx3pro; hw-access.md §8): --ports,\n"
"      --max-vfs (0..254), --bar-size (default LOG_BAR_SIZE, log2 MiB) and --max-bar-size\n"
"      are what its firmware reports, --caps the settings it lets tools change (sriov,\n"
"      wol_p1, wol_p2, vpi_p1, vpi_p2, bar_size, all, none; default all), --no-cr-mbox\n"
"      takes the CR mailbox away (tools then use MBOX_WRITE/MBOX_READ)\n"
"  boot-check STEM [--json]\n"
"      power the card on and show what boots: slot, FW version, PSID, GUIDs, MACs, PCI ID,\n"
"      and the settings stored for this boot (STEM.nv, mstconfig's names)\n"
"  fault STEM [--power-cut-after N] [--stuck-busy on|off]\n"
"         [--sem-held none|gpio|flashprog|both] [--write-protect on|off]\n"
"         [--stuck-bits none|ADDR[:MASK]] [--vsec-sem-held on|off]\n"
"         [--hcr none|not-started|old-fw|nv-corrupt|sem-held|go-stuck]\n"
"         [--icmd none|busy|not-started|sem-held|secure-fw] [--gw-lock-held on|off]\n"
"      change a card's fault parameters; --stuck-bits: in the flash byte at ADDR the\n"
"      bits of MASK (default 0xff) never change, so a write there fails its read-back;\n"
"      --vsec-sem-held: another agent holds the VSEC gateway's semaphore from power-on\n"
"      until a tool writes 0 to it (cxflash --clear-semaphore, mstmcra -c);\n"
"      --hcr: the settings interface's firmware is not started (status 4 to every\n"
"      command), too old (status 2), finds its settings corrupt (MNVA status 0x22),\n"
"      its semaphore 0xf03bc is held for good, or its go bit never clears;\n"
"      --icmd (cx4, cx4lx, cx5 with firmware): ICMD's go bit never clears, ICMD is not\n"
"      started (static configuration not done), its semaphore is held by another agent,\n"
"      or MGIR reports secure firmware; --gw-lock-held (cx4, cx4lx, cx5): another agent\n"
"      holds the gateway lock (0xf0400 bit 31) until a client force-releases it\n"
"  serve DIR STEM... [--wall-clock] [--log FILE]\n"
"      serve the cards as a fake sysfs PCI tree at DIR (FUSE) until SIGTERM/SIGINT;\n"
"      DIR/devices/0000:0N:00.0/ is the N-th card, DIR/cxsim/{clock,power-cycle,stats}\n"
"      control the simulation; --log writes one line per config and BAR0 access to\n"
"      FILE: TIME_NS BDF cfg|bar0 r|w OFFSET LEN VALUE\n"
"  replay FILE STEM [--clock accesses|recorded]\n"
"      make a cxflash trace's accesses (cxflash --record FILE) to the card STEM, in\n"
"      order, and compare each read with the recorded value; the card is not saved.\n"
"      --clock: the model's clock advances only by its accesses (the default, as\n"
"      serve without --wall-clock) or follows the trace's timestamps (serve\n"
"      --wall-clock, a real card). Exit status: 0 every read as recorded (a trace\n"
"      cut short: its prefix), 1 an unreadable trace or card, 2 bad command line,\n"
"      3 a read differs (the access is printed)\n"
"\n"
"Exit status: 0 success, 1 failure, 2 bad command line.\n";

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
} commands[] = {
	{ "create", cmd_create },
	{ "boot-check", cmd_boot_check },
	{ "fault", cmd_fault },
	{ "serve", cmd_serve },
	{ "replay", cmd_replay },
};

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		fputs(usage_text, stderr);
		return CLI_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		fputs(usage_text, stdout);
		return CLI_OK;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name)) {
			/* One text for all: "cxsim create --help" is the same help. */
			if (argc == 3 && (!strcmp(argv[2], "-h") || !strcmp(argv[2], "--help"))) {
				fputs(usage_text, stdout);
				return CLI_OK;
			}
			return commands[i].run(argc - 1, argv + 1);
		}
	fprintf(stderr, "cxsim: unknown command '%s'\n", argv[1]);
	fputs(usage_text, stderr);
	return CLI_USAGE;
}
