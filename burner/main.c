/* SPDX-License-Identifier: GPL-2.0-or-later */
/* main.c — cxflash, the cxrescue burner for ConnectX-2/3/3 Pro firmware. */
#include "cli/cli.h"

int main(int argc, char **argv)
{
	return cli_main(argc, argv);
}
