/* snapshot.c — format detection on load, format choice on save. */
#include "snapshot/snapshot.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "base/base.h"

/* A binary snapshot read in place, mapped (no copy of its bytes, no pages
 * of our own for them: its sections are decompressed straight from the
 * file's pages).  0 or -1 as binary_parse, or 1 when PATH is no binary
 * snapshot or cannot be mapped (nothing done: the caller reads it). */
static int load_mapped_binary(const char *path, heap *h, char *err, size_t errsize)
{
	int fd = file_open_input(path, err, errsize);
	if (fd < 0)
		return -1;
	struct stat st;
	void *map = MAP_FAILED;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= 8 && (uint64_t)st.st_size <= SIZE_MAX / 2)
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return 1;
	size_t len = (size_t)st.st_size;
	/* cut short while mapped, the file gives SIGBUS: an error line */
	tempfiles_watch_mapping(path, map, len);
	int rc = 1;
	if (is_binary_snapshot(map, len))
		rc = binary_parse(path, map, len, h, err, errsize);
	tempfiles_unwatch_mapping(map);
	munmap(map, len);
	return rc;
}

int snapshot_load(const char *path, heap *h, char *err, size_t errsize)
{
	return snapshot_load_with(path, NULL, h, err, errsize);
}

int snapshot_load_with(const char *path, const load_hook *hook, heap *h, char *err, size_t errsize)
{
	filebuf fb;
	heap_init(h);
	/* a FIFO or a device is refused before the sniffing opens it (a
	 * FIFO's open would wait for a writer) */
	if (file_check_input(path, err, errsize)) {
		heap_free(h);
		return -1;
	}
	if (is_sqlite_file(path)) {
		snprintf(err, errsize, "%s: an SQLite database, not a snapshot: analyze and convert read "
			 "snapshots (.ugct, .ugcs, .heapsnapshot); a database written by analyze goes to the query "
			 "commands (refs, why, top, sql, ...)", path);
		heap_free(h);
		return -1;
	}
	if (v8_sniff_file(path)) { /* streamed: never held whole */
		v8_options o = {.hook = hook};
		int rc = v8_load_with(path, &o, h, err, errsize);
		if (rc)
			heap_free(h);
		return rc;
	}
	int rc = load_mapped_binary(path, h, err, errsize);
	if (rc <= 0) {
		if (rc)
			heap_free(h);
		return rc;
	}
	if (file_read_all(path, &fb, err, errsize)) {
		heap_free(h);
		return -1;
	}
	if (is_binary_snapshot(fb.data, fb.len))
		rc = binary_parse(path, (const unsigned char *)fb.data, fb.len, h, err, errsize);
	else
		rc = text_parse(path, fb.data, fb.len, h, err, errsize);
	filebuf_free(&fb);
	if (rc)
		heap_free(h); /* leaves it zeroed: nothing for the caller to free */
	return rc;
}

int snapshot_format_known(const char *path)
{
	return ends_with(path, ".ugcs") || ends_with(path, ".ugct") || ends_with(path, ".zst");
}

/* Compress the text form through a zstd stream into FP. */
static int write_zstd_text(const heap *h, FILE *fp, char *err, size_t errsize)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	if (!mem) {
		snprintf(err, errsize, "out of memory");
		return -1;
	}
	int rc = text_write(h, mem);
	if (fclose(mem) || rc) {
		free(text);
		snprintf(err, errsize, "out of memory writing text");
		return -1;
	}
	ZSTD_CCtx *cx = ZSTD_createCCtx();
	size_t bound = ZSTD_compressBound(len);
	void *out = malloc(bound);
	if (!cx || !out) {
		free(text);
		free(out);
		ZSTD_freeCCtx(cx);
		snprintf(err, errsize, "out of memory compressing");
		return -1;
	}
	ZSTD_CCtx_setParameter(cx, ZSTD_c_compressionLevel, 3);
	ZSTD_CCtx_setParameter(cx, ZSTD_c_checksumFlag, 1);
	ZSTD_CCtx_setParameter(cx, ZSTD_c_nbWorkers, 2);
	size_t n = ZSTD_compress2(cx, out, bound, text, len);
	rc = ZSTD_isError(n) ? -1 : 0;
	if (rc)
		snprintf(err, errsize, "compressing: %s", ZSTD_getErrorName(n));
	else if (fwrite(out, 1, n, fp) != n)
		rc = -1; /* the caller names the file and the reason */
	free(text);
	free(out);
	ZSTD_freeCCtx(cx);
	return rc;
}

int snapshot_save(const char *path, const heap *h, int force, char *err, size_t errsize)
{
	outfile o;
	if (snapshot_prepare(&o, path, h, force, err, errsize))
		return -1;
	return outfile_commit(&o, err, errsize);
}

int snapshot_prepare(outfile *out, const char *path, const heap *h, int force, char *err, size_t errsize)
{
	if (!snapshot_format_known(path)) {
		snprintf(err, errsize, "%s: unknown snapshot format (name it .ugcs, .ugct or .ugct.zst)", path);
		return -1;
	}
	outfile o;
	if (outfile_open(&o, path, force, err, errsize))
		return -1;
	int rc;
	char why[SNAP_ERR_MAX] = "";
	if (ends_with(path, ".zst"))
		rc = write_zstd_text(h, o.fp, why, sizeof why);
	else if (ends_with(path, ".ugcs"))
		rc = binary_write(h, o.fp, why, sizeof why);
	else
		rc = text_write(h, o.fp);
	if (rc == 0 && fflush(o.fp) != 0)
		rc = -1;
	if (rc || ferror(o.fp)) {
		/* a failed write (a full disk, a file-size limit) names the file
		 * and the reason; the writers' own messages get the file's name */
		if (ferror(o.fp) || !why[0])
			fileio_write_error(path, fileio_stream_errno(o.fp), err, errsize);
		else
			snprintf(err, errsize, "%s: %s", path, why);
		outfile_abort(&o);
		return -1;
	}
	*out = o;
	return 0;
}
