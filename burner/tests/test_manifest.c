/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_manifest.c — library/manifest.c on folders of mkfs2 images: the facts of a
 * CX2, CX3 and CX3 Pro image (PSID, version, family, HW IDs, ROM, .ini), an image
 * without FW_CONF and one with blank GUIDs; junk, empty, truncated, corrupted and
 * oversized files listed with a reason; SHA-256 as coreutils computes it; folder
 * and name order, case-insensitive .bin, other names and subfolders ignored; a
 * missing folder is empty, one that is not a folder fails; the port type by each
 * rule; pinned hashes that match and that differ; lookups; JSON that python
 * parses; and mutated images that never crash the scan. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "image/imgfile.h"
#include "library/manifest.h"
#include "mkimage.h"
#include "prng.h"
#include "scratch.h"

static char top[64];             /* the temporary folder of the whole run */
static char dir_a[96], dir_b[96], dir_none[96];
static char table_path[128];
static char cx3_sha[65];         /* of a-cx3.bin, as sha256sum says */

/* ---- files ---- */

static void put(const char *dir, const char *name, const void *buf, size_t len)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_non_null(f = fopen(path, "wb"));
	assert_int_equal(fwrite(buf, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static void put_image(const char *dir, const char *name, const char *opts)
{
	size_t len;
	uint8_t *img = mkimage(opts, &len);

	put(dir, name, img, len);
	free(img);
}

/* sha256sum's answer, independent of util/sha256. */
static void sha256sum(const char *path, char out[65])
{
	char cmd[300];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "sha256sum '%s'", path);
	assert_non_null(p = popen(cmd, "r"));
	assert_non_null(fgets(out, 65, p));
	assert_int_equal(strlen(out), 64);
	pclose(p);
}

/* The offset of a structure in an image, from mkfs2's --map. */
static size_t map_offset(const char *opts, const char *what)
{
	char map[128], cmd[512], name[64];
	unsigned long off, size;
	size_t found = 0;
	FILE *f;

	snprintf(map, sizeof(map), "%s/map.txt", top);
	snprintf(cmd, sizeof(cmd), "%s --map %s", opts, map);
	size_t len;
	free(mkimage(cmd, &len));
	assert_non_null(f = fopen(map, "r"));
	while (fscanf(f, "%63s %lx %lx", name, &off, &size) == 3)
		if (!strcmp(name, what))
			found = off;
	fclose(f);
	unlink(map);
	assert_true(found > 0);
	return found;
}

/* folder A, in strcmp order:
 *   C-cx3pro.BIN   a-cx3.bin   b-cx2.bin   d-noconf.bin   e-junk.bin   f-trunc.bin
 *   g-empty.bin    h-blank.bin i-badcrc.bin
 * and, ignored: notes.txt, a-cx3.bin.bak, bin, .bin, sub/x.bin, dir.bin/ (a folder)
 * folder B: 0-copy.bin (sorts first, comes after A's) */
static int make_library(void **state)
{
	(void)state;
	size_t len;
	char path[256];

	snprintf(top, sizeof(top), "/tmp/cx-manifest-XXXXXX");
	assert_non_null(mkdtemp(top));
	snprintf(dir_a, sizeof(dir_a), "%s/a", top);
	snprintf(dir_b, sizeof(dir_b), "%s/b", top);
	snprintf(dir_none, sizeof(dir_none), "%s/none", top);
	assert_int_equal(mkdir(dir_a, 0755), 0);
	assert_int_equal(mkdir(dir_b, 0755), 0);

	put_image(dir_a, "a-cx3.bin", "--chip cx3");
	put_image(dir_a, "b-cx2.bin", "--chip cx2");
	put_image(dir_a, "C-cx3pro.BIN", "--chip cx3pro");
	put_image(dir_a, "d-noconf.bin", "--chip cx3 --no-fw-conf --psid TEST_NOCONF");
	put_image(dir_a, "h-blank.bin", "--chip cx3 --blank-guids --psid TEST_BLANK");
	put_image(dir_b, "0-copy.bin", "--chip cx3");

	uint8_t junk[4096];
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (uint8_t)(i * 7 + (i >> 5));
	put(dir_a, "e-junk.bin", junk, sizeof(junk));
	put(dir_a, "g-empty.bin", "", 0);

	uint8_t *img = mkimage("--chip cx3", &len);
	put(dir_a, "f-trunc.bin", img, len / 2);
	/* a data byte of a DDR section: the structure holds, its CRC does not */
	size_t ddr = map_offset("--chip cx3", "sect_DDR_1");
	assert_true(ddr + 64 < len);
	img[ddr + 40] ^= 0x5a;
	put(dir_a, "i-badcrc.bin", img, len);
	img[ddr + 40] ^= 0x5a;
	/* not .bin, or not a file in the folder itself */
	put(dir_a, "notes.txt", "hello\n", 6);
	put(dir_a, "a-cx3.bin.bak", img, len);
	put(dir_a, "bin", img, len);
	put(dir_a, ".bin", img, len);
	snprintf(path, sizeof(path), "%s/sub", dir_a);
	assert_int_equal(mkdir(path, 0755), 0);
	put(path, "x.bin", img, len);
	snprintf(path, sizeof(path), "%s/dir.bin", dir_a);
	assert_int_equal(mkdir(path, 0755), 0);
	put(path, "y.bin", img, len);
	free(img);

	snprintf(path, sizeof(path), "%s/a-cx3.bin", dir_a);
	sha256sum(path, cx3_sha);

	/* The board table: MT_1090120019 (cx3) pinned to its real hash and said to be
	 * IB; MT_0D80120009 (cx2) pinned to another hash. */
	char text[1024];
	snprintf(table_path, sizeof(table_path), "%s/boards.txt", top);
	snprintf(text, sizeof(text),
		 "# a test table\n"
		 "Mellanox | - | MT_1090120019 | cx3 | - | - | - | ib | - | stated | https://example.org/a | - | "
		 "2.40.5030=%064d 2.42.5000=%s\n"
		 "Mellanox | - | MT_0D80120009 | cx2 | - | - | - | - | - | stated | https://example.org/a | - | "
		 "2.9.1000=%064d\n",
		 0, cx3_sha, 1);
	put(top, "boards.txt", text, strlen(text));
	return 0;
}

static int remove_library(void **state)
{
	(void)state;
	rm_rf(top);
	return 0;
}

static void scan(const struct board_table *t, struct manifest *m)
{
	const char *dirs[] = {dir_a, dir_none, dir_b};
	struct cx_status st = {0};

	int rc = manifest_scan(dirs, 3, t, m, &st);
	if (rc)
		print_error("%s\n", st.msg);
	assert_int_equal(rc, CX_OK);
}

static void load_table(struct board_table *t)
{
	struct cx_status st = {0};

	int rc = boards_load(table_path, t, &st);
	if (rc)
		print_error("%s\n", st.msg);
	assert_int_equal(rc, CX_OK);
}

static const struct manifest_entry *by_name(const struct manifest *m, const char *name)
{
	const struct manifest_entry *e = manifest_find(m, name);

	assert_non_null(e);
	assert_string_equal(e->name, name);
	return e;
}

/* ---- tests ---- */

static void test_order(void **state)
{
	(void)state;
	static const char *const want[] = {"C-cx3pro.BIN", "a-cx3.bin",   "b-cx2.bin",   "d-noconf.bin",
					   "e-junk.bin",   "f-trunc.bin", "g-empty.bin", "h-blank.bin",
					   "i-badcrc.bin", "0-copy.bin"};
	struct manifest m;
	char path[256];

	scan(NULL, &m);
	assert_int_equal(m.n, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < m.n; i++) {
		assert_string_equal(m.e[i].name, want[i]);
		snprintf(path, sizeof(path), "%s/%s", i + 1 < m.n ? dir_a : dir_b, want[i]);
		assert_string_equal(m.e[i].path, path);
		assert_ptr_equal(m.e[i].name, m.e[i].path + strlen(path) - strlen(want[i]));
	}
	manifest_free(&m);
	assert_int_equal(m.n, 0);
	assert_null(m.e);
	assert_null(m.priv);
	manifest_free(&m); /* twice is harmless */

	/* a folder that is not there is an empty library */
	const char *none[] = {dir_none};
	struct cx_status st = {0};
	assert_int_equal(manifest_scan(none, 1, NULL, &m, &st), CX_OK);
	assert_int_equal(m.n, 0);
	manifest_free(&m);
	assert_int_equal(manifest_scan(none, 0, NULL, &m, &st), CX_OK);
	assert_int_equal(m.n, 0);
	manifest_free(&m);

	/* one that is not a folder cannot be read: the scan fails and holds nothing */
	char file[160];
	snprintf(file, sizeof(file), "%s/a-cx3.bin", dir_a);
	const char *bad[] = {dir_a, file};
	assert_int_equal(manifest_scan(bad, 2, NULL, &m, &st), CX_EIO);
	assert_non_null(strstr(st.msg, file));
	assert_int_equal(m.n, 0);
	assert_null(m.e);
}

static void test_facts(void **state)
{
	(void)state;
	struct manifest m;
	char path[256], sha[65];

	scan(NULL, &m);

	const struct manifest_entry *e = by_name(&m, "a-cx3.bin");
	assert_int_equal(e->status, CX_OK);
	assert_string_equal(e->psid, "MT_1090120019");
	assert_int_equal(e->fw_ver[0], 2);
	assert_int_equal(e->fw_ver[1], 42);
	assert_int_equal(e->fw_ver[2], 5000);
	assert_int_equal(e->dev_type, 4099);
	assert_int_equal(e->nhw_ids, 1);
	assert_int_equal(e->hw_ids[0], 0x101f5); /* rev A1 */
	assert_true(e->have_family);
	assert_int_equal(e->family, CXF_CX3);
	assert_int_equal(e->nroms, 1);
	assert_int_equal(e->roms[0].product, 0x10); /* PXE */
	assert_int_equal(e->roms[0].ver[0], 3);
	assert_int_equal(e->roms[0].ver[1], 4);
	assert_int_equal(e->roms[0].ver[2], 752);
	assert_true(e->have_ini);
	assert_non_null(e->ini_text);
	assert_int_equal(strlen(e->ini_text), e->ini_len);
	assert_non_null(strstr(e->ini_text, "[HCA]"));
	assert_string_equal(e->ini_name, "SYNTH-MCX354A-FCB");
	assert_string_equal(e->ini_description, "ConnectX-3 synthetic test adapter");
	assert_string_equal(e->ini_device_id, "0x1003");
	assert_string_equal(e->ini_subsystem_id, "0x0050");
	assert_string_equal(e->ini_class_code, "0x028000");
	assert_string_equal(e->ini_num_ports, "2");
	assert_string_equal(e->ini_flash_size, "21");
	assert_int_equal(e->pin, PIN_NONE);
	assert_int_equal(e->pin_line, 0);
	assert_string_equal(e->sha256, cx3_sha);
	snprintf(path, sizeof(path), "%s/a-cx3.bin", dir_a);
	struct stat sb;
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(e->size, (uint64_t)sb.st_size);

	e = by_name(&m, "b-cx2.bin");
	assert_int_equal(e->status, CX_OK);
	assert_string_equal(e->psid, "MT_0D80120009");
	assert_int_equal(e->fw_ver[0], 2);
	assert_int_equal(e->fw_ver[1], 9);
	assert_int_equal(e->fw_ver[2], 1000);
	assert_int_equal(e->dev_type, 26428);
	assert_int_equal(e->hw_ids[0], 0xB00190);
	assert_int_equal(e->family, CXF_CX2);
	assert_string_equal(e->ini_name, "SYNTH-MHQH29C");
	assert_string_equal(e->ini_device_id, "0x673c");
	sha256sum(e->path, sha);
	assert_string_equal(e->sha256, sha);

	e = by_name(&m, "C-cx3pro.BIN");
	assert_int_equal(e->status, CX_OK);
	assert_string_equal(e->psid, "MT_1090111023");
	assert_int_equal(e->dev_type, 4103);
	assert_int_equal(e->hw_ids[0], 0x1f7);
	assert_int_equal(e->family, CXF_CX3PRO);
	assert_string_equal(e->ini_class_code, "0x020000");
	sha256sum(e->path, sha);
	assert_string_equal(e->sha256, sha);

	e = by_name(&m, "d-noconf.bin");
	assert_int_equal(e->status, CX_OK);
	assert_string_equal(e->psid, "TEST_NOCONF");
	assert_false(e->have_ini);
	assert_null(e->ini_text);
	assert_null(e->ini_name);
	assert_null(e->ini_class_code);
	assert_int_equal(e->port, BOARD_PORT_NONE);
	assert_string_equal(e->port_basis, "unknown");

	/* blank GUIDs are how a release ships */
	e = by_name(&m, "h-blank.bin");
	assert_int_equal(e->status, CX_OK);
	assert_string_equal(e->psid, "TEST_BLANK");

	/* the same image in the second folder */
	e = by_name(&m, "0-copy.bin");
	assert_int_equal(e->status, CX_OK);
	assert_string_equal(e->sha256, cx3_sha);
	manifest_free(&m);
}

static void test_bad_files(void **state)
{
	(void)state;
	struct manifest m;
	char sha[65];

	scan(NULL, &m);
	static const char *const bad[] = {"e-junk.bin", "f-trunc.bin", "g-empty.bin", "i-badcrc.bin"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const struct manifest_entry *e = by_name(&m, bad[i]);
		if (e->status != CX_EIMAGE)
			print_error("%s: %d %s\n", bad[i], e->status, e->reason);
		assert_int_equal(e->status, CX_EIMAGE);
		assert_true(strlen(e->reason) > 5);
		assert_null(strchr(e->reason, '\n'));
		/* hashed all the same: `library check` names the file by its content too */
		sha256sum(e->path, sha);
		assert_string_equal(e->sha256, sha);
		assert_int_equal(e->pin, PIN_NONE);
		/* never found by PSID, only by name */
		assert_ptr_equal(manifest_find(&m, e->path), e);
	}
	assert_int_equal(by_name(&m, "e-junk.bin")->size, 4096);
	assert_int_equal(by_name(&m, "g-empty.bin")->size, 0);
	assert_non_null(strstr(by_name(&m, "g-empty.bin")->reason, "empty"));
	assert_non_null(strstr(by_name(&m, "i-badcrc.bin")->reason, "DDR"));
	manifest_free(&m);

	/* one file of any name; a missing one is an entry that says so */
	struct cx_status st = {0};
	char path[256];
	snprintf(path, sizeof(path), "%s/nothing.bin", top);
	assert_int_equal(manifest_add_file(&m, path, NULL, &st), CX_OK);
	snprintf(path, sizeof(path), "%s/notes.txt", dir_a);
	assert_int_equal(manifest_add_file(&m, path, NULL, &st), CX_OK);
	snprintf(path, sizeof(path), "%s/a-cx3.bin.bak", dir_a);
	assert_int_equal(manifest_add_file(&m, path, NULL, &st), CX_OK);
	assert_int_equal(manifest_add_file(&m, dir_a, NULL, &st), CX_OK);
	assert_int_equal(m.n, 4);
	assert_int_equal(m.e[0].status, CX_EIO);
	assert_non_null(strstr(m.e[0].reason, "nothing.bin"));
	assert_string_equal(m.e[0].sha256, "");
	assert_int_equal(m.e[1].status, CX_EIMAGE);
	assert_int_equal(m.e[2].status, CX_OK);
	assert_string_equal(m.e[2].name, "a-cx3.bin.bak");
	assert_string_equal(m.e[2].psid, "MT_1090120019");
	assert_int_equal(m.e[3].status, CX_EIMAGE);
	assert_string_equal(m.e[3].reason, "not a regular file");
	manifest_free(&m);

	/* too big to be an image: refused unread (a sparse file costs nothing) */
	snprintf(path, sizeof(path), "%s/huge.bin", top);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)IMGFILE_MAX + 1), 0);
	close(fd);
	assert_int_equal(manifest_add_file(&m, path, NULL, &st), CX_OK);
	assert_int_equal(m.e[0].status, CX_EIMAGE);
	assert_int_equal(m.e[0].size, (uint64_t)IMGFILE_MAX + 1);
	assert_string_equal(m.e[0].reason, "67108865 bytes; a firmware image is at most 64 MiB");
	assert_string_equal(m.e[0].sha256, "");
	manifest_free(&m);
	/* exactly the limit is read (and is no image) */
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)IMGFILE_MAX), 0);
	close(fd);
	assert_int_equal(manifest_add_file(&m, path, NULL, &st), CX_OK);
	assert_int_equal(m.e[0].status, CX_EIMAGE);
	assert_int_equal(strlen(m.e[0].sha256), 64);
	manifest_free(&m);
	unlink(path);
}

static void test_too_many(void **state)
{
	(void)state;
	char dir[128], name[32];
	struct manifest m;
	struct cx_status st = {0};

	snprintf(dir, sizeof(dir), "%s/many", top);
	assert_int_equal(mkdir(dir, 0755), 0);
	for (int i = 0; i <= MANIFEST_MAX_FILES; i++) {
		snprintf(name, sizeof(name), "%04d.bin", i);
		put(dir, name, "", 0);
	}
	const char *dirs[] = {dir};
	assert_int_equal(manifest_scan(dirs, 1, NULL, &m, &st), CX_EUNSUPPORTED);
	assert_non_null(strstr(st.msg, "more than 1024"));
	assert_int_equal(m.n, 0);
	assert_null(m.e);
	/* one fewer is fine */
	char path[160];
	snprintf(path, sizeof(path), "%s/0000.bin", dir);
	unlink(path);
	cx_status_clear(&st);
	assert_int_equal(manifest_scan(dirs, 1, NULL, &m, &st), CX_OK);
	assert_int_equal(m.n, MANIFEST_MAX_FILES);
	assert_string_equal(m.e[0].name, "0001.bin");
	manifest_free(&m);
}

static void test_port_type(void **state)
{
	(void)state;
	struct board_table t;
	struct manifest m;
	char basis[160], want[200];

	/* without a table: the .ini's class code */
	scan(NULL, &m);
	const struct manifest_entry *e = by_name(&m, "a-cx3.bin");
	assert_int_equal(e->port, BOARD_PORT_VPI);
	assert_string_equal(e->port_basis, ".ini hca_header_class_code 0x028000: network controller (inferred)");
	e = by_name(&m, "b-cx2.bin");
	assert_int_equal(e->port, BOARD_PORT_VPI);
	e = by_name(&m, "C-cx3pro.BIN");
	assert_int_equal(e->port, BOARD_PORT_EN);
	assert_string_equal(e->port_basis, ".ini hca_header_class_code 0x020000: Ethernet controller (inferred)");
	manifest_free(&m);

	/* the table's row wins over the .ini; a row without a port does not count */
	load_table(&t);
	scan(&t, &m);
	e = by_name(&m, "a-cx3.bin");
	assert_int_equal(e->port, BOARD_PORT_IB);
	snprintf(want, sizeof(want), "board table: MT_1090120019 is ib (%s:2)", table_path);
	assert_string_equal(e->port_basis, want);
	e = by_name(&m, "b-cx2.bin");
	assert_int_equal(e->port, BOARD_PORT_VPI);
	manifest_free(&m);

	/* ConnectX-2 Ethernet-only device types (fs2-format.md §6), before the .ini */
	static const uint16_t eth[] = {25448, 26448, 25458, 26458, 26468, 26478};
	const char *vpi_ini = "[HCA]\nhca_header_class_code = 0x028000\n";
	for (size_t i = 0; i < sizeof(eth) / sizeof(eth[0]); i++) {
		assert_int_equal(manifest_port_type(eth[i], "X_1", vpi_ini, strlen(vpi_ini), NULL, basis, sizeof(basis)),
				 BOARD_PORT_EN);
		snprintf(want, sizeof(want), "device type %u is an Ethernet-only ConnectX-2", eth[i]);
		assert_string_equal(basis, want);
	}
	/* other CX2 types are not */
	assert_int_equal(manifest_port_type(26428, "X_1", NULL, 0, NULL, basis, sizeof(basis)), BOARD_PORT_NONE);
	assert_string_equal(basis, "unknown");
	assert_int_equal(manifest_port_type(26488, "X_1", vpi_ini, strlen(vpi_ini), NULL, basis, sizeof(basis)),
			 BOARD_PORT_VPI);
	/* but a table row beats the device type */
	assert_int_equal(manifest_port_type(25448, "MT_1090120019", NULL, 0, &t, basis, sizeof(basis)), BOARD_PORT_IB);
	assert_int_equal(manifest_port_type(25448, "MT_0D80120009", NULL, 0, &t, basis, sizeof(basis)), BOARD_PORT_EN);

	/* class codes: the interface byte is free; other classes and bad values say nothing */
	static const struct {
		const char *ini;
		enum board_port port;
	} cc[] = {
		{"[HCA]\nhca_header_class_code = 0x020000\n", BOARD_PORT_EN},
		{"[hca]\nHCA_HEADER_CLASS_CODE=0x0200ff\n", BOARD_PORT_EN},
		{"[HCA]\nhca_header_class_code = 0x028000\n", BOARD_PORT_VPI},
		{"[HCA]\nhca_header_class_code = 0x0c0600\n", BOARD_PORT_VPI},
		{"[HCA]\nhca_header_class_code = 131072\n", BOARD_PORT_EN}, /* 0x020000 in decimal */
		{"[HCA]\nhca_header_class_code = 0x010000\n", BOARD_PORT_NONE},
		{"[HCA]\nhca_header_class_code = 0x0c0300\n", BOARD_PORT_NONE},
		{"[HCA]\nhca_header_class_code = 0x1020000\n", BOARD_PORT_NONE},
		{"[HCA]\nhca_header_class_code = -0x020000\n", BOARD_PORT_NONE},
		{"[HCA]\nhca_header_class_code = 0x020000 junk\n", BOARD_PORT_NONE},
		{"[HCA]\nhca_header_class_code = \n", BOARD_PORT_NONE},
		{"[HCA]\nhca_header_class_code = Ethernet\n", BOARD_PORT_NONE},
		{"[IB]\nhca_header_class_code = 0x020000\n", BOARD_PORT_NONE}, /* wrong section */
		{"hca_header_class_code = 0x020000\n", BOARD_PORT_NONE},
		{"", BOARD_PORT_NONE},
	};
	for (size_t i = 0; i < sizeof(cc) / sizeof(cc[0]); i++) {
		enum board_port p = manifest_port_type(4099, "X_1", cc[i].ini, strlen(cc[i].ini), &t, basis, sizeof(basis));
		if (p != cc[i].port)
			print_error("%s-> %d (%s)\n", cc[i].ini, p, basis);
		assert_int_equal(p, cc[i].port);
		if (p == BOARD_PORT_NONE)
			assert_string_equal(basis, "unknown");
		else
			assert_non_null(strstr(basis, "(inferred)"));
	}
	/* an .ini with a NUL is no evidence; no .ini, no PSID, no table, no basis buffer */
	assert_int_equal(manifest_port_type(4099, "X_1", "[HCA]\0hca_header_class_code = 0x020000\n", 40, NULL, basis,
					    sizeof(basis)),
			 BOARD_PORT_NONE);
	assert_int_equal(manifest_port_type(4099, NULL, NULL, 0, &t, basis, sizeof(basis)), BOARD_PORT_NONE);
	assert_int_equal(manifest_port_type(25448, NULL, NULL, 0, NULL, NULL, 0), BOARD_PORT_EN);
	/* a short basis buffer is cut, not overrun */
	char small[8];
	manifest_port_type(25448, NULL, NULL, 0, NULL, small, sizeof(small));
	assert_string_equal(small, "device ");
	boards_free(&t);
}

static void test_family(void **state)
{
	(void)state;
	enum cx_family f;

	assert_true(manifest_family_of_hw(0x190, &f) && f == CXF_CX2);
	assert_true(manifest_family_of_hw(0x1f5, &f) && f == CXF_CX3);
	assert_true(manifest_family_of_hw(0x1f7, &f) && f == CXF_CX3PRO);
	assert_false(manifest_family_of_hw(0x1f6, &f));
	assert_false(manifest_family_of_hw(0, &f));
	assert_true(manifest_family_of_devtype(26428, &f) && f == CXF_CX2);
	assert_true(manifest_family_of_devtype(25448, &f) && f == CXF_CX2);
	assert_true(manifest_family_of_devtype(4097, &f) && f == CXF_CX2);
	assert_true(manifest_family_of_devtype(4099, &f) && f == CXF_CX3);
	assert_true(manifest_family_of_devtype(4112, &f) && f == CXF_CX3);
	assert_true(manifest_family_of_devtype(4103, &f) && f == CXF_CX3PRO);
	assert_false(manifest_family_of_devtype(4113, &f));
	assert_false(manifest_family_of_devtype(4096, &f));
	assert_false(manifest_family_of_devtype(0, &f));
}

static void test_pins(void **state)
{
	(void)state;
	struct board_table t;
	struct manifest m;
	char want[400];

	load_table(&t);
	scan(&t, &m);
	/* pinned and equal, in both folders */
	const struct manifest_entry *e = by_name(&m, "a-cx3.bin");
	assert_int_equal(e->status, CX_OK);
	assert_int_equal(e->pin, PIN_OK);
	assert_int_equal(e->pin_line, 2);
	assert_int_equal(by_name(&m, "0-copy.bin")->pin, PIN_OK);
	/* pinned and different: refused, with the reason */
	e = by_name(&m, "b-cx2.bin");
	assert_int_equal(e->status, CX_EMISMATCH);
	assert_int_equal(e->pin, PIN_MISMATCH);
	assert_int_equal(e->pin_line, 3);
	snprintf(want, sizeof(want),
		 "sha256 %.12s... differs from the one pinned for MT_0D80120009 2.9.1000 (%s:3): refused", e->sha256,
		 table_path);
	assert_string_equal(e->reason, want);
	/* its facts stay: the reason names what it is */
	assert_string_equal(e->psid, "MT_0D80120009");
	assert_int_equal(e->family, CXF_CX2);
	/* not pinned: another PSID, or no row */
	assert_int_equal(by_name(&m, "C-cx3pro.BIN")->pin, PIN_NONE);
	assert_int_equal(by_name(&m, "C-cx3pro.BIN")->status, CX_OK);
	assert_int_equal(by_name(&m, "d-noconf.bin")->pin, PIN_NONE);
	/* a damaged copy of a pinned release keeps its first reason */
	e = by_name(&m, "i-badcrc.bin");
	assert_int_equal(e->status, CX_EIMAGE);
	assert_int_equal(e->pin, PIN_MISMATCH);
	assert_non_null(strstr(e->reason, "DDR"));

	/* lookups: by name, by path, by PSID (usable entries only, the first one) */
	assert_int_equal(by_name(&m, "b-cx2.bin")->status, CX_EMISMATCH); /* a name finds it all the same */
	assert_ptr_equal(manifest_find(&m, "MT_1090120019"), by_name(&m, "a-cx3.bin"));
	assert_ptr_equal(manifest_find(&m, by_name(&m, "0-copy.bin")->path), by_name(&m, "0-copy.bin"));
	assert_ptr_equal(manifest_find(&m, "MT_1090111023"), by_name(&m, "C-cx3pro.BIN"));
	assert_null(manifest_find(&m, "MT_0D80120009")); /* refused */
	assert_null(manifest_find(&m, "c-cx3pro.bin"));  /* names are exact */
	assert_null(manifest_find(&m, "MT_10901200"));
	assert_null(manifest_find(&m, ""));
	assert_null(manifest_find(&m, NULL));
	manifest_free(&m);
	boards_free(&t);
}

/* python3 reads the JSON and checks its shape: argv[1] the file, argv[2] the
 * SHA-256 of a-cx3.bin. */
static const char json_check[] =
	"import json, sys\n"
	"d = json.load(open(sys.argv[1]))\n"
	"f = {e[\"name\"]: e for e in d[\"files\"]}\n"
	"assert [e[\"name\"] for e in d[\"files\"]][:2] == [\"C-cx3pro.BIN\", \"a-cx3.bin\"]\n"
	"assert len(d[\"files\"]) == 10\n"
	"a = f[\"a-cx3.bin\"]\n"
	"assert a[\"status\"] == \"ok\" and a[\"reason\"] is None and a[\"pin\"] == \"ok\"\n"
	"assert a[\"psid\"] == \"MT_1090120019\" and a[\"fw_version\"] == \"2.42.5000\"\n"
	"assert a[\"dev_type\"] == 4099 and a[\"family\"] == \"cx3\" and a[\"sha256\"] == sys.argv[2]\n"
	"assert a[\"hw_ids\"] == [{\"hw_id\": \"0x1f5\", \"rev\": 1}]\n"
	"assert a[\"roms\"] == [{\"type\": \"PXE\", \"version\": \"3.4.752\"}]\n"
	"assert a[\"port\"] == \"ib\" and a[\"port_basis\"].startswith(\"board table\")\n"
	"assert a[\"ini\"] == {\"name\": \"SYNTH-MCX354A-FCB\", \"description\": \"ConnectX-3 synthetic test adapter\",\n"
	"  \"device_id\": \"0x1003\", \"subsystem_id\": \"0x0050\", \"class_code\": \"0x028000\", \"num_ports\": \"2\",\n"
	"  \"flash_size\": \"21\"}\n"
	"assert a[\"size\"] > 0 and a[\"path\"].endswith(\"/a-cx3.bin\")\n"
	"b = f[\"b-cx2.bin\"]\n"
	"assert b[\"status\"] == \"mismatch\" and b[\"pin\"] == \"mismatch\" and \"refused\" in b[\"reason\"]\n"
	"assert b[\"hw_ids\"] == [{\"hw_id\": \"0x190\", \"rev\": 176}] and b[\"family\"] == \"cx2\"\n"
	"assert f[\"C-cx3pro.BIN\"][\"port\"] == \"en\"\n"
	"assert f[\"d-noconf.bin\"][\"ini\"] is None and f[\"d-noconf.bin\"][\"port\"] == \"unknown\"\n"
	"j = f[\"e-junk.bin\"]\n"
	"assert j[\"status\"] == \"bad-image\" and j[\"reason\"] and len(j[\"sha256\"]) == 64\n"
	"assert j[\"psid\"] is None and j[\"ini\"] is None and j[\"hw_ids\"] is None and j[\"pin\"] is None\n";

static void test_json(void **state)
{
	(void)state;
	struct board_table t;
	struct manifest m;
	char path[160], script[160], cmd[600];
	FILE *f;

	load_table(&t);
	scan(&t, &m);
	snprintf(path, sizeof(path), "%s/manifest.json", top);
	assert_non_null(f = fopen(path, "w"));
	manifest_write_json(&m, f);
	assert_int_equal(fclose(f), 0);

	snprintf(script, sizeof(script), "%s/check.py", top);
	put(top, "check.py", json_check, strlen(json_check));
	snprintf(cmd, sizeof(cmd), "python3 '%s' '%s' '%s'", script, path, cx3_sha);
	int rc = system(cmd);
	if (rc)
		print_error("python3 rejected %s\n", path);
	assert_int_equal(rc, 0);
	manifest_free(&m);

	/* an empty library is {"files":[]} */
	assert_non_null(f = fopen(path, "w"));
	manifest_write_json(&m, f);
	assert_int_equal(fclose(f), 0);
	char text[64] = {0};
	assert_non_null(f = fopen(path, "r"));
	assert_true(fread(text, 1, sizeof(text) - 1, f) > 0);
	fclose(f);
	assert_string_equal(text, "{\"files\":[]}\n");
	unlink(path);
	boards_free(&t);
}

static uint32_t rng = 0x9e3779b9;

/* Flipped bytes anywhere, the .ini's zlib stream included: an entry, never a crash. */
static void test_mutations(void **state)
{
	(void)state;
	struct board_table t;
	struct manifest m = {0};
	struct cx_status st = {0};
	char path[160];
	size_t len;
	uint8_t *img = mkimage("--chip cx3", &len), *mut = malloc(len);
	size_t conf = map_offset("--chip cx3", "sect_FW_CONF");

	assert_non_null(mut);
	load_table(&t);
	snprintf(path, sizeof(path), "%s/mut.bin", top);
	for (int round = 0; round < 300; round++) {
		memcpy(mut, img, len);
		for (int k = 1 + (int)(prng32(&rng) % 3); k; k--) {
			/* half of them in FW_CONF, which only the .ini reader looks inside */
			size_t at = round % 2 ? conf + prng32(&rng) % (len - conf) : prng32(&rng) % len;
			mut[at] = (uint8_t)prng32(&rng);
		}
		put(top, "mut.bin", mut, round % 7 ? len : prng32(&rng) % len);
		assert_int_equal(manifest_add_file(&m, path, &t, &st), CX_OK);
		const struct manifest_entry *e = &m.e[m.n - 1];
		assert_true(e->status == CX_OK || e->status == CX_EIMAGE || e->status == CX_EMISMATCH);
		assert_true(e->status == CX_OK || e->reason[0]);
	}
	/* the JSON of all that is still one line python would take; at least its ends */
	char *buf = NULL;
	size_t blen = 0;
	FILE *f = open_memstream(&buf, &blen);
	assert_non_null(f);
	manifest_write_json(&m, f);
	fclose(f);
	assert_int_equal(strncmp(buf, "{\"files\":[{", 11), 0);
	assert_string_equal(buf + blen - 4, "}]}\n");
	free(buf);
	manifest_free(&m);
	boards_free(&t);
	free(mut);
	free(img);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_facts),
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_too_many),
		cmocka_unit_test(test_port_type),
		cmocka_unit_test(test_family),
		cmocka_unit_test(test_pins),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_mutations),
	};
	return cmocka_run_group_tests_name("manifest", tests, make_library, remove_library);
}
