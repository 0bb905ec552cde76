/* retention_input.h — the input of the retention commands (top,
 * dominators, suspects): a view for names and selectors, and the
 * dominators and retained sizes, computed from a snapshot or read from a
 * database analyze wrote (sql/input.h), with the errors printed. */
#ifndef UGC_RETENTION_INPUT_H
#define UGC_RETENTION_INPUT_H

#include "sql/sql.h"

typedef input retention_input;

/* Open PATH with its retention results under POLICY (-1: gc for a
 * snapshot, the stored policy for a database); GROUPS 0: a snapshot's
 * class and package aggregates are left out, for a command that shows
 * objects only; GC 0: the command names objects and reads no GC result
 * (IN's r), so a snapshot's GC runs only if a view call needs it (on a V8
 * heap the dominators need none).  0, or 1 after printing. */
int retention_open(const char *path, int policy, int groups, int gc, retention_input *in);
/* Another policy's results over the same input (snapshot input only: a
 * database holds one).  0, or 1 after printing. */
int retention_other(retention_input *in, int policy, dom_result *out);
/* Note the answer's end, then close IN. */
void retention_close(retention_input *in);

#endif
