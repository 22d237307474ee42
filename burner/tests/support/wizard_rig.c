/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wizard_rig.c — the rig of the wizard's session tests: folders, cards, the bus, a session. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "card_fixture.h"
#include "mkimage.h"
#include "ops/device_trace.h"
#include "scratch.h"
#include "sim_cfg.h"
#include "wizard_rig.h"

/* The HP board maps to the stock one, stated (so the cross-flash is OK, not RISKY). */
static const char *const stated_rows =
	"HP | 649281-B21 | " HP_PSID " | cx3 | 103c:18d6 | MCX354A-FCBT | " STOCK_PSID " | vpi | FDR | stated | " URL
	" | - | -\n"
	"Mellanox | MCX354A-FCBT | " STOCK_PSID " | cx3 | - | MCX354A-FCBT | " STOCK_PSID " | vpi | FDR | stated | "
	URL " | - | -\n";

/* ---- a test ---------------------------------------------------------------------------- */

int rig_setup(void **state)
{
	struct rig *r = calloc(1, sizeof(*r));

	assert_non_null(r);
	scratch_dir(r->root, sizeof(r->root), "wizard");
	snprintf(r->data, sizeof(r->data), "%s/data", r->root);
	snprintf(r->fw, sizeof(r->fw), "%s/firmware", r->root);
	snprintf(r->boards, sizeof(r->boards), "%s/boards.txt", r->root);
	assert_int_equal(mkdir(r->data, 0755), 0);
	assert_int_equal(mkdir(r->fw, 0755), 0);
	write_text(r->boards, stated_rows);
	r->o.boards = r->boards;
	r->fw_dirs[0] = r->fw;
	r->o.firmware = r->fw_dirs;
	r->o.nfirmware = 1;
	r->o.data_dir = r->data;
	r->o.data_kind = "stick";
	r->o.console = "test";
	*state = r;
	return 0;
}

int rig_teardown(void **state)
{
	struct rig *r = *state;

	for (int i = 0; i < r->ncards; i++)
		cxsim_free(r->cards[i]);
	for (int i = 0; i < r->nkept; i++)
		free(r->kept[i]);
	free(r->out);
	rm_rf(r->root);
	free(r);
	return 0;
}

void rig_filter(void)
{
	if (getenv("TEST_FILTER")) /* e.g. TEST_FILTER='*rom*': the tests whose names match */
		cmocka_set_test_filter(getenv("TEST_FILTER"));
}

/* ---- cards in the slots --------------------------------------------------------------- */

/* A card of p holding opts (card_new_with) in the next slot. */
static struct cxsim_card *in_next_slot(struct rig *r, const struct cxsim_params *p, const char *opts)
{
	assert_true(r->ncards < MAX_CARDS);
	return r->cards[r->ncards++] = card_new_with(p, opts);
}

struct cxsim_card *add_card(struct rig *r, const char *opts, uint16_t sv, uint16_t sd, uint64_t guid,
			    uint64_t mac)
{
	struct cxsim_params p;
	char o[400];

	cxsim_params_default(&p, CXSIM_CX3);
	snprintf(p.flash_part, sizeof(p.flash_part), FLASH_PART);
	p.subsys_vendor = sv;
	p.subsys_device = sd;
	snprintf(o, sizeof(o), "%s --guid %016llx --mac %012llx", opts ? opts : "", (unsigned long long)guid,
		 (unsigned long long)mac);
	return in_next_slot(r, &p, opts ? o : NULL);
}

struct cxsim_card *add_chip_card(struct rig *r, enum cxsim_chip chip, const char *opts)
{
	struct cxsim_params p;

	cxsim_params_default(&p, chip);
	return in_next_slot(r, &p, opts);
}

struct cxsim_card *add_params_card(struct rig *r, const struct cxsim_params *p)
{
	return in_next_slot(r, p, NULL);
}

struct cxsim_card *hp_card(struct rig *r)
{
	return add_card(r, HP_OPTS, HP_SUBSYS_VENDOR, HP_SUBSYS_DEVICE, G_A, M_A);
}

struct cxsim_card *hp_with_stock(struct rig *r)
{
	struct cxsim_card *c = hp_card(r);

	add_stock(r);
	return c;
}

struct cxsim_card *old_stock_card(struct rig *r)
{
	return add_card(r, OLD_STOCK_OPTS, 0x15b3, 0x0022, G_B, M_B);
}

void two_cards(struct rig *r, const uint8_t **hp_flash, const uint8_t **stock_flash, size_t *n)
{
	struct cxsim_card *hp = hp_card(r), *stock = old_stock_card(r);
	const uint8_t *second;

	add_stock(r);
	r->o.boards = REAL_TABLE;
	r->o.yes = true;
	*hp_flash = watch_flash(r, hp, n);
	second = watch_flash(r, stock, n);
	if (stock_flash)
		*stock_flash = second;
}

void *keep(struct rig *r, void *p)
{
	assert_true(r->nkept < MAX_KEPT);
	assert_non_null(p);
	r->kept[r->nkept++] = p;
	return p;
}

const uint8_t *keep_flash(struct rig *r, struct cxsim_card *c, size_t *n)
{
	return keep(r, flash_copy(c, n));
}

const uint8_t *watch_flash(struct rig *r, struct cxsim_card *c, size_t *n)
{
	const uint8_t *copy = keep_flash(r, c, n);

	cxsim_counters_reset(c);
	return copy;
}

void brick(struct cxsim_card *c)
{
	size_t n;
	uint8_t *f = cxsim_flash(c, &n);

	memset(f, 0xFF, n);
	cxsim_flash_changed(c);
	cxsim_power_cycle(c);
	assert_false(cxsim_boot_info(c)->booted);
}

/* ---- the library ------------------------------------------------------------------------ */

void add_image(struct rig *r, const char *name, const char *opts, char *path, size_t n)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/%s", r->fw, name);
	mkimage_file(p, opts);
	if (path)
		snprintf(path, n, "%s", p);
}

void add_stock(struct rig *r)
{
	add_image(r, "stock.bin", STOCK_IMAGE, r->stock, sizeof(r->stock));
}

/* ---- the bus the wizard sees ------------------------------------------------------------- */

static int card_of(const struct rig *r, const char *bdf)
{
	unsigned bus;
	int end = -1;

	if (sscanf(bdf, "0000:%2x:00.0%n", &bus, &end) != 1 || end != (int)strlen(bdf) || bus < 1 ||
	    (int)bus > r->ncards)
		return -1;
	return (int)bus - 1;
}

/* The card in slot i as the kernel lists it, at 0000:0(i+1):00.0; whether its ID is known. */
static bool pci_of(const struct rig *r, int i, struct pci_card *p)
{
	char bdf[16];

	snprintf(bdf, sizeof(bdf), "0000:%02x:00.0", i + 1);
	return card_pci(r->cards[i], bdf, p);
}

static int bus_list(void *ctx, struct pci_card *out, int max, int *n, struct cx_status *st)
{
	struct rig *r = ctx;

	*n = 0;
	for (int i = 0; i < r->ncards && *n < max; i++) {
		struct pci_card *p = &out[(*n)++];
		if (!pci_of(r, i, p))
			return cx_fail(st, CX_EABSENT, "card %d shows unknown device %04x", i, p->device);
	}
	return CX_OK;
}

static int bus_open(void *ctx, const struct pci_card *pci, struct device *d, struct cx_status *st)
{
	struct rig *r = ctx;
	struct cfg_dev cfg;
	int i = card_of(r, pci->bdf);

	if (i < 0)
		return cx_fail(st, CX_EABSENT, "no card at %s", pci->bdf);
	sim_cfg_attach(&cfg, r->cards[i], pci->bdf);
	/* As device_open() does: the wizard's traces (rescue/step_trace.c) record these cards too. */
	struct crmem mem = {0};
	int rc = device_trace_wrap(pci, &cfg, &mem, st);
	if (rc)
		return rc;
	return device_attach(d, cfg, pci, false, st);
}

/* ---- bundles made outside the wizard ---------------------------------------------------- */

/* A bundle of card idx (its flash as it is now) in dir, created if absent. */
static void bundle_of(struct rig *r, int idx, const char *dir, struct backup_result *b)
{
	struct cx_status st = {0};
	struct device d;
	struct pci_card pci;

	assert_true(pci_of(r, idx, &pci));
	assert_int_equal(bus_open(r, &pci, &d, &st), CX_OK);
	assert_int_equal(backup_card(&d, dir, b, &st), CX_OK);
	device_close(&d);
}

void backup_outside(struct rig *r, struct cxsim_card *c, struct backup_result *b)
{
	char backups[256];

	assert_ptr_equal(c, r->cards[0]);
	snprintf(backups, sizeof(backups), "%s/backups", r->data);
	bundle_of(r, 0, backups, b);
}

void server_bundle(struct rig *r, int idx, struct backup_result *b)
{
	char server[128];

	snprintf(server, sizeof(server), "%s/server", r->root);
	bundle_of(r, idx, server, b);
}

/* ---- the session lock ----------------------------------------------------------------- */

void use_lock(struct rig *r)
{
	snprintf(r->lock, sizeof(r->lock), "%s/wizard.lock", r->root);
	r->o.lock_path = r->lock;
}

void lock_elsewhere(struct rig *r, struct session *other)
{
	struct cx_status st = {0};

	use_lock(r);
	assert_int_equal(session_open(other, r->lock, "ttyS0", &st), CX_OK);
	assert_int_equal(session_take(other, time(NULL), &st), CX_OK);
}

/* ---- a session ---------------------------------------------------------------------------- */

int run(struct rig *r, const char *answers)
{
	struct wizard_bus bus = {.list = bus_list, .open = bus_open, .ctx = r};
	size_t len = strlen(answers);
	char *copy = strdup(answers);

	assert_non_null(copy);
	free(r->out);
	r->out = NULL;
	struct prompt p = {0};
	p.in = len ? fmemopen(copy, len, "r") : fopen("/dev/null", "r");
	assert_non_null(p.in);
	p.out = open_memstream(&r->out, &r->outlen);
	assert_non_null(p.out);
	int rc = wizard_run(&p, &bus, &r->o);
	fclose(p.in);
	fclose(p.out);
	free(copy);
	if (getenv("WIZARD_SHOW"))
		fprintf(stderr, "---- wizard (rc %d) ----\n%s---- end ----\n", rc, r->out);
	return rc;
}

void expect_run(struct rig *r, const char *answers, int want)
{
	expect_rc(r, run(r, answers), want);
}

void dump(const struct rig *r)
{
	fprintf(stderr, "---- the wizard's screen ----\n%s---- end ----\n", r->out ? r->out : "(none)");
}

void expect_said(const struct rig *r, const char *needle)
{
	if (!r->out || !strstr(r->out, needle)) {
		dump(r);
		fail_msg("the wizard did not say \"%s\"", needle);
	}
}

void expect_not_said(const struct rig *r, const char *needle)
{
	if (r->out && strstr(r->out, needle)) {
		dump(r);
		fail_msg("the wizard said \"%s\"", needle);
	}
}

void expect_rc(const struct rig *r, int got, int want)
{
	if (got != want) {
		dump(r);
		fail_msg("wizard_run returned %d, expected %d", got, want);
	}
}

size_t said_at(const struct rig *r, const char *needle)
{
	const char *at = r->out ? strstr(r->out, needle) : NULL;

	if (!at) {
		dump(r);
		fail_msg("the wizard did not say \"%s\"", needle);
	}
	return (size_t)(at - r->out);
}
