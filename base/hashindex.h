/* hashindex.h — a hash table of items whose keys live with their owner
 * (strings in an arena, rows of a table): the open addressing of the
 * interners (strtab, strpool) written once.  Keys that are plain 64-bit
 * numbers, stored in the table itself, are idmap.h's.
 *
 * The owner numbers its items 0, 1, 2, ... in the order it adds them,
 * hashes their keys and says whether an item's key is the one looked up;
 * the index keeps the probing (linear, over a power-of-two table) and the
 * load (at most half full, rebuilt twice as large).
 *
 * Each slot keeps the low 32 bits of its item's hash beside the item, so a
 * probe passes an item whose hash differs without reading the owner's key
 * (a cache miss or two in a large arena: the owner's offsets, then its
 * bytes), and a rebuild places every item from the table alone. */
#ifndef UGC_HASHINDEX_H
#define UGC_HASHINDEX_H

#include <stdint.h>

typedef struct hashindex_slot {
	uint32_t hash; /* the low 32 bits of the item's hash */
	uint32_t item; /* the item + 1, or 0 where empty */
} hashindex_slot;

typedef struct hashindex {
	uint32_t mask;          /* slots - 1: a power of two, at least twice N */
	uint32_t n;             /* the items indexed: 0 .. N-1 */
	hashindex_slot slot[];
} hashindex;                    /* one allocation: free() frees it */

/* The hash of the key of OWNER's item ITEM; whether that key is KEY. */
typedef uint64_t (*hashindex_hash_fn)(const void *owner, uint32_t item);
typedef int (*hashindex_same_fn)(const void *owner, uint32_t item, const void *key);

/* An index of OWNER's items 0 .. N-1 (HASH gives their hashes), or NULL
 * when out of memory. */
hashindex *hashindex_build(uint32_t n, hashindex_hash_fn hash, const void *owner);

/* The slot of the item whose key is KEY (hashing to H; SAME compares, only
 * where the stored hash is H's), or the empty slot where it would go.
 * Inline, so that SAME is too. */
static inline uint32_t hashindex_find(const hashindex *x, uint64_t h, hashindex_same_fn same, const void *owner,
				      const void *key)
{
	uint32_t at = (uint32_t)h & x->mask;
	for (;;) {
		hashindex_slot s = x->slot[at];
		if (!s.item || (s.hash == (uint32_t)h && same(owner, s.item - 1, key)))
			return at;
		at = (at + 1) & x->mask;
	}
}

/* Count the owner's next item, number X->n, without indexing it: an item
 * whose key equals an indexed one's, which lookups are to find instead. */
static inline void hashindex_skip(hashindex *x) { x->n++; }

/* The item in slot AT, or UINT32_MAX when the slot is empty. */
static inline uint32_t hashindex_item(const hashindex *x, uint32_t at) { return x->slot[at].item - 1; }

/* Index the owner's next item, number (*X)->n, already added on its side,
 * whose key hashes to H: into the empty slot AT that hashindex_find gave
 * for its key, or, when that would leave the index more than half full, by
 * rebuilding *X twice as large.  0, or -1 when out of memory (*X is left
 * as it was). */
int hashindex_add(hashindex **x, uint32_t at, uint64_t h);

/* Make room in *X for MORE items beyond those it has, so that adding them
 * rebuilds nothing (slots found before are stale after this).  0, or -1
 * when out of memory (*X is left as it was). */
int hashindex_reserve(hashindex **x, uint32_t more);

#endif
