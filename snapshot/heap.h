/* heap.h — the in-memory model of one UObject heap snapshot.
 *
 * The object array is indexed by InternalIndex, exactly like GUObjectArray:
 * slot i holds object i, and a slot may be free (cls[i] == OBJ_FREE).  Each
 * per-object attribute is its own column (struct of arrays), so that a pass
 * touching one attribute streams through memory and the loaders can fill a
 * column with one decompression.  Resident cost: 39 bytes a slot (columns
 * a loader leaves zeroed from calloc and never writes, as a V8 heap does
 * serial, flags and clusters, stay untouched pages and cost nothing).
 *
 * References ("r" records whose target exists) are compressed sparse rows by
 * source: the references of object i are ref_dst/ref_kind/ref_prop at
 * positions ref_start[i] .. ref_start[i+1]-1, in file order.  The reverse
 * rows (by target) are built on demand by heap_build_reverse().  Resident
 * cost: 9 bytes a reference.  The implicit Class and Outer references are
 * not stored as rows.
 *
 * Dangling "r" records (target is no object), FGCObject references ("g")
 * and clusters ("c") are kept in their own small arrays. */
#ifndef UGC_HEAP_H
#define UGC_HEAP_H

#include <stdint.h>
#include <stddef.h>

#include "snapshot/strtab.h"
#include "snapshot/flags.h"

typedef int32_t obj_t;
#define OBJ_NONE (-1)  /* "no object": an Outer of a package, no cluster */
#define OBJ_FREE (-2)  /* cls[] value of a free slot */
#define OBJ_INDEX_MAX 2147483646 /* indexes are < 2^31 - 1 */

/* The most slots an object array of OBJECTS objects may have: one much
 * sparser than any engine makes is refused (the text and binary readers
 * apply 16 per object plus 2^24 as they read; a database's stated slots are
 * held to the same, sql/db_extent.c). */
static inline uint64_t heap_slots_limit(uint64_t objects) { return objects * 16 + (1u << 24); }

/* Reference kinds, in the text format's spelling. */
enum ref_kind { REF_STRONG, REF_ARO, REF_IMMUTABLE, REF_WEAK, REF_SOFT, REF_KIND_COUNT };
extern const char *const ref_kind_names[REF_KIND_COUNT];
int ref_kind_parse(const char *s, size_t len); /* -1 when unknown */

enum gc_mode { MODE_GAME, MODE_EDITOR };

/* One "r" record whose target names no object. */
typedef struct dangling_ref {
	obj_t src, dst;
	uint32_t prop; /* string id, 0 = none */
	uint8_t kind;
} dangling_ref;

/* One "g" record: FGCObject REFERENCER holds a reference to DST. */
typedef struct gc_ref {
	uint32_t referencer; /* string id of GetReferencerName() */
	obj_t dst;           /* may name no object: then it is dangling */
	uint32_t prop;
} gc_ref;

/* One GC cluster.  Its three lists are ranges of heap.cluster_items:
 * members (Objects, root excluded), mutable (MutableObjects) and refs
 * (ReferencedClusters, as root indexes); the lists of cluster 0, 1, ...
 * follow one another in that order and cover cluster_items exactly.  ReferencedByClusters is derived:
 * the cluster ids listed at refby_start[c] .. refby_start[c+1]-1 of
 * heap.cluster_refby. */
typedef struct cluster {
	obj_t root;
	uint32_t members, n_members;
	uint32_t mutables, n_mutables;
	uint32_t refs, n_refs;
} cluster;

typedef struct heap {
	/* header */
	uint32_t engine, label;   /* string ids, 0 = none */
	int mode;                 /* enum gc_mode */
	obj_t first_gc_index;     /* objects below it are in the disregard pool */
	int no_garbage_elimination; /* "garbage-elimination off": the engine kept
				     * references to garbage (0, the default: on) */

	/* the object array: `slots` entries, `objects` of them in use */
	uint32_t slots, objects;
	uint32_t *serial;   /* SerialNumber, 0 = none assigned */
	obj_t *cls;         /* class index; OBJ_FREE for a free slot */
	obj_t *outer;       /* Outer index or OBJ_NONE */
	uint32_t *name;     /* FName base, string id */
	uint32_t *name_num; /* the name's number: 0 = none, else N + 1 in the low
			     * 31 bits for the suffix "_N" (an FName number), or
			     * with NAME_NUM_AT set for "@N" (a V8 node id) */
	uint32_t *size;     /* bytes the object alone accounts for */
	uint32_t *oflags;   /* EObjectFlags */
	uint16_t *iflags;   /* IF_* internal flags */
	uint8_t *traits;    /* TR_* capture traits */
	uint32_t *in_cluster; /* 1 + id of the cluster the object roots or belongs to, 0 none
			       * (so a zeroed column, never written, means none: read
			       * it through heap_cluster()) */

	/* references, CSR by source (see above) */
	uint32_t nrefs;
	uint32_t *ref_start; /* slots + 1 entries */
	obj_t *ref_dst;
	uint32_t *ref_prop;
	uint8_t *ref_kind;
	/* optional, NULL when the loader gave none: per slot, how many links
	 * end at the object, its references of every kind and the Class and
	 * Outer of every object.  The V8 reader counts them on its second
	 * core while it maps, and the dominators can take the column over as
	 * their predecessor counts (dom_compute_plain).  True only of the rows
	 * the loader gave: whatever sets the rows or the slots frees it */
	uint32_t *in_links;

	/* reverse references, CSR by target, built on demand: rev_src[k] is the
	 * source and rev_ref[k] the forward position of the k-th reference to
	 * an object; within one target, in forward (source, file) order. */
	uint32_t *rev_start;
	obj_t *rev_src;
	uint32_t *rev_ref;

	dangling_ref *dangling;
	uint32_t ndangling;
	gc_ref *gcrefs;
	uint32_t ngcrefs;

	cluster *clusters;
	uint32_t nclusters;
	obj_t *cluster_items;
	uint32_t ncluster_items;
	uint32_t *refby_start; /* nclusters + 1 */
	uint32_t *cluster_refby;

	/* children by Outer, built on demand (heap_build_children) */
	uint32_t *child_start;
	obj_t *child;

	strtab strings;
} heap;

void heap_init(heap *h);
void heap_free(heap *h);

static inline int heap_exists(const heap *h, int64_t i)
{
	return i >= 0 && i < h->slots && h->cls[i] != OBJ_FREE;
}
/* The cluster object I roots or belongs to, -1 none. */
static inline int32_t heap_cluster(const heap *h, obj_t i) { return (int32_t)h->in_cluster[i] - 1; }
/* Garbage is the internal Garbage flag alone: the GC never tests
 * RF_MirroredGarbage (a mismatch between the two is a finding). */
static inline int heap_is_garbage(const heap *h, obj_t i)
{
	return (h->iflags[i] & IF_Garbage) != 0;
}
static inline int heap_in_disregard(const heap *h, obj_t i) { return i < h->first_gc_index; }
/* For a walk that will read object I soon, fetched ahead in two steps:
 * first its row's bounds, Class and Outer (heap_prefetch_slot), then, a
 * little later, once the bounds are in the cache, the start of its
 * references: their targets and kinds (heap_prefetch_refs; nothing on a
 * heap without references, whose rows may be no memory at all). */
static inline void heap_prefetch_slot(const heap *h, obj_t i)
{
	__builtin_prefetch(&h->ref_start[i]);
	__builtin_prefetch(&h->cls[i]);
	__builtin_prefetch(&h->outer[i]);
}
static inline void heap_prefetch_refs(const heap *h, obj_t i)
{
	if (h->nrefs) {
		uint32_t k = h->ref_start[i];
		__builtin_prefetch(&h->ref_dst[k]);
		__builtin_prefetch(&h->ref_kind[k]);
	}
}
/* What the tests of a reference's target I read (heap_cluster,
 * heap_is_garbage), fetched ahead. */
static inline void heap_prefetch_target_tests(const heap *h, obj_t i)
{
	if (h->nclusters)
		__builtin_prefetch(&h->in_cluster[i]);
	__builtin_prefetch(&h->iflags[i]);
}
/* Is any object flagged Garbage?  (A pass over the flags: passes over the
 * edges skip their per-edge Garbage test when none is.) */
int heap_has_garbage(const heap *h);
static inline const char *heap_str(const heap *h, uint32_t id) { return strtab_get(&h->strings, id); }

/* Whether an engine string names a V8 heap: "v8" or "v8 VERSION", as the V8
 * reader writes it (v8_map.c).  Such a heap is spoken of in V8's words
 * (node, edge, retainer) rather than Unreal's. */
static inline int engine_is_v8(const char *engine)
{
	return engine && engine[0] == 'v' && engine[1] == '8' && (engine[2] == '\0' || engine[2] == ' ');
}
static inline int heap_is_v8(const heap *h) { return h->engine && engine_is_v8(heap_str(h, h->engine)); }

/* Make room for element N of an array grown by doubling from 16: true when
 * *ARR must be reallocated to heap_grow_cap(N) elements before the store. */
static inline int heap_needs_grow(uint32_t n) { return n == 0 || (n >= 16 && (n & (n - 1)) == 0); }
static inline size_t heap_grow_cap(uint32_t n) { return n ? (size_t)n * 2 : 16; }

/* Grow the columns to at least SLOTS slots (new ones free). */
int heap_grow_slots(heap *h, uint32_t slots);
/* The columns of SLOTS slots on a heap that has none, their bytes left for
 * the caller to write every one of (the binary reader decompresses each
 * column whole; in_cluster alone is zeroed, for heap_index_clusters).  On a
 * heap that has slots, heap_grow_slots. */
int heap_alloc_slots(heap *h, uint32_t slots);

/* Bytes the loaded model holds resident: the columns, the reference rows,
 * the small tables and the strings (not the derived on-demand indexes). */
uint64_t heap_memory(const heap *h);

/* Drop trailing free slots (the loaders over-allocate while growing). */
int heap_trim_slots(heap *h);

/* Turn N references given in file order (FROM, TO, PROP, KIND: malloc'd
 * arrays; every FROM exists) into the rows by source; those whose target is
 * no object become dangling records.  Takes ownership of the four arrays.
 * Returns 0, or -1 when out of memory. */
int heap_set_refs(heap *h, obj_t *from, obj_t *to, uint32_t *prop, uint8_t *kind, uint32_t n);

/* Derived data: ReferencedByClusters and the per-object cluster column.
 * Returns 0, or -1 when out of memory. */
int heap_index_clusters(heap *h);
/* The rows by target (rev_start, rev_src, rev_ref; each row in source
 * order), on two threads on a large heap.  0, or -1 when out of memory. */
int heap_build_reverse(heap *h);
int heap_build_children(heap *h);
/* The first object whose references start past half of them: where two
 * threads split a pass over the references. */
obj_t heap_split_refs(const heap *h);

/* Names.  A name buffer of HEAP_NAME_MAX bytes holds any FName: both
 * readers refuse the names and strings longer than the engine allows
 * (ugc-snapshot(5) §1.10): an FName, number suffix included, at most
 * NAME_LEN_MAX bytes; a property or FGCObject referencer name at most
 * PROP_LEN_MAX. */
#define HEAP_NAME_MAX 4096
#define NAME_LEN_MAX 1023
#define PROP_LEN_MAX 4096
/* Split a name "Base_12" into base and number the engine's way (N has no
 * leading zero, at most 10 digits, N + 1 < 2^31, the base is not empty);
 * "Base@12" the same way, with NAME_NUM_AT in the number, and its base may
 * be empty (V8 names: node ids kept out of the string table, which then
 * holds each name once). */
#define NAME_NUM_AT 0x80000000u
void fname_split(const char *s, size_t len, size_t *base_len, uint32_t *number);
/* Split the names stored whole that fname_split() would split (a binary
 * snapshot or a database written before "@N" was a number holds "Foo@12"
 * as one string), so that every loader gives the same model.  Interns the
 * bases; 0, or -1 when out of memory. */
int heap_split_whole_names(heap *h);
/* BASE (LEN bytes) with the suffix of name number NUM into BUF (CAP > 0
 * bytes, cut to fit); returns the length. */
size_t fname_format(const char *base, size_t len, uint32_t num, char *buf, size_t cap);
/* Bytes the suffix of name number NUM takes ("_N", "@N"; 0 for none). */
size_t name_suffix_len(uint32_t num);
/* Write object I's name into BUF (cap bytes); returns the length. */
size_t heap_name(const heap *h, obj_t i, char *buf, size_t cap);
/* The V8 node id a name of LEN bytes ends in, "NAME@ID" (ID without a
 * leading zero, at most 10 digits, below 2^32; NAME may be empty), else -1. */
int64_t name_node_id(const char *name, size_t len);
/* Object I's V8 node id: on a V8 heap (heap_is_v8) the id its name ends in
 * (ugc-snapshot(5) §3.1), for the nodes only (not the pool below
 * first-gc-index: /V8 and the class objects); -1 on any other heap, for the
 * pool, and for a name without one.  What `@ID` selects, what JSON prints as
 * node_id and the databases store as objects.node_id. */
int64_t heap_node_id(const heap *h, obj_t i);
/* A V8 heap's class "(synthetic)", among the class objects below
 * first-gc-index: the class of its root, (GC roots) and its groups, which
 * hold everything and which no program edit changes; OBJ_NONE on any other
 * heap. */
obj_t heap_v8_synthetic_class(const heap *h);
/* Is object I a package (its class is named "Package")? */
int heap_is_package(const heap *h, obj_t i);
/* The path rule: the character written between the path of an object's
 * Outer and the object's name.  ':' when the Outer is not a package but
 * the Outer's Outer is (a subobject of an asset: "/Game/Map.Map:PersistentLevel"),
 * '.' otherwise (an object right in a package, or deeper down).  Every C
 * caller that writes or hashes a path takes it from here: heap_path, the
 * path hashes stored in databases (sql/path_hash.c), the paths a database
 * view builds (sql/view_db.c) and diff's full names (analysis/diff.c); the
 * objects view writes the same rule in SQL (sql/schema.h), and
 * tests/test_paths.c checks on a heap with every case that both agree. */
static inline char path_separator(int outer_is_package, int outer_outer_is_package)
{
	return !outer_is_package && outer_outer_is_package ? ':' : '.';
}
/* The rule for an object whose Outer is OUTER, in H. */
char heap_path_separator(const heap *h, obj_t outer);
/* Path name and full name, built the engine's way into a malloc'd string,
 * NULL when out of memory.  Iterative: Outer chains may be long. */
char *heap_path(const heap *h, obj_t i);
char *heap_full_name(const heap *h, obj_t i);
/* The object whose reference row holds forward position POS (< nrefs):
 * a binary search of ref_start. */
obj_t heap_ref_source(const heap *h, uint32_t pos);
/* The outermost object (the package) of I. */
obj_t heap_outermost(const heap *h, obj_t i);

/* Lookups.  Return the object, OBJ_NONE when there is none, OBJ_ERROR when
 * out of memory. */
#define OBJ_ERROR (-3)
obj_t heap_find_path(heap *h, const char *path);
obj_t heap_find_full_name(heap *h, const char *full);

/* Check the model's invariants after a load (the loaders call it): every
 * class and outer names an object, Outer chains end, cluster lists name
 * objects, no object is in two clusters.  On failure writes one line into
 * ERR and returns the offending object (or cluster root, via *what). */
enum heap_problem {
	HP_OK, HP_CLASS, HP_OUTER, HP_OUTER_LOOP, HP_CLUSTER_ROOT, HP_CLUSTER_DUP,
	HP_CLUSTER_LIST, HP_CLUSTER_TWICE, HP_CLUSTER_ROOT_MEMBER, HP_CLUSTER_REF,
};
int heap_validate(heap *h, char *err, size_t errsize, obj_t *where, uint32_t *cluster_id);

#endif
