/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cardinfo.h — who a card is, read once: what `list`, `match` and the wizard's
 * inventory show.
 *
 * cardinfo_read() takes an opened card (ops/device.h) and reads, without
 * writing anything: the chip and revision, the flash part, whether it is in
 * recovery mode, the FW version it runs (crspace, hw-access.md §1.2; a ConnectX-4/4 Lx/5
 * whose firmware runs: MGIR, §3.14), and what
 * it shows of the image on its flash (devimage_read_shown(), then parsed like a
 * file): PSID, FW version, GUIDs/MACs, ROM, and the board .ini inflated from
 * FW_CONF. Only those sections and the headers are read (~5 KiB and the ROM,
 * not the 1 MiB image): f.cont holds zeros elsewhere and its other items are
 * marked unread, so f is for showing and matching, never for writing; a write
 * reads what it changes itself (ops/write_procedure.h). A card
 * whose flash holds no readable image is still described: have_image is false
 * and image_error says why. Only memory and signals stop it (CX_ENOMEM,
 * CX_EINTR); a card that cannot be read is a description with its error.
 */
#ifndef CX_CARDINFO_H
#define CX_CARDINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "image/imgfile.h"
#include "ops/device.h"

struct cardinfo {
	struct pci_card pci;
	char chip[40];                  /* "ConnectX-3 A1" */
	uint16_t hw_id;                 /* 0 when the chip was not identified */
	uint8_t rev;
	char flash[96];                 /* flash_describe() */
	uint32_t flash_size;
	bool recovery;
	bool have_running;
	uint16_t running[3];            /* the FW the card runs now (a running FS3/FS4 card: MGIR's) */
	bool fw_secured;                /* a running FS3/FS4 card's MGIR: secure firmware, which takes
					 * no image but through its own signed update (ops/burn_fs3.h) */
	bool have_image;                /* f holds what the card's image shows, parsed and sound */
	struct imgfile f;
	char image_error[CX_MSG_MAX];   /* why there is no image, or "" */
	char *ini;                      /* the board .ini (malloc'd), or NULL */
	size_t ini_len;
	const char *oem;                /* ops/oem.h: from the PSID, else the subsystem vendor */
	/* A ConnectX-4/4 Lx/5 (FS3/FS4, read as q reads it, ops/devimage_fs3.h): what its flash
	 * holds; f stays empty. Its identity is its device data (DEV_INFO, fs3-format.md §6.2),
	 * which no burn writes: the base GUID and base MAC q shows (fs3_ids false when DEV_INFO
	 * is absent or blank). */
	bool have_fs3;
	char fs3_format[4], fs3_psid[17], fs3_fw[24];
	uint16_t fs3_fw_ver[3];
	bool fs3_secure;                /* IMAGE_INFO's secure_fw */
	bool fs3_ids;
	uint64_t fs3_guid, fs3_mac;
};

/* Describe the card d (opened by device_open or device_attach). */
int cardinfo_read(struct device *d, struct cardinfo *ci, struct cx_status *st);

/* The same for the card at bdf: opens it, reads, closes. An open that fails is
 * a description with image_error set, not a failure. */
int cardinfo_read_bdf(const char *sysfs, const struct pci_card *pci, struct cardinfo *ci,
		      struct cx_status *st);

void cardinfo_free(struct cardinfo *ci);

#endif
