/* test_query.c — the chain searches and selectors of query.c on the
 * hand-made heap testdata/chains-parallel.ugct (its comment works the
 * answers out): chains of distinct objects with parallel references on one
 * hop, one chain a root, the limit, and selectors whose path names hold
 * spaces, quotes and glob characters. */
#include <stdlib.h>
#include <string.h>

#include "analysis/query.h"
#include "snapshot/snapshot.h"
#include "tests/unit.h"

static view *open_parallel(void)
{
	char err[SNAP_ERR_MAX];
	heap *h = malloc(sizeof *h);
	gc_result *r = malloc(sizeof *r);
	if (!h || !r || snapshot_load("testdata/chains-parallel.ugct", h, err, sizeof err)) {
		printf("    %s\n", h && r ? err : "out of memory");
		free(h);
		free(r);
		return NULL;
	}
	if (run_gc(h, h->mode, 1, r)) {
		heap_free(h);
		free(h);
		free(r);
		return NULL;
	}
	view *v = view_heap_open(h, r, err, sizeof err);
	if (!v)
		printf("    %s\n", err);
	return v;
}

/* The nodes of C as "a b c". */
static const char *node_list(const chain *c)
{
	static char buf[256];
	size_t n = 0;
	buf[0] = '\0';
	for (size_t k = 0; k < c->n; k++)
		n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%d", k ? " " : "", c->nodes[k]);
	return buf;
}

TEST(query_all_chains_differ_in_objects)
{
	view *v = open_parallel();
	CHECK(v != NULL);
	if (!v)
		return;
	chains cs = {0};
	CHECK(query_chains(v, 14, CHAINS_ALL, 100, 0, 0, &cs) == 0);
	CHECK(cs.n == 4 && !cs.truncated && !cs.limited);
	if (cs.n == 4) {
		/* shortest first; two of each length (ties in the search's order) */
		CHECK_STR(node_list(&cs.v[0]), "11 12 14");
		CHECK_STR(node_list(&cs.v[1]), "17 13 14");
		CHECK_STR(node_list(&cs.v[2]), "11 12 13 14");
		CHECK_STR(node_list(&cs.v[3]), "11 12 15 14");
		size_t n;
		const edge *e = chain_hop(&cs.v[0], 0, &n); /* World -> Level: two properties, one hop */
		CHECK(n == 2 && strcmp(e[0].prop, "PersistentLevel") == 0 && strcmp(e[1].prop, "Levels[0]") == 0);
		e = chain_hop(&cs.v[1], 1, &n); /* Enemy -> Target: strong and aro */
		CHECK(n == 2 && e[0].kind == REF_STRONG && e[1].kind == REF_ARO);
		e = chain_hop(&cs.v[3], 2, &n);
		CHECK(n == 1 && strcmp(e[0].prop, "Friend") == 0);
	}
	chains_free(&cs);
	CHECK(query_chains(v, 14, CHAINS_ALL, 3, 0, 0, &cs) == 0 && cs.n == 3 && cs.limited);
	chains_free(&cs);
	CHECK(query_chains(v, 14, CHAINS_ROOTS, 100, 0, 0, &cs) == 0 && cs.n == 2);
	if (cs.n == 2) {
		CHECK_STR(node_list(&cs.v[0]), "11 12 14");
		CHECK_STR(node_list(&cs.v[1]), "17 13 14");
	}
	chains_free(&cs);
	/* --external: 11 is in the target's package /Game/Maps/My Map, 17 is not */
	CHECK(query_chains(v, 14, CHAINS_ROOTS, 100, 1, 0, &cs) == 0 && cs.n == 1 && cs.v[0].nodes[0] == 17);
	chains_free(&cs);
	/* a budget of two steps finds the first chain's start and stops, saying so */
	CHECK(query_chains(v, 14, CHAINS_ALL, 100, 0, 2, &cs) == 0 && cs.truncated && cs.n < 4);
	chains_free(&cs);
	v->ops->close(v);
}

TEST(query_hint_shows_five_candidates_and_counts_the_rest)
{
	heap *h = malloc(sizeof *h);
	gc_result *r = malloc(sizeof *r);
	CHECK(h && r && load_heap("o 20 1 4 10 Dup 1 -\no 21 1 4 20 Dup 1 -\n"
				  "o 11 1 3 - /Game/B 1 RootSet\no 22 1 4 11 Dup 1 -\no 23 1 4 22 Dup 1 -\n"
				  "o 12 1 3 - /Game/C 1 RootSet\no 24 1 4 12 Dup 1 -\no 25 1 4 24 Dup 1 -\n"
				  "o 13 1 3 - /Game/D 1 RootSet\no 26 1 4 13 Dup 1 -\n", h) == 0);
	CHECK(run_gc(h, h->mode, 1, r) == 0);
	char err[1024];
	view *v = view_heap_open(h, r, err, sizeof err);
	CHECK(v != NULL);
	if (!v)
		return;
	obj_t x;
	/* seven objects named Dup*, none at this path: five shown, two counted */
	CHECK(query_select(v, "/Game/E.Dup", &x, err, sizeof err) == 1);
	CHECK(strstr(err, "; did you mean #20 ") && strstr(err, ", #24 ") && !strstr(err, "#25") &&
	      strstr(err, " (and 2 more)"));
	v->ops->close(v);
}

/* A name found nowhere: the near misses by edit distance on the whole path
 * (a name that begins as it does), nearest first; a far one is no hint. */
TEST(query_unknown_names_suggest_near_misses)
{
	heap *h = malloc(sizeof *h);
	gc_result *r = malloc(sizeof *r);
	CHECK(h && r && load_heap("o 11 1 3 - /Game/Map 1 RootSet\no 20 1 4 11 BP_Enemy_C_3 1 -\n"
				  "o 21 1 4 11 BP_Enemy_C_30 1 -\no 22 1 4 11 BP_Door_C_3 1 -\no 23 1 4 10 BP_Enemy_C_3 1 -\n",
				  h) == 0);
	CHECK(run_gc(h, h->mode, 1, r) == 0);
	char err[1024];
	view *v = view_heap_open(h, r, err, sizeof err);
	CHECK(v != NULL);
	if (!v)
		return;
	obj_t x;
	/* 20 is one edit away, 21 two; 23 (in /Game/Test) and 22 are five, over
	 * the limit of a 13-byte name (4) */
	CHECK(query_select(v, "/Game/Map.BP_Enemy_C_3x", &x, err, sizeof err) == 1);
	CHECK_STR(err, "no object is '/Game/Map.BP_Enemy_C_3x'; did you mean #20 Actor /Game/Map.BP_Enemy_C_3, "
		  "#21 Actor /Game/Map.BP_Enemy_C_30");
	CHECK(query_select(v, "/Game/Map.Zzz", &x, err, sizeof err) == 1);
	CHECK_STR(err, "no object is '/Game/Map.Zzz'");
	v->ops->close(v);
}

TEST(query_selectors_take_printed_paths)
{
	view *v = open_parallel();
	CHECK(v != NULL);
	if (!v)
		return;
	obj_t x;
	char err[1024];
	CHECK(query_select(v, "/Game/Maps/My Map.My Map:Enemy (Copy)", &x, err, sizeof err) == 0 && x == 13);
	CHECK(query_select(v, "Actor /Game/Maps/My Map.My Map:Enemy (Copy)", &x, err, sizeof err) == 0 && x == 13);
	CHECK(query_select(v, "World /Game/Maps/My Map.My Map:Enemy (Copy)", &x, err, sizeof err) == 1);
	CHECK(query_select(v, "/Game/Maps/My Map", &x, err, sizeof err) == 0 && x == 10);
	/* indexes beyond any object, and past what an index can be (nothing
	 * to free then: ASan saw a free of an unset pointer) */
	CHECK(query_find(v, "999", &x) == 1 && x == OBJ_NONE);
	CHECK(query_find(v, "99999999999", &x) == 1 && x == OBJ_NONE);
	CHECK(query_select(v, "/Game/Maps/My Map.My Map:PersistentLevel.Say \"Hi\", Bob's [1]*?", &x, err, sizeof err) == 0 &&
	      x == 15);
	CHECK(query_select(v, "/Game/Other.Tab\\x09Name", &x, err, sizeof err) == 0 && x == 18);
	CHECK(query_select(v, "#14", &x, err, sizeof err) == 0 && x == 14);
	/* unknown: the hint names the object of that name elsewhere, never the selector again */
	CHECK(query_select(v, "/Game/Maps/My Map.My Map:Say \"Hi\", Bob's [1]*?", &x, err, sizeof err) == 1);
	CHECK_STR(err, "no object is '/Game/Maps/My Map.My Map:Say \"Hi\", Bob's [1]*?'; did you mean #15 Actor "
		  "/Game/Maps/My Map.My Map:PersistentLevel.Say \"Hi\", Bob's [1]*?");
	CHECK(query_select(v, "/Game/Nowhere.Target", &x, err, sizeof err) == 1);
	CHECK_STR(err, "no object is '/Game/Nowhere.Target'; did you mean #14 Actor /Game/Maps/My Map.My Map:PersistentLevel.Target");
	v->ops->close(v);
}

/* The V8 node id a name ends in: "@ID" the way fname_split reads it (no
 * leading zero, at most ten digits), up to 2^32 - 1. */
TEST(name_node_id_reads_the_suffix_devtools_writes)
{
	static const struct { const char *name; long long id; } cases[] = {
		{"Foo@12", 12}, {"@1663", 1663}, {"@0", 0}, {"a@b@7", 7}, {"Foo@4294967295", 4294967295LL},
		{"Foo@4294967296", -1}, {"Foo@012", -1}, {"Foo@", -1}, {"12", -1}, {"Foo_12", -1}, {"a@5_3", -1},
		{"Foo@12345678901", -1}, {"", -1},
	};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		long long got = name_node_id(cases[k].name, strlen(cases[k].name));
		if (got != cases[k].id)
			printf("    %s: %lld, not %lld\n", cases[k].name, got, cases[k].id);
		CHECK(got == cases[k].id);
	}
}

/* A hand-made V8 heap (engine v8): the pool 0-4 has no ids; node ids 1, 5,
 * 7, 100, 6 at indexes 5-9, and 3000000000 (past fname_split's numbers:
 * the whole name is stored) at 10.  What each selector selects is worked
 * out in testdata/v8-ids.ugct's comment, which this heap extends. */
#define V8_IDS \
	"ugc-text 1\nengine v8\nfirst-gc-index 5\no 0 0 1 - /V8 0 -\no 1 0 2 0 Package 0 -\no 2 0 2 0 Class 0 -\n" \
	"o 3 0 2 0 (synthetic) 0 -\no 4 0 2 0 Foo 0 -\no 5 0 3 0 @1 0 RootSet\no 6 0 4 0 Foo@5 10 -\n" \
	"o 7 0 4 0 @7 20 -\no 8 0 4 0 Foo@100 30 -\no 9 0 4 0 Foo@6 40 -\no 10 0 4 0 Big@3000000000 1 -\n" \
	"r 5 6 strong a\nr 5 7 strong b\nr 6 8 strong c\nr 7 9 strong d\nr 9 8 weak e\nr 5 10 strong f\n"

static view *open_text(const char *text)
{
	char err[1024];
	heap *h = malloc(sizeof *h);
	gc_result *r = malloc(sizeof *r);
	if (!h || !r || parse_text(text, h, err, sizeof err) || run_gc(h, h->mode, 1, r)) {
		printf("    %s\n", h && r ? err : "out of memory");
		free(h);
		free(r);
		return NULL;
	}
	view *v = view_heap_open(h, r, err, sizeof err);
	if (!v)
		printf("    %s\n", err);
	return v;
}

TEST(query_v8_node_ids_select_and_a_shared_number_is_refused)
{
	view *v = open_text(V8_IDS);
	CHECK(v != NULL && v->v8);
	if (!v)
		return;
	obj_t x;
	char err[1024];
	static const struct { const char *sel; obj_t want; } picks[] = {
		{"#5", 5}, {"@5", 6}, {"@1", 5}, {"7", 7}, {"@7", 7}, {"#7", 7}, {"100", 8}, {"@100", 8}, {"3", 3},
		{"#6", 6}, {"@6", 9}, {"@3000000000", 10}, {"3000000000", 10},
	};
	for (size_t k = 0; k < sizeof picks / sizeof picks[0]; k++) {
		int rc = query_select(v, picks[k].sel, &x, err, sizeof err);
		if (rc || x != picks[k].want)
			printf("    %s: rc %d, #%d, not #%d (%s)\n", picks[k].sel, rc, x, picks[k].want, rc ? err : "");
		CHECK(rc == 0 && x == picks[k].want);
	}
	CHECK(query_select(v, "5", &x, err, sizeof err) == 1 && x == OBJ_NONE);
	CHECK_STR(err, "#5 is (synthetic) /V8.@1 and @5 is Foo /V8.Foo@5: write #5 or @5");
	CHECK(query_find(v, "5", &x) == 1 && x == OBJ_NONE); /* no reason, still refused */
	CHECK(query_select(v, "6", &x, err, sizeof err) == 1);
	CHECK_STR(err, "#6 is Foo /V8.Foo@5 and @6 is Foo /V8.Foo@6: write #6 or @6");
	CHECK(query_select(v, "11", &x, err, sizeof err) == 1);
	CHECK_STR(err, "no object has index 11, and no node id 11");
	CHECK(query_select(v, "#100", &x, err, sizeof err) == 1);
	CHECK_STR(err, "no object has index 100");
	CHECK(query_select(v, "@4294967296", &x, err, sizeof err) == 1 && x == OBJ_NONE);
	/* the ids, as describe and state give them (JSON's node_id) */
	static const long long ids[] = {-1, -1, -1, -1, -1, 1, 5, 7, 100, 6, 3000000000LL};
	for (obj_t i = 0; i < 11; i++) {
		obj_info o;
		obj_state s;
		CHECK(v->ops->describe(v, i, &o) == 0 && o.node_id == ids[i] && o.v8);
		obj_info_free(&o);
		CHECK(v->ops->state(v, i, &s) == 0 && s.node_id == ids[i]);
	}
	v->ops->close(v);
}

/* An id two nodes share (a hand-made heap can) names neither; a UE heap
 * has no ids: @ID selects nothing, a bare number is an index. */
TEST(query_node_ids_shared_or_absent_select_nothing)
{
	view *v = open_text("ugc-text 1\nengine v8 12.4\no 0 0 1 - /V8 0 -\no 1 0 1 0 Package 0 -\n"
			    "o 2 0 1 0 A@9 0 RootSet\no 3 0 1 0 B@9 0 -\no 4 0 1 0 C@2 0 -\n");
	CHECK(v != NULL && v->v8);
	if (!v)
		return;
	obj_t x;
	size_t n = 0;
	char err[1024];
	CHECK(v->ops->find_node(v, 9, &x, &n) == 0 && n == 2 && x == 2);
	CHECK(query_select(v, "@9", &x, err, sizeof err) == 1 && x == OBJ_NONE);
	CHECK(query_select(v, "@2", &x, err, sizeof err) == 0 && x == 4);
	CHECK(query_select(v, "9", &x, err, sizeof err) == 1); /* no index 9, and @9 is no one node */
	v->ops->close(v);
	v = open_text("ugc-text 1\nengine 5.5.4\no 0 0 1 - /Game 0 -\no 1 0 1 0 Package 0 RootSet\no 2 0 1 0 A@1 0 -\n");
	CHECK(v != NULL && !v->v8);
	if (!v)
		return;
	CHECK(v->ops->find_node(v, 1, &x, &n) == 0 && n == 0 && x == OBJ_NONE);
	CHECK(query_select(v, "@1", &x, err, sizeof err) == 1);
	CHECK_STR(err, "no object has node id @1: not a V8 heap (@ID selects a V8 node)");
	CHECK(query_select(v, "1", &x, err, sizeof err) == 0 && x == 1);
	obj_info o;
	CHECK(v->ops->describe(v, 2, &o) == 0 && o.node_id == -1 && !o.v8);
	obj_info_free(&o);
	v->ops->close(v);
}
