/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nv_bundle.c — settings.json: writing it for a backup, reading its records back (see nv_bundle.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ops/backup.h"
#include "ops/nv_bundle.h"
#include "util/fileio.h"
#include "util/json_read.h"

int nv_bundle_json(struct device *d, char **text, size_t *len, struct cx_status *st)
{
	struct nv_session s;
	struct nv_state *o = calloc(1, sizeof(*o));
	struct cx_status why = {0};
	FILE *out = o ? open_memstream(text, len) : NULL;
	struct json j;

	if (!out) {
		free(o);
		return cx_fail(st, CX_ENOMEM, "out of memory");
	}
	bool ok = !nv_open(&s, d, &why) && !nv_read(&s, o, &why);
	json_begin(&j, out);
	json_str(&j, "format", NV_BUNDLE_FORMAT);
	json_bool(&j, "available", ok);
	json_str(&j, "reason", ok ? NULL : why.msg);
	if (ok) {
		nv_json_settings(&j, "settings", o);
		nv_json_records(&j, "records", o);
	} else {
		json_null(&j, "settings");
		json_null(&j, "records");
	}
	json_end(&j);
	free(o);
	if (fclose(out) || !*text) {
		free(*text);
		*text = NULL;
		return cx_fail(st, CX_ENOMEM, "out of memory");
	}
	return CX_OK;
}

struct loader {
	struct nv_record *rec;
	unsigned n;
	bool available;
	char reason[CX_MSG_MAX];
};

/* "records.t0012p1": "00000002 ..." or null. */
static int one(void *ctx, const char *path, enum json_kind kind, const char *v, struct cx_status *st)
{
	struct loader *l = ctx;
	unsigned type, port;
	char tail;

	if (!strcmp(path, "available"))
		l->available = kind == JSON_BOOL && !strcmp(v, "true");
	if (!strcmp(path, "reason") && kind == JSON_STRING)
		snprintf(l->reason, sizeof(l->reason), "%s", v);
	if (strncmp(path, "records.", 8))
		return CX_OK;
	if (sscanf(path + 8, "t%4xp%1u%c", &type, &port, &tail) != 2 || port > NV_PORTS || l->n == NV_MAX_RECORDS)
		return cx_fail(st, CX_EIMAGE, "settings.json: bad record %s", path);
	struct nv_record *x = &l->rec[l->n++];
	*x = (struct nv_record){.type = (uint16_t)type, .port = (uint8_t)port, .stored = kind == JSON_STRING};
	for (const char *p = v; x->stored && *p; x->ndw++) {
		char *end;
		if (x->ndw == NV_MAX_DWORDS)
			return cx_fail(st, CX_EIMAGE, "settings.json: record %s is too long", path);
		x->dw[x->ndw] = (uint32_t)strtoul(p, &end, 16);
		if (end != p + 8 || (*end && *end != ' '))
			return cx_fail(st, CX_EIMAGE, "settings.json: record %s is not hex dwords", path);
		p = *end ? end + 1 : end;
	}
	return CX_OK;
}

int nv_bundle_load(const char *bundle, struct nv_record *rec, unsigned *n, struct cx_status *st)
{
	char path[BACKUP_PATH_MAX];
	struct loader l = {.rec = rec};
	uint8_t *buf;
	size_t len;
	int rc;

	if ((rc = backup_verify(bundle, st)) || (rc = path_join(path, sizeof(path), bundle, BACKUP_SETTINGS, st)))
		return rc;
	if (access(path, F_OK))
		return cx_fail(st, CX_EABSENT, "%s has no %s (a bundle of an older cxflash)", bundle, BACKUP_SETTINGS);
	if ((rc = file_read(path, BACKUP_META_MAX, &buf, &len, st)))
		return rc;
	rc = json_read((const char *)buf, len, BACKUP_SETTINGS, one, &l, st);
	free(buf);
	if (!rc && !l.available)
		rc = cx_fail(st, CX_EABSENT, "%s holds no settings: %s", bundle, l.reason);
	/* A record left at null in a stored one's place is not data: ndw from the table. */
	for (unsigned i = 0; i < l.n; i++)
		for (unsigned k = 0; !l.rec[i].stored && k < nv_nsettings; k++)
			if (nv_settings[k].tlv == l.rec[i].type && nv_settings[k].port == l.rec[i].port)
				l.rec[i].ndw = nv_settings[k].tlv_dwords;
	*n = l.n;
	return rc;
}
