/* retention_input.c — opening a snapshot or a database with its dominators
 * (see retention_input.h). */
#include "cli/retention_input.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "base/base.h"
#include "sql/sql.h"

/* The GC on a thread of its own, beside the dominators (dom_needs_gc). */
typedef struct gc_job {
	heap *h;
	gc_options opt;
	gc_result *r;
	int rc;
	pthread_t th;
	int started; /* 0 not yet, 1 on its thread, 2 done here */
} gc_job;

static void *run_gc_job(void *arg)
{
	gc_job *j = arg;
	j->rc = gc_run(j->h, &j->opt, j->r);
	return NULL;
}

/* dom_compute_plain's one_thread hook: the dominators leave a core free. */
static void start_gc_job(void *arg)
{
	gc_job *j = arg;
	if (j->started)
		return;
	j->started = pthread_create(&j->th, NULL, run_gc_job, j) == 0 ? 1 : 2;
	if (j->started == 2) { /* no thread: the GC here, heard as a phase of its own */
		progress_phase("gc");
		run_gc_job(j);
		progress_phase("retention");
	}
}

/* Load PATH into IN, run its GC and compute POLICY's dominators.  On a heap
 * whose dominators need no GC result (a V8 heap, say) the GC marks on one
 * thread of its own meanwhile, from when the dominators have their counts
 * (the loader's, or their own on two threads): their walk and semi-NCA are
 * mostly one thread's work, which leaves the other core to the GC and
 * the walk's filler.  §3's distances (12 bytes an object) are left to
 * the view, which computes them if the command asks (after the dominators,
 * whose work arrays are then gone). */
static int compute_snapshot(const char *path, int policy, retention_input *in)
{
	heap *h = in->h;
	if (load_or_die(path, h))
		return 1;
	trace_point("load");
	gc_options opt = snapshot_gc_options(h, default_threads());
	opt.defer_retention = 1;
	int gc_rc = 0, dom_rc = 0;
	if (dom_needs_gc(h)) {
		progress_phase("gc");
		gc_rc = gc_run(h, &opt, in->r);
		trace_point("gc");
		progress_phase("retention");
		if (!gc_rc)
			dom_rc = (in->groups ? dom_compute : dom_compute_objects)(h, in->r, policy, &in->d);
		trace_point("dominators");
	} else {
		gc_job job = {.h = h, .opt = opt, .r = in->r, .rc = -1};
		job.opt.threads = 1;
		progress_phase("retention"); /* the GC's thread is not heard */
		uint32_t *links = h->in_links; /* handed over: the counts the walk needs */
		h->in_links = NULL;
		dom_rc = dom_compute_plain(h, opt.keep_flags, policy, in->groups, links, &in->d, start_gc_job, &job);
		trace_point("dominators");
		if (!dom_rc)
			start_gc_job(&job); /* nothing when the hook started it: success means a GC */
		if (job.started == 1)
			pthread_join(job.th, NULL);
		gc_rc = job.started ? job.rc : 0; /* else IN->R is still calloc's zeroes */
		trace_point("gc (beside the dominators)");
	}
	if (!gc_rc && !dom_rc)
		return 0;
	if (!dom_rc)
		dom_free(&in->d);
	if (!gc_rc)
		gc_result_free(in->r);
	heap_free(h);
	return gc_rc ? die("out of memory running the GC on %s", path) : die("out of memory computing dominators");
}

int retention_open(const char *path, int policy, int groups, retention_input *in)
{
	memset(in, 0, sizeof *in);
	in->path = path;
	in->groups = groups;
	char err[1024];
	if (is_sqlite_file(path)) {
		if (!(in->v = open_input(path)))
			return 1;
		if (retention_db_load(path, in->v->slots, policy, &in->d, err, sizeof err)) {
			close_input(in->v);
			return die("%s", err);
		}
		return 0;
	}
	in->h = malloc(sizeof *in->h);
	in->r = calloc(1, sizeof *in->r); /* zeroes: freeable if no GC fills it */
	int rc = !in->h || !in->r ? die("out of memory") : compute_snapshot(path, policy < 0 ? POLICY_GC : policy, in);
	if (rc) {
		free(in->h);
		free(in->r);
		in->h = NULL;
		in->r = NULL;
		return 1;
	}
	/* borrowed: §3, the reverse rows, instance lists and findings the
	 * query view could build are built only if a command asks for them
	 * (top never does), so a large snapshot pays only for what is printed */
	in->v = view_heap_borrow(in->h, in->r, err, sizeof err);
	progress_phase(NULL);
	if (!in->v) {
		dom_free(&in->d);
		gc_result_free(in->r);
		heap_free(in->h);
		free(in->h);
		free(in->r);
		return die("%s", err);
	}
	input_ready_at = now_seconds();
	return 0;
}

int retention_other(retention_input *in, int policy, dom_result *out)
{
	if (policy == in->d.policy)
		return die("--vs names the policy already shown (%s)", dom_policy_names[policy]);
	if (!in->h)
		return die("%s: a database holds one policy (%s); give the snapshot to compare with %s", in->path,
			   dom_policy_names[in->d.policy], dom_policy_names[policy]);
	progress_phase("retention");
	int rc = (in->groups ? dom_compute : dom_compute_objects)(in->h, in->r, policy, out);
	progress_phase(NULL);
	return rc ? die("out of memory computing dominators") : 0;
}

void retention_close(retention_input *in)
{
	dom_free(&in->d);
	if (in->v)
		close_input(in->v);
	if (in->h) { /* the view only borrowed them */
		gc_result_free(in->r);
		heap_free(in->h);
		free(in->h);
		free(in->r);
	}
	memset(in, 0, sizeof *in);
}
