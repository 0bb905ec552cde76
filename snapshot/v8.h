/* v8.h — V8 .heapsnapshot input: what the streaming JSON reader (v8_read.c)
 * hands to the mapping onto the heap model (v8_map.c).
 *
 * A .heapsnapshot is one JSON object: "snapshot" (a header whose "meta" names
 * the fields of a node and of an edge and the node and edge type names),
 * "nodes" and "edges" (flat integer arrays, node_count x node fields and
 * edge_count x edge fields), a few arrays this tool ignores, and "strings".
 * Edges are grouped by source node in node order: node i owns the next
 * edge_count(i) edges.  The reader keeps only what the mapping needs, in
 * columns; the edge columns are allocated so that the mapping turns them
 * into the heap's reference rows in place. */
#ifndef UGC_V8_H
#define UGC_V8_H

#include <stddef.h>
#include <stdint.h>

#include "snapshot/heap.h"
#include "snapshot/snapshot.h"

/* Longest prefix of a string kept (bytes, cut on a UTF-8 boundary): no name
 * or property built from a string needs more. */
#define V8_STR_KEEP 4096
/* Most fields a node or an edge may have. */
#define V8_MAX_FIELDS 64

typedef struct v8_raw {
	uint32_t node_count, edge_count;  /* as the header declares them, checked */
	uint32_t nf, ef;                  /* fields per node, per edge */

	/* meta: node type names (index = a node's type value) */
	char **node_types;
	uint32_t n_node_types;
	/* edge type values with a meaning here, -1 when the meta has no such type */
	int edge_weak, edge_shortcut, edge_element, edge_hidden;
	uint32_t n_edge_types;
	char *version;                    /* snapshot.version when present, else NULL */

	/* node columns, node_count entries, by ordinal */
	uint8_t *ntype;
	uint32_t *nname;   /* string index */
	uint32_t *nid;
	uint32_t *nsize;   /* self_size, clamped to UINT32_MAX */
	uint32_t *necount;
	uint64_t clamped;  /* self_size values above UINT32_MAX */

	/* edge columns, edge_count entries, in file order (so by source node) */
	uint8_t *etype;    /* becomes heap.ref_kind */
	uint32_t *ename;   /* string index or element index; becomes heap.ref_prop */
	obj_t *eto;        /* target node ordinal; becomes heap.ref_dst */

	/* strings, laid out as the heap's string table (strtab.h) holds them,
	 * for the mapping to take over: sbytes holds NIDS strings, each
	 * followed by a NUL, the empty one first (id 0), then every V8 string
	 * that is not empty, in order, decoded to UTF-8 and cut to V8_STR_KEEP
	 * bytes; string id i is at sbytes + soff[i], its length soff[i + 1] -
	 * soff[i] - 1.  V8 string k is string k + 1 less the empty strings
	 * before it, whose indexes EMPTIES lists (ascending).  V8 writes one
	 * empty string in every file: kept out here, it is no copy of string
	 * 0 for the mapping to drop (and renumber every id after it).  At
	 * most 4 GiB, as the heap's. */
	char *sbytes;
	uint32_t *soff;
	size_t sbytes_cap;  /* bytes allocated */
	uint32_t soff_cap;  /* offsets allocated */
	uint32_t nids;
	uint32_t *empties, nempties;
	uint32_t nstrings;  /* V8 strings */
} v8_raw;

void v8_raw_free(v8_raw *raw);

/* Build heap H from RAW (which it empties: its columns move into H),
 * calling HOOK (when not NULL) once the graph is final, beside the names.
 * Returns 0, or -1 with a one-line message in ERR. */
int v8_map(const char *path, v8_raw *raw, heap *h, const load_hook *hook, char *err, size_t errsize);

/* Cut S (LEN bytes) to at most MAX bytes, never inside a UTF-8 sequence. */
size_t v8_utf8_cut(const char *s, size_t len, size_t max);

#endif
