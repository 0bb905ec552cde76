/* idmap.c — the hash map of idmap.h. */
#include "base/idmap.h"

#include <stdlib.h>
#include <string.h>

static size_t slot_of(uint64_t key, size_t cap)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdull;
	key ^= key >> 33;
	return (size_t)key & (cap - 1);
}

static int grow(idmap *m)
{
	size_t cap = m->cap ? m->cap * 2 : 64;
	uint64_t *key = malloc(cap * sizeof *key), *val = malloc(cap * sizeof *val);
	if (!key || !val) {
		free(key);
		free(val);
		return -1;
	}
	memset(key, 0xff, cap * sizeof *key); /* every slot IDMAP_EMPTY */
	for (size_t k = 0; k < m->cap; k++)
		if (m->key[k] != IDMAP_EMPTY) {
			size_t at = slot_of(m->key[k], cap);
			while (key[at] != IDMAP_EMPTY)
				at = (at + 1) & (cap - 1);
			key[at] = m->key[k];
			val[at] = m->val[k];
		}
	free(m->key);
	free(m->val);
	m->key = key;
	m->val = val;
	m->cap = cap;
	return 0;
}

int idmap_add(idmap *m, uint64_t key, uint64_t val)
{
	if (idmap_get(m, key))
		return 1;
	if ((m->n + 1) * 2 > m->cap && grow(m))
		return -1;
	size_t at = slot_of(key, m->cap);
	while (m->key[at] != IDMAP_EMPTY)
		at = (at + 1) & (m->cap - 1);
	m->key[at] = key;
	m->val[at] = val;
	m->n++;
	return 0;
}

uint64_t *idmap_get(const idmap *m, uint64_t key)
{
	if (!m->cap)
		return NULL;
	for (size_t at = slot_of(key, m->cap); m->key[at] != IDMAP_EMPTY; at = (at + 1) & (m->cap - 1))
		if (m->key[at] == key)
			return &m->val[at];
	return NULL;
}

void idmap_free(idmap *m)
{
	free(m->key);
	free(m->val);
	memset(m, 0, sizeof *m);
}
