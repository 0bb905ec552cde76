/* binary_frame.c — the .ugcs framing: the prefix (header, section table and
 * its checksum) and one zstd frame a section.  bin_frame() is how the writer
 * produces a file; bin_unframe() takes a file apart again so the tests and
 * the fuzzer can change a column or a header field and re-frame it with
 * valid checksums, reaching the reader's column checks. */
#include "snapshot/binary_format.h"

#include "base/base.h"

#include <stdlib.h>
#include <string.h>
#include <zstd.h>

const char *const bin_section_names[BIN_NSECTIONS + 1] = {
	"?", "serial", "class", "outer", "name", "name_num", "size", "object_flags",
	"internal_flags", "traits", "ref_start", "ref_dst", "ref_prop", "ref_kind",
	"dangling", "gcrefs", "clusters", "cluster_items", "string_offsets", "string_bytes",
};

uint64_t bin_fnv1a(const void *data, uint64_t len)
{
	return fnv1a(data, (size_t)len);
}

static void put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void put64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

int bin_frame(uint32_t version, const uint32_t hdr[16], const bin_part parts[BIN_NSECTIONS + 1], FILE *fp, char *err,
	      size_t errsize)
{
	void *frames[BIN_NSECTIONS + 1] = {0};
	size_t fsize[BIN_NSECTIONS + 1] = {0};
	int rc = -1;
	ZSTD_CCtx *cx = ZSTD_createCCtx();
	if (!cx) {
		snprintf(err, errsize, "out of memory");
		goto out;
	}
	/* level 1: the references' targets, the largest section and a poorly
	 * compressible one, decode in 70% of level 3's time (0.07 s at 2M
	 * objects) for files 4% larger; a snapshot is read far more often than
	 * written */
	ZSTD_CCtx_setParameter(cx, ZSTD_c_compressionLevel, 1);
	ZSTD_CCtx_setParameter(cx, ZSTD_c_checksumFlag, 1);
	ZSTD_CCtx_setParameter(cx, ZSTD_c_nbWorkers, 2); /* ignored without MT support */
	for (int s = 1; s <= BIN_NSECTIONS; s++) {
		size_t raw = (size_t)(parts[s].count * parts[s].elem);
		static const char empty[1];
		const void *data = raw ? parts[s].data : empty;
		size_t bound = ZSTD_compressBound(raw);
		frames[s] = malloc(bound);
		if (!frames[s]) {
			snprintf(err, errsize, "out of memory compressing section %s", bin_section_names[s]);
			goto out;
		}
		fsize[s] = ZSTD_compress2(cx, frames[s], bound, data, raw);
		if (ZSTD_isError(fsize[s])) {
			snprintf(err, errsize, "compressing section %s: %s", bin_section_names[s], ZSTD_getErrorName(fsize[s]));
			goto out;
		}
	}
	unsigned char prefix[BIN_PREFIX_BYTES] = {0};
	memcpy(prefix, BIN_MAGIC, 8);
	put32(prefix + 8, version);
	put32(prefix + 12, BIN_NSECTIONS);
	for (int i = 0; i < 16; i++)
		put32(prefix + 16 + 4 * i, hdr[i]);
	uint64_t offset = BIN_PREFIX_BYTES;
	for (int s = 1; s <= BIN_NSECTIONS; s++) {
		unsigned char *e = prefix + BIN_HEADER_BYTES + 32 * (s - 1);
		put32(e, (uint32_t)s);
		put32(e + 4, parts[s].elem);
		put64(e + 8, parts[s].count);
		put64(e + 16, offset);
		put64(e + 24, fsize[s]);
		offset += fsize[s];
	}
	put64(prefix + BIN_HEADER_BYTES + BIN_TABLE_BYTES, bin_fnv1a(prefix, BIN_HEADER_BYTES + BIN_TABLE_BYTES));
	fwrite(prefix, 1, sizeof prefix, fp);
	for (int s = 1; s <= BIN_NSECTIONS; s++)
		fwrite(frames[s], 1, fsize[s], fp);
	rc = ferror(fp) ? -1 : 0;
	if (rc)
		snprintf(err, errsize, "write error");
out:
	for (int s = 0; s <= BIN_NSECTIONS; s++)
		free(frames[s]);
	ZSTD_freeCCtx(cx);
	return rc;
}

void bin_parts_free(bin_part parts[BIN_NSECTIONS + 1])
{
	for (int s = 0; s <= BIN_NSECTIONS; s++) {
		free((void *)parts[s].data);
		parts[s] = (bin_part){0};
	}
}

int bin_unframe(const unsigned char *data, size_t len, uint64_t max, uint32_t hdr[16],
		bin_part parts[BIN_NSECTIONS + 1])
{
	memset(parts, 0, sizeof(bin_part) * (BIN_NSECTIONS + 1));
	if (len < BIN_PREFIX_BYTES || memcmp(data, BIN_MAGIC, 8) != 0 || bin_get32(data + 12) != BIN_NSECTIONS)
		return -1;
	for (int i = 0; i < 16; i++)
		hdr[i] = bin_get32(data + 16 + 4 * i);
	for (int s = 1; s <= BIN_NSECTIONS; s++) {
		const unsigned char *e = data + BIN_HEADER_BYTES + 32 * (s - 1);
		uint32_t elem = bin_get32(e + 4);
		uint64_t count = bin_get64(e + 8), off = bin_get64(e + 16), csize = bin_get64(e + 24);
		if (elem == 0 || elem > 64 || count > max / elem || off > len || csize > len - off)
			goto bad;
		size_t raw = (size_t)(count * elem);
		void *buf = malloc(raw + 1);
		if (!buf)
			goto bad;
		parts[s] = (bin_part){buf, elem, count};
		if (ZSTD_getFrameContentSize(data + off, csize) != raw)
			goto bad;
		size_t n = ZSTD_decompress(buf, raw + 1, data + off, csize);
		if (ZSTD_isError(n) || n != raw)
			goto bad;
	}
	return 0;
bad:
	bin_parts_free(parts);
	return -1;
}
