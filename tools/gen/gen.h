/* gen.h — a deterministic generator of heaps shaped like a real UE game's.
 * The same options give the same heap, byte for byte. */
#ifndef UGC_GEN_H
#define UGC_GEN_H

#include <stdint.h>

#include "snapshot/snapshot.h"

#define GEN_MIN_OBJECTS 200
#define GEN_MAX_OBJECTS 20000000

typedef struct gen_options {
	uint64_t objects;   /* about how many objects */
	uint64_t seed;
	int mode;           /* enum gc_mode */
	int broken_pct;     /* percent of cluster list entries dropped */
} gen_options;

int gen_heap(const gen_options *opt, heap *h, char *err, size_t errsize);

/* The series generator (gen --evolve), the other half of this folder. */
#include "tools/gen/evolve.h"

#endif
