/* cmd_clusters.c — `ugc-analyze clusters INPUT [ROOT]`: every GC cluster
 * with its lists' sizes, bytes and fate in this GC (sortable, like the
 * engine's gc.ListClusters), one cluster in detail (what dissolved it
 * first), or --check: every disagreement between a cluster's lists and its
 * members' references, the use-after-free risks first (--risks: only
 * them).  Every listing shows --limit rows and says how many there are. */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "analysis/analysis.h"

/* qsort_r's order of the rows under SORT_KEY (--sort's name). */
static int cmp_rows(const void *pa, const void *pb, void *sort_key_arg)
{
	const cluster_row *a = pa, *b = pb;
	const char *sort_key = sort_key_arg;
	uint64_t x, y;
	if (strcmp(sort_key, "root") == 0)
		return (a->root > b->root) - (a->root < b->root);
	if (strcmp(sort_key, "bytes") == 0) {
		x = a->bytes; y = b->bytes;
	} else if (strcmp(sort_key, "mutable") == 0) {
		x = a->mutables; y = b->mutables;
	} else if (strcmp(sort_key, "referenced") == 0) {
		x = a->referenced; y = b->referenced;
	} else {
		x = a->members; y = b->members;
	}
	if (x != y)
		return x < y ? 1 : -1; /* largest first */
	return (a->root > b->root) - (a->root < b->root);
}

static void row_out(view *v, const cluster_row *r, enum out_format fmt, int first)
{
	obj_info o;
	int have = v->ops->object(v, r->root, &o) == 0;
	const char *path = have ? o.path : "?";
	if (fmt == FMT_TEXT)
		printf("%10d %8s %8s %6s %6s %14s  %-9s %-21s %s\n", r->root, count_text(r->members), count_text(r->mutables),
		       count_text(r->referenced), count_text(r->referenced_by), size_text(r->bytes), r->state,
		       r->reason[0] ? r->reason : "-", path);
	else if (fmt == FMT_CSV) {
		printf("%d,%u,%u,%u,%u,%llu,%s,%s,", r->root, r->members, r->mutables, r->referenced, r->referenced_by,
		       (unsigned long long)r->bytes, r->state, r->reason);
		csv_str(stdout, path);
		putchar('\n');
	} else {
		printf("%s{\"root\":%d,\"members\":%u,\"mutable\":%u,\"referenced\":%u,\"referenced_by\":%u,\"bytes\":%llu,"
		       "\"state\":\"%s\",\"reason\":", first ? "" : ",\n", r->root, r->members, r->mutables, r->referenced,
		       r->referenced_by, (unsigned long long)r->bytes, r->state);
		if (r->reason[0])
			printf("\"%s\"", r->reason);
		else
			printf("null");
		printf(",\"path\":");
		json_str(stdout, path);
		json_node_id(stdout, have ? &o : NULL);
		printf("}");
	}
	if (have)
		obj_info_free(&o);
}

/* One list entry of cluster ROOT's list TITLE (JSON: FIRST says whether
 * it opens its list's items). */
static void entry_out(view *v, obj_t root, const char *title, obj_t x, enum out_format fmt, int first)
{
	obj_info o;
	if (v->ops->object(v, x, &o))
		return;
	if (fmt == FMT_TEXT) {
		printf("  #%d %s", x, object_text(v, &o));
		if (!o.reachable || o.garbage) /* purged or garbage marked */
			printf("  (%s)", fate_name(o.reachable, o.garbage));
		putchar('\n');
	} else if (fmt == FMT_CSV) {
		printf("%d,%s,%d,", root, title, x);
		csv_str(stdout, o.path);
		printf(",%d,%d\n", o.reachable, o.garbage);
	} else {
		printf("%s{\"idx\":%d,\"path\":", first ? "" : ",", x);
		json_str(stdout, o.path);
		json_node_id(stdout, &o);
		printf(",\"reachable\":%s,\"garbage\":%s}", o.reachable ? "true" : "false", o.garbage ? "true" : "false");
	}
	obj_info_free(&o);
}

/* Cluster R in detail: what dissolved it first, then what its root
 * dominates and its four lists, each capped at LIMIT entries.  Text: the
 * row, then the lists; CSV: one row a list entry; JSON: one document with
 * the row as "cluster" and each list a listing under its title. */
static int detail(view *v, const cluster_row *r, enum out_format fmt, size_t limit)
{
	static const char *const titles[5] = {"members", "mutable", "referenced", "referenced_by", "dissolved_by"};
	static const int order[5] = {4, 0, 1, 2, 3};
	if (fmt == FMT_JSON) {
		json_begin("clusters");
		printf(",\"cluster\":");
		row_out(v, r, fmt, 1);
	} else if (fmt == FMT_CSV) {
		printf("root,list,idx,path,reachable,garbage\n");
	} else {
		printf("%10s %8s %8s %6s %6s %14s  %-9s %-21s %s\n", "root", "members", "mutable", "refs", "refby", "bytes",
		       "state", "reason", "path");
		row_out(v, r, fmt, 1);
	}
	for (int o = 0; o < 5; o++) {
		int which = order[o];
		if (which == 0) {
			obj_t idom;
			long long kept;
			if (v->ops->retained(v, r->root, &idom, &kept) < 0)
				return error("%s", v->err);
			if (fmt == FMT_TEXT && kept >= 0)
				printf("retained: the root dominates %s (itself included; a member referenced from "
				       "outside is not dominated by it)\n", size_text((unsigned long long)kept));
		}
		obj_t *list;
		size_t n;
		if (v->ops->cluster_list(v, r->root, which, &list, &n))
			return error("%s", v->err);
		if (fmt == FMT_TEXT && which == 4 && r->reason[0])
			printf("dissolved (%s) by %s:\n", r->reason,
			       n ? (strcmp(r->reason, "garbage-root") == 0 ? "its garbage root"
				    : strcmp(r->reason, "garbage-mutable") == 0 ? "these garbage list entries"
				    : "these referenced clusters, themselves dissolved")
			       : "nothing in its lists: its root was not reached");
		else if (fmt == FMT_TEXT && which != 4)
			printf("%s (%s):\n", titles[which], count_text(n));
		size_t shown = n < limit ? n : limit;
		if (fmt == FMT_JSON)
			json_list_begin(titles[which], n, shown);
		for (size_t k = 0; k < shown; k++)
			entry_out(v, r->root, titles[which], list[k], fmt, k == 0);
		if (fmt == FMT_TEXT)
			print_shown(shown, n, "entries");
		if (fmt == FMT_JSON)
			printf("]}");
		free(list);
	}
	if (fmt == FMT_JSON)
		json_end();
	return 0;
}

/* Does finding F make a use-after-free? */
static int is_risk(const finding_row *f)
{
	return strstr(f->detail, "use-after-free") != NULL;
}

static void check_out(view *v, const finding_row *f, enum out_format fmt, int first)
{
	int u = is_risk(f);
	obj_info o, t;
	int have = v->ops->object(v, f->idx, &o) == 0, have_t = v->ops->object(v, f->other, &t) == 0;
	if (fmt == FMT_TEXT) /* the detail names the target and the cluster */
		printf("%s#%d %s: %s\n", u ? "USE-AFTER-FREE " : "", f->idx, have ? o.path : "?", f->detail);
	else if (fmt == FMT_CSV) {
		printf("%s,%d,%d,%d,", f->kind, f->idx, f->other, u);
		csv_str(stdout, f->detail);
		putchar(',');
		csv_str(stdout, have ? o.path : "");
		putchar(',');
		csv_str(stdout, have_t ? t.path : "");
		putchar('\n');
	} else {
		printf("%s{\"kind\":\"%s\",\"idx\":%d,\"other\":%d,\"use_after_free\":%s,\"detail\":", first ? "" : ",\n",
		       f->kind, f->idx, f->other, u ? "true" : "false");
		json_str(stdout, f->detail);
		printf(",\"path\":");
		json_str(stdout, have ? o.path : "");
		printf(",\"other_path\":");
		json_str(stdout, have_t ? t.path : "");
		printf("}");
	}
	if (have)
		obj_info_free(&o);
	if (have_t)
		obj_info_free(&t);
}

/* --check: the disagreements, use-after-free risks first (in finding
 * order), then the rest unless RISKS_ONLY; LIMIT of them shown. */
static int check(view *v, enum out_format fmt, int risks_only, size_t limit)
{
	finding_rows fs = {0};
	if (v->ops->findings(v, OBJ_NONE, &fs)) {
		free(fs.v);
		return error("%s", v->err);
	}
	size_t n = 0, uaf = 0, shown = 0;
	if (fmt == FMT_CSV)
		printf("kind,idx,other,use_after_free,detail,path,other_path\n");
	for (size_t k = 0; k < fs.n; k++)
		if (strncmp(fs.v[k].kind, "cluster-missing", 15) == 0) {
			n++;
			uaf += is_risk(&fs.v[k]);
		}
	size_t listed = risks_only ? uaf : n;
	if (fmt == FMT_JSON) {
		json_begin("clusters");
		printf(",\"use_after_free\":%zu", uaf);
		json_list_begin("disagreements", listed, limit);
	}
	for (int pass = 0; pass < 2; pass++)
		for (size_t k = 0; k < fs.n; k++) {
			const finding_row *f = &fs.v[k];
			if (strncmp(f->kind, "cluster-missing", 15) != 0 || is_risk(f) != (pass == 0))
				continue;
			if ((risks_only && pass) || shown >= limit)
				continue;
			check_out(v, f, fmt, shown == 0);
			shown++;
		}
	if (fmt == FMT_TEXT) {
		print_shown(shown, listed, risks_only ? "use-after-free risks" : "disagreements");
		printf("%s disagreement%s between cluster lists and references, %s of them use-after-free\n",
		       count_text(n), plural_s(n), count_text(uaf));
	}
	if (fmt == FMT_JSON) {
		printf("]}");
		json_end();
	}
	free(fs.v);
	return 0;
}

struct clusters_opts {
	int format, sort, check, risks;
	long long limit;
};

static const char *const sort_names[] = {"members", "bytes", "mutable", "referenced", "root"};

#define C struct clusters_opts
static const option options[] = {
	OPT_CHOICE(0, "sort", C, sort, sort_names, 5, "KEY",
		   "members (default), bytes, mutable, referenced (largest first)\nor root (by index)"),
	OPT_FLAG(0, "check", C, check,
		 "every disagreement between a cluster's lists and its members' real\n"
		 "references, the use-after-free risks first (marked USE-AFTER-FREE: the\n"
		 "engine collects an object that is still referenced)"),
	OPT_FLAG(0, "risks", C, risks, "only the use-after-free risks"),
	OPT_LIMIT(C, limit, "clusters, entries of each list, or disagreements shown (text:\n"
		  "default 20; json, csv: all unless given; 0: all); the totals are always said"),
	OPT_TOP_ALIAS(C, limit, 0, 1LL << 40),
	OPT_FORMAT(C, format, "text (default), json or csv"),
	OPT_END(),
};
#undef C

const command command_clusters = {
	"clusters", cmd_clusters, "GC clusters: sizes, bytes, fate; one in detail; --check their lists",
	"usage: ugc-analyze clusters INPUT [ROOT] [--sort members|bytes|mutable|referenced|root]\n"
	"                            [--limit N] [--format text|json|csv]\n"
	"       ugc-analyze clusters INPUT --check | --risks [--limit N] [--format text|json|csv]\n",
	"Lists every cluster with its members, mutable objects, referenced and referencing\n"
	"clusters, bytes (root and members) and its fate in this GC (alive, or dissolved and\n"
	"why), largest first like gc.ListClusters.  With ROOT, that cluster: first what\n"
	"dissolved it (its garbage root, the garbage entries of its lists, or the dissolved\n"
	"clusters it references), then the bytes its root dominates and its four lists.\n",
	options, 2, NULL,
};

int cmd_clusters(int argc, char **argv)
{
	struct clusters_opts opts = {FMT_TEXT, 0, 0, 0, LIMIT_UNSET};
	const char *operands[2] = {NULL, NULL};
	int parsed = parse_options(&command_clusters, argc, argv, &opts, operands);
	if (parsed < 0)
		return OPT_EXIT_STATUS(parsed);
	const char *input = operands[0], *sel = operands[1];
	enum out_format fmt = opts.format;
	int do_check = opts.check || opts.risks;
	if (!input)
		return usage_error("clusters", "needs INPUT");
	if (do_check && sel)
		return usage_error("clusters", "--check and --risks take no ROOT");
	view *v = open_input(input);
	if (!v)
		return 1;
	if (v->v8 && fmt == FMT_TEXT && !sel) { /* (JSON and CSV keep their shape: empty) */
		printf("%s: a V8 heap has no GC clusters (they are Unreal Engine's)\n", disp(input));
		close_input(v);
		return 0;
	}
	int rc = 0;
	if (do_check) {
		rc = check(v, fmt, opts.risks, listing_limit(opts.limit, fmt, 20));
		close_input(v);
		return rc;
	}
	obj_t root = OBJ_NONE;
	if (sel) {
		char err[1024];
		int s = query_select(v, sel, &root, err, sizeof err);
		if (s) {
			rc = error("%s", s < 0 ? v->err : err);
			close_input(v);
			return rc;
		}
	}
	cluster_rows rows = {0};
	if (v->ops->clusters(v, root, 1, &rows)) {
		rc = error("%s", v->err);
	} else if (sel && rows.n == 0) {
		obj_info o; /* named as text names it: on a V8 heap with its @ID */
		int have = v->ops->describe(v, root, &o) == 0;
		rc = error("#%d%s%s is not a cluster root%s", root, have ? " " : "", have ? object_text(v, &o) : "",
			   v->v8 ? ": a V8 heap has no GC clusters" : "");
		if (have)
			obj_info_free(&o);
	} else if (sel) {
		rc = detail(v, &rows.v[0], fmt, listing_limit(opts.limit, fmt, 20));
	} else {
		if (rows.n) /* no clusters: rows.v is NULL, and qsort(NULL, 0) is undefined */
			qsort_r(rows.v, rows.n, sizeof *rows.v, cmp_rows, (void *)sort_names[opts.sort]);
		size_t n = listing_limit(opts.limit, fmt, 20);
		if (n > rows.n)
			n = rows.n;
		uint32_t alive = 0;
		uint64_t bytes = 0, members = 0;
		if (fmt == FMT_TEXT)
			printf("%10s %8s %8s %6s %6s %14s  %-9s %-21s %s\n", "root", "members", "mutable", "refs", "refby", "bytes",
			       "state", "reason", "path");
		if (fmt == FMT_CSV)
			printf("root,members,mutable,referenced,referenced_by,bytes,state,reason,path\n");
		if (fmt == FMT_JSON) {
			json_begin("clusters");
			json_list_begin("clusters", rows.n, n);
		}
		for (size_t k = 0; k < n; k++)
			row_out(v, &rows.v[k], fmt, k == 0);
		for (size_t k = 0; k < rows.n; k++) {
			alive += strcmp(rows.v[k].state, "alive") == 0;
			bytes += rows.v[k].bytes;
			members += rows.v[k].members;
		}
		if (fmt == FMT_JSON) {
			printf("]}");
			json_end();
		}
		if (fmt == FMT_TEXT)
			print_shown(n, rows.n, "clusters");
		if (fmt == FMT_TEXT)
			printf("%s cluster%s (%s alive, %s dissolved), %s member%s, %s\n", count_text(rows.n),
			       plural_s(rows.n), count_text(alive), count_text(rows.n - alive), count_text(members),
			       plural_s(members), size_text(bytes));
	}
	free(rows.v);
	close_input(v);
	return rc;
}
