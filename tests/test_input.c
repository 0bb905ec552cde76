/* test_input.c — a command's input (sql/input.h) opened without the GC: on
 * a V8 snapshot, whose dominators need no GC result, the retention
 * commands that only name objects (top, dominators) never run it; the
 * view runs it the first time a call reads its result, and every answer is
 * the one of an input opened with it. */
#include <stdlib.h>
#include <string.h>

#include "sql/input.h"
#include "tests/unit.h"

#define V8_SMALL "testdata/v8/node-small.heapsnapshot.zst"

TEST(input_without_the_gc_runs_it_on_first_need)
{
	input a, b;
	char err[1024];
	pipeline_options o = PIPELINE_OPTIONS_INIT;
	o.defer_retention = 1;
	CHECK(input_open(&a, V8_SMALL, PIPE_DOM, &o, err, sizeof err) == 0);
	CHECK(input_open(&b, V8_SMALL, PIPE_GC | PIPE_DOM, &o, err, sizeof err) == 0);
	if (!a.v || !b.v)
		return;
	CHECK(!(a.p->done & PIPE_GC) && (b.p->done & PIPE_GC));
	/* the dominators computed without the GC are those computed beside it */
	uint32_t slots = a.d.slots, same_dom = 0, named = 0, unknown = 0;
	CHECK(slots == b.d.slots && slots > 1000);
	for (uint32_t i = 0; i < slots; i++)
		same_dom += a.d.idom[i] == b.d.idom[i] && a.d.retained[i] == b.d.retained[i];
	CHECK(same_dom == slots);
	CHECK(a.d.reached == b.d.reached && a.d.reached_bytes == b.d.reached_bytes);
	/* naming objects needs no GC: reachable is unknown meanwhile */
	for (uint32_t i = 0; i < slots; i++) {
		obj_info x;
		if (a.v->ops->describe(a.v, (obj_t)i, &x) == 0) {
			named++;
			unknown += x.reachable == -1;
			obj_info_free(&x);
		}
	}
	CHECK(named > 1000 && unknown == named && !(a.p->done & PIPE_GC));
	/* the first state() runs it; every state is then the other input's */
	uint32_t states = 0, same_state = 0;
	for (uint32_t i = 0; i < slots; i++) {
		obj_state x, y;
		int ra = a.v->ops->state(a.v, (obj_t)i, &x), rb = b.v->ops->state(b.v, (obj_t)i, &y);
		if (ra != 0 || rb != 0) {
			same_state += ra == rb;
			continue;
		}
		states++;
		same_state += x.reachable == y.reachable && x.distance == y.distance && x.root_kind == y.root_kind &&
			      x.parent == y.parent && x.garbage == y.garbage;
	}
	CHECK((a.p->done & PIPE_GC) && states == named && same_state == slots);
	/* and naming now says what the GC found */
	uint32_t reachable_same = 0;
	for (uint32_t i = 0; i < slots; i++) {
		obj_info x, y;
		if (a.v->ops->describe(a.v, (obj_t)i, &x) == 0 && b.v->ops->describe(b.v, (obj_t)i, &y) == 0) {
			reachable_same += x.reachable == y.reachable && x.reachable != -1;
			obj_info_free(&y);
		}
		obj_info_free(&x);
	}
	CHECK(reachable_same == named);
	input_close(&a);
	input_close(&b);
}

/* The dominators of a V8 snapshot computed during its load, beside the
 * loader's names (pipeline_load_for), are those computed after it, with the
 * GC or without; a heap whose loader has no hook, or a run allowed one
 * thread, computes nothing early. */
static int same_dominators(const dom_result *a, const dom_result *b)
{
	if (a->slots != b->slots || a->reached != b->reached || a->reached_bytes != b->reached_bytes ||
	    a->nclasses != b->nclasses || a->npackages != b->npackages)
		return 0;
	for (uint32_t i = 0; i < a->slots; i++)
		if (a->idom[i] != b->idom[i] || a->retained[i] != b->retained[i])
			return 0;
	for (uint32_t k = 0; k < a->nclasses; k++)
		if (a->classes[k].key != b->classes[k].key || a->classes[k].retained != b->classes[k].retained)
			return 0;
	return 1;
}

TEST(pipeline_dominators_during_the_load_are_those_after_it)
{
	pipeline early, after, with_gc, one, text;
	char err[1024];
	CHECK(pipeline_load_for(&early, V8_SMALL, NULL, PIPE_DOM, err, sizeof err) == 0);
	CHECK(early.early == PIPE_DOM && (early.done & PIPE_DOM) && !(early.done & PIPE_GC));
	CHECK(pipeline_load(&after, V8_SMALL, NULL, err, sizeof err) == 0 && after.early == 0 &&
	      !(after.done & PIPE_DOM));
	CHECK(pipeline_need(&after, PIPE_DOM, err, sizeof err) == 0);
	CHECK(pipeline_load_for(&with_gc, V8_SMALL, NULL, PIPE_GC | PIPE_DOM, err, sizeof err) == 0 &&
	      with_gc.early == 0);
	CHECK(pipeline_need(&with_gc, PIPE_GC | PIPE_DOM, err, sizeof err) == 0);
	CHECK(early.dom.slots > 1000 && early.dom.nclasses > 10);
	CHECK(same_dominators(&early.dom, &after.dom));
	CHECK(same_dominators(&early.dom, &with_gc.dom));
	/* the names came in after: every node's name is the database's form */
	uint32_t named = 0;
	for (uint32_t i = (uint32_t)early.h.first_gc_index; i < early.h.slots; i++)
		named += early.h.name_num[i] != 0 && early.h.name[i] == after.h.name[i];
	CHECK(named == early.h.slots - early.h.first_gc_index);
	CHECK(early.h.nrefs == after.h.nrefs && early.h.ref_prop &&
	      memcmp(early.h.ref_prop, after.h.ref_prop, early.h.nrefs * sizeof *early.h.ref_prop) == 0);
	pipeline_options o = PIPELINE_OPTIONS_INIT;
	o.threads = 1;
	CHECK(pipeline_load_for(&one, V8_SMALL, &o, PIPE_DOM, err, sizeof err) == 0 && one.early == 0 &&
	      !(one.done & PIPE_DOM));
	CHECK(pipeline_load_for(&text, "testdata/chains.ugct", NULL, PIPE_DOM, err, sizeof err) == 0 &&
	      text.early == 0 && !(text.done & PIPE_DOM));
	pipeline_free(&early);
	pipeline_free(&after);
	pipeline_free(&with_gc);
	pipeline_free(&one);
	pipeline_free(&text);
}
