/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Collects and writes the structure map (--map). */
#include "map.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#define MAP_MIN_CAP	32

void map_add(struct map *m, uint32_t off, uint32_t size, const char *fmt, ...)
{
	va_list ap;

	if (m->n == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : MAP_MIN_CAP;
		struct map_entry *e = realloc(m->e, cap * sizeof(*e));

		if (!e) {
			fprintf(stderr, "mkfs2: out of memory\n");
			exit(1);
		}
		m->e = e;
		m->cap = cap;
	}
	va_start(ap, fmt);
	vsnprintf(m->e[m->n].name, MAP_NAME_MAX, fmt, ap);
	va_end(ap);
	m->e[m->n].off = off;
	m->e[m->n].size = size;
	m->n++;
}

int map_write(const struct map *m, const char *path)
{
	FILE *f = fopen(path, "w");
	size_t i;

	if (!f) {
		perror(path);
		return -1;
	}
	for (i = 0; i < m->n; i++)
		fprintf(f, "%s 0x%x 0x%x\n", m->e[i].name, m->e[i].off, m->e[i].size);
	if (fclose(f)) {
		perror(path);
		return -1;
	}
	return 0;
}

void map_free(struct map *m)
{
	free(m->e);
	m->e = NULL;
	m->n = m->cap = 0;
}
