/* cmd_why.c — `ugc-analyze why`: one screen that explains an object
 * (identity, fate, root kind, retained bytes, cluster, shortest chain or why
 * it dies, the references the GC nulls or clears, findings), from a
 * snapshot or a database. */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "analysis/analysis.h"

static void edge_list_text(view *v, const char *title, const edges *es)
{
	printf("%s:%s\n", title, es->n ? "" : " none");
	for (size_t k = 0; k < es->n; k++) {
		const edge *e = &es->v[k];
		obj_info s;
		if (e->src == OBJ_NONE)
			printf("  FGCObject %s %s\n", e->referencer, e->prop);
		else if (v->ops->object(v, e->src, &s) == 0) {
			printf("  #%d %s %s (%s)\n", e->src, object_text(v, &s), e->prop, edge_kind_name(e));
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

/* What `why` tells of one object, gathered from the view before printing. */
typedef struct {
	obj_info o;
	chains cs;
	edges elim, cleared;
	finding_rows fs;
	cluster_rows cl;
	int cluster_keeps;
} why_facts;

/* Fill F for object X (the object itself read already); -1 on a view error. */
static int why_gather(view *v, obj_t x, why_facts *f)
{
	const obj_info *o = &f->o;
	int rc = 0;
	if (query_shortest(v, x, &f->cs) || v->ops->eliminated_to(v, x, &f->elim) || v->ops->cleared_to(v, x, &f->cleared) ||
	    v->ops->findings(v, x, &f->fs) || (o->cluster != OBJ_NONE && v->ops->clusters(v, o->cluster, 0, &f->cl)))
		rc = error("%s", v->err);
	f->cluster_keeps = o->reachable && (o->root_kind == RK_CLUSTER || o->distance == UINT32_MAX) && o->cluster != OBJ_NONE;
	return rc;
}

/* Free what why_gather() and the object read took. */
static void why_facts_free(why_facts *f)
{
	chains_free(&f->cs);
	edges_free(&f->elim);
	edges_free(&f->cleared);
	free(f->fs.v);
	free(f->cl.v);
	obj_info_free(&f->o);
}

/* Text: identity, garbage, reachability and distance lines (on a V8 heap
 * in V8's words: no serial, flags or garbage bit, the root is the
 * snapshot's synthetic root). */
static void why_text_state(view *v, obj_t x, const obj_info *o)
{
	printf("#%d %s\n", x, object_text(v, o));
	if (v->v8) {
		printf("  self size: %s\n", size_text(o->size));
		if (o->reachable)
			printf("  alive:     yes, %s\n", v8_root_reason(o->root_kind));
		else
			printf("  alive:     no: nothing the root reaches retains it (DevTools hangs it under the root)\n");
		if (o->distance != UINT32_MAX)
			printf("  distance:  %s edge%s from the root\n", count_text(o->distance), plural_s(o->distance));
		return;
	}
	printf("  serial %u, %s, flags %s\n", o->serial, size_text(o->size), o->flags);
	printf("  garbage:   %s\n", o->garbage ? "yes (internal flag Garbage)" : "no");
	if (o->reachable)
		printf("  reachable: yes, root kind %s: %s\n", root_kind_names[o->root_kind], root_reason(o->root_kind));
	else
		printf("  reachable: no: this GC purges it\n");
	if (o->distance != UINT32_MAX)
		printf("  distance:  %s hop%s from a root\n", count_text(o->distance), plural_s(o->distance));
	else
		printf("  distance:  none%s\n", o->reachable ? " (no reference chain: kept only through cluster lists)" : "");
}

/* Text: the retains line, when the view knows the dominators; -1 on a view error. */
static int why_text_retained(view *v, obj_t x)
{
	obj_t idom;
	long long kept;
	if (v->ops->retained(v, x, &idom, &kept) < 0)
		return error("%s", v->err);
	if (kept >= 0) {
		printf("  retains:   %s (itself and what it dominates); immediate dominator ",
		       size_text((unsigned long long)kept));
		obj_info d;
		if (idom == DOM_TOP) {
			printf("the top (no single object keeps it)\n");
		} else if (v->ops->describe(v, idom, &d) == 0) { /* named, as every object the tool prints */
			printf("#%d %s\n", idom, object_text(v, &d));
			obj_info_free(&d);
		} else {
			printf("#%d\n", idom);
		}
	}
	return 0;
}

/* Text: the cluster line. */
static void why_text_cluster(obj_t x, const why_facts *f)
{
	const obj_info *o = &f->o;
	if (o->cluster != OBJ_NONE && f->cl.n)
		printf("  cluster:   %s cluster #%d, %s%s%s; %s\n", o->cluster == x ? "root of" : "member of", o->cluster,
		       f->cl.v[0].state, f->cl.v[0].reason[0] ? ": " : "", f->cl.v[0].reason,
		       f->cluster_keeps ? "the cluster is what keeps it alive" : "the cluster is not what keeps it");
	else
		printf("  cluster:   none\n");
}

/* Text: the shortest chain, or why an unreachable object dies; RC is the
 * status so far, kept when it is already an error. */
static int why_text_chain(view *v, obj_t x, const why_facts *f, enum out_format fmt, int rc)
{
	const obj_info *o = &f->o;
	if (f->cs.n) {
		printf(v->v8 ? "  shortest retainer path:\n" : "  shortest chain:\n");
		print_chain_text(v, stdout, &f->cs.v[0]);
	} else if (!o->reachable) {
		printf("  why it dies:\n");
		if (o->cluster != OBJ_NONE && f->cl.n && strcmp(f->cl.v[0].reason, "unreachable-root") == 0)
			printf("  cluster #%d was never reached (no reference to its root or a member): the GC "
			       "dissolves it and destroys every member%s\n", o->cluster,
			       o->cluster != x && (o->iflags & (IF_RootSet | IF_RefCounted | IF_INTERNAL_KEEP))
			       ? "; a member's root flag makes the cluster walk its lists but does not keep it" : "");
		if (rc == 0) /* never hide an earlier error's status */
			rc = explain_unreachable(v, x, fmt);
	}
	return rc;
}

/* Text: the findings lines. */
static void why_text_findings(const finding_rows *fs)
{
	printf("  findings:%s\n", fs->n ? "" : " none");
	for (size_t k = 0; k < fs->n; k++) /* the detail names the objects */
		if (fs->v[k].idx == OBJ_NONE)
			printf("    %s, %s (FGCObject): %s\n", fs->v[k].kind, fs->v[k].referencer, fs->v[k].detail);
		else
			printf("    %s, #%d: %s\n", fs->v[k].kind, fs->v[k].idx, fs->v[k].detail);
}

/* The text screen for object X; -1 on a view error (the screen is still finished). */
static int why_text(view *v, obj_t x, const why_facts *f, enum out_format fmt)
{
	why_text_state(v, x, &f->o);
	int rc = why_text_retained(v, x);
	if (v->v8) { /* no clusters, no garbage elimination, no findings on a V8 heap */
		rc = why_text_chain(v, x, f, fmt, rc);
		edge_list_text(v, "  weak retainers", &f->cleared);
		return rc;
	}
	why_text_cluster(x, f);
	rc = why_text_chain(v, x, f, fmt, rc);
	edge_list_text(v, "  references to it the GC nulls", &f->elim);
	edge_list_text(v, "  weak references to it the GC clears", &f->cleared);
	why_text_findings(&f->fs);
	return rc;
}

/* JSON: the findings array. */
static void why_json_findings(const finding_rows *fs)
{
	printf(",\"findings\":[");
	for (size_t k = 0; k < fs->n; k++) {
		printf("%s{\"kind\":\"%s\",\"idx\":", k ? "," : "", fs->v[k].kind);
		if (fs->v[k].idx == OBJ_NONE) printf("null"); else printf("%d", fs->v[k].idx);
		printf(",\"other\":");
		if (fs->v[k].other == OBJ_NONE) printf("null"); else printf("%d", fs->v[k].other);
		printf(",\"detail\":");
		json_str(stdout, fs->v[k].detail);
		printf(",\"referencer\":");
		if (fs->v[k].referencer[0]) json_str(stdout, fs->v[k].referencer); else printf("null");
		printf("}");
	}
	printf("]}");
}

/* The JSON object for one object; FIRST: no separator before it. */
static void why_json(view *v, const why_facts *f, int first)
{
	printf("%s{\"object\":", first ? "" : ",\n");
	print_object_json(&f->o);
	printf(",\"reason\":");
	json_str(stdout, f->o.reachable ? (v->v8 ? v8_root_reason : root_reason)(f->o.root_kind) : "unreachable");
	printf(",\"cluster_keeps_it\":%s,\"shortest_chain\":", f->cluster_keeps ? "true" : "false");
	if (f->cs.n)
		print_chain_json(v, stdout, &f->cs.v[0]);
	else
		printf("null");
	edge_list_json("eliminated", &f->elim);
	edge_list_json("cleared", &f->cleared);
	why_json_findings(&f->fs);
}

/* The CSV rows "X,key,value" for one object. */
static void why_csv(obj_t x, const why_facts *f)
{
	const obj_info *o = &f->o;
	printf("%d,path,", x); csv_str(stdout, o->path); putchar('\n');
	printf("%d,class,", x); csv_str(stdout, o->class_name); putchar('\n');
	printf("%d,flags,", x); csv_str(stdout, o->flags); putchar('\n');
	printf("%d,garbage,%d\n%d,reachable,%d\n", x, o->garbage, x, o->reachable);
	printf("%d,root_kind,%s\n", x, o->root_kind == RK_NONE ? "" : root_kind_names[o->root_kind]);
	if (o->distance == UINT32_MAX)
		printf("%d,distance,\n", x);
	else
		printf("%d,distance,%u\n", x, o->distance);
	printf("%d,cluster,", x);
	if (o->cluster != OBJ_NONE)
		printf("%d", o->cluster);
	printf("\n%d,eliminated_refs,%zu\n%d,cleared_weak_refs,%zu\n%d,findings,%zu\n", x, f->elim.n, x, f->cleared.n,
	       x, f->fs.n);
}

static int why_one(view *v, obj_t x, enum out_format fmt, int first)
{
	why_facts f = {0};
	if (v->ops->object(v, x, &f.o))
		return error("%s", v->err);
	int rc = why_gather(v, x, &f);
	if (rc == 0 && fmt == FMT_TEXT)
		rc = why_text(v, x, &f, fmt);
	else if (rc == 0 && fmt == FMT_JSON)
		why_json(v, &f, first);
	else if (rc == 0)
		why_csv(x, &f);
	why_facts_free(&f);
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
	enum out_format fmt = (enum out_format)q.fmt;
	return for_selected("why", &q, fmt, "idx,key,value", why_cb, &fmt);
}
