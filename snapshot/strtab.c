/* strtab.c — string interning with an arena and an open-addressing hash. */
#include "snapshot/strtab.h"

#include "base/base.h"

#include <stdlib.h>
#include <string.h>

static uint64_t hash_bytes(const char *s, size_t len)
{
	uint64_t h = fnv1a_add(0x9e3779b97f4a7c15ull ^ len, s, len); /* seeded with the length, folded */
	return h ^ (h >> 29);
}

void strtab_init(strtab *t)
{
	memset(t, 0, sizeof *t);
	strtab_intern(t, "", 0); /* id 0: the empty string */
}

void strtab_free(strtab *t)
{
	free(t->arena);
	free(t->off);
	free(t->hash);
	memset(t, 0, sizeof *t);
}

static int grow_hash(strtab *t)
{
	uint32_t size = t->hash_mask ? (t->hash_mask + 1) * 2 : 1024;
	while (size < t->count * 2u)
		size *= 2;
	uint32_t *h = calloc(size, sizeof *h);
	if (!h)
		return -1;
	free(t->hash);
	t->hash = h;
	t->hash_mask = size - 1;
	for (uint32_t id = 0; id < t->count; id++) {
		uint32_t i = (uint32_t)hash_bytes(strtab_get(t, id), strtab_len(t, id)) & t->hash_mask;
		while (h[i])
			i = (i + 1) & t->hash_mask;
		h[i] = id + 1;
	}
	return 0;
}

int strtab_reindex(strtab *t)
{
	free(t->hash);
	t->hash = NULL;
	t->hash_mask = 0;
	return grow_hash(t);
}

/* Slot in the hash table where S is, or the empty slot where it would go. */
static uint32_t probe(const strtab *t, const char *s, size_t len)
{
	uint32_t i = (uint32_t)hash_bytes(s, len) & t->hash_mask;
	for (;;) {
		uint32_t e = t->hash[i];
		if (!e)
			return i;
		uint32_t id = e - 1;
		if (strtab_len(t, id) == len && memcmp(strtab_get(t, id), s, len) == 0)
			return i;
		i = (i + 1) & t->hash_mask;
	}
}

uint32_t strtab_find(strtab *t, const char *s, size_t len)
{
	if (!t->hash && grow_hash(t))
		return UINT32_MAX;
	uint32_t e = t->hash[probe(t, s, len)];
	return e ? e - 1 : UINT32_MAX;
}

uint32_t strtab_intern(strtab *t, const char *s, size_t len)
{
	if (t->hash || t->count) {
		if (!t->hash && grow_hash(t))
			return UINT32_MAX;
		uint32_t e = t->hash[probe(t, s, len)];
		if (e)
			return e - 1;
	}
	if (t->arena_len + len + 1 > UINT32_MAX || t->count >= UINT32_MAX - 2)
		return UINT32_MAX;
	if (t->arena_len + len + 1 > t->arena_cap) {
		size_t cap = t->arena_cap ? t->arena_cap * 2 : 4096;
		while (cap < t->arena_len + len + 1)
			cap *= 2;
		char *a = realloc(t->arena, cap);
		if (!a)
			return UINT32_MAX;
		t->arena = a;
		t->arena_cap = cap;
	}
	if (t->count + 2 > t->cap) {
		uint32_t cap = t->cap ? t->cap * 2 : 1024;
		uint32_t *o = realloc(t->off, (size_t)cap * sizeof *o);
		if (!o)
			return UINT32_MAX;
		t->off = o;
		t->cap = cap;
	}
	uint32_t id = t->count++;
	t->off[id] = (uint32_t)t->arena_len;
	memcpy(t->arena + t->arena_len, s, len);
	t->arena[t->arena_len + len] = '\0';
	t->arena_len += len + 1;
	t->off[t->count] = (uint32_t)t->arena_len;
	if (t->hash) {
		if (t->count * 2u > t->hash_mask + 1) {
			if (grow_hash(t))
				return UINT32_MAX;
		} else {
			t->hash[probe(t, s, len)] = id + 1;
		}
	}
	return id;
}

int strtab_copy(strtab *to, const strtab *from)
{
	memset(to, 0, sizeof *to);
	to->arena = malloc(from->arena_len + 1);
	to->off = malloc(((size_t)from->count + 1) * sizeof *to->off);
	if (!to->arena || !to->off) {
		strtab_free(to);
		return -1;
	}
	memcpy(to->arena, from->arena, from->arena_len);
	memcpy(to->off, from->off, ((size_t)from->count + 1) * sizeof *to->off);
	to->arena_len = to->arena_cap = from->arena_len;
	to->count = from->count;
	to->cap = from->count + 1;
	return 0;
}
