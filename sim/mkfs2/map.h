/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The structure map: one "name offset size" line per structure, for tests. */
#ifndef MKFS2_MAP_H
#define MKFS2_MAP_H

#include <stddef.h>
#include <stdint.h>

#define MAP_NAME_MAX	32

struct map_entry {
	char name[MAP_NAME_MAX];
	uint32_t off;
	uint32_t size;
};

struct map {
	struct map_entry *e;
	size_t n;
	size_t cap;
};

void map_add(struct map *m, uint32_t off, uint32_t size, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
int map_write(const struct map *m, const char *path);
void map_free(struct map *m);

#endif
