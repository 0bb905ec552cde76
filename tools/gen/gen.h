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

/* gen --format v8 (v8gen.c): a synthetic V8 .heapsnapshot of exactly NODES
 * nodes shaped like Node 20's, streamed to FP (zstd when COMPRESS) in
 * bounded memory.  CHAIN: a linked list that long; WIDE: an array of that
 * many elements; DISTINCT_NAMES: one object with that many distinct property
 * names (each 0 for none).  The same options give the same bytes. */
#define GEN_V8_MIN_NODES 1000
#define GEN_V8_MAX_NODES 100000000
typedef struct gen_v8_options {
	uint64_t nodes, seed, chain, wide, distinct_names;
} gen_v8_options;
typedef struct gen_v8_stats {
	uint64_t nodes, edges, strings, locations, bytes; /* bytes: of JSON */
} gen_v8_stats;
int gen_v8(const gen_v8_options *opt, FILE *fp, int compress, gen_v8_stats *st, char *err, size_t errsize);

/* The series generator (gen --evolve), the other half of this folder. */
#include "tools/gen/evolve.h"

#endif
