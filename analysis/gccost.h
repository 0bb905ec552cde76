/* gccost.h — what the GC's mark phase spends its work on (ugc-gc(7) §6),
 * counted from what this GC run did, not estimated: the objects it traced
 * (gc_result.was_traced) and the clusters whose lists it walked
 * (gc_result.cluster_walked), with the reads each costs, by class and by
 * package; and what clustering would save, package by package.
 *
 * The unit of work is a visit: one reference read while marking.  Tracing
 * object X reads its Class, its Outer (when it has one), each of its
 * reference records (weak and soft ones included: the GC reads them to
 * skip them) and the references a dissolved LevelActorContainer handed to
 * it.  Walking cluster C reads each entry of its ReferencedClusters and
 * MutableObjects lists.  FGCObject ("g") records are read once each, as
 * roots.  A cluster's members are not traced one by one: that is what a
 * cluster saves.
 *
 * Clustering candidates: for each package whose traced objects (outside
 * every cluster) number at least two, the visits they cost now, and what a
 * cluster of them would cost instead: one list entry for each distinct
 * object outside the package they reference (Class, Outer and records,
 * the disregard pool left out as the GC leaves it out) — the lists the
 * cluster would carry.  The saving is the difference. */
#ifndef UGC_GCCOST_H
#define UGC_GCCOST_H

#include <stdint.h>

#include "analysis/gc.h"

/* The work charged to one class or one package (KEY, an object index). */
typedef struct gccost_row {
	obj_t key;
	uint32_t traced;         /* objects traced */
	uint32_t clusters;       /* clusters walked (charged to their root's class and package) */
	uint64_t visits;         /* references read: tracing and list walks */
} gccost_row;

/* A package that would save work as a cluster. */
typedef struct gccost_candidate {
	obj_t package;
	uint32_t traced;         /* its traced objects outside every cluster */
	uint64_t visits;         /* what they cost now */
	uint64_t as_cluster;     /* list entries a cluster of them would carry */
} gccost_candidate;

typedef struct gccost {
	uint64_t visits;             /* every visit of the mark */
	uint64_t trace_visits;       /* of them, tracing objects */
	uint64_t list_visits;        /* walking cluster lists */
	uint64_t gc_record_visits;   /* FGCObject records */
	uint32_t traced, walked;     /* objects traced, clusters walked */
	uint64_t disregard_skipped;  /* references held by disregard-pool objects: never read */
	gccost_row *classes, *packages;  /* visits descending, then key; every class / package charged */
	uint32_t nclasses, npackages;
	gccost_candidate *candidates;    /* saving descending, then package; only those that save */
	uint32_t ncandidates;
	int v8;                          /* measured on a V8 heap: nothing here is its engine's work */
} gccost;

/* Count the work of R (a GC run over H).  0, or -1 when out of memory. */
int gccost_measure(const heap *h, const gc_result *r, gccost *out);
void gccost_free(gccost *c);

#endif
