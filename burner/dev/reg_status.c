/* SPDX-License-Identifier: GPL-2.0-or-later */
/* reg_status.c — what an access register's status means (return_by_reg_status, mtcr_ul/mtcr_ul_com.c@4.21). */
#include "dev/reg_status.h"

const char *reg_status_text(unsigned s)
{
	switch (s) {
	case 0x01: return "the device is busy";
	case 0x02: return "the register version is not supported";
	case 0x03: return "unknown TLV";
	case 0x04: return "the firmware does not support this register";
	case 0x05: return "class not supported";
	case 0x06: return "method not supported";
	case 0x07: return "bad parameter";
	case 0x08: return "resource not available";
	case 0x09: return "message receipt acknowledged";
	case 0x20: return "bad configuration";
	case 0x21: return "flash erase count exceeded";
	case 0x22: return "the card's settings store is corrupt";
	case 0x24: return "TLV length too small";
	case 0x70: return "internal firmware error";
	default: return "unknown register status";
	}
}
