/* cmd_path.c — `ugc-analyze path` (retention chains, in the engine's
 * reference-chain layout, JSON or Graphviz) and `ugc-analyze why` (one
 * screen that explains an object).  Both take a snapshot or a database. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "dominators.h"
#include "query.h"

static const char *root_reason(int kind)
{
	switch (kind) {
	case RK_DISREGARD: return "in the disregard pool (below first-gc-index): never collected";
	case RK_ROOTSET: return "in the RootSet (AddToRoot)";
	case RK_REFCOUNTED: return "RefCounted: held by a TStrongObjectPtr";
	case RK_INTERNAL_KEEP: return "kept by an internal flag (Native, Async, AsyncLoading or LoaderImport)";
	case RK_KEEPFLAGS: return "kept by the GC's KeepFlags (RF_Standalone in editor mode)";
	case RK_GCOBJECT: return "referenced by an FGCObject";
	case RK_CLUSTER: return "kept by its cluster";
	case RK_REFERENCED: return "referenced";
	}
	return "unreachable";
}

/* Why is X (unreachable) not kept: each referencer and why it does not count. */
static int explain_unreachable(view *v, obj_t x, enum out_format fmt)
{
	edges in = {0}, elim = {0};
	if (v->incoming(v, x, &in) || v->eliminated_to(v, x, &elim)) {
		edges_free(&in);
		edges_free(&elim);
		return die("%s", v->err);
	}
	obj_info me;
	if (v->object(v, x, &me)) {
		edges_free(&in);
		edges_free(&elim);
		return die("%s", v->err);
	}
	size_t shown = 0;
	for (size_t k = 0; k < in.n && shown < 50; k++) {
		const edge *e = &in.v[k];
		char why[256];
		obj_info s;
		int have = e->src != OBJ_NONE && v->object(v, e->src, &s) == 0;
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
		printf("  (and %zu more referencers)\n", in.n - shown);
	obj_info_free(&me);
	edges_free(&in);
	edges_free(&elim);
	return 0;
}

static void print_object_json(const obj_info *o)
{
	printf("{\"idx\":%d,\"class\":", o->idx);
	json_str(stdout, o->class_name);
	printf(",\"path\":");
	json_str(stdout, o->path);
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

static void print_chains_csv(view *v, const chains *cs)
{
	for (size_t c = 0; c < cs->n; c++) {
		const chain *ch = &cs->v[c];
		if (ch->gc_root) {
			printf("%zu,0,,gcobject,", c + 1);
			csv_str(stdout, ch->gc_edge.prop);
			printf(",%d,", ch->nodes[0]);
			csv_str(stdout, ch->gc_edge.referencer);
			putchar('\n');
		}
		for (size_t k = 0; k + 1 < ch->n; k++) {
			obj_info o;
			printf("%zu,%zu,%d,%s,", c + 1, k + 1, ch->nodes[k], edge_kind_name(&ch->hops[k]));
			csv_str(stdout, ch->hops[k].prop);
			printf(",%d,", ch->nodes[k + 1]);
			if (v->object(v, ch->nodes[k + 1], &o) == 0) {
				csv_str(stdout, o.path);
				obj_info_free(&o);
			}
			putchar('\n');
		}
	}
}

enum path_mode { PM_SHORTEST, PM_ROOTS, PM_ALL, PM_DIRECT };

static int path_one(view *v, obj_t x, enum path_mode mode, size_t max, int external, enum out_format fmt, int first)
{
	obj_info o;
	if (v->object(v, x, &o))
		return die("%s", v->err);
	chains cs = {0};
	int rc = 0;
	if (mode == PM_DIRECT)
		rc = query_direct(v, x, &cs);
	else if (mode == PM_SHORTEST && !external)
		rc = query_shortest(v, x, &cs);
	else if (o.reachable)
		rc = query_chains(v, x, mode == PM_ALL ? 1 : 0, mode == PM_ALL ? max : (mode == PM_SHORTEST ? 1 : SIZE_MAX),
				  external, 0, &cs);
	if (rc) {
		obj_info_free(&o);
		chains_free(&cs);
		return die("%s", v->err);
	}
	const char *status = !o.reachable ? "unreachable" : RK_IS_ROOT(o.root_kind) ? "root"
			     : o.distance == UINT32_MAX ? "cluster-only" : "reachable";
	if (fmt == FMT_TEXT) {
		printf("#%d %s %s: ", x, o.class_name, o.path);
		if (mode == PM_DIRECT)
			printf("%zu direct referencer%s\n", cs.n, cs.n == 1 ? "" : "s");
		else if (!o.reachable)
			printf("unreachable: this GC purges it, because\n");
		else if (RK_IS_ROOT(o.root_kind))
			printf("a root: %s\n", root_reason(o.root_kind));
		else if (o.distance == UINT32_MAX)
			printf("alive only through cluster lists (cluster #%d): no reference chain reaches it\n", o.cluster);
		else
			printf("%zu chain%s%s\n", cs.n, cs.n == 1 ? "" : "s", cs.truncated ? " (search budget reached)" : "");
		if (!o.reachable && mode != PM_DIRECT)
			rc = explain_unreachable(v, x, fmt);
		for (size_t c = 0; c < cs.n; c++)
			print_chain_text(v, stdout, &cs.v[c]);
	} else if (fmt == FMT_JSON) {
		printf("%s{\"object\":", first ? "" : ",\n");
		print_object_json(&o);
		printf(",\"status\":\"%s\",\"reason\":", status);
		json_str(stdout, o.reachable ? root_reason(o.root_kind) : "unreachable");
		printf(",\"truncated\":%s,\"chains\":[", cs.truncated ? "true" : "false");
		for (size_t c = 0; c < cs.n; c++) {
			if (c)
				putchar(',');
			print_chain_json(v, stdout, &cs.v[c]);
		}
		printf("]}");
	} else if (fmt == FMT_CSV) {
		print_chains_csv(v, &cs);
	} else {
		print_chains_dot(v, stdout, &cs, x);
	}
	chains_free(&cs);
	obj_info_free(&o);
	return rc;
}

int path_shortest(view *v, obj_t x, enum out_format fmt, int first)
{
	return path_one(v, x, PM_SHORTEST, 1, 0, fmt, first);
}

/* The arguments of path and why (why takes no mode, --max or --external). */
typedef struct query_args {
	const char *input, *sel, *glob, *cls;
	int fmt;  /* enum out_format, or FMT_DOT */
	int mode; /* enum path_mode */
	int external;
	long long max;
} query_args;

#define FMT_DOT 3 /* path's --format dot */
static const char *const path_formats[] = {"text", "json", "csv", "dot"};

/* Parse CMD's arguments into Q; -1 (or the exit status) when done. */
static int query_parse(const command *cmd, int argc, char **argv, query_args *q)
{
	const char *operands[2] = {NULL, NULL};
	int n = parse_options(cmd, argc, argv, q, operands);
	if (n < 0)
		return OPT_EXIT_STATUS(n);
	q->input = operands[0];
	q->sel = operands[1];
	return -1;
}

/* Open the input, resolve the selection and run ONE on each object, inside
 * a JSON array or under a CSV header as FMT asks. */
typedef int (*one_fn)(view *v, obj_t x, int first, void *ctx);

static int for_selected(const char *cmd, const query_args *q, enum out_format fmt, const char *csv_header, one_fn one,
			void *ctx)
{
	if (!q->input || (!q->sel && !q->glob && !q->cls))
		return usage_error(cmd, "needs INPUT and OBJ (or --name/--class)");
	view *v = open_input(q->input);
	if (!v)
		return 1;
	obj_t *objs;
	size_t n;
	int rc = select_objects(v, q->sel, q->glob, q->cls, &objs, &n);
	if (rc == 0 && fmt == FMT_JSON)
		printf("[");
	if (rc == 0 && fmt == FMT_CSV)
		printf("%s\n", csv_header);
	for (size_t k = 0; k < n && rc == 0; k++)
		rc = one(v, objs[k], k == 0, ctx);
	if (rc == 0 && fmt == FMT_JSON)
		printf("]\n");
	free(objs);
	close_input(v);
	return rc;
}

struct path_ctx {
	enum path_mode mode;
	size_t max;
	int external;
	enum out_format fmt;
};

static int path_cb(view *v, obj_t x, int first, void *p)
{
	const struct path_ctx *c = p;
	return path_one(v, x, c->mode, c->max, c->external, c->fmt, first);
}

#define Q query_args
static const option path_options[] = {
	OPT_SET(0, "roots", Q, mode, PM_ROOTS, "one shortest chain per distinct root"),
	OPT_SET(0, "all", Q, mode, PM_ALL, "up to N distinct chains, shortest first (--max N)"),
	OPT_INT(0, "max", Q, max, 1, 1000000, "N", "chains --all lists (default 100)"),
	OPT_SET(0, "direct", Q, mode, PM_DIRECT, "direct referencers only, as one-hop chains"),
	OPT_FLAG(0, "external", Q, external, "only chains whose root lies outside OBJ's package"),
	OPT_NAME_GLOB(Q, glob),
	OPT_CLASS_NAME(Q, cls),
	OPT_CHOICE(0, "format", Q, fmt, path_formats, 4, "F",
		   "text (default), json, csv (one row a hop) or dot (Graphviz)"),
	OPT_END(),
};
#undef Q

const command command_path = {
	"path", cmd_path, "why an object is alive: its retention chains from the GC roots",
	"usage: ugc-analyze path INPUT OBJ [--roots | --all [--max N] | --direct] [--external]\n"
	"                        [--format text|json|csv|dot]\n"
	"       ugc-analyze path INPUT --name GLOB | --class NAME ...\n",
	"Prints the chains of references that keep OBJ alive, in the engine's reference-\n"
	"chain layout (root line with its tags, then one '-> Class::Property = ...' line a\n"
	"hop).  By default the true shortest chain (breadth-first from the roots in index\n"
	"order).  A root gets its root reason; an unreachable object is explained (each\n"
	"referencer and why it does not count: eliminated, weak, itself unreachable, or a\n"
	"cluster member the GC does not trace).\n",
	path_options, 2, NULL,
};

int cmd_path(int argc, char **argv)
{
	query_args q = {.fmt = FMT_TEXT, .mode = PM_SHORTEST, .max = 100};
	int rc = query_parse(&command_path, argc, argv, &q);
	if (rc >= 0)
		return rc;
	struct path_ctx ctx = {q.mode, (size_t)q.max, q.external, q.fmt == FMT_DOT ? (enum out_format)99 : (enum out_format)q.fmt};
	return for_selected("path", &q, ctx.fmt, "chain,hop,from,kind,property,to,path", path_cb, &ctx);
}

/* ---- why ---- */

static void edge_list_text(view *v, const char *title, const edges *es)
{
	printf("%s: %s\n", title, es->n ? "" : "none");
	for (size_t k = 0; k < es->n; k++) {
		const edge *e = &es->v[k];
		obj_info s;
		if (e->src == OBJ_NONE)
			printf("  FGCObject %s %s\n", e->referencer, e->prop);
		else if (v->object(v, e->src, &s) == 0) {
			printf("  #%d %s %s %s (%s)\n", e->src, s.class_name, s.path, e->prop, edge_kind_name(e));
			obj_info_free(&s);
		}
	}
}

static void edge_list_json(const char *key, const edges *es)
{
	printf(",\"%s\":[", key);
	for (size_t k = 0; k < es->n; k++) {
		printf("%s{\"src\":", k ? "," : "");
		if (es->v[k].src == OBJ_NONE) {
			printf("null,\"referencer\":");
			json_str(stdout, es->v[k].referencer);
		} else {
			printf("%d", es->v[k].src);
		}
		printf(",\"property\":");
		json_str(stdout, es->v[k].prop);
		printf(",\"kind\":\"%s\"}", edge_kind_name(&es->v[k]));
	}
	printf("]");
}

static int why_one(view *v, obj_t x, enum out_format fmt, int first)
{
	obj_info o;
	if (v->object(v, x, &o))
		return die("%s", v->err);
	chains cs = {0};
	edges elim = {0}, cleared = {0};
	finding_rows fs = {0};
	cluster_rows cl = {0};
	int rc = 0;
	if (query_shortest(v, x, &cs) || v->eliminated_to(v, x, &elim) || v->cleared_to(v, x, &cleared) ||
	    v->findings(v, x, &fs) || (o.cluster != OBJ_NONE && v->clusters(v, o.cluster, 0, &cl)))
		rc = die("%s", v->err);
	int cluster_keeps = o.reachable && (o.root_kind == RK_CLUSTER || o.distance == UINT32_MAX) && o.cluster != OBJ_NONE;
	if (rc == 0 && fmt == FMT_TEXT) {
		printf("#%d %s %s\n", x, o.class_name, o.path);
		printf("  serial %u, %u bytes, flags %s\n", o.serial, o.size, o.flags);
		printf("  garbage:   %s\n", o.garbage ? "yes (internal flag Garbage)" : "no");
		if (o.reachable)
			printf("  reachable: yes, root kind %s: %s\n", root_kind_names[o.root_kind], root_reason(o.root_kind));
		else
			printf("  reachable: no: this GC purges it\n");
		if (o.distance != UINT32_MAX)
			printf("  distance:  %u hop%s from a root\n", o.distance, o.distance == 1 ? "" : "s");
		else
			printf("  distance:  none%s\n", o.reachable ? " (no reference chain: kept only through cluster lists)" : "");
		obj_t idom;
		long long kept;
		if (v->retained(v, x, &idom, &kept) < 0) {
			rc = die("%s", v->err);
		} else if (kept >= 0) {
			printf("  retains:   %lld bytes (itself and what it dominates); immediate dominator ", kept);
			if (idom == DOM_TOP)
				printf("the top (no single object keeps it)\n");
			else
				printf("#%d\n", idom);
		}
		if (o.cluster != OBJ_NONE && cl.n)
			printf("  cluster:   %s cluster #%d, %s%s%s; %s\n", o.cluster == x ? "root of" : "member of", o.cluster,
			       cl.v[0].state, cl.v[0].reason[0] ? ": " : "", cl.v[0].reason,
			       cluster_keeps ? "the cluster is what keeps it alive" : "the cluster is not what keeps it");
		else
			printf("  cluster:   none\n");
		if (cs.n) {
			printf("  shortest chain:\n");
			print_chain_text(v, stdout, &cs.v[0]);
		} else if (!o.reachable) {
			printf("  why it dies:\n");
			if (o.cluster != OBJ_NONE && cl.n && strcmp(cl.v[0].reason, "unreachable-root") == 0)
				printf("  cluster #%d was never reached (no reference to its root or a member): the GC "
				       "dissolves it and destroys every member%s\n", o.cluster,
				       o.cluster != x && (o.iflags & (IF_RootSet | IF_RefCounted | IF_INTERNAL_KEEP))
				       ? "; a member's root flag makes the cluster walk its lists but does not keep it" : "");
			rc = explain_unreachable(v, x, fmt);
		}
		edge_list_text(v, "  references to it the GC nulls", &elim);
		edge_list_text(v, "  weak references to it the GC clears", &cleared);
		printf("  findings: %s\n", fs.n ? "" : "none");
		for (size_t k = 0; k < fs.n; k++)
			printf("    %s #%d -> #%d: %s\n", fs.v[k].kind, fs.v[k].idx, fs.v[k].other, fs.v[k].detail);
	} else if (rc == 0 && fmt == FMT_JSON) {
		printf("%s{\"object\":", first ? "" : ",\n");
		print_object_json(&o);
		printf(",\"reason\":");
		json_str(stdout, o.reachable ? root_reason(o.root_kind) : "unreachable");
		printf(",\"cluster_keeps_it\":%s,\"shortest_chain\":", cluster_keeps ? "true" : "false");
		if (cs.n)
			print_chain_json(v, stdout, &cs.v[0]);
		else
			printf("null");
		edge_list_json("eliminated", &elim);
		edge_list_json("cleared", &cleared);
		printf(",\"findings\":[");
		for (size_t k = 0; k < fs.n; k++) {
			printf("%s{\"kind\":\"%s\",\"idx\":%d,\"other\":%d,\"detail\":", k ? "," : "", fs.v[k].kind, fs.v[k].idx,
			       fs.v[k].other);
			json_str(stdout, fs.v[k].detail);
			printf("}");
		}
		printf("]}");
	} else if (rc == 0) {
		printf("%d,path,", x); csv_str(stdout, o.path); putchar('\n');
		printf("%d,class,", x); csv_str(stdout, o.class_name); putchar('\n');
		printf("%d,flags,", x); csv_str(stdout, o.flags); putchar('\n');
		printf("%d,garbage,%d\n%d,reachable,%d\n", x, o.garbage, x, o.reachable);
		printf("%d,root_kind,%s\n", x, o.root_kind == RK_NONE ? "" : root_kind_names[o.root_kind]);
		if (o.distance == UINT32_MAX)
			printf("%d,distance,\n", x);
		else
			printf("%d,distance,%u\n", x, o.distance);
		printf("%d,cluster,", x);
		if (o.cluster != OBJ_NONE)
			printf("%d", o.cluster);
		printf("\n%d,eliminated_refs,%zu\n%d,cleared_weak_refs,%zu\n%d,findings,%zu\n", x, elim.n, x, cleared.n, x, fs.n);
	}
	chains_free(&cs);
	edges_free(&elim);
	edges_free(&cleared);
	free(fs.v);
	free(cl.v);
	obj_info_free(&o);
	return rc;
}

static int why_cb(view *v, obj_t x, int first, void *fmt)
{
	return why_one(v, x, *(enum out_format *)fmt, first);
}

#define Q query_args
static const option why_options[] = {
	OPT_NAME_GLOB(Q, glob),
	OPT_CLASS_NAME(Q, cls),
	OPT_FORMAT(Q, fmt, "text (default), json or csv"),
	OPT_END(),
};
#undef Q

const command command_why = {
	"why", cmd_why, "explain one object: identity, fate, root kind, chain, nulled references, findings",
	"usage: ugc-analyze why INPUT OBJ [--format text|json|csv]\n"
	"       ugc-analyze why INPUT --name GLOB | --class NAME ...\n",
	"One screen about OBJ: identity and flags, garbage or not, reachable or not and its\n"
	"root kind, distance, its cluster and whether the cluster is what keeps it, the\n"
	"shortest chain (or why it dies), references to it the GC nulls or clears, and the\n"
	"findings about it.\n",
	why_options, 2, NULL,
};

int cmd_why(int argc, char **argv)
{
	query_args q = {.fmt = FMT_TEXT};
	int rc = query_parse(&command_why, argc, argv, &q);
	if (rc >= 0)
		return rc;
	enum out_format fmt = q.fmt;
	return for_selected("why", &q, fmt, "idx,key,value", why_cb, &fmt);
}
