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
