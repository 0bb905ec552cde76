/* test_oom.c — the OOM policy: library code returns errors and never leaks
 * on them.  A small heap goes through load, GC, findings, the database
 * store, and a query over the database and over the snapshot, with every
 * allocation failed in turn (oom_wrap.c; SQLite's sampled): each run must
 * either fail with an error or give the same answer as the run without
 * failures.  A crash fails the suite; under ASan/LSan so does a leak. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/findings.h"
#include "tests/oom_wrap.h"
#include "analysis/query.h"
#include "sql/input.h"
#include "snapshot/snapshot.h"
#include "sql/store.h"
#include "tests/unit.h"
#include "sql/view_db.h"

/* The retention chains of /Game/Test.Arena:Keeper from view V, as a string
 * of node lists ("a b c;d e;" ...) into OUT; 0, or -1 with ERR. */
static int answer(view *v, char *out, size_t cap, char *err, size_t errsize)
{
	obj_t x;
	int rc = query_select(v, "/Game/Test.Arena:Keeper", &x, err, errsize);
	if (rc < 0) /* an error: the view says which */
		snprintf(err, errsize, "%s", v->err);
	if (rc)
		return -1;
	chains c = {0};
	if (query_chains(v, x, 1, 10, 0, 0, &c)) {
		snprintf(err, errsize, "%s", v->err);
		chains_free(&c);
		return -1;
	}
	size_t n = 0;
	out[0] = '\0';
	for (size_t k = 0; k < c.n; k++) {
		for (size_t j = 0; j < c.v[k].n; j++)
			n += (size_t)snprintf(out + n, n < cap ? cap - n : 0, "%d ", c.v[k].nodes[j]);
		n += (size_t)snprintf(out + n, n < cap ? cap - n : 0, ";");
	}
	chains_free(&c);
	return 0;
}

/* Load SNAP, run the GC, collect findings, store DB, and answer from the
 * database and from the heap.  0 with both answers, or the step that failed. */
static char last_err[SNAP_ERR_MAX]; /* the failed step's message */

static int run_pipeline(const char *snap, const char *db, char *from_db, char *from_heap, size_t cap)
{
	heap h;
	gc_result r;
	findings f;
	char *err = last_err;
	const size_t errsize = sizeof last_err;
	int step = 1;
	err[0] = '\0';
	if (snapshot_load(snap, &h, err, errsize))
		return step;
	gc_options o = {.mode = h.mode, .keep_flags = gc_default_keep_flags(h.mode), .threads = 1};
	step++;
	if (gc_run(&h, &o, &r)) { /* -1 means out of memory (gc.h) */
		snprintf(err, errsize, "out of memory");
		goto no_result;
	}
	step++;
	if (findings_collect(&h, &r, &f)) { /* the same (findings.h) */
		snprintf(err, errsize, "out of memory");
		goto no_findings;
	}
	step++;
	store_info info = {snap, &o, 0, NULL, STORE_AUTO, 0, 0};
	if (store_write(db, 1, &h, &r, &f, &info, err, errsize))
		goto out;
	step++;
	view *v = view_db_open(db, err, errsize);
	if (!v)
		goto out;
	int rc = answer(v, from_db, cap, err, errsize);
	v->ops->close(v);
	if (rc)
		goto out;
	step++;
	v = view_heap_borrow(&h, &r, err, errsize);
	if (!v)
		goto out;
	rc = answer(v, from_heap, cap, err, errsize);
	v->ops->close(v);
	if (rc)
		goto out;
	step = 0;
out:
	findings_free(&f);
no_findings:
	gc_result_free(&r);
no_result:
	heap_free(&h);
	return step;
}

static const char small_heap[] = PRELUDE
	"o 11 1 4 10 Arena 100 RF_Public\no 12 1 4 11 Keeper 10 -\no 13 1 4 11 Lost 10 -\n"
	"o 14 1 4 11 Member 10 -\no 15 1 4 11 Doomed 10 Garbage\n"
	"r 10 11 strong World\nr 11 12 strong Keeper\nr 14 12 weak Weak\nr 12 15 strong Stale\n"
	"r 10 12 strong Direct\nr 10 13 strong Other\nr 13 12 strong Via\n"
	"r 13 99 strong Dangling\ng FHolder 14 Held\nc 11 14 14 -\n";

/* Fail allocation k for k = 1, 1 + STRIDE, ... until a run makes fewer than
 * k: our own (SQLITE 0) or SQLite's (SQLITE 1). */
static void sweep(const char *snap, const char *db, int sqlite, long stride, long *runs, long *failed_runs)
{
	char want_db[512], want_heap[512], got_db[512], got_heap[512];
	atomic_long *fail_at = sqlite ? &oom_sqlite_fail_at : &oom_fail_at;
	atomic_long *count = sqlite ? &oom_sqlite_count : &oom_count;
	oom_fail_at = oom_sqlite_fail_at = 0;
	int step = run_pipeline(snap, db, want_db, want_heap, sizeof want_db);
	CHECK(step == 0);
	CHECK(strcmp(want_db, want_heap) == 0 && strchr(want_db, ';') != NULL);
	for (long k = 1;; k += stride) {
		*count = 0;
		*fail_at = k;
		step = run_pipeline(snap, db, got_db, got_heap, sizeof got_db);
		long made = *count;
		*fail_at = 0;
		if (made < k) { /* nothing failed: the sweep is done */
			CHECK(step == 0);
			break;
		}
		(*runs)++;
		if (step) {
			(*failed_runs)++;
			/* the policy: an allocation failure is reported as one "out of memory" line */
			if (!strstr(last_err, "out of memory") || strchr(last_err, '\n')) {
				printf("    %s allocation %ld: step %d says '%s'\n", sqlite ? "SQLite" : "our", k, step, last_err);
				CHECK(0);
			}
		}
		else if (strcmp(got_db, want_db) != 0 || strcmp(got_heap, want_heap) != 0) {
			/* an allocation failed but the run claims success: it must not have lost anything */
			printf("    %s allocation %ld failed silently: '%s' / '%s'\n", sqlite ? "SQLite" : "our", k, got_db,
			       got_heap);
			CHECK(0);
			break;
		}
	}
}

TEST(oom_every_allocation_fails_cleanly)
{
	char snap[64], bin[64], db[64];
	snprintf(snap, sizeof snap, "/tmp/ugc-oom-%ld.ugct", (long)getpid());
	snprintf(bin, sizeof bin, "/tmp/ugc-oom-%ld.ugcs", (long)getpid());
	snprintf(db, sizeof db, "/tmp/ugc-oom-%ld.db", (long)getpid());
	FILE *f = fopen(snap, "w");
	CHECK(f && fputs(small_heap, f) >= 0);
	if (f)
		fclose(f);
	heap h;
	char err[SNAP_ERR_MAX];
	CHECK(snapshot_load(snap, &h, err, sizeof err) == 0);
	CHECK(snapshot_save(bin, &h, 1, err, sizeof err) == 0);
	heap_free(&h);
	long runs = 0, failed = 0;
	/* every allocation of ours (about 140 a run), every 101st of SQLite's (about 10,000) */
	for (int sqlite = 0; sqlite < 2; sqlite++) {
		sweep(snap, db, sqlite, sqlite ? 101 : 1, &runs, &failed);
		sweep(bin, db, sqlite, sqlite ? 101 : 1, &runs, &failed);
	}
	printf("    %ld runs with one allocation failed, %ld of them ended in an error\n", runs, failed);
	CHECK(runs > 400 && failed > 0);
	unlink(snap);
	unlink(bin);
	unlink(db);
}

#define V8_SMALL "testdata/v8/node-small.heapsnapshot.zst"

/* The options the retention commands open their input with. */
static pipeline_options retention_options(void)
{
	pipeline_options o = PIPELINE_OPTIONS_INIT;
	o.defer_retention = 1;
	return o;
}

/* The retention commands' input on a V8 snapshot opened for WHAT, with an
 * allocation failed in turn (each of the first 150, then one in 40): every
 * run either fails with an "out of memory" reason or opens whole and
 * closes; never a crash, and under the sanitizers never a leak nor a lost
 * join. */
static void sweep_retention_input(int what)
{
	const char *path = V8_SMALL;
	input in;
	char err[1024];
	pipeline_options o = retention_options();
	oom_count = 0;
	CHECK(input_open(&in, path, what, &o, err, sizeof err) == 0);
	long total = oom_count;
	input_close(&in);
	int runs = 0, failed = 0, said = 0;
	for (long k = 1; k <= total; k += k < 150 ? 1 : 40) {
		oom_count = 0;
		oom_fail_at = k;
		o.objects_only = k % 2;
		err[0] = '\0';
		int rc = input_open(&in, path, what, &o, err, sizeof err);
		oom_fail_at = 0;
		runs++;
		if (rc == 0) {
			input_close(&in);
		} else {
			failed++;
			said += strstr(err, "out of memory") != NULL;
		}
	}
	CHECK(total > 150 && failed > 0 && runs >= 150 && said == failed);
}

/* The GC on a thread beside the dominators (analysis/pipeline.c). */
TEST(oom_retention_input_with_the_gc_beside)
{
	sweep_retention_input(PIPE_GC | PIPE_DOM);
}

/* The dominators during the load, beside the loader's names on a thread
 * of their own (as top opens it). */
TEST(oom_retention_input_with_the_dominators_in_the_load)
{
	sweep_retention_input(PIPE_DOM);
}

/* The same input opened without the GC (as top opens it): the view's first
 * state() runs it, and with an allocation failed in turn there, every call
 * either fails with an "out of memory" reason or answers as without
 * failures. */
TEST(oom_gc_deferred_to_the_view)
{
	const char *path = V8_SMALL;
	input in;
	char err[1024];
	pipeline_options o = retention_options();
	obj_state want, got;
	CHECK(input_open(&in, path, PIPE_DOM, &o, err, sizeof err) == 0);
	if (!in.v)
		return;
	obj_t x = (obj_t)in.v->first_gc_index + 1;
	oom_count = 0;
	CHECK(in.v->ops->state(in.v, x, &want) == 0 && want.reachable == 1);
	long total = oom_count;
	input_close(&in);
	int runs = 0, failed = 0, said = 0, same = 0;
	for (long k = 1; k <= total; k += k < 150 ? 1 : 40) {
		if (input_open(&in, path, PIPE_DOM, &o, err, sizeof err))
			break;
		oom_count = 0;
		oom_fail_at = k;
		int rc = in.v->ops->state(in.v, x, &got);
		oom_fail_at = 0;
		runs++;
		if (rc == 0) {
			same += got.reachable == want.reachable && got.distance == want.distance &&
				got.parent == want.parent && got.root_kind == want.root_kind;
		} else {
			failed++;
			said += strstr(in.v->err, "out of memory") != NULL;
		}
		input_close(&in);
	}
	CHECK(total > 150 && failed > 0 && runs > 150 && said == failed && same == runs - failed);
}

/* The same edges in the same order: holder, target, type, kind and property. */
static int same_edges(const edges *a, const edges *b)
{
	if (a->n != b->n)
		return 0;
	for (size_t k = 0; k < a->n; k++) {
		const edge *x = &a->v[k], *y = &b->v[k];
		if (x->src != y->src || x->dst != y->dst || x->type != y->type || x->kind != y->kind ||
		    strcmp(x->prop ? x->prop : "", y->prop ? y->prop : "") != 0)
			return 0;
	}
	return 1;
}

/* Fail each allocation of a first incoming() on a view borrowing H in
 * turn; the same view asked again answers in full, and once closed has
 * left H's indexes as it found them (HAD: H's own were built).  The
 * number of views whose first call failed. */
static int sweep_incoming(heap *h, gc_result *r, obj_t x, const edges *want, int had)
{
	char err[256];
	view *v = view_heap_borrow(h, r, err, sizeof err);
	oom_count = 0;
	edges first = {0};
	CHECK(v && v->ops->incoming(v, x, &first) == 0 && same_edges(&first, want));
	long total = oom_count;
	edges_free(&first);
	if (v)
		v->ops->close(v);
	int failed = 0;
	for (long k = 1; k <= total; k++) {
		v = view_heap_borrow(h, r, err, sizeof err);
		if (!v) {
			CHECK(0);
			break;
		}
		edges got = {0}, again = {0};
		oom_count = 0;
		oom_fail_at = k;
		int rc = v->ops->incoming(v, x, &got);
		oom_fail_at = 0;
		failed += rc != 0;
		CHECK(rc != 0 || same_edges(&got, want));
		CHECK(v->ops->incoming(v, x, &again) == 0 && same_edges(&again, want));
		edges_free(&got);
		edges_free(&again);
		v->ops->close(v);
		CHECK((h->rev_start != NULL) == had && (h->child_start != NULL) == had);
	}
	return failed;
}

/* A view's indexes (rows by target, children, instances) with each
 * allocation of the first incoming() failed in turn: that call fails or
 * answers in full, and the next one on the same view answers in full (a
 * failed build leaves nothing half made behind). */
TEST(oom_view_indexes_retry_after_a_failure)
{
	heap h;
	gc_result r;
	char err[256];
	if (parse_text(small_heap, &h, err, sizeof err)) {
		printf("    %s\n", err);
		CHECK(0);
		return;
	}
	CHECK(run_gc(&h, MODE_GAME, 1, &r) == 0);
	obj_t x = 4; /* Actor: the class of 11-15 (instances), a native */
	edges want = {0};
	view *v = view_heap_borrow(&h, &r, err, sizeof err);
	CHECK(v && v->ops->incoming(v, x, &want) == 0 && want.n >= 5);
	if (v)
		v->ops->close(v);
	/* the view builds the heap's reverse rows and children, then its
	 * instances; then, the heap's own built, the instances alone (where a
	 * failure once left them half made for the retry to read) */
	CHECK(sweep_incoming(&h, &r, x, &want, 0) > 3);
	CHECK(heap_build_reverse(&h) == 0 && heap_build_children(&h) == 0);
	CHECK(sweep_incoming(&h, &r, x, &want, 1) >= 2);
	edges_free(&want);
	gc_result_free(&r);
	heap_free(&h);
}
