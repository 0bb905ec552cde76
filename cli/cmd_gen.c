/* cmd_gen.c — `ugc-analyze gen`: write a generated heap (see snapshot/gen.h). */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "progress.h"
#include "publish.h"
#include "evolve.h"
#include "fileio.h"
#include "gen.h"
#include "snapshot.h"

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
		int bad = name ? check_output(name, force) : die("out of memory");
		free(name);
		if (bad)
			return 1;
	}
	char *plan_name = series_name(out, ".plan");
	if (!plan_name)
		return die("out of memory");
	if (outfile_open(&plan, plan_name, force, err, sizeof err)) {
		free(plan_name);
		return die("%s", err);
	}
	free(plan_name);
	int rc = 0;
	progress_phase("generate");
	if (evolve_series(opt, hs, plan.fp, err, sizeof err)) {
		outfile_abort(&plan);
		rc = die("%s", err);
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
				rc = die("%s", name ? err : "out of memory");
			else
				n++;
			free(name);
		}
		if (rc == 0) {
			outs[n++] = plan;
			if (outfile_commit_all(outs, n, err, sizeof err))
				rc = die("%s", err);
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

int cmd_gen(int argc, char **argv)
{
	gen_options opt = {0, 1, MODE_GAME, 0};
	const char *out = NULL;
	int force = 0, evolve = 0;
	long long v;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int more = i + 1 < argc;
		if (strcmp(a, "--objects") == 0 && more) {
			if ((v = parse_count(argv[++i], GEN_MAX_OBJECTS)) < 0)
				return usage_error("gen", "--objects takes a number up to %d", GEN_MAX_OBJECTS);
			opt.objects = (uint64_t)v;
		} else if (strcmp(a, "--seed") == 0 && more) {
			if ((v = parse_count(argv[++i], (1LL << 62))) < 0)
				return usage_error("gen", "--seed takes a non-negative number");
			opt.seed = (uint64_t)v;
		} else if (strcmp(a, "--mode") == 0 && more) {
			const char *m = argv[++i];
			if (strcmp(m, "game") && strcmp(m, "editor"))
				return usage_error("gen", "--mode is game or editor");
			opt.mode = strcmp(m, "editor") == 0 ? MODE_EDITOR : MODE_GAME;
		} else if (strcmp(a, "--broken-clusters") == 0 && more) {
			if ((v = parse_count(argv[++i], 100)) < 0)
				return usage_error("gen", "--broken-clusters takes a percentage from 0 to 100");
			opt.broken_pct = (int)v;
		} else if (strcmp(a, "-o") == 0 && more) {
			out = argv[++i];
		} else if (strcmp(a, "--force") == 0) {
			force = 1;
		} else if (strcmp(a, "--evolve") == 0) {
			evolve = 1;
		} else {
			return usage_error("gen", "unexpected argument '%s'", a);
		}
	}
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
		return die("%s", err);
	}
	progress_begin_file("write", out);
	int rc = snapshot_save(out, &h, force, err, sizeof err);
	heap_free(&h);
	return rc ? die("%s", err) : 0;
}
