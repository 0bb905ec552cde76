/* diff_report.h — what `diff` reports, computed (the command only prints):
 * the sections of the two-way report and the groups of leak mode, as rows
 * in the order they are shown.
 *
 * A list is cut to LIMIT rows; the counts that go with it are complete.
 * Every function returns 0, or -1 when out of memory, with OUT then empty
 * (nothing to free). */
#ifndef UGC_DIFF_REPORT_H
#define UGC_DIFF_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/diff.h"
#include "base/base.h"

/* The class histogram (DIFF_BY_CLASS): the classes that changed (bytes,
 * count, or objects added or removed), the largest change in bytes first
 * whichever its sign, then in count, then in churn, then by name.
 * Packages and outers: the groups that changed (added or removed objects),
 * the most added plus removed first, then by name.  At most LIMIT rows;
 * OUT->total says how many changed. */
int diff_group_report(const diff_side *a, const diff_side *b, const diff_result *r, enum diff_by by, size_t limit,
		      group_rows *out);

/* Retained bytes of one class name on each side (the names of one class
 * summed when several classes share it). */
typedef struct diff_retained_row {
	const char *name; /* a side's: valid while the sides are */
	uint64_t a, b;
} diff_retained_row;

typedef struct diff_retained_rows {
	diff_retained_row *v; /* the classes whose bytes changed, the largest change first, then by name */
	size_t n;
	size_t classes, changed; /* class names on either side; how many of them changed */
} diff_retained_rows;

/* Aggregated by name in one pass (a hash of the names, base/strpool.h). */
int diff_retained_report(const diff_side *a, const diff_side *b, size_t limit, diff_retained_rows *out);
void diff_retained_rows_free(diff_retained_rows *x);

/* Objects of B that a rule selects, in B's order. */
enum diff_select {
	DIFF_GARBAGE_ALIVE, /* kept from A, garbage there, reachable in B */
	DIFF_NEW_ROOTS,     /* a root in B (not a disregard-pool one) that was no root of the same object in A */
};

typedef struct diff_object_row {
	obj_t idx;
	uint8_t root_kind; /* in B */
	char *name;        /* full name, malloc'd */
} diff_object_row;

typedef struct diff_object_rows {
	diff_object_row *v;
	size_t n;
	uint32_t count; /* every object selected */
} diff_object_rows;

int diff_select_objects(const diff_side *a, const diff_side *b, const diff_result *r, enum diff_select which,
			size_t limit, diff_object_rows *out);
void diff_object_rows_free(diff_object_rows *x);

/* Facts of B (eliminated references, cluster disagreements) not in A, in
 * B's order.  A fact is in A when A has one whose parts are the same texts
 * and objects of the same full name (class name and path rank,
 * diff_path_ranks): no full name is built but for the rows shown. */
typedef struct diff_fact_rows {
	char **v;       /* the rows shown, as diff_fact_text (malloc'd) */
	size_t n;
	uint32_t count; /* every new fact */
} diff_fact_rows;

enum diff_facts { DIFF_ELIMINATED, DIFF_DISAGREEMENTS };

int diff_new_facts(const diff_side *a, const diff_side *b, enum diff_facts which, size_t limit, diff_fact_rows *out);
void diff_fact_rows_free(diff_fact_rows *x);

/* The two-way report, section by section. */
typedef struct diff_report {
	uint64_t a_bytes, b_bytes; /* shallow bytes of every object */
	group_rows classes, packages, outers;
	diff_retained_rows retained;
	diff_object_rows garbage_alive, new_roots;
	diff_fact_rows new_eliminated, new_disagreements;
} diff_report;

int diff_report_build(const diff_side *a, const diff_side *b, const diff_result *r, size_t limit, diff_report *out);
void diff_report_free(diff_report *x);

/* Leak mode: the leaked objects, those new in B (added or replaced
 * against A) that are the same object, reachable, in C (memlab's three
 * snapshots: allocated after the baseline, alive in the target, still
 * alive in the final), less, on a V8 heap, those that only roots holding no
 * program state keep (C's paths are then leak_program_paths()'s: such an
 * object has no distance).  Each is folded under its leak root: the
 * topmost leaked object among its dominators in C under the gc policy
 * (itself when no other leaked object dominates it; with C's per-object
 * dominators, diff_side.idom: without them every leaked object is a leak
 * root).  Leak roots dominate disjoint parts of C, so their retained bytes
 * add up without counting a byte twice.  Leak roots are grouped by their
 * generic chain in C (diff_chain_key()); a group holds its roots and every
 * leaked object folded under them.
 *
 * Time and memory follow C's objects, not their depths: a candidate's
 * chain is a key interned from its parent's (the chain less its last
 * element) and its last element's generic edge and full name, computed
 * once per object, its parents' first (see diff_report.c); an element is
 * written from at most the first 8200 bytes of its path, beyond which
 * generic_name()'s 8192-byte cut reads nothing.  The dominator climb to a
 * leak root is memoized per object, iterative.  Only the groups shown get
 * their chain's text, types and trace.  Groups with the same retained
 * bytes, count and shallow bytes are ordered by their texts compared byte
 * by byte from the keys (the elements they share skipped, jump pointers
 * finding where they part), none written.
 *
 * The groups are diff_chain_key()'s, but for chains whose texts coincide
 * only because a name itself holds " -> " or " = " (other elements, the
 * same text): told apart here. */
typedef struct diff_leak_type {
	const char *name; /* the class's name, in diff_leaks.keys */
	uint32_t count;   /* the group's leaked objects of that class */
} diff_leak_type;

/* One hop of a trace: the edge from the previous hop's object (NULL for the
 * root; C's string, valid while C is) and the object it leads to. */
typedef struct diff_leak_hop {
	const char *edge;
	obj_t idx;         /* in C */
	char *object;      /* its full name (malloc'd) */
	uint64_t retained; /* its retained bytes in C (its shallow bytes without C's dominators) */
	uint8_t root_kind; /* its root kind in C (enum root_kind): a trace's first hop is a root
			    * (or kept only through cluster lists) */
	const char *holder; /* the first hop of a gcobject root: the FGCObject that holds
			     * it (C's string), else NULL */
} diff_leak_hop;

typedef struct diff_leak_group {
	const char *chain; /* root first, numbered names made generic; in diff_leaks.keys,
			    * for the groups shown (NULL for the others) */
	uint32_t count;    /* leaked objects in the group */
	uint32_t roots;    /* of them leak roots */
	uint64_t bytes;    /* their shallow bytes */
	uint64_t retained; /* the leak roots' retained bytes in C */
	obj_t idx;    /* the representative: the leak root that retains the most (the
		       * first in B's order of those); its index in C, */
	uint32_t pos; /* its position in C */
	char *name;   /* and its full name in C (malloc'd; the groups shown) */
	uint32_t node;   /* its chain's key (internal to diff_leak_groups) */
	uint32_t number; /* its place before the sort (likewise) */
	diff_leak_type *types; /* the groups shown: the leaked objects by class, */
	size_t ntypes;         /* the most first, then by name */
	diff_leak_hop *trace;  /* the groups shown: the representative's shortest */
	size_t ntrace;         /* path in C, root first (itself alone with no distance) */
} diff_leak_group;

typedef struct diff_leaks {
	diff_leak_group *v; /* every group: the most retained first, then count, then
			     * shallow bytes, then chain */
	size_t n;           /* the groups shown: at most LIMIT */
	size_t groups;      /* every group */
	uint32_t candidates; /* every leaked object, and their shallow bytes */
	uint64_t bytes;
	uint32_t roots;     /* every leak root, and their retained bytes */
	uint64_t retained;
	uint32_t system;    /* the objects new in B alive in C that only roots
			     * holding no program state keep (V8): left out */
	strpool keys;       /* the shown chains' text, the type names */
} diff_leaks;

/* AB compares A and B, BC compares B and C. */
int diff_leak_groups(const diff_side *b, const diff_side *c, const diff_result *ab, const diff_result *bc,
		     size_t limit, diff_leaks *out);
void diff_leaks_free(diff_leaks *x);

/* The generic chain of C's object K, written out: from its root along the
 * shortest path's parents, "Root -> via = Object ...", each name generic
 * (generic_name(), cut at 8192 bytes; an edge's generic_edge(), at 1024;
 * an object whose name is data, diff_name_is_data(), by its class); "(kept only
 * through cluster lists) Name" (1023 bytes at most) for an object with no
 * distance.  The definition diff_leak_groups() keeps (its cost is the
 * chain's length times its objects' depths; tests compare).  Malloc'd;
 * NULL when out of memory. */
char *diff_chain_key(const diff_side *c, uint32_t k);

#endif
