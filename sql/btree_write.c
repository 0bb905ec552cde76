/* btree_write.c — SQLite b-trees written as file-format pages (see
 * btree_write.h for the use).
 *
 * Implements these parts of "Database File Format" (sqlite.org/fileformat2):
 *   1.3  the database header: reads the page size (offset 16), the file
 *        format versions (18, 19: 1, rollback journal, only), the reserved
 *        bytes (20), the payload fractions (21-23: 64, 32, 32 only), the
 *        change counter (24), the in-header database size (28), the
 *        freelist (32, 36), the schema format (44), auto-vacuum (52, 64: off
 *        only), the text encoding (56: UTF-8 only) and version-valid-for
 *        (92); updates 24 and 92 (together), 28, 32 and 36.
 *   1.4  the lock-byte page: never handed out.
 *   1.5  the freelist: the pages reserved but left unused become trunk and
 *        leaf pages, ahead of any list SQLite left.
 *   1.6  b-tree pages: the four page types, the 8- and 12-byte page
 *        headers (no freeblocks, no fragmented bytes), the cell pointer
 *        array, the cell content area, the cell formats of table leaf,
 *        table interior, index leaf and index interior pages (cells of
 *        fewer than 4 bytes padded to 4, as SQLite counts them), and the
 *        payload thresholds X: U-35 (table leaf), ((U-12)*64/255)-23
 *        (index).  Overflow pages (1.7) are not: a larger payload is
 *        BT_UNSUPPORTED.  Pointer-map pages (1.8) are not (auto-vacuum).
 *   2.1  the record format: the header-size varint, serial types 0 (NULL),
 *        1-6 (integers, the smallest that holds the value, as SQLite
 *        chooses), 8 and 9 (the integers 0 and 1, schema format 4) and
 *        13+2N (text); big-endian integers; varints (1.6 "varint").
 * Which record a table or index holds (2.3-2.5: the rowid alias stored as
 * NULL, WITHOUT ROWID key columns first, an index's key columns then the
 * row's key) is the caller's business (store_pages.c).
 *
 * Building: entries come in key order and fill the leftmost open page of
 * each level; a full page is written at once and its divider goes to the
 * level above.  In a table b-tree the divider is the page's last rowid; in
 * an index b-tree it is an entry itself (stored once, above): the entry
 * that did not fit waits as the level's pending entry, and goes up when the
 * next one arrives.  When the input ends on a pending entry, the full page
 * gives its last cell up as the divider and the pending entry starts the
 * last page, so no page is ever empty.  The top level's open page is the
 * root; it is written over the tree's original root page at commit. */
#include "sql/btree_write.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "base/base.h"

#define PENDING_BYTE 0x40000000u
#define MAX_PAGES 1073741823u  /* SQLite's default max_page_count */
#define BATCH_BYTES (1u << 20) /* at most, pages reserved and written at once by one tree */
#define ALIGN 4096             /* of page buffers, for O_DIRECT */
#define MAX_COLUMNS 64

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static void put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static int varint_len(uint64_t v)
{
	if (v > 0x00ffffffffffffffull)
		return 9;
	int n = 1;
	while (v >>= 7)
		n++;
	return n;
}

/* Big-endian, 7 bits a byte with the high bit set on all but the last;
 * the ninth byte, if any, carries 8 bits. */
static int put_varint(uint8_t *p, uint64_t v)
{
	if (v > 0x00ffffffffffffffull) {
		p[8] = (uint8_t)v;
		v >>= 8;
		for (int k = 7; k >= 0; k--, v >>= 7)
			p[k] = (uint8_t)(0x80 | (v & 0x7f));
		return 9;
	}
	int n = varint_len(v);
	for (int k = n - 1; k >= 0; k--, v >>= 7)
		p[k] = (uint8_t)((v & 0x7f) | (k == n - 1 ? 0 : 0x80));
	return n;
}

static int write_all(int fd, const void *buf, size_t len, off_t at)
{
	const uint8_t *p = buf;
	while (len) {
		ssize_t k = pwrite(fd, p, len, at);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		p += k;
		len -= (size_t)k;
		at += k;
	}
	return 0;
}

/* ---- the file ---- */

int bt_file_open(bt_file *f, const char *path, char *err, size_t errsize)
{
	memset(f, 0, sizeof *f);
	f->fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW); /* our temporary file, never a link */
	uint8_t h[100];
	struct stat st;
	if (f->fd < 0 || pread(f->fd, h, sizeof h, 0) != (ssize_t)sizeof h || fstat(f->fd, &st)) {
		snprintf(err, errsize, "%s: %s", path, strerror(errno ? errno : EIO));
		if (f->fd >= 0)
			close(f->fd);
		return BT_ERROR;
	}
	uint32_t ps = (uint32_t)h[16] << 8 | h[17];
	if (ps == 1)
		ps = 65536;
	const char *why = NULL;
	if (memcmp(h, "SQLite format 3", 16) != 0)
		why = "not an SQLite database";
	else if (ps < 512 || ps > 65536 || (ps & (ps - 1)))
		why = "page size";
	else if (h[18] != 1 || h[19] != 1)
		why = "file format version (WAL?)";
	else if (h[21] != 64 || h[22] != 32 || h[23] != 32)
		why = "payload fractions";
	else if (ps - h[20] < 480)
		why = "reserved bytes";
	else if (get32(h + 24) != get32(h + 92) || get32(h + 28) == 0 ||
		 (uint64_t)get32(h + 28) * ps != (uint64_t)st.st_size)
		why = "database size in the header";
	else if (get32(h + 44) < 1 || get32(h + 44) > 4)
		why = "schema format";
	else if (get32(h + 52) || get32(h + 64))
		why = "auto-vacuum";
	else if (get32(h + 56) != 1)
		why = "text encoding";
	if (why) {
		snprintf(err, errsize, "%s: not written by pages: %s", path, why);
		close(f->fd);
		return BT_UNSUPPORTED;
	}
	/* O_DIRECT where the file system takes it, else the page cache */
	f->dfd = open(path, O_WRONLY | O_CLOEXEC | O_DIRECT);
	f->page_size = ps;
	f->usable = ps - h[20];
	f->format4 = get32(h + 44) == 4;
	f->orig_pages = get32(h + 28);
	f->lock_page = PENDING_BYTE / ps + 1;
	f->next = f->orig_pages + 1;
	pthread_mutex_init(&f->lock, NULL);
	return BT_OK;
}

/* Up to WANT consecutive page numbers from *FIRST; 0 when the database
 * would grow beyond SQLite's page limit. */
static uint32_t reserve(bt_file *f, uint32_t want, uint32_t *first)
{
	pthread_mutex_lock(&f->lock);
	if (f->nspare) {
		/* the pages a finished tree left: the last run of consecutive ones */
		uint32_t n = 1;
		while (n < want && n < f->nspare && f->spare[f->nspare - n - 1] + 1 == f->spare[f->nspare - n])
			n++;
		f->nspare -= n;
		*first = f->spare[f->nspare];
		assert(*first > f->orig_pages && *first != f->lock_page);
		pthread_mutex_unlock(&f->lock);
		return n;
	}
	uint32_t p = f->next, n = want;
	if (p == f->lock_page)
		p++;
	if (p < f->lock_page && f->lock_page - p < n)
		n = f->lock_page - p;
	if (p > MAX_PAGES || MAX_PAGES - p < n)
		n = 0;
	else
		f->next = p + n;
	/* new pages only, past SQLite's, and never the lock-byte page */
	assert(n == 0 || (p > f->orig_pages && (p + n <= f->lock_page || p > f->lock_page)));
	pthread_mutex_unlock(&f->lock);
	*first = p;
	return n;
}

/* ARR (N items of SIZE bytes, room for *CAP) with room for one more: ARR
 * itself, a larger copy, or NULL when out of memory (ARR unchanged). */
static void *grow(void *arr, uint32_t n, uint32_t *cap, size_t size)
{
	if (n < *cap)
		return arr;
	uint32_t c = *cap ? *cap * 2 : 16;
	void *g = realloc(arr, (size_t)c * size);
	if (g)
		*cap = c;
	return g;
}

/* One more spare page or root (under F's lock). */
static int add_spare(bt_file *f, uint32_t pgno)
{
	uint32_t *g = grow(f->spare, f->nspare, &f->spare_cap, sizeof *g);
	if (!g)
		return -1;
	f->spare = g;
	f->spare[f->nspare++] = pgno;
	return 0;
}

static int add_root(bt_file *f, uint32_t pgno, uint8_t *page)
{
	bt_root *g = grow(f->roots, f->nroots, &f->roots_cap, sizeof *g);
	if (!g)
		return -1;
	f->roots = g;
	f->roots[f->nroots++] = (bt_root){pgno, page};
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* The spare pages become freelist trunks (each listing up to the number of
 * leaves SQLite itself puts on one) ahead of the list in header H. */
static int write_freelist(bt_file *f, uint8_t *h, uint8_t *page)
{
	uint32_t per_trunk = f->usable / 4 - 8, next = get32(h + 32), total = get32(h + 36) + f->nspare;
	qsort(f->spare, f->nspare, sizeof *f->spare, cmp_u32);
	/* trunks from the end, so that each knows the next */
	uint32_t k = f->nspare;
	while (k > 0) {
		uint32_t start = k > per_trunk + 1 ? k - (per_trunk + 1) : 0;
		uint32_t trunk = f->spare[start], leaves = k - start - 1;
		assert(leaves <= per_trunk && 8 + 4 * leaves <= f->usable); /* the trunk's list fits it */
		memset(page, 0, f->page_size);
		put32(page, next);
		put32(page + 4, leaves);
		for (uint32_t j = 0; j < leaves; j++)
			put32(page + 8 + 4 * j, f->spare[start + 1 + j]);
		if (write_all(f->fd, page, f->page_size, (off_t)(trunk - 1) * f->page_size))
			return -1;
		next = trunk;
		k = start;
	}
	put32(h + 32, next);
	put32(h + 36, total);
	return 0;
}

static void free_roots(bt_file *f)
{
	for (uint32_t k = 0; k < f->nroots; k++)
		free(f->roots[k].page);
	free(f->roots);
	free(f->spare);
	pthread_mutex_destroy(&f->lock);
}

int bt_file_commit(bt_file *f, char *err, size_t errsize)
{
	uint8_t h[100];
	uint8_t *page = malloc(f->page_size);
	uint32_t pages = f->next - 1;
	assert(pages >= f->orig_pages); /* the file only grows */
	int rc = page && pread(f->fd, h, sizeof h, 0) == (ssize_t)sizeof h ? 0 : -1;
	if (rc == 0 && f->nspare)
		rc = write_freelist(f, h, page);
	for (uint32_t k = 0; k < f->nroots && rc == 0; k++)
		rc = write_all(f->fd, f->roots[k].page, f->page_size, (off_t)(f->roots[k].pgno - 1) * f->page_size);
	if (rc == 0) {
		uint32_t counter = get32(h + 24) + 1;
		put32(h + 24, counter);
		put32(h + 92, counter);
		put32(h + 28, pages);
		/* the last pages may be spare, never written: the file covers them */
		rc = ftruncate(f->fd, (off_t)pages * f->page_size) || write_all(f->fd, h, sizeof h, 0) ? -1 : 0;
	}
	if (rc && page)
		f->io_errno = errno ? errno : EIO;
	if (rc)
		snprintf(err, errsize, "writing the database pages: %s", page ? strerror(errno) : "out of memory");
	free(page);
	free_roots(f);
	if (f->dfd >= 0)
		close(f->dfd);
	if (close(f->fd) && rc == 0) {
		f->io_errno = errno ? errno : EIO;
		snprintf(err, errsize, "writing the database pages: %s", strerror(errno));
		rc = -1;
	}
	return rc;
}

void bt_file_abort(bt_file *f)
{
	if (ftruncate(f->fd, (off_t)f->orig_pages * f->page_size)) {
		/* the caller removes the file anyway */
	}
	free_roots(f);
	if (f->dfd >= 0)
		close(f->dfd);
	close(f->fd);
}

/* ---- records ---- */

/* The bytes integer I needs with its sign (1-8), and the serial type and
 * body size SQLite stores such an integer in (2.1: 5 and 6 bytes share 6,
 * 7 and 8 share 8). */
static inline int int_bytes(int64_t i)
{
	uint64_t u = i < 0 ? ~(uint64_t)i : (uint64_t)i;
	return (72 - __builtin_clzll(u | 1)) / 8; /* (its bits + a sign bit + 7) / 8 */
}
static const uint8_t type_of_bytes[9] = {0, 1, 2, 3, 4, 5, 5, 6, 6};
static const uint8_t size_of_bytes[9] = {0, 1, 2, 3, 4, 6, 6, 8, 8};

/* Serial type of integer I; its body bytes in *SIZE. */
static inline uint8_t int_type(int64_t i, int format4, uint8_t *size)
{
	if (format4 && (i == 0 || i == 1)) {
		*size = 0;
		return (uint8_t)(8 + i);
	}
	int b = int_bytes(i);
	*size = size_of_bytes[b];
	return type_of_bytes[b];
}

size_t bt_record(const bt_file *f, const row_value *v, int n, uint8_t *out, size_t cap)
{
	uint64_t type[MAX_COLUMNS];
	uint8_t size[MAX_COLUMNS];
	size_t hdr = 0, body = 0;
	if (NEVER(n > MAX_COLUMNS))
		return SIZE_MAX;
	for (int k = 0; k < n; k++) {
		size[k] = 0;
		if (v[k].type == RV_INT) {
			type[k] = int_type(v[k].i, f->format4, &size[k]);
			hdr++;
		} else if (v[k].type == RV_TEXT) {
			type[k] = 13 + 2 * (uint64_t)v[k].n;
			hdr += (size_t)varint_len(type[k]);
			body += v[k].n;
		} else {
			type[k] = 0;
			hdr++;
		}
		body += size[k];
	}
	size_t self = 1;
	while ((size_t)varint_len(hdr + self) > self)
		self++;
	hdr += self;
	if (hdr + body > cap)
		return hdr + body;
	assert(varint_len(hdr) == (int)self); /* the header's size counts its own varint */
	uint8_t *p = out + put_varint(out, hdr), *q = out + hdr;
	for (int k = 0; k < n; k++) {
		if (type[k] < 0x80)
			*p++ = (uint8_t)type[k];
		else
			p += put_varint(p, type[k]);
		if (v[k].type == RV_TEXT) {
			memcpy(q, v[k].s, v[k].n);
			q += v[k].n;
		} else {
			uint64_t u = (uint64_t)v[k].i;
			for (int j = size[k] - 1; j >= 0; j--, u >>= 8)
				q[j] = (uint8_t)u;
			q += size[k];
		}
	}
	assert(p == out + hdr && q == out + hdr + body);
	return hdr + body;
}

size_t bt_record_ints(const bt_file *f, const int64_t *v, uint32_t nulls, int n, uint8_t *out)
{
	assert(n >= 0 && n <= BT_INTS_MAX); /* so the header's size fits its one byte */
	uint8_t *p = out + 1, *q = out + 1 + n; /* the header fits one byte */
	for (int k = 0; k < n; k++) {
		uint8_t size = 0;
		*p++ = nulls >> k & 1 ? 0 : int_type(v[k], f->format4, &size);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		/* big-endian in SIZE bytes: eight written, SIZE kept (each value
		 * starts at most 8 bytes a value in, so the eight stay inside
		 * OUT's 9 * N + 1) */
		uint64_t be = size ? __builtin_bswap64((uint64_t)v[k] << (64 - 8 * size)) : 0;
		memcpy(q, &be, 8);
#else
		uint64_t u = (uint64_t)v[k];
		for (int j = size - 1; j >= 0; j--, u >>= 8)
			q[j] = (uint8_t)u;
#endif
		q += size;
	}
	out[0] = (uint8_t)(1 + n);
	return (size_t)(q - out);
}

/* ---- pages ---- */

static uint32_t header_size(int level)
{
	return level ? 12 : 8;
}

static int fail(bt_tree *t, int rc, const char *what)
{
	snprintf(t->err, t->errsize, "writing the database pages: %s", what);
	return rc;
}

/* A page buffer: a free one, or a new one (zeroed: the reserved bytes at
 * the end of a page stay zero). */
static uint8_t *new_page(bt_tree *t)
{
	if (t->nspare)
		return t->spare[--t->nspare];
	void *p = NULL;
	if (posix_memalign(&p, ALIGN, t->f->page_size))
		return NULL;
	memset(p, 0, t->f->page_size);
	return p;
}

/* Write the queued pages (consecutive) and free their buffers for reuse. */
static int flush(bt_tree *t)
{
	bt_file *f = t->f;
	if (!t->queued)
		return BT_OK;
	struct iovec iov[BT_BATCH_MAX];
	/* the queued pages are the batch's last handed out, consecutive */
	assert(t->queued <= t->batch_used && t->batch_used <= t->batch_cap && t->batch_cap <= BT_BATCH_MAX);
	for (uint32_t k = 0; k < t->queued; k++)
		iov[k] = (struct iovec){t->queue[k], f->page_size};
	uint32_t first = t->batch_first + t->batch_used - t->queued;
	size_t len = (size_t)t->queued * f->page_size;
	off_t at = (off_t)(first - 1) * f->page_size;
	int fd = __atomic_load_n(&f->dfd, __ATOMIC_RELAXED);
	ssize_t k = fd >= 0 ? pwritev(fd, iov, (int)t->queued, at) : -1;
	if (k != (ssize_t)len && fd >= 0 && (k >= 0 || errno == EINVAL)) /* not for O_DIRECT after all */
		__atomic_store_n(&f->dfd, -1, __ATOMIC_RELAXED);
	if (k != (ssize_t)len) /* through the page cache, page by page */
		for (uint32_t j = 0; j < t->queued; j++)
			if (write_all(f->fd, t->queue[j], f->page_size, at + (off_t)j * f->page_size)) {
				__atomic_store_n(&f->io_errno, errno ? errno : EIO, __ATOMIC_RELAXED);
				return fail(t, BT_ERROR, strerror(errno));
			}
	assert(t->nspare + t->queued <= BT_BATCH_MAX); /* buffers beside the levels' are a batch's at most */
	for (uint32_t j = 0; j < t->queued; j++)
		t->spare[t->nspare++] = t->queue[j];
	t->queued = 0;
	return BT_OK;
}

static int new_level(bt_tree *t)
{
	if (t->nlevels == BT_MAX_LEVELS)
		return fail(t, BT_UNSUPPORTED, "too deep");
	bt_level *lv = &t->level[t->nlevels];
	lv->page = new_page(t);
	lv->pending = malloc(t->f->page_size + 8);
	if (!lv->page || !lv->pending) {
		free(lv->page);
		free(lv->pending);
		memset(lv, 0, sizeof *lv);
		return fail(t, BT_ERROR, "out of memory");
	}
	lv->content = t->f->usable;
	t->nlevels++;
	return BT_OK;
}

static int fits(const bt_level *lv, int level, uint32_t len)
{
	uint32_t size = len < 4 ? 4 : len;
	return header_size(level) + 2 * (lv->ncell + 1) + size <= lv->content;
}

/* Room for a cell of LEN bytes (which fits) on LV's page; its address. */
static uint8_t *place(bt_level *lv, int level, uint32_t len)
{
	uint32_t size = len < 4 ? 4 : len;
	assert(fits(lv, level, len)); /* the caller checked: the cell and its pointer fit */
	lv->content -= size;
	if (size > len)
		memset(lv->page + lv->content + len, 0, size - len);
	put16(lv->page + header_size(level) + 2 * lv->ncell, lv->content);
	lv->ncell++;
	lv->last_size = size;
	lv->last_len = len;
	return lv->page + lv->content;
}

static void append(bt_level *lv, int level, const uint8_t *cell, uint32_t len)
{
	memcpy(place(lv, level, len), cell, len);
}

/* Fill in the page header (RIGHT: the right-most child of an interior
 * page) and clear the unallocated space. */
static void seal(const bt_tree *t, bt_level *lv, int level, uint32_t right)
{
	uint8_t *p = lv->page;
	p[0] = (uint8_t)(t->index ? (level ? 2 : 10) : (level ? 5 : 13));
	put16(p + 1, 0);
	put16(p + 3, lv->ncell);
	put16(p + 5, lv->content == 65536 ? 0 : lv->content);
	p[7] = 0;
	if (level)
		put32(p + 8, right);
	uint32_t end = header_size(level) + 2 * lv->ncell;
	/* no page is empty, and the cells lie between the pointers and the
	 * reserved bytes */
	assert(lv->ncell > 0 && end <= lv->content && lv->content <= t->f->usable);
	memset(p + end, 0, lv->content - end);
}

/* Write the sealed page of LV to the next page number, in *PGNO. */
static int emit(bt_tree *t, bt_level *lv, uint32_t *pgno)
{
	bt_file *f = t->f;
	int rc;
	if (t->batch_used == t->batch_cap) {
		/* 1, 2, 4 ... pages up to BATCH_BYTES: a small tree reserves little */
		uint32_t most = BATCH_BYTES / f->page_size, want = t->batch_cap ? t->batch_cap * 2 : 1;
		if (most > BT_BATCH_MAX)
			most = BT_BATCH_MAX;
		if ((rc = flush(t)))
			return rc;
		t->batch_cap = reserve(f, want < most ? want : most, &t->batch_first);
		t->batch_used = 0;
		assert(t->queued == 0 && t->batch_cap <= BT_BATCH_MAX);
		if (t->batch_cap == 0)
			return fail(t, BT_ERROR, "the database would exceed SQLite's page limit");
	}
	*pgno = t->batch_first + t->batch_used++;
	assert(*pgno > f->orig_pages && *pgno != f->lock_page && *pgno <= MAX_PAGES);
	assert(t->queued < BT_BATCH_MAX);
	t->queue[t->queued++] = lv->page;
	if (!(lv->page = new_page(t)))
		return fail(t, BT_ERROR, "out of memory");
	lv->ncell = 0;
	lv->content = f->usable;
	return BT_OK;
}

/* Add CELL (LEN bytes; above the leaves: a 4-byte child page, then the
 * key) to the open page of LEVEL. */
static int level_add(bt_tree *t, int level, const uint8_t *cell, uint32_t len)
{
	int rc;
	if (level == t->nlevels && (rc = new_level(t)))
		return rc;
	bt_level *lv = &t->level[level];
	if (lv->pending_size) {
		/* the level goes on: the page is complete and the pending entry
		 * divides it from the next (a leaf's entry gets its child here) */
		uint32_t pgno;
		seal(t, lv, level, level ? get32(lv->pending) : 0);
		if ((rc = emit(t, lv, &pgno)))
			return rc;
		put32(lv->pending, pgno);
		uint32_t up = lv->pending_size;
		lv->pending_size = 0;
		if ((rc = level_add(t, level + 1, lv->pending, up)))
			return rc;
	} else if (!fits(lv, level, len)) {
		/* stored with its child, or room for one if a leaf entry */
		assert(len + (level ? 0 : 4) <= t->f->page_size + 8);
		memcpy(lv->pending + (level ? 0 : 4), cell, len);
		lv->pending_size = len + (level ? 0 : 4);
		return BT_OK;
	}
	append(lv, level, cell, len);
	return BT_OK;
}

int bt_tree_begin(bt_tree *t, bt_file *f, int index, uint32_t root, char *err, size_t errsize)
{
	memset(t, 0, sizeof *t);
	t->f = f;
	t->index = index;
	t->root = root;
	t->err = err;
	t->errsize = errsize;
	t->max_local = index ? (f->usable - 12) * 64 / 255 - 23 : f->usable - 35;
	t->cell = malloc(f->page_size + 32);
	return t->cell ? BT_OK : fail(t, BT_ERROR, "out of memory");
}

int bt_tree_add_row(bt_tree *t, int64_t rowid, const uint8_t *record, size_t len)
{
	if (NEVER(t->entries && rowid <= t->last_rowid)) /* the callers' rows come in rowid order */
		return fail(t, BT_ERROR, "rows out of order");
	if (len > t->max_local)
		return fail(t, BT_UNSUPPORTED, "a row needs overflow pages");
	int rc;
	if (t->nlevels == 0 && (rc = new_level(t)))
		return rc;
	uint8_t *c = t->cell;
	uint32_t n = (uint32_t)put_varint(c, len);
	n += (uint32_t)put_varint(c + n, (uint64_t)rowid);
	memcpy(c + n, record, len);
	n += (uint32_t)len;
	assert(n <= t->f->page_size + 32); /* the scratch cell's room */
	bt_level *lv = &t->level[0];
	if (!fits(lv, 0, n)) {
		/* a full leaf goes up with its last rowid as the divider */
		uint8_t up[13];
		uint32_t pgno;
		seal(t, lv, 0, 0);
		if ((rc = emit(t, lv, &pgno)))
			return rc;
		put32(up, pgno);
		if ((rc = level_add(t, 1, up, 4 + (uint32_t)put_varint(up + 4, (uint64_t)t->last_rowid))))
			return rc;
	}
	append(lv, 0, c, n);
	t->last_rowid = rowid;
	t->entries++;
	return BT_OK;
}

int bt_tree_add_key(bt_tree *t, const uint8_t *record, size_t len)
{
	if (len > t->max_local)
		return fail(t, BT_UNSUPPORTED, "an index entry needs overflow pages");
	uint32_t n = (uint32_t)put_varint(t->cell, len);
	memcpy(t->cell + n, record, len);
	t->entries++;
	return level_add(t, 0, t->cell, n + (uint32_t)len);
}

int bt_tree_add_ints(bt_tree *t, const int64_t *v, uint32_t nulls, int n)
{
	/* the cell: the record's length (one byte: under 128) and the record,
	 * encoded in the scratch cell (bt_record_ints writes past its end) */
	uint8_t *cell = t->cell;
	uint32_t len = (uint32_t)bt_record_ints(t->f, v, nulls, n, cell + 1);
	int rc;
	if (len > t->max_local)
		return fail(t, BT_UNSUPPORTED, "an index entry needs overflow pages");
	if (t->nlevels == 0 && (rc = new_level(t)))
		return rc;
	t->entries++;
	assert(len < 0x80); /* the payload size is a one-byte varint */
	cell[0] = (uint8_t)len;
	bt_level *lv = &t->level[0];
	if (!lv->pending_size && fits(lv, 0, 1 + len)) {
		memcpy(place(lv, 0, 1 + len), cell, 1 + len);
		return BT_OK;
	}
	return level_add(t, 0, cell, 1 + len);
}

/* Close LEVEL, whose last child (above the leaves) is CHILD, and the levels
 * above it; the top one is the root. */
static int level_finish(bt_tree *t, int level, uint32_t child)
{
	int rc;
	bt_level *lv = &t->level[level];
	if (lv->pending_size) {
		/* nothing follows the pending entry: the full page's last cell
		 * becomes its divider, and the pending entry starts the last page */
		uint8_t *up = t->cell, *last = lv->page + lv->content;
		uint32_t len = lv->last_len, right = level ? get32(last) : 0, pgno;
		memset(up, 0, 4);
		memcpy(up + (level ? 0 : 4), last, len);
		lv->content += lv->last_size;
		lv->ncell--;
		seal(t, lv, level, right);
		if ((rc = emit(t, lv, &pgno)))
			return rc;
		put32(up, pgno);
		if ((rc = level_add(t, level + 1, up, len + (level ? 0 : 4))))
			return rc;
		append(lv, level, lv->pending + (level ? 0 : 4), lv->pending_size - (level ? 0 : 4));
		lv->pending_size = 0;
	}
	seal(t, lv, level, child);
	if (level == t->nlevels - 1) {
		bt_file *f = t->f;
		pthread_mutex_lock(&f->lock);
		rc = add_root(f, t->root, lv->page);
		pthread_mutex_unlock(&f->lock);
		if (rc)
			return fail(t, BT_ERROR, "out of memory");
		lv->page = NULL; /* the file's now */
		return BT_OK;
	}
	uint32_t pgno;
	return (rc = emit(t, lv, &pgno)) ? rc : level_finish(t, level + 1, pgno);
}

int bt_tree_finish(bt_tree *t)
{
	int rc = t->nlevels ? level_finish(t, 0, 0) : BT_OK; /* no entries: the empty root stays */
	if (rc == BT_OK)
		rc = flush(t);
	bt_file *f = t->f;
	pthread_mutex_lock(&f->lock);
	if (f->next == t->batch_first + t->batch_cap) /* the last reserved: given back */
		f->next = t->batch_first + t->batch_used;
	while (rc == BT_OK && t->batch_used < t->batch_cap && t->batch_first + t->batch_used < f->next) {
		uint32_t pgno = t->batch_first + t->batch_used++;
		if (add_spare(f, pgno))
			rc = fail(t, BT_ERROR, "out of memory");
	}
	pthread_mutex_unlock(&f->lock);
	return rc;
}

void bt_tree_free(bt_tree *t)
{
	for (int k = 0; k < t->nlevels; k++) {
		free(t->level[k].page);
		free(t->level[k].pending);
	}
	for (uint32_t k = 0; k < t->queued; k++)
		free(t->queue[k]);
	for (uint32_t k = 0; k < t->nspare; k++)
		free(t->spare[k]);
	free(t->cell);
	memset(t, 0, sizeof *t);
}
