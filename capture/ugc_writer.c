/* ugc_writer.c — the streaming .ugct writer behind ugc_capture.h.
 *
 * Records are formatted into one fixed buffer; a full buffer goes to the
 * file, through a zstd stream when compressing.  The only memory that grows
 * is the bitmap of object indexes seen (one bit per slot, to refuse a
 * duplicate INDEX).  Standard C file I/O only, so an engine module on any
 * platform compiles it; on Windows the UTF-8 paths are opened, renamed and
 * removed through the wide-character calls (the narrow ones take the ANSI
 * code page). */
#include "ugc_capture.h"
#include "ugc_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef UGC_CAPTURE_NO_ZSTD
#include <zstd.h>
#endif

#define BUF_SIZE (256u * 1024u)

/* Header records, as bits of ugc_writer.headers. */
enum { H_ENGINE = 1, H_MODE = 2, H_FIRST = 4, H_LABEL = 8, H_ELIM = 16 };

struct ugc_writer {
	ugc_options opt;
	FILE *fp;
	char *path, *tmp;
	int sticky;          /* UGC_EIO or UGC_ENOMEM once I/O or memory failed */
	int records;         /* an o/r/g/c record was written: no more headers */
	unsigned headers;    /* H_* given so far */
	char msg[512];       /* the last failed call's message */
	char *buf;           /* text not yet written: buf[0 .. len) */
	size_t len;
	unsigned char *seen; /* bit i: object INDEX i was written */
	size_t seen_bytes;
#ifndef UGC_CAPTURE_NO_ZSTD
	ZSTD_CStream *zs;
	char *zbuf;
	size_t zcap;
#endif
	ugc_stats st;
};

/* ---- memory through the caller's hooks ---- */

static void *mem_alloc(const ugc_options *o, size_t n)
{
	return o->alloc ? o->alloc(o->user, n) : malloc(n);
}

static void mem_free(const ugc_options *o, void *p)
{
	if (!p)
		return;
	if (o->free)
		o->free(o->user, p);
	else
		free(p);
}

static char *mem_strdup(const ugc_options *o, const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	char *d = mem_alloc(o, a + b + 1);
	if (d) {
		memcpy(d, s, a);
		memcpy(d + a, suffix, b + 1);
	}
	return d;
}

/* ---- errors ---- */

static int fail(ugc_writer *w, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(w->msg, sizeof w->msg, fmt, ap);
	va_end(ap);
	if (code == UGC_EIO || code == UGC_ENOMEM)
		w->sticky = code;
	return code;
}

/* Every call starts here: the sticky failure, if any. */
static int broken(ugc_writer *w)
{
	return w->sticky;
}

/* ---- output ---- */

static int write_file(ugc_writer *w, const void *p, size_t n)
{
	if (n && fwrite(p, 1, n, w->fp) != n)
		return fail(w, UGC_EIO, "%s: write failed", w->tmp);
	w->st.file_bytes += n;
	return UGC_OK;
}

#ifndef UGC_CAPTURE_NO_ZSTD
/* Feed IN to the zstd stream with directive END, writing what comes out. */
static int zstd_feed(ugc_writer *w, const void *p, size_t n, ZSTD_EndDirective end)
{
	ZSTD_inBuffer in = {p, n, 0};
	for (;;) {
		ZSTD_outBuffer out = {w->zbuf, w->zcap, 0};
		size_t left = ZSTD_compressStream2(w->zs, &out, &in, end);
		if (ZSTD_isError(left))
			return fail(w, UGC_EIO, "%s: zstd: %s", w->tmp, ZSTD_getErrorName(left));
		if (write_file(w, w->zbuf, out.pos))
			return w->sticky;
		if (end == ZSTD_e_end ? left == 0 : in.pos == in.size)
			return UGC_OK;
	}
}
#endif

static int flush(ugc_writer *w)
{
	int rc;
#ifndef UGC_CAPTURE_NO_ZSTD
	if (w->zs)
		rc = zstd_feed(w, w->buf, w->len, ZSTD_e_continue);
	else
#endif
		rc = write_file(w, w->buf, w->len);
	w->len = 0;
	return rc;
}

/* Make room for N more bytes in the buffer (N <= BUF_SIZE). */
static int room(ugc_writer *w, size_t n)
{
	return w->len + n > BUF_SIZE ? flush(w) : UGC_OK;
}

static int put(ugc_writer *w, const char *s, size_t n)
{
	w->st.text_bytes += n;
	while (n) {
		if (w->len == BUF_SIZE && flush(w))
			return w->sticky;
		size_t k = BUF_SIZE - w->len < n ? BUF_SIZE - w->len : n;
		memcpy(w->buf + w->len, s, k);
		w->len += k;
		s += k;
		n -= k;
	}
	return UGC_OK;
}

static int put_str(ugc_writer *w, const char *s)
{
	return put(w, s, strlen(s));
}

/* A space (when SEP) then the decimal V. */
static int put_num(ugc_writer *w, char sep, uint64_t v)
{
	char b[24], *e = b + sizeof b, *p = e;
	do
		*--p = (char)('0' + v % 10);
	while (v /= 10);
	if (sep)
		*--p = sep;
	return put(w, p, (size_t)(e - p));
}

/* A space then S (LEN bytes) escaped. */
static int put_field(ugc_writer *w, const char *s, size_t len)
{
	size_t need = 3 * len + 2;
	if (need <= BUF_SIZE) {
		if (room(w, need))
			return w->sticky;
		w->buf[w->len] = ' ';
		size_t n = ugc_escape(s, len, w->buf + w->len + 1) + 1;
		w->len += n;
		w->st.text_bytes += n;
		return UGC_OK;
	}
	char *tmp = mem_alloc(&w->opt, need);
	if (!tmp)
		return fail(w, UGC_ENOMEM, "out of memory (%zu bytes)", need);
	tmp[0] = ' ';
	int rc = put(w, tmp, ugc_escape(s, len, tmp + 1) + 1);
	mem_free(&w->opt, tmp);
	return rc;
}

/* ---- argument checks ---- */

static int bad_index(int64_t v)
{
	return v < 0 || v > UGC_INDEX_MAX;
}

/* Length of NAME as written: cut to MAX, or UGC_ETOOLONG when strict. */
static int name_len(ugc_writer *w, const char *what, const char *s, size_t max, size_t *out)
{
	size_t len = strlen(s);
	if (len > max) {
		if (w->opt.strict_lengths)
			return fail(w, UGC_ETOOLONG, "%s of %zu bytes is longer than the format's %zu", what, len, max);
		len = ugc_utf8_cut(s, len, max);
		w->st.names_cut++;
	}
	*out = len;
	return UGC_OK;
}

/* ---- files by UTF-8 path ---- */

#ifdef _WIN32
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>

/* PATH (UTF-8) as a wide string in memory from OPT's hooks, or NULL. */
static wchar_t *wide_path(const ugc_options *opt, const char *path)
{
	int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, path, -1, NULL, 0);
	wchar_t *w = n > 0 ? mem_alloc(opt, (size_t)n * sizeof *w) : NULL;
	if (w && MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, path, -1, w, n) != n) {
		mem_free(opt, w);
		w = NULL;
	}
	return w;
}

static FILE *file_open(const ugc_options *opt, const char *path, const char *mode)
{
	wchar_t wmode[4] = {0};
	for (int i = 0; i < 3 && mode[i]; i++)
		wmode[i] = (wchar_t)mode[i];
	wchar_t *w = wide_path(opt, path);
	FILE *f = w ? _wfopen(w, wmode) : NULL;
	mem_free(opt, w);
	return f;
}

static int file_remove(const ugc_options *opt, const char *path)
{
	wchar_t *w = wide_path(opt, path);
	int rc = w ? _wremove(w) : -1;
	mem_free(opt, w);
	return rc;
}

static int file_rename(const ugc_options *opt, const char *from, const char *to)
{
	wchar_t *wf = wide_path(opt, from), *wt = wide_path(opt, to);
	int rc = wf && wt ? _wrename(wf, wt) : -1;
	mem_free(opt, wf);
	mem_free(opt, wt);
	return rc;
}
#else
static FILE *file_open(const ugc_options *opt, const char *path, const char *mode)
{
	(void)opt;
	return fopen(path, mode);
}

static int file_remove(const ugc_options *opt, const char *path)
{
	(void)opt;
	return remove(path);
}

static int file_rename(const ugc_options *opt, const char *from, const char *to)
{
	(void)opt;
	return rename(from, to);
}
#endif

/* ---- open ---- */

int ugc_writer_open(ugc_writer **out, const char *path, const ugc_options *opt, char *err, size_t errsize)
{
	static const ugc_options defaults = UGC_OPTIONS_INIT;
	ugc_writer *w = NULL;
	int rc;
	if (out)
		*out = NULL;
	if (!opt)
		opt = &defaults;
	if (!out || !path || !*path || (!opt->alloc != !opt->free)) {
		rc = UGC_EINVAL;
		if (err && errsize)
			snprintf(err, errsize, "ugc_writer_open: %s",
				 !out || !path || !*path ? "no writer or no path given" : "give both alloc and free hooks, or neither");
		return rc;
	}
	if (opt->compress < 0 || opt->compress > 22) {
		if (err && errsize)
			snprintf(err, errsize, "%s: compression level %d is not 0 (none) or 1..22", path, opt->compress);
		return UGC_EINVAL;
	}
#ifdef UGC_CAPTURE_NO_ZSTD
	if (opt->compress) {
		if (err && errsize)
			snprintf(err, errsize, "%s: this build of the capture library has no zstd; write plain text", path);
		return UGC_ENOZSTD;
	}
#endif
	if (!opt->overwrite) {
		FILE *f = file_open(opt, path, "rb");
		if (f) {
			fclose(f);
			if (err && errsize)
				snprintf(err, errsize, "%s: already exists (set overwrite to replace it)", path);
			return UGC_EEXIST;
		}
	}
	w = mem_alloc(opt, sizeof *w);
	if (!w)
		goto nomem;
	memset(w, 0, sizeof *w);
	w->opt = *opt;
	w->path = mem_strdup(opt, path, "");
	w->tmp = mem_strdup(opt, path, ".tmp");
	w->buf = mem_alloc(opt, BUF_SIZE);
	if (!w->path || !w->tmp || !w->buf)
		goto nomem;
#ifndef UGC_CAPTURE_NO_ZSTD
	if (opt->compress) {
		w->zcap = ZSTD_CStreamOutSize();
		w->zbuf = mem_alloc(opt, w->zcap);
		w->zs = ZSTD_createCStream();
		if (!w->zbuf || !w->zs)
			goto nomem;
		ZSTD_CCtx_setParameter(w->zs, ZSTD_c_compressionLevel, opt->compress);
	}
#endif
	w->fp = file_open(opt, w->tmp, "wb");
	if (!w->fp) {
		if (err && errsize)
			snprintf(err, errsize, "%s: cannot create the file", w->tmp);
		ugc_writer_abort(w);
		return UGC_EIO;
	}
	if (put_str(w, "ugc-text 1\n")) { /* cannot fail: the buffer is empty */
		ugc_writer_abort(w);
		return UGC_EIO;
	}
	*out = w;
	return UGC_OK;
nomem:
	if (err && errsize)
		snprintf(err, errsize, "%s: out of memory opening the writer", path);
	if (w)
		ugc_writer_abort(w);
	return UGC_ENOMEM;
}

/* ---- header ---- */

static int header(ugc_writer *w, unsigned bit, const char *rec)
{
	if (!w)
		return UGC_EINVAL;
	if (broken(w))
		return w->sticky;
	if (w->records)
		return fail(w, UGC_EORDER, "%s: a header record must come before the first record", rec);
	if (w->headers & bit)
		return fail(w, UGC_EORDER, "%s: given twice", rec);
	w->headers |= bit;
	return UGC_OK;
}

static int header_text(ugc_writer *w, unsigned bit, const char *rec, const char *text)
{
	if (w && !text)
		return fail(w, UGC_EINVAL, "%s: no text given", rec);
	int rc = header(w, bit, rec);
	if (rc)
		return rc;
	if (put_str(w, rec) || put_field(w, text, strlen(text)) || put(w, "\n", 1))
		return w->sticky;
	return UGC_OK;
}

int ugc_writer_engine(ugc_writer *w, const char *text)
{
	return header_text(w, H_ENGINE, "engine", text);
}

int ugc_writer_label(ugc_writer *w, const char *text)
{
	return header_text(w, H_LABEL, "label", text);
}

int ugc_writer_mode(ugc_writer *w, int editor)
{
	int rc = header(w, H_MODE, "mode");
	if (rc)
		return rc;
	return put_str(w, editor ? "mode editor\n" : "mode game\n");
}

int ugc_writer_garbage_elimination(ugc_writer *w, int on)
{
	int rc = header(w, H_ELIM, "garbage-elimination");
	if (rc)
		return rc;
	return put_str(w, on ? "garbage-elimination on\n" : "garbage-elimination off\n");
}

int ugc_writer_first_gc_index(ugc_writer *w, int32_t n)
{
	if (w && n < 0)
		return fail(w, UGC_EINVAL, "first-gc-index: %ld is negative", (long)n);
	int rc = header(w, H_FIRST, "first-gc-index");
	if (rc)
		return rc;
	if (put_str(w, "first-gc-index") || put_num(w, ' ', (uint64_t)n) || put(w, "\n", 1))
		return w->sticky;
	return UGC_OK;
}

/* ---- records ---- */

/* Mark INDEX seen; UGC_EDUP when it was. */
static int mark_seen(ugc_writer *w, int32_t index)
{
	size_t byte = (size_t)index >> 3;
	if (byte >= w->seen_bytes) {
		size_t n = w->seen_bytes ? w->seen_bytes : 4096;
		while (n <= byte)
			n *= 2;
		unsigned char *s = mem_alloc(&w->opt, n);
		if (!s)
			return fail(w, UGC_ENOMEM, "out of memory (object index bitmap of %zu bytes)", n);
		if (w->seen_bytes)
			memcpy(s, w->seen, w->seen_bytes);
		memset(s + w->seen_bytes, 0, n - w->seen_bytes);
		mem_free(&w->opt, w->seen);
		w->seen = s;
		w->seen_bytes = n;
	}
	unsigned char bit = (unsigned char)(1u << (index & 7));
	if (w->seen[byte] & bit)
		return fail(w, UGC_EDUP, "o: INDEX %ld written twice", (long)index);
	w->seen[byte] |= bit;
	return UGC_OK;
}

int ugc_writer_object(ugc_writer *w, const ugc_object *o)
{
	if (!w)
		return UGC_EINVAL;
	if (broken(w))
		return w->sticky;
	if (!o || !o->name || !*o->name)
		return fail(w, UGC_EINVAL, "o: no object or no name given");
	if (bad_index(o->index) || bad_index(o->class_index) || (o->outer_index != UGC_NONE && bad_index(o->outer_index)))
		return fail(w, UGC_EINVAL, "o: INDEX %ld, CLASS %ld or OUTER %ld out of range (0..%d, OUTER also UGC_NONE)",
			    (long)o->index, (long)o->class_index, (long)o->outer_index, UGC_INDEX_MAX);
	size_t nl;
	int rc = name_len(w, "o: NAME", o->name, UGC_NAME_MAX, &nl);
	if (rc || (rc = mark_seen(w, o->index)))
		return rc;
	uint64_t size = o->size;
	if (size > UINT32_MAX) {
		size = UINT32_MAX;
		w->st.sizes_clamped++;
	}
	char flags[UGC_FLAGS_MAX];
	size_t fl = ugc_flags_format(flags, o->object_flags, o->internal_flags, o->traits);
	w->records = 1;
	if (put(w, "o", 1) || put_num(w, ' ', (uint64_t)o->index) || put_num(w, ' ', o->serial) ||
	    put_num(w, ' ', (uint64_t)o->class_index) ||
	    (o->outer_index == UGC_NONE ? put(w, " -", 2) : put_num(w, ' ', (uint64_t)o->outer_index)) ||
	    put_field(w, o->name, nl) || put_num(w, ' ', size) || put(w, " ", 1) || put(w, flags, fl) ||
	    put(w, "\n", 1))
		return w->sticky;
	w->st.objects++;
	return UGC_OK;
}

/* The optional trailing PROPERTY of "r" and "g" records, and the newline. */
static int put_property(ugc_writer *w, const char *property, size_t len)
{
	if (len && put_field(w, property, len))
		return w->sticky;
	return put(w, "\n", 1);
}

int ugc_writer_ref(ugc_writer *w, int32_t from, int32_t to, ugc_ref_kind kind, const char *property)
{
	static const char *const kinds[] = {"strong", "aro", "immutable", "weak", "soft"};
	if (!w)
		return UGC_EINVAL;
	if (broken(w))
		return w->sticky;
	if (bad_index(from) || bad_index(to))
		return fail(w, UGC_EINVAL, "r: FROM %ld or TO %ld out of range (0..%d)", (long)from, (long)to, UGC_INDEX_MAX);
	if ((int)kind < 0 || (int)kind > UGC_REF_SOFT)
		return fail(w, UGC_EINVAL, "r: unknown kind %d", (int)kind);
	size_t pl = 0;
	int rc;
	if (property && (rc = name_len(w, "r: PROPERTY", property, UGC_PROPERTY_MAX, &pl)))
		return rc;
	w->records = 1;
	if (put(w, "r", 1) || put_num(w, ' ', (uint64_t)from) || put_num(w, ' ', (uint64_t)to) || put(w, " ", 1) ||
	    put_str(w, kinds[kind]) || put_property(w, property, pl))
		return w->sticky;
	w->st.refs++;
	return UGC_OK;
}

int ugc_writer_gcref(ugc_writer *w, const char *referencer, int32_t to, const char *property)
{
	if (!w)
		return UGC_EINVAL;
	if (broken(w))
		return w->sticky;
	if (!referencer || !*referencer)
		return fail(w, UGC_EINVAL, "g: no referencer name given");
	if (bad_index(to))
		return fail(w, UGC_EINVAL, "g: TO %ld out of range (0..%d)", (long)to, UGC_INDEX_MAX);
	size_t nl, pl = 0;
	int rc = name_len(w, "g: NAME", referencer, UGC_PROPERTY_MAX, &nl);
	if (rc || (property && (rc = name_len(w, "g: PROPERTY", property, UGC_PROPERTY_MAX, &pl))))
		return rc;
	w->records = 1;
	if (put(w, "g", 1) || put_field(w, referencer, nl) || put_num(w, ' ', (uint64_t)to) ||
	    put_property(w, property, pl))
		return w->sticky;
	w->st.gcrefs++;
	return UGC_OK;
}

/* Check a cluster list: entries above UGC_INDEX_MAX are refused. */
static int check_list(ugc_writer *w, const char *what, const int32_t *v, size_t n)
{
	if (n && !v)
		return fail(w, UGC_EINVAL, "c: %s has %zu entries but no array", what, n);
	for (size_t i = 0; i < n; i++)
		if (v[i] > UGC_INDEX_MAX)
			return fail(w, UGC_EINVAL, "c: %s entry %zu (%ld) out of range", what, i, (long)v[i]);
	return UGC_OK;
}

/* A space, then the list's non-negative entries joined by commas, or "-". */
static int put_list(ugc_writer *w, const int32_t *v, size_t n)
{
	char sep = ' ';
	for (size_t i = 0; i < n; i++) {
		if (v[i] < 0) {
			w->st.null_entries++;
			continue;
		}
		if (put_num(w, sep, (uint64_t)v[i]))
			return w->sticky;
		sep = ',';
	}
	return sep == ' ' ? put(w, " -", 2) : UGC_OK;
}

int ugc_writer_cluster(ugc_writer *w, int32_t root, const int32_t *members, size_t n_members,
		       const int32_t *mutables, size_t n_mutables, const int32_t *clusters, size_t n_clusters)
{
	if (!w)
		return UGC_EINVAL;
	if (broken(w))
		return w->sticky;
	if (bad_index(root))
		return fail(w, UGC_EINVAL, "c: ROOT %ld out of range (0..%d)", (long)root, UGC_INDEX_MAX);
	int rc;
	if ((rc = check_list(w, "MEMBERS", members, n_members)) || (rc = check_list(w, "MUTABLE", mutables, n_mutables)) ||
	    (rc = check_list(w, "CLUSTERS", clusters, n_clusters)))
		return rc;
	w->records = 1;
	if (put(w, "c", 1) || put_num(w, ' ', (uint64_t)root) || put_list(w, members, n_members) ||
	    put_list(w, mutables, n_mutables) || put_list(w, clusters, n_clusters) || put(w, "\n", 1))
		return w->sticky;
	w->st.clusters++;
	return UGC_OK;
}

/* ---- end ---- */

/* The end record, always last: "end O R G C", the counts of the o, r, g and
 * c records, so a reader can tell a whole file from one cut or spliced. */
static int put_end_record(ugc_writer *w)
{
	if (put_str(w, "end") || put_num(w, ' ', w->st.objects) || put_num(w, ' ', w->st.refs) ||
	    put_num(w, ' ', w->st.gcrefs) || put_num(w, ' ', w->st.clusters) || put(w, "\n", 1))
		return w->sticky;
	return UGC_OK;
}

const char *ugc_writer_error(const ugc_writer *w)
{
	return w ? w->msg : "no writer";
}

void ugc_writer_stats(const ugc_writer *w, ugc_stats *st)
{
	if (w && st)
		*st = w->st;
}

static void release(ugc_writer *w)
{
	const ugc_options o = w->opt;
#ifndef UGC_CAPTURE_NO_ZSTD
	ZSTD_freeCStream(w->zs);
	mem_free(&o, w->zbuf);
#endif
	mem_free(&o, w->seen);
	mem_free(&o, w->buf);
	mem_free(&o, w->path);
	mem_free(&o, w->tmp);
	mem_free(&o, w);
}

void ugc_writer_abort(ugc_writer *w)
{
	if (!w)
		return;
	if (w->fp) {
		fclose(w->fp);
		file_remove(&w->opt, w->tmp);
	}
	release(w);
}

int ugc_writer_close(ugc_writer *w, ugc_stats *stats, char *err, size_t errsize)
{
	if (!w) {
		if (err && errsize)
			snprintf(err, errsize, "ugc_writer_close: no writer");
		return UGC_EINVAL;
	}
	int rc = w->sticky;
	if (!rc && !put_end_record(w) && !flush(w)) {
#ifndef UGC_CAPTURE_NO_ZSTD
		if (w->zs)
			zstd_feed(w, NULL, 0, ZSTD_e_end);
#endif
	}
	rc = w->sticky;
	FILE *fp = w->fp;
	w->fp = NULL;
	if (fclose(fp) != 0 && !rc)
		rc = fail(w, UGC_EIO, "%s: write failed", w->tmp);
	if (!rc && file_rename(&w->opt, w->tmp, w->path) != 0) {
		/* some systems do not rename over an existing file */
		if (!(w->opt.overwrite && file_remove(&w->opt, w->path) == 0 && file_rename(&w->opt, w->tmp, w->path) == 0))
			rc = fail(w, UGC_EIO, "%s: cannot rename to %s", w->tmp, w->path);
	}
	if (rc) {
		file_remove(&w->opt, w->tmp);
		if (err && errsize)
			snprintf(err, errsize, "%s", w->msg);
	}
	if (stats)
		*stats = w->st;
	release(w);
	return rc;
}
