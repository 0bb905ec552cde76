/* fileio.c — reading files whole (zstd-aware) and writing them atomically. */
#define _POSIX_C_SOURCE 200809L
#include "base/fileio.h"
#include "base/publish.h"
#include "base/tempfiles.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

int is_zstd(const void *data, size_t len)
{
	/* little-endian: a frame 0xFD2FB528, a skippable frame 0x184D2A5? */
	const unsigned char *p = data;
	if (len < 4)
		return 0;
	if (p[0] == 0x28 && p[1] == 0xB5 && p[2] == 0x2F && p[3] == 0xFD)
		return 1;
	return (p[0] & 0xF0) == 0x50 && p[1] == 0x2A && p[2] == 0x4D && p[3] == 0x18;
}

/* What kind of file MODE is, for the one line that refuses it. */
static const char *file_kind(mode_t mode)
{
	return S_ISFIFO(mode) ? "a FIFO" : S_ISCHR(mode) ? "a character device" : S_ISBLK(mode) ? "a block device"
	       : S_ISSOCK(mode) ? "a socket" : S_ISDIR(mode) ? "a directory" : "not a file";
}

static int regular_or_say(const char *path, const struct stat *st, char *err, size_t errsize)
{
	if (S_ISREG(st->st_mode))
		return 0;
	snprintf(err, errsize, "%s: not a regular file (%s)", path, file_kind(st->st_mode));
	return -1;
}

int file_check_input(const char *path, char *err, size_t errsize)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		snprintf(err, errsize, "%s: %s", path, strerror(errno));
		return -1;
	}
	return regular_or_say(path, &st, err, errsize);
}

int file_open_input(const char *path, char *err, size_t errsize)
{
	/* O_NONBLOCK: the open of a FIFO returns at once instead of waiting
	 * for a writer, and fstat then refuses it */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errsize, "%s: %s", path, strerror(errno));
		return -1;
	}
	struct stat st;
	int flags;
	if (fstat(fd, &st) != 0) {
		snprintf(err, errsize, "%s: %s", path, strerror(errno));
	} else if (regular_or_say(path, &st, err, errsize) == 0) {
		if ((flags = fcntl(fd, F_GETFL)) != -1 && fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) == 0)
			return fd;
		snprintf(err, errsize, "%s: %s", path, strerror(errno));
	}
	close(fd);
	return -1;
}

void fileio_write_error(const char *path, int e, char *err, size_t errsize)
{
	if (e == EFBIG)
		snprintf(err, errsize, "%s: file too large (a file-size limit)", path);
	else if (e == ENOSPC)
		snprintf(err, errsize, "%s: no space left on device", path);
	else
		snprintf(err, errsize, "%s: write failed: %s", path, strerror(e ? e : EIO));
}

int fileio_stream_errno(FILE *fp)
{
	int e = errno;
	errno = 0;
	if (fflush(fp) != 0 && errno)
		return errno;
	return e ? e : EIO;
}

int outfile_check_input(const char *out, const char *in, char *err, size_t errsize)
{
	struct stat so, si;
	if (stat(out, &so) != 0 || stat(in, &si) != 0 || so.st_dev != si.st_dev || so.st_ino != si.st_ino)
		return 0;
	snprintf(err, errsize, "%s: is the input %s itself; an output never replaces its own input (name another "
		 "output)", out, in);
	return -1;
}

int ends_with(const char *path, const char *suffix)
{
	size_t a = strlen(path), b = strlen(suffix);
	return a >= b && strcmp(path + a - b, suffix) == 0;
}

void filebuf_free(filebuf *b)
{
	free(b->data);
	memset(b, 0, sizeof *b);
}

int file_read_raw(const char *path, filebuf *out, char *err, size_t errsize)
{
	memset(out, 0, sizeof *out);
	int fd = file_open_input(path, err, errsize);
	if (fd < 0)
		return -1;
	struct stat st;
	if (fstat(fd, &st)) {
		snprintf(err, errsize, "%s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	size_t cap = (size_t)st.st_size + 1, len = 0;
	char *buf = malloc(cap);
	if (!buf) {
		snprintf(err, errsize, "%s: out of memory (%zu bytes)", path, cap);
		close(fd);
		return -1;
	}
	for (;;) {
		if (len + 1 == cap) { /* the file grew while we read it */
			char *b = realloc(buf, cap *= 2);
			if (!b) {
				free(buf);
				close(fd);
				snprintf(err, errsize, "%s: out of memory", path);
				return -1;
			}
			buf = b;
		}
		ssize_t n = read(fd, buf + len, cap - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			snprintf(err, errsize, "%s: %s", path, strerror(errno));
			free(buf);
			close(fd);
			return -1;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	out->data = buf;
	out->len = len;
	return 0;
}

/* Stream-decompress SRC (which may hold several frames).  The buffer grows
 * with the bytes actually produced, never from a frame's declared size, and
 * output over the ratio limit is refused: a decompression bomb costs at most
 * that much memory. */
static int unzstd(const char *path, const char *src, size_t srclen, filebuf *out, char *err, size_t errsize)
{
	uint64_t limit = fileio_decompress_limit(srclen);
	size_t cap = srclen * 4 + 1024;
	/* a skippable first frame declares nothing (its size is that of the bytes skipped) */
	unsigned long long hint = (unsigned char)src[0] == 0x28 ? ZSTD_getFrameContentSize(src, srclen)
								 : ZSTD_CONTENTSIZE_UNKNOWN;
	if (hint != ZSTD_CONTENTSIZE_UNKNOWN && hint != ZSTD_CONTENTSIZE_ERROR && hint < cap)
		cap = (size_t)hint + 1; /* a small honest declaration saves the slack, a large one buys nothing */
	char *buf = malloc(cap);
	ZSTD_DStream *ds = ZSTD_createDStream();
	if (!buf || !ds) {
		free(buf);
		ZSTD_freeDStream(ds);
		snprintf(err, errsize, "%s: out of memory", path);
		return -1;
	}
	ZSTD_initDStream(ds);
	ZSTD_inBuffer in = {src, srclen, 0};
	size_t len = 0, last = 0;
	for (;;) {
		if (len + 1 >= cap) {
			if (len >= limit) {
				snprintf(err, errsize,
					 "%s: offset %zu: decompresses to more than %llu bytes (%u times its size); refusing",
					 path, in.pos, (unsigned long long)limit, FILEIO_BOMB_RATIO);
				goto fail;
			}
			size_t ncap = cap * 2 > limit + 1 ? (size_t)limit + 1 : cap * 2;
			char *b = realloc(buf, ncap);
			if (!b) {
				snprintf(err, errsize, "%s: out of memory decompressing", path);
				goto fail;
			}
			buf = b;
			cap = ncap;
		}
		ZSTD_outBuffer o = {buf, cap - 1, len};
		last = ZSTD_decompressStream(ds, &o, &in);
		if (ZSTD_isError(last)) {
			snprintf(err, errsize, "%s: offset %zu: corrupt zstd data: %s", path, in.pos, ZSTD_getErrorName(last));
			goto fail;
		}
		/* a full buffer may leave output waiting after the last input, unless the frame ended */
		int waiting = o.pos == o.size && last != 0;
		len = o.pos;
		if (in.pos == in.size && !waiting)
			break;
	}
	if (last != 0) {
		snprintf(err, errsize, "%s: offset %zu: truncated zstd data", path, srclen);
		goto fail;
	}
	ZSTD_freeDStream(ds);
	buf[len] = '\0';
	out->data = buf;
	out->len = len;
	out->was_zstd = 1;
	return 0;
fail:
	free(buf);
	ZSTD_freeDStream(ds);
	return -1;
}

uint64_t fileio_decompress_limit(uint64_t compressed)
{
	uint64_t limit = compressed * FILEIO_BOMB_RATIO + FILEIO_BOMB_SLACK;
	return limit < FILEIO_MAX_DECOMPRESSED ? limit : FILEIO_MAX_DECOMPRESSED;
}

int file_read_all(const char *path, filebuf *out, char *err, size_t errsize)
{
	filebuf raw;
	if (file_read_raw(path, &raw, err, errsize))
		return -1;
	if (!is_zstd(raw.data, raw.len)) {
		*out = raw;
		return 0;
	}
	int rc = unzstd(path, raw.data, raw.len, out, err, errsize);
	filebuf_free(&raw);
	return rc;
}

int outfile_create_tmp(const char *tmp)
{
	unlink(tmp);
	return open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
}

int outfile_reserve(outfile *o, const char *path, int force, char *err, size_t errsize)
{
	memset(o, 0, sizeof *o);
	struct stat st;
	if (!force && lstat(path, &st) == 0) { /* a dangling symbolic link too (fileio.h, outfile_check) */
		snprintf(err, errsize, "%s: already exists (use --force to overwrite)", path);
		return -1;
	}
	size_t n = strlen(path) + 32;
	o->path = strdup(path);
	o->tmp = malloc(n);
	if (!o->path || !o->tmp) {
		free(o->path);
		free(o->tmp);
		snprintf(err, errsize, "out of memory");
		return -1;
	}
	snprintf(o->tmp, n, "%s" OUTFILE_TMP_INFIX "%ld", path, (long)getpid());
	if (tempfiles_add(o->tmp)) {
		snprintf(err, errsize, "%s: path too long, or too many outputs at once", path);
		free(o->path);
		free(o->tmp);
		memset(o, 0, sizeof *o);
		return -1;
	}
	int fd = outfile_create_tmp(o->tmp);
	if (fd < 0) {
		snprintf(err, errsize, "%s: %s", o->tmp, strerror(errno));
		tempfiles_forget(o->tmp);
		free(o->path);
		free(o->tmp);
		memset(o, 0, sizeof *o);
		return -1;
	}
	close(fd);
	o->force = force;
	return 0;
}

int outfile_open(outfile *o, const char *path, int force, char *err, size_t errsize)
{
	if (outfile_reserve(o, path, force, err, errsize))
		return -1;
	int fd = open(o->tmp, O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC); /* the file outfile_reserve made */
	o->fp = fd >= 0 ? fdopen(fd, "wb") : NULL;
	if (!o->fp) {
		snprintf(err, errsize, "%s: %s", o->tmp, strerror(errno));
		if (fd >= 0)
			close(fd);
		outfile_abort(o);
		return -1;
	}
	setvbuf(o->fp, NULL, _IOFBF, 1 << 20);
	return 0;
}

int outfile_commit(outfile *o, char *err, size_t errsize)
{
	return outfile_commit_all(o, 1, err, errsize);
}

void outfile_abort(outfile *o)
{
	if (o->fp)
		fclose(o->fp);
	if (o->tmp) {
		unlink(o->tmp);
		tempfiles_forget(o->tmp);
	}
	free(o->path);
	free(o->tmp);
	memset(o, 0, sizeof *o);
}

int is_sqlite_file(const char *path)
{
	char head[16] = {0}, err[8];
	int fd = file_open_input(path, err, sizeof err); /* a FIFO is no database, and never blocks here */
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, head, sizeof head);
	close(fd);
	return n == (ssize_t)sizeof head && memcmp(head, "SQLite format 3", 16) == 0;
}
