/* v8_write.c — writes a V8 .heapsnapshot (JSON) as a stream, laid out byte
 * for byte as Node 20 writes one: the header with Node 20's meta, then
 * "nodes", "edges", the three empty trace arrays, "locations" and
 * "strings", one record a line ("\n," between records).  The caller hands
 * over records and strings in file order; nothing is kept but a 1 MiB
 * buffer (and zstd's window for a .zst output), so a 2 GB snapshot is
 * written in bounded memory.  The reader's half is v8_read.c; the shape of
 * what is written is the caller's (tools/gen/v8gen.c). */
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "snapshot/snapshot.h"

#define V8W_BUF (1u << 20)

/* The meta of a Node 20 snapshot, as the snapshots in testdata/v8 hold it. */
static const char META[] =
	"{\"snapshot\":{\"meta\":{\"node_fields\":[\"type\",\"name\",\"id\",\"self_size\",\"edge_count\","
	"\"trace_node_id\",\"detachedness\"],\"node_types\":[[\"hidden\",\"array\",\"string\",\"object\","
	"\"code\",\"closure\",\"regexp\",\"number\",\"native\",\"synthetic\",\"concatenated string\","
	"\"sliced string\",\"symbol\",\"bigint\",\"object shape\",\"wasm object\"],\"string\",\"number\","
	"\"number\",\"number\",\"number\",\"number\"],\"edge_fields\":[\"type\",\"name_or_index\",\"to_node\"],"
	"\"edge_types\":[[\"context\",\"element\",\"property\",\"internal\",\"hidden\",\"shortcut\",\"weak\"],"
	"\"string_or_number\",\"node\"],\"trace_function_info_fields\":[\"function_id\",\"name\",\"script_name\","
	"\"script_id\",\"line\",\"column\"],\"trace_node_fields\":[\"id\",\"function_info_index\",\"count\","
	"\"size\",\"children\"],\"sample_fields\":[\"timestamp_us\",\"last_assigned_id\"],\"location_fields\":"
	"[\"object_index\",\"script_id\",\"line\",\"column\"]},";

struct v8w {
	FILE *fp;
	ZSTD_CCtx *cx;      /* NULL: plain output */
	char *buf, *zbuf;
	size_t len, zcap;
	int first;          /* no record yet in the open array */
	int failed;
	uint64_t written;   /* bytes of JSON */
};

static void put_out(v8w *w, const char *p, size_t n)
{
	if (!w->failed && fwrite(p, 1, n, w->fp) != n)
		w->failed = 1;
}

static void flush(v8w *w, int end)
{
	w->written += w->len;
	if (!w->cx) {
		put_out(w, w->buf, w->len);
	} else {
		ZSTD_inBuffer in = {w->buf, w->len, 0};
		for (;;) {
			ZSTD_outBuffer out = {w->zbuf, w->zcap, 0};
			size_t left = ZSTD_compressStream2(w->cx, &out, &in, end ? ZSTD_e_end : ZSTD_e_continue);
			if (ZSTD_isError(left)) {
				w->failed = 1;
				break;
			}
			put_out(w, w->zbuf, out.pos);
			if (end ? left == 0 : in.pos == in.size)
				break;
		}
	}
	w->len = 0;
}

static inline void room(v8w *w, size_t n)
{
	if (w->len + n > V8W_BUF)
		flush(w, 0);
}

static void put(v8w *w, const char *s, size_t n)
{
	while (n > 0) {
		room(w, 1);
		size_t k = V8W_BUF - w->len < n ? V8W_BUF - w->len : n;
		memcpy(w->buf + w->len, s, k);
		w->len += k;
		s += k;
		n -= k;
	}
}

static void puts_(v8w *w, const char *s) { put(w, s, strlen(s)); }

static inline void put_u64(v8w *w, uint64_t v)
{
	char tmp[24];
	int n = 0;
	do
		tmp[n++] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	room(w, 24);
	while (n > 0)
		w->buf[w->len++] = tmp[--n];
}

v8w *v8w_open(FILE *fp, int compress)
{
	v8w *w = calloc(1, sizeof *w);
	if (!w)
		return NULL;
	w->fp = fp;
	w->buf = malloc(V8W_BUF);
	if (compress) {
		w->zcap = ZSTD_CStreamOutSize();
		w->zbuf = malloc(w->zcap);
		w->cx = ZSTD_createCCtx();
		if (w->cx) {
			ZSTD_CCtx_setParameter(w->cx, ZSTD_c_compressionLevel, 3);
			ZSTD_CCtx_setParameter(w->cx, ZSTD_c_checksumFlag, 1);
		}
	}
	if (!w->buf || (compress && (!w->zbuf || !w->cx))) {
		v8w_free(w);
		return NULL;
	}
	return w;
}

void v8w_free(v8w *w)
{
	if (!w)
		return;
	ZSTD_freeCCtx(w->cx);
	free(w->zbuf);
	free(w->buf);
	free(w);
}

void v8w_header(v8w *w, uint64_t node_count, uint64_t edge_count)
{
	puts_(w, META);
	puts_(w, "\"node_count\":");
	put_u64(w, node_count);
	puts_(w, ",\"edge_count\":");
	put_u64(w, edge_count);
	puts_(w, ",\"trace_function_count\":0},\n\"nodes\":[");
	w->first = 1;
}

void v8w_record(v8w *w, const uint64_t *v, unsigned n)
{
	room(w, 2 + 24 * (size_t)n);
	if (!w->first) {
		w->buf[w->len++] = '\n';
		w->buf[w->len++] = ',';
	}
	w->first = 0;
	for (unsigned k = 0; k < n; k++) {
		if (k)
			w->buf[w->len++] = ',';
		put_u64(w, v[k]);
	}
}

/* Close "nodes" and open "edges"; then "edges", the trace arrays and
 * "locations"; then "locations" and "strings". */
void v8w_end_nodes(v8w *w)
{
	puts_(w, "\n],\n\"edges\":[");
	w->first = 1;
}

void v8w_end_edges(v8w *w)
{
	puts_(w, "\n],\n\"trace_function_infos\":[],\n\"trace_tree\":[],\n\"samples\":[],\n\"locations\":[");
	w->first = 1;
}

void v8w_end_locations(v8w *w)
{
	puts_(w, "\n],\n\"strings\":[");
	w->first = 1;
}

/* One string of the table, JSON-escaped (S is UTF-8; control characters,
 * '"' and '\\' are escaped as Node escapes them). */
void v8w_string(v8w *w, const char *s, size_t n)
{
	if (!w->first)
		put(w, ",\n", 2);
	w->first = 0;
	put(w, "\"", 1);
	size_t run = 0;
	for (size_t k = 0; k < n; k++) {
		unsigned char c = (unsigned char)s[k];
		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		put(w, s + run, k - run);
		run = k + 1;
		char esc[8];
		switch (c) {
		case '"': put(w, "\\\"", 2); break;
		case '\\': put(w, "\\\\", 2); break;
		case '\n': put(w, "\\n", 2); break;
		case '\r': put(w, "\\r", 2); break;
		case '\t': put(w, "\\t", 2); break;
		case '\b': put(w, "\\b", 2); break;
		case '\f': put(w, "\\f", 2); break;
		default:
			snprintf(esc, sizeof esc, "\\u%04x", c);
			put(w, esc, 6);
		}
	}
	put(w, s + run, n - run);
	put(w, "\"", 1);
}

/* Close the string table and the document, and flush: 0, or -1 when a
 * write failed (errno from stdio). */
int v8w_finish(v8w *w, uint64_t *bytes)
{
	puts_(w, "]}");
	flush(w, 1);
	if (fflush(w->fp) != 0)
		w->failed = 1;
	if (bytes)
		*bytes = w->written;
	return w->failed ? -1 : 0;
}
