/* after.h — the heap as it is after a GC (spec §2, --after): purged slots
 * free with serial 0, eliminated and cleared references gone, dissolved
 * clusters gone.  A surviving reference into a purged slot becomes a
 * dangling record: the stale pointer the engine would leave behind. */
#ifndef UGC_AFTER_H
#define UGC_AFTER_H

#include "gc.h"

int gc_after_heap(const heap *h, const gc_result *r, heap *out);

#endif
