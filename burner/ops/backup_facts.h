/* SPDX-License-Identifier: GPL-2.0-or-later */
/* backup_facts.h — what a flash dump says about the card, for a backup bundle's
 * identity.json and its name, whatever the image format.
 *
 * backup_facts_fs2() reads a ConnectX-2/3 dump (ops/devimage.h), backup_facts_fs3() a
 * ConnectX-4/4 Lx/5 one (image/fs3.h); both fill the same struct. A damaged or absent
 * image is recorded (have_image false, error set), never returned: a card whose image
 * is damaged is the one that most needs a backup. Only CX_ENOMEM is an error.
 *
 * The FS3/FS4 identity is the card's device data (DEV_INFO, fs3-format.md §6.2): one
 * base GUID and one base MAC, each with a count. identity.json keeps its FS2 keys for
 * them: guids.node is the base GUID (port1, port2, sys_image 0), macs.port1 the base MAC
 * (port2 0), guid_entries the GUID count; image_format says which reading applies.
 *
 * *ini points at the board .ini section (zlib) inside the reader's copy, or is NULL; it
 * stays valid until backup_facts_release(). backup_facts_free() releases everything.
 */
#ifndef CX_BACKUP_FACTS_H
#define CX_BACKUP_FACTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/status.h"

struct backup_facts {
	bool have_image;
	int verdict;                   /* the format's verdict: CX_OK, or why not bootable */
	char error[CX_MSG_MAX];        /* why no image, or the verdict's line */
	const char *format;            /* "FS2", "FS3", "FS4"; NULL without an image */
	uint32_t start;
	unsigned slot;
	bool failsafe;
	size_t size;
	char fw_version[24];           /* empty if the image has none */
	char psid[17];
	char vsd[209];
	int guid_entries;
	bool guids_blank;
	uint64_t guid[4];              /* node, port1, port2, sys_image */
	uint64_t mac[2];
	bool macs_derived;
	char rom_type[16], rom_version[24]; /* empty if no ROM */
	void *held;                    /* the reader's state *ini points into */
	bool held_fs2;                 /* ... a struct dev_image (else a struct fs3_image) */
};

int backup_facts_fs2(const uint8_t *flash, uint32_t size, unsigned start_positions, struct backup_facts *x,
		     const uint8_t **ini, size_t *ini_len);
int backup_facts_fs3(const uint8_t *flash, uint32_t size, struct backup_facts *x, const uint8_t **ini,
		     size_t *ini_len);

void backup_facts_release(struct backup_facts *x);
void backup_facts_free(struct backup_facts *x);

#endif
