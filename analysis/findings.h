/* findings.h — what a developer hunting a leak or a crash needs to know
 * (ugc-gc(7) §6), derived from a heap and its GC result. */
#ifndef UGC_FINDINGS_H
#define UGC_FINDINGS_H

#include "analysis/gc.h"

enum finding_kind {
	FK_ELIMINATED_REF,         /* a reference the GC nulls: its target is garbage */
	FK_GARBAGE_SURVIVES,       /* a garbage object still alive, and what keeps it */
	FK_DANGLING_REF,           /* a reference to a free slot */
	FK_CLUSTER_MISSING_MUTABLE,/* a clustered object's reference not in MutableObjects */
	FK_CLUSTER_MISSING_CLUSTER,/* ... into a cluster not in ReferencedClusters */
	FK_CLUSTER_KEEPS_ALIVE,    /* alive only through cluster lists: no real chain */
	FK_ROOTSET_GARBAGE,        /* RootSet and garbage at once */
	FK_WEAK_UNCLEARED,         /* a weak reference the GC leaves pointing at an object it destroys */
	FK_ROOTED_MEMBER_DESTROYED,/* a rooted cluster member dies with its never-reached cluster */
	FK_KEEPFLAGS_CLUSTER_ROOT, /* a cluster root kept by KeepFlags: its lists are never walked */
	FK_GARBAGE_FLAG_MISMATCH,  /* RF_MirroredGarbage without Garbage, or the reverse */
	FK_ROOTED_CLUSTER_DISSOLVED,/* a cluster step 2 walks for a root flag, dissolved by step 2: the engine crashes */
	FK_GARBAGE_CLUSTER_MEMBER, /* a garbage member its live cluster keeps while references to it are nulled */
	FK_EDITOR_MODE_MISMATCH,   /* clusters or a disregard pool in mode editor, which has neither */
	FK_WORLD_LEAK,             /* a World alive that nothing on the engine's side (GameEngine, GameInstance) references */
	FK_COUNT
};
extern const char *const finding_kind_names[FK_COUNT];

/* One finding.  IDX is the object it is about (OBJ_NONE for an FGCObject's
 * reference), OTHER the second object (target, keeper), CLUSTER the cluster
 * root involved, EDGE the reference: a VIA_* code for "r" records and
 * Class/Outer, or the record index for "g" and dangling records (GCREF says
 * which). */
/* EDGE of a cluster finding about a list entry the cluster should have
 * inherited from referenced cluster ROOT (an object index). */
#define VIA_INHERITED(root) (0x80000000u + (uint32_t)(root))

typedef struct finding {
	uint8_t kind;
	uint8_t gcref;          /* EDGE is an index into heap.gcrefs */
	uint8_t use_after_free; /* the GC collects OTHER while IDX still references it */
	obj_t idx, other, cluster;
	uint32_t edge;
} finding;

typedef struct findings {
	finding *v;
	uint32_t n, cap;
	uint32_t count[FK_COUNT];
} findings;

int findings_collect(const heap *h, const gc_result *r, findings *out);
void findings_free(findings *f);
/* One line describing F (property names, kinds, the reason), naming the
 * objects involved by their path names; DETAIL_MAX bytes hold any such
 * line (each name is cut at 320 bytes), so the database and the in-memory
 * view keep the same text. */
#define DETAIL_MAX 2048
void finding_detail(const heap *h, const finding *f, char *buf, size_t cap);
/* The string id of the FGCObject that holds F's reference (0: an object,
 * named by F's idx, holds it). */
uint32_t finding_referencer(const heap *h, const finding *f);
/* Name of an edge: "Class", "Outer", or the property (or "(unnamed)"). */
const char *edge_property(const heap *h, uint32_t via);
/* Name of the edge by which object I's shortest retention path reaches it
 * (R's parent and via): edge_property(), except for an actor step 2 handed
 * to a Level (ugc-gc(7) §1.2), which the engine reports through the Level's
 * ActorsForGC: "ActorsForGC". */
const char *path_property(const heap *h, const gc_result *r, obj_t i);

#endif
