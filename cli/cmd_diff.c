/* cmd_diff.c — `ugc-analyze diff A B`: what grew, what went, what is new
 * between two snapshots or databases; and leak mode, `diff --baseline A
 * --target B --final C`: objects new in B still alive in C, folded under
 * their leak roots and grouped by their roots' retention chain with
 * numbered names made generic (analysis/diff_report.h computes, this
 * prints). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "base/base.h"
#include "analysis/analysis.h"
#include "sql/sql.h"
#include "snapshot/snapshot.h"

/* One marking thread: the sides load in parallel, a core each.  LEAK: the
 * final side of leak mode (input_leak_side). */
static int load_side(const char *path, int leak, diff_side *s)
{
	char err[SNAP_ERR_MAX];
	if ((leak ? input_leak_side : input_diff_side)(path, 1, s, err, sizeof err)) {
		diff_side_free(s);
		return error("%s", err);
	}
	return 0;
}

/* Load several sides at once: each on its own thread (they share nothing). */
struct side_job {
	const char *path;
	diff_side *side;
	int leak, rc;
};

static void *side_thread(void *p)
{
	struct side_job *j = p;
	j->rc = load_side(j->path, j->leak, j->side);
	return NULL;
}

/* LEAK: the last side is leak mode's final one. */
static int load_sides(const char *const *paths, diff_side *sides, int n, int leak)
{
	struct side_job jobs[3];
	int rc = 0;
	for (int k = 0; k < n; k++)
		jobs[k] = (struct side_job){paths[k], &sides[k], leak && k == n - 1, 0};
	jobs_pool(side_thread, jobs, sizeof jobs[0], n);
	for (int k = 0; k < n; k++)
		rc |= jobs[k].rc;
	if (rc)
		for (int k = 0; k < n; k++)
			if (jobs[k].rc == 0)
				diff_side_free(&sides[k]);
	return rc;
}

/* Facts of B not in A. */
static void print_facts(const diff_fact_rows *x, const char *title, const char *key, const char *what,
			enum out_format fmt)
{
	if (fmt == FMT_TEXT)
		printf("%s: %s\n", title, count_text(x->count));
	if (fmt == FMT_JSON)
		json_list_begin(key, x->count, x->n);
	for (size_t k = 0; k < x->n; k++) {
		if (fmt == FMT_TEXT)
			printf("  %s\n", disp(x->v[k]));
		else if (fmt == FMT_CSV) {
			printf("%s,", title);
			csv_str(stdout, disp(x->v[k]));
			printf(",,,,,,,\n");
		} else {
			printf("%s", k ? "," : "");
			json_str(stdout, x->v[k]);
		}
	}
	if (fmt == FMT_JSON)
		printf("]}");
	else if (fmt == FMT_TEXT)
		print_shown(x->n, x->count, what);
}

/* Retained bytes by class (a V8 heap's: by constructor, V8) on each
 * side, the largest changes first. */
static void print_retained(const diff_retained_rows *x, enum out_format fmt, int v8)
{
	const char *word = v8 ? "constructor" : "class";
	if (fmt == FMT_TEXT)
		printf("retained by %s (policy gc): %s of %s %s%s changed\n  %-44s %14s %14s %15s\n", word,
		       count_text(x->changed), count_text(x->classes), word, plural(x->classes, "", v8 ? "s" : "es"), word,
		       "A retained", "B retained", "change");
	else if (fmt == FMT_JSON)
		json_list_begin("retained_by_class", x->changed, x->n);
	for (size_t k = 0; k < x->n; k++) {
		const diff_retained_row *v = &x->v[k];
		long long change = (long long)v->b - (long long)v->a;
		if (fmt == FMT_TEXT) {
			printf("  %-44s %14s %14s %15s\n", disp(v->name), size_text(v->a), size_text(v->b),
			       size_diff_text(change));
		} else if (fmt == FMT_CSV) {
			printf("retained by class,");
			csv_str(stdout, disp(v->name));
			printf(",,,%llu,%llu,,,\n", (unsigned long long)v->a, (unsigned long long)v->b);
		} else {
			printf("%s{\"class\":", k ? "," : "");
			json_str(stdout, v->name);
			printf(",\"a\":%llu,\"b\":%llu}", (unsigned long long)v->a, (unsigned long long)v->b);
		}
	}
	if (fmt == FMT_JSON)
		printf("]}");
	else if (fmt == FMT_TEXT)
		print_shown(x->n, x->changed, v8 ? "constructors that changed" : "classes that changed");
}

/* Objects added and removed by class (a V8 heap's: by constructor, V8),
 * package or outer. */
static void print_groups(const group_rows *g, enum diff_by by, const char *title, const char *key,
			 enum out_format fmt, int v8)
{
	const char *word = by == DIFF_BY_CLASS ? (v8 ? "constructor" : "class") : by == DIFF_BY_PACKAGE ? "package" : "outer";
	if (fmt == FMT_TEXT) {
		printf("%s:\n  %-44s %9s %9s %9s %14s %14s %14s %8s %8s\n", title, word,
		       "A count", "B count", "delta", "A bytes", "B bytes", "delta", "added", "removed");
	}
	if (fmt == FMT_JSON)
		json_list_begin(key, g->total, g->n);
	for (size_t k = 0; k < g->n; k++) {
		const group_row *x = &g->v[k];
		long long dc = (long long)x->b_count - (long long)x->a_count, db = (long long)x->b_bytes - (long long)x->a_bytes;
		if (fmt == FMT_TEXT)
			printf("  %-44s %9s %9s %9s %14s %14s %14s %8s %8s\n", disp(x->name), count_text(x->a_count),
			       count_text(x->b_count), count_diff_text(dc), size_text(x->a_bytes), size_text(x->b_bytes),
			       size_diff_text(db), count_text(x->added), count_text(x->removed));
		else if (fmt == FMT_CSV) {
			printf("%s,", title);
			csv_str(stdout, disp(x->name));
			printf(",%llu,%llu,%llu,%llu,%llu,%llu,%llu\n", (unsigned long long)x->a_count, (unsigned long long)x->b_count,
			       (unsigned long long)x->a_bytes, (unsigned long long)x->b_bytes, (unsigned long long)x->added,
			       (unsigned long long)x->removed, (unsigned long long)x->kept);
		} else {
			printf("%s{\"%s\":", k ? "," : "", by == DIFF_BY_CLASS ? "class" : by == DIFF_BY_PACKAGE ? "package" : "outer");
			json_str(stdout, x->name);
			printf(",\"a_count\":%llu,\"b_count\":%llu,\"a_bytes\":%llu,\"b_bytes\":%llu,\"added\":%llu,\"removed\":%llu,"
			       "\"kept\":%llu}", (unsigned long long)x->a_count, (unsigned long long)x->b_count,
			       (unsigned long long)x->a_bytes, (unsigned long long)x->b_bytes, (unsigned long long)x->added,
			       (unsigned long long)x->removed, (unsigned long long)x->kept);
		}
	}
	if (fmt == FMT_JSON)
		printf("]}");
	else if (fmt == FMT_TEXT)
		print_shown(g->n, g->total, by == DIFF_BY_CLASS ? (v8 ? "constructors that changed" : "classes that changed")
					    : by == DIFF_BY_PACKAGE ? "packages that changed" : "outers that changed");
}

/* Objects of B that a rule selected, listed with their count (new roots with their kind). */
static void print_objects(const diff_object_rows *x, int roots, const char *title, const char *key,
			  enum out_format fmt)
{
	if (fmt == FMT_TEXT)
		printf("%s: %s\n", title, count_text(x->count));
	if (fmt == FMT_JSON)
		json_list_begin(key, x->count, x->n);
	for (size_t k = 0; k < x->n; k++) {
		const diff_object_row *o = &x->v[k];
		const char *kind = root_kind_names[o->root_kind < RK_COUNT ? o->root_kind : 0];
		if (fmt == FMT_TEXT)
			printf("  #%d %s%s%s\n", o->idx, disp(o->name), roots ? "  " : "", roots ? kind : "");
		else if (fmt == FMT_CSV) {
			printf("%s,", title);
			csv_str(stdout, disp(o->name));
			printf(",%d,%s,,,,,\n", o->idx, roots ? kind : "");
		} else {
			printf("%s{\"idx\":%d,\"name\":", k ? "," : "", o->idx);
			json_str(stdout, o->name);
			if (roots)
				printf(",\"root_kind\":\"%s\"", kind);
			printf("}");
		}
	}
	if (fmt == FMT_JSON)
		printf("]}");
	else if (fmt == FMT_TEXT)
		print_shown(x->n, x->count, "objects");
}

static int pairwise(const char *pa, const char *pb, enum out_format fmt, long top, const char *out, int force)
{
	diff_side sides[2] = {0}; /* zeroed: freeable whichever side fails to load */
	const char *paths[2] = {pa, pb};
	char err[SNAP_ERR_MAX];
	if (out && check_output(out, force))
		return 1;
	/* --force never makes the database overwrite a side it compares */
	if (out && (outfile_check_input(out, pa, err, sizeof err) || outfile_check_input(out, pb, err, sizeof err)))
		return error("%s", err);
	double t0 = now_seconds();
	if (load_sides(paths, sides, 2, 0))
		return 1;
	diff_side a = sides[0], b = sides[1];
	diff_result r;
	diff_report rep;
	int rc = 0;
	double t1 = now_seconds();
	trace_printf("diff: sides loaded in %.3f s", t1 - t0);
	progress_phase("compare");
	if (diff_compare(&a, &b, &r)) {
		rc = error("out of memory comparing");
		goto done;
	}
	if (diff_report_build(&a, &b, &r, (size_t)top, &rep)) {
		diff_result_free(&r);
		rc = error("out of memory reporting the diff of %s and %s", pa, pb);
		goto done;
	}
	progress_phase(NULL);
	if (fmt == FMT_TEXT) {
		printf("diff %s -> %s: %s\n", disp(pa), disp(pb),
		       a.v8 || b.v8 ? "V8 heaps (objects matched by constructor and node id: V8 keeps a node's id for its "
				      "life in one process)"
		       : r.same_process ? "one process (objects matched by index and serial as well as by name)"
					: "different processes (objects matched by class and path name)");
		printf("objects: A %s (%s), B %s (%s): %s kept, %s added, %s removed", count_text(a.n),
		       size_text(rep.a_bytes), count_text(b.n), size_text(rep.b_bytes), count_text(r.kept),
		       count_text(r.added), count_text(r.removed));
		if (a.v8 || b.v8) /* V8 heaps have no slots to reuse */
			printf("\n");
		else
			printf(", %s replaced; %s slot%s reused\n", count_text(r.replaced), count_text(r.reused_slots),
			       plural_s(r.reused_slots));
	} else if (fmt == FMT_JSON) {
		json_begin("diff");
		printf(",\"a\":");
		json_str(stdout, pa);
		printf(",\"b\":");
		json_str(stdout, pb);
		printf(",\"same_process\":%s,\"a_objects\":%u,\"b_objects\":%u,\"a_bytes\":%llu,\"b_bytes\":%llu,\"kept\":%u,"
		       "\"added\":%u,\"removed\":%u,\"replaced\":%u,\"reused_slots\":%u", r.same_process ? "true" : "false",
		       a.n, b.n, (unsigned long long)rep.a_bytes, (unsigned long long)rep.b_bytes, r.kept, r.added, r.removed,
		       r.replaced, r.reused_slots);
	} else {
		printf("section,key,a_count,b_count,a_bytes,b_bytes,added,removed,kept\n");
		printf("summary,objects,%u,%u,%llu,%llu,%u,%u,%u\n", a.n, b.n, (unsigned long long)rep.a_bytes,
		       (unsigned long long)rep.b_bytes, r.added, r.removed, r.kept);
	}
	int v8 = a.v8 || b.v8;
	print_groups(&rep.classes, DIFF_BY_CLASS, v8 ? "constructor histogram" : "class histogram", "class_histogram", fmt,
		     v8);
	print_retained(&rep.retained, fmt, v8);
	/* V8 heaps: one package (/V8), no garbage flags, roots, eliminations or
	 * clusters: their sections are left out of text (JSON and CSV keep their shape) */
	if (fmt != FMT_TEXT || !v8) {
		print_groups(&rep.packages, DIFF_BY_PACKAGE, "added and removed by package", "by_package", fmt, v8);
		print_groups(&rep.outers, DIFF_BY_OUTER, "added and removed by outer", "by_outer", fmt, v8);
		print_objects(&rep.garbage_alive, 0, "garbage in A still alive in B", "garbage_still_alive", fmt);
		print_objects(&rep.new_roots, 1, "new roots", "new_roots", fmt);
		print_facts(&rep.new_eliminated, "new eliminated references", "new_eliminated_references", "references", fmt);
		print_facts(&rep.new_disagreements, "new cluster disagreements", "new_cluster_disagreements", "disagreements",
			    fmt);
	}
	if (fmt == FMT_JSON)
		json_end();
	diff_report_free(&rep);
	trace_printf("diff: compared and reported in %.3f s", now_seconds() - t1);
	if (out) {
		char err[SNAP_ERR_MAX];
		fflush(stdout); /* the report is out before the write */
		progress_begin_file("write", out);
		if (diff_store(out, force, &a, &b, &r, err, sizeof err))
			rc = error("%s", err);
	}
	diff_result_free(&r);
done:
	diff_side_free(&a);
	diff_side_free(&b);
	return rc;
}

/* ---- leak mode ---- */

/* A group's leaked objects by class (a V8 heap's: by constructor, V8), on
 * one line: at most TYPES_SHOWN classes, all with --limit 0 (ALL). */
#define TYPES_SHOWN 10
static void print_types_text(const diff_leak_group *x, int all, int v8)
{
	size_t shown = all || x->ntypes < TYPES_SHOWN ? x->ntypes : TYPES_SHOWN;
	printf("  types:");
	for (size_t t = 0; t < shown; t++)
		printf("%s %s %s", t ? "," : "", count_text(x->types[t].count), disp(x->types[t].name));
	if (shown < x->ntypes)
		printf(" (showing %s of %s %s, --limit 0 shows all)", count_text(shown), count_text(x->ntypes),
		       v8 ? "constructors" : "classes");
	putchar('\n');
}

/* The display form of a name or chain IN, and on a V8 heap (V8) each
 * object in it ("Class /V8.Name@ID", separated by " -> " and " = ") as
 * text names a V8 object, "Class Name @ID" ("Object @7", "(closure)
 * onReload @*"): into a malloc'd string, or IN's display form when out of
 * memory or not V8.  Free with free() when it is not IN's display form:
 * *OWNED says. */
const char *v8_text(const char *in, int v8, int *owned)
{
	*owned = 0;
	const char *d = disp(in);
	if (!v8 || !strstr(d, " /V8."))
		return d;
	size_t n = strlen(d);
	char *out = malloc(2 * n + 1); /* each object gains at most one ' ' */
	if (!out)
		return d;
	size_t o = 0;
	for (const char *p = d; *p;) {
		const char *m = strstr(p, " /V8.");
		if (!m) {
			size_t k = strlen(p);
			memcpy(out + o, p, k);
			o += k;
			break;
		}
		/* the class: from the last separator before M */
		const char *cls = p;
		for (const char *q = p; q < m; q++)
			if (!strncmp(q, " -> ", 4) || !strncmp(q, " = ", 3))
				cls = q + (q[1] == '-' ? 4 : 3);
		if (cls > m) /* a separator overlapping " /V8.": no class before it */
			cls = m;
		memcpy(out + o, p, (size_t)(cls - p));
		o += (size_t)(cls - p);
		size_t clen = (size_t)(m - cls);
		const char *name = m + 5, *end = strstr(name, " -> ");
		if (!end)
			end = name + strlen(name);
		const char *at = end; /* "@ID" or a generic "@*" at the end, else none */
		while (at > name && at[-1] != '@')
			at--;
		if (at > name && !(end - at == 1 && *at == '*') &&
		    name_node_id(at - 1, (size_t)(end - at + 1)) < 0)
			at = name;
		size_t base = at > name ? (size_t)(at - 1 - name) : (size_t)(end - name);
		memcpy(out + o, cls, clen);
		o += clen;
		if (base && !(base == clen && !memcmp(name, cls, clen))) {
			size_t shown = v8_name_shown(name, base); /* a long string's text: cut */
			out[o++] = ' ';
			memcpy(out + o, name, shown);
			o += shown;
			if (shown < base) {
				memcpy(out + o, "...", 3);
				o += 3;
			}
		}
		if (at > name) {
			out[o++] = ' ';
			out[o++] = '@';
			memcpy(out + o, at, (size_t)(end - at));
			o += (size_t)(end - at);
		}
		p = end;
	}
	out[o] = '\0';
	*owned = 1;
	return out;
}

static void print_leak_text(const diff_leaks *l, const char *pa, const char *pb, const char *pc, size_t limit,
			    int v8)
{
	printf("leaks: objects new in %s (absent from %s) still alive in %s after its GC\n", disp(pb), disp(pa), disp(pc));
	printf("%s object%s (%s) under %s leak root%s retaining %s, in %s group%s by retention trace (the most retained first)\n",
	       count_text(l->candidates), plural_s(l->candidates), size_text(l->bytes), count_text(l->roots),
	       plural_s(l->roots), size_text(l->retained), count_text(l->groups), plural_s(l->groups));
	if (l->system)
		printf("left out: %s object%s only roots that hold no program state keep (strings, code, caches)\n",
		       count_text(l->system), plural_s(l->system));
	for (size_t g = 0; g < l->n; g++) {
		const diff_leak_group *x = &l->v[g];
		int owned;
		const char *chain = v8_text(x->chain, v8, &owned);
		printf("\ngroup %zu: %s object%s under %s leak root%s, %s retained (%s shallow)\n  chain: %s\n", g + 1,
		       count_text(x->count), plural_s(x->count), count_text(x->roots), plural_s(x->roots),
		       size_text(x->retained), size_text(x->bytes), chain);
		if (owned)
			free((char *)chain);
		print_types_text(x, limit >= (size_t)1 << 40, v8);
		printf("  trace to #%d, retained at each hop:\n", x->idx);
		for (size_t h = 0; h < x->ntrace; h++) {
			const diff_leak_hop *p = &x->trace[h];
			const char *object = v8_text(p->object, v8, &owned);
			if (p->edge)
				printf("  %12s  -> %s = #%d %s\n", size_text(p->retained), disp(p->edge), p->idx, object);
			else if (p->holder)
				printf("  %12s  #%d %s  (gcobject: held by FGCObject %s)\n", size_text(p->retained), p->idx,
				       object, disp(p->holder));
			else
				printf("  %12s  #%d %s  (%s)\n", size_text(p->retained), p->idx, object,
				       v8 ? "the root" : root_kind_names[p->root_kind < RK_COUNT ? p->root_kind : 0]);
			if (owned)
				free((char *)object);
		}
	}
	if (l->n < l->groups)
		putchar('\n');
	print_shown(l->n, l->groups, "groups");
}

static void print_leak_json(const diff_leaks *l, const char *pa, const char *pb, const char *pc)
{
	json_begin("diff");
	printf(",\"mode\":\"leaks\",\"baseline\":");
	json_str(stdout, pa);
	printf(",\"target\":");
	json_str(stdout, pb);
	printf(",\"final\":");
	json_str(stdout, pc);
	printf(",\"total_objects\":%u,\"total_bytes\":%llu,\"total_leak_roots\":%u,\"total_retained\":%llu,"
	       "\"total_groups\":%zu,\"left_out_system\":%u",
	       l->candidates, (unsigned long long)l->bytes, l->roots, (unsigned long long)l->retained, l->groups,
	       l->system);
	json_list_begin("groups", l->groups, l->n);
	for (size_t g = 0; g < l->n; g++) {
		const diff_leak_group *x = &l->v[g];
		printf("%s{\"objects\":%u,\"leak_roots\":%u,\"retained\":%llu,\"bytes\":%llu,\"chain\":", g ? "," : "",
		       x->count, x->roots, (unsigned long long)x->retained, (unsigned long long)x->bytes);
		json_str(stdout, x->chain);
		printf(",\"representative\":%d,\"name\":", x->idx);
		json_str(stdout, x->name);
		printf(",\"trace\":[");
		for (size_t h = 0; h < x->ntrace; h++) {
			const diff_leak_hop *p = &x->trace[h];
			printf("%s{\"edge\":", h ? "," : "");
			if (p->edge)
				json_str(stdout, p->edge);
			else
				printf("null");
			printf(",\"idx\":%d,\"object\":", p->idx);
			json_str(stdout, p->object);
			printf(",\"retained\":%llu", (unsigned long long)p->retained);
			if (h == 0)
				printf(",\"root_kind\":\"%s\"", root_kind_names[p->root_kind < RK_COUNT ? p->root_kind : 0]);
			if (p->holder) {
				printf(",\"holder\":");
				json_str(stdout, p->holder);
			}
			printf("}");
		}
		printf("],\"types\":{\"total\":%zu,\"shown\":%zu,\"items\":[", x->ntypes, x->ntypes);
		for (size_t t = 0; t < x->ntypes; t++) {
			printf("%s{\"class\":", t ? "," : "");
			json_str(stdout, x->types[t].name);
			printf(",\"objects\":%u}", x->types[t].count);
		}
		printf("]}}");
	}
	printf("]}");
	json_end();
}

static void print_leak_csv(const diff_leaks *l)
{
	printf("group,objects,leak_roots,retained,bytes,representative,chain\n");
	for (size_t g = 0; g < l->n; g++) {
		const diff_leak_group *x = &l->v[g];
		printf("%zu,%u,%u,%llu,%llu,%d,", g + 1, x->count, x->roots, (unsigned long long)x->retained,
		       (unsigned long long)x->bytes, x->idx);
		csv_str(stdout, disp(x->chain));
		putchar('\n');
	}
}

static int leaks(const char *pa, const char *pb, const char *pc, enum out_format fmt, long long top)
{
	diff_side sides[3] = {0}; /* as in pairwise */
	const char *paths[3] = {pa, pb, pc};
	if (load_sides(paths, sides, 3, 1))
		return 1;
	diff_side a = sides[0], b = sides[1], c = sides[2];
	diff_result ab = {0}, bc = {0};
	diff_leaks l = {0};
	int rc = 0;
	if (diff_compare(&a, &b, &ab) || diff_compare(&b, &c, &bc)) {
		rc = error("out of memory comparing");
		goto done;
	}
	if (diff_leak_groups(&b, &c, &ab, &bc, (size_t)top, &l)) {
		rc = error("out of memory grouping the leaks of %s", pc);
		goto done;
	}
	if (fmt == FMT_TEXT)
		print_leak_text(&l, pa, pb, pc, (size_t)top, b.v8 || c.v8);
	else if (fmt == FMT_JSON)
		print_leak_json(&l, pa, pb, pc);
	else
		print_leak_csv(&l);
done:
	diff_leaks_free(&l);
	diff_result_free(&ab);
	diff_result_free(&bc);
	diff_side_free(&a);
	diff_side_free(&b);
	diff_side_free(&c);
	return rc;
}

struct diff_opts {
	const char *baseline, *target, *final, *out;
	int format, force;
	long long top;
};

#define D struct diff_opts
static const option options[] = {
	OPT_STRING('o', NULL, D, out, "DIFF.db", "store the status of every object and the aggregates in SQLite"),
	OPT_FLAG(0, "force", D, force, "overwrite DIFF.db if it exists"),
	OPT_STRING(0, "baseline", D, baseline, "A", "leak mode: the snapshot before"),
	OPT_STRING(0, "target", D, target, "B", "leak mode: the snapshot with the objects to follow"),
	OPT_STRING(0, "final", D, final, "C", "leak mode: the snapshot after, where they should be gone"),
	OPT_LIMIT(D, top, "rows a list (default 20, 0: all); counts are always complete"),
	OPT_TOP_ALIAS(D, top, 0, 1LL << 40),
	OPT_FORMAT(D, format, "text (default), json or csv"),
	OPT_END(),
};
#undef D

const command command_diff = {
	"diff", cmd_diff, "compare two snapshots or databases; or find leaks across three",
	"usage: ugc-analyze diff A B [-o DIFF.db [--force]] [--limit N] [--format text|json|csv]\n"
	"       ugc-analyze diff --baseline A --target B --final C [--limit N] [--format text|json|csv]\n",
	"Two-way: matches the objects of A and B by class and path name (and, when both come\n"
	"from one process, by index and serial too, so that a re-created object or a reused\n"
	"slot is not taken for the same object), then reports the class histogram delta\n"
	"(count and bytes, largest change first, sign shown), objects added and removed by package and\n"
	"by outer, objects garbage in A still alive in B, new roots, new eliminated\n"
	"references and new cluster disagreements.  -o stores the status of every object\n"
	"and the aggregates in SQLite.\n"
	"\n"
	"Leak mode: the objects new in B (absent from A) that are still alive in C after its\n"
	"GC, folded under their leak roots (the leaked objects no other leaked object\n"
	"dominates in C), grouped by the shortest retention chain of their roots with\n"
	"numbered names and edges made generic (BP_Enemy_C_12 -> BP_Enemy_C_*, [12] and\n"
	"1001 -> [*]), the most retained bytes (C's, gc policy) first; each group with its\n"
	"objects by class and one trace with the retained bytes at every hop.  On a V8\n"
	"heap, roots that hold no program state (the string tables, code, caches) are\n"
	"left out of the traces.\n"
	"\n"
	"Inputs are snapshots (analysed in memory) or databases written by analyze.\n",
	options, 2, NULL,
};

int cmd_diff(int argc, char **argv)
{
	struct diff_opts opts = {.format = FMT_TEXT, .top = 20};
	const char *in[2] = {NULL, NULL};
	int parsed = parse_options(&command_diff, argc, argv, &opts, in);
	if (parsed < 0)
		return OPT_EXIT_STATUS(parsed);
	const char *baseline = opts.baseline, *target = opts.target, *final = opts.final, *out = opts.out;
	enum out_format fmt = opts.format;
	long long top = opts.top ? opts.top : 1LL << 40; /* 0: all */
	int force = opts.force;
	if (baseline || target || final) {
		if (!baseline || !target || !final || parsed)
			return usage_error("diff", "leak mode needs --baseline A --target B --final C and nothing else");
		if (out)
			return usage_error("diff", "-o is for the two-way diff");
		return leaks(baseline, target, final, fmt, top);
	}
	if (parsed != 2)
		return usage_error("diff", "needs A and B (or --baseline, --target and --final)");
	if (out && !force && access(out, F_OK) == 0)
		return error("%s: already exists (use --force to overwrite)", out);
	return pairwise(in[0], in[1], fmt, top, out, force);
}
