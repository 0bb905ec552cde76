/* test_diff_report.c — diff's report as library code (analysis/diff_report.h):
 * each section's rows and counts on small crafted heaps, retained bytes
 * summed by class name across sides and duplicates, new facts, leak groups
 * by generic chain; every allocation failed in turn gives an error (never
 * a shorter section), and `diff` turns it into one line and exit 1. */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "cli/cli.h"
#include "tests/oom_wrap.h"
#include "tests/unit.h"

/* A, B and C: one process (same serials).  In B, Doomed (garbage in A) is
 * held again, Gone went, NewRoot is a new root holding Fresh_1, Keeper
 * holds Dead (garbage: the GC nulls the reference) and two leaks in its
 * Cache; in C the leaks are still held, Fresh_1 is gone and Leak_3 is new. */
#define A_BODY \
	"o 11 12 4 10 Keeper 100 RootSet\no 12 13 4 11 Kept 100 -\no 13 14 4 10 Gone 100 -\n" \
	"o 14 15 4 10 Doomed 100 Garbage\n" \
	"r 11 12 strong Held\nr 11 13 strong Gone\n"
#define B_BODY \
	"o 11 12 4 10 Keeper 100 RootSet\no 12 13 4 11 Kept 100 -\no 14 15 4 10 Doomed 100 -\n" \
	"o 15 16 4 10 NewRoot 200 RootSet\no 16 17 4 10 Fresh_1 300 -\no 17 18 4 10 Dead 50 Garbage\n" \
	"o 18 19 4 10 Leak_1 40 -\no 19 20 4 10 Leak_2 60 -\n" \
	"r 11 12 strong Held\nr 11 14 strong Revived\nr 15 16 strong Fresh\nr 11 17 strong Stale\n" \
	"r 11 18 strong Cache\nr 11 19 strong Cache\n"
#define C_BODY \
	"o 11 12 4 10 Keeper 100 RootSet\no 12 13 4 11 Kept 100 -\no 14 15 4 10 Doomed 100 -\n" \
	"o 15 16 4 10 NewRoot 200 RootSet\no 18 19 4 10 Leak_1 40 -\no 19 20 4 10 Leak_2 60 -\n" \
	"o 20 21 4 10 Leak_3 70 -\n" \
	"r 11 12 strong Held\nr 11 14 strong Revived\nr 11 18 strong Cache\nr 11 19 strong Cache\nr 11 20 strong Cache\n"

/* BODY analysed into a diff side; 0, or -1 after failing the test. */
static int side_of(const char *body, diff_side *s)
{
	heap h;
	gc_result r;
	findings f = {0};
	if (load_heap(body, &h)) {
		CHECK(!"the heap loads");
		return -1;
	}
	int rc = run_gc(&h, MODE_GAME, 1, &r);
	if (rc == 0) {
		rc = findings_collect(&h, &r, &f);
		if (rc == 0)
			rc = diff_side_from_heap(&h, &r, &f, s);
		findings_free(&f);
		gc_result_free(&r);
	}
	heap_free(&h);
	CHECK(rc == 0);
	return rc ? -1 : 0;
}

/* The whole report as one line, to compare runs. */
static void report_text(const diff_report *x, char *out, size_t cap)
{
	size_t n = (size_t)snprintf(out, cap, "%llu %llu|", (unsigned long long)x->a_bytes, (unsigned long long)x->b_bytes);
	const group_rows *g[3] = {&x->classes, &x->packages, &x->outers};
	for (int t = 0; t < 3; t++) {
		for (size_t k = 0; k < g[t]->n && n < cap; k++)
			n += (size_t)snprintf(out + n, cap - n, "%s %llu %llu %llu %llu;", g[t]->v[k].name,
					      (unsigned long long)g[t]->v[k].a_count, (unsigned long long)g[t]->v[k].b_count,
					      (unsigned long long)g[t]->v[k].added, (unsigned long long)g[t]->v[k].removed);
		if (n < cap)
			n += (size_t)snprintf(out + n, cap - n, "|");
	}
	for (size_t k = 0; k < x->retained.n && n < cap; k++)
		n += (size_t)snprintf(out + n, cap - n, "%s %llu %llu;", x->retained.v[k].name,
				      (unsigned long long)x->retained.v[k].a, (unsigned long long)x->retained.v[k].b);
	const diff_object_rows *o[2] = {&x->garbage_alive, &x->new_roots};
	for (int t = 0; t < 2 && n < cap; t++) {
		n += (size_t)snprintf(out + n, cap - n, "|%u:", o[t]->count);
		for (size_t k = 0; k < o[t]->n && n < cap; k++)
			n += (size_t)snprintf(out + n, cap - n, "#%d %s %d;", o[t]->v[k].idx, o[t]->v[k].name, o[t]->v[k].root_kind);
	}
	const diff_fact_rows *f[2] = {&x->new_eliminated, &x->new_disagreements};
	for (int t = 0; t < 2 && n < cap; t++) {
		n += (size_t)snprintf(out + n, cap - n, "|%u:", f[t]->count);
		for (size_t k = 0; k < f[t]->n && n < cap; k++)
			n += (size_t)snprintf(out + n, cap - n, "%s;", f[t]->v[k]);
	}
}

/* The class histogram by the size of the change, whichever its sign: in B
 * class Package (3) lost 1000 bytes and class Actor (4) gained 300, and
 * Class (2) did not change: Package first, then Actor, Class left out. */
TEST(diff_class_histogram_by_size_of_change)
{
	diff_side a, b;
	if (side_of("o 11 1 3 - /Game/Big 1100 RootSet\no 12 1 4 10 Small 100 RootSet\n", &a))
		return;
	if (side_of("o 11 1 3 - /Game/Big 100 RootSet\no 12 1 4 10 Small 400 RootSet\n", &b)) {
		diff_side_free(&a);
		return;
	}
	diff_result r;
	group_rows g;
	CHECK(diff_compare(&a, &b, &r) == 0);
	CHECK(diff_group_report(&a, &b, &r, DIFF_BY_CLASS, 20, &g) == 0);
	CHECK(g.n == 2 && g.total == 2 && strcmp(g.v[0].name, "Package") == 0 && strcmp(g.v[1].name, "Actor") == 0);
	group_rows_free(&g);
	CHECK(diff_group_report(&a, &b, &r, DIFF_BY_CLASS, 1, &g) == 0);
	CHECK(g.n == 1 && g.total == 2 && strcmp(g.v[0].name, "Package") == 0);
	group_rows_free(&g);
	diff_result_free(&r);
	diff_side_free(&a);
	diff_side_free(&b);
}

TEST(diff_report_sections)
{
	diff_side a, b;
	if (side_of(A_BODY, &a))
		return;
	if (side_of(B_BODY, &b)) {
		diff_side_free(&a);
		return;
	}
	diff_result r;
	diff_report x;
	CHECK(diff_compare(&a, &b, &r) == 0);
	CHECK(r.same_process && r.added == 5 && r.removed == 1);
	CHECK(diff_report_build(&a, &b, &r, 20, &x) == 0);
	/* the class histogram: the classes that changed, Actor alone (4 -> 8) */
	CHECK(x.classes.n == 1 && x.classes.total == 1 && strcmp(x.classes.v[0].name, "Actor") == 0);
	CHECK(x.classes.v[0].a_count == 4 && x.classes.v[0].b_count == 8 && x.classes.v[0].added == 5 &&
	      x.classes.v[0].removed == 1);
	/* packages and outers: changed groups only */
	CHECK(x.packages.n == 1 && strcmp(x.packages.v[0].name, "/Game/Test") == 0);
	CHECK(x.outers.n == 1 && strcmp(x.outers.v[0].name, "/Game/Test") == 0);
	/* objects of B */
	CHECK(x.garbage_alive.count == 1 && x.garbage_alive.n == 1 && x.garbage_alive.v[0].idx == 14);
	CHECK(x.garbage_alive.n == 1 && strcmp(x.garbage_alive.v[0].name, "Actor /Game/Test.Doomed") == 0);
	CHECK(x.new_roots.count == 1 && x.new_roots.n == 1 && x.new_roots.v[0].idx == 15 &&
	      x.new_roots.v[0].root_kind == RK_ROOTSET);
	/* the reference to Dead is new */
	CHECK(x.new_eliminated.count == 1 && x.new_eliminated.n == 1 &&
	      strcmp(x.new_eliminated.v[0], "Actor /Game/Test.Keeper|Stale|Actor /Game/Test.Dead") == 0);
	CHECK(x.new_disagreements.count == 0 && x.new_disagreements.n == 0);
	CHECK(x.retained.changed >= 1 && x.retained.n == x.retained.changed);
	CHECK(x.a_bytes > 0 && x.b_bytes == x.a_bytes - 100 - 100 + 100 + 200 + 300 + 50 + 40 + 60);
	/* a limit cuts the lists, not the counts */
	diff_report y;
	CHECK(diff_report_build(&a, &b, &r, 1, &y) == 0);
	CHECK(y.classes.n == 1 && y.new_roots.count == 1 && y.retained.changed == x.retained.changed &&
	      y.retained.n == 1);
	diff_report_free(&y);
	CHECK(diff_report_build(&a, &b, &r, 0, &y) == 0);
	CHECK(y.classes.n == 0 && y.garbage_alive.n == 0 && y.garbage_alive.count == 1 && y.new_eliminated.count == 1);
	diff_report_free(&y);
	/* every allocation failed in turn: an error, or the same report */
	static char want[8192], got[8192];
	report_text(&x, want, sizeof want);
	int errors = 0, runs = 0;
	for (long k = 1;; k++) {
		oom_count = 0;
		oom_fail_at = k;
		int rc = diff_report_build(&a, &b, &r, 20, &y);
		oom_fail_at = 0;
		if (oom_count < k) { /* nothing failed: done */
			CHECK(rc == 0);
			if (rc == 0)
				diff_report_free(&y);
			break;
		}
		runs++;
		if (rc) {
			errors++;
			CHECK(y.classes.n == 0 && y.garbage_alive.v == NULL); /* nothing left to free */
			continue;
		}
		report_text(&y, got, sizeof got);
		CHECK_STR(got, want);
		diff_report_free(&y);
	}
	CHECK(runs > 20 && errors > 0);
	diff_report_free(&x);
	diff_result_free(&r);
	diff_side_free(&a);
	diff_side_free(&b);
}

/* Issue #29.3: path names ordered without building them.  Hand-derived:
 * the paths below in byte order, as strcmp has them ('!' 0x21 < '(' 0x28
 * < '/' 0x2F; after "/Game/Test.A": '-' 0x2D < '1' 0x31 < ':' 0x3A < 'B'
 * 0x42, and a string before those it begins), which is not the order of
 * the components ("A:x" would come before "A-b" and "A1" by components).
 * A (11) is under package /Game/Test, so its child takes ':'; the child's
 * own child takes '.'; object 18 is a package named A in /Game/Test: the
 * same path as 11, so the same rank. */
#define RANK_A_BODY \
	"o 11 12 4 10 A 10 -\no 12 13 4 11 x 10 -\no 13 14 4 10 A1 10 -\no 14 15 4 10 A-b 10 -\n" \
	"o 15 16 4 12 y 10 -\no 16 17 3 - !Bang 10 RootSet\no 17 18 3 - (none) 10 RootSet\no 18 19 3 10 A 10 -\n" \
	"o 19 20 4 13 c 10 -\no 20 21 4 14 d 10 -\n"
#define RANK_B_BODY "o 11 12 4 10 AB 10 -\n"

TEST(diff_path_ranks_are_byte_order)
{
	diff_side a, b;
	if (side_of(RANK_A_BODY, &a))
		return;
	if (side_of(RANK_B_BODY, &b)) {
		diff_side_free(&a);
		return;
	}
	/* side (0 A, 1 B, 2 the "(none)" rank) and index, in byte order of
	 * their paths; a row with the same path as the one before has SAME set */
	static const struct { int side; obj_t idx; int same; const char *path; } want[] = {
		{0, 16, 0, "!Bang"}, {0, 17, 0, "(none)"}, {2, 0, 1, "(none)"},
		{0, 10, 0, "/Game/Test"}, {1, 10, 1, "/Game/Test"},
		{0, 11, 0, "/Game/Test.A"}, {0, 18, 1, "/Game/Test.A"},
		{0, 14, 0, "/Game/Test.A-b"}, {0, 20, 0, "/Game/Test.A-b:d"}, {0, 13, 0, "/Game/Test.A1"},
		{0, 19, 0, "/Game/Test.A1:c"}, {0, 12, 0, "/Game/Test.A:x"}, {0, 15, 0, "/Game/Test.A:x.y"},
		{1, 11, 0, "/Game/Test.AB"},
		{0, 0, 0, "/Script/CoreUObject"}, {1, 0, 1, "/Script/CoreUObject"},
		{0, 4, 0, "/Script/CoreUObject.Actor"}, {0, 2, 0, "/Script/CoreUObject.Class"},
		{0, 1, 0, "/Script/CoreUObject.Object"}, {0, 3, 0, "/Script/CoreUObject.Package"},
	};
	uint32_t *ra, *rb, none;
	CHECK(diff_path_ranks(&a, &b, NULL, NULL, &ra, &rb, &none) == 0);
	if (ra) {
		uint32_t prev = 0;
		for (size_t k = 0; k < sizeof want / sizeof *want; k++) {
			const diff_side *s = want[k].side == 1 ? &b : &a;
			int64_t at = want[k].side == 2 ? 0 : diff_find(s, want[k].idx);
			CHECK(at >= 0);
			if (at < 0)
				continue;
			uint32_t rank = want[k].side == 2 ? none : want[k].side ? rb[at] : ra[at];
			if (want[k].side != 2) {
				char *p = diff_path_name(s, (uint32_t)at);
				CHECK(p && strcmp(p, want[k].path) == 0);
				free(p);
			}
			if (k > 0)
				CHECK(want[k].same ? rank == prev : rank > prev);
			prev = rank;
		}
		free(ra);
		free(rb);
	}
	/* only some marked: A's 20 (/Game/Test.A-b:d) and B's 11 (/Game/Test.AB)
	 * are ranked, with their outers (A's 14 and 10, B's 10), in the same
	 * byte order; the others are not */
	uint8_t *na = calloc(a.n + 1, 1), *nb = calloc(b.n + 1, 1);
	int64_t a20 = diff_find(&a, 20), b11 = diff_find(&b, 11), a14 = diff_find(&a, 14), a10 = diff_find(&a, 10);
	int64_t b10 = diff_find(&b, 10), a13 = diff_find(&a, 13);
	CHECK(na && nb && a20 >= 0 && b11 >= 0 && a14 >= 0 && a10 >= 0 && b10 >= 0 && a13 >= 0);
	if (na && nb && a20 >= 0 && b11 >= 0 && a14 >= 0 && a10 >= 0 && b10 >= 0 && a13 >= 0) {
		na[a20] = nb[b11] = 1;
		CHECK(diff_path_ranks(&a, &b, na, nb, &ra, &rb, &none) == 0);
		if (ra) {
			CHECK(ra[a10] == rb[b10] && ra[a10] < ra[a14] && ra[a14] < ra[a20] && ra[a20] < rb[b11]);
			CHECK(none < ra[a10] && ra[a13] == UINT32_MAX);
			free(ra);
			free(rb);
		}
	}
	free(na);
	free(nb);
	/* the outers by churn, then by name in that order: /Game/Test lost
	 * 11, 13, 14 and 18 and got AB (5), no outer lost !Bang and (none)
	 * (2), and A, A-b, A1 and A:x lost one each */
	diff_result r;
	group_rows g;
	CHECK(diff_compare(&a, &b, &r) == 0);
	static const char *const rows[] = {"/Game/Test", "(none)", "/Game/Test.A", "/Game/Test.A-b", "/Game/Test.A1",
					   "/Game/Test.A:x"};
	static const uint64_t churn[] = {5, 2, 1, 1, 1, 1};
	CHECK(diff_group_report(&a, &b, &r, DIFF_BY_OUTER, 20, &g) == 0);
	CHECK(g.n == 6);
	for (size_t k = 0; k < g.n && k < 6; k++) {
		CHECK(g.v[k].name && strcmp(g.v[k].name, rows[k]) == 0);
		CHECK(g.v[k].added + g.v[k].removed == churn[k]);
	}
	group_rows_free(&g);
	CHECK(diff_group_report(&a, &b, &r, DIFF_BY_OUTER, 4, &g) == 0);
	CHECK(g.n == 4 && g.v[3].name && strcmp(g.v[3].name, "/Game/Test.A-b") == 0);
	group_rows_free(&g);
	/* every allocation failed in turn: an error with nothing left, or the same rows */
	int runs = 0, errors = 0;
	for (long k = 1;; k++) {
		oom_count = 0;
		oom_fail_at = k;
		int rc = diff_group_report(&a, &b, &r, DIFF_BY_OUTER, 20, &g);
		oom_fail_at = 0;
		if (oom_count < k) {
			CHECK(rc == 0);
			if (rc == 0)
				group_rows_free(&g);
			break;
		}
		runs++;
		if (rc) {
			errors++;
			CHECK(g.n == 0 && g.v == NULL);
			continue;
		}
		CHECK(g.n == 6 && g.v[5].name && strcmp(g.v[5].name, "/Game/Test.A:x") == 0);
		group_rows_free(&g);
	}
	CHECK(runs > 10 && errors > 0);
	diff_result_free(&r);
	diff_side_free(&a);
	diff_side_free(&b);
}

TEST(diff_retained_sums_by_name)
{
	diff_side a = {0}, b = {0};
	/* X twice in A (two classes of one name), Y only in A, Z only in B */
	CHECK(diff_add_retained(&a, "X", 10) == 0 && diff_add_retained(&a, "Y", 5) == 0 &&
	      diff_add_retained(&a, "X", 1) == 0 && diff_add_retained(&b, "X", 4) == 0 &&
	      diff_add_retained(&b, "Z", 7) == 0 && diff_add_retained(&b, "W", 3) == 0 &&
	      diff_add_retained(&a, "W", 3) == 0);
	diff_retained_rows x;
	CHECK(diff_retained_report(&a, &b, 10, &x) == 0);
	CHECK(x.classes == 4 && x.changed == 3 && x.n == 3);
	if (x.n == 3) { /* the largest change first, ties by name */
		CHECK(strcmp(x.v[0].name, "X") == 0 && x.v[0].a == 11 && x.v[0].b == 4);
		CHECK(strcmp(x.v[1].name, "Z") == 0 && x.v[1].a == 0 && x.v[1].b == 7);
		CHECK(strcmp(x.v[2].name, "Y") == 0 && x.v[2].a == 5 && x.v[2].b == 0);
	}
	diff_retained_rows_free(&x);
	CHECK(diff_retained_report(&a, &b, 2, &x) == 0 && x.n == 2 && x.changed == 3);
	diff_retained_rows_free(&x);
	diff_side_free(&a);
	diff_side_free(&b);
	/* many classes: each side's names once, all matched */
	for (int k = 0; k < 20000; k++) {
		char name[32];
		snprintf(name, sizeof name, "Class_%d", k);
		CHECK(diff_add_retained(&a, name, (uint64_t)k) == 0);
		CHECK(diff_add_retained(&b, name, (uint64_t)k + (k % 3 == 0)) == 0);
	}
	CHECK(diff_retained_report(&a, &b, SIZE_MAX, &x) == 0);
	CHECK(x.classes == 20000 && x.changed == 6667 && x.n == 6667);
	diff_retained_rows_free(&x);
	diff_side_free(&a);
	diff_side_free(&b);
}

/* New facts come in B's order, a repeated one each time, and a fact of A
 * (same holder, property and target by full name) is not new; their text
 * is built for the rows shown.  By hand: A nulls Keeper's Stale reference
 * to Dead_1; B nulls that one, Keeper's two to Dead_2 and Other's to Dead_1. */
TEST(diff_new_facts_keep_b_order)
{
	diff_side a, b, none;
	if (side_of("o 11 12 4 10 Keeper 100 RootSet\no 12 13 4 10 Dead_1 100 Garbage\nr 11 12 strong Stale\n", &a))
		return;
	if (side_of("o 11 12 4 10 Keeper 100 RootSet\no 12 13 4 10 Dead_1 100 Garbage\no 13 14 4 10 Dead_2 100 Garbage\n"
		    "o 14 15 4 10 Other 100 RootSet\nr 11 12 strong Stale\nr 11 13 strong Stale\nr 11 13 strong Stale\n"
		    "r 14 12 strong Stale\n", &b)) {
		diff_side_free(&a);
		return;
	}
	if (side_of("", &none)) {
		diff_side_free(&a);
		diff_side_free(&b);
		return;
	}
	CHECK(a.neliminated == 1 && b.neliminated == 4 && none.neliminated == 0);
	diff_fact_rows x;
	CHECK(diff_new_facts(&a, &b, DIFF_ELIMINATED, 10, &x) == 0);
	CHECK(x.count == 3 && x.n == 3);
	if (x.n == 3) {
		CHECK_STR(x.v[0], "Actor /Game/Test.Keeper|Stale|Actor /Game/Test.Dead_2");
		CHECK_STR(x.v[1], "Actor /Game/Test.Keeper|Stale|Actor /Game/Test.Dead_2");
		CHECK_STR(x.v[2], "Actor /Game/Test.Other|Stale|Actor /Game/Test.Dead_1");
	}
	diff_fact_rows_free(&x);
	CHECK(diff_new_facts(&a, &b, DIFF_ELIMINATED, 1, &x) == 0 && x.count == 3 && x.n == 1);
	diff_fact_rows_free(&x);
	CHECK(diff_new_facts(&none, &b, DIFF_ELIMINATED, 10, &x) == 0 && x.count == 4 && x.n == 4);
	diff_fact_rows_free(&x);
	CHECK(diff_new_facts(&b, &a, DIFF_ELIMINATED, 10, &x) == 0 && x.count == 0 && x.n == 0);
	diff_fact_rows_free(&x);
	CHECK(diff_new_facts(&a, &b, DIFF_DISAGREEMENTS, 10, &x) == 0 && x.count == 0);
	diff_fact_rows_free(&x);
	diff_side_free(&a);
	diff_side_free(&b);
	diff_side_free(&none);
}

TEST(diff_leak_groups_by_generic_chain)
{
	diff_side s[3];
	int loaded = 0;
	const char *bodies[3] = {A_BODY, B_BODY, C_BODY};
	while (loaded < 3 && side_of(bodies[loaded], &s[loaded]) == 0)
		loaded++;
	diff_result ab = {0}, bc = {0};
	diff_leaks l = {0};
	if (loaded == 3 && diff_compare(&s[0], &s[1], &ab) == 0 && diff_compare(&s[1], &s[2], &bc) == 0) {
		CHECK(diff_leak_groups(&s[1], &s[2], &ab, &bc, 20, &l) == 0);
		/* NewRoot, then Leak_1 and Leak_2 (Leak_3 is new in C, Fresh_1
		 * gone, Dead garbage): the most bytes first */
		CHECK(l.groups == 2 && l.n == 2 && l.candidates == 3 && l.bytes == 300);
		if (l.n == 2) {
			CHECK_STR(l.v[0].chain, "Actor /Game/Test.NewRoot");
			CHECK(l.v[0].count == 1 && l.v[0].bytes == 200 && l.v[0].idx == 15);
			CHECK_STR(l.v[1].chain, "Actor /Game/Test.Keeper -> Cache = Actor /Game/Test.Leak_*");
			/* no dominators on these sides: each leaked object is a leak
			 * root retaining its own bytes; the representative retains
			 * the most (Leak_2, 60 bytes) */
			CHECK(l.v[1].count == 2 && l.v[1].roots == 2 && l.v[1].bytes == 100 && l.v[1].retained == 100 &&
			      l.v[1].idx == 19);
			CHECK_STR(l.v[1].name, "Actor /Game/Test.Leak_2");
		}
		/* every allocation failed in turn: an error, or the same groups */
		for (long k = 1;; k++) {
			diff_leaks m;
			oom_count = 0;
			oom_fail_at = k;
			int rc = diff_leak_groups(&s[1], &s[2], &ab, &bc, 20, &m);
			oom_fail_at = 0;
			if (rc == 0) {
				CHECK(m.n == 2 && m.candidates == 3 && l.n == 2 && strcmp(m.v[1].chain, l.v[1].chain) == 0 &&
				      strcmp(m.v[1].name, l.v[1].name) == 0);
				diff_leaks_free(&m);
			} else {
				CHECK(m.n == 0 && m.v == NULL);
			}
			if (oom_count < k)
				break;
		}
		/* limit 0: counted, not listed */
		diff_leaks_free(&l);
		CHECK(diff_leak_groups(&s[1], &s[2], &ab, &bc, 0, &l) == 0 && l.groups == 2 && l.n == 0 && l.candidates == 3);
	} else {
		CHECK(!"sides load and compare");
	}
	diff_leaks_free(&l);
	diff_result_free(&ab);
	diff_result_free(&bc);
	while (loaded-- > 0)
		diff_side_free(&s[loaded]);
}

/* BODY analysed into a side that keeps its gc-policy dominators (leak
 * mode's final side); 0, or -1 after failing the test. */
static int side_with_dominators(const char *body, diff_side *s)
{
	heap h;
	gc_result r;
	findings f = {0};
	dom_result d;
	if (load_heap(body, &h)) {
		CHECK(!"the heap loads");
		return -1;
	}
	int rc = run_gc(&h, MODE_GAME, 1, &r);
	if (rc == 0) {
		rc = findings_collect(&h, &r, &f);
		if (rc == 0 && (rc = dom_compute(&h, &r, POLICY_GC, &d)) == 0) {
			rc = diff_side_from_analysis(&h, &r, &f, &d, s);
			dom_free(&d);
		}
		findings_free(&f);
		gc_result_free(&r);
	}
	heap_free(&h);
	CHECK(rc == 0);
	return rc ? -1 : 0;
}

/* Leak roots, by hand.  In A, Keeper holds Old.  In B (= C) Keeper holds
 * Holder_1 (Cache) and Shared_1 (Other); Holder_1 holds Part_1, Blob_1
 * (of three classes) and Shared_1 too; Part_1 alone now holds Old.  Edges
 * "1001" and "1004" (a V8 Map table's names) lead from Keeper to Entry_1
 * and Entry_2.  Dominators: Keeper -> Holder_1 -> {Part_1 -> Old,
 * Blob_1}; Keeper -> Shared_1 (two paths); Keeper -> Entry_1, Entry_2.
 * Leaked: all but Keeper and Old (A's).  Leak roots: Holder_1 (Part_1 and
 * Blob_1 folded under it), Shared_1, Entry_1 and Entry_2 (the last two one
 * group: their edges are generic).  Holder_1 retains 30 + 20 + 50 + Old's
 * 100 = 200; Keeper retains 100 + 200 + 7 + 9 + 9 = 325. */
#define DOM_A "o 11 12 4 10 Keeper 100 RootSet\no 12 13 1 10 Old 100 -\nr 11 12 strong Old\n"
#define DOM_B \
	"o 11 12 4 10 Keeper 100 RootSet\no 12 13 1 10 Old 100 -\no 20 21 4 10 Holder_1 30 -\n" \
	"o 21 22 1 10 Part_1 20 -\no 22 23 2 10 Blob_1 50 -\no 23 24 1 10 Shared_1 7 -\n" \
	"o 24 25 1 10 Entry_1 9 -\no 25 26 1 10 Entry_2 9 -\n" \
	"r 11 20 strong Cache\nr 11 23 strong Other\nr 20 21 strong Part\nr 20 22 strong Data\n" \
	"r 20 23 strong Also\nr 21 12 strong Ref\nr 11 24 strong 1001\nr 11 25 strong 1004\n"

TEST(diff_leak_groups_fold_under_leak_roots)
{
	diff_side s[2];
	int loaded = side_of(DOM_A, &s[0]) == 0;
	loaded += loaded && side_with_dominators(DOM_B, &s[1]) == 0;
	diff_result ab = {0}, bc = {0};
	diff_leaks l = {0};
	if (loaded == 2 && diff_compare(&s[0], &s[1], &ab) == 0 && diff_compare(&s[1], &s[1], &bc) == 0 &&
	    diff_leak_groups(&s[1], &s[1], &ab, &bc, 20, &l) == 0) {
		CHECK(l.groups == 3 && l.n == 3 && l.candidates == 6 && l.bytes == 30 + 20 + 50 + 7 + 18 && l.roots == 4 &&
		      l.retained == 200 + 7 + 18 && l.system == 0);
		if (l.n == 3) {
			const diff_leak_group *g = &l.v[0];
			CHECK_STR(g->chain, "Actor /Game/Test.Keeper -> Cache = Actor /Game/Test.Holder_*");
			CHECK(g->count == 3 && g->roots == 1 && g->retained == 200 && g->bytes == 100 && g->idx == 20);
			/* one of each class, by name */
			CHECK(g->ntypes == 3);
			if (g->ntypes == 3) {
				CHECK_STR(g->types[0].name, "Actor");
				CHECK_STR(g->types[1].name, "Class");
				CHECK_STR(g->types[2].name, "Object");
				CHECK(g->types[0].count == 1 && g->types[1].count == 1 && g->types[2].count == 1);
			}
			/* the trace: Keeper (a root), then Holder_1 over Cache */
			CHECK(g->ntrace == 2);
			if (g->ntrace == 2) {
				CHECK(g->trace[0].edge == NULL && g->trace[0].idx == 11 && g->trace[0].retained == 325 &&
				      g->trace[0].root_kind == RK_ROOTSET);
				CHECK_STR(g->trace[0].object, "Actor /Game/Test.Keeper");
				CHECK_STR(g->trace[1].edge, "Cache");
				CHECK(g->trace[1].idx == 20 && g->trace[1].retained == 200);
				CHECK_STR(g->trace[1].object, "Actor /Game/Test.Holder_1");
			}
			CHECK_STR(l.v[1].chain, "Actor /Game/Test.Keeper -> [*] = Object /Game/Test.Entry_*");
			CHECK(l.v[1].count == 2 && l.v[1].roots == 2 && l.v[1].retained == 18);
			CHECK_STR(l.v[2].chain, "Actor /Game/Test.Keeper -> Other = Object /Game/Test.Shared_*");
			CHECK(l.v[2].count == 1 && l.v[2].roots == 1 && l.v[2].retained == 7);
			for (size_t k = 0; k < 3; k++) { /* the definition */
				char *def = diff_chain_key(&s[1], l.v[k].pos);
				CHECK(def && strcmp(def, l.v[k].chain) == 0);
				free(def);
			}
		}
		/* every allocation failed in turn: an error, or the same groups */
		for (long k = 1;; k++) {
			diff_leaks m;
			oom_count = 0;
			oom_fail_at = k;
			int rc = diff_leak_groups(&s[1], &s[1], &ab, &bc, 20, &m);
			oom_fail_at = 0;
			if (rc == 0) {
				CHECK(m.n == 3 && m.v[0].retained == 200 && m.v[0].ntrace == 2 && m.v[0].ntypes == 3);
				diff_leaks_free(&m);
			} else {
				CHECK(m.n == 0 && m.v == NULL);
			}
			if (oom_count < k)
				break;
		}
	} else {
		CHECK(!"sides load, compare and group");
	}
	diff_leaks_free(&l);
	diff_result_free(&ab);
	diff_result_free(&bc);
	while (loaded-- > 0)
		diff_side_free(&s[loaded]);
}

/* Ties (same bytes, same count) go by chain text, byte by byte, as
 * strcmp() orders diff_chain_key()'s texts: "Thing" < "Thing (1)" (a
 * prefix) < "Thing -> Ref = ..." ('(' before '-'), though the last goes on
 * from the first.  Leak_1 and Leak_2 share a chain: the largest count. */
#define TIE_A "o 11 12 4 10 Holder 100 RootSet\n"
#define TIE_B \
	TIE_A "o 21 22 4 10 Thing 10 -\no 22 23 4 10 Thing%20(1) 10 -\no 23 24 4 10 Sub 10 -\n" \
	      "o 24 25 4 10 Leak_1 5 -\no 25 26 4 10 Leak_2 5 -\n" \
	      "r 11 21 strong Items\nr 11 22 strong Items\nr 21 23 strong Ref\nr 11 24 strong Cache\nr 11 25 strong Cache\n"

TEST(diff_leak_groups_ties_by_text)
{
	diff_side s[2];
	int loaded = 0;
	const char *bodies[2] = {TIE_A, TIE_B};
	while (loaded < 2 && side_of(bodies[loaded], &s[loaded]) == 0)
		loaded++;
	diff_result ab = {0}, bc = {0};
	diff_leaks l = {0};
	if (loaded == 2 && diff_compare(&s[0], &s[1], &ab) == 0 && diff_compare(&s[1], &s[1], &bc) == 0 &&
	    diff_leak_groups(&s[1], &s[1], &ab, &bc, 20, &l) == 0) {
		static const char *const want[4] = {
			"Actor /Game/Test.Holder -> Cache = Actor /Game/Test.Leak_*",
			"Actor /Game/Test.Holder -> Items = Actor /Game/Test.Thing",
			"Actor /Game/Test.Holder -> Items = Actor /Game/Test.Thing (1)",
			"Actor /Game/Test.Holder -> Items = Actor /Game/Test.Thing -> Ref = Actor /Game/Test.Sub",
		};
		CHECK(l.groups == 4 && l.n == 4 && l.candidates == 5 && l.bytes == 40);
		for (size_t g = 0; g < l.n && g < 4; g++) {
			CHECK_STR(l.v[g].chain, want[g]);
			/* the definition: the representative's chain written out */
			char *def = diff_chain_key(&s[1], l.v[g].pos);
			CHECK(def && strcmp(def, l.v[g].chain) == 0);
			free(def);
		}
		CHECK(l.n == 4 && l.v[0].count == 2 && l.v[0].bytes == 10 && l.v[3].count == 1);
		diff_leaks_free(&l);
		/* limit 1: the same first group; the others counted, not written */
		CHECK(diff_leak_groups(&s[1], &s[1], &ab, &bc, 1, &l) == 0 && l.groups == 4 && l.n == 1 &&
		      l.v[0].chain && strcmp(l.v[0].chain, want[0]) == 0 && l.v[1].chain == NULL);
	} else {
		CHECK(!"sides load, compare and group");
	}
	diff_leaks_free(&l);
	diff_result_free(&ab);
	diff_result_free(&bc);
	while (loaded-- > 0)
		diff_side_free(&s[loaded]);
}

/* ---- the command ---- */

static char tmp_dir[64];

static const char *tmp_path(const char *name)
{
	return test_dir_path(tmp_dir, sizeof tmp_dir, "/tmp/ugc-test-diff-XXXXXX", name);
}

static int write_heap(const char *name, const char *body, char *path, size_t cap)
{
	snprintf(path, cap, "%s", tmp_path(name));
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(PRELUDE, f);
	fputs(body, f);
	return fclose(f);
}

/* Run `diff ARGS` with stdout and stderr into files; the exit status. */
static int run_diff(int argc, char **argv, char *out, size_t outcap, char *err, size_t errcap)
{
	char po[256], pe[256];
	snprintf(po, sizeof po, "%s", tmp_path("out.txt"));
	snprintf(pe, sizeof pe, "%s", tmp_path("err.txt"));
	fflush(stdout);
	fflush(stderr);
	int so = dup(1), se = dup(2);
	int fo = open(po, O_WRONLY | O_CREAT | O_TRUNC, 0600), fe = open(pe, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(fo, 1);
	dup2(fe, 2);
	close(fo);
	close(fe);
	int rc = cmd_diff(argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(so, 1);
	dup2(se, 2);
	close(so);
	close(se);
	const char *paths[2] = {po, pe};
	char *bufs[2] = {out, err};
	size_t caps[2] = {outcap, errcap};
	for (int k = 0; k < 2; k++) {
		FILE *f = fopen(paths[k], "r");
		size_t n = f ? fread(bufs[k], 1, caps[k] - 1, f) : 0;
		bufs[k][n] = '\0';
		if (f)
			fclose(f);
	}
	return rc;
}

/* GOT is WANT, but for lines where a name could not be put in display
 * form (cli/util.c's disp() prints "?" when its own copy fails). */
static int same_but_unshown(const char *got, const char *want)
{
	while (*got && *want) {
		size_t g = strcspn(got, "\n"), w = strcspn(want, "\n");
		if ((g != w || memcmp(got, want, g) != 0) && !memchr(got, '?', g)) {
			printf("    got:  %.*s\n    want: %.*s\n", (int)g, got, (int)w, want);
			return 0;
		}
		got += g + (got[g] != '\0');
		want += w + (want[w] != '\0');
	}
	return *got == *want;
}

TEST(diff_command_out_of_memory_is_one_line_and_exit_1)
{
	char pa[256], pb[256], pc[256];
	CHECK(write_heap("a.ugct", A_BODY, pa, sizeof pa) == 0 && write_heap("b.ugct", B_BODY, pb, sizeof pb) == 0 &&
	      write_heap("c.ugct", C_BODY, pc, sizeof pc) == 0);
	static char want[16384], out[16384], err[4096];
	char *two[] = {"diff", pa, pb, "--format", "json", NULL};
	char *leak[] = {"diff", "--baseline", pa, "--target", pb, "--final", pc, "--format", "csv", NULL};
	struct { char **argv; int argc; } runs[2] = {{two, 5}, {leak, 9}};
	for (int t = 0; t < 2; t++) {
		CHECK(run_diff(runs[t].argc, runs[t].argv, want, sizeof want, err, sizeof err) == 0);
		CHECK(err[0] == '\0');
		/* the sides load on two threads, so which allocation is which
		 * varies there; each one failed gives an error or the answer */
		int errors = 0;
		for (long k = 1;; k++) {
			oom_count = 0;
			oom_fail_at = k;
			int rc = run_diff(runs[t].argc, runs[t].argv, out, sizeof out, err, sizeof err);
			oom_fail_at = 0;
			if (oom_count < k)
				break;
			if (rc == 0) {
				CHECK(same_but_unshown(out, want));
				continue;
			}
			errors++;
			CHECK(rc == 1);
			/* one line, and the report not begun */
			CHECK(strncmp(err, "ugc-analyze: ", 13) == 0 && strchr(err, '\n') == err + strlen(err) - 1);
			CHECK(out[0] == '\0');
		}
		CHECK(errors > 0);
	}
	static const char *const names[] = {"a.ugct", "b.ugct", "c.ugct", "out.txt", "err.txt"};
	for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
		unlink(tmp_path(names[k]));
	rmdir(tmp_dir);
}
