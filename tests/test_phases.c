/* test_phases.c — the two async loading phases as internal flags, the
 * "garbage-elimination" header record, and the binary header's own errors:
 * each read, kept through text, binary and the analysis, and written back. */
#include <stdlib.h>

#include "snapshot/binary_format.h"
#include "snapshot/snapshot.h"
#include "tests/unit.h"

/* H as canonical text (malloc'd). */
static char *text_of(const heap *h)
{
	char *t = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&t, &n);
	text_write(h, f);
	fclose(f);
	return t;
}

/* Four objects, one per way of naming the phases (objects 11-14 under the
 * prelude's package 10); nothing references them. */
static const char phases_body[] = "o 11 0 4 10 P1 8 AsyncLoadingPhase1\no 12 0 4 10 P2 8 AsyncLoadingPhase2\n"
				  "o 13 0 4 10 Both 8 AsyncLoading\no 14 0 4 10 Both2 8 AsyncLoadingPhase2,AsyncLoadingPhase1\n"
				  "o 15 0 4 10 None 8 -\n";

TEST(async_loading_phase_names_read_as_their_own_bits)
{
	heap h;
	CHECK(load_heap(phases_body, &h) == 0);
	/* bit 3 is phase 1, bit 11 phase 2 (flags.h); AsyncLoading is both */
	CHECK(h.iflags[11] == 1u << 3);
	CHECK(h.iflags[12] == 1u << 11);
	CHECK(h.iflags[13] == ((1u << 3) | (1u << 11)));
	CHECK(h.iflags[14] == ((1u << 3) | (1u << 11)));
	char *t = text_of(&h);
	/* written back: one phase by its name, both as AsyncLoading */
	CHECK(t && strstr(t, "o 11 0 4 10 P1 8 AsyncLoadingPhase1\n"));
	CHECK(t && strstr(t, "o 12 0 4 10 P2 8 AsyncLoadingPhase2\n"));
	CHECK(t && strstr(t, "o 13 0 4 10 Both 8 AsyncLoading\n"));
	CHECK(t && strstr(t, "o 14 0 4 10 Both2 8 AsyncLoading\n"));
	free(t);
	heap_free(&h);
}

TEST(each_async_loading_phase_alone_makes_a_root)
{
	heap h;
	CHECK(load_heap(phases_body, &h) == 0);
	gc_result r;
	CHECK(run_gc(&h, MODE_GAME, 1, &r) == 0);
	/* the root flags include both phases (ugc-gc(7)): 11-14 are kept by an
	 * internal flag, 15 has no root and nothing references it */
	CHECK_STR(kind_of(&r, 11), "internal-keep");
	CHECK_STR(kind_of(&r, 12), "internal-keep");
	CHECK_STR(kind_of(&r, 13), "internal-keep");
	CHECK_STR(kind_of(&r, 14), "internal-keep");
	CHECK_STR(purged_list(&r), "15");
	gc_result_free(&r);
	heap_free(&h);
}

TEST(async_loading_phases_survive_the_binary_format)
{
	heap h, b;
	char err[512];
	CHECK(load_heap(phases_body, &h) == 0);
	size_t len = 0;
	unsigned char *bin = binary_bytes(&h, &len);
	/* a phase bit needs version 3 (bit 3 meant both phases before) */
	CHECK(bin && len > 12 && bin[8] == 3);
	heap_init(&b);
	CHECK(bin && binary_parse("p.ugcs", bin, len, &b, err, sizeof err) == 0);
	CHECK(b.iflags[11] == 1u << 3 && b.iflags[12] == 1u << 11 && b.iflags[13] == ((1u << 3) | (1u << 11)));
	char *t1 = text_of(&h), *t2 = text_of(&b);
	CHECK(t1 && t2 && strcmp(t1, t2) == 0);
	free(t1);
	free(t2);
	free(bin);
	heap_free(&b);
	heap_free(&h);
}

/* BIN taken apart and framed again as VERSION after EDIT (may be NULL);
 * parsed into B (0), or -1 with the error in ERR. */
static int reframe_as(const unsigned char *bin, size_t len, uint32_t version, void (*edit)(uint32_t *, bin_part *),
		      heap *b, char *err, size_t errsize)
{
	uint32_t hdr[16];
	bin_part parts[BIN_NSECTIONS + 1];
	heap_init(b);
	if (bin_unframe(bin, len, 1u << 20, hdr, parts)) {
		snprintf(err, errsize, "unframe failed");
		heap_free(b);
		return -2;
	}
	if (edit)
		edit(hdr, parts);
	char *out = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&out, &n);
	int rc = bin_frame(version, hdr, parts, f, err, errsize);
	fclose(f);
	bin_parts_free(parts);
	if (rc == 0)
		rc = binary_parse("x.ugcs", (unsigned char *)out, n, b, err, errsize);
	free(out);
	if (rc)
		heap_free(b);
	return rc;
}

TEST(version_1_and_2_binaries_read_bit_3_as_both_phases)
{
	heap h, b;
	char err[512];
	/* an object in both phases: the version-1 writer stored it as bit 3 */
	CHECK(load_heap("o 11 0 4 10 Loading 8 RF_Public\n", &h) == 0);
	h.iflags[11] = 1u << 3;
	size_t len = 0;
	unsigned char *bin = binary_bytes(&h, &len);
	for (uint32_t v = 1; v <= 2; v++) {
		CHECK(bin && reframe_as(bin, len, v, NULL, &b, err, sizeof err) == 0);
		CHECK(b.iflags[11] == ((1u << 3) | (1u << 11)));
		heap_free(&b);
	}
	free(bin);
	/* bit 11 did not exist before version 3 */
	h.iflags[11] = 1u << 11;
	bin = binary_bytes(&h, &len);
	CHECK(bin && reframe_as(bin, len, 1, NULL, &b, err, sizeof err) == -1);
	CHECK(strstr(err, "object 11 has unknown flag bits") != NULL);
	free(bin);
	heap_free(&h);
}

TEST(garbage_elimination_record_is_read_and_kept)
{
	heap h, b;
	char err[512];
	const char *off = "ugc-text 1\ngarbage-elimination off\no 0 0 0 - Class 0 -\n";
	CHECK(parse_text(off, &h, err, sizeof err) == 0);
	CHECK(h.no_garbage_elimination == 1);
	char *t = text_of(&h);
	CHECK(t && strstr(t, "\nfirst-gc-index 0\ngarbage-elimination off\no 0 0 0 - Class 0 -\n"));
	free(t);
	size_t len = 0;
	unsigned char *bin = binary_bytes(&h, &len);
	/* version 3, options word (offset 68) bit 0 */
	CHECK(bin && len > 72 && bin[8] == 3 && bin[68] == 1 && bin[69] == 0 && bin[70] == 0 && bin[71] == 0);
	heap_init(&b);
	CHECK(bin && binary_parse("g.ugcs", bin, len, &b, err, sizeof err) == 0);
	CHECK(b.no_garbage_elimination == 1);
	heap_free(&b);
	free(bin);
	heap_free(&h);

	/* "on" is the default: not written back, and the binary stays version 1 */
	CHECK(parse_text("ugc-text 1\ngarbage-elimination on\no 0 0 0 - Class 0 -\n", &h, err, sizeof err) == 0);
	CHECK(h.no_garbage_elimination == 0);
	t = text_of(&h);
	CHECK(t && !strstr(t, "garbage-elimination"));
	free(t);
	bin = binary_bytes(&h, &len);
	CHECK(bin && len > 72 && bin[8] == 1 && bin[68] == 0);
	free(bin);
	heap_free(&h);
	CHECK(parse_text("ugc-text 1\no 0 0 0 - Class 0 -\n", &h, err, sizeof err) == 0);
	CHECK(h.no_garbage_elimination == 0);
	heap_free(&h);
}

TEST(garbage_elimination_record_errors)
{
	heap h;
	char err[512];
	CHECK(parse_text("ugc-text 1\ngarbage-elimination maybe\n", &h, err, sizeof err) != 0);
	CHECK_STR(err, "test.ugct:2: garbage-elimination: unknown value 'maybe' (expected on or off)");
	CHECK(parse_text("ugc-text 1\ngarbage-elimination\n", &h, err, sizeof err) != 0);
	CHECK(strstr(err, "test.ugct:2: garbage-elimination: expected") != NULL);
	CHECK(parse_text("ugc-text 1\ngarbage-elimination on off\n", &h, err, sizeof err) != 0);
	CHECK(strstr(err, "test.ugct:2: garbage-elimination: expected") != NULL);
	CHECK(parse_text("ugc-text 1\ngarbage-elimination on\ngarbage-elimination off\n", &h, err, sizeof err) != 0);
	CHECK_STR(err, "test.ugct:3: garbage-elimination: given twice");
	CHECK(parse_text("ugc-text 1\no 0 0 0 - Class 0 -\ngarbage-elimination off\n", &h, err, sizeof err) != 0);
	CHECK_STR(err, "test.ugct:3: garbage-elimination: header record after the first object record");
}

static void mode_2(uint32_t *hdr, bin_part *parts) { (void)parts; hdr[0] = 2; }
static void options_set(uint32_t *hdr, bin_part *parts) { (void)parts; hdr[13] = 1; }
static void options_unknown(uint32_t *hdr, bin_part *parts) { (void)parts; hdr[13] = 0x11; }
static void reserved_14(uint32_t *hdr, bin_part *parts) { (void)parts; hdr[14] = 7; }
static void reserved_15(uint32_t *hdr, bin_part *parts) { (void)parts; hdr[15] = 0x100; }

TEST(binary_header_words_have_their_own_errors)
{
	heap h, b;
	char err[512];
	CHECK(load_heap("o 11 0 4 10 A 8 -\n", &h) == 0);
	size_t len = 0;
	unsigned char *bin = binary_bytes(&h, &len);
	CHECK(bin != NULL);
	/* header word k is at offset 16 + 4k */
	CHECK(reframe_as(bin, len, 1, mode_2, &b, err, sizeof err) == -1);
	CHECK_STR(err, "x.ugcs: offset 16: header: mode is 2, expected 0 (game) or 1 (editor)");
	CHECK(reframe_as(bin, len, 2, options_set, &b, err, sizeof err) == -1);
	CHECK_STR(err, "x.ugcs: offset 68: header: reserved word is 0x1, must be zero in a version 2 file");
	CHECK(reframe_as(bin, len, 3, options_unknown, &b, err, sizeof err) == -1);
	CHECK_STR(err, "x.ugcs: offset 68: header: options word 0x11 has unknown bits 0x10");
	CHECK(reframe_as(bin, len, 3, reserved_14, &b, err, sizeof err) == -1);
	CHECK_STR(err, "x.ugcs: offset 72: header: reserved word is 0x7, must be zero");
	CHECK(reframe_as(bin, len, 3, reserved_15, &b, err, sizeof err) == -1);
	CHECK_STR(err, "x.ugcs: offset 76: header: reserved word is 0x100, must be zero");
	/* the options word in version 3 is read */
	CHECK(reframe_as(bin, len, 3, options_set, &b, err, sizeof err) == 0);
	CHECK(b.no_garbage_elimination == 1);
	heap_free(&b);
	free(bin);
	heap_free(&h);
}
