/* leak_paths.h — leak mode's shortest retention paths on a V8 heap: from
 * program state only.  Some of the roots V8 reports hold no program state:
 * the string tables, the startup object cache, the read-only roots, the
 * builtins and caches of compiled code.  An object whose shortest path runs
 * through one of them is not leaked by the program, and an object the
 * program holds as well must be traced through the program.  memlab and
 * DevTools leave these roots out of their leak traces; so does leak mode.
 *
 * The roots left out (synthetic nodes under "(GC roots)", by name):
 *   (Internalized strings)  (External strings)  (Startup object cache)
 *   (Read-only roots)  (Builtins)  (Compilation cache)  (Code flusher)
 *   (Extensions)
 * and, wherever it is met, compiled code (class "(compiled code)"): a path
 * never passes through one of them. */
#ifndef UGC_LEAK_PATHS_H
#define UGC_LEAK_PATHS_H

#include "analysis/gc.h"

/* Is object I of H one a leak trace never passes through (above)?  0 on a
 * heap that is not V8's. */
int leak_system_node(const heap *h, obj_t i);

/* Rewrite R's distance, parent and via (ugc-gc(7) §3, which R must hold)
 * as the same breadth-first walk gives them when it enters no system node:
 * a reachable object only system nodes lead to gets no distance
 * (UINT32_MAX) and no parent.  Nothing else of R changes.  For a V8 heap
 * (it has no cluster); on any other it changes nothing.  0, or -1 when out
 * of memory (R as it was). */
int leak_program_paths(const heap *h, gc_result *r);

#endif
