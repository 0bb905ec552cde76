/* v8_stream.c — where the V8 reader's bytes come from and who parses them:
 * the source (a file or memory, plain or zstd; a plain file mapped and read
 * in place), the ring of chunk buffers,
 * the worker threads that parse pieces of the integer arrays, and the one
 * earliest error. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/base.h"
#include "snapshot/v8_stream.h"

/* ---- errors ---- */

void v8r_error_v(rd *r, uint64_t off, const char *fmt, va_list ap)
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

int v8r_fail(rd *r, uint64_t off, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	v8r_error_v(r, off, fmt, ap);
	va_end(ap);
	return -1;
}


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
int v8r_source_open(rd *r)
{
	source *s = &r->src;
	if (s->map)
		return 0; /* v8_load saw a plain file */
	s->zin = malloc(ZIN_SIZE);
	if (!s->zin)
		return v8r_fail(r, 0, "out of memory");
	while (s->zin_len < 4) {
		ssize_t n = raw_read(s, s->zin + s->zin_len, ZIN_SIZE - s->zin_len);
		if (n < 0)
			return v8r_fail(r, 0, "%s", strerror(errno));
		if (n == 0)
			break;
		s->zin_len += (size_t)n;
	}
	if (is_zstd(s->zin, s->zin_len)) {
		s->zstd = 1;
		s->zs = ZSTD_createDStream();
		if (!s->zs)
			return v8r_fail(r, 0, "out of memory");
		ZSTD_initDStream(s->zs);
	}
	return 0;
}

void v8r_source_close(source *s)
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
			return v8r_fail(r, v8r_at(r), "read error: %s", strerror(errno));
		return n;
	}
	ZSTD_outBuffer out = {dst, cap, 0};
	while (out.pos == 0) {
		if (s->zin_pos == s->zin_len && !s->raw_eof) {
			ssize_t n = raw_read(s, s->zin, ZIN_SIZE);
			if (n < 0)
				return v8r_fail(r, v8r_at(r), "read error: %s", strerror(errno));
			s->zin_len = (size_t)n;
			s->zin_pos = 0;
			s->raw_eof = n == 0;
		}
		if (s->zin_pos == s->zin_len) {
			if (s->zlast != 0)
				return v8r_fail(r, v8r_at(r), "truncated zstd data");
			return 0;
		}
		ZSTD_inBuffer in = {s->zin, s->zin_len, s->zin_pos};
		s->zlast = ZSTD_decompressStream(s->zs, &out, &in);
		s->zin_pos = in.pos;
		if (ZSTD_isError(s->zlast))
			return v8r_fail(r, v8r_at(r), "corrupt zstd data: %s", ZSTD_getErrorName(s->zlast));
	}
	s->out_total += out.pos;
	if (s->out_total > FILEIO_MAX_DECOMPRESSED)
		return v8r_fail(r, v8r_at(r), "decompresses to more than %llu bytes; refusing", FILEIO_MAX_DECOMPRESSED);
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

void *v8r_worker(void *arg)
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
			v8r_parse_piece(r, &p, &st);
		pthread_mutex_lock(&r->mu);
		merge_stats_locked(r, &st);
		chunk_release_locked(r, p.c);
		r->busy--;
		pthread_cond_broadcast(&r->cv_free);
	}
	pthread_mutex_unlock(&r->mu);
	return NULL;
}

void v8r_dispatch(rd *r, piece p)
{
	if (p.n == 0)
		return;
	if (r->nworkers == 0) {
		pstats st = {0};
		v8r_parse_piece(r, &p, &st);
		merge_stats_locked(r, &st); /* one thread: no lock needed */
		return;
	}
	pthread_mutex_lock(&r->mu);
	while (r->qlen == QCAP)
		pthread_cond_wait(&r->cv_free, &r->mu);
	if (p.c)
		p.c->refs++;
	r->q[(r->qhead + r->qlen) % QCAP] = p;
	r->qlen++;
	pthread_cond_signal(&r->cv_work);
	pthread_mutex_unlock(&r->mu);
}

void v8r_parse_here(rd *r, const piece *p)
{
	pstats st = {0};
	v8r_parse_piece(r, p, &st);
	pthread_mutex_lock(&r->mu);
	merge_stats_locked(r, &st);
	pthread_mutex_unlock(&r->mu);
}

/* Wait until every piece is parsed. */
void v8r_drain(rd *r)
{
	if (r->nworkers == 0)
		return;
	pthread_mutex_lock(&r->mu);
	while (r->qlen || r->busy)
		pthread_cond_wait(&r->cv_free, &r->mu);
	pthread_mutex_unlock(&r->mu);
}

/* A mapped source: the window grows by a chunk over the mapping, nothing
 * copied.  As with chunk buffers, the reader waits while NCHUNKS pieces
 * are queued or being parsed, and the pages well behind the window are
 * let go (they stay cached; a piece still reading them faults them back
 * in), so that the mapping costs a ring's worth of memory, not the file. */
static ssize_t fill_mapped(rd *r)
{
	source *s = &r->src;
	pthread_mutex_lock(&r->mu);
	while (r->qlen + (size_t)r->busy >= NCHUNKS)
		pthread_cond_wait(&r->cv_free, &r->mu);
	pthread_mutex_unlock(&r->mu);
	size_t lag = (size_t)(NCHUNKS + 1) * r->chunk_size, page = s->page;
	if (r->pos > lag && (r->pos - lag) / page * page > s->map_dropped) {
		size_t upto = (r->pos - lag) / page * page;
		madvise((char *)s->map + s->map_dropped, upto - s->map_dropped, MADV_DONTNEED);
		s->map_dropped = upto;
	}
	size_t got = s->map_len - r->end < r->chunk_size ? s->map_len - r->end : r->chunk_size;
	r->buf = (char *)s->map;
	r->end += got;
	r->eof = got == 0;
	progress_at(r->end, s->map_len);
	return (ssize_t)got;
}

/* Move on to a new chunk, carrying buf[pos..end) over.  Returns the number
 * of new bytes, 0 at the end of the text, -1 on error. */
ssize_t v8r_fill(rd *r)
{
	size_t carry = r->end - r->pos;
	if (carry > CARRY_MAX)
		return v8r_fail(r, v8r_at(r), "a number longer than %d bytes", CARRY_MAX);
	if (atomic_load(&r->failed))
		return -1;
	if (r->eof)
		return 0;
	if (r->src.map)
		return fill_mapped(r);
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
	if (r->src.fd >= 0 && r->src.raw_size) { /* how far into the file (compressed or not) */
		off_t at = lseek(r->src.fd, 0, SEEK_CUR);
		progress_at(at > 0 ? (uint64_t)at : 0, r->src.raw_size);
	}
	r->base += r->pos;
	r->cur = c;
	r->buf = c->mem;
	r->pos = 0;
	r->end = carry + got;
	return (ssize_t)got;
}

