/* cmd_gccost.c — `ugc-analyze gccost INPUT`: what the GC's mark phase
 * spends its work on, by class and by package, counted from the GC run
 * (analysis/gccost.h), and the packages that would cost less as a cluster.
 * INPUT is a snapshot, or a database whose stored counts are read
 * (sql/gccost_db.h): the same answers either way. */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "analysis/analysis.h"
#include "sql/sql.h"

struct gccost_opts {
	int format;
	long long limit;
};

static double share(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* One listing of class or package rows (TITLE, KEY the JSON key). */
static void print_rows(char *const *paths, char *const *names, const gccost *c, const gccost_row *v, uint32_t n, size_t limit,
		       const char *title, const char *key, enum out_format fmt)
{
	size_t shown = n < limit ? n : limit;
	if (fmt == FMT_TEXT)
		printf("\nby %s:\n  %12s %7s %12s %9s  %s\n", title, "visits", "share", "traced", "clusters", title);
	else if (fmt == FMT_JSON)
		json_list_begin(key, n, shown);
	for (size_t k = 0; k < shown; k++) {
		const gccost_row *r = &v[k];
		const char *label = names ? names[k] : paths[k];
		if (fmt == FMT_TEXT) {
			printf("  %12s %6.1f%% %12s %9s  %s\n", count_text(r->visits), share(r->visits, c->visits),
			       count_text(r->traced), count_text(r->clusters), disp(label));
		} else if (fmt == FMT_CSV) {
			printf("%s,%d,", title, r->key);
			csv_str(stdout, disp(label));
			printf(",%llu,%u,%u,,\n", (unsigned long long)r->visits, r->traced, r->clusters);
		} else {
			printf("%s{\"idx\":%d,\"path\":", k ? "," : "", r->key);
			json_str(stdout, paths[k]);
			if (names) {
				printf(",\"name\":");
				json_str(stdout, names[k]);
			}
			printf(",\"visits\":%llu,\"traced\":%u,\"clusters\":%u}", (unsigned long long)r->visits, r->traced,
			       r->clusters);
		}
	}
	if (fmt == FMT_JSON)
		printf("]}");
	else if (fmt == FMT_TEXT)
		print_shown(shown, n, strcmp(key, "by_class") == 0 ? "classes" : "packages");
}

static void print_candidates(char *const *names, const gccost *c, size_t limit, enum out_format fmt)
{
	size_t shown = c->ncandidates < limit ? c->ncandidates : limit;
	if (fmt == FMT_TEXT)
		printf("\nclustering candidates (a package's traced objects as one cluster: its lists instead of their "
		       "references):\n  %12s %12s %12s %9s  %s\n", "visits now", "as cluster", "saved", "objects", "package");
	else if (fmt == FMT_JSON)
		json_list_begin("candidates", c->ncandidates, shown);
	for (size_t k = 0; k < shown; k++) {
		const gccost_candidate *x = &c->candidates[k];
		const char *path = names[k];
		uint64_t saved = x->visits - x->as_cluster;
		if (fmt == FMT_TEXT) {
			printf("  %12s %12s %12s %9s  %s\n", count_text(x->visits), count_text(x->as_cluster), count_text(saved),
			       count_text(x->traced), disp(path));
		} else if (fmt == FMT_CSV) {
			printf("candidate,%d,", x->package);
			csv_str(stdout, disp(path));
			printf(",%llu,%u,,%llu,%llu\n", (unsigned long long)x->visits, x->traced,
			       (unsigned long long)x->as_cluster, (unsigned long long)saved);
		} else {
			printf("%s{\"idx\":%d,\"path\":", k ? "," : "", x->package);
			json_str(stdout, path);
			printf(",\"objects\":%u,\"visits\":%llu,\"as_cluster\":%llu,\"saved\":%llu}", x->traced,
			       (unsigned long long)x->visits, (unsigned long long)x->as_cluster, (unsigned long long)saved);
		}
	}
	if (fmt == FMT_JSON)
		printf("]}");
	else if (fmt == FMT_TEXT)
		print_shown(shown, c->ncandidates, "candidates");
}

#define G struct gccost_opts
static const option options[] = {
	OPT_LIMIT(G, limit, "rows in each list (default 10 in text, 0: all)"),
	OPT_FORMAT(G, format, "text (default), json or csv"),
	OPT_END(),
};
#undef G

const command command_gccost = {
	"gccost", cmd_gccost, "what the GC's mark phase spends its work on, by class and package; what clustering saves",
	"usage: ugc-analyze gccost INPUT [--limit N] [--format text|json|csv]\n",
	"Counts the mark phase's work in this GC run: each reference read while tracing\n"
	"an object (its Class, Outer and records) and each cluster list entry walked, by\n"
	"class and by package, with each one's share; then the packages whose traced\n"
	"objects would be read as a cluster's lists instead, and the reads that saves.\n"
	"INPUT is a snapshot or a database written by analyze (its stored counts).\n",
	options, 1, NULL,
};

/* The paths (and class names) of the rows of C that a listing of LIMIT
 * shows, from H. */
static int names_of(const heap *h, const gccost *c, size_t limit, gccost_names *n)
{
	memset(n, 0, sizeof *n);
	uint32_t counts[3] = {c->nclasses, c->npackages, c->ncandidates};
	char ***lists[3] = {&n->classes, &n->packages, &n->candidates};
	uint32_t *got[3] = {&n->nclasses, &n->npackages, &n->ncandidates};
	for (int l = 0; l < 3; l++) {
		uint32_t want = limit && limit < counts[l] ? (uint32_t)limit : counts[l];
		if (!(*lists[l] = calloc(want ? want : 1, sizeof(char *))) ||
		    (l == 0 && !(n->class_names = calloc(want ? want : 1, sizeof(char *)))))
			return -1;
		for (uint32_t k = 0; k < want; k++) {
			obj_t key = l == 0 ? c->classes[k].key : l == 1 ? c->packages[k].key : c->candidates[k].package;
			char name[HEAP_NAME_MAX];
			char *path = heap_path(h, key), *copy = l == 0 ? (heap_name(h, key, name, sizeof name), strdup(name)) : NULL;
			if (!path || (l == 0 && !copy)) {
				free(path);
				free(copy);
				return -1;
			}
			if (l == 0)
				n->class_names[k] = copy;
			(*lists[l])[(*got[l])++] = path;
		}
	}
	return 0;
}

/* The work of INPUT: a database's stored counts, or a snapshot's GC run's. */
static int measure(const char *input, size_t limit, gccost *c, gccost_names *n)
{
	char err[SNAP_ERR_MAX];
	if (is_sqlite_file(input))
		return gccost_db_load(input, limit, c, n, err, sizeof err) ? error("%s", err) : 0;
	pipeline p;
	pipeline_options po = PIPELINE_OPTIONS_INIT;
	if (input_open_heap(&p, input, &po, err, sizeof err))
		return error("%s", err);
	int rc = 0;
	if (pipeline_need(&p, PIPE_GC, err, sizeof err)) {
		rc = error("%s", err);
	} else if (gccost_measure(&p.h, &p.r, c)) {
		rc = error("out of memory counting the GC's work");
	} else if (names_of(&p.h, c, limit, n)) {
		gccost_names_free(n);
		gccost_free(c);
		rc = error("out of memory naming the GC's work");
	}
	pipeline_free(&p);
	return rc;
}

int cmd_gccost(int argc, char **argv)
{
	struct gccost_opts opts = {FMT_TEXT, LIMIT_UNSET};
	const char *input = NULL;
	int parsed = parse_options(&command_gccost, argc, argv, &opts, &input);
	if (parsed < 0)
		return OPT_EXIT_STATUS(parsed);
	if (!input)
		return usage_error("gccost", "needs an INPUT (snapshot or database)");
	enum out_format fmt = opts.format;
	size_t limit = listing_limit(opts.limit, fmt, 10);
	gccost c;
	gccost_names n;
	if (measure(input, limit == SIZE_MAX ? 0 : limit, &c, &n))
		return 1;
	if (c.v8 && fmt == FMT_TEXT) { /* (JSON and CSV keep their shape) */
		printf("%s: a V8 heap's GC is not Unreal Engine's: there is no UObject mark to cost, and no cluster to "
		       "form\n", disp(input));
		gccost_names_free(&n);
		gccost_free(&c);
		return 0;
	}
	if (fmt == FMT_TEXT) {
		printf("mark work of %s: %s reads: %s tracing %s object%s, %s walking %s cluster%s' lists, %s "
		       "FGCObject record%s; %s reference%s of the disregard pool never read\n",
		       disp(input), count_text(c.visits), count_text(c.trace_visits), count_text(c.traced),
		       plural_s(c.traced), count_text(c.list_visits), count_text(c.walked), c.walked == 1 ? "" : "s",
		       count_text(c.gc_record_visits), plural_s(c.gc_record_visits), count_text(c.disregard_skipped),
		       plural_s(c.disregard_skipped));
	} else if (fmt == FMT_CSV) {
		printf("section,idx,name,visits,traced,clusters,as_cluster,saved\n");
	} else {
		json_begin("gccost");
		printf(",\"visits\":%llu,\"trace_visits\":%llu,\"list_visits\":%llu,\"gc_record_visits\":%llu,"
		       "\"traced\":%u,\"walked\":%u,\"disregard_skipped\":%llu",
		       (unsigned long long)c.visits, (unsigned long long)c.trace_visits, (unsigned long long)c.list_visits,
		       (unsigned long long)c.gc_record_visits, c.traced, c.walked, (unsigned long long)c.disregard_skipped);
	}
	print_rows(n.classes, n.class_names, &c, c.classes, c.nclasses, limit, "class", "by_class", fmt);
	print_rows(n.packages, NULL, &c, c.packages, c.npackages, limit, "package", "by_package", fmt);
	print_candidates(n.candidates, &c, limit, fmt);
	if (fmt == FMT_JSON)
		json_end();
	gccost_names_free(&n);
	gccost_free(&c);
	return 0;
}
