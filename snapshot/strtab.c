/* strtab.c — string interning with an arena, indexed by base/hashindex.h. */
#include "snapshot/strtab.h"

#include "base/base.h"

#include <stdlib.h>
#include <string.h>

/* FNV-1a (base/hash.h), seeded with the length and folded: the index's hash */
static uint64_t strtab_hash(const char *s, size_t len)
{
	uint64_t h = fnv1a_add(0x9e3779b97f4a7c15ull ^ len, s, len); /* seeded with the length, folded */
	return h ^ (h >> 29);
}

/* the index's view of the strings (base/hashindex.h) */
struct key {
	const char *s;
	size_t len;
};

static uint64_t hash_of(const void *t, uint32_t id)
{
	return strtab_hash(strtab_get(t, id), strtab_len(t, id));
}

static int same(const void *t, uint32_t id, const void *key)
{
	const struct key *k = key;
	return strtab_len(t, id) == k->len && memcmp(strtab_get(t, id), k->s, k->len) == 0;
}

/* Slot in the index where S (hashing to H) is, or the empty slot where it
 * would go. */
static uint32_t probe(const strtab *t, const char *s, size_t len, uint64_t h)
{
	struct key k = {s, len};
	return hashindex_find(t->hash, h, same, t, &k);
}

/* Start bringing the index's slot for hash H into the cache. */
static void strtab_prefetch(const strtab *t, uint64_t h)
{
	if (t->hash)
		__builtin_prefetch(&t->hash->slot[(uint32_t)h & t->hash->mask]);
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

int strtab_reindex(strtab *t)
{
	free(t->hash);
	t->hash = hashindex_build(t->count, hash_of, t);
	return t->hash ? 0 : -1;
}

/* A string the indexing pass found equal to an earlier one. */
typedef struct same_as {
	uint32_t id, as; /* string ID is string AS (AS < ID) */
} same_as;

/* adopt's lookahead: a string's place in a large index is a cache and TLB
 * miss; hashed and prefetched AHEAD strings early, several are under way
 * at once.  An index of fewer than AHEAD_FROM strings stays in the cache. */
#define AHEAD 16
#define AHEAD_FROM (1u << 17)

/* Index every string of T in one pass; a string equal to an earlier one
 * stays out of the index and is listed in *SAME (*NSAME of them, in id
 * order; NULL when none).  0, or -1 when out of memory (T unindexed). */
static int index_all(strtab *t, same_as **same, uint32_t *nsame)
{
	*same = NULL;
	*nsame = 0;
	uint32_t cap = 0;
	free(t->hash);
	if (!(t->hash = hashindex_build(0, hash_of, t)) || hashindex_reserve(&t->hash, t->count))
		goto oom;
	uint64_t ring[AHEAD];
	uint32_t ahead = t->count >= AHEAD_FROM ? AHEAD : 0;
	for (uint32_t id = 0; id < ahead && id < t->count; id++) {
		ring[id] = hash_of(t, id);
		strtab_prefetch(t, ring[id]);
	}
	for (uint32_t id = 0; id < t->count; id++) {
		uint64_t h = ahead ? ring[id % AHEAD] : hash_of(t, id);
		if (ahead && id + AHEAD < t->count) {
			ring[id % AHEAD] = hash_of(t, id + AHEAD);
			strtab_prefetch(t, ring[id % AHEAD]);
		}
		uint32_t at = probe(t, strtab_get(t, id), strtab_len(t, id), h);
		uint32_t as = hashindex_item(t->hash, at);
		if (as == UINT32_MAX) {
			if (hashindex_add(&t->hash, at, h)) /* reserved: never grows */
				goto oom;
			continue;
		}
		hashindex_skip(t->hash);
		if (*nsame == cap) {
			cap = cap ? cap * 2 : 16;
			same_as *a = realloc(*same, cap * sizeof *a);
			if (!a)
				goto oom;
			*same = a;
		}
		(*same)[(*nsame)++] = (same_as){id, as};
	}
	return 0;
oom:
	strtab_unindex(t);
	free(*same);
	*same = NULL;
	*nsame = 0;
	return -1;
}

/* Remove the copies SAME lists, moving the strings after each down, and
 * index T again; RENUM gets each old id's new one. */
static int drop_copies(strtab *t, const same_as *same, uint32_t nsame, uint32_t *renum)
{
	uint32_t next = 0, d = 0;
	size_t len = 0;
	for (uint32_t id = 0; id < t->count; id++) {
		if (d < nsame && same[d].id == id) { /* a copy: its original's new id (AS < ID) */
			renum[id] = renum[same[d++].as];
			continue;
		}
		uint32_t from = t->off[id], n = t->off[id + 1] - from; /* read before OFF[NEXT <= ID] is written */
		memmove(t->arena + len, t->arena + from, n);
		t->off[next] = (uint32_t)len;
		len += n;
		renum[id] = next++;
	}
	t->count = next;
	t->off[next] = (uint32_t)len;
	t->arena_len = len;
	return strtab_reindex(t);
}

int strtab_adopt(strtab *t, char *arena, size_t arena_cap, uint32_t *off, uint32_t count, uint32_t off_cap,
		 uint32_t **renum)
{
	strtab_free(t);
	t->arena = arena;
	t->arena_cap = arena_cap;
	t->arena_len = off[count];
	t->off = off;
	t->count = count;
	t->cap = off_cap;
	*renum = NULL;
	same_as *same;
	uint32_t nsame;
	if (index_all(t, &same, &nsame))
		return -1;
	if (!nsame)
		return 0;
	int rc = (*renum = malloc((size_t)count * sizeof **renum)) ? drop_copies(t, same, nsame, *renum) : -1;
	free(same);
	if (rc) {
		free(*renum);
		*renum = NULL;
	}
	return rc;
}

int strtab_index_unique(strtab *t, uint32_t *copy, uint32_t *as)
{
	same_as *same;
	uint32_t nsame;
	if (index_all(t, &same, &nsame))
		return -1;
	if (nsame) {
		*copy = same[0].id;
		*as = same[0].as;
	}
	free(same);
	return nsame ? 1 : 0;
}

uint32_t strtab_find(strtab *t, const char *s, size_t len)
{
	if (!t->hash && strtab_reindex(t))
		return UINT32_MAX;
	return hashindex_item(t->hash, probe(t, s, len, strtab_hash(s, len)));
}

void strtab_unindex(strtab *t)
{
	free(t->hash);
	t->hash = NULL;
}

uint32_t strtab_intern(strtab *t, const char *s, size_t len)
{
	uint64_t h = strtab_hash(s, len);
	uint32_t at = 0;
	if (t->hash || t->count) { /* the first string (id 0, "") needs no index */
		if (!t->hash && strtab_reindex(t))
			return UINT32_MAX;
		at = probe(t, s, len, h);
		uint32_t id = hashindex_item(t->hash, at);
		if (id != UINT32_MAX)
			return id;
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
	if (t->hash && hashindex_add(&t->hash, at, h)) {
		t->count = id; /* taken back: every string stays indexed */
		t->arena_len = t->off[id];
		return UINT32_MAX;
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
