/* cmd_analyze.c — `ugc-analyze analyze`: run the GC offline, print a
 * LogGarbage-style summary, store everything in SQLite, optionally write the
 * post-GC heap. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "cli/analysis_options.h"
#include "cli/cli.h"
#include "base/base.h"
#include "snapshot/snapshot.h"
#include "sql/sql.h"

/* SNAPSHOT's name with .zst and then .ugcs/.ugct/.heapsnapshot replaced by .db. */
static char *default_db(const char *snap)
{
	size_t n = strlen(snap);
	char *out = malloc(n + 4);
	if (!out)
		return NULL;
	memcpy(out, snap, n + 1);
	if (n > 4 && strcmp(out + n - 4, ".zst") == 0)
		out[n -= 4] = '\0';
	if (n > 5 && (strcmp(out + n - 5, ".ugcs") == 0 || strcmp(out + n - 5, ".ugct") == 0))
		out[n -= 5] = '\0';
	else if (n > 13 && strcmp(out + n - 13, ".heapsnapshot") == 0)
		out[n -= 13] = '\0';
	strcpy(out + n, ".db");
	return out;
}

/* The top purged classes by bytes, "Name count (size)"; out of memory, the
 * line says so and analyze goes on (the summary is printed before the
 * database is written, which does not need it). */
static void print_top_purged(const heap *h, const gc_result *r, int top)
{
	printf("LogGarbage: purged by class (bytes):");
	class_hist c;
	if (class_hist_of(h, r->purged, r->npurged, top < 16 ? (size_t)top : 16, &c)) {
		printf(" out of memory\n");
		return;
	}
	char name[HEAP_NAME_MAX];
	for (size_t t = 0; t < c.n; t++) {
		const class_row *row = &c.top[CLASS_BY_BYTES][t];
		heap_name(h, row->cls, name, sizeof name);
		printf("%s %s %s (%s)", t ? "," : "", disp(name), count_text(row->count), size_text(row->bytes));
	}
	printf("%s\n", r->npurged ? "" : " none");
	class_hist_free(&c);
}

static void print_summary(const char *path, const heap *h, const gc_result *r, const findings *f,
			  const gc_options *opt, double load_s)
{
	char keep[FLAGS_MAX];
	flags_format(keep, opt->keep_flags, 0, 0);
	printf("LogGarbage: %s: engine %s, mode %s, keep flags %s\n", disp(path),
	       h->engine ? disp(heap_str(h, h->engine)) : "unknown", opt->mode == MODE_EDITOR ? "editor" : "game", keep);
	uint32_t disregard = 0;
	for (uint32_t i = 0; i < h->slots && (obj_t)i < h->first_gc_index; i++)
		disregard += h->cls[i] != OBJ_FREE;
	/* roots counted as the roots view and info count them: every object
	 * with a root kind, the disregard pool and FGCObject targets included */
	uint32_t roots[RK_COUNT] = {0}, nroots = 0;
	for (uint32_t i = 0; i < h->slots; i++)
		if (r->root_kind[i] != RK_NONE && RK_IS_ROOT(r->root_kind[i])) {
			roots[r->root_kind[i]]++;
			nroots++;
		}
#define C(n) count_text(n)
	printf("LogGarbage: %s object%s scanned (%s in the disregard pool), %s reference%s, %s root%s (", C(h->objects),
	       plural_s(h->objects), C(disregard), C(h->nrefs), plural_s(h->nrefs), C(nroots), plural_s(nroots));
	for (int k = 0, first = 1; k <= RK_GCOBJECT; k++)
		if (roots[k]) {
			printf("%s%s %s", first ? "" : ", ", C(roots[k]), root_kind_names[k]);
			first = 0;
		}
	printf("), %s object%s traced\n", C(r->traced), plural_s(r->traced));
	printf("LogGarbage: %s object%s reachable, %s unreachable: %s object%s purged (%s)\n", C(r->reachable_count),
	       plural_s(r->reachable_count), C(r->npurged), C(r->npurged), plural_s(r->npurged),
	       size_text(r->purged_bytes));
	printf("LogGarbage: %s cluster%s: %s alive, dissolved: %s garbage-root, %s references-dissolved, "
	       "%s unreachable-root, %s garbage-mutable\n",
	       C(h->nclusters), plural_s(h->nclusters), C(r->dissolved[CF_ALIVE]), C(r->dissolved[CF_GARBAGE_ROOT]),
	       C(r->dissolved[CF_REFERENCES_DISSOLVED]), C(r->dissolved[CF_UNREACHABLE_ROOT]),
	       C(r->dissolved[CF_GARBAGE_MUTABLE]));
	printf("LogGarbage: %s reference%s to garbage eliminated, %s weak reference%s cleared, %s left pointing at "
	       "destroyed objects (held by objects the GC never traced)\n", C(r->neliminated), plural_s(r->neliminated),
	       C(r->ncleared), plural_s(r->ncleared), C(r->nuncleared));
	printf("LogGarbage: purge: BeginDestroy %s, FinishDestroy %s at once and %s pending (%s) polled until "
	       "done, then every index freed and every destructor run, all on the game thread (%s GameThreadDestroy, "
	       "%s: the flag changes nothing in UE 5.5)\n",
	       C(r->npurged), C(r->npurged - r->pending), C(r->pending), size_text(r->pending_bytes), C(r->game_thread),
	       size_text(r->game_thread_bytes));
	uint32_t crashes = f->count[FK_ROOTED_CLUSTER_DISSOLVED];
	if (crashes)
		printf("LogGarbage: warning: step 2 dissolves %s rooted cluster%s that the engine then walks at cluster "
		       "index -1, a crash (finding rooted-cluster-dissolved)\n", C(crashes), plural_s(crashes));
	if (r->nhandoff)
		printf("LogGarbage: %s Actor%s handed by dissolved LevelActorContainers to their Levels\n", C(r->nhandoff),
		       plural_s(r->nhandoff));
	print_top_purged(h, r, 5);
	printf("LogGarbage: findings:");
	for (int k = 0; k < FK_COUNT; k++)
		printf("%s %s %s", k ? "," : "", finding_kind_names[k], C(f->count[k]));
	printf("\n");
	const gc_timing *t = &r->time;
	printf("LogGarbage: time: load %.3f s, cluster prepass %.3f s, mark %.3f s (%d thread%s), dissolve %.3f s, "
	       "weak %.3f s, gather %.3f s, purge %.3f s, retention paths %.3f s\n",
	       load_s, t->prepass, t->mark, opt->threads, opt->threads == 1 ? "" : "s", t->dissolve, t->weak, t->gather,
	       t->purge, t->distances);
#undef C
}

/* The summary of a V8 heap, in V8's words: nodes, edges, what the root
 * retains; no clusters, garbage flags, purge phases or findings, which a
 * V8 heap does not have. */
/* The objects the tool makes on a V8 heap (its /V8 package and a class a
 * constructor), before the first node: never collected, never counted as
 * nodes. */
static uint32_t v8_tool_objects(const heap *h)
{
	return (uint32_t)(h->first_gc_index < 0 ? 0 : h->first_gc_index);
}

static void print_summary_v8(const char *path, const heap *h, const gc_result *r, double load_s)
{
	uint32_t nodes = h->objects - v8_tool_objects(h);
	uint32_t weak = 0, shortcut = 0;
	for (uint32_t k = 0; k < h->nrefs; k++) {
		weak += h->ref_kind[k] == REF_WEAK;
		shortcut += h->ref_kind[k] == REF_SOFT;
	}
	uint32_t retained = r->reachable_count - (r->reachable_count > h->objects - nodes ? h->objects - nodes : 0);
#define C(n) count_text(n)
	printf("v8: %s: engine %s, %s node%s, %s edge%s (%s weak, %s shortcut%s that do not retain)\n", disp(path),
	       h->engine ? disp(heap_str(h, h->engine)) : "v8", C(nodes), plural_s(nodes), C(h->nrefs), plural_s(h->nrefs),
	       C(weak), C(shortcut), plural_s(shortcut));
	printf("v8: %s node%s retained from the root, %s unreachable (%s)\n", C(retained), plural_s(retained),
	       C(r->npurged), size_text(r->purged_bytes));
	printf("v8: time: load %.3f s, mark %.3f s, retainer paths %.3f s\n", load_s, r->time.mark, r->time.distances);
#undef C
}

/* The largest retainers, as the summary's last lines; on a V8 heap its
 * nodes (not the tool's objects) and its constructors but (synthetic), the
 * root and its groups, which hold everything. */
static void print_retention(const heap *h, const dom_result *d)
{
	char name[HEAP_NAME_MAX];
	int v8 = heap_is_v8(h);
	uint32_t reached = v8 && d->reached >= v8_tool_objects(h) ? d->reached - v8_tool_objects(h) : d->reached;
	printf("%s: retention (policy %s, %.3f s): %s %s%s reached, %s; largest by %s:", v8 ? "v8" : "LogGarbage",
	       dom_policy_names[d->policy], d->seconds, count_text(reached), v8 ? "node" : "object", plural_s(reached),
	       size_text(d->reached_bytes), v8 ? "constructor" : "class");
	for (uint32_t k = 0, shown = 0; k < d->nclasses && shown < 5; k++) {
		heap_name(h, d->classes[k].key, name, sizeof name);
		if (v8 && strcmp(name, "(synthetic)") == 0)
			continue;
		printf("%s %s %s", shown++ ? "," : "", disp(name), size_text(d->classes[k].retained));
	}
	printf("\n");
}

/* analyze's options (the defaults are set in cmd_analyze). */
struct analyze_opts {
	const char *db, *after;
	analysis_options an;
	int force, quiet;
};

#define A struct analyze_opts
static const option options[] = {
	OPT_STRING('o', NULL, A, db, "DB", "database to write (written to a temporary file, then renamed)"),
	OPT_ANALYSIS(A, an),
	OPT_STRING(0, "after", A, after, "FILE", "also write the heap as it is after this GC (.ugcs/.ugct/.zst)"),
	OPT_FLAG(0, "force", A, force, "overwrite existing output files"),
	OPT_FLAG('q', "quiet", A, quiet, "print nothing on success, and no progress line (--quiet is\nthe global option, taken by every command)"),
	OPT_END(),
};
#undef A

const command command_analyze = {
	"analyze", cmd_analyze, "run the engine's GC on a snapshot and store the results in SQLite",
	"usage: ugc-analyze analyze SNAPSHOT [-o DB] [--mode game|editor] [--keep-flags LIST]\n"
	"                           [--threads N] [--policy P] [--after FILE] [--force] [--quiet]\n",
	"Runs reachability analysis and purge exactly as Unreal Engine 5.5 would on the\n"
	"heap in SNAPSHOT, prints a LogGarbage-style summary and writes every result to a\n"
	"SQLite database (default: SNAPSHOT with its extension replaced by .db).\n",
	options, 1, NULL,
};

int cmd_analyze(int argc, char **argv)
{
	struct analyze_opts opts = {.an = ANALYSIS_OPTIONS_INIT};
	const char *snap = NULL;
	int parsed = parse_options(&command_analyze, argc, argv, &opts, &snap);
	if (parsed < 0)
		return OPT_EXIT_STATUS(parsed);
	const char *db = opts.db, *after = opts.after;
	int force = opts.force, quiet = cli_quiet || opts.quiet;
	if (opts.quiet)
		progress_setup(PROGRESS_OFF);
	if (!snap)
		return usage_error("analyze", "needs a SNAPSHOT");
	if (analysis_options_check("analyze", &opts.an))
		return 2;
	if (after && !snapshot_format_known(after))
		return usage_error("analyze", "cannot tell the format of '%s' (name it .ugcs, .ugct or .ugct.zst)", after);
	char *dbpath = db ? strdup(db) : default_db(snap);
	if (!dbpath)
		return error("out of memory");
	char err[SNAP_ERR_MAX];
	if (check_output(dbpath, force) || (after && check_output(after, force))) {
		free(dbpath);
		return 1; /* before minutes of work, not after */
	}
	/* --force never makes an output overwrite the snapshot it reads */
	if (outfile_check_input(dbpath, snap, err, sizeof err) || (after && outfile_check_input(after, snap, err, sizeof err))) {
		free(dbpath);
		return error("%s", err);
	}
	pipeline an;
	pipeline_options po = analysis_pipeline_options(&opts.an);
	store_early *early = NULL;
	store_info info = {snap, &an.opt, 0, NULL, STORE_AUTO, 0, 0};
	/* the database begun as soon as the heap is in: the references' pages
	 * are written beside the analysis, on the threads asked for (the GC
	 * may run on one beside the dominators) */
	int failed = pipeline_load(&an, snap, &po, err, sizeof err);
	info.threads = an.threads;
	if (failed || store_begin(&early, dbpath, force, &an.h, &info, err, sizeof err) ||
	    pipeline_need(&an, PIPE_ALL, err, sizeof err)) {
		error("%s", err);
		store_cancel(early);
		pipeline_free(&an);
		free(dbpath);
		return 1;
	}
	heap *h = &an.h;
	int rc = 1;
	if (h->no_garbage_elimination) /* stderr, --quiet or not: every answer below is affected */
		error("warning: %s: the engine that wrote this snapshot did not eliminate references to garbage objects "
		      "(garbage-elimination off); this tool's answers assume it did (ugc-gc(7))", snap);
	if (!quiet) {
		if (heap_is_v8(h))
			print_summary_v8(snap, h, &an.r, an.load_s);
		else
			print_summary(snap, h, &an.r, &an.f, &an.opt, an.load_s);
		print_retention(h, &an.dom);
	}
	fflush(stdout); /* the summary is out before the long write begins */
	/* every output complete in its temporary file first, then all published
	 * together: a failed --after leaves no database either */
	outfile outs[2];
	size_t nouts = 0;
	if (after) {
		heap post;
		obj_t stale;
		progress_begin_file("write", after);
		int built = gc_after_heap(h, &an.r, &post, &stale);
		if (built == AFTER_STALE) {
			char *name = heap_full_name(h, stale);
			error("%s: not written: %d %s survives this GC but its %s is purged: the engine would leave it a dangling "
			    "pointer (a use-after-free; see the cluster-missing findings); nothing written",
			    after, stale, disp(name), an.r.reachable[h->cls[stale]] ? "Outer" : "Class");
			free(name);
		} else if (built) {
			error("out of memory building the post-GC heap");
		} else if (snapshot_prepare(&outs[nouts], after, &post, force, err, sizeof err)) {
			error("%s", err);
		} else {
			nouts++;
		}
		heap_free(&post);
		if (nouts == 0)
			goto out;
	}
	double t1 = now_seconds();
	info.analysed_at = (double)time(NULL);
	info.dom = &an.dom;
	progress_begin_file("write", dbpath);
	int stored = store_end(early, &outs[nouts], h, &an.r, &an.f, &info, err, sizeof err);
	early = NULL;
	if (stored) {
		error("%s", err);
		while (nouts > 0)
			outfile_abort(&outs[--nouts]);
		goto out;
	}
	nouts++;
	progress_phase("sync");
	if (outfile_commit_all(outs, nouts, err, sizeof err)) {
		error("%s", err);
		goto out;
	}
	progress_phase(NULL);
	if (!quiet)
		printf("%s: wrote %s in %.3f s%s%s\n", heap_is_v8(h) ? "v8" : "LogGarbage", disp(dbpath), now_seconds() - t1, after ? " and " : "",
		       after ? disp(after) : "");
	rc = 0;
out:
	store_cancel(early);
	pipeline_free(&an);
	free(dbpath);
	return rc;
}
