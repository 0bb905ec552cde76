/* v8_stream.h — the V8 reader's internals shared by its three files:
 * v8_stream.c (the source, the chunk ring, the worker pool, errors),
 * v8_json.c (byte-level JSON: blanks, strings, numbers, skipped values,
 * members) and v8_read.c (the .heapsnapshot document itself).  See v8_read.c
 * for why this parser exists. */
#ifndef UGC_V8_STREAM_H
#define UGC_V8_STREAM_H

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <zstd.h>

#include "snapshot/snapshot.h"
#include "snapshot/v8.h"

#define CHUNK_DEFAULT (4u << 20)
#define CARRY_MAX 4096          /* longest token carried into the next chunk: a number (blanks are
                                 * never carried, a record of nodes or edges at most BLANK_TAIL) */
#define NCHUNKS 8
#define QCAP (4 * NCHUNKS + 4)  /* a chunk yields at most 3 pieces */
#define MAX_WORKERS 4
#define ZIN_SIZE (1u << 20)

enum { ARR_NODES, ARR_EDGES };

/* One chunk buffer: CARRY_MAX bytes of room for what the previous chunk left
 * unfinished, then the chunk itself.  REFS counts the reader (while it is the
 * current chunk) and every piece not yet parsed. */
typedef struct chunk {
	char *mem;
	int refs;
	struct chunk *next_free;
} chunk;

/* Values FIRST .. FIRST+N-1 of one array: whole records, each value followed
 * by a comma except the very last of the array (FINAL). */
typedef struct piece {
	chunk *c;
	const char *s;
	size_t len;
	uint64_t off;   /* stream offset of s[0] */
	uint64_t first, n;
	uint8_t arr, final;
	/* NULL, or (a record rebuilt without its blanks, v8_read.c's
	 * blank_record) the stream offset of each value of s: then a byte's
	 * offset is its value's plus its place in the value, not off plus its
	 * place in s */
	const uint64_t *voff;
} piece;

/* What a piece learnt that is checked once the strings are known. */
typedef struct pstats {
	uint64_t max_node_str, max_node_str_off;
	uint64_t max_edge_str, max_edge_str_off;
	int has_node_str, has_edge_str;
	uint64_t clamped;
} pstats;

/* Where the bytes come from: a file descriptor or memory (tests), plain or
 * zstd (detected by the magic), or a plain file mapped whole (MAP). */
typedef struct source {
	int fd;                        /* -1: memory */
	const char *map;               /* a plain file mapped whole: the text is read in
					* place, chunk_size bytes more a fill, not copied */
	size_t map_len, map_dropped;   /* the pages below map_dropped are let go */
	size_t page;                   /* the system's page size */
	const char *mem;
	size_t mem_len, mem_pos, step; /* memory is delivered STEP bytes at a time (0: all) */
	int zstd;
	ZSTD_DStream *zs;
	char *zin;                     /* raw bytes read ahead (the probe, or zstd input) */
	size_t zin_len, zin_pos;
	int raw_eof;
	size_t zlast;                  /* last ZSTD_decompressStream result: 0 = frame complete */
	uint64_t out_total;
	uint64_t raw_size;             /* file size when known, else 0 */
} source;

typedef struct rd {
	const char *path;
	source src;
	v8_raw *raw;
	/* the current chunk: bytes buf[pos..end) not yet consumed; buf[0] is at
	 * stream offset base (a mapped source: buf is the mapping, base 0, and
	 * cur NULL) */
	chunk *cur;
	char *buf;
	size_t pos, end, chunk_size;
	uint64_t base;
	int eof;
	chunk chunks[NCHUNKS];
	chunk *free_list;
	/* worker pool */
	int nworkers;
	pthread_t th[MAX_WORKERS];
	pthread_mutex_t mu;
	pthread_cond_t cv_work, cv_free;
	piece q[QCAP];
	size_t qhead, qlen;
	int busy, quit;
	atomic_int failed;
	/* the earliest error (under mu) */
	int err_set;
	uint64_t err_off;
	char errmsg[SNAP_ERR_MAX];
	/* merged piece results (under mu) */
	pstats st;
	/* document state */
	int seen_snapshot, seen_nodes, seen_edges, seen_strings;
	uint64_t nodes_off;
	/* field roles */
	int nf_type, nf_name, nf_id, nf_size, nf_ecount;
	int ef_type, ef_name, ef_to;
	uint8_t edge_named[256]; /* edge type whose name_or_index is a string index */
} rd;

/* ---- v8_stream.c ---- */

/* Record an error at stream offset OFF; of several, the earliest is kept. */
void v8r_error_v(rd *r, uint64_t off, const char *fmt, va_list ap);
int v8r_fail(rd *r, uint64_t off, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Read the first bytes and tell plain from zstd; 0 or -1. */
int v8r_source_open(rd *r);
void v8r_source_close(source *s);
/* A worker thread: parses queued pieces until told to quit. */
void *v8r_worker(void *arg);
/* Hand a piece to the workers (or parse it here when there are none). */
void v8r_dispatch(rd *r, piece p);
/* Parse piece P in this thread now (its text need not outlive the call). */
void v8r_parse_here(rd *r, const piece *p);
/* Wait until every piece is parsed. */
void v8r_drain(rd *r);
/* Move on to a new chunk, carrying buf[pos..end) over.  Returns the number
 * of new bytes, 0 at the end of the text, -1 on error. */
ssize_t v8r_fill(rd *r);
/* Parse one piece into the columns (v8_read.c; called by the workers). */
void v8r_parse_piece(rd *r, const piece *p, pstats *st);

static inline uint64_t v8r_at(const rd *r) { return r->base + r->pos; }
static inline int is_ws(int c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }
/* Next byte without consuming it; -1 at the end of the text or on error. */
static inline int v8r_peek(rd *r)
{
	while (r->pos == r->end)
		if (v8r_fill(r) <= 0)
			return -1;
	return (unsigned char)r->buf[r->pos];
}

/* ---- v8_json.c ---- */

/* Skip blanks; the next byte, not consumed (-1 at the end or on error). */
int v8r_skip_ws(rd *r);
/* At the end of the text: an error naming the end's offset. */
int v8r_truncated(rd *r, const char *where);
int v8r_expect(rd *r, int want, const char *where);
/* A JSON string (the reader at its quote) decoded to UTF-8: its first KEEP
 * bytes, whole characters, into OUT (may be NULL), *LEN their count, *CUT
 * whether anything was left out. */
int v8r_string(rd *r, char *out, size_t keep, size_t *len, int *cut);
/* A non-negative integer. */
int v8r_uint(rd *r, const char *what, uint64_t *v);
/* Any JSON value, its syntax checked, skipped. */
int v8r_skip_value(rd *r);
/* An object's members one at a time: 1 with the name in KEY (cut to KEYCAP-1
 * bytes, *LONG set when cut) and the reader after the colon, 0 after the
 * closing brace, -1 on error; *FIRST starts at 1. */
int v8r_next_member(rd *r, int *first, char *key, size_t keycap, int *longname, uint64_t *key_off);
/* An array of strings (each cut to 255 bytes), at most MAX. */
int v8r_string_list(rd *r, const char *what, uint32_t max, char ***out, uint32_t *count);
void v8r_free_list(char **l, uint32_t n);
/* A "*_types" member: an array aligned with its "*_fields", one entry a
 * field; the entry of the "type" field lists the type names, the others
 * are strings ("number", "string_or_number", ...).  Every list entry is
 * kept by its place, for the caller to take the one at the "type" field's
 * index once both members are read (they may come in either order). */
typedef struct v8_type_lists {
	char **list[V8_MAX_FIELDS]; /* the entry at each place, NULL when it is not a list */
	uint32_t count[V8_MAX_FIELDS];
	uint32_t n;                 /* entries */
} v8_type_lists;
int v8r_type_lists(rd *r, const char *what, v8_type_lists *out);
void v8r_free_type_lists(v8_type_lists *t);

#endif
