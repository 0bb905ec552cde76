/* cmd_gen.c — `ugc-analyze gen`: write a generated heap (see tools/gen/gen.h). */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "base/base.h"
#include "tools/gen/gen.h"
#include "snapshot/snapshot.h"

/* OUT with "-K" before its extension ("run.ugcs" -> "run-1.ugcs"), or ".plan". */
static char *series_name(const char *out, const char *tag)
{
	const char *ext = strstr(out, ".ugct") ? strstr(out, ".ugct") : strstr(out, ".ugcs") ? strstr(out, ".ugcs")
											     : out + strlen(out);
	size_t base = (size_t)(ext - out), n = strlen(out) + strlen(tag) + 8;
	char *s = malloc(n);
	if (s)
		snprintf(s, n, "%.*s%s%s", (int)base, out, tag, strcmp(tag, ".plan") == 0 ? "" : ext);
	return s;
}

/* What was written: "NAME: N objects, N references, N clusters" (not with
 * --quiet). */
static void say_written(const char *name, const heap *h)
{
	if (cli_quiet)
		return;
	printf("wrote %s: %s object%s, %s reference%s, %s cluster%s, %s FGCObject reference%s\n", disp(name),
	       count_text(h->objects), plural_s(h->objects), count_text(h->nrefs), plural_s(h->nrefs),
	       count_text(h->nclusters), plural_s(h->nclusters), count_text(h->ngcrefs), plural_s(h->ngcrefs));
}

/* --evolve: three snapshots and the plan of what changed between them. */
static int gen_series(const gen_options *opt, const char *out, int force)
{
	char err[SNAP_ERR_MAX];
	heap hs[3];
	outfile plan;
	for (int k = 0; k < 4; k++) { /* every output writable, before the work */
		char tag[8];
		snprintf(tag, sizeof tag, k < 3 ? "-%d" : ".plan", k);
		char *name = series_name(out, tag);
		int bad = name ? check_output(name, force) : error("out of memory");
		free(name);
		if (bad)
			return 1;
	}
	char *plan_name = series_name(out, ".plan");
	if (!plan_name)
		return error("out of memory");
	if (outfile_open(&plan, plan_name, force, err, sizeof err)) {
		free(plan_name);
		return error("%s", err);
	}
	free(plan_name);
	int rc = 0;
	progress_phase("generate");
	if (evolve_series(opt, hs, plan.fp, err, sizeof err)) {
		outfile_abort(&plan);
		rc = error("%s", err);
	} else {
		/* the four files complete first, then published all or none */
		outfile outs[4];
		size_t n = 0;
		progress_begin_file("write", out);
		for (int k = 0; k < 3 && rc == 0; k++) {
			progress_span(k / 3.0, (k + 1) / 3.0);
			char tag[8];
			snprintf(tag, sizeof tag, "-%d", k);
			char *name = series_name(out, tag);
			if (!name || snapshot_prepare(&outs[n], name, &hs[k], force, err, sizeof err))
				rc = error("%s", name ? err : "out of memory");
			else
				n++;
			free(name);
		}
		if (rc == 0) {
			outs[n++] = plan;
			if (outfile_commit_all(outs, n, err, sizeof err))
				rc = error("%s", err);
			for (int k = 0; k < 4 && rc == 0; k++) {
				char tag[8];
				snprintf(tag, sizeof tag, k < 3 ? "-%d" : ".plan", k);
				char *name = series_name(out, tag);
				if (name && k < 3)
					say_written(name, &hs[k]);
				else if (name && !cli_quiet)
					printf("wrote %s: the plan, one 'STATUS Class /Path' line a planted change\n", disp(name));
				free(name);
			}
		} else {
			while (n > 0)
				outfile_abort(&outs[--n]);
			outfile_abort(&plan);
		}
	}
	for (int k = 0; k < 3; k++)
		heap_free(&hs[k]);
	return rc;
}

struct gen_opts {
	long long objects, seed, broken, nodes, chain, wide, distinct;
	int mode, evolve, force, format;
	const char *out;
};

static const char *const gen_formats[] = {"ugc", "v8"};
enum { FORMAT_UGC, FORMAT_V8 };

/* gen --format v8: a synthetic V8 .heapsnapshot (tools/gen/v8gen.c),
 * streamed into the output's temporary file, then published. */
static int gen_v8_file(const struct gen_opts *o)
{
	if (!o->nodes)
		return usage_error("gen", "--format v8 needs --nodes N");
	if (o->objects || o->evolve || o->broken || o->mode != MODE_GAME)
		return usage_error("gen", "--objects, --mode, --broken-clusters and --evolve are for UE heaps, "
					  "not --format v8");
	if (!ends_with(o->out, ".heapsnapshot") && !ends_with(o->out, ".heapsnapshot.zst"))
		return usage_error("gen", "name a V8 snapshot .heapsnapshot or .heapsnapshot.zst (not '%s')", o->out);
	gen_v8_options opt = {(uint64_t)o->nodes, (uint64_t)o->seed,
			      o->chain >= 0 ? (uint64_t)o->chain : (uint64_t)o->nodes / 200,
			      o->wide >= 0 ? (uint64_t)o->wide : (uint64_t)o->nodes / 500, (uint64_t)o->distinct};
	char err[SNAP_ERR_MAX];
	if (check_output(o->out, o->force))
		return 1;
	outfile out;
	if (outfile_open(&out, o->out, o->force, err, sizeof err))
		return error("%s", err);
	gen_v8_stats st;
	progress_begin_file("write", o->out);
	if (gen_v8(&opt, out.fp, ends_with(o->out, ".zst"), &st, err, sizeof err)) {
		outfile_abort(&out);
		return error("%s: %s", disp(o->out), err);
	}
	if (outfile_commit(&out, err, sizeof err))
		return error("%s", err);
	if (!cli_quiet)
		printf("wrote %s: %s node%s, %s edge%s, %s string%s, %s of JSON\n", disp(o->out), count_text(st.nodes),
		       plural_s(st.nodes), count_text(st.edges), plural_s(st.edges), count_text(st.strings),
		       plural_s(st.strings), size_text(st.bytes));
	return 0;
}

#define G struct gen_opts
static const option options[] = {
	OPT_CHOICE(0, "format", G, format, gen_formats, 2, "F",
		   "ugc (default): a UE heap; v8: a V8 .heapsnapshot (below)"),
	OPT_INT(0, "objects", G, objects, 1, GEN_MAX_OBJECTS, "N", "about how many objects (up to 20000000)"),
	OPT_INT(0, "seed", G, seed, 0, 1LL << 62, "S", "random seed (default 1)"),
	OPT_CHOICE(0, "mode", G, mode, mode_choices, 2, "M", "game (default) or editor"),
	OPT_INT(0, "broken-clusters", G, broken, 0, 100, "P",
		"drop P percent of cluster list entries (default 0), to make\n"
		"the disagreements the engine would trust"),
	OPT_FLAG(0, "evolve", G, evolve,
		 "write a series instead: FILE-0, FILE-1, FILE-2 (same process:\n"
		 "0 after its GC, a level loaded into reused slots, two purged\n"
		 "objects re-created, leaks planted; then the level unloaded and\n"
		 "GC'd) and FILE.plan, one 'STATUS Class /Path' line for every\n"
		 "object added, removed, replaced or leaked"),
	OPT_INT(0, "nodes", G, nodes, GEN_V8_MIN_NODES, GEN_V8_MAX_NODES, "N",
		"v8: exactly N nodes (1000 to 100000000)"),
	OPT_INT(0, "chain", G, chain, 0, GEN_V8_MAX_NODES, "N",
		"v8: a linked list N objects long (default nodes/200)"),
	OPT_INT(0, "wide", G, wide, 0, GEN_V8_MAX_NODES, "N",
		"v8: one array of N elements, each an object (default nodes/500)"),
	OPT_INT(0, "distinct-names", G, distinct, 0, GEN_V8_MAX_NODES, "N",
		"v8: one object with N distinct property names, each\n"
		"holding an object (default 0; 2N+2 nodes)"),
	OPT_STRING('o', NULL, G, out, "FILE", "output (.ugcs, .ugct or .ugct.zst; v8: .heapsnapshot[.zst])"),
	OPT_FLAG(0, "force", G, force, "overwrite existing output files"),
	OPT_END(),
};
#undef G

const command command_gen = {
	"gen", cmd_gen, "generate a deterministic heap shaped like a real UE game's",
	"usage: ugc-analyze gen --objects N [--seed S] [--mode game|editor] [--broken-clusters P]\n"
	"                       [--evolve] -o FILE [--force]\n"
	"       ugc-analyze gen --format v8 --nodes N [--seed S] [--chain N] [--wide N]\n"
	"                       [--distinct-names N] -o FILE.heapsnapshot[.zst] [--force]\n",
	"Writes a synthetic snapshot of about N objects (at least 200): the CoreUObject\n"
	"package, native classes and CDOs in the disregard pool, asset packages (materials,\n"
	"textures, meshes, blueprint classes, some of them cluster roots), worlds with levels\n"
	"whose actors and components are clustered as ULevelActorContainer clusters them,\n"
	"FGCObject referencers, RootSet/RefCounted/RF_Standalone objects, destroyed actors\n"
	"still referenced, weak and soft references, render resources not ready for\n"
	"FinishDestroy, assets still loading (AsyncLoadingPhase1 and 2), a garbage object\n"
	"in the disregard pool, a level being streamed out (its LevelActorContainer garbage,\n"
	"its actors handed to the Level), and an unreachable part.  The same N, S and mode\n"
	"give the same bytes.\n"
	"\n"
	"With --format v8, writes a synthetic V8 heap snapshot of exactly N nodes instead,\n"
	"as Node 20 writes one (its meta, the (GC roots) structure) and shaped like a real\n"
	"application's (node and edge type mix, edges per node, string reuse, weak and\n"
	"shortcut edges), plus the special shapes below; streamed, in bounded memory, for\n"
	"sizes node cannot reach.  The same options give the same bytes.\n",
	options, 0, NULL,
};

int cmd_gen(int argc, char **argv)
{
	struct gen_opts opts = {.seed = 1, .mode = MODE_GAME, .chain = -1, .wide = -1};
	int parsed = parse_options(&command_gen, argc, argv, &opts, NULL);
	if (parsed < 0)
		return OPT_EXIT_STATUS(parsed);
	if (!opts.out)
		return usage_error("gen", "needs -o FILE");
	if (opts.format == FORMAT_V8)
		return gen_v8_file(&opts);
	if (opts.nodes || opts.chain >= 0 || opts.wide >= 0 || opts.distinct)
		return usage_error("gen", "--nodes, --chain, --wide and --distinct-names need --format v8");
	gen_options opt = {(uint64_t)opts.objects, (uint64_t)opts.seed, opts.mode, (int)opts.broken};
	const char *out = opts.out;
	int force = opts.force, evolve = opts.evolve;
	if (!opt.objects)
		return usage_error("gen", "needs --objects N");
	if (!out)
		return usage_error("gen", "needs -o FILE");
	if (!snapshot_format_known(out))
		return usage_error("gen", "cannot tell the format of '%s' (name it .ugcs, .ugct or .ugct.zst)", out);
	char err[SNAP_ERR_MAX];
	if (evolve)
		return gen_series(&opt, out, force);
	if (check_output(out, force))
		return 1;
	heap h;
	progress_phase("generate");
	if (gen_heap(&opt, &h, err, sizeof err)) {
		heap_free(&h);
		return error("%s", err);
	}
	progress_begin_file("write", out);
	int rc = snapshot_save(out, &h, force, err, sizeof err);
	if (rc == 0)
		say_written(out, &h);
	heap_free(&h);
	return rc ? error("%s", err) : 0;
}
