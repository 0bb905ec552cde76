/* evolve.h — a series of three related snapshots with known changes, the
 * ground truth for `diff` (gen --evolve):
 *   0  a generated heap (gen.h)
 *   1  the same process later: 0 after its GC (purged slots free), then a
 *      level loaded (new objects, in reused slots first, with new serials),
 *      two purged objects re-created under their old names, and leaks
 *      planted: MaterialInstanceDynamics an FGCObject cache holds, widgets
 *      the GameInstance holds (they reference the level only weakly)
 *   2  1 with the level unloaded, after its GC
 * The plan lists every added, removed, replaced and leaked object by full
 * name, one "STATUS FULL-NAME" line each. */
#ifndef UGC_EVOLVE_H
#define UGC_EVOLVE_H

#include <stdio.h>

#include "tools/gen/gen.h"

/* 0, or -1 with the reason in ERR (OUT then holds nothing to free). */
int evolve_series(const gen_options *opt, heap out[3], FILE *plan, char *err, size_t errsize);

#endif
