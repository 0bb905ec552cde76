/* cmd_whatif.c — `ugc-analyze whatif`: what the GC would free if an object
 * were garbage, lost its references or its root reasons, or if some
 * references or an FGCObject were gone (ugc-gc(7) §4.3).
 * The changes run through the real pipeline (analysis/whatif.c); the
 * survivors among the objects aimed at are shown as `path` shows them. */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "base/base.h"
#include "sql/sql.h"
#include "analysis/analysis.h"
#include "snapshot/snapshot.h"

/* One change as given on the command line. */
typedef struct change_arg {
	uint8_t kind; /* enum whatif_kind; WI_NULL_PROPERTY stands for both --null forms */
	const char *arg;
} change_arg;

/* Is ARG of --null's forms, X.PROPERTY or X:N, by its syntax alone?  NULL,
 * or what is wrong ("" when it is neither form): checked before the input
 * is loaded. */
static const char *null_syntax(const char *arg)
{
	const char *colon = strrchr(arg, ':');
	int record = colon && colon[1] && colon[1 + strspn(colon + 1, "0123456789")] == '\0';
	if (!record && !strchr(arg, '.'))
		return "";
	if (!record && arg[strlen(arg) - 1] == '.')
		return ": no PROPERTY after the '.'";
	return NULL;
}

/* --null X.PROPERTY or X:N.  Returns 0, 1 after printing an error, 2 after
 * a usage error. */
static int resolve_null(view *v, heap *h, const char *arg, whatif_change *out)
{
	const char *colon = strrchr(arg, ':');
	int rc = 0;
	if (colon && colon[1] && colon[1 + strspn(colon + 1, "0123456789")] == '\0') {
		char *left = strndup(arg, (size_t)(colon - arg));
		obj_t x;
		rc = left ? query_find(v, left, &x) : -1;
		free(left);
		if (rc < 0)
			return error("%s", v->err[0] ? v->err : "out of memory");
		if (rc == 0) {
			long long n = parse_count(colon + 1, UINT32_MAX);
			uint32_t have = h->ref_start[x + 1] - h->ref_start[x];
			if (n < 0 || n >= have)
				return error("--null %s: object #%d has %u reference record%s (numbered from 0)", arg, x, have,
					   have == 1 ? "" : "s");
			*out = (whatif_change){WI_NULL_RECORD, x, 0, (uint32_t)n};
			return 0;
		}
	}
	/* X.PROPERTY: the splits at a '.' whose left part names an object that
	 * has references named by the right part */
	int found = 0;
	obj_t named = OBJ_NONE;
	const char *named_prop = NULL, *last_dot = NULL;
	for (const char *p = strchr(arg, '.'); p; p = strchr(p + 1, '.')) {
		last_dot = p;
		if (!p[1] || p == arg)
			continue;
		char *left = strndup(arg, (size_t)(p - arg));
		obj_t x;
		rc = left ? query_find(v, left, &x) : -1;
		free(left);
		if (rc < 0)
			return error("%s", v->err[0] ? v->err : "out of memory");
		if (rc)
			continue;
		named = x;
		named_prop = p + 1;
		whatif_change c = {WI_NULL_PROPERTY, x, strtab_find(&h->strings, p + 1, strlen(p + 1)), 0};
		if (c.str == UINT32_MAX || c.str == 0 || whatif_count(h, &c) == 0)
			continue;
		if (found++ && (out->obj != c.obj || out->str != c.str))
			return error("--null %s is ambiguous: object #%d's '%s' or object #%d's '%s'; name the object by "
				   "index (#N.PROPERTY)", arg, out->obj, heap_str(h, out->str), c.obj, p + 1);
		*out = c;
	}
	if (found)
		return 0;
	if (named != OBJ_NONE)
		return error("--null %s: object #%d has no reference named '%s'", arg, named, named_prop);
	if (!last_dot && !(colon && colon[1] && colon[1 + strspn(colon + 1, "0123456789")] == '\0'))
		return usage_error("whatif", "--null takes OBJ.PROPERTY or OBJ:N, not '%s'", arg);
	/* no object: say so with suggestions for the longest candidate */
	char *left = strndup(arg, (size_t)((last_dot ? last_dot : colon) - arg));
	char err[1024];
	obj_t x;
	rc = left ? query_select(v, left, &x, err, sizeof err) : -1;
	free(left);
	if (rc == 0) /* the object is there: what is missing is the property (null_syntax says so first) */
		return usage_error("whatif", "--null takes OBJ.PROPERTY or OBJ:N, not '%s': no PROPERTY after the '.'", arg);
	return error("--null %s: %s", arg, rc < 0 ? "out of memory" : err);
}

/* Resolve the changes against the heap (objects through V). */
static int resolve(view *v, heap *h, const change_arg *a, size_t n, whatif_change *out)
{
	for (size_t k = 0; k < n; k++) {
		char err[1024];
		if (a[k].kind == WI_NULL_PROPERTY) {
			int rc = resolve_null(v, h, a[k].arg, &out[k]);
			if (rc)
				return rc;
		} else if (a[k].kind == WI_DROP_REFERENCER) {
			uint32_t id = strtab_find(&h->strings, a[k].arg, strlen(a[k].arg));
			out[k] = (whatif_change){WI_DROP_REFERENCER, OBJ_NONE, id, 0};
			if (id == UINT32_MAX || id == 0 || whatif_count(h, &out[k]) == 0)
				return error("--drop-referencer: no FGCObject referencer is named '%s'", a[k].arg);
		} else {
			obj_t x;
			int rc = query_select(v, a[k].arg, &x, err, sizeof err);
			if (rc)
				return error("--%s: %s", whatif_kind_names[a[k].kind], rc < 0 ? v->err : err);
			out[k] = (whatif_change){a[k].kind, x, 0, 0};
		}
	}
	return 0;
}

typedef struct report {
	const heap *h;
	const gc_result *before;
	whatif_result *w;
	enum out_format fmt;
	size_t limit;
	uint64_t reach_before[2], reach_after[2]; /* objects, bytes */
} report;

static void reachable_totals(const heap *h, const uint8_t *reachable, uint64_t out[2])
{
	out[0] = out[1] = 0;
	for (uint32_t i = 0; i < h->slots; i++)
		if (h->cls[i] != OBJ_FREE && reachable[i]) {
			out[0]++;
			out[1] += h->size[i];
		}
}

/* OBJS grouped by class: the top R->limit by bytes, with the class count. */
static int print_by_class(const report *r, const char *what, const obj_t *objs, uint32_t n, uint64_t bytes)
{
	const heap *h = r->h;
	class_hist c;
	if (class_hist_of(h, objs, n, r->limit ? r->limit : SIZE_MAX, &c))
		return error("out of memory");
	size_t classes = c.classes;
	char name[HEAP_NAME_MAX], shownname[4 * HEAP_NAME_MAX];
	if (r->fmt == FMT_TEXT) {
		printf("%s: %s object%s, %s", what, count_text(n), plural_s(n), size_text(bytes));
		if (n)
			printf(", %s %s%s\n  %14s %9s  %s\n", count_text(classes), heap_is_v8(h) ? "constructor" : "class",
			       plural(classes, "", heap_is_v8(h) ? "s" : "es"), "bytes", "objects",
			       heap_is_v8(h) ? "constructor" : "class");
		else
			printf("\n");
	} else if (r->fmt == FMT_JSON) {
		printf(",\"%s\":{\"objects\":%u,\"bytes\":%llu", what, n, (unsigned long long)bytes);
		json_list_begin("by_class", classes, c.n);
	} else {
		printf("%s,,,%u,%llu,\n", what, n, (unsigned long long)bytes);
	}
	for (size_t k = 0; k < c.n; k++) {
		const class_row *row = &c.top[CLASS_BY_BYTES][k];
		heap_name(h, row->cls, name, sizeof name);
		view_copy(shownname, sizeof shownname, name);
		if (r->fmt == FMT_TEXT) {
			printf("  %14s %9s  %s\n", size_text(row->bytes), count_text(row->count), shownname);
		} else if (r->fmt == FMT_JSON) {
			printf("%s{\"class_idx\":%d,\"class\":", k ? "," : "", row->cls);
			json_str(stdout, shownname);
			printf(",\"objects\":%u,\"bytes\":%llu}", row->count, (unsigned long long)row->bytes);
		} else {
			printf("%s_class,%d,", what, row->cls);
			csv_str(stdout, shownname);
			printf(",%u,%llu,\n", row->count, (unsigned long long)row->bytes);
		}
	}
	if (r->fmt == FMT_TEXT && c.n < classes) {
		printf("  ");
		print_shown(c.n, classes, heap_is_v8(h) ? "constructors" : "classes");
	}
	if (r->fmt == FMT_JSON)
		printf("]}}");
	class_hist_free(&c);
	return 0;
}

/* One line (or JSON object, or CSV row) about each change. */
static void print_changes(const report *r, view *v, const whatif_change *c, size_t n)
{
	const heap *h = r->h;
	if (r->fmt == FMT_TEXT)
		printf("what if:\n");
	if (r->fmt == FMT_JSON)
		printf(",\"changes\":[");
	const whatif_result *w = r->w;
	for (size_t k = 0; k < n; k++) {
		/* one change: what the run removed; several: each on its own */
		uint32_t removed = n == 1 ? w->refs_removed + w->gcrefs_removed + w->implicit_removed + w->list_entries_removed
				 : whatif_count(h, &c[k]);
		obj_info o;
		int have = c[k].obj != OBJ_NONE && v->ops->object(v, c[k].obj, &o) == 0;
		char what[VIEW_TEXT] = "";
		if (c[k].kind == WI_NULL_PROPERTY || c[k].kind == WI_DROP_REFERENCER)
			view_copy(what, sizeof what, heap_str(h, c[k].str));
		else if (c[k].kind == WI_NULL_RECORD)
			snprintf(what, sizeof what, "%u", c[k].record);
		if (r->fmt == FMT_TEXT) {
			printf("  --%s", whatif_kind_names[c[k].kind]);
			if (have)
				printf(" #%d %s", o.idx, object_text(v, &o));
			if (c[k].kind == WI_NULL_PROPERTY)
				printf(" property %s", what);
			else if (c[k].kind == WI_NULL_RECORD)
				printf(" record %s", what);
			else if (c[k].kind == WI_DROP_REFERENCER)
				printf(" %s", what);
			printf(": %s reference%s removed\n", count_text(removed), plural_s(removed));
		} else if (r->fmt == FMT_JSON) {
			printf("%s{\"change\":\"%s\",\"idx\":", k ? "," : "", whatif_kind_names[c[k].kind]);
			if (have) {
				printf("%d,\"path\":", o.idx);
				json_str(stdout, o.path);
				json_node_id(stdout, &o);
			} else {
				printf("null");
			}
			if (c[k].kind == WI_NULL_RECORD) {
				printf(",\"record\":%u", c[k].record);
			} else if (c[k].kind == WI_NULL_PROPERTY || c[k].kind == WI_DROP_REFERENCER) {
				printf(",\"%s\":", c[k].kind == WI_DROP_REFERENCER ? "referencer" : "property");
				json_str(stdout, what);
			}
			printf(",\"references_removed\":%u}", removed);
		} else {
			/* change,IDX,PATH,REMOVED,,KIND[ PROPERTY|RECORD|REFERENCER] */
			printf("change,");
			if (have) {
				printf("%d,", o.idx);
				csv_str(stdout, o.path);
			} else {
				printf(",");
			}
			char detail[VIEW_TEXT + 32];
			snprintf(detail, sizeof detail, "%s%s%s", whatif_kind_names[c[k].kind], what[0] ? " " : "", what);
			printf(",%u,,", removed);
			csv_str(stdout, detail);
			printf("\n");
		}
		if (have)
			obj_info_free(&o);
	}
	if (r->fmt == FMT_JSON)
		printf("]");
}

/* Each object aimed at: freed, or what keeps it now (as `path` shows it). */
static int print_targets(const report *r, view *after, const obj_t *t, uint32_t n)
{
	const whatif_result *w = r->w;
	if (r->fmt == FMT_TEXT)
		printf("aimed at (each freed, or the chain that still keeps it after the change):\n");
	size_t shown = r->limit && r->limit < n ? r->limit : n;
	if (r->fmt == FMT_JSON)
		json_list_begin("targets", n, shown);
	for (size_t k = 0; k < shown; k++) {
		obj_t x = t[k];
		int survives = w->after.reachable[x], was = r->before->reachable[x];
		if (r->fmt == FMT_JSON) {
			int rc = path_shortest(after, x, FMT_JSON, k == 0);
			if (rc)
				return rc;
			continue;
		}
		obj_info o;
		if (after->ops->object(after, x, &o))
			return error("%s", after->err);
		if (r->fmt == FMT_CSV) {
			printf("target,%d,", x);
			csv_str(stdout, o.path);
			printf(",1,%u,%s\n", o.size, survives ? "survives" : was ? "freed" : "unreachable-before");
		} else if (!survives) {
			printf("#%d %s: %s\n", x, object_text(after, &o),
			       was ? "freed" : "unreachable before the change too");
		}
		obj_info_free(&o);
		if (r->fmt == FMT_TEXT && survives) {
			int rc = path_shortest(after, x, FMT_TEXT, k == 0);
			if (rc)
				return rc;
		}
	}
	if (r->fmt == FMT_TEXT)
		print_shown(shown, n, "objects aimed at");
	if (r->fmt == FMT_JSON)
		printf("]}");
	return 0;
}

static int print_report(report *r, view *before, const whatif_change *c, size_t n)
{
	whatif_result *w = r->w;
	reachable_totals(r->h, r->before->reachable, r->reach_before);
	reachable_totals(r->h, w->after.reachable, r->reach_after);
	obj_t *targets;
	uint32_t ntargets;
	if (whatif_targets(r->h, c, n, &targets, &ntargets))
		return error("out of memory");
	if (r->fmt == FMT_JSON) {
		json_begin("whatif");
	} else if (r->fmt == FMT_CSV) {
		printf("row,idx,name,objects,bytes,detail\n");
	}
	print_changes(r, before, c, n);
	const char *names[2] = {"before", "after"};
	uint64_t *tot[2] = {r->reach_before, r->reach_after};
	for (int k = 0; k < 2; k++) {
		if (r->fmt == FMT_TEXT)
			printf("%-7s %s object%s reachable (%s)\n", names[k], count_text(tot[k][0]), plural_s(tot[k][0]),
			       size_text(tot[k][1]));
		else if (r->fmt == FMT_JSON)
			printf(",\"%s\":{\"reachable\":%llu,\"bytes\":%llu}", names[k], (unsigned long long)tot[k][0],
			       (unsigned long long)tot[k][1]);
		else
			printf("%s,,,%llu,%llu,\n", names[k], (unsigned long long)tot[k][0], (unsigned long long)tot[k][1]);
	}
	int rc = print_by_class(r, "freed", w->lost, w->nlost, w->lost_bytes);
	if (rc == 0 && (w->ngained || r->fmt != FMT_TEXT))
		rc = print_by_class(r, "gained", w->gained, w->ngained, w->gained_bytes);
	if (rc == 0 && r->fmt == FMT_TEXT && w->ngained)
		printf("  (made reachable by the change: only cluster lists can do that)\n");
	view *after = NULL;
	if (rc == 0) {
		char err[256];
		after = view_heap_borrow(&w->shown, &w->after, err, sizeof err);
		rc = after ? print_targets(r, after, targets, ntargets) : error("%s", err);
	}
	if (after)
		after->ops->close(after);
	if (rc == 0 && r->fmt == FMT_JSON)
		json_end();
	free(targets);
	return rc;
}

/* The heap and the options of the run to compare with: a snapshot with its
 * mode's keep flags, or a database with those its analysis ran with; or
 * --keep-flags.  0, or 1 after printing the error. */
struct whatif_opts {
	const char *keep_arg;
	int format;
	long long threads, limit;
	struct change_list {
		change_arg *v; /* room for one per argument */
		size_t n;
	} changes;
};

/* --garbage, --cut, ...: one more change, of the kind the option's defval says. */
static const char *change(const option *opt, void *list, const char *arg)
{
	struct change_list *l = list;
	l->v[l->n++] = (change_arg){(uint8_t)opt->defval, arg};
	return NULL;
}

#define W struct whatif_opts
#define CHANGE(name, kind, argh, help) OPT_CALLBACK(0, name, W, changes, struct change_list, change, kind, argh, help)
static const option options[] = {
	OPT_GROUP("Changes, any number:"),
	CHANGE("garbage", WI_GARBAGE, "OBJ",
	       "OBJ is marked as garbage (Garbage,\n"
	       "RF_MirroredGarbage): killable references to it are\n"
	       "nulled, immutable ones (an inner's Outer, an\n"
	       "instance's Class) still keep it"),
	CHANGE("cut", WI_CUT, "OBJ",
	       "every reference into OBJ goes: objects' references\n"
	       "(r records) of every kind, FGCObjects' (g records),\n"
	       "its instances' Class and inners' Outer, its entries\n"
	       "in cluster lists; and its root reasons (RootSet,\n"
	       "RefCounted, KeepFlags).  Frees what OBJ dominates"),
	CHANGE("unroot", WI_UNROOT, "OBJ", "only OBJ's root reasons go, and the FGCObjects'\nreferences (g records) into it"),
	CHANGE("null", WI_NULL_PROPERTY, "OBJ.PROPERTY",
	       "OBJ's references (r records) named PROPERTY go;\n"
	       "--null OBJ:N (N a number) takes OBJ's N-th one\n"
	       "instead (from 0, in file order, as 'refs INPUT OBJ\n"
	       "--out' lists them after Class and Outer)"),
	CHANGE("drop-referencer", WI_DROP_REFERENCER, "NAME", "every reference the FGCObject NAME holds (its g\nrecords) goes"),
	OPT_GROUP("Options:"),
	OPT_FORMAT(W, format, "text (default), json or csv (no chains: see 'path')"),
	OPT_LIMIT_RANGE(W, limit, 0, 1000000000,
		"classes listed, and objects aimed at shown (default\n10, 0: all); the totals are always printed"),
	OPT_INT(0, "threads", W, threads, 1, 64, "N", "marking threads (default: the number of cores)"),
	OPT_STRING(0, "keep-flags", W, keep_arg, "LIST",
		   "RF_ flags that keep objects alive, for both runs\n(default: the input's mode's; '-' for none)"),
	OPT_END(),
};
#undef CHANGE
#undef W

const command command_whatif = {
	"whatif", cmd_whatif, "what the GC would free if an object were garbage, cut off or unrooted",
	"usage: ugc-analyze whatif INPUT CHANGE... [--format text|json|csv] [--limit N]\n"
	"                          [--threads N] [--keep-flags LIST]\n",
	"Applies the changes to a copy of the heap, runs the whole GC again and reports\n"
	"every object reachable before and unreachable after (count, bytes, by class),\n"
	"any object made reachable (only cluster lists can do that), and for each object\n"
	"the changes aim at that still survives, the retention chain that keeps it now.\n"
	"INPUT is a snapshot or a database written by analyze; OBJ is an index (123 or\n"
	"#123), a V8 node id (@123), a path name or a full name ('Class /Path').\n",
	options, 1, "(changes are options: --cut OBJ, ...)",
};

int cmd_whatif(int argc, char **argv)
{
	struct whatif_opts opts = {.format = FMT_TEXT, .threads = cpu_cores(), .limit = 10};
	const char *input = NULL;
	if (!(opts.changes.v = calloc((size_t)argc + 1, sizeof *opts.changes.v)))
		return error("out of memory");
	int parsed = parse_options(&command_whatif, argc, argv, &opts, &input);
	if (parsed < 0) {
		free(opts.changes.v);
		return OPT_EXIT_STATUS(parsed);
	}
	const char *keep_arg = opts.keep_arg;
	enum out_format fmt = opts.format;
	long long threads = opts.threads, limit = opts.limit;
	change_arg *args = opts.changes.v;
	size_t nargs = opts.changes.n;
	int rc = 0;
	uint32_t keep = 0;
	char bad[256];
	if (rc == 0 && keep_arg && strcmp(keep_arg, "-") && flags_parse_object(keep_arg, &keep, bad, sizeof bad))
		rc = usage_error("whatif", "--keep-flags: '%s' is not an RF_ object flag", bad);
	if (rc == 0 && !input)
		rc = usage_error("whatif", "needs INPUT");
	if (rc == 0 && nargs == 0)
		rc = usage_error("whatif", "needs at least one change (--garbage, --cut, --unroot, --null, --drop-referencer)");
	for (size_t k = 0; rc == 0 && k < nargs; k++) {
		const char *why = args[k].kind == WI_NULL_PROPERTY ? null_syntax(args[k].arg) : NULL;
		if (why)
			rc = usage_error("whatif", "--null takes OBJ.PROPERTY or OBJ:N, not '%s'%s", args[k].arg, why);
	}
	if (rc) {
		free(args);
		return rc;
	}
	/* the input's GC as it is, then again with the changes */
	pipeline p;
	pipeline_options po = PIPELINE_OPTIONS_INIT;
	po.threads = (int)threads;
	po.keep_given = keep_arg != NULL;
	po.keep_flags = keep;
	char err[SNAP_ERR_MAX];
	if (input_open_heap(&p, input, &po, err, sizeof err)) {
		free(args);
		return error("%s", err);
	}
	whatif_change *changes = calloc(nargs, sizeof *changes);
	if (!changes)
		rc = error("out of memory");
	else if (pipeline_need(&p, PIPE_GC, err, sizeof err))
		rc = error("%s", err);
	if (rc) {
		free(changes);
		free(args);
		pipeline_free(&p);
		return rc;
	}
	heap *h = &p.h;
	gc_result *before = &p.r;
	view *v = view_heap_borrow(h, before, err, sizeof err);
	rc = v ? resolve(v, h, args, nargs, changes) : error("%s", err);
	input_ready_at = now_seconds();
	whatif_result w;
	progress_phase("gc after the changes");
	if (rc == 0 && whatif_run(h, before, &p.opt, changes, nargs, &w))
		rc = error("out of memory running the changed GC");
	progress_phase(NULL);
	if (rc == 0) {
		report r = {h, before, &w, fmt, (size_t)limit, {0, 0}, {0, 0}};
		rc = print_report(&r, v, changes, nargs);
		fflush(stdout);
		answered_at = now_seconds();
		whatif_free(&w);
	}
	if (v)
		v->ops->close(v);
	pipeline_free(&p);
	free(changes);
	free(args);
	return rc;
}
