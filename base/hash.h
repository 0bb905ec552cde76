/* hash.h — FNV-1a, 64 bits: the one byte-string hash of the tool.
 *
 * h = FNV1A_START; for each byte c: h = (h ^ c) * FNV1A_PRIME.
 *
 * Some values are persisted and must never change: the path hash stored in
 * analysis databases (object_table.path_hash, sql/path_hash.h) and the
 * checksum of a .ugcs prefix (snapshot/binary_format.h) are plain FNV-1a 64
 * from FNV1A_START over the bytes as written.  A hash table in memory may
 * start elsewhere (fnv1a_add with its own seed) or fold the high bits into
 * the low ones it indexes with; those values are never stored. */
#ifndef UGC_HASH_H
#define UGC_HASH_H

#include <stddef.h>
#include <stdint.h>

#define FNV1A_START 0xcbf29ce484222325ull /* the offset basis */
#define FNV1A_PRIME 0x100000001b3ull

/* H continued over the N bytes at DATA (so a hash can be built in parts). */
static inline uint64_t fnv1a_add(uint64_t h, const void *data, size_t n)
{
	const unsigned char *p = data;
	for (size_t k = 0; k < n; k++)
		h = (h ^ p[k]) * FNV1A_PRIME;
	return h;
}

/* The FNV-1a 64 of the N bytes at DATA. */
static inline uint64_t fnv1a(const void *data, size_t n)
{
	return fnv1a_add(FNV1A_START, data, n);
}

#endif
