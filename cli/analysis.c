/* analysis.c — load, GC, findings and dominators with analyze's options
 * (see analysis.h). */
#include "analysis.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "progress.h"

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

int analysis_run(const char *path, const analysis_options *o, analysis *a)
{
	double t0 = now_seconds();
	if (load_or_die(path, &a->h))
		return 1;
	a->load_s = now_seconds() - t0;
	a->opt = (gc_options){a->h.mode, 0, (int)(o->threads > 0 ? o->threads : 1), 0};
	if (o->mode >= 0)
		a->opt.mode = o->mode;
	a->opt.keep_flags = o->keep ? o->keep_flags : gc_default_keep_flags(a->opt.mode);
	int rc = 1;
	progress_phase("gc");
	if (gc_run(&a->h, &a->opt, &a->r)) {
		die("out of memory running the GC");
		goto out_heap;
	}
	double t1 = now_seconds();
	if (findings_collect(&a->h, &a->r, &a->f)) {
		die("out of memory collecting findings");
		goto out_gc;
	}
	progress_phase("retention");
	if (dom_compute(&a->h, &a->r, o->policy, &a->dom)) {
		die("out of memory computing dominators");
		findings_free(&a->f);
		goto out_gc;
	}
	progress_phase(NULL);
	if (getenv("UGC_TRACE"))
		fprintf(stderr, "trace: load %.3f s, GC %.3f s, findings %.3f s, dominators %.3f s\n", a->load_s,
			t1 - t0 - a->load_s, a->dom.seconds > 0 ? now_seconds() - t1 - a->dom.seconds : 0, a->dom.seconds);
	return 0;
out_gc:
	gc_result_free(&a->r);
out_heap:
	heap_free(&a->h);
	return rc;
}

void analysis_free(analysis *a)
{
	findings_free(&a->f);
	dom_free(&a->dom);
	gc_result_free(&a->r);
	heap_free(&a->h);
}
