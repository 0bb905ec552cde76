/* input.h — a command's input, whatever it is: a database analyze wrote,
 * read through SQLite, or a snapshot analysed in memory through the
 * pipeline (analysis/pipeline.h).  The commands open their input here and
 * never run the GC, the findings or the dominators themselves.
 *
 * Every function returns 0, or -1 with a one-line reason in ERR that names
 * the file. */
#ifndef UGC_INPUT_H
#define UGC_INPUT_H

#include "analysis/analysis.h"

/* An opened input: the query view, and the dominators when asked for. */
typedef struct input {
	const char *path;
	view *v;          /* names, selectors, references, states */
	dom_result d;     /* with PIPE_DOM: under the policy asked for */
	heap *h;          /* a snapshot: its heap (V borrows it); NULL for a database */
	gc_result *r;     /* a snapshot: its GC result, likewise */
	pipeline *p;      /* a snapshot: the analysis H and R belong to */
} input;

/* Open PATH as a view, with what of WHAT it needs: PIPE_GC (always) and
 * PIPE_DOM for the dominators under O's policy (-1: gc for a snapshot, the
 * stored one for a database).  O (NULL: the defaults) analyses a snapshot;
 * a snapshot's findings are computed by the view if a command asks. */
int input_open(input *in, const char *path, int what, const pipeline_options *o, char *err, size_t errsize);
/* Another policy's dominators over the same input (a snapshot: a database
 * holds one policy). */
int input_dominators(input *in, int policy, dom_result *out, char *err, size_t errsize);
void input_close(input *in);

/* PATH as a view that owns what is behind it (closing it frees all), with
 * a snapshot's GC run: for the query commands.  NULL with the reason in ERR. */
view *input_open_view(const char *path, char *err, size_t errsize);

/* PATH, a snapshot or a database, as a heap in P with its GC's options (a
 * database's stored mode and keep flags; O overrides them), nothing
 * computed yet: for a command that changes the heap (whatif). */
int input_open_heap(pipeline *p, const char *path, const pipeline_options *o, char *err, size_t errsize);

/* One side of a diff: a database's stored state, or a snapshot's GC and
 * findings on THREADS marking threads. */
int input_diff_side(const char *path, int threads, diff_side *s, char *err, size_t errsize);

#endif
