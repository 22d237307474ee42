/* SPDX-License-Identifier: GPL-2.0-or-later */
/* manifest.h — what the firmware files in the library folders are.
 *
 * Vendor firmware is never part of cxrescue: users drop released .bin images
 * into library/firmware/ before make (or FIRMWARE_DIR=), or into the stick's
 * cxrescue/firmware/. manifest_scan() reads every regular file ending in .bin
 * (case-insensitive) in each folder, in name order, and records for each:
 *
 *   its SHA-256 and size;
 *   what the image says about itself (fs2-format.md §3.2): PSID, FW version,
 *     device type (tag 3), the HW IDs and revisions it runs on (tag 10), the
 *     chip family those name, the expansion ROMs (§4.5);
 *   the key facts of its board .ini (FW_CONF, §5), when it has one;
 *   its port type (EN, VPI/IB or unknown) and the evidence for it
 *     (manifest_port_type());
 *   whether the board table pins its hash (boards.h, the pins field): an image
 *     whose PSID and version are pinned and whose SHA-256 differs is refused.
 *
 * A file that is not a sound image (fs2_parse/fs2_verdict fail; blank GUIDs are
 * fine in a release) is listed with status CX_EIMAGE and its reason, never
 * dropped silently, so `cxflash library check` can name it; so is one that
 * cannot be read (CX_EIO). A folder that does not exist is no error (an empty
 * library); one that cannot be read is CX_EIO. Only a file of at most
 * IMGFILE_MAX bytes is read (and hashed). Subfolders are never entered.
 */
#ifndef CX_MANIFEST_H
#define CX_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "image/info.h"
#include "image/rom.h"
#include "library/boards.h"
#include "util/status.h"

#define MANIFEST_MAX_FILES 1024   /* ours: per scan */

enum manifest_pin { PIN_NONE, PIN_OK, PIN_MISMATCH };

struct manifest_entry {
	char *path;                     /* as found: folder + "/" + name */
	const char *name;               /* the file name part of path */
	uint64_t size;
	char sha256[65];                /* lower-case hex; "" when the file was not read */
	int status;                     /* CX_OK: usable; CX_EIMAGE: not a sound image;
					 * CX_EMISMATCH: pinned hash differs; CX_EIO:
					 * could not be read */
	char reason[CX_MSG_MAX];        /* one line when status != CX_OK */

	/* Valid when the image parsed (status CX_OK or CX_EMISMATCH). */
	char psid[INFO_PSID_LEN + 1];
	uint16_t fw_ver[3];
	uint16_t dev_type;
	int nhw_ids;
	uint32_t hw_ids[INFO_MAX_HW_IDS];  /* (rev << 16) | hw_dev_id, tag 10 */
	bool have_family;
	enum cx_family family;          /* from hw_ids[0], else from dev_type */
	int nroms;
	struct rom_info roms[ROM_MAX_IMAGES];

	bool have_ini;
	char *ini_text;                 /* inflated FW_CONF, NUL-terminated, or NULL */
	size_t ini_len;
	/* Key facts of the .ini, NULL when absent: [PS_INFO] Name, Description;
	 * [HCA] hca_header_device_id, hca_header_subsystem_id, hca_header_class_code;
	 * [IB] num_of_ports; [FW] log_flashdev_size. They point into a parsed copy of
	 * ini_text kept in the manifest's priv, valid until manifest_free(). An
	 * FW_CONF that does not inflate or parse makes the image CX_EIMAGE. */
	const char *ini_name, *ini_description, *ini_device_id, *ini_subsystem_id,
		*ini_class_code, *ini_num_ports, *ini_flash_size;

	/* The format (image/fs3.h enum fs3_fmt: FMT_FS2, FMT_FS3, FMT_FS4) and what only
	 * FS3/FS4 files say: log2 of their slot size, their IMAGE_INFO security flags
	 * (manifest_fs3.h). 0 and false for FS2. */
	uint8_t format;
	unsigned log2_slot;
	bool mcc_en, signed_fw, secure_fw;

	enum board_port port;           /* BOARD_PORT_NONE when unknown */
	char port_basis[160];           /* why we think so, one line */

	enum manifest_pin pin;
	unsigned pin_line;              /* the board table line that pins it, 0 if none */
	/* A pin is checked whenever the image parsed, so a damaged copy of a pinned
	 * release (CX_EIMAGE) shows PIN_MISMATCH too. */
};

struct manifest {
	struct manifest_entry *e;
	size_t n;
	void *priv;                     /* the parsed .ini docs the fact pointers use */
};

/* Scan ndirs folders into m (overwritten, not freed). t may be NULL: no pins,
 * no table-based port type. Fails only on an unreadable folder, too many
 * files (CX_EUNSUPPORTED) or memory, and then m is empty; a bad file is an
 * entry with its status. */
int manifest_scan(const char *const *dirs, size_t ndirs, const struct board_table *t, struct manifest *m,
		  struct cx_status *st);

/* Add one file (any name) as the scan would, to m ({0} or a scan's). Fails
 * only on too many files or memory, adding nothing. */
int manifest_add_file(struct manifest *m, const char *path, const struct board_table *t,
		      struct cx_status *st);

void manifest_free(struct manifest *m);

/* The entry whose path or name is `which`, else the first usable one whose PSID is
 * `which`; NULL if none. */
const struct manifest_entry *manifest_find(const struct manifest *m, const char *which);

/* The port type of firmware with this device type, PSID and .ini (text may be
 * NULL), with a one-line basis. In order of evidence:
 *   1. the board table's row for the PSID, when it states a port;
 *   2. ConnectX-2 device types that are Ethernet-only (flint's CntxEthOnly,
 *      fs2-format.md §6): EN;
 *   3. the .ini's [HCA] hca_header_class_code: 0x0200xx (Ethernet controller)
 *      is EN, 0x0280xx (network controller) or 0x0c06xx (InfiniBand) is VPI.
 *      UNCONFIRMED inference: stock EN boards enumerate as class 0x0200 and
 *      VPI boards as 0x0280; the .ini key is the header the FW presents.
 * BOARD_PORT_NONE with basis "unknown" when none applies. basis may be NULL. */
enum board_port manifest_port_type(uint16_t dev_type, const char *psid, const char *ini_text, size_t ini_len,
				   const struct board_table *t, char *basis, size_t basis_len);

/* The family of a HW ID (the low 16 bits of a tag 10 entry) or of a device
 * type (tag 3, fs2-format.md §6); false if unknown. */
bool manifest_family_of_hw(uint16_t hw_id, enum cx_family *f);
bool manifest_family_of_devtype(uint16_t dev_type, enum cx_family *f);

/* One JSON object {"files": [...]} describing every entry (the manifest.json the
 * image carries): path, name, size, sha256, status (cx_code_name()), reason,
 * then the image's facts, which are null unless it parsed (status ok or
 * mismatch): psid, fw_version "X.Y.Z", dev_type, family, hw_ids [{hw_id
 * "0x1f5", rev}], roms [{type, version}], port ("en", "vpi", "ib" or
 * "unknown"), port_basis, pin ("none", "ok", "mismatch"), and ini {name,
 * description, device_id, subsystem_id, class_code, num_ports, flash_size}
 * (strings as the .ini writes them, null when absent) or null. */
void manifest_write_json(const struct manifest *m, FILE *out);

#endif
