/* test_cut.c — the minimum cut (analysis/cut.h): three hand-made heaps with
 * the answer worked out by hand (a World held twice, once through a Class
 * chain; a leak only an FGCObject holds; a cluster whose MutableObjects
 * list is the only path), an answer that is infinite, and brute force on
 * small random heaps: every smaller set of cuttable references (all strong
 * and aro records, g records, cluster list entries and root reasons of the
 * heap, not the tool's network) leaves a target alive under the real GC,
 * and the cut frees them all; the same on heaps that all have clusters
 * (game and editor mode), infinite answers too: every proof asserted,
 * minimality wherever cut does not say "not proven minimal" (the GC's
 * order, cut.c; a hand-made case shows one).  A rooted member that does
 * not keep its cluster's root, by hand.  Each random answer again on two
 * threads (the lower bound beside, the proof started by cut_compute
 * through cut_options.proof): the same cut, the same proof.
 * Objects 0-4 are natives in the disregard pool, 10 a rooted package. */
#include <stdlib.h>

#include "tests/unit.h"
#include "analysis/cut.h"
#include "snapshot/snapshot.h"

typedef struct solved {
	heap h;
	gc_result r;
	gc_options opt;
	cut_result c;
	whatif_result w;
	uint32_t survivors;
} solved;

/* Load BODY (after the prelude), cut TARGETS, prove: 0 on success. */
static int solve(const char *body, const obj_t *t, uint32_t n, long long root_cost, solved *s)
{
	memset(s, 0, sizeof *s);
	if (load_heap(body, &s->h))
		return -1;
	s->opt = (gc_options){.mode = s->h.mode, .keep_flags = gc_default_keep_flags(s->h.mode), .threads = 1,
			      .parallel_min = 1};
	cut_options co = {.keep_flags = s->opt.keep_flags, .root_cost = root_cost};
	if (gc_run(&s->h, &s->opt, &s->r) || cut_compute(&s->h, &s->r, &co, t, n, &s->c))
		return -1;
	if (!s->c.infinite && s->c.nalive && cut_prove(&s->h, &s->r, &s->opt, &s->c, t, n, &s->w, &s->survivors))
		return -1;
	return 0;
}

static void solved_free(solved *s)
{
	if (s->w.after.reachable)
		whatif_free(&s->w);
	cut_free(&s->c);
	gc_result_free(&s->r);
	heap_free(&s->h);
}

/* Has the cut a reference of KIND from HOLDER named PROP (an "r" record's
 * property; a "g" record's referencer)? */
static int has(const solved *s, int kind, obj_t holder, const char *prop)
{
	for (uint32_t k = 0; k < s->c.nrefs; k++) {
		const cut_ref *r = &s->c.refs[k];
		if (r->kind != kind || r->holder != holder)
			continue;
		if (kind == CK_REF && strcmp(heap_str(&s->h, s->h.ref_prop[r->id]), prop) == 0)
			return 1;
		if (kind == CK_GCREF && strcmp(heap_str(&s->h, s->h.gcrefs[r->id].referencer), prop) == 0)
			return 1;
		if (kind == CK_LIST || kind == CK_ROOT)
			return 1;
	}
	return 0;
}

/* A World (31) with its Level (32) and an actor (33) in package 30; a
 * GameInstance (22, rooted) references the World, and so does the class
 * BP_Thing_C (20), which only the Class of a rooted instance (21) keeps:
 * the Class edge cannot be cut, so the class's own reference must go.  By
 * hand: 2 references, GameInstance_0.World and BP_Thing_C.CachedWorld;
 * freed: the three targets and the package (30), 128 + 1000 + 500 + 300. */
#define WORLD_HEAP                                                                                                \
	"o 6 7 2 0 World 512 Native\no 7 8 2 0 Level 512 Native\n"                                             \
	"o 20 21 2 10 BP_Thing_C 512 -\no 21 22 20 10 Thing_0 100 RootSet\no 22 23 4 10 GameInstance_0 100 RootSet\n" \
	"o 30 31 3 - /Game/Maps/Map 128 -\no 31 32 6 30 Map 1000 -\no 32 33 7 31 PersistentLevel 500 -\n"       \
	"o 33 34 4 32 Enemy_1 300 -\n"                                                                          \
	"r 22 31 %s World\nr 20 31 strong CachedWorld\nr 31 32 strong PersistentLevel\nr 32 33 strong Actors\n"  \
	"r 33 31 strong OwningWorld\n"

TEST(cut_world_held_twice_once_through_a_class)
{
	char body[2048];
	snprintf(body, sizeof body, WORLD_HEAP, "strong");
	obj_t t[] = {31, 32, 33};
	solved s;
	if (solve(body, t, 3, CUT_ROOT_COST_DEFAULT, &s) == 0) {
		CHECK(!s.c.infinite);
		CHECK(s.c.nalive == 3);
		CHECK(s.c.nrefs == 2 && s.c.cost == 2);
		CHECK(has(&s, CK_REF, 22, "World"));
		CHECK(has(&s, CK_REF, 20, "CachedWorld"));
		CHECK(s.survivors == 0);
		CHECK(s.w.nlost == 4 && s.w.lost_bytes == 128 + 1000 + 500 + 300);
		/* each alone keeps all three targets */
		CHECK(s.c.refs[0].kept == 3 && s.c.refs[1].kept == 3 && s.c.refs[0].kept_bytes == 1800);
	}
	solved_free(&s);
	/* the World alone as the target: the same two references */
	obj_t w[] = {31};
	if (solve(body, w, 1, CUT_NEVER, &s) == 0) {
		CHECK(s.c.nrefs == 2 && has(&s, CK_REF, 22, "World") && has(&s, CK_REF, 20, "CachedWorld"));
		CHECK(s.survivors == 0);
	}
	solved_free(&s);
}

/* The GameInstance's reference immutable: it cannot be cut, so its root
 * reason goes (1000) with the class's reference (1): cost 1001. */
TEST(cut_world_held_by_an_immutable_reference_cuts_the_root)
{
	char body[2048];
	snprintf(body, sizeof body, WORLD_HEAP, "immutable");
	obj_t t[] = {31};
	solved s;
	if (solve(body, t, 1, CUT_ROOT_COST_DEFAULT, &s) == 0) {
		CHECK(!s.c.infinite);
		CHECK(s.c.nrefs == 2 && s.c.cost == 1001);
		CHECK(has(&s, CK_ROOT, 22, NULL) && has(&s, CK_REF, 20, "CachedWorld"));
		CHECK(s.survivors == 0);
	}
	solved_free(&s);
}

TEST(cut_root_cost_decides_between_a_root_and_a_reference)
{
	/* 22 (RootSet) holds 31 by an immutable reference: the only finite
	 * cut is 22's root reason, at the root cost; with 'never', infinite,
	 * held by 22 */
	char body[2048];
	snprintf(body, sizeof body, WORLD_HEAP, "immutable");
	/* drop the class's reference: 22's root is then the only way */
	char *p = strstr(body, "r 20 31 strong CachedWorld\n");
	memmove(p, p + strlen("r 20 31 strong CachedWorld\n"), strlen(p + strlen("r 20 31 strong CachedWorld\n")) + 1);
	obj_t t[] = {31};
	solved s;
	if (solve(body, t, 1, 7, &s) == 0) {
		CHECK(!s.c.infinite);
		CHECK(s.c.nrefs == 1 && s.c.cost == 7 && has(&s, CK_ROOT, 22, NULL));
		CHECK(s.survivors == 0);
	}
	solved_free(&s);
	if (solve(body, t, 1, CUT_NEVER, &s) == 0) {
		CHECK(s.c.infinite);
		CHECK(s.c.nhold == 2 && s.c.hold[0] == 22 && s.c.hold[1] == 31);
	}
	solved_free(&s);
}

TEST(cut_infinite_names_what_holds_it)
{
	char body[2048];
	snprintf(body, sizeof body, WORLD_HEAP, "immutable");
	obj_t t[] = {31};
	solved s;
	if (solve(body, t, 1, CUT_NEVER, &s) == 0) {
		CHECK(s.c.infinite);
		CHECK(s.c.nhold >= 2 && s.c.hold[s.c.nhold - 1] == 31);
	}
	solved_free(&s);
}

/* A leak (40, and 41 it references) only the FGCObject FLeaky holds; the
 * same FGCObject also holds 42, which must stay.  By hand: 1 reference,
 * FLeaky's record into 40; freed 40 and 41 (70 + 30 bytes). */
TEST(cut_leak_only_an_fgcobject_holds)
{
	const char *body = "o 40 41 4 10 Leak 70 -\no 41 42 4 10 LeakPart 30 -\no 42 43 4 10 Kept 5 -\n"
			   "r 40 41 strong Part\ng FLeaky 42 Other\ng FLeaky 40 Held\n";
	obj_t t[] = {40};
	solved s;
	if (solve(body, t, 1, CUT_ROOT_COST_DEFAULT, &s) == 0) {
		CHECK(s.c.nrefs == 1 && has(&s, CK_GCREF, OBJ_NONE, "FLeaky"));
		CHECK(s.c.refs[0].id == 1 && s.c.refs[0].target == 40);
		CHECK(s.survivors == 0);
		CHECK(s.w.nlost == 2 && s.w.lost_bytes == 100);
		CHECK(s.w.after.reachable[42]);
	}
	solved_free(&s);
}

/* A cluster rooted at 50 (member 51), held by two rooted objects (45, 46);
 * its MutableObjects list names 60, which only its member 51 references
 * (members are not traced: the list stands for them).  By hand: cutting
 * the cluster off costs 2, the list entry 1: 1 reference, cluster 50's
 * MutableObjects entry; freed 60 alone (60 bytes). */
TEST(cut_cluster_mutable_list_is_the_only_path)
{
	const char *body = "o 45 46 4 10 HolderA 1 RootSet\no 46 47 4 10 HolderB 1 RootSet\n"
			   "o 50 51 4 10 ClusterRoot 8 -\no 51 52 4 50 Member 8 -\no 60 61 4 10 Mutable 60 -\n"
			   "r 45 50 strong A\nr 46 50 strong B\nr 51 60 strong M\nc 50 51 60 -\n";
	obj_t t[] = {60};
	solved s;
	if (solve(body, t, 1, CUT_ROOT_COST_DEFAULT, &s) == 0) {
		CHECK(s.c.nrefs == 1 && s.c.refs[0].kind == CK_LIST && s.c.refs[0].holder == 50);
		CHECK(s.survivors == 0);
		CHECK(s.w.nlost == 1 && s.w.lost_bytes == 60);
	}
	solved_free(&s);
	/* the member as the target: the whole cluster goes, 2 references */
	obj_t m[] = {51};
	if (solve(body, m, 1, CUT_ROOT_COST_DEFAULT, &s) == 0) {
		CHECK(s.c.nrefs == 2 && has(&s, CK_REF, 45, "A") && has(&s, CK_REF, 46, "B"));
		CHECK(s.survivors == 0);
	}
	solved_free(&s);
}

/* A cluster rooted at 50 (RootSet) whose member 51 (an inner of 50) is
 * Native; 50 holds 60 by an immutable reference.  The Native member is a
 * root of its own (ugc-gc(7) §1.3): traced, it reaches 50 by its Outer,
 * which marks the cluster's root but does not trace it (§1.4: a live
 * cluster's root is not traced when reached), so 50's own reference to 60
 * counts only while 50 is traced as a root.  By hand: one cut, 50's root
 * reason (cost 7 here; the immutable reference cannot go, the Native flag
 * neither); freed 60 alone (60 bytes): 50 and 51 stay, marked through 51's
 * Outer.  With root reasons forbidden: infinite, held by 50's RootSet ->
 * 60 (the retention graph's member -> root -> 60 chain, through the
 * Native member, is no way the GC keeps 60). */
TEST(cut_rooted_member_does_not_keep_its_root)
{
	const char *body = "o 50 51 4 10 ClusterRoot 8 RootSet\no 51 52 4 50 NativeMember 8 Native\n"
			   "o 60 61 4 10 Held 60 -\nr 50 60 immutable Held\nc 50 51 - -\n";
	obj_t t[] = {60};
	solved s;
	if (solve(body, t, 1, 7, &s) == 0) {
		CHECK(!s.c.infinite && !s.c.unproven);
		CHECK(s.c.nrefs == 1 && s.c.cost == 7 && has(&s, CK_ROOT, 50, NULL));
		CHECK(s.survivors == 0);
		CHECK(s.w.nlost == 1 && s.w.lost_bytes == 60);
		CHECK(s.w.after.reachable[50] && s.w.after.reachable[51]);
	}
	solved_free(&s);
	if (solve(body, t, 1, CUT_NEVER, &s) == 0) {
		CHECK(s.c.infinite && !s.c.unproven);
		CHECK(s.c.nhold == 2 && s.c.hold[0] == 50 && s.c.hold[1] == 60);
	}
	solved_free(&s);
}

/* The limit (cut.c): the GC's order.  Cluster 70 (RootSet) is walked in
 * step 2, and its ReferencedClusters entry marks 50, another cluster's
 * root, without a walk; so when the rooted 45 reaches 50's member 51, 50
 * is marked already and its MutableObjects list (60) is never walked: 60
 * lives by 46's reference alone, and nulling it frees 60 (by hand, and
 * checked by the GC rerun).  A flow cannot say "walked unless marked
 * first": cut assumes the walk, cuts 46.L and the list entry (cost 2,
 * proven to free 60) and says the answer is not proven minimal. */
TEST(cut_where_the_order_decides_is_not_proven_minimal)
{
	const char *body = "o 45 46 4 10 HolderA 1 RootSet\no 46 47 4 10 HolderB 1 RootSet\n"
			   "o 50 51 4 10 RootC0 8 -\no 51 52 4 50 MemberC0 8 -\no 60 61 4 10 Listed 60 -\n"
			   "o 70 71 4 10 RootC1 8 RootSet\no 71 72 4 70 MemberC1 8 -\n"
			   "r 45 51 strong M\nr 46 60 strong L\nc 50 51 60 -\nc 70 71 - 50\n";
	obj_t t[] = {60};
	solved s;
	if (solve(body, t, 1, CUT_ROOT_COST_DEFAULT, &s) == 0) {
		CHECK(!s.c.infinite && s.c.unproven);
		CHECK(s.c.nrefs == 2 && s.c.cost == 2 && has(&s, CK_REF, 46, "L") && has(&s, CK_LIST, 50, NULL));
		CHECK(s.survivors == 0);
		whatif_change one = {WI_NULL_RECORD, 46, 0, 0};
		whatif_result w;
		if (whatif_run(&s.h, &s.r, &s.opt, &one, 1, &w) == 0) {
			CHECK(!w.after.reachable[60]); /* the smaller cut the flow cannot see */
			whatif_free(&w);
		}
	}
	solved_free(&s);
}

/* Brute force.  The cuttable actions of a heap, found from its records
 * alone: every strong or aro "r" record, every "g" record, every cluster
 * list entry, the root reasons of every object that has one a program can
 * drop (and no internal keep flag, outside the disregard pool). */
static size_t actions(const heap *h, uint32_t keep, whatif_change *out)
{
	size_t n = 0;
	for (uint32_t i = 0; i < h->slots; i++) {
		if (h->cls[i] == OBJ_FREE)
			continue;
		for (uint32_t k = h->ref_start[i]; k < h->ref_start[i + 1]; k++)
			if (h->ref_kind[k] == REF_STRONG || h->ref_kind[k] == REF_ARO)
				out[n++] = (whatif_change){WI_NULL_RECORD, (obj_t)i, 0, k - h->ref_start[i]};
		int held = 0; /* whatif's unroot also drops the g records into it: no
			       * single action then (the tool counts each) */
		for (uint32_t g = 0; g < h->ngcrefs; g++)
			held |= h->gcrefs[g].dst == (obj_t)i;
		if (!held && !heap_in_disregard(h, (obj_t)i) && !(h->iflags[i] & IF_INTERNAL_KEEP) &&
		    ((h->iflags[i] & (IF_RootSet | IF_RefCounted)) || (h->oflags[i] & keep)))
			out[n++] = (whatif_change){WI_UNROOT, (obj_t)i, 0, 0};
	}
	for (uint32_t g = 0; g < h->ngcrefs; g++)
		out[n++] = (whatif_change){WI_DROP_GCREF, OBJ_NONE, 0, g};
	for (uint32_t c = 0; c < h->nclusters; c++) {
		const cluster *cl = &h->clusters[c];
		for (uint32_t k = 0; k < cl->n_mutables; k++)
			out[n++] = (whatif_change){WI_DROP_LIST_ENTRY, OBJ_NONE, 0, cl->mutables + k};
		for (uint32_t k = 0; k < cl->n_refs; k++)
			out[n++] = (whatif_change){WI_DROP_LIST_ENTRY, OBJ_NONE, 0, cl->refs + k};
	}
	return n;
}

/* Does the GC, without the changes C, free target T? */
static int frees(const heap *h, const gc_result *before, const gc_options *opt, const whatif_change *c, size_t n,
		 obj_t t)
{
	whatif_result w;
	if (whatif_run(h, before, opt, c, n, &w))
		return -1;
	int freed = !w.after.reachable[t];
	whatif_free(&w);
	return freed;
}

/* Any set of SIZE of the N actions A that frees T?  (Subsets enumerated
 * by index, lexicographically.) */
static int any_frees(const heap *h, const gc_result *r, const gc_options *opt, const whatif_change *a, size_t n,
		     size_t size, obj_t t)
{
	size_t idx[4];
	whatif_change pick[4] = {0};
	if (size > n)
		return 0;
	for (size_t k = 0; k < size; k++)
		idx[k] = k;
	for (;;) {
		for (size_t k = 0; k < size; k++)
			pick[k] = a[idx[k]];
		if (frees(h, r, opt, pick, size, t) != 0)
			return 1;
		size_t k = size;
		while (k > 0 && idx[k - 1] == n - size + k - 1)
			k--;
		if (k == 0)
			return 0;
		idx[k - 1]++;
		for (size_t j = k; j < size; j++)
			idx[j] = idx[j - 1] + 1;
	}
}

typedef struct tally {
	int checked, infinite; /* answers the brute force confirmed: finite ones of cost <= 3, infinite ones */
	int total;             /* answers checked */
	int unproven;          /* answers cut says it did not prove minimal (checked for safety only) */
	int unproven_wrong;    /* of them, those the brute force shows are not minimal */
} tally;

/* The cut of T again on two threads (the lower bound's network beside the
 * main one, the proof started as soon as the cut is known and run beside
 * the count of what each reference keeps): the same answer as C, one
 * thread's, and a proof that frees T and loses what C's proof (W1) does;
 * the ancestors found there by the predecessor index of every kept object
 * (index_only), here by the sweeps: the same network. */
static void check_two_threads(heap *h, const gc_result *r, const gc_options *opt, obj_t t, const cut_result *c,
			      const whatif_result *w1)
{
	gc_options o2 = *opt;
	o2.threads = 2;
	cut_proof pf;
	whatif_result w2;
	uint32_t survivors;
	cut_proof_init(&pf, h, r, &o2, &t, 1, &w2, &survivors);
	cut_options co = {.keep_flags = opt->keep_flags, .root_cost = 1, .threads = 2, .proof = &pf, .index_only = 1};
	cut_result c2;
	int rc = cut_compute(h, r, &co, &t, 1, &c2);
	int prc = pf.begun ? cut_proof_wait(&pf) : -1;
	CHECK(rc == 0);
	if (rc)
		return;
	CHECK(c2.infinite == c->infinite && c2.cost == c->cost && c2.nrefs == c->nrefs && c2.unproven == c->unproven);
	CHECK(c2.nodes == c->nodes && c2.arcs == c->arcs); /* the same network, swept or indexed */
	for (uint32_t k = 0; k < c->nrefs && k < c2.nrefs; k++)
		CHECK(c2.refs[k].kind == c->refs[k].kind && c2.refs[k].id == c->refs[k].id &&
		      c2.refs[k].kept == c->refs[k].kept);
	CHECK(pf.begun == (!c->infinite && c->nalive));
	if (pf.begun) {
		CHECK(prc == 0 && survivors == 0);
		if (prc == 0) {
			CHECK(w1 && w2.nlost == w1->nlost && w2.lost_bytes == w1->lost_bytes);
			whatif_free(&w2);
		}
	}
	cut_free(&c2);
}

/* The cut of target T on H (GC result R under OPT), checked against the
 * GC itself: a finite answer frees T when its references go (the proof:
 * always asserted), costs one a reference (root cost 1), and when it
 * costs at most 3 no smaller set of the heap's cuttable actions frees T;
 * an infinite answer: no set of one or two actions frees T (and, on a heap
 * without clusters, not every action at once).  Minimality is asserted on
 * every answer cut does not flag as unproven (cut.c: where the GC's order
 * decides, the network's bound and its answer may differ); the flagged
 * ones are counted, and how many of them the brute force beats. */
static void check_cut(heap *h, const gc_result *r, const gc_options *opt, obj_t t, tally *n_)
{
	cut_result c;
	cut_options co = {.keep_flags = opt->keep_flags, .root_cost = 1};
	if (cut_compute(h, r, &co, &t, 1, &c)) {
		CHECK(0);
		return;
	}
	int wrong = 0;
	whatif_change *a = malloc((h->nrefs + h->slots + h->ngcrefs + h->ncluster_items + 1) * sizeof *a);
	size_t n = actions(h, opt->keep_flags, a);
	if (c.infinite) {
		check_two_threads(h, r, opt, t, &c, NULL);
		if (h->nclusters == 0)
			wrong |= frees(h, r, opt, a, n, t) != 0;
		for (size_t size = 1; size <= 2; size++)
			wrong |= any_frees(h, r, opt, a, n, size, t);
		n_->infinite += !c.unproven && !wrong;
	} else {
		whatif_result w;
		uint32_t surv = 1;
		CHECK(cut_prove(h, r, opt, &c, &t, 1, &w, &surv) == 0);
		CHECK(surv == 0); /* never a failing proof, flagged or not */
		check_two_threads(h, r, opt, t, &c, &w);
		if (surv) {
			printf("    the cut of #%d (cost %llu:", t, (unsigned long long)c.cost);
			for (uint32_t k = 0; k < c.nrefs; k++)
				printf(" %s %d -> %d", c.refs[k].kind == CK_ROOT ? "root" : c.refs[k].kind == CK_LIST ? "list" : "ref",
				       c.refs[k].holder, c.refs[k].target);
			printf(") does not free it, on this heap:\n");
			text_write(h, stdout);
		}
		whatif_free(&w);
		CHECK(c.cost == c.nrefs); /* every cost 1 here */
		if (c.cost <= 3) {
			for (size_t size = 0; size < c.cost; size++)
				wrong |= any_frees(h, r, opt, a, n, size, t);
			n_->checked += !c.unproven && !wrong;
		}
	}
	if (wrong && !c.unproven) {
		CHECK(0);
		printf("    the cut of #%d (%s, cost %llu) is disproved by the brute force, on this heap:\n", t,
		       c.infinite ? "infinite" : "finite", (unsigned long long)c.cost);
		text_write(h, stdout);
	}
	n_->total++;
	n_->unproven += c.unproven;
	n_->unproven_wrong += c.unproven && wrong;
	free(a);
	cut_free(&c);
}

TEST(cut_is_minimal_by_brute_force_on_random_heaps)
{
	tally n_ = {0};
	for (int round = 0; round < 150; round++) {
		heap h;
		if (random_heap(10 + (int)test_rand_below(12), round % 3 != 0, &h))
			return;
		gc_options opt = {.mode = h.mode, .keep_flags = gc_default_keep_flags(h.mode), .threads = 1,
				  .parallel_min = 1};
		gc_result r;
		if (gc_run(&h, &opt, &r)) {
			heap_free(&h);
			CHECK(0);
			return;
		}
		/* a reachable target outside the disregard pool */
		obj_t t = OBJ_NONE;
		for (int tries = 0; tries < 20 && t == OBJ_NONE; tries++) {
			obj_t x = 11 + (obj_t)test_rand_below(h.slots - 11);
			if (heap_exists(&h, x) && r.reachable[x])
				t = x;
		}
		if (t != OBJ_NONE)
			check_cut(&h, &r, &opt, t, &n_);
		gc_result_free(&r);
		heap_free(&h);
	}
	CHECK(n_.checked >= 15);
	CHECK(n_.infinite >= 1);
}

/* The same on heaps that all have GC clusters (their lists random, so
 * most of them hold what no member references), references into the
 * disregard pool, and in one round of two editor mode's keep flag
 * (RF_Standalone): targets drawn from the clusters' roots, members and
 * list entries first, each answer checked as above, infinite ones too. */
TEST(cut_is_minimal_by_brute_force_on_clustered_heaps)
{
	tally n_ = {0};
	int clustered = 0;
	for (int round = 0; round < 120; round++) {
		heap h;
		if (random_heap(12 + (int)test_rand_below(14), 1, &h))
			return;
		int mode = round % 2 ? MODE_EDITOR : MODE_GAME;
		gc_options opt = {.mode = mode, .keep_flags = gc_default_keep_flags(mode), .threads = 1,
				  .parallel_min = 1};
		gc_result r;
		if (gc_run(&h, &opt, &r)) {
			heap_free(&h);
			CHECK(0);
			return;
		}
		/* two targets a heap: a cluster's object (any of its lists'), then any */
		for (int pick = 0; pick < 2; pick++) {
			obj_t t = OBJ_NONE;
			for (int tries = 0; tries < 30 && t == OBJ_NONE; tries++) {
				obj_t x = OBJ_NONE;
				if (pick == 0 && h.ncluster_items)
					x = h.cluster_items[test_rand_below(h.ncluster_items)];
				else if (pick == 0 && h.nclusters)
					x = h.clusters[test_rand_below(h.nclusters)].root;
				else
					x = 11 + (obj_t)test_rand_below(h.slots - 11);
				if (x >= 11 && heap_exists(&h, x) && r.reachable[x])
					t = x;
			}
			if (t == OBJ_NONE)
				continue;
			clustered += heap_cluster(&h, t) >= 0;
			check_cut(&h, &r, &opt, t, &n_);
		}
		gc_result_free(&r);
		heap_free(&h);
	}
	CHECK(n_.checked >= 40);
	CHECK(n_.infinite >= 5);
	CHECK(clustered >= 40);
	CHECK(n_.unproven * 4 <= n_.total); /* the flag is the exception, not the rule */
	printf("    clustered heaps: %d cuts minimal by brute force, %d infinite ones checked, %d targets in clusters;"
	       " %d of %d answers not proven minimal (proven to free), %d of them beaten by the brute force\n",
	       n_.checked, n_.infinite, clustered, n_.unproven, n_.total, n_.unproven_wrong);
}

/* A chain 40 references long from a rooted holder to the target whose
 * objects' indexes zigzag (200, 101, 201, 102, ...: each step goes the
 * other way round the array), so that every sweep of the ancestor search
 * (cut.c) gets at most two steps further: more sweeps than it allows, and
 * the predecessor index of every kept object takes over.  By hand: one
 * reference frees the target (each holds it alone); the same network and
 * answer as with the index asked for, on one thread and on two. */
TEST(cut_zigzag_chain_falls_back_to_the_index)
{
	enum { STEPS = 40 };
	char body[8192];
	size_t at = 0;
	obj_t idx[STEPS + 1];
	for (int k = 1; k <= STEPS; k++)
		idx[k] = k % 2 ? 200 + (k - 1) / 2 : 100 + k / 2;
	at += (size_t)snprintf(body + at, sizeof body - at, "o 50 51 4 10 Target 1000 -\no 60 61 4 10 Holder 100 RootSet\n");
	for (int k = 1; k <= STEPS; k++)
		at += (size_t)snprintf(body + at, sizeof body - at, "o %d %d 4 10 Link_%d 10 -\n", idx[k], idx[k] + 1, k);
	at += (size_t)snprintf(body + at, sizeof body - at, "r 60 %d strong Head\n", idx[STEPS]);
	for (int k = STEPS; k >= 2; k--) /* p_k references p_(k-1); p_1 the target */
		at += (size_t)snprintf(body + at, sizeof body - at, "r %d %d strong Next\n", idx[k], idx[k - 1]);
	snprintf(body + at, sizeof body - at, "r %d 50 strong Target\n", idx[1]);
	obj_t t = 50;
	solved s;
	if (solve(body, &t, 1, CUT_ROOT_COST_DEFAULT, &s) == 0) {
		CHECK(!s.c.infinite && s.c.nrefs == 1 && s.c.cost == 1 && s.survivors == 0);
		CHECK(s.c.nodes >= STEPS + 2); /* the holder, the links and the target at least */
		for (int run = 0; run < 3; run++) { /* two threads; the index asked for on one, on two */
			cut_options co = {.keep_flags = s.opt.keep_flags, .root_cost = CUT_ROOT_COST_DEFAULT,
					  .threads = run == 1 ? 1 : 2, .index_only = run > 0};
			cut_result c2;
			CHECK(cut_compute(&s.h, &s.r, &co, &t, 1, &c2) == 0);
			CHECK(c2.nodes == s.c.nodes && c2.arcs == s.c.arcs && c2.nrefs == 1);
			if (c2.nrefs == 1 && s.c.nrefs == 1)
				CHECK(c2.refs[0].id == s.c.refs[0].id && c2.refs[0].kind == s.c.refs[0].kind);
			cut_free(&c2);
		}
	}
	solved_free(&s);
}
