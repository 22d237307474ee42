/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The IMAGE_INFO section (type 10): the tag list of fs2-format.md §3.2. */
#include <stdio.h>
#include <string.h>

#include "be.h"
#include "sections.h"

/* §3.2 tag ids (mstflint fs2_ops.h). */
#define II_FORMAT_REV	0
#define II_FW_VERSION	1
#define II_BUILD_TIME	2
#define II_DEVICE_TYPE	3
#define II_PSID		4
#define II_VSD		5
#define II_PRODUCT_VER	7
#define II_VSD_VENDOR	8
#define II_HW_DEVS_ID	10
#define II_MIC_VERSION	11
#define II_CONFIG_AREA	19
#define II_PS_INFO	20
#define II_END		0xFF

#define TAG_ID_SHIFT	24		/* header: id in 31:24, length in 23:0 */
#define FORMAT_REV	1		/* real CX3-Pro value */
#define MELLANOX_VENDOR	0x15B3
#define PRODUCT_VER_LEN	16		/* tag 7: 16 bytes ASCII */
#define MIC_MAJOR	2		/* real CX3-Pro: 00020000 00000000 */
/* Tag 19 as in the real image: 2 config sectors, no pad, 2^2 KiB sectors. */
#define CONFIG_SECTORS	2
#define CONFIG_PAD	0
#define LOG_SECTOR_KIB	2

struct tag_ctx {
	struct buf *b;
	struct map *m;
	size_t hdr;
};

static void tag_begin(struct tag_ctx *t, unsigned int id)
{
	t->hdr = buf_append_be32(t->b, (uint32_t)id << TAG_ID_SHIFT);
}

/* Pad the payload to a dword and write its length into the header. */
static void tag_end(struct tag_ctx *t)
{
	uint32_t len;
	unsigned int id = t->b->data[t->hdr];

	while ((t->b->len - t->hdr) % 4)
		buf_append_byte(t->b, 0, 1);
	len = (uint32_t)(t->b->len - t->hdr - 4);
	put_be32(t->b->data + t->hdr, (uint32_t)id << TAG_ID_SHIFT | len);
	map_add(t->m, (uint32_t)t->hdr, len + 4, "info_tag_%u", id);
}

static void tag_dwords(struct tag_ctx *t, unsigned int id, const uint32_t *v, size_t n)
{
	size_t i;

	tag_begin(t, id);
	for (i = 0; i < n; i++)
		buf_append_be32(t->b, v[i]);
	tag_end(t);
}

/* A fixed-size NUL-padded string (PSID, VSD, product version). */
static void tag_string(struct tag_ctx *t, unsigned int id, const char *s, size_t size)
{
	size_t len = strnlen(s, size);

	tag_begin(t, id);
	buf_append(t->b, s, len);
	buf_append_byte(t->b, 0, size - len);
	tag_end(t);
}

void info_data(struct buf *b, const struct config *c, struct map *tag_map)
{
	struct tag_ctx t = { .b = b, .m = tag_map };
	char pver[PRODUCT_VER_LEN + 1];
	uint32_t v[3];

	/* The real CX3-Pro order: 0, 1, 2, 3, 10, 8, 4, 5, 7, 11, 19, 20, 0xFF. */
	v[0] = FORMAT_REV;
	tag_dwords(&t, II_FORMAT_REV, v, 1);

	v[0] = (uint32_t)c->fw[0] << 16;
	v[1] = (uint32_t)c->fw[1] << 16 | c->fw[2];
	tag_dwords(&t, II_FW_VERSION, v, 2);

	v[0] = FW_BUILD_TIME_BCD;
	v[1] = to_bcd(c->date[0]) << 16 | to_bcd(c->date[1]) << 8 | to_bcd(c->date[2]);
	tag_dwords(&t, II_BUILD_TIME, v, 2);

	v[0] = c->chip->dev_id;
	tag_dwords(&t, II_DEVICE_TYPE, v, 1);

	v[0] = (uint32_t)c->rev << 16 | c->chip->hw_id;	/* 0-terminated list */
	v[1] = 0;
	tag_dwords(&t, II_HW_DEVS_ID, v, 2);

	v[0] = MELLANOX_VENDOR;
	tag_dwords(&t, II_VSD_VENDOR, v, 1);

	tag_string(&t, II_PSID, c->psid, PSID_LEN);
	tag_string(&t, II_VSD, c->vsd, VSD_LEN);

	if (c->product_ver) {
		/* "02.42.50.00" for 2.42.5000, as in the real image. */
		snprintf(pver, sizeof(pver), "%02u.%02u.%02u.%02u", c->fw[0] % 100,
			 c->fw[1] % 100, c->fw[2] / 100 % 100, c->fw[2] % 100);
		tag_string(&t, II_PRODUCT_VER, pver, PRODUCT_VER_LEN);
	}

	if (c->mic) {	/* Tag 11 makes mstflint check the full-image CRC (§2.3). */
		v[0] = (uint32_t)MIC_MAJOR << 16;
		v[1] = 0;
		tag_dwords(&t, II_MIC_VERSION, v, 2);
	}

	v[0] = CONFIG_SECTORS;
	v[1] = CONFIG_PAD;
	v[2] = LOG_SECTOR_KIB;
	tag_dwords(&t, II_CONFIG_AREA, v, 3);

	tag_begin(&t, II_PS_INFO);
	buf_append(b, c->prs, strlen(c->prs) + 1);
	tag_end(&t);

	/* §3.2: the end tag must end exactly at the section end. */
	tag_dwords(&t, II_END, v, 0);
}
