/* SPDX-License-Identifier: GPL-2.0-or-later */
/* guids.h — the GUID section: node/port/system GUIDs and port MACs (fs2-format.md §3.1).
 *
 * The section holds big-endian 64-bit entries. ConnectX-2/3 images have six:
 * node GUID, port 1 GUID, port 2 GUID, system-image GUID, port 1 MAC, port 2
 * MAC. Old ConnectX-2 images have only the four GUIDs; their MACs are derived
 * from the port GUIDs as flint derives them (drop the middle 16 bits). The
 * same derivation applies to a six-entry section whose MACs are blank.
 */
#ifndef CX_GUIDS_H
#define CX_GUIDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/status.h"

#define GUIDS_MAX 32        /* MAX_GUIDS, §3.1 */
#define GUIDS_NGUID 4       /* GUIDs in a ConnectX section, §3.1 */
#define GUIDS_NMAC 2        /* MACs after them, §3.1 */
#define GUIDS_FULL (GUIDS_NGUID + GUIDS_NMAC)

struct fs2_guids {
	int n;                    /* entries in the section */
	uint64_t raw[GUIDS_MAX];
	bool blank;               /* every entry all-ones, CRC 0xFFFF, §3.1 */
	uint64_t guid[GUIDS_NGUID];
	uint64_t mac[GUIDS_NMAC];
	bool macs_derived;        /* MACs computed from port GUIDs, not stored */
};

/* Decode n entries of section data (n*8 bytes) into g. */
void guids_decode(const uint8_t *data, int n, struct fs2_guids *g);

/* A MAC from a port GUID: bytes 0,1,2,5,6,7 of the GUID, §3.1. */
uint64_t guids_mac_from_guid(uint64_t guid);

/* True if a stored MAC entry is blank (low 48 bits all ones), §3.1. */
bool guids_mac_is_blank(uint64_t mac);

/* Parse a GUID: up to 16 hex digits, optional 0x, optional ':' or '-' separators. */
int guids_parse_guid(const char *s, uint64_t *out, struct cx_status *st);

/* Parse a MAC: up to 12 hex digits, optional 0x, optional ':' or '-' between
 * bytes; then apply flint's MAC checks (unicast, 48 bits). */
int guids_parse_mac(const char *s, uint64_t *out, struct cx_status *st);

/* flint's MAC validity check, §3.1: bit 40 (multicast) clear and bits 63:48 zero. */
int guids_check_mac(uint64_t mac, struct cx_status *st);

#endif
