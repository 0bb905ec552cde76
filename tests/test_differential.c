/* test_differential.c — the pipeline against the naive implementation
 * (naive_gc.c) on many generated heaps: both modes, broken cluster lists,
 * and random Garbage/RootSet/RefCounted/async-loading-phase flips (garbage
 * cluster roots and mutables, rooted members), each run with one and with two threads. */
#include <stdlib.h>

#include "tools/gen/gen.h"
#include "tests/naive_gc.h"
#include "tests/unit.h"

static void perturb(heap *h, int percent)
{
	for (uint32_t i = (uint32_t)h->first_gc_index; i < h->slots; i++) {
		if (h->cls[i] == OBJ_FREE || test_rand_below(1000) >= (uint32_t)percent * 10)
			continue;
		switch (test_rand_below(7)) {
		case 0: h->iflags[i] ^= IF_Garbage; break;
		case 1: h->oflags[i] ^= RF_MirroredGarbage; break;
		case 2: h->iflags[i] ^= IF_RootSet; break;
		case 3: h->oflags[i] ^= RF_Standalone; break;
		case 4: h->iflags[i] ^= IF_AsyncLoadingPhase1; break;
		case 5: h->iflags[i] ^= IF_AsyncLoadingPhase2; break;
		default: h->iflags[i] ^= IF_RefCounted; break;
		}
	}
	/* and make a few cluster roots garbage */
	for (uint32_t c = 0; c < h->nclusters; c++)
		if (test_rand_below(100) < (uint32_t)percent)
			h->iflags[h->clusters[c].root] |= IF_Garbage;
}

/* Compare the two results; returns the number of disagreements (printing the first few). */
static int compare(const heap *h, const gc_result *r, const naive_result *n, const char *what)
{
	int bad = 0;
#define DIFF(cond, ...) do { if (cond) { if (bad++ < 5) { printf("    %s: ", what); printf(__VA_ARGS__); printf("\n"); } } } while (0)
	for (uint32_t i = 0; i < h->slots; i++) {
		DIFF(r->reachable[i] != n->reachable[i], "object %u reachable %d vs naive %d", i, r->reachable[i], n->reachable[i]);
		DIFF(r->root_kind[i] != n->kind[i], "object %u kind %d vs naive %d", i, r->root_kind[i], n->kind[i]);
		DIFF(r->distance[i] != n->distance[i], "object %u distance %u vs naive %u", i, r->distance[i], n->distance[i]);
		DIFF(r->parent[i] != n->parent[i] || r->via[i] != n->via[i], "object %u parent %d/%u vs naive %d/%u", i,
		     r->parent[i], r->via[i], n->parent[i], n->via[i]);
	}
	for (uint32_t i = 0; i < h->slots; i++)
		DIFF(r->was_traced[i] != n->traced[i], "object %u traced %d vs naive %d", i, r->was_traced[i], n->traced[i]);
	for (uint32_t c = 0; c < h->nclusters; c++) {
		DIFF(r->cluster_fate[c] != n->fate[c], "cluster %d fate %d vs naive %d", h->clusters[c].root,
		     r->cluster_fate[c], n->fate[c]);
		DIFF(r->cluster_walked[c] != n->walked[c], "cluster %d walked %d vs naive %d", h->clusters[c].root,
		     r->cluster_walked[c], n->walked[c]);
	}
	uint8_t *elim = calloc(h->nrefs + 1, 1), *gel = calloc(h->ngcrefs + 1, 1), *clr = calloc(h->nrefs + 1, 1);
	uint8_t *unc = calloc(h->nrefs + 1, 1), *hel = calloc(h->nrefs + 1, 1);
	for (uint32_t k = 0; k < r->nuncleared; k++)
		unc[r->uncleared[k]] = 1;
	for (uint32_t k = 0; k < r->neliminated; k++) {
		if (r->eliminated[k].src == OBJ_NONE)
			gel[r->eliminated[k].ref] = 1;
		else if (r->eliminated[k].handoff)
			hel[r->eliminated[k].ref] = 1;
		else
			elim[r->eliminated[k].ref] = 1;
	}
	for (uint32_t k = 0; k < r->ncleared; k++)
		clr[r->cleared[k]] = 1;
	for (uint32_t k = 0; k < h->nrefs; k++) {
		DIFF(elim[k] != n->eliminated[k], "reference %u eliminated %d vs naive %d", k, elim[k], n->eliminated[k]);
		DIFF(hel[k] != n->h_eliminated[k], "handed-over reference %u eliminated %d vs naive %d", k, hel[k],
		     n->h_eliminated[k]);
		DIFF(clr[k] != n->cleared[k], "reference %u cleared %d vs naive %d", k, clr[k], n->cleared[k]);
		DIFF(unc[k] != n->uncleared[k], "reference %u uncleared %d vs naive %d", k, unc[k], n->uncleared[k]);
	}
	for (uint32_t g = 0; g < h->ngcrefs; g++)
		DIFF(gel[g] != n->g_eliminated[g], "g record %u eliminated %d vs naive %d", g, gel[g], n->g_eliminated[g]);
	free(elim);
	free(gel);
	free(clr);
	free(unc);
	free(hel);
	return bad;
}

TEST(differential_against_naive_gc)
{
	int heaps = 0, disagreements = 0;
	static const int sizes[] = {250, 600, 1500, 2500};
	for (int seed = 1; seed <= 24; seed++) {
		gen_options go = {(uint64_t)sizes[seed % 4], (uint64_t)seed, seed % 3 == 0 ? MODE_EDITOR : MODE_GAME,
				  (seed % 4) * 10};
		heap h;
		char err[256];
		if (gen_heap(&go, &h, err, sizeof err)) {
			printf("    gen: %s\n", err);
			test_failed++;
			continue;
		}
		perturb(&h, seed % 2 ? 3 : 0);
		naive_result n;
		naive_gc(&h, gc_default_keep_flags(go.mode), &n);
		for (int threads = 1; threads <= 2; threads++) {
			gc_result r;
			CHECK(run_gc(&h, go.mode, threads, &r) == 0);
			char what[64];
			snprintf(what, sizeof what, "seed %d, %d thread%s", seed, threads, threads > 1 ? "s" : "");
			disagreements += compare(&h, &r, &n, what);
			gc_result_free(&r);
		}
		naive_free(&n);
		heap_free(&h);
		heaps++;
	}
	CHECK(heaps == 24);
	CHECK(disagreements == 0);
}

TEST(threads_give_identical_results_on_a_large_heap)
{
	gen_options go = {60000, 7, MODE_GAME, 20};
	heap h;
	char err[256];
	CHECK(gen_heap(&go, &h, err, sizeof err) == 0);
	perturb(&h, 1);
	gc_result one, two;
	gc_options o1 = {.mode = MODE_GAME, .threads = 1}, o2 = {.mode = MODE_GAME, .threads = 2, .parallel_min = 64};
	gc_options o4 = {.mode = MODE_GAME, .threads = 4, .parallel_min = 64, .defer_retention = 1};
	CHECK(gc_run(&h, &o1, &one) == 0);
	CHECK(gc_run(&h, &o2, &two) == 0);
	CHECK(one.npurged == two.npurged && one.neliminated == two.neliminated && one.ncleared == two.ncleared);
	CHECK(memcmp(one.reachable, two.reachable, h.slots) == 0);
	CHECK(memcmp(one.purged, two.purged, one.npurged * sizeof *one.purged) == 0);
	CHECK(memcmp(one.eliminated, two.eliminated, one.neliminated * sizeof *one.eliminated) == 0);
	CHECK(memcmp(one.cleared, two.cleared, one.ncleared * sizeof *one.cleared) == 0);
	CHECK(memcmp(one.cluster_fate, two.cluster_fate, h.nclusters) == 0);
	gc_result_free(&two);
	/* four threads, and ugc-gc(7) §3 deferred to a separate call (as the
	 * retention commands run it, after the dominators): the same answer */
	CHECK(gc_run(&h, &o4, &two) == 0);
	CHECK(two.distance == NULL && two.root_kind == NULL);
	CHECK(gc_retention(&h, &two, two.keep_flags) == 0);
	CHECK(memcmp(one.reachable, two.reachable, h.slots) == 0);
	CHECK(memcmp(one.distance, two.distance, h.slots * sizeof *one.distance) == 0);
	CHECK(memcmp(one.parent, two.parent, h.slots * sizeof *one.parent) == 0);
	CHECK(memcmp(one.via, two.via, h.slots * sizeof *one.via) == 0);
	CHECK(memcmp(one.root_kind, two.root_kind, h.slots) == 0);
	CHECK(one.npurged > 0 && one.neliminated > 0 && one.ncleared > 0); /* the heap exercises all three */
	gc_result_free(&one);
	gc_result_free(&two);
	heap_free(&h);
}

TEST(differential_on_random_heaps_with_inconsistent_clusters)
{
	int disagreements = 0, heaps = 0, activity = 0, uncleared = 0, walked_then_dissolved = 0, unwalked_alive = 0;
	int handed = 0, handed_eliminated = 0, pool_eliminated = 0;
	for (int round = 0; round < 600; round++) {
		heap h;
		if (random_heap(16 + (int)test_rand_below(100), 1, &h))
			continue;
		int mode = round % 2 ? MODE_EDITOR : MODE_GAME;
		naive_result n;
		naive_gc(&h, gc_default_keep_flags(mode), &n);
		for (int threads = 1; threads <= 2; threads++) {
			gc_result r;
			CHECK(run_gc(&h, mode, threads, &r) == 0);
			char what[64];
			snprintf(what, sizeof what, "random heap %d, %d thread%s", round, threads, threads > 1 ? "s" : "");
			disagreements += compare(&h, &r, &n, what);
			activity += r.dissolved[CF_GARBAGE_MUTABLE] + r.dissolved[CF_REFERENCES_DISSOLVED];
			uncleared += (int)r.nuncleared;
			handed += (int)r.nhandoff;
			for (uint32_t k = 0; k < r.neliminated; k++) {
				handed_eliminated += r.eliminated[k].handoff != 0;
				pool_eliminated += heap_in_disregard(&h, r.eliminated[k].dst);
			}
			for (uint32_t c = 0; c < h.nclusters; c++) {
				walked_then_dissolved += r.cluster_walked[c] && r.cluster_fate[c] == CF_UNREACHABLE_ROOT;
				unwalked_alive += !r.cluster_walked[c] && r.cluster_fate[c] == CF_ALIVE;
			}
			gc_result_free(&r);
		}
		naive_free(&n);
		heap_free(&h);
		heaps++;
	}
	CHECK(heaps == 600);
	/* the heaps do reach the cluster rules: dissolving, rooted members whose
	 * cluster dies all the same, clusters never walked, weak references left */
	CHECK(activity > 0);
	CHECK(walked_then_dissolved > 0 && unwalked_alive > 0 && uncleared > 0);
	/* and ugc-gc(7) §1.2's hand-over and §1.4's garbage pool objects */
	CHECK(handed > 0 && handed_eliminated > 0 && pool_eliminated > 0);
	CHECK(disagreements == 0);
}
