/* fuzz_pipeline.c — libFuzzer harness for the whole pipeline: a snapshot
 * (text or binary, told apart by content as the tool does) that loads is run
 * through the GC and must keep the pipeline's invariants:
 *   - the same result on 1 and on 2 marking threads;
 *   - findings are collected without error;
 *   - the after-GC heap (when it can be written) reloads, as text and binary;
 *   - a self-diff keeps every object;
 *   - leak mode, every object new, leaks every reachable one, and its
 *     groups add up;
 *   - text and binary round trips give the same canonical text;
 *   - under every retention policy the dominators form a tree under the
 *     top whose retained sizes add up (each object's own size plus what it
 *     dominates), and the gc policy reaches exactly what the GC keeps;
 *     the objects-only computation gives the same answers, and so does
 *     the one without the GC's result on a heap that needs none.
 * A broken invariant aborts (a crash for libFuzzer, the input saved). */
#include <stdlib.h>
#include <string.h>

#include "analysis/after.h"
#include "fuzz/common.h"
#include "analysis/diff.h"
#include "analysis/diff_report.h"
#include "analysis/dominators.h"
#include "analysis/findings.h"
#include "analysis/gc.h"
#include "analysis/pipeline.h"
#include "snapshot/snapshot.h"

/* Heaps larger than this are loaded but not analysed (speed, not safety). */
#define PIPELINE_MAX_SLOTS (1u << 16)

/* Write H as text and as binary, read both back: each must load and give
 * H's canonical text again. */
static void round_trips(const heap *h)
{
	size_t l1, l2, lb = 0;
	char *t1 = fuzz_canonical(h, &l1), *bin = NULL, err[SNAP_ERR_MAX];
	heap b;
	heap_init(&b);
	FUZZ_ASSERT(text_parse("canon", t1, l1, &b, err, sizeof err) == 0, "canonical text does not reload");
	char *t2 = fuzz_canonical(&b, &l2);
	FUZZ_ASSERT(l1 == l2 && memcmp(t1, t2, l1) == 0, "text round trip changes the heap");
	free(t2);
	heap_free(&b);
	FILE *f = open_memstream(&bin, &lb);
	FUZZ_ASSERT(f && binary_write(h, f, err, sizeof err) == 0, "binary_write failed");
	fclose(f);
	heap_init(&b);
	FUZZ_ASSERT(binary_parse("canon", (unsigned char *)bin, lb, &b, err, sizeof err) == 0,
		    "written binary does not reload");
	t2 = fuzz_canonical(&b, &l2);
	FUZZ_ASSERT(l1 == l2 && memcmp(t1, t2, l1) == 0, "binary round trip changes the heap");
	free(t2);
	heap_free(&b);
	free(bin);
	free(t1);
}

static int same_u32(const uint32_t *a, const uint32_t *b, size_t n) { return n == 0 || memcmp(a, b, n * 4) == 0; }

static void same_result(const heap *h, const gc_result *a, const gc_result *b)
{
	size_t s = h->slots;
	FUZZ_ASSERT(memcmp(a->reachable, b->reachable, s) == 0, "threads: reachable differs");
	FUZZ_ASSERT(memcmp(a->root_kind, b->root_kind, s) == 0, "threads: root kinds differ");
	FUZZ_ASSERT(same_u32(a->distance, b->distance, s), "threads: distances differ");
	FUZZ_ASSERT(same_u32((const uint32_t *)a->parent, (const uint32_t *)b->parent, s), "threads: parents differ");
	FUZZ_ASSERT(same_u32(a->via, b->via, s), "threads: via differs");
	FUZZ_ASSERT(h->nclusters == 0 || memcmp(a->cluster_fate, b->cluster_fate, h->nclusters) == 0,
		    "threads: cluster fates differ");
	FUZZ_ASSERT(a->neliminated == b->neliminated && a->ncleared == b->ncleared && a->npurged == b->npurged,
		    "threads: counts differ");
	FUZZ_ASSERT(a->neliminated == 0 || memcmp(a->eliminated, b->eliminated, a->neliminated * sizeof *a->eliminated) == 0,
		    "threads: eliminated references differ");
	FUZZ_ASSERT(same_u32(a->cleared, b->cleared, a->ncleared), "threads: cleared references differ");
	FUZZ_ASSERT(same_u32((const uint32_t *)a->purged, (const uint32_t *)b->purged, a->npurged), "threads: purge differs");
	FUZZ_ASSERT(a->purged_bytes == b->purged_bytes && a->reachable_count == b->reachable_count,
		    "threads: figures differ");
}

/* The heap after the GC reloads from its own text and binary. */
static void after_reloads(const heap *h, const gc_result *r)
{
	heap after;
	obj_t stale;
	int rc = gc_after_heap(h, r, &after, &stale); /* initialises AFTER */
	FUZZ_ASSERT(rc == 0 || rc == AFTER_STALE, "gc_after_heap failed");
	if (rc == 0) {
		fuzz_check_heap(&after);
		round_trips(&after);
	}
	heap_free(&after);
}

static void self_diff(const heap *h, const gc_result *r, const findings *f)
{
	diff_side a, b;
	diff_result d;
	FUZZ_ASSERT(diff_side_from_heap(h, r, f, &a) == 0, "diff side A");
	FUZZ_ASSERT(diff_side_from_heap(h, r, f, &b) == 0, "diff side B");
	FUZZ_ASSERT(diff_compare(&a, &b, &d) == 0, "diff_compare failed");
	FUZZ_ASSERT(d.kept == h->objects && d.added == 0 && d.removed == 0 && d.replaced == 0,
		    "a self-diff does not keep every object");
	diff_result_free(&d);
	diff_side_free(&a);
	diff_side_free(&b);
}

/* Leak mode with every object new and kept (B and C the heap, C with the
 * pipeline's dominators D): every reachable object outside the disregard
 * pool (never collected: it leaks nothing) is leaked (or left out as kept
 * by no program path on a heap that says it is V8's), the groups
 * add up to the totals, and the leak roots' retained bytes, each byte
 * counted once, are at most what the gc policy reaches. */
static void leaks_add_up(const heap *h, const gc_result *r, const findings *f, const dom_result *d)
{
	diff_side b, c;
	FUZZ_ASSERT(diff_side_from_heap(h, r, f, &b) == 0, "diff side B");
	FUZZ_ASSERT(diff_side_from_analysis(h, r, f, d, &c) == 0, "leak side C");
	uint32_t n = b.n, reachable = 0;
	diff_result ab = {0}, bc = {0};
	ab.b_status = malloc((size_t)n + 1);
	bc.a_status = malloc((size_t)n + 1);
	bc.a_match = malloc(((size_t)n + 1) * sizeof *bc.a_match);
	FUZZ_ASSERT(ab.b_status && bc.a_status && bc.a_match, "out of memory");
	for (uint32_t k = 0; k < n; k++) {
		ab.b_status[k] = DS_ADDED;
		bc.a_status[k] = DS_KEPT;
		bc.a_match[k] = (int32_t)k;
		reachable += c.v[k].reachable && c.v[k].root_kind != RK_DISREGARD;
	}
	diff_leaks l;
	FUZZ_ASSERT(diff_leak_groups(&b, &c, &ab, &bc, 8, &l) == 0, "diff_leak_groups failed");
	FUZZ_ASSERT(l.candidates + l.system == reachable, "leak mode: not every reachable object is leaked");
	uint64_t objects = 0, roots = 0, retained = 0;
	for (size_t g = 0; g < l.groups; g++) {
		FUZZ_ASSERT(l.v[g].roots >= 1 && l.v[g].count >= l.v[g].roots, "leak mode: a group without a root");
		FUZZ_ASSERT(g == 0 || l.v[g].retained <= l.v[g - 1].retained, "leak mode: groups out of order");
		objects += l.v[g].count;
		roots += l.v[g].roots;
		retained += l.v[g].retained;
	}
	FUZZ_ASSERT(objects == l.candidates && roots == l.roots && retained == l.retained && retained <= d->reached_bytes,
		    "leak mode: the groups do not add up");
	for (size_t g = 0; g < l.n; g++)
		FUZZ_ASSERT(l.v[g].ntrace >= 1 && l.v[g].trace[l.v[g].ntrace - 1].idx == l.v[g].idx,
			    "leak mode: a trace does not end at its representative");
	diff_leaks_free(&l);
	free(ab.b_status);
	free(bc.a_status);
	free(bc.a_match);
	diff_side_free(&b);
	diff_side_free(&c);
}

/* The dominators of every policy are a tree whose sums hold, and the
 * pipeline's (policy gc) are dom_compute's. */
static void dominators_hold(const heap *h, const gc_result *r, const dom_result *piped)
{
	uint64_t *below = calloc(h->slots ? h->slots : 1, sizeof *below);
	uint32_t *depth = calloc(h->slots ? h->slots : 1, sizeof *depth);
	FUZZ_ASSERT(below && depth, "out of memory");
	for (int policy = 0; policy < POLICY_COUNT; policy++) {
		dom_result d;
		FUZZ_ASSERT(dom_compute(h, r, policy, &d) == 0, "dom_compute failed");
		uint64_t top_kids = 0, bytes = 0;
		uint32_t reached = 0;
		memset(below, 0, h->slots * sizeof *below);
		for (uint32_t i = 0; i < h->slots; i++) {
			obj_t up = d.idom[i];
			if (up == OBJ_NONE) {
				FUZZ_ASSERT(d.retained[i] == 0, "an unreached object retains bytes");
				continue;
			}
			FUZZ_ASSERT(heap_exists(h, (obj_t)i), "a free slot is reached");
			reached++;
			bytes += h->size[i];
			if (up == DOM_TOP) {
				top_kids += d.retained[i];
				continue;
			}
			FUZZ_ASSERT(up >= 0 && (uint32_t)up < h->slots && up != (obj_t)i && d.idom[up] != OBJ_NONE,
				    "an immediate dominator that is not a reached object");
			below[up] += d.retained[i];
		}
		for (uint32_t i = 0; i < h->slots; i++) {
			FUZZ_ASSERT(d.idom[i] == OBJ_NONE || d.retained[i] == h->size[i] + below[i],
				    "a retained size is not its own size plus what it dominates");
			FUZZ_ASSERT(policy != POLICY_GC || (d.idom[i] != OBJ_NONE) == (r->reachable[i] != 0),
				    "the gc graph does not reach exactly what the GC keeps");
		}
		/* no cycle: every chain of dominators ends at the top (depths, memoised) */
		memset(depth, 0, h->slots * sizeof *depth);
		for (uint32_t i = 0; i < h->slots; i++) {
			uint32_t steps = 0;
			obj_t x = (obj_t)i;
			while (d.idom[i] != OBJ_NONE && x != DOM_TOP && depth[x] == 0) {
				FUZZ_ASSERT(++steps <= h->slots, "a cycle of immediate dominators");
				x = d.idom[x];
			}
			for (x = (obj_t)i; d.idom[i] != OBJ_NONE && x != DOM_TOP && depth[x] == 0; x = d.idom[x])
				depth[x] = 1;
		}
		FUZZ_ASSERT(d.reached == reached && d.reached_bytes == bytes && top_kids == bytes,
			    "the dominator tree's totals do not add up");
		FUZZ_ASSERT(policy != POLICY_GC || (memcmp(piped->idom, d.idom, h->slots * sizeof *d.idom) == 0 &&
						    memcmp(piped->retained, d.retained, h->slots * sizeof *d.retained) == 0 &&
						    piped->reached == d.reached),
			    "the pipeline's dominators differ from dom_compute's");
		dom_result o; /* the objects alone: the same answers */
		FUZZ_ASSERT(dom_compute_objects(h, r, policy, &o) == 0, "dom_compute_objects failed");
		FUZZ_ASSERT(memcmp(o.idom, d.idom, h->slots * sizeof *o.idom) == 0 &&
			    memcmp(o.retained, d.retained, h->slots * sizeof *o.retained) == 0 && !o.classes,
			    "dom_compute_objects differs from dom_compute");
		dom_free(&o);
		for (int links = 0; links < 2 && !dom_needs_gc(h); links++) {
			/* no cluster, no Garbage flag: the GC's result is not needed,
			 * nor a count when the links are counted as a loader would */
			uint32_t *counts = links ? fuzz_link_counts(h) : NULL;
			FUZZ_ASSERT(dom_compute_plain(h, r->keep_flags, policy, 0, counts, &o, NULL, NULL) == 0,
				    "dom_compute_plain failed");
			FUZZ_ASSERT(memcmp(o.idom, d.idom, h->slots * sizeof *o.idom) == 0 &&
				    memcmp(o.retained, d.retained, h->slots * sizeof *o.retained) == 0 &&
				    o.reached == d.reached && o.reached_bytes == d.reached_bytes,
				    "dom_compute_plain differs from dom_compute");
			dom_free(&o);
		}
		dom_free(&d);
	}
	free(below);
	free(depth);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	heap h;
	if (fuzz_load(data, size, is_binary_snapshot(data, size), &h))
		return 0;
	if (h.slots > PIPELINE_MAX_SLOTS) {
		heap_free(&h);
		return 0;
	}
	round_trips(&h);
	/* the commands' way: the pipeline, one marking thread (beside the
	 * dominators when they need no GC result) */
	gc_options o1 = {.mode = h.mode, .keep_flags = gc_default_keep_flags(h.mode), .threads = 1};
	pipeline_options po = PIPELINE_OPTIONS_INIT;
	po.threads = 1;
	pipeline p;
	char err[256];
	pipeline_adopt(&p, "fuzz", &h, &o1, &po);
	FUZZ_ASSERT(pipeline_need(&p, PIPE_ALL, err, sizeof err) == 0, "the pipeline failed");
	gc_options o2 = {.mode = p.h.mode, .keep_flags = gc_default_keep_flags(p.h.mode), .threads = 2,
			 .parallel_min = 1}; /* every level on two threads */
	gc_result r2;
	FUZZ_ASSERT(gc_run(&p.h, &o2, &r2) == 0, "gc_run (2 threads) failed");
	same_result(&p.h, &p.r, &r2);
	gc_result_free(&r2);
	after_reloads(&p.h, &p.r);
	self_diff(&p.h, &p.r, &p.f);
	leaks_add_up(&p.h, &p.r, &p.f, &p.dom);
	dominators_hold(&p.h, &p.r, &p.dom);
	pipeline_free(&p);
	return 0;
}

/* Binary inputs are mostly re-framed after mutation, so they load. */
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	return fuzz_mutate_reframing(data, size, max_size, seed);
}
