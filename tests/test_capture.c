/* test_capture.c — the capture library (capture/ugc_capture.h): every record
 * kind and awkward names round-trip through the project's reader, length
 * limits, streaming in fixed memory, atomic output, and what each misuse
 * returns.  Expected values are written out by hand from the records given. */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "capture/ugc_capture.h"
#include "snapshot/snapshot.h"
#include "tests/unit.h"

static char dir[64];

/* Each test removes its files; the directory goes at exit. */
static void remove_dir(void)
{
	rmdir(dir);
}

/* A path in a private directory for this process's files (the last four
 * returned stay valid). */
static const char *tmp_path(const char *name)
{
	static char paths[4][256];
	static int next;
	char *path = paths[next++ % 4];
	if (!dir[0]) {
		strcpy(dir, "/tmp/ugc-capture-XXXXXX");
		if (!mkdtemp(dir))
			strcpy(dir, "/tmp");
		else
			atexit(remove_dir);
	}
	snprintf(path, sizeof paths[0], "%s/%s", dir, name);
	return path;
}

static int exists(const char *path)
{
	return access(path, F_OK) == 0;
}

static int load(const char *path, heap *h)
{
	char err[SNAP_ERR_MAX];
	if (snapshot_load(path, h, err, sizeof err)) {
		printf("    load: %s\n", err);
		return -1;
	}
	return 0;
}

/* Allocation hooks that count live bytes and can be told to fail. */
struct counter {
	size_t live, peak;
	int fail_after; /* allocations left before failing; < 0: never */
};

static void *count_alloc(void *user, size_t n)
{
	struct counter *c = user;
	if (c->fail_after == 0)
		return NULL;
	if (c->fail_after > 0)
		c->fail_after--;
	size_t *p = malloc(n + sizeof(size_t) * 2);
	if (!p)
		return NULL;
	p[0] = n;
	c->live += n;
	if (c->live > c->peak)
		c->peak = c->live;
	return p + 2;
}

static void count_free(void *user, void *ptr)
{
	struct counter *c = user;
	size_t *p = (size_t *)ptr - 2;
	c->live -= p[0];
	free(p);
}

static ugc_writer *open_or_null(const char *path, const ugc_options *o)
{
	ugc_writer *w;
	char err[256];
	if (ugc_writer_open(&w, path, o, err, sizeof err)) {
		printf("    open: %s\n", err);
		return NULL;
	}
	return w;
}

static ugc_object obj(int32_t i, int32_t cls, int32_t outer, const char *name)
{
	ugc_object o = {i, (uint32_t)i + 100, cls, outer, name, 64, 0, 0, 0};
	return o;
}

/* The prelude every test heap needs: a package class world. */
static void prelude(ugc_writer *w)
{
	ugc_object o[] = {obj(0, 2, UGC_NONE, "/Script/CoreUObject"), obj(1, 2, 0, "Object"), obj(2, 2, 0, "Class"),
			  obj(3, 2, 0, "Package"), obj(4, 2, 0, "Actor"), obj(10, 3, UGC_NONE, "/Game/Test")};
	for (size_t i = 0; i < sizeof o / sizeof o[0]; i++) {
		o[i].internal_flags = i < 5 ? UGC_IF_Native : UGC_IF_RootSet;
		CHECK(ugc_writer_object(w, &o[i]) == UGC_OK);
	}
}

static size_t name_of(const heap *h, obj_t i, char *buf)
{
	return heap_name(h, i, buf, HEAP_NAME_MAX);
}

TEST(capture_every_record_kind_round_trips)
{
	const char *path = tmp_path("kinds.ugct");
	ugc_writer *w = open_or_null(path, NULL);
	CHECK(w != NULL);
	if (!w)
		return;
	CHECK(ugc_writer_engine(w, "5.5.4-37670630+++UE5+Release-5.5") == UGC_OK);
	CHECK(ugc_writer_mode(w, 1) == UGC_OK);
	CHECK(ugc_writer_first_gc_index(w, 5) == UGC_OK);
	CHECK(ugc_writer_label(w, "after the boss fight") == UGC_OK);
	CHECK(ugc_writer_garbage_elimination(w, 0) == UGC_OK);
	CHECK(ugc_writer_garbage_elimination(w, 1) == UGC_EORDER); /* once */
	prelude(w);
	CHECK(ugc_writer_garbage_elimination(w, 1) == UGC_EORDER); /* before the records */
	ugc_object a = obj(11, 4, 10, "Arena"), e = obj(12, 4, 11, "BP_Enemy_C_3"), p = obj(13, 4, 11, "Pickup_1");
	a.object_flags = 0x1 | 0x2 | 0x80000;                  /* RF_Public, RF_Standalone, RF_WasLoaded */
	a.internal_flags = UGC_IF_ClusterRoot | 0x1234;        /* bits the format does not name are dropped */
	e.size = 5000000000ull;                                /* over 32 bits: clamped */
	e.serial = 0;
	e.internal_flags = UGC_IF_AsyncLoadingPhase1 | UGC_IF_AsyncLoadingPhase2; /* both: "AsyncLoading" */
	p.internal_flags = UGC_IF_Garbage | UGC_IF_AsyncLoadingPhase2;
	p.object_flags = 0x04000000u | 0x40000000u;            /* unassigned bit, RF_MirroredGarbage */
	p.traits = UGC_TRAIT_NOT_READY_FOR_FINISH_DESTROY | UGC_TRAIT_GAME_THREAD_DESTROY;
	CHECK(ugc_writer_object(w, &a) == UGC_OK);
	CHECK(ugc_writer_object(w, &e) == UGC_OK);
	CHECK(ugc_writer_object(w, &p) == UGC_OK);
	CHECK(ugc_writer_ref(w, 11, 12, UGC_REF_STRONG, "Actors[0]") == UGC_OK);
	CHECK(ugc_writer_ref(w, 12, 13, UGC_REF_ARO, NULL) == UGC_OK);
	CHECK(ugc_writer_ref(w, 12, 10, UGC_REF_IMMUTABLE, "ExternalPackage") == UGC_OK);
	CHECK(ugc_writer_ref(w, 12, 13, UGC_REF_WEAK, "LastSeen") == UGC_OK);
	CHECK(ugc_writer_ref(w, 13, 12, UGC_REF_SOFT, "") == UGC_OK);
	CHECK(ugc_writer_ref(w, 13, 999, UGC_REF_STRONG, "Gone") == UGC_OK); /* dangling: kept aside */
	CHECK(ugc_writer_gcref(w, "FStreamableManager", 12, "Handles[0]") == UGC_OK);
	CHECK(ugc_writer_gcref(w, "FGCObject with a space", 13, NULL) == UGC_OK);
	int32_t members[] = {12, -1}, mutables[] = {13}, none[] = {-1};
	CHECK(ugc_writer_cluster(w, 11, members, 2, mutables, 1, none, 1) == UGC_OK);
	CHECK(!exists(path)); /* only the temporary file so far */
	ugc_stats st;
	char err[256];
	CHECK(ugc_writer_close(w, &st, err, sizeof err) == UGC_OK);
	CHECK(st.objects == 9 && st.refs == 6 && st.gcrefs == 2 && st.clusters == 1);
	CHECK(st.sizes_clamped == 1 && st.null_entries == 2 && st.names_cut == 0);
	CHECK(st.text_bytes == st.file_bytes);
	/* the last line is the end record with the counts of each record kind */
	FILE *f = fopen(path, "rb");
	char text[4096];
	size_t len = f ? fread(text, 1, sizeof text - 1, f) : 0;
	if (f)
		fclose(f);
	text[len] = '\0';
	CHECK(len > 13 && strcmp(text + len - 13, "\nend 9 6 2 1\n") == 0);
	CHECK(strstr(text, "\ngarbage-elimination off\n") != NULL);
	/* one phase by its own name, both as AsyncLoading; canonical order */
	CHECK(strstr(text, " RF_MirroredGarbage,AsyncLoadingPhase2,Garbage,NotReadyForFinishDestroy,GameThreadDestroy\n"));
	CHECK(strstr(text, "o 12 0 4 11 BP_Enemy_C_3 4294967295 AsyncLoading\n"));

	heap h;
	if (load(path, &h)) {
		CHECK(0);
		return;
	}
	CHECK_STR(heap_str(&h, h.engine), "5.5.4-37670630+++UE5+Release-5.5");
	CHECK_STR(heap_str(&h, h.label), "after the boss fight");
	CHECK(h.mode == MODE_EDITOR && h.first_gc_index == 5 && h.no_garbage_elimination == 1);
	CHECK(h.objects == 9);
	CHECK(h.cls[12] == 4 && h.outer[12] == 11 && h.outer[10] == OBJ_NONE && h.serial[12] == 0 && h.serial[13] == 113);
	CHECK(h.size[11] == 64 && h.size[12] == UINT32_MAX);
	CHECK(h.oflags[11] == (RF_Public | RF_Standalone | RF_WasLoaded) && h.iflags[11] == IF_ClusterRoot);
	CHECK(h.oflags[13] == RF_MirroredGarbage && h.iflags[13] == (IF_Garbage | IF_AsyncLoadingPhase2));
	CHECK(h.iflags[12] == (IF_AsyncLoadingPhase1 | IF_AsyncLoadingPhase2));
	CHECK(h.traits[13] == (TR_NotReadyForFinishDestroy | TR_GameThreadDestroy));
	CHECK(h.iflags[0] == IF_Native && h.iflags[10] == IF_RootSet);
	char nb[HEAP_NAME_MAX];
	name_of(&h, 12, nb);
	CHECK_STR(nb, "BP_Enemy_C_3");
	/* rows by source, in file order */
	CHECK(h.ref_start[12] - h.ref_start[11] == 1 && h.ref_dst[h.ref_start[11]] == 12);
	CHECK_STR(heap_str(&h, h.ref_prop[h.ref_start[11]]), "Actors[0]");
	uint32_t k = h.ref_start[12];
	CHECK(h.ref_start[13] - k == 3);
	CHECK(h.ref_kind[k] == REF_ARO && h.ref_prop[k] == 0 && h.ref_dst[k] == 13);
	CHECK(h.ref_kind[k + 1] == REF_IMMUTABLE && h.ref_dst[k + 1] == 10);
	CHECK(h.ref_kind[k + 2] == REF_WEAK && strcmp(heap_str(&h, h.ref_prop[k + 2]), "LastSeen") == 0);
	k = h.ref_start[13];
	CHECK(h.ref_start[14] - k == 1 && h.ref_kind[k] == REF_SOFT && h.ref_prop[k] == 0);
	CHECK(h.ndangling == 1 && h.dangling[0].dst == 999 && h.dangling[0].src == 13);
	CHECK(h.ngcrefs == 2);
	CHECK_STR(heap_str(&h, h.gcrefs[0].referencer), "FStreamableManager");
	CHECK_STR(heap_str(&h, h.gcrefs[0].prop), "Handles[0]");
	CHECK_STR(heap_str(&h, h.gcrefs[1].referencer), "FGCObject with a space");
	CHECK(h.gcrefs[1].dst == 13 && h.gcrefs[1].prop == 0);
	CHECK(h.nclusters == 1 && h.clusters[0].root == 11 && h.clusters[0].n_members == 1 &&
	      h.cluster_items[h.clusters[0].members] == 12 && h.clusters[0].n_mutables == 1 &&
	      h.cluster_items[h.clusters[0].mutables] == 13 && h.clusters[0].n_refs == 0);
	heap_free(&h);
	remove(path);
}

TEST(capture_escape_follows_the_format)
{
	/* ugc-snapshot(5) §1.1: %XX for '%', space, tab, '#' at field start,
	 * bytes below 0x21; and a lone '-' (it means none); everything else
	 * stands for itself */
	static const char *const cases[][2] = {
		{"Mesh Component", "Mesh%20Component"}, {"#Hash", "%23Hash"}, {"a#b", "a#b"}, {"-", "%2D"},
		{"--", "--"}, {"100%", "100%25"}, {"Tab\t\n", "Tab%09%0A"}, {"\x7f", "%7F"},
		{"Caf\xc3\xa9", "Caf\xc3\xa9"}, {"", ""}, {"\x01!", "%01!"},
	};
	char out[64];
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		size_t n = ugc_escape(cases[i][0], strlen(cases[i][0]), out);
		CHECK_STR(out, cases[i][1]);
		CHECK(n == strlen(cases[i][1]));
	}
}

TEST(capture_awkward_names_round_trip_byte_for_byte)
{
	/* the names the format must escape, and some it must not */
	static const char *names[] = {
		"Mesh Component", "100%_Done", "#Hash", "Tab\there", "Line\nbreak", "-", "--", "a#b",
		"Caf\xc3\xa9_\xe6\x97\xa5\xe6\x9c\xac", "\177Del", "%41", "Name_0", "Name_007",
	};
	size_t n = sizeof names / sizeof names[0];
	const char *path = tmp_path("awkward.ugct");
	ugc_writer *w = open_or_null(path, NULL);
	if (!w) {
		CHECK(0);
		return;
	}
	CHECK(ugc_writer_label(w, "# not a comment % 100") == UGC_OK);
	prelude(w);
	for (size_t i = 0; i < n; i++) {
		ugc_object o = obj((int32_t)(20 + i), 4, 10, names[i]);
		CHECK(ugc_writer_object(w, &o) == UGC_OK);
		CHECK(ugc_writer_ref(w, 10, (int32_t)(20 + i), UGC_REF_STRONG, names[i]) == UGC_OK);
		CHECK(ugc_writer_gcref(w, names[i], (int32_t)(20 + i), names[n - 1 - i]) == UGC_OK);
	}
	CHECK(ugc_writer_close(w, NULL, NULL, 0) == UGC_OK);
	heap h;
	if (load(path, &h)) {
		CHECK(0);
		return;
	}
	CHECK_STR(heap_str(&h, h.label), "# not a comment % 100");
	char nb[HEAP_NAME_MAX];
	for (size_t i = 0; i < n; i++) {
		obj_t o = (obj_t)(20 + i);
		name_of(&h, o, nb);
		CHECK_STR(nb, names[i]);
		CHECK_STR(heap_str(&h, h.ref_prop[h.ref_start[10] + i]), names[i]);
		CHECK_STR(heap_str(&h, h.gcrefs[i].referencer), names[i]);
		CHECK_STR(heap_str(&h, h.gcrefs[i].prop), names[n - 1 - i]);
	}
	heap_free(&h);
	remove(path);
}

TEST(capture_compressed_output_is_the_same_snapshot)
{
	const char *plain = tmp_path("z.ugct"), *zpath = tmp_path("z.ugct.zst");
	ugc_options o = UGC_OPTIONS_INIT;
	for (int pass = 0; pass < 2; pass++) {
		o.compress = pass ? 19 : 0;
		ugc_writer *w = open_or_null(pass ? zpath : plain, &o);
		if (!w) {
			CHECK(0);
			return;
		}
		prelude(w);
		for (int32_t i = 0; i < 5000; i++) {
			ugc_object x = obj(100 + i, 4, 10, "Thing_1");
			x.name = i % 2 ? "Thing_1" : "Other Thing";
			CHECK(ugc_writer_object(w, &x) == UGC_OK);
			CHECK(ugc_writer_ref(w, 100 + i, 100 + (i * 7) % 5000, (ugc_ref_kind)(i % 5), "P") == UGC_OK);
		}
		ugc_stats st;
		CHECK(ugc_writer_close(w, &st, NULL, 0) == UGC_OK);
		CHECK(pass ? st.file_bytes < st.text_bytes / 4 : st.file_bytes == st.text_bytes);
	}
	FILE *f = fopen(zpath, "rb");
	unsigned char magic[4] = {0};
	CHECK(f && fread(magic, 1, 4, f) == 4);
	if (f)
		fclose(f);
	CHECK(magic[0] == 0x28 && magic[1] == 0xB5 && magic[2] == 0x2F && magic[3] == 0xFD);
	heap a, b;
	if (load(plain, &a) || load(zpath, &b)) {
		CHECK(0);
		return;
	}
	CHECK(a.objects == 5006 && b.objects == 5006 && a.nrefs == 5000 && b.nrefs == 5000);
	for (uint32_t k = 0; k < 5000; k++)
		CHECK(a.ref_dst[k] == b.ref_dst[k] && a.ref_kind[k] == b.ref_kind[k]);
	CHECK(b.ref_kind[b.ref_start[103]] == REF_WEAK && b.ref_dst[b.ref_start[103]] == 121);
	heap_free(&a);
	heap_free(&b);
	remove(plain);
	remove(zpath);
}

/* A string of PREFIX then COUNT copies of UNIT. */
static char *repeat(const char *prefix, const char *unit, size_t count)
{
	size_t p = strlen(prefix), u = strlen(unit);
	char *s = malloc(p + u * count + 1);
	memcpy(s, prefix, p);
	for (size_t i = 0; i < count; i++)
		memcpy(s + p + i * u, unit, u);
	s[p + u * count] = '\0';
	return s;
}

TEST(capture_cuts_long_names_on_a_utf8_boundary)
{
	CHECK(ugc_utf8_cut("abc", 3, 5) == 3);
	CHECK(ugc_utf8_cut("ab\xc3\xa9", 4, 3) == 2);       /* do not keep half an e-acute */
	CHECK(ugc_utf8_cut("ab\xe2\x82\xac", 5, 4) == 2);   /* nor two thirds of a euro sign */
	CHECK(ugc_utf8_cut("ab\xe2\x82\xac", 5, 5) == 5);

	/* 1 + 2 * 800 = 1601 bytes of name: 1 + 2 * 511 = 1023 bytes fit */
	char *name = repeat("x", "\xc3\xa9", 800);
	/* 2 + 3 * 2000 bytes of property: 2 + 3 * 1364 = 4094 fit in 4096 */
	char *prop = repeat("ab", "\xe2\x82\xac", 2000);
	const char *path = tmp_path("long.ugct");
	ugc_writer *w = open_or_null(path, NULL);
	if (!w) {
		CHECK(0);
		return;
	}
	prelude(w);
	ugc_object o = obj(11, 4, 10, name);
	CHECK(ugc_writer_object(w, &o) == UGC_OK);
	CHECK(ugc_writer_ref(w, 11, 10, UGC_REF_STRONG, prop) == UGC_OK);
	CHECK(ugc_writer_gcref(w, prop, 11, prop) == UGC_OK);
	ugc_stats st;
	CHECK(ugc_writer_close(w, &st, NULL, 0) == UGC_OK);
	CHECK(st.names_cut == 4);
	heap h;
	if (load(path, &h) == 0) {
		char nb[HEAP_NAME_MAX];
		CHECK(name_of(&h, 11, nb) == 1023 && memcmp(nb, name, 1023) == 0);
		const char *p = heap_str(&h, h.ref_prop[h.ref_start[11]]);
		CHECK(strlen(p) == 4094 && memcmp(p, prop, 4094) == 0);
		CHECK(strlen(heap_str(&h, h.gcrefs[0].referencer)) == 4094);
		heap_free(&h);
	} else {
		CHECK(0);
	}
	/* strict: refused, nothing written, the writer goes on */
	ugc_options opt = UGC_OPTIONS_INIT;
	opt.strict_lengths = 1;
	opt.overwrite = 1;
	w = open_or_null(path, &opt);
	if (!w) {
		CHECK(0);
		return;
	}
	prelude(w);
	CHECK(ugc_writer_object(w, &o) == UGC_ETOOLONG);
	CHECK(strstr(ugc_writer_error(w), "1601 bytes") != NULL);
	CHECK(ugc_writer_ref(w, 10, 10, UGC_REF_STRONG, prop) == UGC_ETOOLONG);
	CHECK(ugc_writer_gcref(w, prop, 10, NULL) == UGC_ETOOLONG);
	CHECK(ugc_writer_gcref(w, "ok", 10, prop) == UGC_ETOOLONG);
	o.name = name + 1601 - 1023; /* exactly 1023 bytes, starting on a character */
	CHECK(ugc_writer_object(w, &o) == UGC_OK);
	CHECK(ugc_writer_close(w, &st, NULL, 0) == UGC_OK);
	CHECK(st.objects == 7 && st.refs == 0 && st.gcrefs == 0 && st.names_cut == 0);
	if (load(path, &h) == 0) {
		CHECK(h.objects == 7 && h.nrefs == 0 && h.ngcrefs == 0);
		heap_free(&h);
	}
	free(name);
	free(prop);
	remove(path);
}

TEST(capture_misuse_returns_codes_and_writes_nothing)
{
	const char *path = tmp_path("misuse.ugct");
	char err[256];
	ugc_writer *w = (ugc_writer *)1;
	ugc_options o = UGC_OPTIONS_INIT;
	/* open */
	CHECK(ugc_writer_open(&w, NULL, NULL, err, sizeof err) == UGC_EINVAL && w == NULL);
	CHECK(ugc_writer_open(NULL, path, NULL, err, sizeof err) == UGC_EINVAL);
	o.compress = 23;
	CHECK(ugc_writer_open(&w, path, &o, err, sizeof err) == UGC_EINVAL && strstr(err, "compression level 23"));
	o.compress = 0;
	o.alloc = NULL;
	o.free = count_free;
	CHECK(ugc_writer_open(&w, path, &o, err, sizeof err) == UGC_EINVAL);
	o.free = NULL;
	CHECK(ugc_writer_open(&w, "/nonexistent-dir/x.ugct", &o, err, sizeof err) == UGC_EIO &&
	      strstr(err, "/nonexistent-dir/x.ugct.tmp") != NULL);
	FILE *f = fopen(path, "w");
	if (f) {
		fputs("keep\n", f);
		fclose(f);
	}
	CHECK(ugc_writer_open(&w, path, &o, err, sizeof err) == UGC_EEXIST && w == NULL && strstr(err, "already exists"));
	/* NULL writer */
	ugc_object x = obj(11, 4, 10, "A");
	CHECK(ugc_writer_object(NULL, &x) == UGC_EINVAL && ugc_writer_mode(NULL, 0) == UGC_EINVAL &&
	      ugc_writer_ref(NULL, 1, 2, UGC_REF_STRONG, NULL) == UGC_EINVAL && ugc_writer_close(NULL, NULL, NULL, 0) == UGC_EINVAL);

	o.overwrite = 1;
	w = open_or_null(path, &o);
	if (!w) {
		CHECK(0);
		return;
	}
	f = fopen(path, "r");
	char line[16] = "";
	CHECK(f && fgets(line, sizeof line, f) && strcmp(line, "keep\n") == 0); /* untouched until close */
	if (f)
		fclose(f);
	CHECK(ugc_writer_engine(w, NULL) == UGC_EINVAL);
	CHECK(ugc_writer_first_gc_index(w, -3) == UGC_EINVAL);
	CHECK(ugc_writer_mode(w, 0) == UGC_OK);
	CHECK(ugc_writer_mode(w, 1) == UGC_EORDER && strstr(ugc_writer_error(w), "twice"));
	prelude(w);
	CHECK(ugc_writer_engine(w, "5.5") == UGC_EORDER && strstr(ugc_writer_error(w), "before the first record"));
	CHECK(ugc_writer_first_gc_index(w, 5) == UGC_EORDER);
	/* objects */
	CHECK(ugc_writer_object(w, NULL) == UGC_EINVAL);
	x.name = "";
	CHECK(ugc_writer_object(w, &x) == UGC_EINVAL);
	x.name = NULL;
	CHECK(ugc_writer_object(w, &x) == UGC_EINVAL);
	x = obj(-1, 4, 10, "A");
	CHECK(ugc_writer_object(w, &x) == UGC_EINVAL);
	x = obj(INT32_MAX, 4, 10, "A");
	CHECK(ugc_writer_object(w, &x) == UGC_EINVAL);
	x = obj(11, -1, 10, "A");
	CHECK(ugc_writer_object(w, &x) == UGC_EINVAL);
	x = obj(11, 4, -2, "A");
	CHECK(ugc_writer_object(w, &x) == UGC_EINVAL);
	x = obj(4, 4, 10, "Again");
	CHECK(ugc_writer_object(w, &x) == UGC_EDUP && strstr(ugc_writer_error(w), "INDEX 4 written twice"));
	x = obj(11, 4, 10, "A");
	CHECK(ugc_writer_object(w, &x) == UGC_OK);
	/* references */
	CHECK(ugc_writer_ref(w, -1, 11, UGC_REF_STRONG, NULL) == UGC_EINVAL);
	CHECK(ugc_writer_ref(w, 11, -1, UGC_REF_STRONG, NULL) == UGC_EINVAL);
	CHECK(ugc_writer_ref(w, 11, 10, (ugc_ref_kind)5, NULL) == UGC_EINVAL && strstr(ugc_writer_error(w), "kind 5"));
	CHECK(ugc_writer_ref(w, 11, 10, (ugc_ref_kind)-1, NULL) == UGC_EINVAL);
	CHECK(ugc_writer_gcref(w, "", 11, NULL) == UGC_EINVAL);
	CHECK(ugc_writer_gcref(w, NULL, 11, NULL) == UGC_EINVAL);
	CHECK(ugc_writer_gcref(w, "F", -5, NULL) == UGC_EINVAL);
	int32_t big[] = {INT32_MAX};
	CHECK(ugc_writer_cluster(w, -1, NULL, 0, NULL, 0, NULL, 0) == UGC_EINVAL);
	CHECK(ugc_writer_cluster(w, 11, big, 1, NULL, 0, NULL, 0) == UGC_EINVAL);
	CHECK(ugc_writer_cluster(w, 11, NULL, 2, NULL, 0, NULL, 0) == UGC_EINVAL);
	CHECK(ugc_writer_ref(w, 11, 10, UGC_REF_STRONG, "Ok") == UGC_OK);
	ugc_stats st;
	CHECK(ugc_writer_close(w, &st, err, sizeof err) == UGC_OK);
	CHECK(st.objects == 7 && st.refs == 1 && st.gcrefs == 0 && st.clusters == 0);
	heap h;
	if (load(path, &h) == 0) { /* only what was accepted: 7 objects, 1 reference */
		CHECK(h.objects == 7 && h.nrefs == 1 && h.ngcrefs == 0 && h.nclusters == 0 && h.mode == MODE_GAME);
		heap_free(&h);
	} else {
		CHECK(0);
	}
	/* abort leaves nothing */
	remove(path);
	w = open_or_null(path, NULL);
	if (w) {
		prelude(w);
		CHECK(!exists(path));
		ugc_writer_abort(w);
		CHECK(!exists(path));
		f = fopen(tmp_path("misuse.ugct.tmp"), "r");
		CHECK(f == NULL);
		if (f)
			fclose(f);
	}
}

TEST(capture_out_of_memory_is_sticky_and_leaves_no_file)
{
	const char *path = tmp_path("nomem.ugct");
	struct counter c = {0, 0, 5}; /* writer, path, tmp, buffer, bitmap: the 6th allocation fails */
	ugc_options o = UGC_OPTIONS_INIT;
	o.alloc = count_alloc;
	o.free = count_free;
	o.user = &c;
	ugc_writer *w = open_or_null(path, &o);
	if (!w) {
		CHECK(0);
		return;
	}
	ugc_object x = obj(0, 0, UGC_NONE, "A");
	CHECK(ugc_writer_object(w, &x) == UGC_OK);              /* bitmap: the 5th allocation */
	x = obj(100000, 0, UGC_NONE, "B");
	CHECK(ugc_writer_object(w, &x) == UGC_ENOMEM);          /* the bitmap cannot grow */
	CHECK(strstr(ugc_writer_error(w), "out of memory") != NULL);
	CHECK(ugc_writer_ref(w, 0, 0, UGC_REF_STRONG, NULL) == UGC_ENOMEM); /* sticky */
	CHECK(ugc_writer_label(w, "x") == UGC_ENOMEM);
	char err[256];
	CHECK(ugc_writer_close(w, NULL, err, sizeof err) == UGC_ENOMEM && strstr(err, "out of memory"));
	CHECK(!exists(path) && !exists(tmp_path("nomem.ugct.tmp")));
	CHECK(c.live == 0);
}

TEST(capture_streams_huge_counts_in_fixed_memory)
{
	/* 200,000 objects and 2,000,000 references (about 40 MB of text) go
	 * through the writer; its own memory peaks at its buffer plus the
	 * index bitmap (200,000 bits), whatever the counts. */
	enum { N = 200000, R = 10 };
	const char *path = tmp_path("huge.ugct.zst");
	struct counter c = {0, 0, -1};
	ugc_options o = UGC_OPTIONS_INIT;
	o.alloc = count_alloc;
	o.free = count_free;
	o.user = &c;
	o.compress = 1;
	ugc_writer *w = open_or_null(path, &o);
	if (!w) {
		CHECK(0);
		return;
	}
	prelude(w);
	int bad = 0;
	for (int32_t i = 0; i < N; i++) {
		ugc_object x = obj(100 + i, 4, 10, "StaticMeshComponent_12");
		bad |= ugc_writer_object(w, &x);
		for (int32_t k = 0; k < R; k++)
			bad |= ugc_writer_ref(w, 100 + i, 100 + (i + k + 1) % N, UGC_REF_STRONG, "AttachChildren[3]");
	}
	CHECK(bad == 0);
	ugc_stats st;
	CHECK(ugc_writer_close(w, &st, NULL, 0) == UGC_OK);
	CHECK(st.objects == N + 6 && st.refs == (uint64_t)N * R);
	CHECK(st.text_bytes > 40u * 1000 * 1000);
	CHECK(c.peak < 1024 * 1024 && c.live == 0);
	heap h;
	if (load(path, &h) == 0) {
		CHECK(h.objects == N + 6 && h.nrefs == (uint32_t)N * R);
		/* the last object's references wrap around to the first ones */
		uint32_t k = h.ref_start[100 + N - 1];
		CHECK(h.ref_start[100 + N] - k == R && h.ref_dst[k] == 100 && h.ref_dst[k + R - 1] == 100 + R - 1);
		heap_free(&h);
	} else {
		CHECK(0);
	}
	remove(path);
}
