/* cmd_top.c — `ugc-analyze top`: the largest retainers, by object, class
 * or package, under one retention policy or two side by side. */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/retention_input.h"
#include "base/base.h"

/* One line of the answer. */
typedef struct top_row {
	obj_t key;                  /* the object, class or package */
	uint32_t count;             /* objects (classes and packages) */
	uint64_t shallow, retained; /* under the first policy */
	uint64_t other;             /* retained under --vs */
} top_row;

enum { BY_OBJECT, BY_CLASS, BY_PACKAGE };
enum { SORT_RETAINED, SORT_SHALLOW, SORT_COUNT };
static const char *const by_names[] = {"object", "class", "package"}; /* by BY_ */

static int cmp_key(const void *a, const void *b)
{
	const top_row *x = a, *y = b;
	return (x->key > y->key) - (x->key < y->key);
}

/* Larger sort value first (SORT_KEY: the SORT_* a pointer to which
 * qsort_r passes), then lower key: topn.h's rank. */
static int cmp_rows(const void *a, const void *b, void *sort_key_arg)
{
	const top_row *x = a, *y = b;
	int sort_key = *(const int *)sort_key_arg;
	uint64_t kx = sort_key == SORT_SHALLOW ? x->shallow : sort_key == SORT_COUNT ? x->count : x->retained;
	uint64_t ky = sort_key == SORT_SHALLOW ? y->shallow : sort_key == SORT_COUNT ? y->count : y->retained;
	if (kx != ky)
		return kx < ky ? 1 : -1;
	return cmp_key(a, b);
}

/* What a V8 heap's top leaves out: the objects the tool adds below its
 * first node (POOL: /V8 and a class a constructor; 0 on an Unreal heap),
 * and, as suspects does, the (synthetic) nodes (the root, (GC roots) and its
 * groups), which hold everything.  Their class (OBJ_NONE: not a V8 heap, or
 * none), and from a database, which has no class column here, the nodes
 * themselves (SKIP, per slot; NULL from a snapshot, whose classes are
 * read).  0, or -1 when out of memory. */
typedef struct left_out {
	obj_t pool, cls;
	uint8_t *skip;
} left_out;

static int synthetic_left_out(const retention_input *in, uint32_t slots, left_out *lo)
{
	lo->pool = 0;
	lo->cls = OBJ_NONE;
	lo->skip = NULL;
	if (!in->v->v8)
		return 0;
	lo->pool = in->v->first_gc_index > 0 ? in->v->first_gc_index : 0;
	if (in->h) {
		lo->cls = heap_v8_synthetic_class(in->h);
		return 0;
	}
	obj_t *x = NULL;
	size_t n = 0;
	if (in->v->ops->find_glob(in->v, NULL, "(synthetic)", &x, &n))
		return -1;
	if (n && !(lo->skip = calloc((size_t)slots + 1, 1))) {
		free(x);
		return -1;
	}
	for (size_t k = 0; k < n; k++)
		if (x[k] >= 0 && (uint32_t)x[k] < slots)
			lo->skip[x[k]] = 1;
	obj_info o;
	if (n && in->v->ops->describe(in->v, x[0], &o) == 0) {
		lo->cls = o.cls;
		obj_info_free(&o);
	}
	free(x);
	return 0;
}

static int left_out_object(const retention_input *in, const left_out *lo, uint32_t i)
{
	return (obj_t)i < lo->pool || (lo->skip ? lo->skip[i] : lo->cls != OBJ_NONE && in->h->cls[i] == lo->cls);
}

/* A group LO leaves out: (synthetic), and the classes of the tool's own
 * objects, Package (1) and Class (2) (ugc-snapshot(5) §3.1: /V8 is object
 * 0, then those two). */
static int left_out_class(const left_out *lo, obj_t key)
{
	return lo->pool > 0 && (key == lo->cls || key == 1 || key == 2);
}

/* The rows of D by BY, with OTHER's retained bytes beside them (when given),
 * but what LO leaves out: for objects the best LIMIT of them (*TOTAL says how
 * many there are). */
static top_row *rows_for(const retention_input *in, const dom_result *d, const dom_result *other, int by,
			 int sort_key, size_t limit, const left_out *lo, size_t *n, size_t *total)
{
	size_t k = 0;
	top_row *v = NULL;
	if (by == BY_OBJECT) {
		/* the best LIMIT by topn.h (a 10M-object heap needs no 10M rows),
		 * then their rows, best first */
		const uint32_t *shallow = in->h ? in->h->size : d->size;
		topn best;
		if (topn_init(&best, limit < d->slots ? limit : d->slots))
			return NULL;
		*total = 0;
		for (uint32_t i = 0; i < d->slots; i++) {
			if ((d->idom[i] == OBJ_NONE && !(other && other->idom[i] != OBJ_NONE)) || left_out_object(in, lo, i))
				continue;
			topn_offer(&best, sort_key == SORT_SHALLOW ? shallow[i] : d->retained[i], i);
			++*total;
		}
		topn_sort(&best);
		if ((v = malloc((best.n + 1) * sizeof *v)))
			for (; k < best.n; k++) {
				uint32_t i = best.v[k].idx;
				v[k] = (top_row){(obj_t)i, 1, shallow[i], d->retained[i], other ? other->retained[i] : 0};
			}
		topn_free(&best);
		if (!v)
			return NULL;
	} else {
		const dom_group *g = by == BY_CLASS ? d->classes : d->packages;
		uint32_t ng = by == BY_CLASS ? d->nclasses : d->npackages;
		const dom_group *og = other ? (by == BY_CLASS ? other->classes : other->packages) : NULL;
		uint32_t nog = other ? (by == BY_CLASS ? other->nclasses : other->npackages) : 0;
		v = calloc((size_t)ng + nog + 1, sizeof *v);
		if (!v)
			return NULL;
		for (uint32_t j = 0; j < ng; j++)
			if (by != BY_CLASS || !left_out_class(lo, g[j].key))
				v[k++] = (top_row){g[j].key, g[j].count - (by == BY_PACKAGE && g[j].key == 0 && lo->pool > 0 &&
									   g[j].count >= (uint32_t)lo->pool ? (uint32_t)lo->pool : 0),
						   g[j].shallow, g[j].retained, 0};
		ng = (uint32_t)k;
		/* the second policy's groups matched by key (a V8 heap has tens of
		 * thousands of classes): the first's sorted, each looked up */
		if (ng > 1)
			qsort(v, ng, sizeof *v, cmp_key);
		for (uint32_t j = 0; j < nog; j++) {
			if (by == BY_CLASS && left_out_class(lo, og[j].key))
				continue;
			top_row want = {.key = og[j].key};
			top_row *m = ng ? bsearch(&want, v, ng, sizeof *v, cmp_key) : NULL;
			if (!m) {
				m = &v[k++];
				*m = (top_row){og[j].key, og[j].count, og[j].shallow, 0, 0};
			}
			m->other = og[j].retained;
		}
	}
	*n = k;
	if (by != BY_OBJECT)
		*total = k;
	return v;
}

static int print_rows(const retention_input *in, const top_row *v, size_t n, size_t total, size_t limit, int by,
		      int sort_key, const dom_result *d, const dom_result *other, const left_out *lo, enum out_format fmt)
{
	size_t shown = n < limit ? n : limit;
	int v8 = in->v->v8; /* V8's words: constructors, nodes */
	/* a V8 heap's nodes reached: not the tool's objects below them, always kept */
	uint32_t reached = d->reached - ((uint32_t)lo->pool < d->reached ? (uint32_t)lo->pool : d->reached);
	if (fmt == FMT_TEXT) {
		printf("largest %s by %s bytes (policy %s%s%s): %s of %s shown; %s %s%s reached, %s\n",
		       by == BY_OBJECT ? "objects" : by == BY_CLASS ? (v8 ? "constructors" : "classes") : "packages",
		       sort_key == SORT_SHALLOW ? "shallow" : sort_key == SORT_COUNT ? "object count and" : "retained",
		       dom_policy_names[d->policy], other ? " vs " : "", other ? dom_policy_names[other->policy] : "",
		       count_text(shown), count_text(total), count_text(reached), v8 ? "node" : "object", plural_s(reached),
		       size_text(d->reached_bytes));
		if (other)
			printf("%14s %14s %14s %14s %8s  %s\n", "retained", dom_policy_names[other->policy], "difference",
			       "shallow", by == BY_OBJECT ? "idx" : "objects", by == BY_OBJECT ? (v8 ? "constructor name @id" : "class path")
			       : v8 && by == BY_CLASS ? "constructor" : by_names[by]);
		else
			printf("%14s %14s %8s  %s\n", "retained", "shallow", by == BY_OBJECT ? "idx" : "objects",
			       by == BY_OBJECT ? (v8 ? "constructor name @id" : "class path")
			       : v8 && by == BY_CLASS ? "constructor" : by_names[by]);
	} else if (fmt == FMT_CSV) {
		printf("%s,%s%s,retained%s%s,shallow,objects\n", by_names[by], by == BY_OBJECT ? "class," : "",
		       by == BY_OBJECT ? "path" : "name", other ? ",retained_" : "", other ? dom_policy_names[other->policy] : "");
	} else {
		json_begin("top");
		printf(",\"by\":\"%s\",\"sort\":\"%s\",\"policy\":\"%s\"", by_names[by],
		       sort_key == SORT_SHALLOW ? "shallow" : sort_key == SORT_COUNT ? "count" : "retained",
		       dom_policy_names[d->policy]);
		if (other)
			printf(",\"vs\":\"%s\"", dom_policy_names[other->policy]);
		printf(",\"reached\":%llu,\"reached_bytes\":%llu", (unsigned long long)reached,
		       (unsigned long long)d->reached_bytes);
		json_list_begin("rows", total, shown);
	}
	for (size_t k = 0; k < shown; k++) {
		obj_info o;
		if (in->v->ops->describe(in->v, v[k].key, &o) != 0)
			return error("%s", in->v->err[0] ? in->v->err : "an object the results name is missing");
		const char *name = by == BY_OBJECT || by == BY_PACKAGE ? o.path : o.name;
		long long diff = (long long)v[k].retained - (long long)v[k].other;
		if (fmt == FMT_TEXT) {
			char count[32];
			if (by == BY_OBJECT)
				snprintf(count, sizeof count, "#%d", v[k].key);
			else
				snprintf(count, sizeof count, "%s", count_text(v[k].count));
			const char *shown_name = by == BY_OBJECT ? object_text(in->v, &o) : name;
			if (other)
				printf("%14s %14s %14s %14s %8s  %s\n", size_text(v[k].retained), size_text(v[k].other),
				       size_diff_text(diff), size_text(v[k].shallow), count, shown_name);
			else
				printf("%14s %14s %8s  %s\n", size_text(v[k].retained), size_text(v[k].shallow), count,
				       shown_name);
		} else if (fmt == FMT_CSV) {
			printf("%d,", v[k].key);
			if (by == BY_OBJECT) {
				csv_str(stdout, o.class_name);
				printf(",");
			}
			csv_str(stdout, name);
			printf(",%llu", (unsigned long long)v[k].retained);
			if (other)
				printf(",%llu", (unsigned long long)v[k].other);
			printf(",%llu,%u\n", (unsigned long long)v[k].shallow, v[k].count);
		} else {
			/* a row names an object, a class or a package: each is an object */
			printf("%s{\"idx\":%d,\"class\":", k ? "," : "", v[k].key);
			json_str(stdout, o.class_name);
			printf(",\"path\":");
			json_str(stdout, o.path);
			if (by == BY_CLASS) {
				printf(",\"name\":");
				json_str(stdout, name);
			}
			json_node_id(stdout, by == BY_OBJECT ? &o : NULL);
			printf(",\"retained\":%llu", (unsigned long long)v[k].retained);
			if (other)
				printf(",\"retained_%s\":%llu", dom_policy_names[other->policy], (unsigned long long)v[k].other);
			printf(",\"shallow\":%llu,\"objects\":%u}", (unsigned long long)v[k].shallow, v[k].count);
		}
		obj_info_free(&o);
	}
	if (fmt == FMT_JSON) {
		printf("]}");
		json_end();
	} else if (fmt == FMT_TEXT) {
		print_shown(shown, total, by == BY_OBJECT ? "objects" : by == BY_CLASS ? (v8 ? "constructors" : "classes") : "packages");
		if (lo->cls != OBJ_NONE && by != BY_PACKAGE)
			printf("left out: the (synthetic) root, (GC roots) and its groups, which hold everything, and the "
			       "tool's /V8 and constructor objects\n");
	}
	return 0;
}

struct top_opts {
	int by, sort, policy, vs, format; /* policy, vs -1: none given */
	long long limit;
};

static const char *const sort_choices[] = {"retained", "shallow", "count"};

#define T struct top_opts
static const option options[] = {
	OPT_CHOICE(0, "by", T, by, by_names, 3, "B", "object (default), class or package"),
	OPT_CHOICE(0, "sort", T, sort, sort_choices, 3, "S", "retained (default), shallow, or count (classes and packages)"),
	OPT_POLICY(T, policy,
		   "the retention graph: gc (default: the GC's own walk, clusters\n"
		   "included), refs (the objects' own references), refs+weak,\n"
		   "refs+weak+soft"),
	OPT_CHOICE(0, "vs", T, vs, dom_policy_names, POLICY_COUNT, "P2",
		   "a second policy beside the first, with the difference: gc vs refs\n"
		   "shows what only cluster lists keep, refs+weak vs refs what weak\n"
		   "references would keep (snapshot input)"),
	OPT_LIMIT_RANGE(T, limit, 0, 1000000000, "lines to print (default 20, 0: all); the total is said"),
	OPT_TOP_ALIAS(T, limit, 0, 1000000000),
	OPT_FORMAT(T, format, "text (default), json or csv"),
	OPT_END(),
};
#undef T

const command command_top = {
	"top", cmd_top, "the largest retainers: objects, classes or packages by bytes kept alive",
	"usage: ugc-analyze top INPUT [--by object|class|package] [--sort retained|shallow|count]\n"
	"                       [--policy P] [--vs P2] [--limit N] [--format text|json|csv]\n",
	"Lists what keeps the most memory alive: each object's retained size is the bytes\n"
	"the heap would lose if every reference into it were cut (its dominator subtree);\n"
	"a class's or package's counts each byte once.  INPUT is a snapshot (analysed in\n"
	"memory) or a database written by analyze (which holds one policy).\n",
	options, 1, NULL,
};

int cmd_top(int argc, char **argv)
{
	struct top_opts opts = {BY_OBJECT, SORT_RETAINED, -1, -1, FMT_TEXT, 20};
	const char *input = NULL;
	int parsed = parse_options(&command_top, argc, argv, &opts, &input);
	if (parsed < 0)
		return OPT_EXIT_STATUS(parsed);
	int by = opts.by, policy = opts.policy, vs = opts.vs;
	size_t limit = opts.limit == 0 ? SIZE_MAX : (size_t)opts.limit; /* 0: all */
	int sort_key = opts.sort;
	if (!input)
		return usage_error("top", "needs an INPUT (snapshot or database)");
	if (by == BY_OBJECT && sort_key == SORT_COUNT)
		return usage_error("top", "--sort count is for --by class or package");
	enum out_format fmt = opts.format;
	retention_input in;
	if (retention_open(input, policy, by != BY_OBJECT, 0, &in))
		return 1;
	dom_result other = {0};
	int rc = 1;
	if (vs >= 0 && retention_other(&in, vs, &other))
		goto out;
	size_t n;
	size_t total = 0;
	left_out lo;
	if (synthetic_left_out(&in, in.d.slots, &lo)) {
		error("out of memory");
		goto out;
	}
	top_row *v = rows_for(&in, &in.d, vs >= 0 ? &other : NULL, by, sort_key, limit, &lo, &n, &total);
	free(lo.skip);
	lo.skip = NULL;
	if (!v) {
		error("out of memory");
		goto out;
	}
	if (by != BY_OBJECT && n > 1) /* (objects come sorted) */
		qsort_r(v, n, sizeof *v, cmp_rows, &sort_key);
	rc = print_rows(&in, v, n, total, limit, by, sort_key, &in.d, vs >= 0 ? &other : NULL, &lo, fmt);
	free(v);
out:
	dom_free(&other);
	retention_close(&in);
	return rc;
}
