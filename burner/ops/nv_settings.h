/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nv_settings.h — a card's settings: read them all, plan a change, apply it, reset.
 *
 * Two generations behind one interface (ops/nv_table.h nv_gen_of): a ConnectX-3 / 3 Pro
 * (NV_GEN4, this text) and a ConnectX-4 / 4 Lx / 5 whose firmware runs (NV_GEN5,
 * ops/nv_settings5.h: NVQC / NVDA / NVIA over ICMD). The state, the plan, the records and
 * settings.json are the same for both; only the reads and writes of a record differ.
 *
 * The settings (port type, SR-IOV, BAR size, boot ROM behaviour, Wake-on-LAN,
 * ...; ops/nv_table.h has every one) live in the card's firmware, which keeps
 * them in a part of the flash whose format is not public: we ask the running
 * firmware through its tools command interface (dev/tools_hcr.h, dev/nv_reg.h),
 * as mstconfig 4.21 does, and never write that flash ourselves. They take
 * effect at the next cold boot; the firmware cannot say what it runs with now,
 * only what it will boot with ("next boot").
 *
 *   nv_open()   refuses, before any command is sent, what cannot work: a
 *               ConnectX-2 (it has no settings store: "ConnectX-2 is not
 *               supported under mstconfig"), a card in flash-recovery mode (no
 *               firmware runs), firmware older than 2.31.5000 (mstconfig's
 *               minimum for the tools interface).
 *   nv_read()   every setting's next-boot value: QUERY_DEV_CAP (capability
 *               bits, max VFs, BAR sizes), QUERY_DEF_PARAMS (defaults, global
 *               and per port), then MNVA GET of each record; a record the card
 *               does not hold means the defaults apply.
 *   nv_plan()   checks a list of NAME=VALUE against what was read, sending
 *               nothing: unknown names, per-port names of a port the card lacks
 *               or a setting it does not offer, bad or conflicting values,
 *               NUM_OF_VFS against the card's maximum, and the BAR rule
 *               mstconfig applies ((NUM_OF_VFS + 1) x 2^LOG_BAR_SIZE <= 512 MB
 *               when SR-IOV is on). The plan is each record that changes, old
 *               dwords and new, and each setting's old and new value.
 *   nv_apply()  read-modify-write of each planned record: read again, change
 *               only the planned fields (every other bit of the record stays),
 *               write. nv_reset() forgets every record (MNVIA): the defaults.
 *
 * Status 4 from the firmware ("bad system state") is CX_EFWDOWN: on these cards
 * the tools interface may answer only once the host driver has started the
 * firmware (UNCONFIRMED on hardware; mstconfig says "Driver might be down").
 */
#ifndef CX_NV_SETTINGS_H
#define CX_NV_SETTINGS_H

#include <stdbool.h>
#include <stdint.h>

#include "dev/nv_icmd.h"
#include "dev/nv_reg.h"
#include "dev/tools_hcr.h"
#include "ops/device.h"
#include "ops/nv_table.h"
#include "util/json.h"

#define NV_MAX_SETTINGS 48
#define NV_MAX_RECORDS 16
#define NV_PORTS 2
#define NV_DEF_GLOBAL_DW 5            /* QUERY_DEF_PARAMS global answer: 0x14 bytes */
#define NV_DEF_PORT_DW 7              /* per port: 0x1c bytes (tools_open_layouts.h@4.21) */
#define NV_MAX_ASSIGN 48

/* One settings record of the card. */
struct nv_record {
	uint16_t type;
	uint8_t port;
	uint8_t ndw;
	bool stored;                      /* the card holds it (else its defaults apply) */
	uint32_t dw[NV_MAX_DWORDS];       /* as stored; zeros when not */
};

/* What was read. */
struct nv_state {
	uint8_t gen;                      /* enum nv_gen: which rows of nv_settings[] apply */
	uint16_t fw[3];                   /* the running FW */
	uint32_t caps;                    /* QUERY_DEV_CAP tool capability bits */
	unsigned max_vfs;                 /* VFs the card can have (PF taken off) */
	unsigned max_log_bar, def_log_bar;
	uint32_t def_global[NV_DEF_GLOBAL_DW];
	uint32_t def_port[NV_PORTS][NV_DEF_PORT_DW];
	bool port_ok[NV_PORTS];           /* QUERY_DEF_PARAMS of the port answered */
	unsigned ports;                   /* 2 when port 2 answers, else 1 */
	struct nv_record rec[NV_MAX_RECORDS];
	uint32_t rec_def[NV_MAX_RECORDS][NV_MAX_DWORDS]; /* GEN5: each record's defaults */
	unsigned nrec;
	/* per row of nv_settings[] */
	bool avail[NV_MAX_SETTINGS];      /* the card offers it */
	uint32_t value[NV_MAX_SETTINGS];  /* next boot */
	uint32_t def[NV_MAX_SETTINGS];    /* the firmware's default */
};

struct nv_session {
	struct device *d;
	uint8_t gen;                      /* enum nv_gen, set by nv_open() */
	struct hcr h;                     /* GEN4; GEN5 speaks through d->chip.icmd */
	uint64_t writes;                  /* settings-writing commands sent (MNVA SET, MNVIA) */
};

/* One setting that changes. */
struct nv_change {
	unsigned idx;                     /* row of nv_settings[] */
	uint32_t from, to;
};

struct nv_plan {
	struct nv_change ch[NV_MAX_SETTINGS];
	unsigned nch;
	/* the records to write: old and new dwords (new = old with the planned fields) */
	struct nv_record from[NV_MAX_RECORDS], to[NV_MAX_RECORDS];
	unsigned nrec;
	bool reset_first;                 /* MNVIA before the writes (a restore of a bundle) */
};

/* d opened with device_open_tools() (or any open that reaches crspace). */
int nv_open(struct nv_session *s, struct device *d, struct cx_status *st);

int nv_read(struct nv_session *s, struct nv_state *out, struct cx_status *st);

/* assign[0..n): "NAME=VALUE". CX_ESETTING for a name the card does not have,
 * CX_EVALUE for a bad, out-of-range or conflicting value, CX_EUSAGE for an
 * item without '='; p->nch == 0 when everything already has its value. */
int nv_plan(const struct nv_state *cur, const char *const *assign, unsigned n, struct nv_plan *p,
	    struct cx_status *st);

/* The plan that puts records back as a bundle had them (settings.json,
 * nv_restore_parse): records the bundle did not hold and the card does are
 * forgotten first (reset_first, then every held record written). */
int nv_plan_records(const struct nv_state *cur, const struct nv_record *want, unsigned nwant, struct nv_plan *p,
		    struct cx_status *st);

int nv_apply(struct nv_session *s, const struct nv_plan *p, struct cx_status *st);

/* One record's read (x->type, port, ndw given; dw and stored filled) and write, through
 * the session's generation. */
int nv_rec_get(struct nv_session *s, struct nv_record *x, struct cx_status *st);
int nv_rec_set(struct nv_session *s, const struct nv_record *x, struct cx_status *st);

/* The index in o->rec of row r's record, added when new; -1 when the array is full. */
int nv_state_record(struct nv_state *o, const struct nv_setting *r);
int nv_reset(struct nv_session *s, struct cx_status *st);

/* The text of a setting's value as mstconfig shows it: "ETH(2)", "True(1)", "8". */
const char *nv_value_text(unsigned idx, uint32_t v, char *buf, unsigned len);

/* --json and settings.json: the object key of the card's settings
 * {"NAME": {"value", "text", "default"}, ...} (available ones) and its records. */
void nv_json_settings(struct json *j, const char *key, const struct nv_state *s);
void nv_json_records(struct json *j, const char *key, const struct nv_state *s);

#endif
