/* strtab.h — interned strings: every distinct byte string gets a small id.
 *
 * One of the tool's two interners, for a real reason: this one hands out
 * 32-bit ids (the heap's columns hold them) and keeps its strings back to
 * back in one arena with their offsets, the form the binary snapshot writes
 * and reads as two sections (binary_write.c, binary_read.c); base/strpool.h
 * hands out pointers that stay valid while it grows.  Both index their
 * strings with base/hashindex.h.
 *
 * Names (FName bases), property names, FGCObject referencer names, the
 * engine and label texts all live here.  Id 0 is the empty string and means
 * "none" where a field is optional.  Strings are stored back to back in one
 * arena, each followed by a NUL so they can be used as C strings; embedded
 * NULs are allowed (the length is kept), though names never have them.
 * A table taken over whole (strtab_adopt: the V8 reader's) is checked for
 * strings held twice, and loses the copies. */
#ifndef UGC_STRTAB_H
#define UGC_STRTAB_H

#include <stddef.h>
#include <stdint.h>

#include "base/base.h"

typedef struct strtab {
	char *arena;        /* all strings, each NUL-terminated */
	size_t arena_len, arena_cap;
	uint32_t *off;      /* off[id] = start of string id in arena; off[count] = arena_len */
	uint32_t count, cap;
	hashindex *hash;    /* the ids by string (base/hashindex.h); built lazily, NULL until then */
} strtab;

void strtab_init(strtab *t);
void strtab_free(strtab *t);
/* Intern LEN bytes at S; returns the id, or UINT32_MAX when out of memory
 * or past the 4 GiB arena limit. */
uint32_t strtab_intern(strtab *t, const char *s, size_t len);
/* Free the index (8 B a slot, two slots or more a string); the next
 * lookup builds it again.  A loader that is done interning calls this, so
 * that the index does not stay beside the analysis. */
void strtab_unindex(strtab *t);
/* Take over COUNT strings laid out as T's own (string 0 the empty one,
 * string i at ARENA + OFF[i], NUL-terminated, OFF[COUNT] the bytes used;
 * ARENA_CAP bytes and OFF_CAP offsets allocated with malloc, T's now) in
 * place of T's, which held only the empty string, and index them in one
 * pass that hashes each string some strings ahead of its turn and
 * prefetches its place, so that the misses overlap.  A string equal to an
 * earlier one is dropped and the strings after it move down: then *RENUM
 * (COUNT entries, the caller's to free) gives each old id's new one, a
 * copy's being its original's; else *RENUM is NULL and the ids stand.  0,
 * or -1 when out of memory (the strings T's, unindexed; *RENUM NULL). */
int strtab_adopt(strtab *t, char *arena, size_t arena_cap, uint32_t *off, uint32_t count, uint32_t off_cap,
		 uint32_t **renum);
/* Index T's strings (filled in directly: a binary load) and say whether
 * every one differs: 0, or 1 with the first string *COPY that repeats an
 * earlier one, *AS; -1 when out of memory (T unindexed). */
int strtab_index_unique(strtab *t, uint32_t *copy, uint32_t *as);
/* Id of an existing string, or UINT32_MAX when it was never interned. */
uint32_t strtab_find(strtab *t, const char *s, size_t len);
static inline const char *strtab_get(const strtab *t, uint32_t id) { return t->arena + t->off[id]; }
static inline uint32_t strtab_len(const strtab *t, uint32_t id) { return t->off[id + 1] - t->off[id] - 1; }
/* Make TO an independent copy of FROM (same ids); 0, or -1 when out of memory. */
int strtab_copy(strtab *to, const strtab *from);
/* Rebuild the hash index after the arena was filled in directly (binary load). */
int strtab_reindex(strtab *t);

#endif
