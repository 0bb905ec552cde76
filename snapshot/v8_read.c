/* v8_read.c — reads a V8 .heapsnapshot (plain or zstd), streaming.
 *
 * Why a parser of our own rather than a JSON library: a .heapsnapshot is one
 * JSON document whose bulk is two flat integer arrays (a 4M-node snapshot has
 * 28M node values and 48M edge values) and a string table.  A DOM library
 * would build a tree node per number — gigabytes for a 500 MB file — and an
 * event (SAX) library would still hand the numbers over one callback at a
 * time on one thread; neither can split an array between cores, and the
 * project's only dependencies are SQLite and zstd.  The structure we need is
 * tiny, so this file does it directly:
 *  - the file is read (and decompressed) into a ring of chunk buffers, never
 *    held whole;
 *  - the header, the skipped members and the string table go through a small
 *    byte-at-a-time parser without recursion (nesting lives on a heap stack);
 *  - for "nodes" and "edges" a splitter on the reading thread cuts the array
 *    text at commas into pieces of whole records, counts the values in each
 *    (so it knows which record each piece starts at) and hands the pieces to
 *    worker threads, which parse them straight into the columns of v8_raw.
 * Every value is checked where it is parsed, so an error names the byte
 * offset of the value at fault (in the decompressed text for a .zst file);
 * of several errors found by different threads the earliest is reported. */
#include "snapshot.h"
#include "v8.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "fileio.h"

#define CHUNK_DEFAULT (4u << 20)
#define CARRY_MAX 4096          /* longest token the splitter carries into the next chunk */
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
} piece;

/* What a piece learnt that is checked once the strings are known. */
typedef struct pstats {
	uint64_t max_node_str, max_node_str_off;
	uint64_t max_edge_str, max_edge_str_off;
	int has_node_str, has_edge_str;
	uint64_t clamped;
} pstats;

/* Where the bytes come from: a file descriptor or memory (tests), plain or
 * zstd (detected by the magic). */
typedef struct source {
	int fd;                        /* -1: memory */
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
	 * stream offset base */
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

/* ---- errors ---- */

static void set_error_v(rd *r, uint64_t off, const char *fmt, va_list ap)
{
	char msg[SNAP_ERR_MAX];
	vsnprintf(msg, sizeof msg, fmt, ap);
	pthread_mutex_lock(&r->mu);
	if (!r->err_set || off < r->err_off) {
		r->err_set = 1;
		r->err_off = off;
		snprintf(r->errmsg, sizeof r->errmsg, "%s", msg);
	}
	pthread_mutex_unlock(&r->mu);
	atomic_store(&r->failed, 1);
}

static int fail(rd *r, uint64_t off, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(rd *r, uint64_t off, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	set_error_v(r, off, fmt, ap);
	va_end(ap);
	return -1;
}

static uint64_t at(const rd *r) { return r->base + r->pos; }

/* ---- the source ---- */

static ssize_t raw_read(source *s, char *dst, size_t cap)
{
	if (s->fd < 0) {
		size_t n = s->mem_len - s->mem_pos;
		if (n > cap)
			n = cap;
		if (s->step && n > s->step)
			n = s->step;
		memcpy(dst, s->mem + s->mem_pos, n);
		s->mem_pos += n;
		return (ssize_t)n;
	}
	for (;;) {
		ssize_t n = read(s->fd, dst, cap);
		if (n < 0 && errno == EINTR)
			continue;
		return n;
	}
}

/* Read the first bytes and tell plain from zstd.  Returns 0 or -1 (ERR). */
static int source_open(rd *r)
{
	source *s = &r->src;
	s->zin = malloc(ZIN_SIZE);
	if (!s->zin)
		return fail(r, 0, "out of memory");
	while (s->zin_len < 4) {
		ssize_t n = raw_read(s, s->zin + s->zin_len, ZIN_SIZE - s->zin_len);
		if (n < 0)
			return fail(r, 0, "%s", strerror(errno));
		if (n == 0)
			break;
		s->zin_len += (size_t)n;
	}
	if (is_zstd(s->zin, s->zin_len)) {
		s->zstd = 1;
		s->zs = ZSTD_createDStream();
		if (!s->zs)
			return fail(r, 0, "out of memory");
		ZSTD_initDStream(s->zs);
	}
	return 0;
}

static void source_close(source *s)
{
	free(s->zin);
	ZSTD_freeDStream(s->zs);
}

/* Up to CAP bytes of (decompressed) text; 0 at the end; -1 on error. */
static ssize_t source_read(rd *r, char *dst, size_t cap)
{
	source *s = &r->src;
	if (!s->zstd) {
		if (s->zin_pos < s->zin_len) { /* the probe's bytes first */
			size_t n = s->zin_len - s->zin_pos;
			if (n > cap)
				n = cap;
			memcpy(dst, s->zin + s->zin_pos, n);
			s->zin_pos += n;
			return (ssize_t)n;
		}
		ssize_t n = raw_read(s, dst, cap);
		if (n < 0)
			return fail(r, at(r), "read error: %s", strerror(errno));
		return n;
	}
	ZSTD_outBuffer out = {dst, cap, 0};
	while (out.pos == 0) {
		if (s->zin_pos == s->zin_len && !s->raw_eof) {
			ssize_t n = raw_read(s, s->zin, ZIN_SIZE);
			if (n < 0)
				return fail(r, at(r), "read error: %s", strerror(errno));
			s->zin_len = (size_t)n;
			s->zin_pos = 0;
			s->raw_eof = n == 0;
		}
		if (s->zin_pos == s->zin_len) {
			if (s->zlast != 0)
				return fail(r, at(r), "truncated zstd data");
			return 0;
		}
		ZSTD_inBuffer in = {s->zin, s->zin_len, s->zin_pos};
		s->zlast = ZSTD_decompressStream(s->zs, &out, &in);
		s->zin_pos = in.pos;
		if (ZSTD_isError(s->zlast))
			return fail(r, at(r), "corrupt zstd data: %s", ZSTD_getErrorName(s->zlast));
	}
	s->out_total += out.pos;
	if (s->out_total > FILEIO_MAX_DECOMPRESSED)
		return fail(r, at(r), "decompresses to more than %llu bytes; refusing", FILEIO_MAX_DECOMPRESSED);
	return (ssize_t)out.pos;
}

/* ---- chunks and the worker pool ---- */

static void chunk_release_locked(rd *r, chunk *c)
{
	if (c && --c->refs == 0) {
		c->next_free = r->free_list;
		r->free_list = c;
		pthread_cond_broadcast(&r->cv_free);
	}
}

static void parse_piece(rd *r, const piece *p, pstats *st);

static void merge_stats_locked(rd *r, const pstats *s)
{
	if (s->has_node_str && (!r->st.has_node_str || s->max_node_str > r->st.max_node_str)) {
		r->st.has_node_str = 1;
		r->st.max_node_str = s->max_node_str;
		r->st.max_node_str_off = s->max_node_str_off;
	}
	if (s->has_edge_str && (!r->st.has_edge_str || s->max_edge_str > r->st.max_edge_str)) {
		r->st.has_edge_str = 1;
		r->st.max_edge_str = s->max_edge_str;
		r->st.max_edge_str_off = s->max_edge_str_off;
	}
	r->st.clamped += s->clamped;
}

static void *worker(void *arg)
{
	rd *r = arg;
	pthread_mutex_lock(&r->mu);
	for (;;) {
		while (r->qlen == 0 && !r->quit)
			pthread_cond_wait(&r->cv_work, &r->mu);
		if (r->qlen == 0)
			break;
		piece p = r->q[r->qhead];
		r->qhead = (r->qhead + 1) % QCAP;
		r->qlen--;
		r->busy++;
		pthread_cond_broadcast(&r->cv_free);
		pthread_mutex_unlock(&r->mu);
		pstats st = {0};
		if (!atomic_load(&r->failed))
			parse_piece(r, &p, &st);
		pthread_mutex_lock(&r->mu);
		merge_stats_locked(r, &st);
		chunk_release_locked(r, p.c);
		r->busy--;
		pthread_cond_broadcast(&r->cv_free);
	}
	pthread_mutex_unlock(&r->mu);
	return NULL;
}

static void dispatch(rd *r, piece p)
{
	if (p.n == 0)
		return;
	if (r->nworkers == 0) {
		pstats st = {0};
		parse_piece(r, &p, &st);
		merge_stats_locked(r, &st); /* one thread: no lock needed */
		return;
	}
	pthread_mutex_lock(&r->mu);
	while (r->qlen == QCAP)
		pthread_cond_wait(&r->cv_free, &r->mu);
	p.c->refs++;
	r->q[(r->qhead + r->qlen) % QCAP] = p;
	r->qlen++;
	pthread_cond_signal(&r->cv_work);
	pthread_mutex_unlock(&r->mu);
}

/* Wait until every piece is parsed. */
static void drain(rd *r)
{
	if (r->nworkers == 0)
		return;
	pthread_mutex_lock(&r->mu);
	while (r->qlen || r->busy)
		pthread_cond_wait(&r->cv_free, &r->mu);
	pthread_mutex_unlock(&r->mu);
}

/* Move on to a new chunk, carrying buf[pos..end) over.  Returns the number
 * of new bytes, 0 at the end of the text, -1 on error. */
static ssize_t fill(rd *r)
{
	size_t carry = r->end - r->pos;
	if (carry > CARRY_MAX)
		return fail(r, at(r), "a number (or a run of blanks) longer than %d bytes", CARRY_MAX);
	if (atomic_load(&r->failed))
		return -1;
	if (r->eof)
		return 0;
	pthread_mutex_lock(&r->mu);
	while (!r->free_list)
		pthread_cond_wait(&r->cv_free, &r->mu);
	chunk *c = r->free_list;
	r->free_list = c->next_free;
	c->refs = 1;
	pthread_mutex_unlock(&r->mu);
	if (carry)
		memcpy(c->mem, r->buf + r->pos, carry);
	size_t got = 0;
	while (got < r->chunk_size) {
		ssize_t n = source_read(r, c->mem + carry + got, r->chunk_size - got);
		if (n < 0) {
			pthread_mutex_lock(&r->mu);
			chunk_release_locked(r, c);
			pthread_mutex_unlock(&r->mu);
			return -1;
		}
		if (n == 0) {
			r->eof = 1;
			break;
		}
		got += (size_t)n;
		if (r->src.step)
			break; /* tests: keep the pieces as small as the source gives them */
	}
	pthread_mutex_lock(&r->mu);
	chunk_release_locked(r, r->cur);
	pthread_mutex_unlock(&r->mu);
	r->base += r->pos;
	r->cur = c;
	r->buf = c->mem;
	r->pos = 0;
	r->end = carry + got;
	return (ssize_t)got;
}

/* ---- the byte-level parser ---- */

/* Next byte without consuming it; -1 at the end of the text or on error. */
static inline int peek(rd *r)
{
	while (r->pos == r->end)
		if (fill(r) <= 0)
			return -1;
	return (unsigned char)r->buf[r->pos];
}

static inline int is_ws(int c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

static int skip_ws(rd *r)
{
	for (;;) {
		int c = peek(r);
		if (!is_ws(c))
			return c;
		r->pos++;
	}
}

/* At the end of the text: the offset named is the end's. */
static int truncated(rd *r, const char *where)
{
	return fail(r, r->base + r->end, "unexpected end of the file %s", where);
}

static int expect(rd *r, int want, const char *where)
{
	int c = skip_ws(r);
	if (c == want) {
		r->pos++;
		return 0;
	}
	if (c < 0)
		return truncated(r, where);
	return fail(r, at(r), "expected '%c' %s", want, where);
}

/* Append the UTF-8 form of code point CP to OUT if it fits in KEEP. */
static void put_cp(char *out, size_t *n, size_t keep, int *full, uint32_t cp)
{
	char b[4];
	size_t len;
	if (cp == 0 || (cp >= 0xD800 && cp <= 0xDFFF))
		cp = 0xFFFD; /* NUL and lone surrogates: the replacement character */
	if (cp < 0x80) {
		b[0] = (char)cp;
		len = 1;
	} else if (cp < 0x800) {
		b[0] = (char)(0xC0 | cp >> 6);
		b[1] = (char)(0x80 | (cp & 0x3F));
		len = 2;
	} else if (cp < 0x10000) {
		b[0] = (char)(0xE0 | cp >> 12);
		b[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		b[2] = (char)(0x80 | (cp & 0x3F));
		len = 3;
	} else {
		b[0] = (char)(0xF0 | cp >> 18);
		b[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
		b[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
		b[3] = (char)(0x80 | (cp & 0x3F));
		len = 4;
	}
	if (*full || !out || *n + len > keep) {
		*full = 1;
		return;
	}
	memcpy(out + *n, b, len);
	*n += len;
}

size_t v8_utf8_cut(const char *s, size_t len, size_t max)
{
	if (len <= max)
		return len;
	size_t c = max;
	for (int k = 0; k < 3 && c > 0 && ((unsigned char)s[c] & 0xC0) == 0x80; k++)
		c--;
	return c;
}

/* Drop a UTF-8 sequence left incomplete at the end of S (after a cut). */
static size_t utf8_trim_tail(const char *s, size_t n)
{
	size_t k = n, cont = 0;
	while (k > 0 && cont < 3 && ((unsigned char)s[k - 1] & 0xC0) == 0x80) {
		k--;
		cont++;
	}
	if (k == 0)
		return n;
	unsigned char lead = (unsigned char)s[k - 1];
	size_t need = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
	return need > cont + 1 ? k - 1 : n;
}

static int hex4(rd *r, uint32_t *out)
{
	uint32_t v = 0;
	for (int k = 0; k < 4; k++) {
		int c = peek(r);
		if (c < 0)
			return truncated(r, "in a \\u escape");
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
			: c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		if (d < 0)
			return fail(r, at(r), "bad \\u escape in a string (expected four hex digits)");
		v = v << 4 | (uint32_t)d;
		r->pos++;
	}
	*out = v;
	return 0;
}

/* Read a JSON string (the reader is at its opening quote), decoded to UTF-8.
 * The first KEEP bytes (whole characters) go to OUT (may be NULL); *LEN gets
 * their count and *CUT whether anything was left out. */
static int read_string(rd *r, char *out, size_t keep, size_t *len, int *cut)
{
	size_t n = 0;
	int full = 0;
	uint32_t pending_high = 0; /* a high surrogate waiting for its low half */
	r->pos++;
	for (;;) {
		if (r->pos == r->end && fill(r) <= 0)
			return truncated(r, "in a string");
		const char *s = r->buf + r->pos, *e = r->buf + r->end, *q = s;
		if (!pending_high) {
			while (q < e && *q != '"' && *q != '\\' && *q != '\0')
				q++;
			size_t run = (size_t)(q - s);
			if (run && out && !full) {
				size_t take = run;
				if (n + take > keep) {
					take = keep - n;
					full = 1;
				}
				memcpy(out + n, s, take);
				n += take;
			} else if (run) {
				full = 1;
			}
			r->pos += run;
			if (q == e)
				continue;
		}
		int c = (unsigned char)*q;
		if (c != '\\') {
			if (pending_high) {
				put_cp(out, &n, keep, &full, 0xFFFD);
				pending_high = 0;
				continue;
			}
			r->pos++;
			if (c == '"')
				break;
			put_cp(out, &n, keep, &full, 0); /* a raw NUL byte */
			continue;
		}
		r->pos++;
		c = peek(r);
		if (c < 0)
			return truncated(r, "in a string escape");
		r->pos++;
		uint32_t cp = 0;
		switch (c) {
		case '"': case '\\': case '/': cp = (uint32_t)c; break;
		case 'b': cp = '\b'; break;
		case 'f': cp = '\f'; break;
		case 'n': cp = '\n'; break;
		case 'r': cp = '\r'; break;
		case 't': cp = '\t'; break;
		case 'u':
			if (hex4(r, &cp))
				return -1;
			break;
		default:
			return fail(r, at(r) - 1, "bad escape '\\%c' in a string", c);
		}
		if (pending_high) {
			if (cp >= 0xDC00 && cp <= 0xDFFF) {
				put_cp(out, &n, keep, &full, 0x10000 + ((pending_high - 0xD800) << 10) + (cp - 0xDC00));
				pending_high = 0;
				continue;
			}
			put_cp(out, &n, keep, &full, 0xFFFD);
			pending_high = 0;
		}
		if (cp >= 0xD800 && cp <= 0xDBFF)
			pending_high = cp;
		else
			put_cp(out, &n, keep, &full, cp);
	}
	if (pending_high)
		put_cp(out, &n, keep, &full, 0xFFFD);
	if (full && out)
		n = utf8_trim_tail(out, n);
	if (len)
		*len = n;
	if (cut)
		*cut = full;
	return 0;
}

/* A non-negative integer (the reader is at its first digit or blank). */
static int read_uint(rd *r, const char *what, uint64_t *v)
{
	int c = skip_ws(r);
	uint64_t off = at(r), x = 0;
	int digits = 0;
	while (c >= '0' && c <= '9') {
		if (++digits > 19)
			return fail(r, off, "%s: number too large", what);
		x = x * 10 + (uint64_t)(c - '0');
		r->pos++;
		c = peek(r);
	}
	if (digits == 0 || c == '.' || c == 'e' || c == 'E')
		return c < 0 && digits == 0 ? truncated(r, what)
					    : fail(r, off, "%s: expected a non-negative integer", what);
	*v = x;
	return 0;
}

/* Skip any JSON value, checking its syntax; nesting is kept on a heap stack. */
static int skip_value(rd *r)
{
	char *stack = NULL;
	size_t depth = 0, cap = 0;
	int rc = -1;
	for (;;) {
		int c = skip_ws(r);
		if (c == '{' || c == '[') {
			if (depth == cap) {
				cap = cap ? cap * 2 : 64;
				char *s = realloc(stack, cap);
				if (!s) {
					fail(r, at(r), "out of memory");
					goto out;
				}
				stack = s;
			}
			stack[depth++] = c == '{' ? '}' : ']';
			r->pos++;
			c = skip_ws(r);
			if (c == stack[depth - 1]) {
				r->pos++;
				depth--;
				goto after;
			}
			if (stack[depth - 1] == '}') {
				if (c != '"') {
					c < 0 ? truncated(r, "in an object") : fail(r, at(r), "expected a member name");
					goto out;
				}
				if (read_string(r, NULL, 0, NULL, NULL) || expect(r, ':', "after a member name"))
					goto out;
			}
			continue;
		} else if (c == '"') {
			if (read_string(r, NULL, 0, NULL, NULL))
				goto out;
		} else if (c == '-' || (c >= '0' && c <= '9')) {
			while ((c = peek(r)) >= 0 && (c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' ||
						      (c >= '0' && c <= '9')))
				r->pos++;
		} else if (c == 't' || c == 'f' || c == 'n') {
			const char *word = c == 't' ? "true" : c == 'f' ? "false" : "null";
			for (const char *w = word; *w; w++) {
				if (peek(r) != *w) {
					fail(r, at(r), "expected a JSON value");
					goto out;
				}
				r->pos++;
			}
		} else {
			c < 0 ? truncated(r, "where a value was expected") : fail(r, at(r), "expected a JSON value");
			goto out;
		}
	after:
		if (depth == 0)
			break;
		c = skip_ws(r);
		if (c == ',') {
			r->pos++;
			if (stack[depth - 1] == '}') {
				if (skip_ws(r) != '"') {
					peek(r) < 0 ? truncated(r, "in an object") : fail(r, at(r), "expected a member name");
					goto out;
				}
				if (read_string(r, NULL, 0, NULL, NULL) || expect(r, ':', "after a member name"))
					goto out;
			}
			continue;
		}
		if (c == stack[depth - 1]) {
			r->pos++;
			depth--;
			goto after;
		}
		c < 0 ? truncated(r, "in an array or object")
		      : fail(r, at(r), "expected ',' or '%c'", stack[depth - 1]);
		goto out;
	}
	rc = 0;
out:
	free(stack);
	return rc;
}

/* Members of an object, one at a time: returns 1 with the member's name in
 * KEY (cut to KEYCAP-1 bytes; *LONG set when cut) and the reader after the
 * colon, 0 after the closing brace, -1 on error.  *FIRST starts at 1. */
static int next_member(rd *r, int *first, char *key, size_t keycap, int *longname, uint64_t *key_off)
{
	int c = skip_ws(r);
	if (!*first) {
		if (c == '}') {
			r->pos++;
			return 0;
		}
		if (c != ',')
			return c < 0 ? truncated(r, "in an object") : fail(r, at(r), "expected ',' or '}'");
		r->pos++;
		c = skip_ws(r);
	} else if (c == '}') {
		r->pos++;
		return 0;
	}
	*first = 0;
	if (c != '"')
		return c < 0 ? truncated(r, "in an object") : fail(r, at(r), "expected a member name");
	*key_off = at(r);
	size_t n;
	if (read_string(r, key, keycap - 1, &n, longname))
		return -1;
	key[n] = '\0';
	if (expect(r, ':', "after a member name"))
		return -1;
	return 1;
}

/* An array of strings, each cut to 255 bytes, at most MAX of them. */
static int string_list(rd *r, const char *what, uint32_t max, char ***out, uint32_t *count)
{
	if (expect(r, '[', what))
		return -1;
	char **list = NULL;
	uint32_t n = 0;
	int c = skip_ws(r);
	if (c == ']') {
		r->pos++;
		goto done;
	}
	for (;;) {
		if (c != '"') {
			c < 0 ? truncated(r, what) : fail(r, at(r), "%s: expected a string", what);
			goto bad;
		}
		if (n == max) {
			fail(r, at(r), "%s: more than %u entries", what, max);
			goto bad;
		}
		char buf[256], **l = realloc(list, (n + 1) * sizeof *l);
		if (!l) {
			fail(r, at(r), "out of memory");
			goto bad;
		}
		list = l;
		size_t len;
		if (read_string(r, buf, sizeof buf - 1, &len, NULL))
			goto bad;
		buf[len] = '\0';
		if (!(list[n] = strdup(buf))) {
			fail(r, at(r), "out of memory");
			goto bad;
		}
		n++;
		c = skip_ws(r);
		if (c == ']') {
			r->pos++;
			break;
		}
		if (c != ',') {
			c < 0 ? truncated(r, what) : fail(r, at(r), "%s: expected ',' or ']'", what);
			goto bad;
		}
		r->pos++;
		c = skip_ws(r);
	}
done:
	*out = list;
	*count = n;
	return 0;
bad:
	for (uint32_t k = 0; k < n; k++)
		free(list[k]);
	free(list);
	return -1;
}

static void free_list(char **l, uint32_t n)
{
	for (uint32_t k = 0; k < n; k++)
		free(l[k]);
	free(l);
}

/* A "*_types" member: an array whose first element lists the type names. */
static int type_list(rd *r, const char *what, char ***out, uint32_t *count)
{
	if (expect(r, '[', what))
		return -1;
	if (string_list(r, what, 255, out, count))
		return -1;
	for (;;) {
		int c = skip_ws(r);
		if (c == ']') {
			r->pos++;
			return 0;
		}
		if (c != ',')
			return c < 0 ? truncated(r, what) : fail(r, at(r), "%s: expected ',' or ']'", what);
		r->pos++;
		if (skip_value(r))
			return -1;
	}
}

static int field_index(char **fields, uint32_t n, const char *name)
{
	for (uint32_t k = 0; k < n; k++)
		if (strcmp(fields[k], name) == 0)
			return (int)k;
	return -1;
}

typedef struct meta {
	char **node_fields, **edge_fields, **edge_types;
	uint32_t n_node_fields, n_edge_fields, n_edge_types;
	int has_node_fields, has_edge_fields, has_node_types, has_edge_types;
} meta;

static int parse_meta(rd *r, meta *m)
{
	v8_raw *raw = r->raw;
	if (expect(r, '{', "at snapshot.meta"))
		return -1;
	int first = 1, longname, more;
	char key[64];
	uint64_t koff;
	while ((more = next_member(r, &first, key, sizeof key, &longname, &koff)) > 0) {
		int rc;
		if (longname)
			rc = skip_value(r);
		else if (strcmp(key, "node_fields") == 0 && !m->has_node_fields)
			rc = string_list(r, "meta.node_fields", V8_MAX_FIELDS, &m->node_fields, &m->n_node_fields),
			m->has_node_fields = 1;
		else if (strcmp(key, "edge_fields") == 0 && !m->has_edge_fields)
			rc = string_list(r, "meta.edge_fields", V8_MAX_FIELDS, &m->edge_fields, &m->n_edge_fields),
			m->has_edge_fields = 1;
		else if (strcmp(key, "node_types") == 0 && !raw->node_types && !m->has_node_types)
			rc = type_list(r, "meta.node_types", &raw->node_types, &raw->n_node_types), m->has_node_types = 1;
		else if (strcmp(key, "edge_types") == 0 && !m->has_edge_types)
			rc = type_list(r, "meta.edge_types", &m->edge_types, &m->n_edge_types), m->has_edge_types = 1;
		else
			rc = skip_value(r);
		if (rc)
			return -1;
	}
	return more;
}

/* Check the meta and the counts, then allocate the columns. */
static int setup(rd *r, uint64_t off, const meta *m, uint64_t node_count, uint64_t edge_count)
{
	v8_raw *raw = r->raw;
	if (!m->has_node_fields || !m->has_edge_fields || !m->has_node_types || !m->has_edge_types)
		return fail(r, off, "snapshot.meta: missing %s", !m->has_node_fields ? "node_fields"
				: !m->has_edge_fields ? "edge_fields" : !m->has_node_types ? "node_types" : "edge_types");
	static const char *const need_n[] = {"type", "name", "id", "self_size", "edge_count"};
	int *role_n[] = {&r->nf_type, &r->nf_name, &r->nf_id, &r->nf_size, &r->nf_ecount};
	for (int k = 0; k < 5; k++)
		if ((*role_n[k] = field_index(m->node_fields, m->n_node_fields, need_n[k])) < 0)
			return fail(r, off, "snapshot.meta.node_fields: no \"%s\" field", need_n[k]);
	static const char *const need_e[] = {"type", "name_or_index", "to_node"};
	int *role_e[] = {&r->ef_type, &r->ef_name, &r->ef_to};
	for (int k = 0; k < 3; k++)
		if ((*role_e[k] = field_index(m->edge_fields, m->n_edge_fields, need_e[k])) < 0)
			return fail(r, off, "snapshot.meta.edge_fields: no \"%s\" field", need_e[k]);
	raw->nf = m->n_node_fields;
	raw->ef = m->n_edge_fields;
	raw->n_edge_types = m->n_edge_types;
	raw->edge_weak = field_index(m->edge_types, m->n_edge_types, "weak");
	raw->edge_shortcut = field_index(m->edge_types, m->n_edge_types, "shortcut");
	raw->edge_element = field_index(m->edge_types, m->n_edge_types, "element");
	raw->edge_hidden = field_index(m->edge_types, m->n_edge_types, "hidden");
	for (uint32_t t = 0; t < 256; t++)
		r->edge_named[t] = (int)t != raw->edge_element && (int)t != raw->edge_hidden;
	if (node_count == 0)
		return fail(r, off, "snapshot.node_count is 0 (a heap snapshot has at least its root node)");
	if (node_count > (uint64_t)OBJ_INDEX_MAX / 2 || node_count * raw->nf > UINT32_MAX)
		return fail(r, off, "snapshot.node_count %llu is more than this tool reads", (unsigned long long)node_count);
	if (edge_count > UINT32_MAX - 2)
		return fail(r, off, "snapshot.edge_count %llu is more than this tool reads", (unsigned long long)edge_count);
	uint64_t values = node_count * raw->nf + edge_count * raw->ef;
	if (r->src.raw_size && !r->src.zstd && values * 2 > r->src.raw_size + 2)
		return fail(r, off, "snapshot.node_count and edge_count (%llu, %llu) need more values than the file holds",
			    (unsigned long long)node_count, (unsigned long long)edge_count);
	raw->node_count = (uint32_t)node_count;
	raw->edge_count = (uint32_t)edge_count;
	size_t n = node_count, e = edge_count;
	raw->ntype = malloc(n);
	raw->nname = malloc(n * sizeof *raw->nname);
	raw->nid = malloc(n * sizeof *raw->nid);
	raw->nsize = malloc(n * sizeof *raw->nsize);
	raw->necount = malloc(n * sizeof *raw->necount);
	raw->etype = malloc(e + 1);
	raw->ename = malloc(e * sizeof *raw->ename + 1);
	raw->eto = malloc(e * sizeof *raw->eto + 1);
	if (!raw->ntype || !raw->nname || !raw->nid || !raw->nsize || !raw->necount || !raw->etype || !raw->ename ||
	    !raw->eto)
		return fail(r, off, "out of memory (%llu nodes, %llu edges)", (unsigned long long)node_count,
			    (unsigned long long)edge_count);
	return 0;
}

static int parse_header(rd *r)
{
	skip_ws(r);
	uint64_t off = at(r);
	if (expect(r, '{', "at \"snapshot\""))
		return -1;
	meta m = {0};
	uint64_t node_count = 0, edge_count = 0;
	int has_nc = 0, has_ec = 0, has_meta = 0, first = 1, longname, more, rc = -1;
	char key[64];
	uint64_t koff;
	while ((more = next_member(r, &first, key, sizeof key, &longname, &koff)) > 0) {
		int bad;
		if (longname)
			bad = skip_value(r);
		else if (strcmp(key, "meta") == 0 && !has_meta)
			bad = parse_meta(r, &m), has_meta = 1;
		else if (strcmp(key, "node_count") == 0 && !has_nc)
			bad = read_uint(r, "snapshot.node_count", &node_count), has_nc = 1;
		else if (strcmp(key, "edge_count") == 0 && !has_ec)
			bad = read_uint(r, "snapshot.edge_count", &edge_count), has_ec = 1;
		else if (strcmp(key, "version") == 0 && !r->raw->version && skip_ws(r) == '"') {
			char v[256];
			size_t n;
			bad = read_string(r, v, sizeof v - 1, &n, NULL);
			v[n] = '\0';
			if (!bad && !(r->raw->version = strdup(v)))
				bad = fail(r, koff, "out of memory");
		} else
			bad = skip_value(r);
		if (bad)
			goto out;
	}
	if (more < 0)
		goto out;
	if (!has_meta)
		fail(r, off, "snapshot: no \"meta\" member");
	else if (!has_nc || !has_ec)
		fail(r, off, "snapshot: no \"%s\" member", has_nc ? "edge_count" : "node_count");
	else
		rc = setup(r, off, &m, node_count, edge_count);
out:
	free_list(m.node_fields, m.n_node_fields);
	free_list(m.edge_fields, m.n_edge_fields);
	free_list(m.edge_types, m.n_edge_types);
	return rc;
}

/* ---- the integer arrays ---- */

/* Commas in [S, E), eight bytes at a time: a byte of W ^ COMMAS is zero
 * exactly where W has a comma; per-byte counters are summed every 255 words. */
static uint64_t count_commas(const char *s, const char *e)
{
	const uint64_t ones = 0x0101010101010101ull, low7 = ones * 0x7f, commas = ones * ',';
	uint64_t n = 0;
	while (e - s >= 8) {
		uint64_t acc = 0;
		for (int k = 0; k < 255 && e - s >= 8; k++, s += 8) {
			uint64_t w;
			memcpy(&w, s, 8);
			uint64_t x = w ^ commas;
			uint64_t nonzero = ((x & low7) + low7) | x; /* high bit set where the byte is not 0 */
			acc += (~nonzero >> 7) & ones;
		}
		const uint64_t m16 = 0x00ff00ff00ff00ffull;
		uint64_t pairs = (acc & m16) + ((acc >> 8) & m16); /* four 16-bit lanes */
		n += (pairs * 0x0001000100010001ull) >> 48;
	}
	for (; s < e; s++)
		n += *s == ',';
	return n;
}

static int piece_fail(rd *r, const piece *p, const unsigned char *where, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int piece_fail(rd *r, const piece *p, const unsigned char *where, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	set_error_v(r, p->off + (uint64_t)(where - (const unsigned char *)p->s), fmt, ap);
	va_end(ap);
	return -1;
}

static inline uint32_t div_fields(uint32_t v, uint32_t d)
{
	/* constant divisors for the common layouts compile to multiplications */
	return d == 7 ? v / 7 : d == 6 ? v / 6 : d == 3 ? v / 3 : v / d;
}

/* Where value F of the record that starts at RS begins (for messages; the
 * record's syntax is known good). */
static const unsigned char *value_at(const unsigned char *rs, int f)
{
	for (int k = 0; k < f; k++) {
		while (*rs != ',')
			rs++;
		rs++;
	}
	while (is_ws(*rs))
		rs++;
	return rs;
}

/* Parse one piece into the columns.  No bounds checks in the scanning loops:
 * a piece of N values holds N commas (N-1 in a final piece, which the ']'
 * after it ends), so every loop stops at a comma or at that bracket. */
static void parse_piece(rd *r, const piece *p, pstats *st)
{
	v8_raw *raw = r->raw;
	const unsigned char *s = (const unsigned char *)p->s, *e = s + p->len;
	const int nodes = p->arr == ARR_NODES;
	const char *what = nodes ? "nodes" : "edges";
	const uint32_t nfld = nodes ? raw->nf : raw->ef;
	const uint64_t nrec = p->n / nfld, to_limit = (uint64_t)raw->node_count * raw->nf;
	const unsigned char *max_name_rs = NULL;
	uint64_t max_name = 0, v[V8_MAX_FIELDS];
	uint64_t rec = p->first / nfld;
#define AT(ptr) (p->off + (uint64_t)((ptr) - (const unsigned char *)p->s))
	for (uint64_t k = 0; k < nrec; k++, rec++) {
		const unsigned char *rs = s;
		for (uint32_t f = 0; f < nfld; f++) {
			if ((unsigned)(*s - '0') > 9) {
				while (is_ws(*s))
					s++;
				if ((unsigned)(*s - '0') > 9) {
					piece_fail(r, p, s, "%s: expected a non-negative integer", what);
					return;
				}
			}
			const unsigned char *b = s;
			uint64_t x = (uint64_t)(*s++ - '0');
			for (unsigned d; (d = (unsigned)(*s - '0')) < 10; s++)
				x = x * 10 + d;
			if (s - b > 19) {
				piece_fail(r, p, b, "%s: number too large", what);
				return;
			}
			v[f] = x;
			if (*s != ',') {
				while (is_ws(*s))
					s++;
				if (*s != ',') {
					if (p->final && k + 1 == nrec && f + 1 == nfld)
						break;
					piece_fail(r, p, s, "%s: expected ','", what);
					return;
				}
			}
			s++;
		}
		if (nodes) {
			uint64_t t = v[r->nf_type];
			if (t >= raw->n_node_types) {
				piece_fail(r, p, value_at(rs, r->nf_type), "node %llu: type %llu is not one of the %u node types",
					   (unsigned long long)rec, (unsigned long long)t, raw->n_node_types);
				return;
			}
			if ((v[r->nf_name] | v[r->nf_id] | v[r->nf_ecount]) > UINT32_MAX) {
				int f = v[r->nf_name] > UINT32_MAX ? r->nf_name : v[r->nf_id] > UINT32_MAX ? r->nf_id : r->nf_ecount;
				piece_fail(r, p, value_at(rs, f), "node %llu: %s %llu is too large", (unsigned long long)rec,
					   f == r->nf_name ? "name" : f == r->nf_id ? "id" : "edge_count",
					   (unsigned long long)v[f]);
				return;
			}
			uint64_t size = v[r->nf_size];
			if (size > UINT32_MAX) {
				size = UINT32_MAX;
				st->clamped++;
			}
			if (!max_name_rs || v[r->nf_name] > max_name) {
				max_name = v[r->nf_name];
				max_name_rs = rs;
			}
			raw->ntype[rec] = (uint8_t)t;
			raw->nname[rec] = (uint32_t)v[r->nf_name];
			raw->nid[rec] = (uint32_t)v[r->nf_id];
			raw->nsize[rec] = (uint32_t)size;
			raw->necount[rec] = (uint32_t)v[r->nf_ecount];
		} else {
			uint64_t t = v[r->ef_type], to = v[r->ef_to], name = v[r->ef_name];
			if (t >= raw->n_edge_types) {
				piece_fail(r, p, value_at(rs, r->ef_type), "edge %llu: type %llu is not one of the %u edge types",
					   (unsigned long long)rec, (unsigned long long)t, raw->n_edge_types);
				return;
			}
			uint32_t to_ord = to < to_limit ? div_fields((uint32_t)to, raw->nf) : 0;
			if (to >= to_limit || (uint64_t)to_ord * raw->nf != to) {
				piece_fail(r, p, value_at(rs, r->ef_to), "edge %llu: to_node %llu is no node (a multiple of %u below %llu)",
					   (unsigned long long)rec, (unsigned long long)to, raw->nf, (unsigned long long)to_limit);
				return;
			}
			if (name > UINT32_MAX) {
				piece_fail(r, p, value_at(rs, r->ef_name), "edge %llu: name_or_index %llu is too large",
					   (unsigned long long)rec, (unsigned long long)name);
				return;
			}
			if (r->edge_named[t] && (!max_name_rs || name > max_name)) {
				max_name = name;
				max_name_rs = rs;
			}
			raw->etype[rec] = (uint8_t)t;
			raw->ename[rec] = (uint32_t)name;
			raw->eto[rec] = (obj_t)to_ord;
		}
	}
	while (s < e && is_ws(*s))
		s++;
	if (s != e)
		piece_fail(r, p, s, "%s: expected ',' or ']'", what);
	if (max_name_rs && nodes) {
		st->has_node_str = 1;
		st->max_node_str = max_name;
		st->max_node_str_off = AT(value_at(max_name_rs, r->nf_name));
	} else if (max_name_rs) {
		st->has_edge_str = 1;
		st->max_edge_str = max_name;
		st->max_edge_str_off = AT(value_at(max_name_rs, r->ef_name));
	}
#undef AT
}

/* "nodes" or "edges": split the array text into pieces for the workers. */
static int parse_numbers(rd *r, int arr)
{
	v8_raw *raw = r->raw;
	const char *what = arr == ARR_NODES ? "nodes" : "edges";
	uint32_t nfld = arr == ARR_NODES ? raw->nf : raw->ef;
	uint64_t expected = arr == ARR_NODES ? (uint64_t)raw->node_count * raw->nf : (uint64_t)raw->edge_count * raw->ef;
	if (skip_ws(r) != '[')
		return peek(r) < 0 ? truncated(r, what) : fail(r, at(r), "%s: expected '['", what);
	if (arr == ARR_NODES)
		r->nodes_off = at(r);
	r->pos++;
	uint64_t total = 0;
	for (;;) {
		if (r->pos == r->end && fill(r) <= 0)
			return truncated(r, what);
		const char *s = r->buf + r->pos, *lim = r->buf + r->end;
		const char *close = memchr(s, ']', (size_t)(lim - s));
		if (close) {
			uint64_t commas = count_commas(s, close), n = commas + 1;
			if (commas == 0 && total == 0) { /* "[]" or "[ ]": no values */
				const char *q = s;
				while (q < close && is_ws((unsigned char)*q))
					q++;
				if (q == close)
					n = 0;
			}
			if (total + n != expected)
				return fail(r, at(r) + (uint64_t)(close - s),
					    "%s: %llu values where node_count/edge_count say %llu (%u fields each)", what,
					    (unsigned long long)(total + n), (unsigned long long)expected, nfld);
			dispatch(r, (piece){r->cur, s, (size_t)(close - s), at(r), total, n, (uint8_t)arr, 1});
			r->pos = (size_t)(close + 1 - r->buf);
			return 0;
		}
		const char *last = memrchr(s, ',', (size_t)(lim - s));
		uint64_t commas = last ? count_commas(s, last + 1) : 0;
		uint64_t drop = (total + commas) % nfld, keep = commas - drop;
		if (last && keep > 0) {
			const char *cut = last;
			for (uint64_t d = 0; d < drop; d++)
				cut = memrchr(s, ',', (size_t)(cut - s));
			cut++; /* just after the comma that ends the last whole record */
			if (total + keep > expected)
				return fail(r, at(r) + (uint64_t)(cut - s),
					    "%s: more values than node_count/edge_count say (%llu, %u fields each)", what,
					    (unsigned long long)expected, nfld);
			dispatch(r, (piece){r->cur, s, (size_t)(cut - s), at(r), total, keep, (uint8_t)arr, 0});
			total += keep;
			r->pos = (size_t)(cut - r->buf);
		}
		ssize_t got = fill(r);
		if (got < 0)
			return -1;
		if (got == 0)
			return truncated(r, what);
	}
}

/* ---- the string table ---- */

static int parse_strings(rd *r)
{
	v8_raw *raw = r->raw;
	if (expect(r, '[', "at \"strings\""))
		return -1;
	size_t cap = 1 << 16, len = 0;
	uint64_t ocap = 1024;
	raw->sbytes = malloc(cap);
	raw->soff = malloc(ocap * sizeof *raw->soff);
	if (!raw->sbytes || !raw->soff)
		return fail(r, at(r), "out of memory");
	raw->soff[0] = 0;
	uint32_t n = 0;
	int c = skip_ws(r);
	if (c == ']') {
		r->pos++;
		raw->nstrings = 0;
		return 0;
	}
	for (;;) {
		if (c != '"')
			return c < 0 ? truncated(r, "in \"strings\"") : fail(r, at(r), "strings: expected a string");
		if (n >= UINT32_MAX - 2)
			return fail(r, at(r), "strings: too many strings");
		if (len + V8_STR_KEEP > cap) {
			while (len + V8_STR_KEEP > cap)
				cap *= 2;
			char *b = realloc(raw->sbytes, cap);
			if (!b)
				return fail(r, at(r), "out of memory (strings)");
			raw->sbytes = b;
		}
		if ((uint64_t)n + 2 > ocap) {
			uint64_t *o = realloc(raw->soff, (ocap *= 2) * sizeof *o);
			if (!o)
				return fail(r, at(r), "out of memory (strings)");
			raw->soff = o;
		}
		size_t got;
		if (read_string(r, raw->sbytes + len, V8_STR_KEEP, &got, NULL))
			return -1;
		len += got;
		raw->soff[++n] = len;
		c = skip_ws(r);
		if (c == ']') {
			r->pos++;
			break;
		}
		if (c != ',')
			return c < 0 ? truncated(r, "in \"strings\"") : fail(r, at(r), "strings: expected ',' or ']'");
		r->pos++;
		c = skip_ws(r);
	}
	raw->nstrings = n;
	return 0;
}

/* ---- the document ---- */

static int parse_document(rd *r)
{
	int c = skip_ws(r);
	if (c == 0xEF) { /* a UTF-8 byte order mark */
		for (int k = 0; k < 3; k++)
			if (peek(r) == (unsigned char)"\xEF\xBB\xBF"[k])
				r->pos++;
		c = skip_ws(r);
	}
	if (c != '{')
		return c < 0 ? fail(r, at(r), "empty file") : fail(r, at(r), "not a V8 heap snapshot (expected '{')");
	r->pos++;
	int first = 1, longname, more;
	char key[64];
	uint64_t koff;
	while ((more = next_member(r, &first, key, sizeof key, &longname, &koff)) > 0) {
		int rc;
		int *seen = NULL;
		if (longname)
			rc = skip_value(r);
		else if (strcmp(key, "snapshot") == 0) {
			seen = &r->seen_snapshot;
			rc = *seen ? 1 : parse_header(r);
		} else if (strcmp(key, "nodes") == 0 || strcmp(key, "edges") == 0) {
			int arr = key[0] == 'n' ? ARR_NODES : ARR_EDGES;
			seen = arr == ARR_NODES ? &r->seen_nodes : &r->seen_edges;
			if (!r->seen_snapshot)
				return fail(r, koff, "\"%s\" before \"snapshot\" (its meta says what the numbers are)", key);
			rc = *seen ? 1 : parse_numbers(r, arr);
		} else if (strcmp(key, "strings") == 0) {
			seen = &r->seen_strings;
			rc = *seen ? 1 : parse_strings(r);
		} else
			rc = skip_value(r);
		if (rc > 0)
			return fail(r, koff, "\"%s\" given twice", key);
		if (rc)
			return -1;
		if (seen)
			*seen = 1;
	}
	if (more < 0)
		return -1;
	c = skip_ws(r);
	if (c >= 0)
		return fail(r, at(r), "data after the end of the snapshot");
	if (atomic_load(&r->failed))
		return -1;
	const char *missing = !r->seen_snapshot ? "snapshot" : !r->seen_nodes ? "nodes" : !r->seen_edges ? "edges"
			      : !r->seen_strings ? "strings" : NULL;
	if (missing)
		return fail(r, at(r), "no \"%s\" member", missing);
	return 0;
}

/* After the whole text: the checks that needed all of it. */
static int final_checks(rd *r)
{
	v8_raw *raw = r->raw;
	if (r->st.has_node_str && r->st.max_node_str >= raw->nstrings)
		return fail(r, r->st.max_node_str_off, "node name: string index %llu out of range (%u strings)",
			    (unsigned long long)r->st.max_node_str, raw->nstrings);
	if (r->st.has_edge_str && r->st.max_edge_str >= raw->nstrings)
		return fail(r, r->st.max_edge_str_off, "edge name: string index %llu out of range (%u strings)",
			    (unsigned long long)r->st.max_edge_str, raw->nstrings);
	uint64_t sum = 0;
	for (uint32_t i = 0; i < raw->node_count; i++)
		sum += raw->necount[i];
	if (sum != raw->edge_count)
		return fail(r, r->nodes_off, "nodes: the edge_count fields add up to %llu, but snapshot.edge_count is %u",
			    (unsigned long long)sum, raw->edge_count);
	raw->clamped = r->st.clamped;
	return 0;
}

void v8_raw_free(v8_raw *raw)
{
	free_list(raw->node_types, raw->n_node_types);
	free(raw->version);
	free(raw->ntype); free(raw->nname); free(raw->nid); free(raw->nsize); free(raw->necount);
	free(raw->etype); free(raw->ename); free(raw->eto);
	free(raw->sbytes); free(raw->soff);
	memset(raw, 0, sizeof *raw);
}

static int cores(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 && n < 1024 ? (int)n : 1;
}

static int workers_for(int threads)
{
	if (threads <= 0)
		threads = cores();
	return threads <= 1 ? 0 : threads > MAX_WORKERS ? MAX_WORKERS : threads;
}

/* Read everything from R's source into RAW, then map it onto H. */
static int run(rd *r, const v8_options *opt, heap *h, char *err, size_t errsize)
{
	v8_raw raw = {0};
	r->raw = &raw;
	r->chunk_size = opt && opt->chunk ? opt->chunk : CHUNK_DEFAULT;
	int threads = opt ? opt->threads : 0;
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->cv_work, NULL);
	pthread_cond_init(&r->cv_free, NULL);
	int rc = 0;
	for (int k = 0; k < NCHUNKS; k++) {
		r->chunks[k].mem = malloc(CARRY_MAX + r->chunk_size);
		if (!r->chunks[k].mem)
			rc = fail(r, 0, "out of memory");
		r->chunks[k].next_free = r->free_list;
		r->free_list = &r->chunks[k];
	}
	int want = workers_for(threads);
	for (int k = 0; rc == 0 && k < want; k++)
		if (pthread_create(&r->th[k], NULL, worker, r) == 0)
			r->nworkers++;
	if (rc == 0)
		rc = source_open(r);
	if (rc == 0)
		rc = parse_document(r);
	drain(r);
	pthread_mutex_lock(&r->mu);
	r->quit = 1;
	pthread_cond_broadcast(&r->cv_work);
	pthread_mutex_unlock(&r->mu);
	for (int k = 0; k < r->nworkers; k++)
		pthread_join(r->th[k], NULL);
	if (rc == 0 && !r->err_set)
		rc = final_checks(r);
	if (r->err_set)
		rc = -1;
	for (int k = 0; k < NCHUNKS; k++)
		free(r->chunks[k].mem);
	source_close(&r->src);
	pthread_mutex_destroy(&r->mu);
	pthread_cond_destroy(&r->cv_work);
	pthread_cond_destroy(&r->cv_free);
	if (rc) {
		snprintf(err, errsize, "%s: offset %llu: %s", r->path, (unsigned long long)r->err_off, r->errmsg);
		v8_raw_free(&raw);
		return -1;
	}
	rc = v8_map(r->path, &raw, h, threads > 0 ? threads : cores(), err, errsize);
	v8_raw_free(&raw);
	return rc;
}

int v8_parse(const char *path, const char *data, size_t len, const v8_options *opt, heap *h, char *err,
	     size_t errsize)
{
	rd *r = calloc(1, sizeof *r);
	if (!r) {
		snprintf(err, errsize, "%s: out of memory", path);
		return -1;
	}
	r->path = path;
	r->src.fd = -1;
	r->src.mem = data;
	r->src.mem_len = len;
	r->src.raw_size = len;
	r->src.step = opt ? opt->step : 0;
	int rc = run(r, opt, h, err, errsize);
	free(r);
	return rc;
}

int v8_load(const char *path, heap *h, char *err, size_t errsize)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0) {
		snprintf(err, errsize, "%s: %s", path, strerror(errno));
		return -1;
	}
	struct stat st;
	rd *r = calloc(1, sizeof *r);
	if (!r || fstat(fd, &st) != 0) {
		snprintf(err, errsize, "%s: %s", path, r ? strerror(errno) : "out of memory");
		free(r);
		close(fd);
		return -1;
	}
	r->path = path;
	r->src.fd = fd;
	r->src.raw_size = S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
	int rc = run(r, NULL, h, err, errsize);
	free(r);
	close(fd);
	return rc;
}

int is_v8_snapshot(const void *data, size_t len)
{
	const unsigned char *p = data, *e = p + len;
	if (len >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF)
		p += 3;
	while (p < e && is_ws(*p))
		p++;
	return p < e && *p == '{';
}

int v8_sniff_file(const char *path)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	char raw[65536], text[4096];
	ssize_t n;
	do
		n = read(fd, raw, sizeof raw);
	while (n < 0 && errno == EINTR);
	int yes = 0;
	if (n > 0 && !is_zstd(raw, (size_t)n))
		yes = is_v8_snapshot(raw, (size_t)n);
	else if (n > 0) {
		/* decompress until the first non-blank byte shows (a block can need
		 * all of its compressed bytes first), reading at most 16 MiB */
		ZSTD_DStream *zs = ZSTD_createDStream();
		size_t total = 0;
		int decided = 0;
		if (zs)
			ZSTD_initDStream(zs);
		while (zs && !decided && n > 0 && total < (16u << 20)) {
			total += (size_t)n;
			ZSTD_inBuffer in = {raw, (size_t)n, 0};
			while (in.pos < in.size && !decided) {
				ZSTD_outBuffer out = {text, sizeof text, 0};
				size_t rc = ZSTD_decompressStream(zs, &out, &in);
				if (ZSTD_isError(rc))
					decided = 1;
				const unsigned char *p = (const unsigned char *)text, *e = p + out.pos;
				while (p < e && (is_ws(*p) || *p == 0xEF || *p == 0xBB || *p == 0xBF))
					p++;
				if (p < e) {
					yes = *p == '{';
					decided = 1;
				}
				if (rc == 0 && out.pos == 0)
					break;
			}
			do
				n = read(fd, raw, sizeof raw);
			while (n < 0 && errno == EINTR);
		}
		ZSTD_freeDStream(zs);
	}
	close(fd);
	return yes;
}
