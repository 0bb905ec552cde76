/* after.h — the heap as it is after a GC (ugc-gc(7) §2, --after): purged
 * slots free with serial 0, eliminated and cleared references gone,
 * dissolved clusters gone.  A surviving reference into a purged slot
 * becomes a dangling record: the stale pointer the engine would leave
 * behind. */
#ifndef UGC_AFTER_H
#define UGC_AFTER_H

#include "analysis/gc.h"

/* Returns 0; -1 when out of memory; or AFTER_STALE when a surviving object's
 * Class or Outer is purged (the engine would leave it a dangling pointer,
 * which no snapshot can hold): *STALE is then that object. */
#define AFTER_STALE (-2)
int gc_after_heap(const heap *h, const gc_result *r, heap *out, obj_t *stale);

#endif
