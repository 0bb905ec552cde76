/* naive_gc.h — a second, deliberately naive implementation of the GC for
 * the differential test.  It shares no code with analysis/: it rescans every
 * object each round until nothing changes. */
#ifndef UGC_NAIVE_GC_H
#define UGC_NAIVE_GC_H

#include "snapshot/heap.h"

typedef struct naive_result {
	uint8_t *reachable;   /* per slot */
	uint8_t *fate;        /* per cluster: as enum cluster_fate */
	uint8_t *eliminated;  /* per reference position */
	uint8_t *h_eliminated;/* per reference position: handed to a Level (step 2) and eliminated there */
	uint8_t *g_eliminated;/* per "g" record */
	uint8_t *cleared;     /* per reference position */
	uint8_t *uncleared;   /* per reference position: weak, held by a survivor never traced, target dies */
	uint8_t *walked;      /* per cluster: did step 5 */
	uint8_t *traced;      /* per slot: put on the work list */
	uint8_t *kind;        /* per slot: as enum root_kind, 255 none */
	uint32_t *distance;   /* per slot, UINT32_MAX none */
	obj_t *parent;
	uint32_t *via;
} naive_result;

void naive_gc(const heap *h, uint32_t keep_flags, naive_result *out);
void naive_free(naive_result *r);

#endif
