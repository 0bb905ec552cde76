/* test_topn.c — base/topn.c, the one top-N rule (top's objects, the top
 * classes of info, analyze and whatif, suspects' classes): the best TOP
 * of the candidates with a count, chosen by topn_offer and topn_sort, are
 * checked against a plain selection by the definition (largest key first,
 * ties to the lower index, zero counts left out) on random arrays with many
 * ties, for every TOP from 0 past the number of candidates; and out of
 * memory, topn_init says so instead of giving an empty list. */
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "tests/oom_wrap.h"
#include "tests/unit.h"

/* The indexes with a count, ranked by KEY (COUNT when KEY is NULL): the
 * best TOP into OUT, how many into *SHOWN; 0, or -1 when out of memory. */
static int top_indexes(const uint32_t *count, const uint64_t *key, uint32_t n, size_t top, uint32_t *out,
		       size_t *shown)
{
	topn t;
	if (topn_init(&t, top < n ? top : n))
		return -1;
	for (uint32_t i = 0; i < n; i++)
		if (count[i])
			topn_offer(&t, key ? key[i] : count[i], i);
	topn_sort(&t);
	for (size_t k = 0; k < t.n; k++)
		out[k] = t.v[k].idx;
	*shown = t.n;
	topn_free(&t);
	return 0;
}

/* The definition: the best of the indexes not yet taken, TOP times. */
static size_t naive_top(const uint32_t *count, const uint64_t *key, uint32_t n, size_t top, uint32_t *out)
{
	uint8_t *taken = calloc(n + 1, 1);
	size_t m = 0;
	for (; m < top; m++) {
		int64_t best = -1;
		for (uint32_t i = 0; i < n; i++) {
			if (!count[i] || taken[i])
				continue;
			uint64_t ki = key ? key[i] : count[i];
			if (best < 0 || ki > (key ? key[best] : count[best]))
				best = i; /* a tie keeps the lower index, met first */
		}
		if (best < 0)
			break;
		taken[best] = 1;
		out[m] = (uint32_t)best;
	}
	free(taken);
	return m;
}

TEST(topn_ranks_as_the_definition)
{
	enum { N = 300 };
	uint32_t count[N], got[N + 8], want[N + 8];
	uint64_t key[N];
	int bad = 0;
	for (int round = 0; round < 40 && !bad; round++) {
		for (int i = 0; i < N; i++) {
			count[i] = test_rand_below(4) == 0 ? 0 : test_rand_below(round % 2 ? 5 : 1000); /* ties, zeros */
			key[i] = test_rand_below(round % 3 ? 7 : 100000);
		}
		uint32_t n = round % 5 == 4 ? 1 : N;
		for (size_t top = 0; top <= n + 3; top += (top < 20 ? 1 : 37)) {
			for (int by_key = 0; by_key < 2; by_key++) {
				const uint64_t *k = by_key ? key : NULL;
				size_t a = SIZE_MAX, b = naive_top(count, k, n, top, want);
				if ((top_indexes(count, k, n, top, got, &a) != 0 || a != b || memcmp(got, want, a * sizeof *got) != 0) && bad++ < 3)
					printf("    round %d, top %zu, by %s: %zu vs %zu indexes, or another order\n", round,
					       top, by_key ? "key" : "count", a, b);
			}
		}
	}
	CHECK(bad == 0);
}

TEST(topn_out_of_memory_is_an_error)
{
	uint32_t count[3] = {2, 0, 5}, out[3];
	size_t n = SIZE_MAX;
	oom_count = 0;
	oom_fail_at = 1;
	int rc = top_indexes(count, NULL, 3, 3, out, &n);
	oom_fail_at = 0;
	CHECK(rc == -1 && n == SIZE_MAX);
	CHECK(top_indexes(count, NULL, 3, 3, out, &n) == 0 && n == 2 && out[0] == 2 && out[1] == 0);
}
