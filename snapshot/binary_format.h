/* binary_format.h — the .ugcs layout shared by the reader and the writer,
 * and its framing (snapshot/binary_frame.c).
 * ugc-snapshot(5) §2 documents it byte by byte; keep the two in step.
 *
 *   offset  size  field
 *   0       8     magic 89 'U' 'G' 'C' 'S' 0D 0A 1A
 *   8       4     version: 1; 2 when a name number is "@N" (NAME_NUM_AT);
 *                 3 when the options word is not zero or an object is in an
 *                 async loading phase (in 1 and 2, internal flag bit 3 is
 *                 "AsyncLoading", both phases; from 3 it is phase 1 alone
 *                 and bit 11 is phase 2)
 *   12      4     section count (BIN_NSECTIONS)
 *   16      64    struct bin_header (16 little-endian u32/i32 fields)
 *   80      32*N  section table: struct bin_section per section
 *   80+32N  8     FNV-1a 64 checksum of bytes 0 .. 80+32N-1
 *   ...           section data: each one zstd frame (content size and
 *                 XXH64 content checksum present), at the offsets the
 *                 table gives
 * All integers are little-endian. */
#ifndef UGC_BINARY_FORMAT_H
#define UGC_BINARY_FORMAT_H

#include <stdint.h>

#define BIN_MAGIC "\x89UGCS\r\n\x1a"
#define BIN_VERSION 3
#define BIN_VERSION_OLDEST 1
/* the first version with the options word and both phase bits */
#define BIN_VERSION_OPTIONS 3

/* Bits of the options word (zero before version 3). */
enum {
	BIN_OPT_NO_GARBAGE_ELIMINATION = 1 << 0, /* "garbage-elimination off" */
	BIN_OPT_ALL = BIN_OPT_NO_GARBAGE_ELIMINATION,
};

struct bin_header {
	uint32_t mode;          /* 0 game, 1 editor */
	int32_t first_gc_index;
	uint32_t slots, objects, nrefs, ndangling, ngcrefs, nclusters;
	uint32_t ncluster_items, nstrings, string_bytes;
	uint32_t engine, label; /* string ids, 0 = none */
	uint32_t options;       /* BIN_OPT_* (version 3; zero before) */
	uint32_t reserved[2];   /* zero */
};

struct bin_section {
	uint32_t id;        /* enum bin_section_id */
	uint32_t elem_size; /* bytes an element */
	uint64_t count;     /* elements */
	uint64_t offset;    /* file offset of the zstd frame */
	uint64_t csize;     /* compressed bytes */
};

/* The sections, in file order.  Element counts follow from the header. */
enum bin_section_id {
	SEC_SERIAL = 1, SEC_CLASS, SEC_OUTER, SEC_NAME, SEC_NAME_NUM, SEC_SIZE,
	SEC_OFLAGS, SEC_IFLAGS, SEC_TRAITS, SEC_REF_START, SEC_REF_DST,
	SEC_REF_PROP, SEC_REF_KIND, SEC_DANGLING, SEC_GCREFS, SEC_CLUSTERS,
	SEC_CLUSTER_ITEMS, SEC_STR_OFFSETS, SEC_STR_BYTES,
	BIN_NSECTIONS = SEC_STR_BYTES
};

#define BIN_HEADER_BYTES 80
#define BIN_TABLE_BYTES (32 * BIN_NSECTIONS)
#define BIN_PREFIX_BYTES (BIN_HEADER_BYTES + BIN_TABLE_BYTES + 8)

extern const char *const bin_section_names[BIN_NSECTIONS + 1];

uint64_t bin_fnv1a(const void *data, uint64_t len);

/* Little-endian fields. */
static inline uint32_t bin_get32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t bin_get64(const unsigned char *p)
{
	return (uint64_t)bin_get32(p) | (uint64_t)bin_get32(p + 4) << 32;
}

#include <stdio.h>

/* One section's content before compression: COUNT elements of ELEM bytes. */
typedef struct bin_part {
	const void *data;
	uint32_t elem;
	uint64_t count;
} bin_part;

/* Write a .ugcs of format VERSION to FP: the prefix with the 16 header words HDR and the table
 * for PARTS[1..BIN_NSECTIONS], then each part as one zstd frame with its
 * content size and checksum.  0, or -1 with a message in ERR. */
int bin_frame(uint32_t version, const uint32_t hdr[16], const bin_part parts[BIN_NSECTIONS + 1], FILE *fp, char *err,
	      size_t errsize);
/* Take a .ugcs apart again (for the tests and the fuzzer): the header words
 * and each section decompressed into malloc'd PARTS (free with
 * bin_parts_free).  Only the framing is checked; a section over MAX bytes
 * is refused.  0, or -1 (nothing to free). */
int bin_unframe(const unsigned char *data, size_t len, uint64_t max, uint32_t hdr[16],
		bin_part parts[BIN_NSECTIONS + 1]);
void bin_parts_free(bin_part parts[BIN_NSECTIONS + 1]);

#endif
