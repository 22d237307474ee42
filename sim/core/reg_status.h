/* SPDX-License-Identifier: GPL-2.0-or-later */
/* reg_status.h — the register status an access register answers with, in the operation
 * TLV's status field (return_by_reg_status, mtcr_ul/mtcr_ul_com.c@4.21 and @4.25): shared
 * by the 4th generation's registers (reg_access.c) and the 5th's (access_regs_cx4.c,
 * nv_regs_cx4.c). */
#ifndef CXSIM_REG_STATUS_H
#define CXSIM_REG_STATUS_H

enum {
	REG_OK = 0,
	REG_BUSY = 1,              /* ME_REG_ACCESS_DEV_BUSY */
	REG_UNKNOWN_TLV = 3,
	REG_NOT_SUPP = 4,
	REG_CLASS_NOT_SUPP = 5,
	REG_METHOD_NOT_SUPP = 6,
	REG_BAD_PARAM = 7,
	REG_RES_NOT_AVLBL = 8,
	REG_CONF_CORRUPT = 0x22,
	REG_INTERNAL_ERROR = 0x70,
};

#define METHOD_GET 1               /* MACCESS_REG_METHOD_GET, mtcr_com_defs.h */
#define METHOD_SET 2               /* MACCESS_REG_METHOD_SET, ibid. */

#endif
