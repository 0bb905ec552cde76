/* test_query.c — the chain searches and selectors of query.c on the
 * hand-made heap testdata/chains-parallel.ugct (its comment works the
 * answers out): chains of distinct objects with parallel references on one
 * hop, one chain a root, the limit, and selectors whose path names hold
 * spaces, quotes and glob characters. */
#include <stdlib.h>

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
