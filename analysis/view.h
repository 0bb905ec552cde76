/* view.h — the questions the query commands (refs, path, why, clusters,
 * findings) ask of an analysed heap, behind one interface with two
 * implementations: an analysed snapshot in memory (view_heap.c) and an
 * analysis database (sql/view_db.c).  The query algorithms (query.c) are
 * written once against it, so both inputs give the same answers. */
#ifndef UGC_VIEW_H
#define UGC_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/gc.h"
#include "base/base.h"

#define VIEW_TEXT 512 /* a buffer for one composed detail line (findings, whatif) */

/* One object, as a query shows it; its strings in display form (escape.h).
 * The strings live in one malloc'd block, TEXT, that obj_info_free
 * releases: an obj_info costs its strings' length, not fixed buffers. */
typedef struct obj_info {
	obj_t idx, cls, outer, cluster; /* cluster: root of its cluster, or OBJ_NONE */
	uint32_t serial, size, distance; /* distance UINT32_MAX: none */
	int garbage, reachable, root_kind; /* root_kind: RK_*, RK_NONE; reachable -1:
					    * unknown (describe, below) */
	uint32_t oflags;                   /* the three flag sets (flags.h) */
	uint16_t iflags;
	uint8_t traits;
	obj_t parent;                      /* previous object on the shortest path */
	int64_t node_id;                   /* V8 node id (heap_node_id), -1 none */
	int v8;                            /* the heap is V8's (view.v8): JSON prints node_id */
	const char *parent_property;       /* edge from parent: property, Class or Outer */
	const char *name, *class_name, *flags, *path; /* all in TEXT */
	char *text;                        /* malloc'd; NULL after obj_info_free */
} obj_info;

/* Kinds of edge: a reference record, the implicit Class and Outer, or an
 * FGCObject's reference (SRC is then OBJ_NONE and REFERENCER names it). */
enum edge_type { EDGE_REF, EDGE_CLASS, EDGE_OUTER, EDGE_GC };

typedef struct edge {
	obj_t src, dst;
	uint8_t type; /* enum edge_type */
	uint8_t kind; /* REF_*: immutable for Class/Outer, aro for FGCObjects */
	/* display form (escape.h), interned in the view's pool: valid until
	 * the view closes; "" for none (NULL only when the pool ran out of
	 * memory: edges_push refuses such an edge) */
	const char *prop;
	const char *referencer; /* EDGE_GC: the FGCObject's name */
} edge;

typedef struct edges {
	edge *v;
	size_t n, cap;
} edges;

/* One reference to an object as the chain searches see it: who holds it,
 * what kind it is, and how far its holder is from a root.  12 bytes: a
 * search may read every reference to a popular object. */
typedef struct source {
	obj_t src;
	uint32_t distance; /* the holder's: UINT32_MAX none */
	uint8_t type;      /* enum edge_type: EDGE_REF, EDGE_CLASS or EDGE_OUTER */
	uint8_t kind;      /* REF_* (immutable for Class and Outer) */
	uint8_t reachable; /* the holder's */
} source;

typedef struct sources {
	source *v;
	size_t n, cap;
} sources;

/* One finding or one cluster, as rows. */
typedef struct finding_row {
	char kind[32];
	obj_t idx, other;              /* idx OBJ_NONE: an FGCObject holds the reference */
	const char *detail; /* display form, in the view's pool (valid until it closes) */
	const char *referencer;        /* that FGCObject's name, "" for none (as detail) */
} finding_row;

typedef struct finding_rows {
	finding_row *v;
	size_t n, cap;
} finding_rows;

typedef struct cluster_row {
	obj_t root;
	uint32_t members, mutables, referenced, referenced_by;
	uint64_t bytes; /* root and members */
	char state[16], reason[32];
} cluster_row;

typedef struct cluster_rows {
	cluster_row *v;
	size_t n, cap;
} cluster_rows;

/* What a search needs of an object, without building names. */
typedef struct obj_state {
	obj_t cls, outer, parent;
	uint32_t distance;
	int reachable, garbage, root_kind;
	int64_t node_id;             /* V8 node id (heap_node_id), -1 none */
	const char *parent_property; /* as edge.prop */
} obj_state;

typedef struct view view;

/* A backend's operations, one const table per backend (view_heap.c,
 * sql/view_db.c); every member is set.  Callers go through the table:
 * v->ops->incoming(v, i, &out).  All return 0, or -1 with a message in
 * V's err (out of memory, SQL error). */
typedef struct view_ops {
	int (*object)(view *v, obj_t i, obj_info *out);  /* 1 when there is no object I */
	/* object() for naming I: ugc-gc(7) §3's fields may be left unknown
	 * (distance UINT32_MAX, root_kind RK_NONE, parent OBJ_NONE,
	 * parent_property ""), which a snapshot's view then need not compute,
	 * and reachable (-1) when the snapshot's GC has not run
	 * (view_heap_defer_gc) */
	int (*describe)(view *v, obj_t i, obj_info *out);
	int (*state)(view *v, obj_t i, obj_state *out);  /* 1 when there is no object I */
	/* references to I: records by source index then position, objects whose
	 * Class or Outer is I (in index order, Class before Outer for one
	 * source), then FGCObject records in order */
	int (*incoming)(view *v, obj_t i, edges *out);
	/* the references to I held by objects (records, Class and Outer; not
	 * FGCObjects) with their holders' distances, in no particular order:
	 * what incoming() gives without names, in one pass */
	int (*sources)(view *v, obj_t i, sources *out);
	/* references of I: Class, Outer, then its records in order */
	int (*outgoing)(view *v, obj_t i, edges *out);
	/* the edges from SRC to DST, in SRC's order (Class, Outer, records) */
	int (*between)(view *v, obj_t src, obj_t dst, edges *out);
	int (*eliminated_to)(view *v, obj_t i, edges *out); /* references to I the GC nulls */
	int (*cleared_to)(view *v, obj_t i, edges *out);    /* weak references to I it clears */
	int (*findings)(view *v, obj_t about, finding_rows *out); /* about OBJ_NONE: all */
	/* root OBJ_NONE: all; BYTES 0: leave cluster_row.bytes 0 (cheaper from a database) */
	int (*clusters)(view *v, obj_t root, int bytes, cluster_rows *out);
	/* one of a cluster's lists: 0 members 1 mutable 2 refs 3 referenced-by,
	 * 4 what dissolved it (cluster_causes.h) */
	int (*cluster_list)(view *v, obj_t root, int which, obj_t **out, size_t *n);
	/* selectors */
	int (*find_path)(view *v, const char *path, obj_t *out); /* OBJ_NONE when none */
	int (*find_glob)(view *v, const char *name_glob, const char *class_name, obj_t **out, size_t *n);
	/* the object whose V8 node id is ID (heap_node_id): *OUT the lowest
	 * index, OBJ_NONE when none; *N how many have it (a damaged or
	 * hand-made heap may repeat an id), counted up to 2 */
	int (*find_node)(view *v, int64_t id, obj_t *out, size_t *n);
	/* I's immediate dominator (DOM_TOP, or OBJ_NONE when unreached) and
	 * retained bytes (-1 when unreached) under the gc policy: stored in a
	 * database, computed on first use from a snapshot */
	int (*retained)(view *v, obj_t i, obj_t *idom, long long *bytes);
	void (*close)(view *v);
} view_ops;

/* One open view: its backend's operations and what every backend keeps
 * per instance.  A backend embeds it as its first member. */
struct view {
	const view_ops *ops;
	obj_t first_gc_index;
	int v8;         /* a V8 heap (engine_is_v8(), snapshot/heap.h): speak V8's words */
	uint32_t slots; /* every object index is below it: a heap's slots, or for a database
			 * the highest index present + 1, never the count the file states */
	char err[512];
	strpool pool; /* the strings edges point to */
};

int edges_push(edges *e, const edge *x);
int sources_push(sources *s, obj_t src, uint32_t distance, int type, int kind, int reachable);
/* An edge; PROP (raw) is ignored for Class and Outer (they are named so),
 * NULL is "".  Out of memory leaves "" and says so in V's err. */
edge edge_make(view *v, obj_t src, obj_t dst, int type, int kind, const char *prop);
/* The display form of raw text S, interned in V's pool ("" for NULL; NULL
 * when out of memory, with V's err set). */
const char *view_text(view *v, const char *s);
/* The display form of S into a fixed buffer. */
void view_copy(char *dst, size_t cap, const char *s);
void edges_free(edges *e);
int finding_rows_push(finding_rows *f, const finding_row *x);
int cluster_rows_push(cluster_rows *c, const cluster_row *x);
/* Fill O's strings (raw text, NULL is "") in display form into one block;
 * 0, or -1 when out of memory (O's strings then "" and nothing to free). */
int obj_info_set_text(obj_info *o, const char *name, const char *class_name, const char *flags,
		      const char *parent_property, const char *path);
/* Release O's text; its strings read "" afterwards. */
void obj_info_free(obj_info *o);

/* An analysed snapshot as a view: takes ownership of H and R. */
view *view_heap_open(heap *h, gc_result *r, char *err, size_t errsize);
/* The same, borrowing H and R (the caller frees them after closing the
 * view); the indexes behind incoming() and findings() are built on first
 * use, so opening costs nothing.  The view may add derived indexes to H
 * (reverse rows, children) and removes those it added when it closes, and
 * may compute ugc-gc(7) §3 (gc_retention) into R when a command first
 * needs it. */
view *view_heap_borrow(heap *h, gc_result *r, char *err, size_t errsize);
/* A borrowed view V whose R is not computed yet: the view calls
 * RUN_GC(ARG, ERR, ERRSIZE) (0, or -1 with ERR) before it first reads R, so
 * a command that only names objects (top) never waits for the GC. */
void view_heap_defer_gc(view *v, int (*run_gc)(void *arg, char *err, size_t errsize), void *arg);

#endif
