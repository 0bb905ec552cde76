/* analysis.c — load, GC, findings and dominators with analyze's options
 * (see analysis.h). */
#include "cli/analysis_options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "base/base.h"

int analysis_options_given(const analysis_options *o)
{
	return o->mode >= 0 || o->keep || o->threads > 0 || o->policy >= 0;
}

int analysis_options_check(const char *cmd, analysis_options *o)
{
	char bad[64];
	o->keep_flags = 0;
	if (o->keep && strcmp(o->keep, "-") && flags_parse_object(o->keep, &o->keep_flags, bad, sizeof bad))
		return usage_error(cmd, "--keep-flags: '%s' is not an RF_ object flag", bad);
	if (o->threads <= 0)
		o->threads = default_threads();
	if (o->policy < 0)
		o->policy = POLICY_GC;
	return 0;
}

int analysis_load(const char *path, const analysis_options *o, analysis *a)
{
	double t0 = now_seconds();
	memset(a, 0, sizeof *a);
	if (load_or_die(path, &a->h))
		return 1;
	a->load_s = now_seconds() - t0;
	a->opt = (gc_options){.mode = a->h.mode, .threads = (int)(o->threads > 0 ? o->threads : 1)};
	if (o->mode >= 0)
		a->opt.mode = o->mode;
	a->opt.keep_flags = o->keep ? o->keep_flags : gc_default_keep_flags(a->opt.mode);
	a->dom.policy = o->policy >= 0 ? o->policy : POLICY_GC;
	if (getenv("UGC_TRACE"))
		fprintf(stderr, "trace: load %.3f s\n", a->load_s);
	return 0;
}

/* Trace PHASE's time since *T (with UGC_TRACE), and restart *T. */
static void trace_phase(const char *phase, double *t)
{
	double now = now_seconds();
	if (getenv("UGC_TRACE"))
		fprintf(stderr, "trace: %s %.3f s\n", phase, now - *t);
	*t = now;
}

int analysis_need(analysis *a, int what, char *err, size_t errsize)
{
	double t = now_seconds();
	const char *fail = NULL;
	int todo = what & ~a->done;
	if (!todo)
		return 0;
	if (!(a->done & AN_GC)) {
		progress_phase("gc");
		if (gc_run(&a->h, &a->opt, &a->r))
			fail = "running the GC";
		else
			a->done |= AN_GC;
		trace_phase("GC", &t);
	}
	if (!fail && (todo & AN_FINDINGS)) {
		if (findings_collect(&a->h, &a->r, &a->f))
			fail = "collecting findings";
		else
			a->done |= AN_FINDINGS;
		trace_phase("findings", &t);
	}
	if (!fail && (todo & AN_DOM)) {
		int policy = a->dom.policy, rc;
		progress_phase("retention");
		if (a->h.in_links && !dom_needs_gc(&a->h)) { /* the loader's counts, handed over */
			uint32_t *links = a->h.in_links;
			a->h.in_links = NULL;
			rc = dom_compute_plain(&a->h, a->r.keep_flags, policy, 1, links, &a->dom, NULL, NULL);
		} else {
			rc = dom_compute(&a->h, &a->r, policy, &a->dom);
		}
		if (rc) {
			fail = "computing dominators";
			a->dom.policy = policy; /* for a later try */
		} else {
			a->done |= AN_DOM;
		}
		trace_phase("dominators", &t);
	}
	progress_phase(NULL);
	if (fail)
		snprintf(err, errsize, "out of memory %s", fail);
	return fail ? -1 : 0;
}

int analysis_run(const char *path, const analysis_options *o, analysis *a)
{
	char err[128];
	if (analysis_load(path, o, a))
		return 1;
	if (analysis_need(a, AN_ALL, err, sizeof err)) {
		die("%s", err);
		analysis_free(a);
		return 1;
	}
	return 0;
}

void analysis_free(analysis *a)
{
	findings_free(&a->f);
	dom_free(&a->dom);
	gc_result_free(&a->r);
	heap_free(&a->h);
}
