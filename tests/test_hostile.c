/* test_hostile.c — hostile input to the snapshot readers (issue 8): each
 * test builds its crafted file from a reproducer and checks the one-line
 * error (or the clean load) the reader must give; the sanitizer run checks
 * that nothing else happens on the way. */
#include <stdlib.h>
#include <unistd.h>

#include "snapshot/binary_format.h"
#include "snapshot/snapshot.h"
#include "tests/unit.h"

/* Parse the LEN bytes at BIN as "x.ugcs" (the error, or "", into ERR), then free BIN. */
static int parse_freeing(unsigned char *bin, size_t len, char *err, size_t errsize)
{
	heap h;
	heap_init(&h);
	err[0] = '\0';
	int rc = bin ? binary_parse("x.ugcs", bin, len, &h, err, errsize) : -2;
	heap_free(&h);
	free(bin);
	return rc;
}

/* A small heap with a few strings, as a .ugcs in memory. */
static unsigned char *small_binary(size_t *len)
{
	heap h;
	if (load_heap("o 11 1 4 10 Alpha 1 -\no 12 1 4 10 Beta 1 -\no 13 1 4 11 Gamma 1 -\n"
		      "r 11 12 strong Ptr\nr 12 13 weak Other\n", &h))
		return NULL;
	unsigned char *bin = binary_bytes(&h, len);
	heap_free(&h);
	return bin;
}

/* Take BIN apart, let EDIT change the parts, frame it again (valid
 * checksums), and parse it; the error (or "") into ERR. */
static int reframed_parse(const unsigned char *bin, size_t len, void (*edit)(uint32_t *hdr, bin_part *parts),
			  char *err, size_t errsize)
{
	uint32_t hdr[16];
	bin_part parts[BIN_NSECTIONS + 1];
	if (bin_unframe(bin, len, 1u << 20, hdr, parts))
		return -2;
	edit(hdr, parts);
	char *out = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&out, &n);
	int rc = bin_frame(BIN_VERSION_OLDEST, hdr, parts, f, err, errsize);
	fclose(f);
	bin_parts_free(parts);
	if (rc) {
		free(out);
		return -2;
	}
	return parse_freeing((unsigned char *)out, n, err, errsize);
}

/* The small binary, edited by EDIT and framed again, is refused with an
 * offset error that holds WANT. */
static int edited_small_binary_fails(void (*edit)(uint32_t *hdr, bin_part *parts), const char *want)
{
	size_t len;
	char err[512];
	unsigned char *bin = small_binary(&len);
	if (!bin)
		return 0;
	int rc = reframed_parse(bin, len, edit, err, sizeof err);
	free(bin);
	if (rc != -1 || strncmp(err, "x.ugcs: offset ", 15) != 0 || !strstr(err, want)) {
		printf("    %s\n", err);
		return 0;
	}
	return 1;
}

/* Issue 8 item 2: string_offsets[10]=5111808 — an offset far past the
 * arena, followed by smaller ones, made the reader read the byte before it
 * before checking the offsets. */
static void offset_past_arena(uint32_t *hdr, bin_part *parts)
{
	(void)hdr;
	uint32_t *off = (uint32_t *)parts[SEC_STR_OFFSETS].data;
	off[2] = 5111808; /* strings 0..nstrings: 2 is neither first nor last */
}

TEST(binary_string_offset_past_the_arena_is_an_error)
{
	CHECK(edited_small_binary_fails(offset_past_arena, "string_offsets"));
}

/* An "@N" name number in a version-1 snapshot (which cannot hold one). */
static void at_number_in_version_1(uint32_t *hdr, bin_part *parts)
{
	(void)hdr;
	((uint32_t *)parts[SEC_NAME_NUM].data)[12] = NAME_NUM_AT | 3; /* Beta */
}

TEST(binary_at_number_in_version_1_is_an_error)
{
	CHECK(edited_small_binary_fails(at_number_in_version_1, "object 12 has a bad name"));
}

/* A zstd frame that declares DECLARED content bytes and holds BLOCKS RLE
 * blocks of 128 KiB zeros (4 bytes each): a decompression bomb written by
 * hand after RFC 8878.  Into a temporary file; its path is returned. */
static const char *zstd_bomb(uint64_t declared, unsigned blocks, int last)
{
	static char path[64];
	snprintf(path, sizeof path, "/tmp/ugc-bomb-%ld.ugct.zst", (long)getpid());
	FILE *f = fopen(path, "wb");
	if (!f)
		return NULL;
	const unsigned char magic[4] = {0x28, 0xB5, 0x2F, 0xFD};
	fwrite(magic, 1, 4, f);
	fputc(0xC0, f); /* frame header: 8-byte content size, window descriptor present */
	fputc(10 << 3, f); /* window 2^(10+10) = 1 MiB */
	for (int i = 0; i < 8; i++)
		fputc((int)(declared >> (8 * i)) & 255, f);
	for (unsigned b = 0; b < blocks; b++) {
		uint32_t hdr = (131072u << 3) | (1u << 1) | (last && b + 1 == blocks); /* RLE block */
		fputc(hdr & 255, f);
		fputc((hdr >> 8) & 255, f);
		fputc((hdr >> 16) & 255, f);
		fputc(0, f); /* the repeated byte */
	}
	fclose(f);
	return path;
}

/* Issue 8 item 3: a frame declaring 13.6 GiB was preallocated whole, and a
 * text path without a ratio limit decompressed 10 GB of zeros.  Now the
 * buffer grows with the output and stops at 1024 times the input (+64 MiB):
 * 800 blocks (100 MiB from a 3.2 KB file) are refused. */
TEST(text_decompression_bomb_is_refused)
{
	const char *path = zstd_bomb(14602888806ull, 800, 0);
	CHECK(path != NULL);
	if (!path)
		return;
	heap h;
	char err[SNAP_ERR_MAX];
	CHECK(snapshot_load(path, &h, err, sizeof err) == -1);
	CHECK(strstr(err, "decompresses to more than") != NULL);
	CHECK(strstr(err, "1024 times") != NULL);
	CHECK(strchr(err, '\n') == NULL);
	/* the 22-byte reproducer: a declaration and one block, then the end */
	path = zstd_bomb(14602888806ull, 1, 0);
	CHECK(snapshot_load(path, &h, err, sizeof err) == -1);
	CHECK(strstr(err, "truncated zstd data") != NULL);
	unlink(path);
}

/* A frame that is honest about a size a little over the initial buffer
 * still decompresses whole (the growth path, not the limit). */
TEST(zstd_text_larger_than_its_first_buffer_loads)
{
	const char *path = zstd_bomb(131072 * 3, 3, 1); /* 384 KiB of zeros from 30 bytes */
	heap h;
	char err[SNAP_ERR_MAX];
	CHECK(path && snapshot_load(path, &h, err, sizeof err) == -1);
	/* decompressed whole, then refused by the text reader for its NUL bytes on line 1 */
	CHECK(strstr(err, ":1: NUL byte") != NULL);
	unlink(path);
}

/* A text snapshot: the 8-line PRELUDE, then on line 9 an object whose NAME
 * is LEN bytes of 'N', on line 10 an "r" record whose PROPERTY and on line 11
 * a "g" record whose NAME are PLEN bytes of 'p'. */
static char *long_names_text(size_t len, size_t plen)
{
	size_t cap = strlen(PRELUDE) + len + 2 * plen + 128;
	char *t = malloc(cap);
	if (!t)
		return NULL;
	size_t n = (size_t)snprintf(t, cap, "%so 11 1 4 10 ", PRELUDE);
	memset(t + n, 'N', len);
	n += len;
	n += (size_t)snprintf(t + n, cap - n, " 1 -\nr 11 10 strong ");
	memset(t + n, 'p', plen);
	n += plen;
	n += (size_t)snprintf(t + n, cap - n, "\ng ");
	memset(t + n, 'p', plen);
	n += plen;
	snprintf(t + n, cap - n, " 11\n");
	return t;
}

/* Issue 8 item 7: the format's length limits (NAME at most 1023 bytes,
 * PROPERTY and referencer names at most 4096) are enforced, naming the line. */
TEST(text_length_limits_are_enforced)
{
	struct { size_t len, plen; const char *want; } cases[] = {
		{1023, 4096, NULL},
		{1024, 10, "x:9: o: NAME is 1024 bytes long, more than the 1023 the engine allows"},
		{10, 4097, "x:10: r: PROPERTY is 4097 bytes long, more than the 4096 the engine allows"},
	};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		char *t = long_names_text(cases[c].len, cases[c].plen), err[512] = "";
		heap h;
		heap_init(&h);
		int rc = text_parse("x", t, strlen(t), &h, err, sizeof err);
		CHECK(rc == (cases[c].want ? -1 : 0));
		if (cases[c].want)
			CHECK_STR(err, cases[c].want);
		else
			CHECK(h.objects == 7 && strtab_len(&h.strings, h.name[11]) == 1023);
		heap_free(&h);
		free(t);
	}
	/* a g record's NAME: the r record is fine, the g record too long */
	char *t = long_names_text(10, 4096), err[512] = "";
	char *g = strstr(t, "\ng ") + 3;
	memmove(g + 1, g, strlen(g) + 1);
	*g = 'q'; /* 4097 bytes */
	heap h;
	heap_init(&h);
	CHECK(text_parse("x", t, strlen(t), &h, err, sizeof err) == -1);
	CHECK_STR(err, "x:11: g: NAME is 4097 bytes long, more than the 4096 the engine allows");
	heap_free(&h);
	free(t);
}

/* Parse the binary form of H; the error into ERR. */
static int binary_of(const heap *h, char *err, size_t errsize)
{
	size_t len = 0;
	unsigned char *bin = binary_bytes(h, &len);
	return parse_freeing(bin, len, err, errsize);
}

/* An empty string that is not string 0 cannot be written as text. */
static void empty_string(uint32_t *hdr, bin_part *parts)
{
	(void)hdr;
	uint32_t *off = (uint32_t *)parts[SEC_STR_OFFSETS].data;
	unsigned char *arena = (unsigned char *)parts[SEC_STR_BYTES].data;
	arena[off[1]] = '\0'; /* string 1 becomes "", string 2 starts right after */
	off[2] = off[1] + 1;
}

/* Issue 8 item 7: binary strings with NUL bytes or empty, and names over the
 * limit, were loaded and then written as text that cannot be read back; the
 * binary reader now refuses what the text format cannot say. */
TEST(binary_strings_the_text_cannot_hold_are_refused)
{
	heap h;
	char err[512];
	CHECK(load_heap("o 11 1 4 10 Alpha 1 -\nr 11 10 strong Prop\ng Referencer 11 Held\n", &h) == 0);
	CHECK(binary_of(&h, err, sizeof err) == 0);
	/* a NUL byte inside the property name "Prop" */
	uint32_t prop = h.ref_prop[h.ref_start[11]];
	h.strings.arena[h.strings.off[prop] + 1] = '\0';
	CHECK(binary_of(&h, err, sizeof err) == -1);
	CHECK(strstr(err, "x.ugcs: offset ") == err && strstr(err, "empty or holds a NUL byte") != NULL);
	h.strings.arena[h.strings.off[prop] + 1] = 'r';
	/* a name of 1020 bytes plus the suffix "_999" (1024 in all) */
	char big[1021];
	memset(big, 'N', 1020);
	big[1020] = '\0';
	h.name[11] = strtab_intern(&h.strings, big, 1020);
	h.name_num[11] = 1000;
	CHECK(binary_of(&h, err, sizeof err) == -1);
	CHECK(strstr(err, "object 11's name is longer than 1023 bytes") != NULL);
	h.name_num[11] = 100; /* "_99": 1023 bytes, allowed */
	CHECK(binary_of(&h, err, sizeof err) == 0);
	heap_free(&h);
	/* an empty string that is not string 0 */
	CHECK(edited_small_binary_fails(empty_string, "string 1 is empty or holds a NUL byte"));
}

/* Issue 8 item 11: a text snapshot cut at a line boundary loaded as if
 * whole.  The writer now ends every text with "end O R G C" (the counts of
 * its o, r, g and c records), and the reader checks it when present. */
TEST(text_end_record_vouches_for_the_whole_file)
{
	heap h, back;
	char err[512], *text = NULL;
	size_t len = 0;
	CHECK(load_heap("o 11 1 4 10 A 1 -\no 12 1 4 11 B 1 -\nr 11 12 strong P\nr 12 999 weak Gone\n"
			"g Ref 11\nc 11 12 - -\n", &h) == 0);
	FILE *f = open_memstream(&text, &len);
	CHECK(text_write(&h, f) == 0);
	fclose(f);
	/* 8 objects (6 of the prelude), 2 r records (one dangling), 1 g, 1 c */
	const char *want_end = "\nend 8 2 1 1\n";
	CHECK(len > strlen(want_end) && strcmp(text + len - strlen(want_end), want_end) == 0);
	heap_init(&back);
	CHECK(text_parse("t", text, len, &back, err, sizeof err) == 0);
	heap_free(&back);
	/* a line lost in the middle: the counts disagree, the end record's line is named
	 * (3 header lines, 8 objects, r r g c: end moves from line 16 to 15) */
	char *r = strstr(text, "\nr 12 999");
	char *eol = strchr(r + 1, '\n');
	size_t lost = (size_t)(eol - r);
	memmove(r, eol, len - (size_t)(eol - text) + 1);
	heap_init(&back);
	CHECK(text_parse("t", text, len - lost, &back, err, sizeof err) == -1);
	CHECK_STR(err, "t:15: end: 1 reference (r) records read, the end record says 2 (is the file cut or spliced?)");
	heap_free(&back);
	free(text);
	/* records after the end record (two files run together) */
	const char *two = "ugc-text 1\no 0 1 0 - Class 1 -\nend 1 0 0 0\n# fine\n\no 1 1 0 - X 1 -\n";
	heap_init(&back);
	CHECK(text_parse("t", two, strlen(two), &back, err, sizeof err) == -1);
	CHECK_STR(err, "t:6: a record after the end record (line 3): the end record must be last");
	heap_free(&back);
	/* a malformed end record */
	const char *bad = "ugc-text 1\no 0 1 0 - Class 1 -\nend 1 0 0\n";
	heap_init(&back);
	CHECK(text_parse("t", bad, strlen(bad), &back, err, sizeof err) == -1);
	CHECK_STR(err, "t:3: end: expected 'end OBJECTS REFERENCES GCREFS CLUSTERS'");
	heap_free(&back);
	heap_free(&h);
}

/* Found by the pipeline fuzzer: two lists of one cluster sharing the one
 * item (members and mutable both [0, 1) of a 1-item section) loaded, and
 * the after-GC heap, sized by the item count, overflowed copying both.  The
 * lists must tile the items in order. */
static void shared_cluster_items(uint32_t *hdr, bin_part *parts)
{
	uint32_t *cl = (uint32_t *)parts[SEC_CLUSTERS].data; /* root, members, n, mutable, n, refs, n */
	cl[3] = 0;       /* mutable list starts where the members do */
	cl[5] = 1;       /* refs (empty) right after */
	hdr[8] = 1;      /* ncluster_items */
	parts[SEC_CLUSTER_ITEMS].count = 1;
}

TEST(binary_cluster_lists_must_tile_the_items)
{
	heap h;
	char err[512];
	CHECK(load_heap("o 11 1 4 10 Root 1 ClusterRoot\no 12 1 4 11 Member 1 -\nr 12 11 strong Back\n"
			"c 11 12 12 -\n", &h) == 0);
	CHECK(h.ncluster_items == 2 && h.clusters[0].members == 0 && h.clusters[0].mutables == 1);
	size_t len;
	unsigned char *bin = binary_bytes(&h, &len);
	heap_free(&h);
	CHECK(bin && reframed_parse(bin, len, shared_cluster_items, err, sizeof err) == -1);
	CHECK(strstr(err, "x.ugcs: offset ") == err && strstr(err, "cluster 0 lists are not the next ranges") != NULL);
	free(bin);
}

/* The references are checked in two halves at once (the upper on a thread
 * of its own), but the error is still the first in the file's order: the
 * small heap's two references are one a half. */
static void upper_ref_targets_nothing(uint32_t *hdr, bin_part *parts)
{
	(void)hdr;
	((uint32_t *)parts[SEC_REF_DST].data)[1] = 999;
}

static void both_refs_target_nothing(uint32_t *hdr, bin_part *parts)
{
	(void)hdr;
	((uint32_t *)parts[SEC_REF_DST].data)[0] = 998;
	((uint32_t *)parts[SEC_REF_DST].data)[1] = 999;
}

static void upper_ref_and_a_name_bad(uint32_t *hdr, bin_part *parts)
{
	(void)hdr;
	((uint8_t *)parts[SEC_REF_KIND].data)[1] = 200;
	((uint32_t *)parts[SEC_NAME].data)[12] = 9999; /* Beta's name: no such string */
}

static void lower_ref_kind_bad(uint32_t *hdr, bin_part *parts)
{
	(void)hdr;
	((uint8_t *)parts[SEC_REF_KIND].data)[0] = 200;
}

TEST(binary_references_checked_in_halves_name_the_first_bad_one)
{
	CHECK(edited_small_binary_fails(upper_ref_targets_nothing, "reference 1 targets 999, not an object"));
	CHECK(edited_small_binary_fails(both_refs_target_nothing, "reference 0 targets 998, not an object"));
	CHECK(edited_small_binary_fails(upper_ref_and_a_name_bad, "section name: object 12 has a bad name"));
	CHECK(edited_small_binary_fails(lower_ref_kind_bad, "reference 0 is malformed"));
}

/* Each text is one string id in a binary snapshot, as the text format
 * (which interns) and a database's strings (db_heap.c) have it: a table
 * holding a text twice is refused.  Gamma's name becomes a second
 * "Alpha" (a self-diff of such a heap failed to match the objects named
 * by the copy: the fuzz_pipeline input kept in its corpus). */
static void name_text_twice(uint32_t *hdr, bin_part *parts)
{
	(void)hdr;
	char *bytes = (char *)parts[SEC_STR_BYTES].data;
	size_t n = (size_t)parts[SEC_STR_BYTES].count;
	for (size_t k = 0; k + 6 <= n; k++)
		if (memcmp(bytes + k, "Gamma", 6) == 0)
			memcpy(bytes + k, "Alpha", 5);
}

TEST(binary_string_held_twice_is_an_error)
{
	CHECK(edited_small_binary_fails(name_text_twice, "section string_bytes: string"));
	CHECK(edited_small_binary_fails(name_text_twice, "repeats string"));
}
