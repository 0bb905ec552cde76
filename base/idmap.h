/* idmap.h — a hash map from 64-bit keys to 64-bit values (open addressing,
 * linear probing), also used as a set: what a search has visited or
 * printed, in memory proportional to the keys added, not to the heap.
 * The keys are kept in the table, so a probe reads no other memory; keys
 * that live with their owner (strings) are hashindex.h's. */
#ifndef UGC_IDMAP_H
#define UGC_IDMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct idmap {
	uint64_t *key; /* cap slots; IDMAP_EMPTY where free */
	uint64_t *val; /* the value of each slot */
	size_t n, cap; /* cap: 0 or a power of two, at least twice n */
} idmap;

#define IDMAP_EMPTY UINT64_MAX /* the one key that cannot be stored */

/* Add KEY with VAL: 0 when added, 1 when KEY was there (its value is left
 * alone), -1 when out of memory (the map is left as it was). */
int idmap_add(idmap *m, uint64_t key, uint64_t val);
/* KEY's value, or NULL when KEY is not in M. */
uint64_t *idmap_get(const idmap *m, uint64_t key);
void idmap_free(idmap *m);

#endif
