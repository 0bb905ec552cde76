/* pipeline.h — the analysis pipeline: a snapshot loaded once, and each
 * result a command needs (the GC, its findings, the dominators under a
 * policy) computed once, when first asked for, on the right threads.
 *
 * Every command that analyses a snapshot goes through here: analyze,
 * the query commands, `sql` on a snapshot (which asks for each part only
 * when a statement reads it), whatif, diff and the fuzz harnesses.  The
 * sql layer opens a database the same way (sql/input.h), so a command
 * never runs the GC, the findings or the dominators itself.
 *
 *   load ──> GC ──> findings
 *              └──> dominators (policy P; class and package sums if asked)
 *
 * (On a V8 heap the dominators can start before the load ends, beside the
 * loader's names: pipeline_load_for.)
 * The dominators need the GC's result except on a heap with no cluster and
 * no Garbage flag (dom_needs_gc 0: a V8 heap).  There, when both are asked
 * for together, the GC marks on a thread of its own beside the dominators'
 * walk, which is mostly one thread's work. */
#ifndef UGC_PIPELINE_H
#define UGC_PIPELINE_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/dominators.h"
#include "analysis/findings.h"
#include "analysis/gc.h"

/* The parts, a bit each (the findings need the GC, which pipeline_need runs
 * first; so do the dominators, unless dom_needs_gc says they do not: then
 * the GC runs beside them when asked for, and not at all when not). */
enum { PIPE_GC = 1, PIPE_FINDINGS = 2, PIPE_DOM = 4, PIPE_ALL = 7 };

/* How to analyse: the defaults (PIPELINE_OPTIONS_INIT) are the snapshot's
 * own mode and that mode's keep flags, a marking thread a core, policy gc. */
typedef struct pipeline_options {
	int mode;             /* enum gc_mode, or -1: the snapshot's */
	int keep_given;       /* KEEP_FLAGS given: else the mode's */
	uint32_t keep_flags;
	int threads;          /* marking threads, 0: one a core */
	int policy;           /* enum dom_policy, or -1: gc */
	int objects_only;     /* dominators without the class and package sums */
	int defer_retention;  /* leave ugc-gc(7) §3 (root kinds, distances) to
			       * whoever first needs it (a view) */
	int no_weak_lists;    /* gc_options.no_weak_lists: no findings asked for */
} pipeline_options;

#define PIPELINE_OPTIONS_INIT {.mode = -1, .policy = -1}

/* One snapshot's analysis.  Each result is valid once its PIPE_* bit is in
 * DONE; before, it is zeroed (DOM.policy excepted: the policy asked for). */
typedef struct pipeline {
	const char *path;     /* the input's name, for messages (borrowed) */
	heap h;
	gc_options opt;       /* the GC's options, the defaults filled in */
	int threads;          /* the threads asked for (opt.threads is the GC's:
			       * 1 when it runs beside the dominators) */
	gc_result r;          /* PIPE_GC */
	findings f;           /* PIPE_FINDINGS */
	dom_result dom;       /* PIPE_DOM */
	int objects_only;
	int done;             /* PIPE_* computed so far */
	int early;            /* PIPE_* computed during the load (pipeline_load_for) */
	double load_s;        /* seconds the load took */
} pipeline;

/* Load the snapshot at PATH with O's options (NULL: the defaults) and
 * compute nothing yet.  0, or -1 with the reason in ERR (nothing to free). */
int pipeline_load(pipeline *p, const char *path, const pipeline_options *o, char *err, size_t errsize);
/* pipeline_load, for a caller that will need WHAT (PIPE_* bits): when WHAT
 * has PIPE_DOM and not the GC or the findings, the heap's dominators need
 * no GC result and a second core is allowed, they are computed during the
 * load's last step, beside the loader's names (snapshot.h's load_hook; the
 * V8 loader has one).  pipeline_need computes the rest. */
int pipeline_load_for(pipeline *p, const char *path, const pipeline_options *o, int what, char *err,
		      size_t errsize);
/* Take over the heap H read from PATH (a database, say; H is zeroed here)
 * with the GC options OPT's mode and keep flags, which O's override. */
void pipeline_adopt(pipeline *p, const char *path, heap *h, const gc_options *opt, const pipeline_options *o);
/* Compute what of WHAT (PIPE_* bits) is not done yet, with what it needs:
 * 0, or -1 with the reason in ERR (what was done stays, for pipeline_free). */
int pipeline_need(pipeline *p, int what, char *err, size_t errsize);
/* Another policy's dominators over the same heap and GC result, into OUT
 * (the pipeline's own stay): 0, or -1 with the reason in ERR. */
int pipeline_dominators(pipeline *p, int policy, dom_result *out, char *err, size_t errsize);
void pipeline_free(pipeline *p);

#endif
