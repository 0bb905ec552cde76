/* hashindex.c — the hash table of hashindex.h. */
#include "base/hashindex.h"

#include <stdlib.h>

/* An index of SLOTS slots holding the owner's items 0 .. N-1. */
static hashindex *build(uint64_t slots, uint32_t n, hashindex_hash_fn hash, const void *owner)
{
	if (slots > (uint64_t)UINT32_MAX + 1)
		return NULL;
	hashindex *x = calloc(1, sizeof *x + (size_t)slots * sizeof x->slot[0]);
	if (!x)
		return NULL;
	x->mask = (uint32_t)(slots - 1);
	for (x->n = 0; x->n < n; x->n++) {
		uint32_t at = (uint32_t)hash(owner, x->n) & x->mask;
		while (x->slot[at])
			at = (at + 1) & x->mask;
		x->slot[at] = x->n + 1;
	}
	return x;
}

/* The slots for N items: a power of two, at least FLOOR and twice N. */
static uint64_t slots_for(uint64_t n, uint64_t floor)
{
	uint64_t slots = floor;
	while (slots < 2 * n)
		slots *= 2;
	return slots;
}

hashindex *hashindex_build(uint32_t n, hashindex_hash_fn hash, const void *owner)
{
	return build(slots_for(n, 64), n, hash, owner);
}

int hashindex_add(hashindex **x, uint32_t at, hashindex_hash_fn hash, const void *owner)
{
	hashindex *t = *x;
	if (2 * ((uint64_t)t->n + 1) <= (uint64_t)t->mask + 1) {
		t->slot[at] = ++t->n;
		return 0;
	}
	hashindex *bigger = build(slots_for((uint64_t)t->n + 1, 2 * ((uint64_t)t->mask + 1)), t->n + 1, hash, owner);
	if (!bigger)
		return -1;
	free(t);
	*x = bigger;
	return 0;
}
