/* diff.h — comparing two analysed heaps: objects matched by class and path
 * name across processes, runs and builds; by index and serial as well when
 * both come from one process.
 *
 * A diff_side is the flat table of one analysed heap that the comparison
 * needs, with its own string table; it is filled from a snapshot
 * (diff_side_from_heap) or from an analysis database (sql/diff_db.c), so
 * both inputs compare alike.  Names are kept as string ids; full names are
 * built only for what is printed or stored. */
#ifndef UGC_DIFF_H
#define UGC_DIFF_H

#include <stdint.h>

#include "analysis/findings.h"
#include "analysis/gc.h"

/* One object of a side. */
typedef struct diff_obj {
	obj_t idx, outer, parent;   /* parent: on the shortest retention path */
	uint32_t serial, size, distance;
	uint32_t name, num;         /* FName: base string id, number (0 none, else suffix + 1) */
	uint32_t cls, cls_num;      /* the class's name, the same way */
	uint32_t via;               /* string id of the edge from the parent ("" none); of a
				     * root held by an FGCObject (gcobject), which has no
				     * parent, that FGCObject's name (its first "g" record's) */
	uint8_t garbage, reachable, root_kind;
} diff_obj;

/* A reference the GC nulls (holder or FGCObject referencer, property,
 * target) or a cluster disagreement (kind, member, target): three parts,
 * each an object of the side or a text.  Shown as "part|part|part" with
 * each object by its full name (diff_fact_text); compared part by part,
 * an object by class name and path rank (diff_new_facts), so that a full
 * name, as long as its object is deep, is built only for a fact shown. */
typedef struct diff_fact {
	int32_t obj[3];  /* the part's position on the side, or -1: it is text */
	uint32_t str[3]; /* then its string id in the side's strings */
} diff_fact;

/* The text of fact F of side S, malloc'd (NULL when out of memory). */
struct diff_side;
char *diff_fact_text(const struct diff_side *s, const diff_fact *f);

typedef struct diff_side {
	diff_obj *v;            /* in index order */
	uint32_t n;
	int32_t *by_idx;        /* slot -> position in v, -1: free; NULL for a
				 * sparse side (a database's), searched instead */
	uint32_t slots;
	strtab strings;
	diff_fact *eliminated, *disagreements;
	uint32_t neliminated, ndisagreements;
	/* bytes each class keeps alive under the gc policy (dominators.h):
	 * class name and retained bytes, in no particular order */
	struct diff_retained { char *name; uint64_t bytes; } *retained;
	uint32_t nretained;
	/* per position, kept only when asked (diff_side_from_analysis; else
	 * NULL): the position of the immediate dominator under the gc policy
	 * (-1: the super-root, or none), and the retained bytes */
	int32_t *idom;
	uint64_t *obj_retained;
	uint8_t v8; /* a V8 heap (heap_is_v8); 0 for a database's */
} diff_side;

int diff_side_from_heap(const heap *h, const gc_result *r, const findings *f, diff_side *out);
/* The same, from D, the gc policy's dominators over H and R with their
 * class sums (dom_compute), whose per-object results are kept (idom,
 * obj_retained).  0, or -1 when out of memory. */
struct dom_result;
int diff_side_from_analysis(const heap *h, const gc_result *r, const findings *f, const struct dom_result *d,
			    diff_side *out);
/* Keep D's per-object results (D over S's heap: by slot) in S, by
 * position (idom, obj_retained): for a side read from a database.  0, or
 * -1 when out of memory. */
int diff_side_keep_dominators(diff_side *s, const struct dom_result *d);
void diff_side_free(diff_side *s);
/* Add class NAME's retained BYTES to S; 0, or -1 when out of memory. */
int diff_add_retained(diff_side *s, const char *name, uint64_t bytes);
/* The position in V of object IDX, or -1. */
int64_t diff_find(const diff_side *s, obj_t idx);
/* "Class Path" of object K, malloc'd (NULL when out of memory). */
char *diff_full_name(const diff_side *s, uint32_t k);
/* The path name of K alone (no class), the same way. */
char *diff_path_name(const diff_side *s, uint32_t k);
/* The place of the path names of the objects NEED_A and NEED_B mark (per
 * position of A and B; NULL: every object) in byte order (strcmp's) among
 * those names and DIFF_NO_OUTER: into *RA and *RB (malloc'd, per position;
 * UINT32_MAX for an object not marked) and *NONE.  Equal names get equal
 * ranks.  Time and memory follow the bytes of the marked objects' names and
 * their outers', not of their paths (an N-deep Outer chain's paths hold
 * N^2/2 names): see the path trie in diff.c.  0, or -1 when out of memory
 * (*RA and *RB then NULL). */
int diff_path_ranks(const diff_side *a, const diff_side *b, const uint8_t *need_a, const uint8_t *need_b, uint32_t **ra,
		    uint32_t **rb, uint32_t *none);
/* The FName of K ("Base_N") into BUF. */
void diff_name(const diff_side *s, uint32_t id, uint32_t num, char *buf, size_t cap);

/* What became of each object. */
enum diff_status {
	DS_KEPT,     /* in both: same object */
	DS_ADDED,    /* only in B */
	DS_REMOVED,  /* only in A */
	DS_REPLACED, /* same full name, but another object (one process: other index or serial) */
};
extern const char *const diff_status_names[4];

typedef struct diff_result {
	int32_t *a_match;  /* per A object: position in B, -1 none */
	int32_t *b_match;  /* per B object: position in A, -1 none */
	uint8_t *a_status, *b_status; /* enum diff_status */
	int same_process;  /* most matches share index and serial */
	uint32_t kept, added, removed, replaced, reused_slots;
} diff_result;

int diff_compare(const diff_side *a, const diff_side *b, diff_result *out);
void diff_result_free(diff_result *r);

/* The generic form of a name: numbered suffixes stripped ("BP_Enemy_C_12" ->
 * "BP_Enemy_C_*") in every component, array indexes too ("Actors[*]"). */
void generic_name(const char *in, char *out, size_t cap);
/* The generic form of an edge name: one made of digits alone (a V8 Map
 * table's entries, a handle scope's slots: "1001") is "[*]", as an element
 * is; any other is generic_name()'s. */
void generic_edge(const char *in, char *out, size_t cap);
/* Is object K of S one whose name is data, not shape (a V8 string, whose
 * name is its text)?  Leak mode's chains then name it by its class alone. */
int diff_name_is_data(const diff_side *s, uint32_t k);

/* Aggregates by a part of the full name. */
enum diff_by { DIFF_BY_CLASS, DIFF_BY_PACKAGE, DIFF_BY_OUTER };

typedef struct group_row {
	char *name;             /* NULL for an unchanged group unless all names were asked,
				 * and for every outer row under DIFF_RANKS */
	int side;               /* where the name comes from: 0 A, 1 B, -1 "(none)" */
	uint32_t pos;
	uint32_t rank;          /* outer rows under DIFF_RANKS: the name's rank (diff_path_ranks) */
	uint64_t a_count, b_count, a_bytes, b_bytes;
	uint64_t added, removed, kept, added_bytes, removed_bytes;
} group_row;

typedef struct group_rows {
	group_row *v;
	size_t n;
	size_t total; /* diff_group_report: the rows that changed, before the cut to N */
} group_rows;

/* The name of the group no outer holds. */
#define DIFF_NO_OUTER "(none)"

/* Which group rows get names. */
enum diff_names {
	DIFF_NAMES_CHANGED, /* those that changed */
	DIFF_NAMES_ALL,     /* every row */
	DIFF_RANKS,         /* as DIFF_NAMES_CHANGED, but outer rows get none, only
			     * their rank: a path name costs the depth of its
			     * object, so only the rows shown are named */
};

/* Rows for every distinct part, in no particular order.  Package and outer
 * groups are told apart by identity (a matched object is one group across
 * A and B) and named as NAMES says. */
int diff_groups(const diff_side *a, const diff_side *b, const diff_result *r, enum diff_by by, enum diff_names names,
		group_rows *out);
/* Name ROW, a package or outer row of diff_groups(); 0, or -1 when out of memory. */
int diff_group_name(const diff_side *a, const diff_side *b, enum diff_by by, group_row *row);
void group_rows_free(group_rows *g);

#endif
