/* key_sort.c — index entries into SQLite's order (see key_sort.h). */
#include "sql/key_sort.h"

#include <string.h>

/* The key as an unsigned number in the same order. */
static uint64_t order_of(const key_row *r)
{
	return (uint64_t)r->key ^ 0x8000000000000000ull;
}

void key_sort(key_row *rows, key_row *tmp, size_t n)
{
	/* one pass counts the NULLs and every byte of the other keys (each
	 * byte's counts shifted by one, ready to become starts) */
	size_t count[8][257] = {{0}};
	size_t nulls = 0;
	for (size_t k = 0; k < n; k++) {
		if (rows[k].null) {
			nulls++;
			continue;
		}
		uint64_t u = order_of(&rows[k]);
		for (int byte = 0; byte < 8; byte++)
			count[byte][((u >> 8 * byte) & 0xff) + 1]++;
	}
	/* NULLs first, in rowid order (a stable partition) */
	if (nulls) {
		size_t j = 0, m = nulls;
		for (size_t k = 0; k < n; k++)
			tmp[rows[k].null ? j++ : m++] = rows[k];
		memcpy(rows, tmp, n * sizeof *rows);
	}
	/* then the rest by key, one stable counting pass a byte, least
	 * significant first; a byte all keys share needs no pass */
	key_row *a = rows + nulls, *b = tmp;
	size_t m = n - nulls;
	for (int byte = 0; byte < 8; byte++) {
		size_t *c = count[byte];
		int skip = 0;
		for (int d = 1; d <= 256; d++)
			if (c[d] == m)
				skip = 1;
		if (skip)
			continue;
		for (int d = 0; d < 256; d++)
			c[d + 1] += c[d];
		int shift = 8 * byte;
		for (size_t k = 0; k < m; k++)
			b[c[(order_of(&a[k]) >> shift) & 0xff]++] = a[k];
		key_row *t = a;
		a = b;
		b = t;
	}
	if (a != rows + nulls)
		memcpy(rows + nulls, a, m * sizeof *a);
}
