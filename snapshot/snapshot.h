/* snapshot.h — loading and saving whole snapshots, in either format.
 *
 * snapshot_load() tells the formats apart by content (binary magic, zstd
 * magic, a JSON object for a V8 .heapsnapshot), never by the file name.
 * snapshot_save() picks the format from the output name: .ugcs binary,
 * .ugct text, .ugct.zst (or any .zst) compressed text.  Every error is one line naming the file and the line (text) or the
 * byte offset (binary). */
#ifndef UGC_SNAPSHOT_H
#define UGC_SNAPSHOT_H

#include <stdio.h>

#include "base/base.h"
#include "snapshot/heap.h"

#define SNAP_ERR_MAX 1024

/* What a caller may do beside a load's last step.  GRAPH_READY, when set,
 * is called (with ARG) on the loading thread once H's graph is final —
 * its objects (slots, classes, Outers, flags, sizes, clusters) and
 * references (row starts, targets, kinds, in_links, which it may take) —
 * while another thread still interns the names: until it returns it may
 * read nothing else of H (no name, name number, reference property or
 * string; ref_prop is NULL meanwhile).  The load may still fail after it.
 * Only the V8 loader calls it; after any other load the graph comes with
 * the names, and the caller does that work itself. */
typedef struct load_hook {
	void (*graph_ready)(heap *h, void *arg);
	void *arg;
} load_hook;

/* On failure H is left zeroed (heap_free on it is harmless but not needed). */
int snapshot_load(const char *path, heap *h, char *err, size_t errsize);
/* snapshot_load with HOOK (NULL: none). */
int snapshot_load_with(const char *path, const load_hook *hook, heap *h, char *err, size_t errsize);
int snapshot_save(const char *path, const heap *h, int force, char *err, size_t errsize);
/* snapshot_save without the publication: the snapshot is complete in O's
 * temporary file, for outfile_commit or outfile_commit_all (publish.h). */
int snapshot_prepare(outfile *o, const char *path, const heap *h, int force, char *err, size_t errsize);
/* Is PATH a name snapshot_save() knows how to write? */
int snapshot_format_known(const char *path);

/* Format-specific entry points (used by the above and by the tests). */
int text_parse(const char *path, const char *data, size_t len, heap *h, char *err, size_t errsize);
int text_write(const heap *h, FILE *fp);
/* The same without the end record, for a caller that appends records. */
int text_write_records(const heap *h, FILE *fp);
int binary_parse(const char *path, const unsigned char *data, size_t len, heap *h, char *err, size_t errsize);
int binary_write(const heap *h, FILE *fp, char *err, size_t errsize);
int is_binary_snapshot(const void *data, size_t len);

/* V8 .heapsnapshot input (v8_read.c, v8_map.c): read streaming, plain or
 * zstd, never written.  v8_load() reads a file; v8_parse() reads memory
 * (tests), handing the reader STEP bytes at a time (0: all) through chunks of
 * CHUNK bytes (0: the default) with THREADS threads (0: one a core). */
typedef struct v8_options {
	size_t chunk, step;
	int threads;
	const load_hook *hook; /* NULL: none */
} v8_options;
int v8_load(const char *path, heap *h, char *err, size_t errsize);
/* v8_load with OPT's chunk size and threads (tests; STEP unused): a plain
 * file is mapped and read in place, a zstd one read through chunks. */
int v8_load_with(const char *path, const v8_options *opt, heap *h, char *err, size_t errsize);
int v8_parse(const char *path, const char *data, size_t len, const v8_options *opt, heap *h, char *err,
	     size_t errsize);
/* Does PATH hold text that starts like JSON (after a BOM and blanks),
 * plain or zstd? */
int v8_sniff_file(const char *path);

/* V8 .heapsnapshot output (v8_write.c): a stream laid out as Node 20 writes
 * it.  Open; the header with the counts; node records (7 values: type, name,
 * id, self_size, edge_count, trace_node_id, detachedness); v8w_end_nodes;
 * edge records (type, name_or_index, to_node); v8w_end_edges; location
 * records (object_index, script_id, line, column); v8w_end_locations; every
 * string of the table in order; v8w_finish (0, or -1 when a write failed),
 * which reports the JSON's bytes; v8w_free.  COMPRESS: a zstd stream. */
typedef struct v8w v8w;
v8w *v8w_open(FILE *fp, int compress);
void v8w_header(v8w *w, uint64_t node_count, uint64_t edge_count);
void v8w_record(v8w *w, const uint64_t *v, unsigned n);
void v8w_end_nodes(v8w *w);
void v8w_end_edges(v8w *w);
void v8w_end_locations(v8w *w);
void v8w_string(v8w *w, const char *s, size_t n);
int v8w_finish(v8w *w, uint64_t *bytes);
void v8w_free(v8w *w);

/* Escape LEN bytes of S as a text-format field into OUT (3*LEN+1 bytes). */
size_t text_escape(const char *s, size_t len, char *out);

#endif
