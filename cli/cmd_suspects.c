/* cmd_suspects.c — `ugc-analyze suspects`: where the memory leaks.  The
 * engine's own leak signals first (garbage kept alive, a World or Level
 * among it), then the objects and classes that keep at least a threshold
 * share of the reached bytes, each with its accumulation point, the classes
 * under it and its shortest retention path (text, JSON or CSV). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/retention_input.h"
#include "analysis/analysis.h"

#define UNDER_TOP 5 /* classes shown under an accumulation point */

static int class_of(void *ctx, obj_t i, obj_t *cls)
{
	retention_input *in = ctx;
	if (in->h) {
		*cls = in->h->cls[i];
		return 0;
	}
	obj_state st;
	if (in->v->ops->state(in->v, i, &st) != 0)
		return -1;
	*cls = st.cls;
	return 0;
}

static double share(uint64_t bytes, uint64_t reached)
{
	return reached ? (double)bytes * 100.0 / (double)reached : 0.0;
}

static int get(retention_input *in, obj_t x, obj_info *o)
{
	if (in->v->ops->object(in->v, x, o) != 0)
		return error("%s", in->v->err[0] ? in->v->err : "an object the results name is missing");
	return 0;
}

/* The engine's signals: garbage-survives findings, Worlds and Levels first. */
typedef struct suspect_signal {
	finding_row row;
	int world; /* the object is a World or a Level */
} suspect_signal;

static int cmp_signals(const void *a, const void *b)
{
	const suspect_signal *x = a, *y = b;
	if (x->world != y->world)
		return y->world - x->world;
	return (x->row.idx > y->row.idx) - (x->row.idx < y->row.idx);
}

static int print_signals(retention_input *in, size_t limit, enum out_format fmt)
{
	view *v = in->v;
	finding_rows rows = {0};
	if (v->ops->findings(v, OBJ_NONE, &rows) != 0) {
		free(rows.v);
		return error("%s", v->err);
	}
	suspect_signal *s = calloc(rows.n + 1, sizeof *s);
	size_t n = 0, worlds = 0;
	int rc = s ? 0 : error("out of memory");
	for (size_t k = 0; k < rows.n && rc == 0; k++) {
		obj_info o;
		if (strcmp(rows.v[k].kind, "garbage-survives") != 0 || rows.v[k].idx == OBJ_NONE)
			continue;
		if ((rc = get(in, rows.v[k].idx, &o)) != 0)
			break;
		s[n].row = rows.v[k];
		s[n].world = strcmp(o.class_name, "World") == 0 || strcmp(o.class_name, "Level") == 0;
		worlds += (size_t)s[n].world;
		n++;
		obj_info_free(&o);
	}
	free(rows.v);
	if (rc) {
		free(s);
		return rc;
	}
	qsort(s, n, sizeof *s, cmp_signals);
	size_t shown = n < limit ? n : limit;
	if (fmt == FMT_TEXT && !v->v8) /* a V8 heap has no garbage flag: no signals */
		printf("engine signals: %s garbage object%s still alive, %s of them a World or Level\n", count_text(n),
		       plural_s(n), count_text(worlds));
	else if (fmt == FMT_JSON)
	{
		printf(",\"world_signals\":%zu", worlds);
		json_list_begin("signals", n, shown);
	}
	for (size_t k = 0; k < shown && rc == 0; k++) {
		obj_info o;
		if ((rc = get(in, s[k].row.idx, &o)) != 0)
			break;
		if (fmt == FMT_TEXT) {
			printf("%zu. garbage-survives%s: %s\n", k + 1, s[k].world ? " (a World or Level)" : "", s[k].row.detail);
			rc = path_shortest(v, s[k].row.idx, fmt, 1);
		} else if (fmt == FMT_CSV) {
			printf("signal,%zu,%d,", k + 1, o.idx);
			csv_str(stdout, o.class_name);
			putchar(',');
			csv_str(stdout, o.path);
			printf(",%u,1,,,,,", o.size);
			csv_str(stdout, s[k].row.detail);
			putchar('\n');
		} else {
			printf("%s{\"kind\":\"garbage-survives\",\"world_or_level\":%s,\"detail\":", k ? "," : "",
			       s[k].world ? "true" : "false");
			json_str(stdout, s[k].row.detail);
			printf(",\"retention\":");
			rc = path_shortest(v, s[k].row.idx, fmt, 1);
			printf("}");
		}
		obj_info_free(&o);
	}
	if (fmt == FMT_TEXT && n > shown)
		printf("(%s more: ugc-analyze findings --kind garbage-survives)\n", count_text(n - shown));
	else if (fmt == FMT_JSON)
		printf("]}");
	free(s);
	return rc;
}

/* Read the suspect's class (C, when it has one), object (O) and accumulation
 * point (A); on an error nothing stays taken. */
static int suspect_load(retention_input *in, const suspect *s, obj_info *o, obj_info *a, obj_info *c)
{
	int rc;
	if (s->cls != OBJ_NONE) {
		if ((rc = get(in, s->cls, c)) != 0)
			return rc;
	}
	if (s->obj == OBJ_NONE) { /* a class whose instances the tree does not hold (a damaged database) */
		if (s->cls != OBJ_NONE)
			obj_info_free(c);
		return error("%s: class suspect #%d has no reached instance", in->path, s->cls);
	}
	if ((rc = get(in, s->obj, o)) == 0 && (rc = get(in, s->accum, a)) != 0)
		obj_info_free(o);
	if (rc) {
		if (s->cls != OBJ_NONE)
			obj_info_free(c);
		return rc;
	}
	return 0;
}

/* Text: the suspect's lines up to the bytes-by-class label. */
static void suspect_head_text(const view *v, const dom_result *d, const suspect *s, size_t rank, const obj_info *o,
			      const obj_info *a, const obj_info *c)
{
	double pct = share(s->retained, d->reached_bytes), apct = share(s->accum_retained, d->reached_bytes);
	if (s->cls == OBJ_NONE)
		printf("%zu. #%d %s\n   retained %s (%.1f%% of reached), shallow %s\n", rank, o->idx, object_text(v, o),
		       size_text(s->retained), pct, size_text(o->size));
	else
		printf("%zu. %s %s: %s object%s retain%s %s (%.1f%% of reached)\n   largest instance: #%d %s, "
		       "retained %s\n",
		       rank, v->v8 ? "constructor" : "class", c->name, count_text(s->count), plural_s(s->count),
		       s->count == 1 ? "s" : "", size_text(s->retained), pct, o->idx, object_text(v, o),
		       size_text(d->retained[s->obj]));
	if (s->steps == 0)
		printf("   accumulation point: the object itself\n");
	else
		printf("   accumulation point: #%d %s, %s level%s down, retained %s (%.1f%%)\n", a->idx, object_text(v, a),
		       count_text(s->steps), plural_s(s->steps), size_text(s->accum_retained), apct);
	printf(v->v8 ? "   bytes under it by constructor:" : "   bytes under it by class:");
}

/* CSV: the suspect's row. */
static void suspect_head_csv(const suspect *s, const char *kind, size_t rank, const obj_info *o, const obj_info *a,
			     const obj_info *c)
{
	printf("%s,%zu,%d,", kind, rank, o->idx);
	csv_str(stdout, s->cls == OBJ_NONE ? o->class_name : c->name);
	putchar(',');
	csv_str(stdout, o->path);
	printf(",%llu,%u,%d,", (unsigned long long)s->retained, s->count, a->idx);
	csv_str(stdout, a->path);
	printf(",%llu,%u,\n", (unsigned long long)s->accum_retained, s->steps);
}

/* JSON: the suspect's object, open at its "under" array. */
static void suspect_head_json(const dom_result *d, const suspect *s, size_t rank, const obj_info *o,
			      const obj_info *a, const obj_info *c)
{
	printf("%s{", rank > 1 ? "," : "");
	if (s->cls != OBJ_NONE) {
		printf("\"class_idx\":%d,\"class\":", s->cls);
		json_str(stdout, c->name);
		printf(",\"class_path\":");
		json_str(stdout, c->path);
		printf(",\"objects\":%u,\"retained\":%llu,\"largest\":", s->count, (unsigned long long)s->retained);
	}
	printf("%s\"idx\":%d,\"class\":", s->cls != OBJ_NONE ? "{" : "", o->idx);
	json_str(stdout, o->class_name);
	printf(",\"path\":");
	json_str(stdout, o->path);
	json_node_id(stdout, o);
	printf(",\"shallow\":%u,\"retained\":%llu%s", o->size, (unsigned long long)d->retained[s->obj],
	       s->cls != OBJ_NONE ? "}" : "");
	printf(",\"accumulation\":{\"idx\":%d,\"class\":", a->idx);
	json_str(stdout, a->class_name);
	printf(",\"path\":");
	json_str(stdout, a->path);
	json_node_id(stdout, a);
	printf(",\"steps\":%u,\"retained\":%llu}", s->steps, (unsigned long long)s->accum_retained);
	json_list_begin("under", s->nunder_all, s->nunder);
}

/* The bytes under the accumulation point, class by class. */
static int suspect_under(retention_input *in, const suspect *s, const char *kind, size_t rank, enum out_format fmt)
{
	for (uint32_t k = 0; k < s->nunder; k++) {
		const suspect_bytes *u = &s->under[k];
		obj_info k_;
		int rc;
		if ((rc = get(in, u->cls, &k_)) != 0)
			return rc;
		if (fmt == FMT_TEXT) {
			printf("%s %s %s (%s object%s)", k ? "," : "", size_text(u->bytes), k_.name, count_text(u->count),
			       plural_s(u->count));
		} else if (fmt == FMT_CSV) {
			printf("%s-under,%zu,%d,", kind, rank, u->cls);
			csv_str(stdout, k_.name);
			printf(",,%llu,%u,,,,,\n", (unsigned long long)u->bytes, u->count);
		} else {
			printf("%s{\"class\":", k ? "," : "");
			json_str(stdout, k_.name);
			printf(",\"objects\":%u,\"bytes\":%llu}", u->count, (unsigned long long)u->bytes);
		}
		obj_info_free(&k_);
	}
	return 0;
}

/* After the classes: the text's remainder and the shortest retention path. */
static int suspect_tail(retention_input *in, const suspect *s, enum out_format fmt)
{
	int rc = 0;
	if (fmt == FMT_TEXT) {
		if (s->nunder_all > s->nunder)
			printf(" (and %s more %s%s)", count_text(s->nunder_all - s->nunder),
			       in->v->v8 ? "constructor" : "class",
			       plural(s->nunder_all - s->nunder, in->v->v8 ? "" : "", in->v->v8 ? "s" : "es"));
		printf(in->v->v8 ? "\n   shortest retainer path:\n" : "\n   shortest retention path:\n");
		return path_shortest(in->v, s->obj, fmt, 1);
	}
	if (fmt == FMT_JSON) {
		printf("]},\"retention\":");
		rc = path_shortest(in->v, s->obj, fmt, 1);
		printf("}");
	}
	return rc;
}

/* One suspect: KIND "object" or "class". */
static int print_suspect(retention_input *in, const suspect *s, const char *kind, size_t rank, enum out_format fmt)
{
	obj_info o, a, c;
	int rc = suspect_load(in, s, &o, &a, &c);
	if (rc)
		return rc;
	if (fmt == FMT_TEXT)
		suspect_head_text(in->v, &in->d, s, rank, &o, &a, &c);
	else if (fmt == FMT_CSV)
		suspect_head_csv(s, kind, rank, &o, &a, &c);
	else
		suspect_head_json(&in->d, s, rank, &o, &a, &c);
	obj_info_free(&o);
	obj_info_free(&a);
	if (s->cls != OBJ_NONE)
		obj_info_free(&c);
	if ((rc = suspect_under(in, s, kind, rank, fmt)) != 0)
		return rc;
	return suspect_tail(in, s, fmt);
}

static int print_list(retention_input *in, const suspect *v, uint32_t n, uint32_t all, const char *kind,
		      enum out_format fmt)
{
	if (fmt == FMT_TEXT)
		printf("%s suspects: %s\n", in->v->v8 && strcmp(kind, "class") == 0 ? "constructor" : kind, count_text(all));
	else if (fmt == FMT_JSON)
		json_list_begin(strcmp(kind, "object") == 0 ? "objects" : "classes", all, n);
	for (uint32_t k = 0; k < n; k++)
		if (print_suspect(in, &v[k], kind, k + 1, fmt))
			return 1;
	if (fmt == FMT_TEXT)
		print_shown(n, all, strcmp(kind, "object") == 0 ? "object suspects"
				    : in->v->v8 ? "constructor suspects" : "class suspects");
	else if (fmt == FMT_JSON)
		printf("]}");
	return 0;
}

/* A percentage: 0 < PCT <= 100; -1 when S is not one. */
static double parse_pct(const char *s)
{
	char *end;
	if (!s || !*s || s[0] == ' ' || s[0] == '+' || s[0] == '-')
		return -1;
	double p = strtod(s, &end);
	if (*end == '%')
		end++;
	if (*end || !isfinite(p) || p <= 0 || p > 100)
		return -1;
	return p;
}

struct suspects_opts {
	int policy, format; /* policy -1: the input's */
	long long limit;
	double pct;
};

static const char *threshold_arg(const option *opt, void *pct, const char *arg)
{
	(void)opt;
	return (*(double *)pct = parse_pct(arg)) < 0 ? "takes a percentage above 0, up to 100" : NULL;
}

#define S struct suspects_opts
static const option options[] = {
	OPT_CALLBACK(0, "threshold", S, pct, double, threshold_arg, 0, "PCT",
		     "share of the reached bytes, above 0 and up to 100 (default 10)"),
	OPT_POLICY(S, policy, "gc (default), refs, refs+weak or refs+weak+soft"),
	OPT_LIMIT_RANGE(S, limit, 0, 1000000, "signals, object suspects and class suspects shown (default 10, 0: all)"),
	OPT_TOP_ALIAS(S, limit, 0, 1000000),
	OPT_FORMAT(S, format, "text (default), json or csv (CSV: no chains; `path` has them)"),
	OPT_END(),
};
#undef S

const command command_suspects = {
	"suspects", cmd_suspects, "leak suspects: garbage kept alive, and what keeps the most bytes",
	"usage: ugc-analyze suspects INPUT [--threshold PCT] [--policy P] [--limit N]\n"
	"                            [--format text|json|csv]\n",
	"First the engine's own leak signals: garbage objects still alive (Worlds and\n"
	"Levels first), each with its shortest retention chain.  Then the suspects: the\n"
	"objects, and the classes, whose retained size is at least PCT% of the reached\n"
	"bytes, largest first.  For each, its accumulation point (from it, down the\n"
	"dominator tree into the largest child while that child keeps at least 80% of\n"
	"its parent's bytes), the classes that make up the bytes under that point, and\n"
	"the shortest retention path to it; a class is shown through its largest\n"
	"instance.  An object on the way down from a larger suspect to its accumulation\n"
	"point is not listed again.  INPUT is a snapshot or a database written by analyze.\n",
	options, 1, NULL,
};

int cmd_suspects(int argc, char **argv)
{
	struct suspects_opts opts = {-1, FMT_TEXT, 10, 10};
	const char *input = NULL;
	int parsed = parse_options(&command_suspects, argc, argv, &opts, &input);
	if (parsed < 0)
		return OPT_EXIT_STATUS(parsed);
	int policy = opts.policy;
	size_t limit = opts.limit == 0 ? SIZE_MAX : (size_t)opts.limit; /* --limit 0: all */
	double pct = opts.pct;
	if (!input)
		return usage_error("suspects", "needs an INPUT (snapshot or database)");
	enum out_format fmt = opts.format;
	retention_input in;
	if (retention_open(input, policy, 1, 1, &in))
		return 1;
	const dom_result *d = &in.d;
	suspect_list sl;
	/* on a V8 heap the synthetic root and its (GC roots) groups hold everything: not suspects */
	obj_t synthetic = OBJ_NONE;
	if (in.v->v8 && in.v->ops->find_path(in.v, "/V8.(synthetic)", &synthetic))
		synthetic = OBJ_NONE;
	int rc = suspects_find(d, in.h ? in.h->size : d->size, class_of, &in, pct, limit, UNDER_TOP, synthetic, &sl);
	if (rc) {
		if (rc == -2)
			error("%s", in.v->err[0] ? in.v->err : "reading an object's class failed");
		else if (rc == -3)
			error("%s: the dominator tree loops (a damaged database)", input);
		else
			error("out of memory");
		retention_close(&in);
		return 1;
	}
	if (fmt == FMT_TEXT)
		printf("leak suspects (policy %s): at least %g%% of the %s reached, %s\n", dom_policy_names[d->policy],
		       pct, size_text(d->reached_bytes), size_text(sl.threshold));
	else if (fmt == FMT_CSV)
		printf("section,rank,idx,class,path,bytes,objects,accum_idx,accum_path,accum_bytes,steps,detail\n");
	else
	{
		json_begin("suspects");
		printf(",\"policy\":\"%s\",\"threshold_pct\":%g,\"reached_bytes\":%llu,\"threshold_bytes\":%llu",
		       dom_policy_names[d->policy], pct, (unsigned long long)d->reached_bytes,
		       (unsigned long long)sl.threshold);
	}
	rc = print_signals(&in, limit, fmt) ||
	     print_list(&in, sl.objects, sl.nobjects, sl.objects_all, "object", fmt) ||
	     print_list(&in, sl.classes, sl.nclasses, sl.classes_all, "class", fmt);
	if (fmt == FMT_JSON && !rc)
		json_end();
	suspects_free(&sl);
	retention_close(&in);
	return rc ? 1 : 0;
}
