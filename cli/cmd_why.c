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
	printf("%s: %s\n", title, es->n ? "" : "none");
	for (size_t k = 0; k < es->n; k++) {
		const edge *e = &es->v[k];
		obj_info s;
		if (e->src == OBJ_NONE)
			printf("  FGCObject %s %s\n", e->referencer, e->prop);
		else if (v->ops->object(v, e->src, &s) == 0) {
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
	if (v->ops->object(v, x, &o))
		return error("%s", v->err);
	chains cs = {0};
	edges elim = {0}, cleared = {0};
	finding_rows fs = {0};
	cluster_rows cl = {0};
	int rc = 0;
	if (query_shortest(v, x, &cs) || v->ops->eliminated_to(v, x, &elim) || v->ops->cleared_to(v, x, &cleared) ||
	    v->ops->findings(v, x, &fs) || (o.cluster != OBJ_NONE && v->ops->clusters(v, o.cluster, 0, &cl)))
		rc = error("%s", v->err);
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
		if (v->ops->retained(v, x, &idom, &kept) < 0) {
			rc = error("%s", v->err);
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
			if (rc == 0) /* never hide an earlier error's status */
				rc = explain_unreachable(v, x, fmt);
		}
		edge_list_text(v, "  references to it the GC nulls", &elim);
		edge_list_text(v, "  weak references to it the GC clears", &cleared);
		printf("  findings: %s\n", fs.n ? "" : "none");
		for (size_t k = 0; k < fs.n; k++) /* the detail names the objects */
			if (fs.v[k].idx == OBJ_NONE)
				printf("    %s, %s (FGCObject): %s\n", fs.v[k].kind, fs.v[k].referencer, fs.v[k].detail);
			else
				printf("    %s, #%d: %s\n", fs.v[k].kind, fs.v[k].idx, fs.v[k].detail);
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
			printf("%s{\"kind\":\"%s\",\"idx\":", k ? "," : "", fs.v[k].kind);
			if (fs.v[k].idx == OBJ_NONE) printf("null"); else printf("%d", fs.v[k].idx);
			printf(",\"other\":");
			if (fs.v[k].other == OBJ_NONE) printf("null"); else printf("%d", fs.v[k].other);
			printf(",\"detail\":");
			json_str(stdout, fs.v[k].detail);
			printf(",\"referencer\":");
			if (fs.v[k].referencer[0]) json_str(stdout, fs.v[k].referencer); else printf("null");
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
	enum out_format fmt = (enum out_format)q.fmt;
	return for_selected("why", &q, fmt, "idx,key,value", why_cb, &fmt);
}
