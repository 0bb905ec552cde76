/* test_differential.c — the pipeline against the naive implementation
 * (naive_gc.c) on many generated heaps: both modes, broken cluster lists,
 * and random Garbage/RootSet/RefCounted flips (garbage cluster roots and
 * mutables, rooted members), each run with one and with two threads. */
#include <stdlib.h>

#include "gen.h"
#include "naive_gc.h"
#include "unit.h"

static uint64_t rng = 88172645463325252ull;
static uint32_t rand_below(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

static void perturb(heap *h, int percent)
{
	for (uint32_t i = (uint32_t)h->first_gc_index; i < h->slots; i++) {
		if (h->cls[i] == OBJ_FREE || rand_below(1000) >= (uint32_t)percent * 10)
			continue;
		switch (rand_below(5)) {
		case 0: h->iflags[i] ^= IF_Garbage; break;
		case 1: h->oflags[i] ^= RF_MirroredGarbage; break;
		case 2: h->iflags[i] ^= IF_RootSet; break;
		case 3: h->oflags[i] ^= RF_Standalone; break;
		default: h->iflags[i] ^= IF_RefCounted; break;
		}
	}
	/* and make a few cluster roots garbage */
	for (uint32_t c = 0; c < h->nclusters; c++)
		if (rand_below(100) < (uint32_t)percent)
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
	for (uint32_t c = 0; c < h->nclusters; c++) {
		DIFF(r->cluster_fate[c] != n->fate[c], "cluster %d fate %d vs naive %d", h->clusters[c].root,
		     r->cluster_fate[c], n->fate[c]);
		DIFF(r->cluster_walked[c] != n->walked[c], "cluster %d walked %d vs naive %d", h->clusters[c].root,
		     r->cluster_walked[c], n->walked[c]);
	}
	uint8_t *elim = calloc(h->nrefs + 1, 1), *gel = calloc(h->ngcrefs + 1, 1), *clr = calloc(h->nrefs + 1, 1);
	uint8_t *unc = calloc(h->nrefs + 1, 1);
	for (uint32_t k = 0; k < r->nuncleared; k++)
		unc[r->uncleared[k]] = 1;
	for (uint32_t k = 0; k < r->neliminated; k++) {
		if (r->eliminated[k].src == OBJ_NONE)
			gel[r->eliminated[k].ref] = 1;
		else
			elim[r->eliminated[k].ref] = 1;
	}
	for (uint32_t k = 0; k < r->ncleared; k++)
		clr[r->cleared[k]] = 1;
	for (uint32_t k = 0; k < h->nrefs; k++) {
		DIFF(elim[k] != n->eliminated[k], "reference %u eliminated %d vs naive %d", k, elim[k], n->eliminated[k]);
		DIFF(clr[k] != n->cleared[k], "reference %u cleared %d vs naive %d", k, clr[k], n->cleared[k]);
		DIFF(unc[k] != n->uncleared[k], "reference %u uncleared %d vs naive %d", k, unc[k], n->uncleared[k]);
	}
	for (uint32_t g = 0; g < h->ngcrefs; g++)
		DIFF(gel[g] != n->g_eliminated[g], "g record %u eliminated %d vs naive %d", g, gel[g], n->g_eliminated[g]);
	free(elim);
	free(gel);
	free(clr);
	free(unc);
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
	gc_options o1 = {MODE_GAME, 0, 1, 0}, o2 = {MODE_GAME, 0, 2, 64}, o4 = {MODE_GAME, 0, 4, 64};
	CHECK(gc_run(&h, &o1, &one) == 0);
	CHECK(gc_run(&h, &o2, &two) == 0);
	CHECK(one.npurged == two.npurged && one.neliminated == two.neliminated && one.ncleared == two.ncleared);
	CHECK(memcmp(one.reachable, two.reachable, h.slots) == 0);
	CHECK(memcmp(one.purged, two.purged, one.npurged * sizeof *one.purged) == 0);
	CHECK(memcmp(one.eliminated, two.eliminated, one.neliminated * sizeof *one.eliminated) == 0);
	CHECK(memcmp(one.cleared, two.cleared, one.ncleared * sizeof *one.cleared) == 0);
	CHECK(memcmp(one.cluster_fate, two.cluster_fate, h.nclusters) == 0);
	gc_result_free(&two);
	CHECK(gc_run(&h, &o4, &two) == 0);
	CHECK(memcmp(one.reachable, two.reachable, h.slots) == 0);
	CHECK(memcmp(one.distance, two.distance, h.slots * sizeof *one.distance) == 0);
	CHECK(one.npurged > 0 && one.neliminated > 0 && one.ncleared > 0); /* the heap exercises all three */
	gc_result_free(&one);
	gc_result_free(&two);
	heap_free(&h);
}

/* A small random heap as text: random Outers, flags, references of every
 * kind, and clusters with random (so mostly inconsistent) lists. */
static char *random_heap_text(int n)
{
	size_t cap = 1 << 20, len = 0;
	char *t = malloc(cap);
#define OUT(...) (len += (size_t)snprintf(t + len, cap - len, __VA_ARGS__))
	OUT("%s", PRELUDE);
	static const char *flags[] = {"-", "-", "-", "-", "RootSet", "Garbage", "RefCounted", "RF_Standalone",
				      "RF_MirroredGarbage", "Native", "RootSet,Garbage"};
	for (int i = 11; i < 11 + n; i++) {
		int outer = rand_below(3) == 0 && i > 11 ? 11 + (int)rand_below((uint32_t)(i - 11)) : 10;
		OUT("o %d 1 4 %d O%d 1 %s\n", i, outer, i, flags[rand_below(11)]);
	}
	static const char *kinds[] = {"strong", "strong", "strong", "aro", "immutable", "weak", "soft"};
	int nref = n * 2;
	for (int k = 0; k < nref; k++)
		OUT("r %d %d %s P%d\n", 11 + (int)rand_below((uint32_t)n), 11 + (int)rand_below((uint32_t)n),
		    kinds[rand_below(7)], k);
	for (int k = 0; k < n / 8; k++)
		OUT("g G%d %d\n", k % 3, 11 + (int)rand_below((uint32_t)n));
	/* clusters: roots and members drawn without overlap */
	int *owner = calloc((size_t)n + 11, sizeof *owner), roots[32], nroots = 0;
	for (int c = 0; c < 32 && c < n / 4; c++) {
		int r = 11 + (int)rand_below((uint32_t)n);
		if (owner[r])
			continue;
		owner[r] = -1;
		roots[nroots++] = r;
	}
	for (int c = 0; c < nroots; c++) {
		OUT("c %d ", roots[c]);
		int first = 1, m = 1 + (int)rand_below(5);
		for (int k = 0; k < m; k++) {
			int x = 11 + (int)rand_below((uint32_t)n);
			if (owner[x])
				continue;
			owner[x] = roots[c];
			OUT("%s%d", first ? "" : ",", x);
			first = 0;
		}
		if (first)
			OUT("-");
		OUT(" ");
		m = (int)rand_below(4);
		for (int k = 0; k < m; k++)
			OUT("%s%d", k ? "," : "", 11 + (int)rand_below((uint32_t)n));
		if (!m)
			OUT("-");
		OUT(" ");
		m = (int)rand_below(4);
		first = 1;
		for (int k = 0; k < m; k++) {
			int o = roots[rand_below((uint32_t)nroots)];
			if (o == roots[c])
				continue;
			OUT("%s%d", first ? "" : ",", o);
			first = 0;
		}
		if (first)
			OUT("-");
		OUT("\n");
	}
	free(owner);
	return t;
#undef OUT
}

TEST(differential_on_random_heaps_with_inconsistent_clusters)
{
	int disagreements = 0, heaps = 0, activity = 0, uncleared = 0, walked_then_dissolved = 0, unwalked_alive = 0;
	for (int round = 0; round < 600; round++) {
		char *text = random_heap_text(16 + (int)rand_below(100));
		heap h;
		char err[512];
		if (parse_text(text, &h, err, sizeof err)) {
			printf("    random heap %d: %s\n", round, err);
			test_failed++;
			free(text);
			continue;
		}
		free(text);
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
	CHECK(disagreements == 0);
}
