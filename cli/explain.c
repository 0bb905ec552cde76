/* explain.c — what path and why share: an object's root reason, why an
 * unreachable object is not kept, an object as JSON, and the parsing and
 * selection loop of the two commands. */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

const char *root_reason(int kind)
{
	switch (kind) {
	case RK_DISREGARD: return "in the disregard pool (below first-gc-index): never collected";
	case RK_ROOTSET: return "in the RootSet (AddToRoot)";
	case RK_REFCOUNTED: return "RefCounted: held by a TStrongObjectPtr";
	case RK_INTERNAL_KEEP: return "kept by an internal flag (Native, Async, AsyncLoadingPhase1, AsyncLoadingPhase2 or LoaderImport)";
	case RK_KEEPFLAGS: return "kept by the GC's KeepFlags (RF_Standalone in editor mode)";
	case RK_GCOBJECT: return "referenced by an FGCObject";
	case RK_CLUSTER: return "kept by its cluster";
	case RK_REFERENCED: return "not a root: kept by the references of its chain below";
	}
	return "unreachable";
}

const char *v8_root_reason(int kind)
{
	switch (kind) {
	case RK_ROOTSET: return "the snapshot's root (node 0, V8's synthetic root)";
	case RK_DISREGARD: return "a constructor object the tool adds (below first-gc-index), not a V8 node";
	case RK_REFERENCED: return "retained from the root through the retainer path below";
	}
	return root_reason(kind);
}

/* Why is X (unreachable) not kept: each referencer and why it does not count. */
int explain_unreachable(view *v, obj_t x, enum out_format fmt)
{
	edges in = {0};
	if (v->ops->incoming(v, x, &in)) {
		edges_free(&in);
		return error("%s", v->err);
	}
	obj_info me;
	if (v->ops->object(v, x, &me)) {
		edges_free(&in);
		return error("%s", v->err);
	}
	size_t shown = 0;
	for (size_t k = 0; k < in.n && shown < 50; k++) {
		const edge *e = &in.v[k];
		char why[256];
		obj_info s;
		int have = e->src != OBJ_NONE && v->ops->object(v, e->src, &s) == 0;
		if (e->type == EDGE_REF && (e->kind == REF_WEAK || e->kind == REF_SOFT))
			snprintf(why, sizeof why, "%s reference: does not keep it alive", e->kind == REF_WEAK ? "weak" : "soft");
		else if ((e->type == EDGE_GC || e->kind == REF_STRONG || e->kind == REF_ARO) && me.garbage)
			snprintf(why, sizeof why, "eliminated: it is garbage, the GC nulls this reference");
		else if (have && !s.reachable)
			snprintf(why, sizeof why, "the referencer is unreachable too");
		else if (have && s.root_kind == RK_DISREGARD)
			snprintf(why, sizeof why, "the referencer is in the disregard pool, which is never traced");
		else if (have && s.cluster != OBJ_NONE)
			snprintf(why, sizeof why, "the referencer is in cluster #%d: the GC does not trace cluster members, and no "
				 "cluster list it acted on names this object", s.cluster);
		else
			snprintf(why, sizeof why, "the referencer is not traced");
		if (fmt == FMT_TEXT) {
			if (e->src == OBJ_NONE)
				printf("  FGCObject %s %s: %s\n", e->referencer, e->prop, why);
			else
				printf("  #%d %s %s %s (%s): %s\n", e->src, have ? s.class_name : "?", have ? s.path : "?", e->prop,
				       edge_kind_name(e), why);
		}
		if (have)
			obj_info_free(&s);
		shown++;
	}
	if (fmt == FMT_TEXT && in.n == 0)
		printf("  nothing references it\n");
	if (fmt == FMT_TEXT && in.n > shown)
		printf("  (and %s more referencer%s)\n", count_text(in.n - shown), plural_s(in.n - shown));
	obj_info_free(&me);
	edges_free(&in);
	return 0;
}

void print_object_json(const obj_info *o)
{
	printf("{\"idx\":%d,\"class\":", o->idx);
	json_str(stdout, o->class_name);
	printf(",\"path\":");
	json_str(stdout, o->path);
	json_node_id(stdout, o);
	printf(",\"flags\":");
	json_str(stdout, o->flags);
	printf(",\"size\":%u,\"garbage\":%s,\"reachable\":%s,\"root_kind\":", o->size, o->garbage ? "true" : "false",
	       o->reachable ? "true" : "false");
	if (o->root_kind == RK_NONE)
		printf("null");
	else
		json_str(stdout, root_kind_names[o->root_kind]);
	printf(",\"distance\":");
	if (o->distance == UINT32_MAX)
		printf("null");
	else
		printf("%u", o->distance);
	printf(",\"cluster\":");
	if (o->cluster == OBJ_NONE)
		printf("null");
	else
		printf("%d", o->cluster);
	printf("}");
}

int query_parse(const command *cmd, int argc, char **argv, query_args *q)
{
	const char *operands[2] = {NULL, NULL};
	int n = parse_options(cmd, argc, argv, q, operands);
	if (n < 0)
		return OPT_EXIT_STATUS(n);
	q->input = operands[0];
	q->sel = operands[1];
	return -1;
}

int for_selected(const char *cmd, const query_args *q, enum out_format fmt, const char *csv_header, one_fn one,
			void *ctx)
{
	if (selection_usage(cmd, q->input, q->sel, q->glob, q->cls))
		return 2;
	view *v = open_input(q->input);
	if (!v)
		return 1;
	obj_t *objs;
	size_t n;
	int rc = select_objects(v, q->sel, q->glob, q->cls, &objs, &n);
	if (rc == 0 && fmt == FMT_JSON) {
		json_begin(cmd);
		printf(",\"objects\":[");
	}
	if (rc == 0 && fmt == FMT_CSV)
		printf("%s\n", csv_header);
	for (size_t k = 0; k < n && rc == 0; k++)
		rc = one(v, objs[k], k == 0, ctx);
	if (rc == 0 && fmt == FMT_JSON) {
		printf("]");
		json_end();
	}
	free(objs);
	close_input(v);
	return rc;
}

