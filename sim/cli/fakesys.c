/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fakesys.c — the FUSE file tree of `cxsim serve`: sysfs PCI devices plus a control folder.
 *
 *   devices/0000:0N:00.0/{vendor,device,subsystem_vendor,subsystem_device,class,revision,
 *                         config,resource,resource0,numa_node,irq,enable}
 *   cxsim/{clock,power-cycle,stats}
 *
 * `config` is served with direct_io and no page cache: every pread/pwrite is one
 * model access (build-notes.md: cached reads of 0x5c broke mstflint's semaphore
 * handling). `resource0` goes through the page cache so that it can be mmapped;
 * it reads all-ones, which makes mstflint use config cycles. No symlinks: a
 * sysfs-style relative link would resolve into the real /sys.
 */
#define FUSE_USE_VERSION 35
#include <fuse.h>

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report.h"
#include "serve.h"

enum node_kind { N_ROOT, N_DEVICES, N_CARD_DIR, N_CARD_FILE, N_CTL_DIR, N_CTL_FILE };

enum card_file {
	F_VENDOR, F_DEVICE, F_SUBSYS_VENDOR, F_SUBSYS_DEVICE, F_CLASS, F_REVISION, F_CONFIG,
	F_RESOURCE, F_RESOURCE0, F_NUMA_NODE, F_IRQ, F_ENABLE,
};

enum ctl_file { C_CLOCK, C_POWER_CYCLE, C_STATS };

struct file_desc {
	const char *name;
	mode_t mode;
};

/* Indexed by enum card_file; modes as sysfs has them. */
static const struct file_desc card_files[] = {
	[F_VENDOR] = { "vendor", 0444 },
	[F_DEVICE] = { "device", 0444 },
	[F_SUBSYS_VENDOR] = { "subsystem_vendor", 0444 },
	[F_SUBSYS_DEVICE] = { "subsystem_device", 0444 },
	[F_CLASS] = { "class", 0444 },
	[F_REVISION] = { "revision", 0444 },
	[F_CONFIG] = { "config", 0644 },
	[F_RESOURCE] = { "resource", 0444 },
	[F_RESOURCE0] = { "resource0", 0600 },
	[F_NUMA_NODE] = { "numa_node", 0444 },
	[F_IRQ] = { "irq", 0444 },
	[F_ENABLE] = { "enable", 0444 },
};
#define N_CARD_FILES (sizeof(card_files) / sizeof(card_files[0]))

static const struct file_desc ctl_files[] = {
	[C_CLOCK] = { "clock", 0200 },
	[C_POWER_CYCLE] = { "power-cycle", 0200 },
	[C_STATS] = { "stats", 0444 },
};
#define N_CTL_FILES (sizeof(ctl_files) / sizeof(ctl_files[0]))

/* BAR layout shown in `resource` (only BAR0 matters: 1 MiB, hw-access.md §2.2). BAR0 is where the
 * model's BAR register points at power-on; the file is not read from config space, so
 * that looking at the tree costs the model no accesses. */
#define BAR0_BASE      0xfb000000ull
#define BAR2_BASE      0xe0000000ull
#define BAR2_SIZE      0x00800000ull
#define RES_MEM_FLAGS  0x00040200ull   /* IORESOURCE_MEM | IORESOURCE_SIZEALIGN */
#define RES_PREF_FLAGS 0x0014220cull   /* ... | PREFETCH | MEM_64 */

struct node {
	enum node_kind kind;
	struct served_card *card;
	unsigned file;
};

/* An open file: the node, and for text files the contents generated at open. */
struct handle {
	struct node node;
	struct sbuf text;
};

static struct server *server(void)
{
	return fuse_get_context()->private_data;
}

static int find_file(const struct file_desc *files, unsigned n, const char *name)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (!strcmp(files[i].name, name))
			return (int)i;
	return -1;
}

static int resolve(const char *path, struct node *nd)
{
	struct server *s = server();
	char comp[3][64];
	unsigned n = 0, i;
	const char *p = path;
	int f;

	memset(nd, 0, sizeof(*nd));
	while (*p) {
		size_t len;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		len = strcspn(p, "/");
		if (n == 3 || len >= sizeof(comp[0]))
			return -ENOENT;
		memcpy(comp[n], p, len);
		comp[n++][len] = '\0';
		p += len;
	}
	if (n == 0) {
		nd->kind = N_ROOT;
		return 0;
	}
	if (!strcmp(comp[0], "cxsim")) {
		if (n == 1) {
			nd->kind = N_CTL_DIR;
			return 0;
		}
		if (n > 2 || (f = find_file(ctl_files, N_CTL_FILES, comp[1])) < 0)
			return -ENOENT;
		nd->kind = N_CTL_FILE;
		nd->file = (unsigned)f;
		return 0;
	}
	if (strcmp(comp[0], "devices"))
		return -ENOENT;
	if (n == 1) {
		nd->kind = N_DEVICES;
		return 0;
	}
	for (i = 0; i < s->ncards && strcmp(s->cards[i].bdf, comp[1]); i++)
		;
	if (i == s->ncards)
		return -ENOENT;
	nd->card = &s->cards[i];
	if (n == 2) {
		nd->kind = N_CARD_DIR;
		return 0;
	}
	if ((f = find_file(card_files, N_CARD_FILES, comp[2])) < 0)
		return -ENOENT;
	nd->kind = N_CARD_FILE;
	nd->file = (unsigned)f;
	return 0;
}

static bool is_text(const struct node *nd)
{
	if (nd->kind == N_CTL_FILE)
		return nd->file == C_STATS;
	return nd->kind == N_CARD_FILE && nd->file != F_CONFIG && nd->file != F_RESOURCE0;
}

/* An ID file's value, and the hex digits sysfs shows it with; 0 digits: not an ID file. */
static int id_digits(enum card_file f, const struct cxsim_card *c, const struct cxsim_params *p, uint32_t *v)
{
	switch (f) {
	case F_VENDOR: *v = PCI_VENDOR_MELLANOX; return 4;
	case F_DEVICE: *v = cxsim_pci_device_now(c); return 4;
	case F_SUBSYS_VENDOR: *v = p->subsys_vendor; return 4;
	case F_SUBSYS_DEVICE: *v = p->subsys_device; return 4;
	case F_CLASS: *v = cxsim_class_now(c); return 6;
	/* The PCI revision ID; the model keeps the silicon step in crspace (hw_rev). */
	case F_REVISION: *v = p->hw_rev; return 2;
	default: return 0;
	}
}

/* The contents of a text file, as sysfs would show them now. */
static void gen_text(const struct node *nd, struct sbuf *b)
{
	struct server *s = server();
	struct served_card *sc = nd->card;
	struct cxsim_card *c;
	uint32_t v;
	int digits;

	if (nd->kind == N_CTL_FILE) {
		serve_stats_json(s, b);
		return;
	}
	c = serve_lock(s, sc);
	if ((digits = id_digits((enum card_file)nd->file, c, cxsim_get_params(c), &v)))
		sb_printf(b, "0x%0*x\n", digits, (unsigned)v);
	switch ((enum card_file)nd->file) {
	case F_RESOURCE:
		sb_printf(b, "0x%016llx 0x%016llx 0x%016llx\n", BAR0_BASE,
			  BAR0_BASE + CXSIM_BAR0_SIZE - 1,
			  RES_MEM_FLAGS);
		sb_printf(b, "0x%016llx 0x%016llx 0x%016llx\n", 0ull, 0ull, 0ull);
		sb_printf(b, "0x%016llx 0x%016llx 0x%016llx\n",
			  BAR2_BASE + sc->index * BAR2_SIZE,
			  BAR2_BASE + (sc->index + 1) * BAR2_SIZE - 1, RES_PREF_FLAGS);
		break;
	case F_NUMA_NODE:
		sb_printf(b, "-1\n");
		break;
	case F_IRQ:
		sb_printf(b, "%u\n", 16 + sc->index);
		break;
	case F_ENABLE:
		sb_printf(b, "1\n");
		break;
	default: /* an ID file (above), config and resource0 (no text) */
		break;
	}
	serve_unlock(sc);
}

static int fs_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	struct node nd;
	int rc = resolve(path, &nd);

	(void)fi;
	if (rc)
		return rc;
	memset(st, 0, sizeof(*st));
	st->st_atime = st->st_mtime = st->st_ctime = server()->started;
	st->st_uid = getuid();
	st->st_gid = getgid();
	if (nd.kind != N_CARD_FILE && nd.kind != N_CTL_FILE) {
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
		return 0;
	}
	st->st_nlink = 1;
	st->st_mode = S_IFREG | (nd.kind == N_CARD_FILE ? card_files : ctl_files)[nd.file].mode;
	if (nd.kind == N_CARD_FILE && nd.file == F_CONFIG) {
		st->st_size = CXSIM_CFG_SIZE;
	} else if (nd.kind == N_CARD_FILE && nd.file == F_RESOURCE0) {
		st->st_size = CXSIM_BAR0_SIZE;
	} else if (is_text(&nd)) {
		struct sbuf b = { 0 };

		gen_text(&nd, &b);
		st->st_size = (off_t)b.len;
		sb_free(&b);
	}
	return 0;
}

static int fs_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
		      struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	struct server *s = server();
	struct node nd;
	unsigned i;
	int rc = resolve(path, &nd);

	(void)off, (void)fi, (void)flags;
	if (rc)
		return rc;
	fill(buf, ".", NULL, 0, 0);
	fill(buf, "..", NULL, 0, 0);
	switch (nd.kind) {
	case N_ROOT:
		fill(buf, "devices", NULL, 0, 0);
		fill(buf, "cxsim", NULL, 0, 0);
		return 0;
	case N_DEVICES:
		for (i = 0; i < s->ncards; i++)
			fill(buf, s->cards[i].bdf, NULL, 0, 0);
		return 0;
	case N_CARD_DIR:
		for (i = 0; i < N_CARD_FILES; i++)
			fill(buf, card_files[i].name, NULL, 0, 0);
		return 0;
	case N_CTL_DIR:
		for (i = 0; i < N_CTL_FILES; i++)
			fill(buf, ctl_files[i].name, NULL, 0, 0);
		return 0;
	default:
		return -ENOTDIR;
	}
}

static bool writable(const struct node *nd)
{
	if (nd->kind == N_CTL_FILE)
		return nd->file != C_STATS;
	return nd->kind == N_CARD_FILE && (nd->file == F_CONFIG || nd->file == F_RESOURCE0);
}

/* May a file be opened with this access mode? The clock and power-cycle files are
 * write-only, like a sysfs trigger. */
static int check_access(const struct node *nd, int acc)
{
	if (nd->kind != N_CARD_FILE && nd->kind != N_CTL_FILE)
		return -EISDIR;
	if (acc != O_RDONLY && !writable(nd))
		return -EACCES;
	if (acc != O_WRONLY && nd->kind == N_CTL_FILE && nd->file != C_STATS)
		return -EACCES;
	return 0;
}

static int fs_open(const char *path, struct fuse_file_info *fi)
{
	struct handle *h;
	int rc;

	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	if ((rc = resolve(path, &h->node)) || (rc = check_access(&h->node, fi->flags & O_ACCMODE))) {
		free(h);
		return rc;
	}
	if (is_text(&h->node)) {
		gen_text(&h->node, &h->text);
		if (h->text.oom) {
			sb_free(&h->text);
			free(h);
			return -ENOMEM;
		}
	}
	/* Everything but resource0 bypasses the page cache: contents change under us. */
	fi->direct_io = !(h->node.kind == N_CARD_FILE && h->node.file == F_RESOURCE0);
	fi->keep_cache = 0;
	fi->nonseekable = 0;
	fi->fh = (uintptr_t)h;
	return 0;
}

static int fs_release(const char *path, struct fuse_file_info *fi)
{
	struct handle *h = (struct handle *)(uintptr_t)fi->fh;

	(void)path;
	sb_free(&h->text);
	free(h);
	return 0;
}

/* The largest access of 4, 2 or 1 bytes that is aligned at off and fits in n. */
static unsigned piece(off_t off, size_t n)
{
	if (!(off & 3) && n >= 4)
		return 4;
	if (!(off & 1) && n >= 2)
		return 2;
	return 1;
}

/* Cut *size to what a file of limit bytes holds from off on; false when off is past its end. */
static bool clip(off_t off, size_t *size, off_t limit)
{
	if (off >= limit)
		return false;
	if (*size > (size_t)(limit - off))
		*size = (size_t)(limit - off);
	return true;
}

/* Config space as sysfs serves it: little-endian, in the largest aligned pieces of 4, 2 or
 * 1 bytes, each one access of the card, logged. A read fills rbuf; a write (wbuf, rbuf
 * NULL) sends wbuf. Returns the bytes done: none past the end of the space. */
static int config_access(struct served_card *sc, char *rbuf, const char *wbuf, size_t size, off_t off)
{
	struct cxsim_card *c;
	size_t done = 0;

	if (!clip(off, &size, CXSIM_CFG_SIZE))
		return 0;
	c = serve_lock(server(), sc);
	while (done < size) {
		unsigned at = (unsigned)(off + (off_t)done), len = piece(off + (off_t)done, size - done), k;
		uint32_t v = 0;

		if (wbuf) {
			for (k = 0; k < len; k++)
				v |= (uint32_t)(uint8_t)wbuf[done + k] << (8 * k);
			cxsim_cfg_write(c, at, v, len);
		} else {
			v = cxsim_cfg_read(c, at, len);
			for (k = 0; k < len; k++)
				rbuf[done + k] = (char)(v >> (8 * k));
		}
		serve_log(server(), sc, "cfg", wbuf ? 'w' : 'r', at, len, v);
		done += len;
	}
	serve_unlock(sc);
	return (int)done;
}

static int bar0_read(struct served_card *sc, char *buf, size_t size, off_t off)
{
	struct cxsim_card *c;
	size_t done = 0;
	uint32_t first = 0;

	if (!clip(off, &size, CXSIM_BAR0_SIZE))
		return 0;
	c = serve_lock(server(), sc);
	while (done < size) {
		unsigned at = (unsigned)(off + (off_t)done), k = at & 3;
		uint32_t v = cxsim_bar0_read(c, at & ~3u);

		if (!done)
			first = v;
		for (; k < 4 && done < size; k++)
			buf[done++] = (char)(v >> (8 * k));
	}
	serve_log(server(), sc, "bar0", 'r', (unsigned)off, (unsigned)size, first);
	serve_unlock(sc);
	return (int)done;
}

/* Memory decode is off: a write goes nowhere, but the log shows that it came. */
static int bar0_write(struct served_card *sc, size_t size, off_t off)
{
	serve_lock(server(), sc);
	serve_log(server(), sc, "bar0", 'w', (unsigned)off, (unsigned)size, 0);
	serve_unlock(sc);
	return (int)size;
}

static int fs_read(const char *path, char *buf, size_t size, off_t off, struct fuse_file_info *fi)
{
	struct handle *h = (struct handle *)(uintptr_t)fi->fh;

	(void)path;
	if (is_text(&h->node)) {
		if (off < 0 || (size_t)off >= h->text.len)
			return 0;
		if (size > h->text.len - (size_t)off)
			size = h->text.len - (size_t)off;
		memcpy(buf, h->text.p + off, size);
		return (int)size;
	}
	if (h->node.kind == N_CARD_FILE && h->node.file == F_CONFIG)
		return config_access(h->node.card, buf, NULL, size, off);
	if (h->node.kind == N_CARD_FILE && h->node.file == F_RESOURCE0)
		return bar0_read(h->node.card, buf, size, off);
	return -EACCES;
}

/* "advance NS" lines: let NS nanoseconds pass on every card. */
static int ctl_clock(const char *text)
{
	struct server *s = server();
	const char *p = text;
	unsigned i;

	while (*p) {
		unsigned long long ns;
		int used = 0;

		while (*p == '\n' || *p == ' ')
			p++;
		if (!*p)
			break;
		if (sscanf(p, "advance %llu%n", &ns, &used) != 1 || !used)
			return -EINVAL;
		p += used;
		for (i = 0; i < s->ncards; i++) {
			struct cxsim_card *c = serve_lock(s, &s->cards[i]);

			cxsim_advance(c, ns);
			serve_unlock(&s->cards[i]);
		}
	}
	return 0;
}

/* A BDF, full ("0000:01:00.0") or short ("01:00.0"): power-cycle that card. */
static int ctl_power_cycle(char *text)
{
	struct server *s = server();
	size_t len = strcspn(text, " \t\n");
	unsigned i;

	text[len] = '\0';
	for (i = 0; i < s->ncards; i++) {
		struct served_card *sc = &s->cards[i];

		if (!strcmp(sc->bdf, text) || (len && !strcmp(sc->bdf + 5, text))) {
			cxsim_power_cycle(serve_lock(s, sc));
			serve_unlock(sc);
			return 0;
		}
	}
	return -ENODEV;
}

#define CTL_MAX_WRITE 4096

static int fs_write(const char *path, const char *buf, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	struct handle *h = (struct handle *)(uintptr_t)fi->fh;
	char text[CTL_MAX_WRITE + 1];
	int rc;

	(void)path;
	if (h->node.kind == N_CARD_FILE && h->node.file == F_CONFIG)
		return config_access(h->node.card, NULL, buf, size, off);
	if (h->node.kind == N_CARD_FILE && h->node.file == F_RESOURCE0)
		return bar0_write(h->node.card, size, off);
	if (h->node.kind != N_CTL_FILE || size > CTL_MAX_WRITE)
		return h->node.kind == N_CTL_FILE ? -EFBIG : -EACCES;
	memcpy(text, buf, size);
	text[size] = '\0';
	rc = h->node.file == C_CLOCK ? ctl_clock(text) : ctl_power_cycle(text);
	return rc ? rc : (int)size;
}

/* `echo x > file` opens with O_TRUNC: allow it on the writable files. */
static int fs_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
	struct node nd;
	int rc = resolve(path, &nd);

	(void)size, (void)fi;
	return rc ? rc : writable(&nd) ? 0 : -EACCES;
}

static void *fs_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	(void)conn;
	cfg->kernel_cache = 0;
	cfg->direct_io = 0;     /* per file, in fs_open */
	return fuse_get_context()->private_data;
}

static const struct fuse_operations ops = {
	.init = fs_init,
	.getattr = fs_getattr,
	.readdir = fs_readdir,
	.open = fs_open,
	.read = fs_read,
	.write = fs_write,
	.release = fs_release,
	.truncate = fs_truncate,
};

const struct fuse_operations *fakesys_operations(void)
{
	return &ops;
}
