/* retention_input.h — the input of the retention commands (top,
 * dominators, suspects): a view for names and selectors, and the
 * dominators and retained sizes, computed from a snapshot or read from a
 * database analyze wrote. */
#ifndef UGC_RETENTION_INPUT_H
#define UGC_RETENTION_INPUT_H

#include "analysis/analysis.h"

typedef struct retention_input {
	const char *path;
	view *v;
	dom_result d;     /* under the policy asked for */
	heap *h;          /* snapshot input: the heap and its GC (V borrows them) */
	gc_result *r;
	int groups;       /* the class and package aggregates are wanted */
} retention_input;

/* Open PATH with its retention results under POLICY (-1: gc for a
 * snapshot, the stored policy for a database); GROUPS 0: a snapshot's
 * class and package aggregates are left out (dom_compute_objects), for a
 * command that shows objects only.  0, or 1 after printing. */
int retention_open(const char *path, int policy, int groups, retention_input *in);
/* Another policy's results over the same input (snapshot input only: a
 * database holds one).  0, or 1 after printing. */
int retention_other(retention_input *in, int policy, dom_result *out);
void retention_close(retention_input *in);

#endif
