/* pipeline.c — load once, compute each part once (see pipeline.h). */
#include "analysis/pipeline.h"

#include <stdio.h>
#include <string.h>

#include "base/base.h"
#include "snapshot/snapshot.h"

/* Fill in OPT from the heap's own mode and O's overrides. */
static void set_options(pipeline *p, int mode, uint32_t keep_flags, const pipeline_options *o)
{
	pipeline_options none = PIPELINE_OPTIONS_INIT;
	if (!o)
		o = &none;
	p->opt = (gc_options){.mode = o->mode >= 0 ? o->mode : mode, .threads = o->threads > 0 ? o->threads : cpu_cores(),
			      .defer_retention = o->defer_retention, .no_weak_lists = o->no_weak_lists};
	p->threads = p->opt.threads;
	p->opt.keep_flags = o->keep_given ? o->keep_flags : o->mode >= 0 ? gc_default_keep_flags(p->opt.mode) : keep_flags;
	p->dom.policy = o->policy >= 0 ? o->policy : POLICY_GC;
	p->objects_only = o->objects_only;
}

void pipeline_adopt(pipeline *p, const char *path, heap *h, const gc_options *opt, const pipeline_options *o)
{
	memset(p, 0, sizeof *p);
	p->path = path;
	p->h = *h;
	memset(h, 0, sizeof *h);
	set_options(p, opt->mode, opt->keep_flags, o);
}

/* The GC as a job of its own, for jobs.h. */
typedef struct gc_job {
	pipeline *p;
	int rc;
} gc_job;

static void *run_gc(void *arg)
{
	gc_job *g = arg;
	g->rc = gc_run(&g->p->h, &g->p->opt, &g->p->r);
	return NULL;
}

/* The GC beside the dominators, started by their hook once they leave a
 * core free (dom_compute_plain's ONE_THREAD). */
typedef struct beside {
	gc_job gc;
	job j;
	int started;
} beside;

static void start_beside(void *arg)
{
	beside *b = arg;
	if (!b->started)
		job_start(&b->j, run_gc, &b->gc);
	b->started = 1;
}

/* The dominators from the loader's link counts, handed over (they are
 * freed whatever the outcome), or counted here. */
static uint32_t *take_links(heap *h)
{
	uint32_t *links = h->in_links;
	h->in_links = NULL;
	return links;
}

/* GC and dominators together on a heap whose dominators need no GC result:
 * the GC marks on one thread beside the dominators (their hook starts it once the walk is done). */
static const char *gc_beside_dominators(pipeline *p)
{
	beside b = {.gc = {p, -1}};
	p->opt.threads = 1; /* and it stays the GC's, for whoever reports it */
	progress_phase("retention"); /* the GC's thread is not heard */
	int rc = dom_compute_plain(&p->h, p->opt.keep_flags, p->dom.policy, !p->objects_only, take_links(&p->h), &p->dom,
				   start_beside, &b);
	trace_point("dominators");
	start_beside(&b); /* when the dominators failed before their hook */
	job_wait(&b.j);
	trace_point("gc (beside the dominators)");
	if (b.gc.rc == 0)
		p->done |= PIPE_GC;
	if (rc == 0)
		p->done |= PIPE_DOM;
	return b.gc.rc ? "running the GC" : rc ? "computing dominators" : NULL;
}

/* The findings as a job of their own, for jobs.h. */
typedef struct findings_job {
	pipeline *p;
	int rc;
} findings_job;

static void *run_findings(void *arg)
{
	findings_job *fj = arg;
	fj->rc = findings_collect(&fj->p->h, &fj->p->r, &fj->p->f);
	return NULL;
}

static const char *dominators(pipeline *p)
{
	int rc;
	progress_phase("retention");
	/* without the GC's result where they need none: from the loader's
	 * link counts, or with the GC not run */
	if (!dom_needs_gc(&p->h) && (p->h.in_links || !(p->done & PIPE_GC)))
		rc = dom_compute_plain(&p->h, p->opt.keep_flags, p->dom.policy, !p->objects_only, take_links(&p->h),
				       &p->dom, NULL, NULL);
	else
		rc = (p->objects_only ? dom_compute_objects : dom_compute)(&p->h, &p->r, p->dom.policy, &p->dom);
	trace_point("dominators");
	if (rc)
		return "computing dominators";
	p->done |= PIPE_DOM;
	return NULL;
}

/* After dominators that failed: none, POLICY still the one asked for (for
 * a later try). */
static void dom_reset(pipeline *p, int policy)
{
	dom_free(&p->dom);
	p->dom.policy = policy;
}

/* The dominators during the load's last step (snapshot.h's load_hook),
 * beside the loader's names: where they read no GC result and a second
 * core is allowed.  They read the graph only (dominators.c, and
 * retention_graph.c under them, read no name, property or string). */
typedef struct early {
	pipeline *p;
	const pipeline_options *o;
	double seconds; /* spent here, not loading */
} early;

static void graph_ready(heap *h, void *arg)
{
	early *e = arg;
	pipeline *p = e->p;
	set_options(p, h->mode, gc_default_keep_flags(h->mode), e->o);
	if (p->threads < 2 || dom_needs_gc(h))
		return;
	double t0 = now_seconds();
	int policy = p->dom.policy;
	trace_point("load: graph");
	if (dominators(p)) /* pipeline_need tries again, and says so */
		dom_reset(p, policy);
	else
		p->early = PIPE_DOM;
	e->seconds = now_seconds() - t0;
}

int pipeline_load_for(pipeline *p, const char *path, const pipeline_options *o, int what, char *err, size_t errsize)
{
	double t0 = now_seconds();
	memset(p, 0, sizeof *p);
	p->path = path;
	progress_begin_file("load", path);
	early e = {p, o, 0};
	load_hook hook = {graph_ready, &e};
	/* not when the GC is wanted too: it reads names, so it could not start
	 * beside them, and runs beside the dominators' last steps instead
	 * (gc_beside_dominators) */
	int early_dom = (what & PIPE_DOM) && !(what & (PIPE_GC | PIPE_FINDINGS));
	if (snapshot_load_with(path, early_dom ? &hook : NULL, &p->h, err, errsize)) {
		dom_free(&p->dom);
		return -1;
	}
	p->load_s = now_seconds() - t0 - e.seconds;
	set_options(p, p->h.mode, gc_default_keep_flags(p->h.mode), o);
	trace_point("load");
	return 0;
}

int pipeline_load(pipeline *p, const char *path, const pipeline_options *o, char *err, size_t errsize)
{
	return pipeline_load_for(p, path, o, 0, err, errsize);
}

int pipeline_need(pipeline *p, int what, char *err, size_t errsize)
{
	const char *fail = NULL;
	int todo = what & ~p->done;
	if (!todo)
		return 0;
	if (NEVER((todo & PIPE_FINDINGS) && p->opt.no_weak_lists)) { /* the findings read step 7's lists */
		snprintf(err, errsize, "findings asked of a GC run without its weak-reference lists");
		return -1;
	}
	int policy = p->dom.policy;
	/* the GC when asked for, or when what is asked reads its result: the
	 * findings, or dominators that need it (dom_needs_gc) */
	int gc = !(p->done & PIPE_GC) &&
		 ((todo & (PIPE_GC | PIPE_FINDINGS)) || ((todo & PIPE_DOM) && dom_needs_gc(&p->h)));
	if (gc && (todo & PIPE_DOM) && !dom_needs_gc(&p->h)) {
		fail = gc_beside_dominators(p);
	} else if (gc) {
		progress_phase("gc");
		if (gc_run(&p->h, &p->opt, &p->r))
			fail = "running the GC";
		else
			p->done |= PIPE_GC;
		trace_point("GC");
	}
	if (!fail && (todo & PIPE_FINDINGS)) {
		/* the findings read the heap and the GC result only: beside the
		 * dominators when both are wanted and a second core is allowed */
		findings_job fj = {p, -1};
		job j;
		int beside = (todo & PIPE_DOM) && !(p->done & PIPE_DOM) && p->threads > 1;
		if (beside) {
			job_start(&j, run_findings, &fj);
			fail = dominators(p);
			job_wait(&j);
		} else {
			run_findings(&fj);
		}
		if (fj.rc)
			fail = "collecting findings";
		else
			p->done |= PIPE_FINDINGS;
		trace_point(beside ? "findings (beside the dominators)" : "findings");
	}
	if (!fail && (todo & PIPE_DOM) && !(p->done & PIPE_DOM))
		fail = dominators(p);
	if (fail && !(p->done & PIPE_DOM))
		dom_reset(p, policy);
	progress_phase(NULL);
	if (fail)
		snprintf(err, errsize, "out of memory %s on %s", fail, p->path ? p->path : "the heap");
	return fail ? -1 : 0;
}

int pipeline_dominators(pipeline *p, int policy, dom_result *out, char *err, size_t errsize)
{
	memset(out, 0, sizeof *out);
	if (pipeline_need(p, PIPE_GC, err, errsize))
		return -1;
	progress_phase("retention");
	int rc = (p->objects_only ? dom_compute_objects : dom_compute)(&p->h, &p->r, policy, out);
	progress_phase(NULL);
	if (rc)
		snprintf(err, errsize, "out of memory computing dominators");
	return rc ? -1 : 0;
}

void pipeline_free(pipeline *p)
{
	findings_free(&p->f);
	dom_free(&p->dom);
	gc_result_free(&p->r);
	heap_free(&p->h);
	memset(p, 0, sizeof *p);
}
