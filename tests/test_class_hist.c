/* test_class_hist.c — class_hist_of() and class_hist_all()
 * (analysis/class_hist.c), the objects counted by class behind info,
 * analyze's purged-by-class line and whatif's lists: on random heaps with
 * free slots, many classes and tied sizes, every object, a random list of
 * objects and an empty list (NULL, as whatif passes when nothing is freed)
 * are counted and ranked against the definition (a class's objects and
 * bytes summed over the objects given; the best not yet taken, most first,
 * ties to the lower class index, TOP times), for every TOP past the number
 * of classes; out of memory is an error with nothing to free, never a
 * shorter list. */
#include <stdlib.h>

#include "analysis/class_hist.h"
#include "tests/oom_wrap.h"
#include "tests/unit.h"

/* A heap of N objects from index 11, some indexes skipped (free slots),
 * each of a random class among 1-4 and the first eight objects, of a size
 * from a few values (ties); 0, or -1 after failing the test. */
static int class_heap(int n, heap *h)
{
	size_t cap = 64 * (size_t)n + 1, len = 0;
	char *t = malloc(cap);
	t[0] = '\0';
	int made[8], nmade = 0;
	for (int i = 11, k = 0; k < n; k++, i += 1 + (test_rand_below(5) == 0)) {
		uint32_t c = test_rand_below(12);
		int cls = c < 4 ? 1 + (int)c : c - 4 < (uint32_t)nmade ? made[c - 4] : 4;
		if (nmade < 8)
			made[nmade++] = i;
		len += (size_t)snprintf(t + len, cap - len, "o %d 1 %d 10 O%d %u -\n", i, cls, i,
					  100 * (1 + test_rand_below(4)));
	}
	int rc = load_heap(t, h); /* after PRELUDE */
	test_failed += rc != 0;
	free(t);
	return rc;
}

/* The definition, for the objects OBJS[0..N) (every object when ALL). */
static int check(const heap *h, const obj_t *objs, uint32_t n, int all)
{
	uint32_t *count = calloc((size_t)h->slots + 1, sizeof *count);
	uint64_t *bytes = calloc((size_t)h->slots + 1, sizeof *bytes);
	uint8_t *taken = calloc((size_t)h->slots + 1, 1);
	uint32_t classes = 0;
	for (uint32_t i = 0; i < h->slots; i++) {
		int counted = 0;
		for (uint32_t k = 0; k < n; k++)
			counted += objs[k] == (obj_t)i;
		if (all)
			counted = h->cls[i] != OBJ_FREE;
		if (counted) {
			classes += count[h->cls[i]] == 0;
			count[h->cls[i]] += (uint32_t)counted;
			bytes[h->cls[i]] += (uint64_t)counted * h->size[i];
		}
	}
	int bad = 0;
	for (size_t top = 0; top <= classes + 2; top++) {
		class_hist c;
		if (all ? class_hist_all(h, top, &c) : class_hist_of(h, objs, n, top, &c)) {
			bad++;
			continue;
		}
		bad += c.classes != classes || c.n != (top < classes ? top : classes);
		for (int by = CLASS_BY_COUNT; by <= CLASS_BY_BYTES; by++) {
			memset(taken, 0, (size_t)h->slots + 1);
			for (size_t r = 0; r < c.n; r++) {
				int64_t best = -1;
				for (uint32_t x = 0; x < h->slots; x++) {
					if (!count[x] || taken[x])
						continue;
					uint64_t kx = by == CLASS_BY_BYTES ? bytes[x] : count[x];
					if (best < 0 || kx > (by == CLASS_BY_BYTES ? bytes[best] : count[best]))
						best = x; /* a tie keeps the lower index, met first */
				}
				taken[best] = 1;
				const class_row *row = &c.top[by][r];
				bad += row->cls != (obj_t)best || row->count != count[best] || row->bytes != bytes[best];
			}
		}
		class_hist_free(&c);
	}
	free(count);
	free(bytes);
	free(taken);
	return bad;
}

TEST(class_hist_counts_and_ranks_as_the_definition)
{
	for (int round = 0; round < 6; round++) {
		heap h;
		if (class_heap(round ? 300 : 1, &h))
			return;
		obj_t objs[200];
		uint32_t n = 0;
		for (uint32_t i = 0; i < h.slots && n < 200; i++)
			if (h.cls[i] != OBJ_FREE && test_rand_below(3) == 0)
				objs[n++] = (obj_t)i;
		int bad_all = check(&h, NULL, 0, 1), bad_list = check(&h, objs, n, 0), bad_none = check(&h, NULL, 0, 0);
		if (bad_all || bad_list || bad_none)
			printf("    round %d: %d, %d and %d rows off (every object, a list, none)\n", round, bad_all, bad_list,
			       bad_none);
		CHECK(bad_all == 0 && bad_list == 0 && bad_none == 0);
		heap_free(&h);
	}
}

TEST(class_hist_out_of_memory_is_an_error)
{
	heap h;
	if (class_heap(50, &h))
		return;
	class_hist want;
	CHECK(class_hist_all(&h, 5, &want) == 0 && want.n == 5);
	int failed = 0, bad = 0;
	for (long at = 1; at <= 8; at++) {
		class_hist c;
		oom_count = 0;
		oom_fail_at = at;
		int rc = class_hist_all(&h, 5, &c);
		oom_fail_at = 0;
		if (rc) { /* an error leaves nothing to free: the struct is empty */
			failed++;
			bad += c.n != 0 || c.top[0] || c.top[1];
			continue;
		}
		bad += c.n != want.n || c.classes != want.classes;
		for (int by = 0; by < 2 && !bad; by++)
			bad += memcmp(c.top[by], want.top[by], c.n * sizeof *c.top[by]) != 0;
		class_hist_free(&c);
	}
	CHECK(failed == 6 && bad == 0); /* two counters, two rankings, two row lists */
	class_hist_free(&want);
	heap_free(&h);
}
