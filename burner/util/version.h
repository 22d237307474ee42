/* SPDX-License-Identifier: GPL-2.0-or-later */
/* version.h — cxflash's version: the Makefile passes -DCXFLASH_VERSION; this is
 * the fallback for a build without it (the unit tests). */
#ifndef CX_VERSION_H
#define CX_VERSION_H

#ifndef CXFLASH_VERSION
#define CXFLASH_VERSION "0.1.0"
#endif

#endif
