/* key_sort.c — index entries into SQLite's order (see key_sort.h).
 *
 * NULLs go first by a stable partition.  The other entries are sorted by
 * their key with a stable least-significant-digit radix sort over the
 * bits in which the keys differ, in digits of at most DIGIT_BITS bits,
 * whose counts are all taken in one pass before the scatter passes.  When
 * the keys span less than 2^32 (object indexes, most sizes), each entry is
 * first packed into 8 bytes (key less the least key, above the rowid), so
 * that every pass moves half the bytes; otherwise the 16-byte entries are
 * sorted as they are.  Rows come in rowid order and every pass is stable,
 * so entries of one key stay in rowid order. */
#include "sql/key_sort.h"

#include <string.h>

#define DIGIT_BITS 11
#define DIGITS_MAX ((64 + DIGIT_BITS - 1) / DIGIT_BITS)
#define RADIX (1u << DIGIT_BITS)

/* The key as an unsigned number in the same order. */
static uint64_t order_of(const key_row *r)
{
	return (uint64_t)r->key ^ 0x8000000000000000ull;
}

/* The digits that cover bits LO .. LO + BITS - 1: how many, and each one's
 * shift and width (no wider than DIGIT_BITS, all about the same). */
typedef struct digits {
	int n, shift[DIGITS_MAX], width[DIGITS_MAX];
} digits;

static digits plan(int lo, int bits)
{
	digits d = {0, {0}, {0}};
	d.n = (bits + DIGIT_BITS - 1) / DIGIT_BITS;
	for (int k = 0, at = lo; k < d.n; k++) {
		int w = (lo + bits - at + (d.n - k) - 1) / (d.n - k); /* the rest shared out */
		d.shift[k] = at;
		d.width[k] = w;
		at += w;
	}
	return d;
}

static int lowest_bit(uint64_t v)
{
	return __builtin_ctzll(v);
}

static int highest_bit(uint64_t v)
{
	return 63 - __builtin_clzll(v);
}

/* Counts to starts, in place: COUNT[0 .. RADIX-1]. */
static void starts(size_t *count)
{
	size_t sum = 0;
	for (uint32_t v = 0; v < RADIX; v++) {
		size_t c = count[v];
		count[v] = sum;
		sum += c;
	}
}

/* Sort the M packed entries of A by bits LO .. LO + BITS - 1, B the
 * scratch; returns where they ended (A or B). */
static uint64_t *sort_packed(uint64_t *a, uint64_t *b, size_t m, int lo, int bits)
{
	digits d = plan(lo, bits);
	size_t count[DIGITS_MAX][RADIX]; /* 96 KiB of stack */
	memset(count, 0, sizeof count[0] * (size_t)d.n);
	for (size_t k = 0; k < m; k++)
		for (int j = 0; j < d.n; j++)
			count[j][(a[k] >> d.shift[j]) & ((1u << d.width[j]) - 1)]++;
	for (int j = 0; j < d.n; j++) {
		size_t *c = count[j];
		uint64_t mask = (1u << d.width[j]) - 1;
		int shift = d.shift[j];
		starts(c);
		for (size_t k = 0; k < m; k++)
			b[c[(a[k] >> shift) & mask]++] = a[k];
		uint64_t *t = a;
		a = b;
		b = t;
	}
	return a;
}

/* The same for 16-byte entries, by their keys' order bits. */
static key_row *sort_rows(key_row *a, key_row *b, size_t m, int lo, int bits)
{
	digits d = plan(lo, bits);
	size_t count[DIGITS_MAX][RADIX]; /* 96 KiB of stack */
	memset(count, 0, sizeof count[0] * (size_t)d.n);
	for (size_t k = 0; k < m; k++) {
		uint64_t u = order_of(&a[k]);
		for (int j = 0; j < d.n; j++)
			count[j][(u >> d.shift[j]) & ((1u << d.width[j]) - 1)]++;
	}
	for (int j = 0; j < d.n; j++) {
		size_t *c = count[j];
		uint64_t mask = (1u << d.width[j]) - 1;
		int shift = d.shift[j];
		starts(c);
		for (size_t k = 0; k < m; k++)
			b[c[(order_of(&a[k]) >> shift) & mask]++] = a[k];
		key_row *t = a;
		a = b;
		b = t;
	}
	return a;
}

void key_sort(key_row *rows, key_row *tmp, size_t n)
{
	/* NULLs first, in rowid order; the least and greatest key, and the
	 * bits in which the keys differ */
	size_t nulls = 0;
	uint64_t least = UINT64_MAX, most = 0, first = 0, differ = 0;
	for (size_t k = 0; k < n; k++) {
		if (rows[k].null) {
			nulls++;
			continue;
		}
		uint64_t u = order_of(&rows[k]);
		if (nulls == k) /* the first key */
			first = u;
		least = u < least ? u : least;
		most = u > most ? u : most;
		differ |= u ^ first;
	}
	if (nulls) {
		size_t j = 0, m = nulls;
		for (size_t k = 0; k < n; k++)
			tmp[rows[k].null ? j++ : m++] = rows[k];
		memcpy(rows, tmp, n * sizeof *rows);
	}
	size_t m = n - nulls;
	key_row *a = rows + nulls;
	if (m < 2 || differ == 0)
		return;
	if (most - least <= UINT32_MAX) {
		/* packed: (key - least) << 32 | rowid, in TMP's two halves */
		uint64_t *p = (uint64_t *)(void *)tmp, *q = p + m;
		for (size_t k = 0; k < m; k++)
			p[k] = (order_of(&a[k]) - least) << 32 | a[k].rowid;
		uint64_t range = most - least;
		int lo = 32 + lowest_bit(differ), hi = 32 + highest_bit(range);
		uint64_t *s = sort_packed(p, q, m, lo, hi - lo + 1);
		for (size_t k = 0; k < m; k++)
			a[k] = (key_row){(int64_t)((least + (s[k] >> 32)) ^ 0x8000000000000000ull), (uint32_t)s[k], 0};
		return;
	}
	int lo = lowest_bit(differ), hi = highest_bit(differ);
	key_row *s = sort_rows(a, tmp, m, lo, hi - lo + 1);
	if (s != a)
		memcpy(a, s, m * sizeof *a);
}
