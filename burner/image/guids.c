/* SPDX-License-Identifier: GPL-2.0-or-later */
/* guids.c — decoding, deriving and parsing GUIDs and MACs (fs2-format.md §3.1). */
#include <ctype.h>
#include <string.h>

#include "image/guids.h"
#include "util/bytes.h"

#define MAC_BITS_MASK 0x0000FFFFFFFFFFFFull /* a MAC is 48 bits, §3.1 */
#define MAC_MULTICAST_BIT (1ull << 40)      /* CheckMac, §3.1 */
#define MAC_BLANK 0x0000FFFFFFFFFFFFull

void guids_decode(const uint8_t *data, int n, struct fs2_guids *g)
{
	memset(g, 0, sizeof(*g));
	g->n = n > GUIDS_MAX ? GUIDS_MAX : n;
	g->blank = g->n > 0;
	for (int i = 0; i < g->n; i++) {
		g->raw[i] = be64(data + 8 * i);
		if (g->raw[i] != UINT64_MAX)
			g->blank = false;
	}
	for (int i = 0; i < GUIDS_NGUID && i < g->n; i++)
		g->guid[i] = g->raw[i];
	if (g->blank && g->n >= GUIDS_FULL) {
		/* Shown as stored, like flint: there is nothing to derive from. */
		g->mac[0] = g->raw[4];
		g->mac[1] = g->raw[5];
	} else if (g->n >= GUIDS_FULL && !(guids_mac_is_blank(g->raw[4]) && guids_mac_is_blank(g->raw[5]))) {
		g->mac[0] = g->raw[4];
		g->mac[1] = g->raw[5];
	} else if (g->n >= 3) {
		g->mac[0] = guids_mac_from_guid(g->raw[1]);
		g->mac[1] = guids_mac_from_guid(g->raw[2]);
		g->macs_derived = true;
	}
}

uint64_t guids_mac_from_guid(uint64_t guid)
{
	return (guid >> 40) << 24 | (guid & 0xFFFFFF);
}

bool guids_mac_is_blank(uint64_t mac)
{
	return (mac & MAC_BLANK) == MAC_BLANK;
}

/* Hex digits with optional 0x and byte separators; at most maxdigits. */
static int parse_hex(const char *s, unsigned maxdigits, uint64_t *out)
{
	uint64_t v = 0;
	unsigned digits = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s == ':' || *s == '-') {
			if (!digits || !isxdigit((unsigned char)s[1]))
				return -1;
			continue;
		}
		if (!isxdigit((unsigned char)*s) || ++digits > maxdigits)
			return -1;
		v = v << 4 | (uint64_t)(isdigit((unsigned char)*s) ? *s - '0' : (tolower((unsigned char)*s) - 'a' + 10));
	}
	*out = v;
	return 0;
}

int guids_parse_guid(const char *s, uint64_t *out, struct cx_status *st)
{
	if (parse_hex(s, 16, out))
		return cx_fail(st, CX_EVALUE, "invalid GUID '%s': expected up to 16 hex digits", s);
	return CX_OK;
}

int guids_check_mac(uint64_t mac, struct cx_status *st)
{
	if (mac & ~MAC_BITS_MASK)
		return cx_fail(st, CX_EVALUE, "invalid MAC 0x%llx: more than 48 bits",
			       (unsigned long long)mac);
	if (mac & MAC_MULTICAST_BIT)
		return cx_fail(st, CX_EVALUE, "invalid MAC %012llx: multicast bit is set",
			       (unsigned long long)mac);
	return CX_OK;
}

int guids_parse_mac(const char *s, uint64_t *out, struct cx_status *st)
{
	if (parse_hex(s, 12, out))
		return cx_fail(st, CX_EVALUE, "invalid MAC '%s': expected up to 12 hex digits", s);
	return guids_check_mac(*out, st);
}
