/* SPDX-License-Identifier: GPL-2.0-or-later */
/* reg_status.h — the status an ACCESS_REGISTER answer carries in its operation TLV, in words.
 *
 * The same statuses come back whichever way the register went: the tools HCR of a
 * ConnectX-3 (dev/nv_reg.h) or ICMD of a ConnectX-4/4 Lx/5 (dev/icmd.h).
 */
#ifndef CX_REG_STATUS_H
#define CX_REG_STATUS_H

/* One phrase for status s ("method not supported", ...; "unknown register status"). */
const char *reg_status_text(unsigned s);

#endif
