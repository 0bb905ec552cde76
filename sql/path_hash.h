/* path_hash.h — the hash of an object's path name, stored in
 * object_table.path_hash so that a path is found with one indexed lookup
 * although the database stores no paths (a path grows with the Outer
 * depth: stored whole, a deep Outer chain would make the database quadratic
 * in its depth; the objects view builds them on demand instead).
 * FNV-1a 64 (base/hash.h) from FNV1A_START over the bytes of the path as
 * the engine writes it: stored in databases, so it never changes. */
#ifndef UGC_PATH_HASH_H
#define UGC_PATH_HASH_H

#include <stdint.h>

#include "snapshot/snapshot.h"

/* The hash of every object's path (heap_path with names as the database
 * stores them), in one pass that extends each Outer's hash: SLOTS entries
 * into *OUT (malloc'd; 0 for free slots).  0, or -1 when out of memory. */
int path_hash_heap(const heap *h, uint64_t **out);

#endif
