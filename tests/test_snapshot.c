/* test_snapshot.c — the heap model and the two snapshot formats: names,
 * lookups, round trips, and corrupt binary input. */
#include <stdlib.h>

#include "analysis/diff.h"
#include "tools/gen/gen.h"
#include "snapshot/snapshot.h"
#include "tests/unit.h"

TEST(fname_split_follows_the_engine)
{
	struct { const char *in; size_t base; uint32_t num; } cases[] = {
		{"BP_Enemy_C_3", 10, 4}, {"Actor", 5, 0}, {"Foo_0", 3, 1}, {"Foo_01", 6, 0}, {"_5", 2, 0},
		{"A_2147483647", 12, 0}, {"A_2147483646", 1, 2147483647u}, {"Level_12345678901", 17, 0},
		/* "@N" (V8 node ids): the same rules, but the base may be empty */
		{"Foo@3", 3, NAME_NUM_AT | 4}, {"@7", 0, NAME_NUM_AT | 8}, {"Foo@03", 6, 0}, {"A_1@2", 3, NAME_NUM_AT | 3},
		{"A@2147483647", 12, 0}, {"A@2147483646", 1, NAME_NUM_AT | 2147483647u}, {"@", 1, 0}, {"a@b", 3, 0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		size_t base;
		uint32_t num;
		fname_split(cases[i].in, strlen(cases[i].in), &base, &num);
		CHECK(base == cases[i].base && num == cases[i].num);
	}
}

TEST(path_and_full_names_and_lookups)
{
	heap h;
	CHECK(load_heap("o 11 1 4 10 Arena 1 -\no 12 1 4 11 PersistentLevel 1 -\no 13 1 4 12 BP_Enemy_C_3 1 -\n"
			"o 14 1 4 13 Mesh%20Component 1 -\no 15 1 3 - /Game/Other 1 -\no 16 1 4 15 Arena 1 -\n", &h) == 0);
	char *p = heap_path(&h, 13);
	CHECK_STR(p, "/Game/Test.Arena:PersistentLevel.BP_Enemy_C_3");
	free(p);
	p = heap_path(&h, 14);
	CHECK_STR(p, "/Game/Test.Arena:PersistentLevel.BP_Enemy_C_3.Mesh Component");
	free(p);
	p = heap_full_name(&h, 12);
	CHECK_STR(p, "Actor /Game/Test.Arena:PersistentLevel");
	free(p);
	CHECK(heap_find_path(&h, "/Game/Test.Arena:PersistentLevel.BP_Enemy_C_3") == 13);
	CHECK(heap_find_path(&h, "/Game/Other.Arena") == 16);
	CHECK(heap_find_path(&h, "/Game/Test.Arena") == 11);
	CHECK(heap_find_path(&h, "/Game/Test.Arena:PersistentLevel.BP_Enemy_C_4") == OBJ_NONE);
	CHECK(heap_find_path(&h, "/Game/Test") == 10);
	CHECK(heap_find_full_name(&h, "Actor /Game/Other.Arena") == 16);
	CHECK(heap_find_full_name(&h, "Package /Game/Other.Arena") == OBJ_NONE);
	CHECK(heap_is_package(&h, 15) && !heap_is_package(&h, 16));
	CHECK(heap_outermost(&h, 14) == 10);
	heap_free(&h);
}

TEST(reverse_references_and_children)
{
	heap h;
	CHECK(load_heap("o 11 1 4 10 A 1 -\no 12 1 4 10 B 1 -\no 13 1 4 11 C 1 -\n"
			"r 12 11 strong X\nr 13 11 weak Y\nr 11 12 strong Z\nr 12 11 aro W\n", &h) == 0);
	CHECK(heap_build_reverse(&h) == 0);
	uint32_t a = h.rev_start[11], b = h.rev_start[12];
	CHECK(b - a == 3);
	CHECK(h.rev_src[a] == 12 && h.rev_src[a + 1] == 12 && h.rev_src[a + 2] == 13);
	CHECK_STR(heap_str(&h, h.ref_prop[h.rev_ref[a + 1]]), "W");
	CHECK(heap_build_children(&h) == 0);
	CHECK(h.child_start[11 + 1] - h.child_start[11] == 1 && h.child[h.child_start[11]] == 13);
	heap_free(&h);
}

/* The rows by target of a generated heap with more than a million
 * references (built on two threads), against their definition: walking
 * the references in order, each is the next entry of its target's row,
 * with its own source. */
TEST(reverse_rows_on_two_threads_are_the_definition)
{
	heap h;
	char err[256];
	gen_options go = {120000, 5, MODE_GAME, 0};
	if (gen_heap(&go, &h, err, sizeof err)) {
		printf("    %s\n", err);
		CHECK(0);
		return;
	}
	CHECK(h.nrefs >= (1u << 20)); /* the two-thread size */
	CHECK(heap_build_reverse(&h) == 0);
	uint32_t *next = malloc(((size_t)h.slots + 1) * sizeof *next);
	CHECK(next != NULL);
	if (next && h.rev_start) {
		memcpy(next, h.rev_start, (size_t)h.slots * sizeof *next);
		int rows_ok = h.rev_start[0] == 0 && h.rev_start[h.slots] == h.nrefs, each_ok = 1;
		for (uint32_t i = 0; i < h.slots; i++)
			rows_ok &= h.rev_start[i] <= h.rev_start[i + 1];
		for (uint32_t i = 0; i < h.slots && rows_ok; i++)
			for (uint32_t k = h.ref_start[i]; k < h.ref_start[i + 1]; k++) {
				uint32_t at = next[h.ref_dst[k]]++;
				each_ok &= at < h.rev_start[h.ref_dst[k] + 1] && h.rev_ref[at] == k && h.rev_src[at] == (obj_t)i;
			}
		CHECK(rows_ok && each_ok);
	}
	free(next);
	heap_free(&h);
}

/* Text -> binary -> text gives identical canonical text. */
static int round_trip(const heap *h, char **text_out)
{
	char *t1 = NULL, *t2 = NULL, *bin = NULL, err[512];
	size_t l1 = 0, l2 = 0, lb = 0;
	FILE *f = open_memstream(&t1, &l1);
	text_write(h, f);
	fclose(f);
	f = open_memstream(&bin, &lb);
	int rc = binary_write(h, f, err, sizeof err);
	fclose(f);
	heap b;
	heap_init(&b);
	rc |= binary_parse("mem.ugcs", (unsigned char *)bin, lb, &b, err, sizeof err);
	if (rc)
		printf("    %s\n", err);
	f = open_memstream(&t2, &l2);
	text_write(&b, f);
	fclose(f);
	int same = rc == 0 && l1 == l2 && memcmp(t1, t2, l1) == 0;
	heap_free(&b);
	free(t2);
	free(bin);
	*text_out = t1;
	return same;
}

TEST(text_binary_text_is_lossless)
{
	heap h;
	const char *text = "ugc-text 1\nengine 5.5.4 (CL 123)\nmode editor\nfirst-gc-index 5\nlabel ten rounds, 100%25\n"
		"o 0 1 2 - /Script/CoreUObject 64 Native\no 1 2 2 0 Object 256 Native\no 2 3 2 0 Class 512 Native\n"
		"o 3 4 2 0 Package 256 Native\no 4 5 2 0 Actor 900 Native\no 10 11 3 - /Game/Test 128 RootSet\n"
		"o 12 7 4 10 Odd%25Name%23 4294967295 RF_Public,RF_AllocatedInSharedPage,PendingKill,GameThreadDestroy\n"
		"o 11 9 4 10 -%20 0 -\nr 12 11 strong Map[Key%20With%20Space]\nr 11 12 weak\nr 11 999 soft Gone\n"
		"g F%20Thing 12 Ptr\ng FOther 500\nc 11 - 12 -\n";
	char err[512];
	CHECK(parse_text(text, &h, err, sizeof err) == 0);
	char *canon = NULL;
	CHECK(round_trip(&h, &canon));
	/* canonical text parses back to the same canonical text */
	heap h2;
	CHECK(parse_text(canon, &h2, err, sizeof err) == 0);
	char *canon2 = NULL;
	CHECK(round_trip(&h2, &canon2));
	CHECK(canon && canon2 && strcmp(canon, canon2) == 0);
	CHECK(strstr(canon, "label ten%20rounds,%20100%25\n") != NULL);
	CHECK(strstr(canon, "o 12 7 4 10 Odd%25Name# 4294967295 RF_Public,RF_AllocatedInSharedPage,Garbage,GameThreadDestroy\n") != NULL);
	CHECK(strstr(canon, "r 11 999 soft Gone\n") != NULL); /* dangling kept */
	free(canon);
	free(canon2);
	heap_free(&h);
	heap_free(&h2);
}

TEST(at_numbers_round_trip_and_need_binary_version_2)
{
	/* "@N" names (a V8 heap's) survive text -> binary -> text; a binary
	 * snapshot is version 2 only when it holds one, so version-1 readers
	 * still read every other */
	heap h;
	char err[512];
	CHECK(parse_text("ugc-text 1\nfirst-gc-index 3\no 0 0 1 - /V8 0 -\no 1 0 2 0 Package 0 -\no 2 0 2 0 Class 0 -\n"
			 "o 3 0 2 0 Foo@5 8 RootSet\no 4 0 2 0 @7 8 -\no 5 0 2 0 Foo_1 8 -\nr 3 4 strong x\n", &h, err, sizeof err) == 0);
	CHECK(h.name_num[3] == (NAME_NUM_AT | 6) && h.name[4] == 0 && h.name_num[4] == (NAME_NUM_AT | 8));
	char *canon = NULL;
	CHECK(round_trip(&h, &canon));
	CHECK(canon && strstr(canon, "o 3 0 2 0 Foo@5 8 RootSet\n") && strstr(canon, "o 4 0 2 0 @7 8 -\n"));
	free(canon);
	size_t lb = 0;
	unsigned char *bin = binary_bytes(&h, &lb);
	CHECK(bin && lb > 12 && bin[8] == 2);
	free(bin);
	CHECK(heap_find_path(&h, "/V8.Foo@5") == 3 && heap_find_path(&h, "/V8.@7") == 4 && heap_find_path(&h, "/V8.Foo@6") == OBJ_NONE);
	/* without "@N" names: version 1 */
	h.name_num[3] = h.name_num[4] = 0;
	h.name[4] = strtab_intern(&h.strings, "Baz", 3);
	bin = binary_bytes(&h, &lb);
	CHECK(bin && lb > 12 && bin[8] == 1);
	free(bin);
	/* a version-1 snapshot holds "Bar@9" whole (written before "@N" was a
	 * number): the reader splits it, as a text load would */
	h.name[3] = strtab_intern(&h.strings, "Bar@9", 5);
	bin = binary_bytes(&h, &lb);
	CHECK(bin && lb > 12 && bin[8] == 1);
	heap b;
	heap_init(&b);
	CHECK(bin && binary_parse("old.ugcs", bin, lb, &b, err, sizeof err) == 0);
	CHECK_STR(heap_str(&b, b.name[3]), "Bar");
	CHECK(b.name_num[3] == (NAME_NUM_AT | 10) && heap_find_path(&b, "/V8.Bar@9") == 3);
	heap_free(&b);
	free(bin);
	heap_free(&h);
}

TEST(names_are_formatted_and_generalised_by_their_number)
{
	char buf[64];
	CHECK(fname_format("Foo", 3, NAME_NUM_AT | 124, buf, sizeof buf) == 7 && strcmp(buf, "Foo@123") == 0);
	CHECK(fname_format("Foo", 3, 4, buf, sizeof buf) == 5 && strcmp(buf, "Foo_3") == 0);
	CHECK(fname_format("", 0, NAME_NUM_AT | 8, buf, sizeof buf) == 2 && strcmp(buf, "@7") == 0);
	CHECK(fname_format("Foo", 3, 0, buf, 3) == 2 && strcmp(buf, "Fo") == 0); /* cut to fit */
	CHECK(fname_format("A", 1, 1, buf, sizeof buf) == 3 && strcmp(buf, "A_0") == 0);
	CHECK(fname_format("A", 1, 11, buf, sizeof buf) == 4 && strcmp(buf, "A_10") == 0);
	CHECK(fname_format("A", 1, NAME_NUM_AT | 0x7fffffff, buf, sizeof buf) == 12 && strcmp(buf, "A@2147483646") == 0);
	/* the suffix goes in whole or not at all: "@123" needs 4 bytes and the NUL */
	CHECK(fname_format("Foo", 3, NAME_NUM_AT | 124, buf, 8) == 7 && strcmp(buf, "Foo@123") == 0);
	CHECK(fname_format("Foo", 3, NAME_NUM_AT | 124, buf, 7) == 3 && strcmp(buf, "Foo") == 0);
	/* leak groups: an FName number and a V8 node id both become '*' */
	generic_name("/V8.Foo@123", buf, sizeof buf);
	CHECK_STR(buf, "/V8.Foo@*");
	generic_name("/Game/Map.Map:PersistentLevel.BP_Enemy_C_3", buf, sizeof buf);
	CHECK_STR(buf, "/Game/Map.Map:PersistentLevel.BP_Enemy_C_*");
	generic_name("a@b1.c_x", buf, sizeof buf);
	CHECK_STR(buf, "a@b1.c_x");
}

TEST(generated_heaps_round_trip_and_are_deterministic)
{
	for (int seed = 1; seed <= 3; seed++) {
		gen_options go = {3000, (uint64_t)seed, seed == 2 ? MODE_EDITOR : MODE_GAME, seed == 3 ? 25 : 0};
		heap a, b;
		char err[256];
		CHECK(gen_heap(&go, &a, err, sizeof err) == 0);
		CHECK(gen_heap(&go, &b, err, sizeof err) == 0);
		char *ta = NULL, *tb = NULL;
		CHECK(round_trip(&a, &ta));
		CHECK(round_trip(&b, &tb));
		CHECK(ta && tb && strcmp(ta, tb) == 0);
		CHECK(a.objects > 2500 && a.nrefs > a.objects * 7 && a.nclusters > 5 && a.ngcrefs > 0);
		free(ta);
		free(tb);
		heap_free(&a);
		heap_free(&b);
	}
}

/* Every corruption of a binary snapshot is an error naming an offset, never a crash. */
TEST(corrupt_binary_snapshots_are_rejected)
{
	gen_options go = {400, 5, MODE_GAME, 0};
	heap h;
	char err[512];
	CHECK(gen_heap(&go, &h, err, sizeof err) == 0);
	char *bin = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&bin, &len);
	CHECK(binary_write(&h, f, err, sizeof err) == 0);
	fclose(f);
	int rejected = 0, tried = 0, named = 0, harmless = 0;
	unsigned char *copy = malloc(len);
	/* truncations */
	for (size_t cut = 0; cut < len; cut += 1 + cut / 7) {
		heap b;
		heap_init(&b);
		tried++;
		if (binary_parse("x.ugcs", (unsigned char *)bin, cut, &b, err, sizeof err) != 0) {
			rejected++;
			named += strstr(err, "x.ugcs: offset ") == err;
		}
		heap_free(&b);
	}
	/* single flipped bytes everywhere in the header and spread over the
	 * sections: rejected, or (a bit zstd never reads) the very same heap */
	char *orig_text = NULL;
	size_t orig_len = 0;
	f = open_memstream(&orig_text, &orig_len);
	CHECK(text_write(&h, f) == 0);
	fclose(f);
	for (size_t at = 0; at < len; at += at < 400 ? 1 : 1 + at / 50) {
		memcpy(copy, bin, len);
		copy[at] ^= 0x5a;
		heap b;
		heap_init(&b);
		tried++;
		if (binary_parse("x.ugcs", copy, len, &b, err, sizeof err) != 0) {
			rejected++;
			named += strstr(err, "x.ugcs: offset ") == err;
		} else {
			char *t = NULL;
			size_t tl = 0;
			FILE *g = open_memstream(&t, &tl);
			CHECK(text_write(&b, g) == 0);
			fclose(g);
			if (tl == orig_len && memcmp(t, orig_text, tl) == 0)
				harmless++; /* the heap read is the heap written */
			free(t);
		}
		heap_free(&b);
	}
	free(orig_text);
	heap_free(&h);
	CHECK(rejected + harmless == tried);
	CHECK(named == rejected && harmless < tried / 100);
	heap b;
	heap_init(&b);
	CHECK(binary_parse("x.ugcs", (unsigned char *)bin, len, &b, err, sizeof err) == 0);
	heap_free(&b);
	free(copy);
	free(bin);
}

/* Mutated text snapshots: every outcome is a clean load or a one-line
 * "FILE:LINE: ..." error (the sanitizer run checks that nothing else
 * happens on the way). */
TEST(mutated_text_snapshots_fail_cleanly)
{
	const char *base = "ugc-text 1\nengine 5.5.4\nmode game\nfirst-gc-index 5\n"
		"o 0 1 2 - /Script/CoreUObject 64 Native\no 1 2 2 0 Object 256 Native\no 2 3 2 0 Class 512 Native\n"
		"o 3 4 2 0 Package 256 Native\no 4 5 2 0 Actor 900 Native\no 10 11 3 - /Game/Maps/Arena 128 RF_Public\n"
		"o 11 12 4 10 Arena 2048 RootSet\no 12 13 4 11 Pickup_1 400 Garbage\no 13 14 4 11 Enemy_1 400 -\n"
		"r 11 13 strong Actors[1]\nr 13 12 strong TargetPickup\nr 13 99 weak LastSeen\n"
		"g FStreamableManager 13 Handles[0]\nc 11 13 12 -\n";
	static const char alphabet[] = "0123456789 -,%#\n\tro gcRF_Garbage";
	size_t len = strlen(base);
	char *buf = malloc(len + 64);
	uint64_t seed = 12345;
	int loaded = 0, rejected = 0, bad_messages = 0;
	for (int round = 0; round < 4000; round++) {
		memcpy(buf, base, len + 1);
		size_t n = len;
		for (int m = 0; m < 1 + round % 4; m++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			size_t at = (size_t)(seed >> 33) % (n ? n : 1);
			char c = alphabet[(seed >> 20) % (sizeof alphabet - 1)];
			switch ((seed >> 10) % 4) {
			case 0: buf[at] = c; break;                                           /* replace */
			case 1: memmove(buf + at + 1, buf + at, n - at + 1); buf[at] = c; n++; break; /* insert */
			case 2: if (n) { memmove(buf + at, buf + at + 1, n - at); n--; } break; /* delete */
			default: n = at; buf[n] = '\0'; break;                                /* truncate */
			}
			if (n + 2 >= len + 64)
				break;
		}
		heap h;
		char err[1024];
		heap_init(&h);
		if (text_parse("fuzz.ugct", buf, n, &h, err, sizeof err) == 0) {
			loaded++;
			gc_result r;
			if (run_gc(&h, MODE_GAME, 2, &r) == 0)
				gc_result_free(&r);
		} else {
			rejected++;
			/* "fuzz.ugct:LINE: what", one line */
			const char *p = err + strlen("fuzz.ugct:");
			if (strncmp(err, "fuzz.ugct:", 10) != 0 || *p < '0' || *p > '9' || strchr(err, '\n'))
				bad_messages++;
		}
		heap_free(&h);
	}
	free(buf);
	CHECK(loaded > 0 && rejected > 0);
	CHECK(bad_messages == 0);
}
