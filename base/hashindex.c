/* hashindex.c — the hash table of hashindex.h. */
#include "base/hashindex.h"

#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* An empty index of SLOTS slots (a power of two), or NULL. */
static hashindex *alloc_index(uint64_t slots)
{
	if (slots > (uint64_t)UINT32_MAX + 1)
		return NULL;
	hashindex *x = calloc(1, sizeof *x + (size_t)slots * sizeof x->slot[0]);
	if (x)
		x->mask = (uint32_t)(slots - 1);
	return x;
}

/* Item ITEM, hashing to H, into the first empty slot from its place. */
static void place(hashindex *x, uint32_t h, uint32_t item)
{
	uint32_t at = h & x->mask;
	while (x->slot[at].item)
		at = (at + 1) & x->mask;
	x->slot[at] = (hashindex_slot){h, item + 1};
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
	hashindex *x = alloc_index(slots_for(n, 64));
	if (!x)
		return NULL;
	for (x->n = 0; x->n < n; x->n++)
		place(x, (uint32_t)hash(owner, x->n), x->n);
	return x;
}

/* *X again with room for N items, every item placed from its stored hash;
 * 0, or -1 when out of memory (*X as it was). */
static int regrow(hashindex **x, uint64_t n)
{
	hashindex *t = *x;
	hashindex *bigger = alloc_index(slots_for(n, 2 * ((uint64_t)t->mask + 1)));
	if (!bigger)
		return -1;
	for (uint64_t s = 0; s <= t->mask; s++)
		if (t->slot[s].item)
			place(bigger, t->slot[s].hash, t->slot[s].item - 1);
	bigger->n = t->n;
	free(t);
	*x = bigger;
	return 0;
}

int hashindex_add(hashindex **x, uint32_t at, uint64_t h)
{
	hashindex *t = *x;
	if (2 * ((uint64_t)t->n + 1) <= (uint64_t)t->mask + 1) {
		t->slot[at] = (hashindex_slot){(uint32_t)h, ++t->n};
		return 0;
	}
	if (regrow(x, (uint64_t)t->n + 1))
		return -1;
	place(*x, (uint32_t)h, (*x)->n++);
	return 0;
}

int hashindex_reserve(hashindex **x, uint32_t more)
{
	uint64_t n = (uint64_t)(*x)->n + more;
	if (2 * n > (uint64_t)(*x)->mask + 1 && regrow(x, n))
		return -1;
#ifdef MADV_POPULATE_WRITE
	/* the items to come land all over the slots: fault their pages in with
	 * one call (a fault a page costs more, and a prefetch of a page not
	 * yet there stalls) */
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), p = (uintptr_t)(*x)->slot;
	uintptr_t a = (p + page - 1) & ~(page - 1), b = (p + ((size_t)(*x)->mask + 1) * sizeof (*x)->slot[0]) & ~(page - 1);
	if (b > a)
		madvise((void *)a, b - a, MADV_POPULATE_WRITE);
#endif
	return 0;
}
