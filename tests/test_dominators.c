/* test_dominators.c — dominator trees and retained sizes: hand-made heaps
 * with their trees written out, and a differential test against the naive
 * definition (X dominates Y when removing X loses Y) over a graph built
 * here, edge by edge, from ugc-gc(7) §4.1's text. */
#include <stdlib.h>
#include <string.h>

#include "analysis/dominators.h"
#include "tools/gen/gen.h"
#include "analysis/whatif.h"
#include "tests/unit.h"

#define TOP DOM_TOP

static int dom(const char *body, int policy, heap *h, gc_result *r, dom_result *d)
{
	if (load_heap(body, h) || run_gc(h, MODE_GAME, 1, r))
		return -1;
	return dom_compute(h, r, policy, d);
}

static void done(heap *h, gc_result *r, dom_result *d)
{
	dom_free(d);
	gc_result_free(r);
	heap_free(h);
}

/* Objects' Outer is the rooted package 10, Class the native 4: those edges
 * lead to roots and change no tree below. */
TEST(dominators_diamond_chain_and_sizes)
{
	heap h;
	gc_result r;
	dom_result d;
	CHECK(dom("o 11 1 4 10 A 1 RootSet\no 12 1 4 10 B 10 -\no 13 1 4 10 C 20 -\no 14 1 4 10 D 100 -\n"
		  "o 15 1 4 10 E 1000 -\no 16 1 4 10 F 5 -\n"
		  "r 11 12 strong L\nr 11 13 strong R\nr 12 14 strong X\nr 13 14 strong Y\nr 14 15 strong Z\n"
		  "r 15 16 strong W\n", POLICY_GC, &h, &r, &d) == 0);
	CHECK(d.idom[11] == TOP && d.idom[10] == TOP && d.idom[1] == TOP);
	CHECK(d.idom[12] == 11 && d.idom[13] == 11 && d.idom[14] == 11 && d.idom[15] == 14 && d.idom[16] == 15);
	CHECK(d.retained[16] == 5 && d.retained[15] == 1005 && d.retained[14] == 1105);
	CHECK(d.retained[12] == 10 && d.retained[13] == 20);
	CHECK(d.retained[11] == 1 + 10 + 20 + 100 + 1000 + 5);
	CHECK(d.retained[1] == 256); /* a disregard-pool object keeps only itself */
	CHECK(d.idom[7] == OBJ_NONE && d.retained[7] == 0); /* a free slot */
	done(&h, &r, &d);
}

TEST(dominators_cycle_through_a_root_and_unreachable)
{
	heap h;
	gc_result r;
	dom_result d;
	/* 11 -> 12 -> 13 -> 11, and the root 14 -> 13: only ⊤ dominates 13 */
	CHECK(dom("o 11 1 4 10 A 1 RootSet\no 12 1 4 10 B 2 -\no 13 1 4 10 C 4 -\no 14 1 4 10 D 8 RootSet\n"
		  "o 15 1 4 10 Lost 16 -\nr 11 12 strong N\nr 12 13 strong N\nr 13 11 strong Back\nr 14 13 strong N\n"
		  "r 15 11 strong FromLost\n", POLICY_GC, &h, &r, &d) == 0);
	CHECK(d.idom[12] == 11 && d.idom[13] == TOP && d.idom[11] == TOP);
	CHECK(d.retained[11] == 1 + 2 && d.retained[13] == 4 && d.retained[14] == 8);
	CHECK(d.idom[15] == OBJ_NONE && d.retained[15] == 0); /* unreachable: no dominator */
	CHECK(d.reached == h.objects - 1);
	done(&h, &r, &d);
}

/* A cluster entered through one member: the member keeps the root (every
 * member -> root), the root keeps members and its mutable object.  Under
 * refs the cluster is no edge, and the same heap keeps less. */
TEST(dominators_cluster_through_a_member_gc_and_refs_differ)
{
	const char *body = "o 11 1 4 10 H 1 RootSet\no 20 1 4 10 Root 100 -\no 21 1 4 10 M1 10 -\n"
			   "o 22 1 4 10 M2 20 -\no 23 1 4 10 Mut 1000 -\nr 11 21 strong ToMember\nr 20 22 strong Own\n"
			   "c 20 21,22 23 -\n";
	heap h;
	gc_result r;
	dom_result d;
	CHECK(dom(body, POLICY_GC, &h, &r, &d) == 0);
	CHECK(d.idom[21] == 11 && d.idom[20] == 21 && d.idom[22] == 20 && d.idom[23] == 20);
	CHECK(d.retained[20] == 100 + 20 + 1000 && d.retained[21] == 10 + 1120 && d.retained[11] == 1 + 1130);
	dom_free(&d);
	CHECK(dom_compute(&h, &r, POLICY_REFS, &d) == 0);
	CHECK(d.idom[21] == 11 && d.retained[11] == 1 + 10);
	CHECK(d.idom[20] == OBJ_NONE && d.idom[22] == OBJ_NONE && d.idom[23] == OBJ_NONE); /* only lists keep them */
	done(&h, &r, &d);
}

/* A garbage mutable object: the cluster needs dissolving, its members are
 * traced, and what two members reach is dominated by the root. */
TEST(dominators_cluster_with_a_garbage_mutable)
{
	heap h;
	gc_result r;
	dom_result d;
	CHECK(dom("o 11 1 4 10 H 1 RootSet\no 20 1 4 10 Root 1 -\no 21 1 4 10 M1 1 -\no 22 1 4 10 M2 1 -\n"
		  "o 23 1 4 10 Bad 1 Garbage,RF_MirroredGarbage\no 24 1 4 10 Shared 50 -\nr 11 20 strong ToRoot\n"
		  "r 21 24 strong S\nr 22 24 strong S\nr 21 23 strong B\nc 20 21,22 23 -\n", POLICY_GC, &h, &r, &d) == 0);
	CHECK(r.cluster_fate[0] == CF_GARBAGE_MUTABLE);
	CHECK(d.idom[24] == 20 && d.idom[21] == 20 && d.idom[23] == OBJ_NONE);
	CHECK(d.retained[20] == 1 + 1 + 1 + 50 && d.retained[11] == 54);
	done(&h, &r, &d);
}

/* A disregard-pool object listed as a cluster member does not keep its
 * cluster: the GC never traces it (found by fuzzing: the gc graph had the
 * member's edge to its root and reached a cluster the GC destroys). */
TEST(dominators_pool_member_keeps_no_cluster)
{
	heap h;
	gc_result r;
	dom_result d;
	CHECK(dom("o 20 1 4 10 Root 8 -\no 21 1 4 10 M 16 -\nc 20 21,4 - -\n", POLICY_GC, &h, &r, &d) == 0);
	CHECK(!r.reachable[20] && !r.reachable[21] && r.reachable[4]);
	CHECK(d.idom[20] == OBJ_NONE && d.idom[21] == OBJ_NONE && d.retained[20] == 0);
	CHECK(d.idom[4] == TOP && d.retained[4] == 900);
	done(&h, &r, &d);
}

/* Classes and packages count each byte once; cross-package pairs charge a
 * package for what its objects dominate in another. */
TEST(dominators_class_and_package_aggregates)
{
	heap h;
	gc_result r;
	dom_result d;
	/* package 10 (/Game/Test) holds A (class 4) -> B (class 4) -> C (class 2);
	 * package 30 holds D, dominated by B */
	CHECK(dom("o 11 1 4 10 A 1 RootSet\no 12 1 4 10 B 10 -\no 13 1 2 10 C 100 -\no 30 1 3 - /Game/Other 7 -\n"
		  "o 31 1 4 30 D 1000 -\nr 11 12 strong N\nr 12 13 strong N\nr 12 31 strong Far\n", POLICY_GC, &h, &r,
		  &d) == 0);
	/* class 4 (Actor): A, B, D; class 2 (Class): the five natives and C;
	 * class 3 (Package): both packages.  D's Outer edge makes D dominate 30. */
	CHECK(d.idom[31] == 12 && d.idom[30] == 31 && d.retained[31] == 1007 && d.retained[11] == 1 + 10 + 100 + 1007);
	const dom_group *actor = NULL, *cls = NULL, *pkgcls = NULL, *natives = NULL, *game = NULL, *other = NULL;
	for (uint32_t k = 0; k < d.nclasses; k++) {
		if (d.classes[k].key == 4) actor = &d.classes[k];
		if (d.classes[k].key == 2) cls = &d.classes[k];
		if (d.classes[k].key == 3) pkgcls = &d.classes[k];
	}
	for (uint32_t k = 0; k < d.npackages; k++) {
		if (d.packages[k].key == 0) natives = &d.packages[k];
		if (d.packages[k].key == 10) game = &d.packages[k];
		if (d.packages[k].key == 30) other = &d.packages[k];
	}
	CHECK(actor && cls && pkgcls && natives && game && other);
	if (actor && cls && pkgcls && natives && game && other) {
		CHECK(actor->count == 3 && actor->shallow == 1011 && actor->retained == 1118); /* A's tree, once */
		CHECK(cls->count == 6 && cls->shallow == 2088 && cls->retained == 2088);
		CHECK(pkgcls->count == 2 && pkgcls->retained == 128 + 7);
		CHECK(natives->count == 5 && natives->retained == 1988);
		CHECK(game->count == 4 && game->shallow == 239 && game->retained == 128 + 1118);
		CHECK(other->count == 2 && other->shallow == 1007 && other->retained == 1007);
		CHECK(d.classes[0].key == 2 && d.packages[0].key == 0); /* largest first */
	}
	CHECK(d.npairs == 1 && d.pairs[0].from == 10 && d.pairs[0].to == 30 && d.pairs[0].bytes == 1007);
	dom_tree t;
	CHECK(dom_tree_build(&d, &t) == 0);
	CHECK(t.start[13] - t.start[12] == 2 && t.kids[t.start[12]] == 31 && t.kids[t.start[12] + 1] == 13);
	CHECK(t.start[32] - t.start[31] == 1 && t.kids[t.start[31]] == 30); /* D's Outer edge */
	dom_tree_free(&t);
	done(&h, &r, &d);
}

/* --- the naive definition ------------------------------------------------ */

typedef struct edges_list {
	uint32_t *from, *to;
	size_t n, cap;
} edges_list;

static void add_edge(edges_list *e, uint32_t u, uint32_t v)
{
	if (e->n == e->cap) {
		e->cap = e->cap ? e->cap * 2 : 256;
		e->from = realloc(e->from, e->cap * sizeof *e->from);
		e->to = realloc(e->to, e->cap * sizeof *e->to);
	}
	e->from[e->n] = u;
	e->to[e->n++] = v;
}

/* The policy's graph, from ugc-gc(7) §4.1's text (node TOP = slots). */
static edges_list naive_graph(const heap *h, const gc_result *r, int policy)
{
	edges_list e = {0};
	uint32_t top = h->slots;
	int gc = policy == POLICY_GC;
#define IN(t) ((t) >= 0 && (t) >= h->first_gc_index)
#define GARB(t) ((h->iflags[t] & IF_Garbage) != 0)
	uint8_t *gt = calloc(h->slots + 1, 1);
	for (uint32_t k = 0; k < h->ngcrefs; k++)
		if (heap_exists(h, h->gcrefs[k].dst))
			gt[h->gcrefs[k].dst] = 1;
	for (uint32_t i = 0; i < h->slots; i++) {
		if (h->cls[i] == OBJ_FREE)
			continue;
		int pool = (obj_t)i < h->first_gc_index;
		int root = pool || (h->iflags[i] & (IF_RootSet | IF_RefCounted | IF_INTERNAL_KEEP)) ||
			   ((h->oflags[i] & r->keep_flags) && !GARB(i)) || (gt[i] && !GARB(i));
		int c = heap_cluster(h, i);
		int live_member = c >= 0 && r->cluster_live[c] && h->clusters[c].root != (obj_t)i;
		if (root && (pool || !gc || !live_member))
			add_edge(&e, top, i);
	}
	for (uint32_t k = 0; k < h->ngcrefs && gc; k++) {
		obj_t t = h->gcrefs[k].dst;
		if (heap_exists(h, t) && IN(t) && !GARB(t))
			add_edge(&e, top, (uint32_t)t);
	}
	/* clusters whose lists step 2 walked for a rooted member (root unflagged) */
	uint8_t *by_member = calloc(h->nclusters + 1, 1);
	const uint16_t rf = IF_RootSet | IF_RefCounted | IF_INTERNAL_KEEP;
	for (uint32_t c = 0; c < h->nclusters; c++)
		for (uint32_t k = 0; k < h->clusters[c].n_members; k++)
			if (r->cluster_live[c] && !(h->iflags[h->clusters[c].root] & rf) &&
			    (h->iflags[h->cluster_items[h->clusters[c].members + k]] & rf))
				by_member[c] = 1;
	for (uint32_t x = 0; x < h->slots; x++) {
		if (h->cls[x] == OBJ_FREE || (obj_t)x < h->first_gc_index || (gc && !r->was_traced[x]))
			continue;
		/* what the GC traced on no reached object's behalf hangs off TOP */
		int c = heap_cluster(h, x);
		int member = c >= 0 && r->cluster_live[c] && h->clusters[c].root != (obj_t)x;
		int is_root = (h->iflags[x] & rf) || ((h->oflags[x] & r->keep_flags) && !GARB(x));
		uint32_t src = gc && (!r->reachable[x] || (member && (is_root || by_member[c]))) ? top : x;
		if (IN(h->cls[x]))
			add_edge(&e, src, (uint32_t)h->cls[x]);
		if (IN(h->outer[x]))
			add_edge(&e, src, (uint32_t)h->outer[x]);
		for (uint32_t k = h->ref_start[x]; k < h->ref_start[x + 1]; k++) {
			obj_t t = h->ref_dst[k];
			int kind = h->ref_kind[k], ok;
			if (!IN(t))
				continue;
			ok = kind == REF_IMMUTABLE || ((kind == REF_STRONG || kind == REF_ARO) && !GARB(t)) ||
			     (kind == REF_WEAK && policy >= POLICY_REFS_WEAK) || (kind == REF_SOFT && policy == POLICY_REFS_WEAK_SOFT);
			if (ok)
				add_edge(&e, src, (uint32_t)t);
		}
		/* gc: the Actors a LevelActorContainer that step 2 dissolved hands
		 * to X, its Outer, as aro references (ugc-gc(7) §1.2) */
		for (uint32_t c = 0; c < h->nclusters && gc; c++) {
			obj_t root = h->clusters[c].root, cls = h->cls[root];
			if (r->cluster_live[c] || h->outer[root] != (obj_t)x ||
			    strcmp(heap_str(h, h->name[cls]), "LevelActorContainer") != 0 || h->name_num[cls])
				continue;
			for (uint32_t k = h->ref_start[root]; k < h->ref_start[root + 1]; k++) {
				obj_t t = h->ref_dst[k];
				if (strncmp(heap_str(h, h->ref_prop[k]), "Actors", 6) == 0 && IN(t) && !GARB(t))
					add_edge(&e, src, (uint32_t)t);
			}
		}
	}
	for (uint32_t c = 0; c < h->nclusters && gc; c++) {
		const cluster *cl = &h->clusters[c];
		if (!r->cluster_live[c])
			continue;
		for (uint32_t k = 0; k < cl->n_members; k++) {
			obj_t m = h->cluster_items[cl->members + k];
			if (IN(m))
				add_edge(&e, (uint32_t)cl->root, (uint32_t)m);
			if (IN(m) && IN(cl->root)) /* a pool member is never traced */
				add_edge(&e, (uint32_t)m, (uint32_t)cl->root);
		}
		if (!r->cluster_walked[c])
			continue;
		uint32_t src = r->reachable[cl->root] && !by_member[c] ? (uint32_t)cl->root : top;
		for (uint32_t k = 0; k < cl->n_refs + cl->n_mutables; k++) {
			obj_t t = h->cluster_items[k < cl->n_refs ? cl->refs + k : cl->mutables + k - cl->n_refs];
			if (IN(t) && !GARB(t))
				add_edge(&e, src, (uint32_t)t);
		}
	}
	free(gt);
	free(by_member);
#undef IN
#undef GARB
	return e;
}

/* Reachability from TOP with node BLOCKED removed (UINT32_MAX: none). */
static void reach(const edges_list *e, uint32_t nodes, uint32_t top, uint32_t blocked, uint8_t *seen)
{
	memset(seen, 0, nodes);
	seen[top] = 1;
	for (int changed = 1; changed;) {
		changed = 0;
		for (size_t k = 0; k < e->n; k++)
			if (seen[e->from[k]] && !seen[e->to[k]] && e->to[k] != blocked) {
				seen[e->to[k]] = 1;
				changed = 1;
			}
	}
}

/* Is X a proper dominator of Y in D's tree? */
static int dominates(const dom_result *d, obj_t x, obj_t y)
{
	for (obj_t a = d->idom[y]; a >= 0; a = d->idom[a])
		if (a == x)
			return 1;
	return 0;
}

static int check_against_naive(const heap *h, const gc_result *r, int policy, const char *what)
{
	dom_result d;
	if (dom_compute(h, r, policy, &d))
		return 1;
	edges_list e = naive_graph(h, r, policy);
	uint32_t nodes = h->slots + 1, top = h->slots;
	uint8_t *all = malloc(nodes), *without = malloc(nodes);
	int bad = 0;
	reach(&e, nodes, top, UINT32_MAX, all);
	for (uint32_t i = 0; i < h->slots; i++) {
		if ((d.idom[i] != OBJ_NONE) != all[i] && bad++ < 3)
			printf("    %s, %s: object %u reached %d vs naive %d\n", what, dom_policy_names[policy], i,
			       d.idom[i] != OBJ_NONE, all[i]);
		if (policy == POLICY_GC && all[i] != r->reachable[i] && bad++ < 3)
			printf("    %s: gc graph reaches %u: %d, the GC: %d\n", what, i, all[i], r->reachable[i]);
	}
	for (uint32_t x = 0; x < h->slots && !bad; x++) {
		if (!all[x])
			continue;
		reach(&e, nodes, top, x, without);
		uint64_t lost = h->size[x];
		for (uint32_t y = 0; y < h->slots; y++) {
			if (!all[y] || y == x)
				continue;
			int gone = !without[y];
			lost += gone ? h->size[y] : 0;
			if (gone != dominates(&d, (obj_t)x, (obj_t)y) && bad++ < 3)
				printf("    %s, %s: removing %u loses %u: %d, dominator tree says %d\n", what,
				       dom_policy_names[policy], x, y, gone, !gone);
		}
		if (lost != d.retained[x] && bad++ < 3)
			printf("    %s, %s: retained %u: %llu vs naive %llu\n", what, dom_policy_names[policy], x,
			       (unsigned long long)d.retained[x], (unsigned long long)lost);
	}
	free(all);
	free(without);
	free(e.from);
	free(e.to);
	dom_free(&d);
	return bad;
}

TEST(dominators_differential_on_random_heaps)
{
	int bad = 0, heaps = 0;
	for (int round = 0; round < 150 && !bad; round++) {
		heap h;
		if (random_heap(16 + (int)test_rand_below(60), 1, &h))
			continue;
		gc_result r;
		CHECK(run_gc(&h, round % 2 ? MODE_EDITOR : MODE_GAME, 1, &r) == 0);
		char what[48];
		snprintf(what, sizeof what, "random heap %d", round);
		for (int p = 0; p < POLICY_COUNT; p++)
			bad += check_against_naive(&h, &r, p, what);
		gc_result_free(&r);
		heap_free(&h);
		heaps++;
	}
	CHECK(heaps == 150);
	CHECK(bad == 0);
}

/* Heaps of 1,100 objects or more are counted on two threads (each over
 * half the references): every policy still agrees with the definition,
 * with and without clusters, and on a heap with neither clusters nor
 * Garbage-flagged objects, whose per-edge tests are skipped. */
TEST(dominators_counted_on_two_threads_agree_with_the_definition)
{
	int bad = 0, heaps = 0;
	for (int round = 0; round < 3 && !bad; round++) {
		heap h;
		if (random_heap(1100 + (int)test_rand_below(100), round == 0, &h))
			continue;
		if (round == 2) /* no cluster (above) and no Garbage flag */
			for (uint32_t i = 0; i < h.slots; i++)
				h.iflags[i] &= (uint16_t)~IF_Garbage;
		CHECK(round != 2 || (h.nclusters == 0 && !heap_has_garbage(&h)));
		gc_result r;
		CHECK(run_gc(&h, round == 1 ? MODE_EDITOR : MODE_GAME, 2, &r) == 0);
		char what[48];
		snprintf(what, sizeof what, "large random heap %d", round);
		for (int p = 0; p < POLICY_COUNT; p++)
			bad += check_against_naive(&h, &r, p, what);
		gc_result_free(&r);
		heap_free(&h);
		heaps++;
	}
	CHECK(heaps == 3);
	CHECK(bad == 0);
}

static void count_call(void *arg)
{
	(*(int *)arg)++;
}

/* Do A and B (both computed with or without the aggregates) agree? */
static int same_result(const dom_result *a, const dom_result *b, uint32_t slots)
{
	int same = a->reached == b->reached && a->reached_bytes == b->reached_bytes &&
		   memcmp(a->idom, b->idom, slots * sizeof *a->idom) == 0 &&
		   memcmp(a->retained, b->retained, slots * sizeof *a->retained) == 0 &&
		   a->nclasses == b->nclasses && a->npackages == b->npackages && a->npairs == b->npairs;
	if (same && a->classes)
		same = memcmp(a->classes, b->classes, a->nclasses * sizeof *a->classes) == 0 &&
		       memcmp(a->packages, b->packages, a->npackages * sizeof *a->packages) == 0 &&
		       memcmp(a->pairs, b->pairs, a->npairs * sizeof *a->pairs) == 0 &&
		       memcmp(a->package, b->package, slots * sizeof *a->package) == 0;
	return same;
}

/* The heap's links counted at their ends (in_links), each count raised
 * by 0 to 2 more when SLACK: any bound will do.  Malloc'd. */
static uint32_t *link_counts(const heap *h, int slack)
{
	uint32_t *c = calloc((size_t)h->slots + 1, sizeof *c);
	for (uint32_t k = 0; c && k < h->nrefs; k++)
		c[h->ref_dst[k]]++;
	for (uint32_t i = 0; c && i < h->slots; i++) {
		if (h->cls[i] >= 0)
			c[h->cls[i]]++;
		if (h->cls[i] != OBJ_FREE && h->outer[i] >= 0)
			c[h->outer[i]]++;
		if (slack)
			c[i] += (uint32_t)test_rand_below(3);
	}
	return c;
}

/* On a heap with no cluster and no Garbage flag (a V8 heap's kind) the
 * dominators need no GC result: dom_compute_plain gives dom_compute's and
 * dom_compute_objects' answers under every policy, in both modes (the
 * editor's keep flags make roots), small heaps and ones counted on two
 * threads, with its own counts or the heap's link counts, exact or not,
 * and calls its hook once.  A Garbage flag or a cluster makes the GC's
 * result needed. */
TEST(dominators_without_the_gc_result_on_a_plain_heap)
{
	int bad = 0, heaps = 0, garbage_seen = 0;
	for (int round = 0; round < 40; round++) {
		heap h;
		if (random_heap(round % 10 == 9 ? 1100 + (int)test_rand_below(100) : 16 + (int)test_rand_below(60), 0, &h))
			continue;
		garbage_seen += heap_has_garbage(&h);
		if (dom_needs_gc(&h) != heap_has_garbage(&h) && bad++ < 3)
			printf("    round %d: dom_needs_gc %d with garbage %d\n", round, dom_needs_gc(&h), heap_has_garbage(&h));
		for (uint32_t i = 0; i < h.slots; i++)
			h.iflags[i] &= (uint16_t)~IF_Garbage;
		CHECK(!dom_needs_gc(&h));
		gc_result r;
		CHECK(run_gc(&h, round % 2 ? MODE_EDITOR : MODE_GAME, 1, &r) == 0);
		for (int p = 0; p < POLICY_COUNT; p++)
			for (int groups = 0; groups < 2; groups++) {
				dom_result a, b;
				CHECK((groups ? dom_compute : dom_compute_objects)(&h, &r, p, &a) == 0);
				for (int links = 0; links < 3; links++) {
					int calls = 0;
					uint32_t *counts = links ? link_counts(&h, links == 2) : NULL;
					CHECK(!links || counts);
					CHECK(dom_compute_plain(&h, r.keep_flags, p, groups, counts, &b, count_call, &calls) == 0);
					if ((!same_result(&a, &b, h.slots) || calls != 1) && bad++ < 3)
						printf("    round %d, %s, groups %d, links %d: differs (hook called %d times)\n",
						       round, dom_policy_names[p], groups, links, calls);
					dom_free(&b);
				}
				dom_free(&a);
			}
		gc_result_free(&r);
		heap_free(&h);
		heaps++;
	}
	CHECK(heaps == 40 && garbage_seen > 0);
	CHECK(bad == 0);
	heap h;
	CHECK(random_heap(40, 1, &h) == 0);
	CHECK(h.nclusters > 0 && dom_needs_gc(&h));
	dom_result d;
	CHECK(dom_compute_plain(&h, 0, POLICY_GC, 1, NULL, &d, NULL, NULL) == -1 && !d.idom);
	CHECK(dom_compute_plain(&h, 0, POLICY_GC, 1, link_counts(&h, 0), &d, NULL, NULL) == -1 && !d.idom); /* freed */
	heap_free(&h);
}

/* Over 2^20 predecessor places, stored by the walk's filler thread (with
 * two cores or more; else by the walk itself): a root keeps four hubs,
 * each hub every leaf, and an unreachable object points at each leaf too
 * (a place the walk leaves unused, 0, which semi-NCA must skip).  Every
 * leaf's dominator is the root, which retains all. */
TEST(dominators_wide_heap_with_unused_places)
{
	const int n = 270000, hub = 12, leaf = 16, lost = 16 + n;
	size_t cap = (size_t)n * 256 + 4096, len = 0; /* 2 objects and 5 references a leaf */
	char *t = malloc(cap);
#define OUT(...) (len += (size_t)snprintf(t + len, cap - len, __VA_ARGS__))
	OUT("o 11 1 4 10 R 1 RootSet\n");
	for (int j = 0; j < 4; j++)
		OUT("o %d 1 4 10 H%d 2 -\n", hub + j, j);
	for (int i = 0; i < n; i++)
		OUT("o %d 1 4 10 L%d 3 -\no %d 1 4 10 U%d 5 -\n", leaf + i, i, lost + i, i);
	for (int j = 0; j < 4; j++)
		OUT("r 11 %d strong H\n", hub + j);
	for (int j = 0; j < 4; j++)
		for (int i = 0; i < n; i++)
			OUT("r %d %d strong L\n", hub + j, leaf + i);
	for (int i = 0; i < n; i++)
		OUT("r %d %d strong U\n", lost + i, leaf + i);
#undef OUT
	heap h;
	gc_result r;
	CHECK(len < cap && load_heap(t, &h) == 0 && run_gc(&h, MODE_GAME, 2, &r) == 0);
	free(t);
	for (int plain = 0; plain < 2; plain++) {
		dom_result d;
		CHECK((plain ? dom_compute_plain(&h, r.keep_flags, POLICY_GC, 0, NULL, &d, NULL, NULL)
			     : dom_compute_objects(&h, &r, POLICY_GC, &d)) == 0);
		int bad = 0;
		for (int i = 0; i < n; i++)
			bad += d.idom[leaf + i] != 11 || d.retained[leaf + i] != 3 || d.idom[lost + i] != OBJ_NONE;
		for (int j = 0; j < 4; j++)
			bad += d.idom[hub + j] != 11 || d.retained[hub + j] != 2;
		CHECK(bad == 0);
		CHECK(d.retained[11] == 1 + 4 * 2 + (uint64_t)n * 3);
		dom_free(&d);
	}
	gc_result_free(&r);
	heap_free(&h);
}

TEST(dominators_same_for_any_thread_count_on_a_generated_heap)
{
	gen_options go = {3000, 11, MODE_EDITOR, 10};
	heap h;
	char err[256];
	CHECK(gen_heap(&go, &h, err, sizeof err) == 0);
	gc_result one, two;
	CHECK(run_gc(&h, MODE_EDITOR, 1, &one) == 0);
	CHECK(run_gc(&h, MODE_EDITOR, 2, &two) == 0);
	dom_result a, b;
	CHECK(dom_compute(&h, &one, POLICY_GC, &a) == 0 && dom_compute(&h, &two, POLICY_GC, &b) == 0);
	CHECK(memcmp(a.idom, b.idom, h.slots * sizeof *a.idom) == 0);
	CHECK(memcmp(a.retained, b.retained, h.slots * sizeof *a.retained) == 0);
	dom_free(&b); /* the objects only: the same answers, and no aggregates */
	CHECK(dom_compute_objects(&h, &one, POLICY_GC, &b) == 0);
	CHECK(memcmp(a.idom, b.idom, h.slots * sizeof *a.idom) == 0);
	CHECK(memcmp(a.retained, b.retained, h.slots * sizeof *a.retained) == 0);
	CHECK(a.reached == b.reached && a.reached_bytes == b.reached_bytes);
	CHECK(a.nclasses > 1 && a.npackages > 1 && a.classes && a.packages && a.package);
	CHECK(b.nclasses == 0 && b.npackages == 0 && b.npairs == 0 && !b.classes && !b.packages && !b.pairs && !b.package);
	uint32_t reached = 0;
	for (uint32_t i = 0; i < h.slots; i++)
		reached += one.reachable[i];
	CHECK(a.reached == reached); /* the gc graph reaches exactly what the GC keeps */
	CHECK(check_against_naive(&h, &one, POLICY_GC, "generated heap") == 0);
	dom_free(&a);
	dom_free(&b);
	gc_result_free(&one);
	gc_result_free(&two);
	heap_free(&h);
}

/* ugc-gc(7) §4.3's invariant between the two: on a heap without clusters,
 * whatif --cut X frees exactly what X dominates under gc, and their bytes
 * are X's retained size. */
TEST(whatif_cut_frees_exactly_the_dominated_set)
{
	int bad = 0, tried = 0;
	for (int round = 0; round < 40; round++) {
		heap h;
		if (random_heap(20 + (int)test_rand_below(40), 0, &h))
			continue;
		gc_options opt = {.mode = MODE_GAME, .threads = 1};
		gc_result r;
		dom_result d;
		CHECK(gc_run(&h, &opt, &r) == 0 && dom_compute(&h, &r, POLICY_GC, &d) == 0);
		for (uint32_t x = (uint32_t)h.first_gc_index; x < h.slots; x++) {
			if (d.idom[x] == OBJ_NONE || (h.iflags[x] & IF_INTERNAL_KEEP))
				continue; /* a cut leaves internal flags: a Native object stays */
			whatif_change cut = {WI_CUT, (obj_t)x, 0, 0};
			whatif_result w;
			CHECK(whatif_run(&h, &r, &opt, &cut, 1, &w) == 0);
			tried++;
			uint32_t want = 1;
			for (uint32_t y = 0; y < h.slots; y++)
				want += dominates(&d, (obj_t)x, (obj_t)y);
			int same = w.nlost == want && w.lost_bytes == d.retained[x];
			for (uint32_t k = 0; k < w.nlost && same; k++)
				same = w.lost[k] == (obj_t)x || dominates(&d, (obj_t)x, w.lost[k]);
			if (!same && bad++ < 3)
				printf("    round %d: cut %u frees %u objects (%llu bytes), it dominates %u (%llu bytes)\n", round, x,
				       w.nlost, (unsigned long long)w.lost_bytes, want, (unsigned long long)d.retained[x]);
			whatif_free(&w);
		}
		dom_free(&d);
		gc_result_free(&r);
		heap_free(&h);
	}
	CHECK(tried > 500);
	CHECK(bad == 0);
}
