/* test_top_indexes.c — top_indexes() (base/topn.c), the ranking behind the
 * top-class lists of info, analyze and whatif, over topn.h's bounded heap
 * (top's objects use it too): checked against a plain selection by the
 * definition (largest key first, ties to the lower index,
 * zero counts left out) on random arrays with many ties, for every TOP from
 * 0 past the number of candidates; and out of memory it says so instead of
 * giving an empty list (info, analyze and whatif then say so too). */
#include <stdlib.h>

#include "cli/cli.h"
#include "tests/oom_wrap.h"
#include "tests/unit.h"

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

TEST(top_indexes_rank_as_the_definition)
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

TEST(top_indexes_out_of_memory_is_an_error)
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
