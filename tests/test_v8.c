/* test_v8.c — the V8 .heapsnapshot reader: the mapping onto the heap model
 * on hand-written snapshots (expected values worked out by hand from the
 * mapping in ugc-snapshot(5) §3.1), the same heap whatever the chunking
 * and the thread count, every kind of bad input with the offset it must
 * name, and a real snapshot written by node (testdata/v8/) checked against
 * the figures the writing script computed on its own. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/dominators.h"
#include "base/fileio.h"
#include "snapshot/snapshot.h"
#include "tests/unit.h"

#define META \
	"{\"snapshot\":{\"meta\":{\"node_fields\":[\"type\",\"name\",\"id\",\"self_size\",\"edge_count\"," \
	"\"trace_node_id\",\"detachedness\"],\"node_types\":[[\"hidden\",\"array\",\"string\",\"object\"," \
	"\"code\",\"closure\",\"regexp\",\"number\",\"native\",\"synthetic\",\"concatenated string\"," \
	"\"sliced string\",\"symbol\",\"bigint\",\"object shape\"],\"string\",\"number\",\"number\",\"number\"," \
	"\"number\",\"number\"],\"edge_fields\":[\"type\",\"name_or_index\",\"to_node\"],\"edge_types\":[[" \
	"\"context\",\"element\",\"property\",\"internal\",\"hidden\",\"shortcut\",\"weak\"],\"string_or_number\"," \
	"\"node\"]},"

/* A snapshot with NODE_COUNT nodes and EDGE_COUNT edges; NODES, EDGES and
 * STRINGS are the arrays' contents. */
static char *doc(int node_count, int edge_count, const char *nodes, const char *edges, const char *strings)
{
	size_t n = strlen(META) + strlen(nodes) + strlen(edges) + strlen(strings) + 512;
	char *d = malloc(n);
	snprintf(d, n,
		 META "\"node_count\":%d,\"edge_count\":%d},\n\"nodes\":[%s],\n\"edges\":[%s],\n"
		 "\"trace_function_infos\":[],\"trace_tree\":[],\"samples\":[],\"locations\":[],\n\"strings\":[%s]}\n",
		 node_count, edge_count, nodes, edges, strings);
	return d;
}

/* Node types: 0 hidden 2 string 3 object 4 code 5 closure 8 native 9 synthetic.
 * Edge types: 0 context 1 element 2 property 3 internal 4 hidden 5 shortcut 6 weak. */
#define MAP_STRINGS "\"\",\"Window\",\"Foo\",\"hello\",\"f\",\"Bar\",\"a\",\"b\",\"global\",\"x\",\"(GC roots)\"," \
	"\"system / Context\""
#define MAP_NODES \
	"9,0,1,0,3,0,0,\n3,2,3,10,2,0,0,\n3,2,5,20,1,0,0,\n2,3,7,16,0,0,0,\n5,4,9,32,1,0,0,\n8,5,11,40,0,0,0,\n" \
	"0,11,13,8,0,0,0,\n4,9,15,4,0,0,0,\n3,1,17,50,1,0,0"
#define MAP_EDGES \
	"1,1,7, 5,8,56, 4,0,42,\n2,6,14, 6,7,21,\n5,9,28,\n0,6,35,\n3,7,49"

static char *mapping_doc(void) { return doc(9, 8, MAP_NODES, MAP_EDGES, MAP_STRINGS); }

static int parse_v8(const char *text, const v8_options *opt, heap *h, char *err, size_t errsize)
{
	heap_init(h);
	err[0] = '\0';
	int rc = v8_parse("test.heapsnapshot", text, strlen(text), opt, h, err, errsize);
	if (rc)
		heap_free(h);
	return rc;
}

static const char *name_of(const heap *h, obj_t i)
{
	static char buf[HEAP_NAME_MAX];
	heap_name(h, i, buf, sizeof buf);
	return buf;
}

/* Object I's references as "DST:KIND:PROPERTY ..." */
static const char *refs_of(const heap *h, obj_t i)
{
	static char buf[1024];
	size_t n = 0;
	buf[0] = '\0';
	for (uint32_t k = h->ref_start[i]; k < h->ref_start[i + 1] && n < sizeof buf - 100; k++)
		n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%d:%s:%s", n ? " " : "", h->ref_dst[k],
				      ref_kind_names[h->ref_kind[k]], heap_str(h, h->ref_prop[k]));
	return buf;
}

TEST(v8_mapping_follows_the_documented_rules)
{
	char *d = mapping_doc(), err[SNAP_ERR_MAX];
	heap h;
	int rc = parse_v8(d, NULL, &h, err, sizeof err);
	CHECK(rc == 0);
	if (rc) {
		printf("    %s\n", err);
		free(d);
		return;
	}
	/* pool: /V8, Package, Class, then classes by first use:
	 * (synthetic) Foo (string) (closure) Bar (system) (compiled code) Window */
	CHECK(h.first_gc_index == 11 && h.slots == 20 && h.objects == 20);
	const char *pool[] = {"/V8", "Package", "Class", "(synthetic)", "Foo", "(string)", "(closure)", "Bar",
			      "(system)", "(compiled code)", "Window"};
	for (obj_t p = 0; p < 11; p++)
		CHECK_STR(name_of(&h, p), pool[p]);
	CHECK(h.cls[0] == 1 && h.outer[0] == OBJ_NONE && heap_is_package(&h, 0));
	for (obj_t p = 1; p < 11; p++)
		CHECK(h.cls[p] == 2 && h.outer[p] == 0);
	obj_t want_cls[] = {3, 4, 4, 5, 6, 7, 8, 9, 10};
	const char *want_name[] = {"@1", "Foo@3", "Foo@5", "hello@7", "f@9", "Bar@11", "system / Context@13",
				   "x@15", "Window@17"};
	uint32_t want_size[] = {0, 10, 20, 16, 32, 40, 8, 4, 50};
	for (int i = 0; i < 9; i++) {
		CHECK(h.cls[11 + i] == want_cls[i]);
		CHECK(h.outer[11 + i] == 0);
		CHECK_STR(name_of(&h, 11 + i), want_name[i]);
		CHECK(h.size[11 + i] == want_size[i]);
		CHECK(h.oflags[11 + i] == 0 && h.serial[11 + i] == 0 && h.traits[11 + i] == 0);
		CHECK(h.iflags[11 + i] == (i == 0 ? IF_RootSet : 0));
	}
	char *p = heap_path(&h, 12);
	CHECK_STR(p, "/V8.Foo@3");
	free(p);
	CHECK(heap_find_path(&h, "/V8.hello@7") == 14);
	CHECK(h.mode == MODE_GAME);
	CHECK_STR(heap_str(&h, h.engine), "v8");
	/* edges: element/hidden get [N]; a shortcut from the root is strong,
	 * any other soft; weak stays weak */
	CHECK(h.nrefs == 8 && h.ndangling == 0);
	CHECK_STR(refs_of(&h, 11), "12:strong:[1] 19:strong:global 17:strong:[0]");
	CHECK_STR(refs_of(&h, 12), "13:strong:a 14:weak:b");
	CHECK_STR(refs_of(&h, 13), "15:soft:x");
	CHECK_STR(refs_of(&h, 15), "16:strong:a");
	CHECK_STR(refs_of(&h, 19), "18:strong:b");
	CHECK_STR(refs_of(&h, 14), "");
	char msg[256];
	obj_t where;
	uint32_t cid;
	CHECK(heap_validate(&h, msg, sizeof msg, &where, &cid) == HP_OK);
	/* the GC: only strong edges from the root keep objects; hello (weak
	 * only), f (a non-root shortcut only) and Bar (only through f) go */
	gc_result r;
	CHECK(run_gc(&h, MODE_GAME, 2, &r) == 0);
	CHECK_STR(purged_list(&r), "14 15 16");
	gc_result_free(&r);
	heap_free(&h);
	free(d);
}

/* The links counted at their ends (in_links), by hand for the mapping
 * document: every Outer is /V8 (0), the pool's classes are Package (1)
 * and Class (2), the nodes' are want_cls above, and the 8 edges enter one
 * node each but the root.  Whatever changes the rows or the slots drops
 * the counts. */
TEST(v8_links_are_counted_at_their_ends)
{
	char *d = mapping_doc(), err[SNAP_ERR_MAX];
	heap h;
	int rc = parse_v8(d, NULL, &h, err, sizeof err);
	CHECK(rc == 0 && h.slots == 20 && h.in_links);
	if (rc || h.slots != 20 || !h.in_links) {
		free(d);
		return;
	}
	const uint32_t want[20] = {19, 1, 10, 1, 2, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1};
	for (int i = 0; i < 20; i++)
		CHECK(h.in_links[i] == want[i]);
	CHECK(heap_grow_slots(&h, 21) == 0 && !h.in_links);
	heap_free(&h);
	free(d);
	/* a heap of two objects and a free slot, given counts */
	heap_init(&h);
	CHECK(heap_grow_slots(&h, 3) == 0);
	h.cls[0] = h.cls[1] = 0;
	h.in_links = calloc(3, sizeof *h.in_links);
	obj_t *from = malloc(sizeof *from), *to = malloc(sizeof *to);
	uint32_t *prop = calloc(1, sizeof *prop);
	uint8_t *kind = calloc(1, 1);
	from[0] = 0;
	to[0] = 1;
	CHECK(heap_set_refs(&h, from, to, prop, kind, 1) == 0 && !h.in_links);
	h.in_links = calloc(3, sizeof *h.in_links);
	CHECK(heap_trim_slots(&h) == 0 && h.slots == 2 && !h.in_links);
	heap_free(&h);
}

/* The canonical text of a heap, for comparing two loads. */
static char *canonical(const heap *h)
{
	char *t = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&t, &n);
	text_write(h, f);
	fclose(f);
	return t;
}

/* How many of the chunkings (chunks of 1 to 64 bytes, handed over whole or
 * 3 bytes at a time, on 1 or 3 threads) read D as anything but the heap
 * whose canonical text is WANT. */
static int chunkings_differing(const char *d, const char *want)
{
	heap h;
	char err[SNAP_ERR_MAX];
	int bad = 0;
	for (size_t chunk = 1; chunk <= 64; chunk += (chunk < 16 ? 1 : 16))
		for (int threads = 1; threads <= 3; threads += 2)
			for (size_t step = 0; step <= 3; step += 3) {
				v8_options opt = {.chunk = chunk, .step = step, .threads = threads};
				if (parse_v8(d, &opt, &h, err, sizeof err)) {
					printf("    chunk %zu step %zu threads %d: %s\n", chunk, step, threads, err);
					bad++;
					continue;
				}
				char *got = canonical(&h);
				bad += strcmp(got, want) != 0;
				free(got);
				heap_free(&h);
			}
	return bad;
}

/* The canonical text of the mapping document's heap, read whole. */
static char *mapping_canonical(void)
{
	char *d = mapping_doc(), err[SNAP_ERR_MAX];
	heap h;
	CHECK(parse_v8(d, NULL, &h, err, sizeof err) == 0);
	char *t = canonical(&h);
	heap_free(&h);
	free(d);
	return t;
}

/* The numbers of CSV (comma-separated, blanks and newlines between) with
 * columns I and J of each WIDTH-wide record swapped: a malloc'd list. */
static char *swap_columns(const char *csv, int width, int i, int j)
{
	long v[256];
	int n = 0;
	for (const char *p = csv; *p && n < 256;) {
		char *end;
		v[n++] = strtol(p, &end, 10);
		for (p = end; *p == ',' || *p == ' ' || *p == '\n'; p++)
			;
	}
	for (int r = 0; r + width <= n; r += width) {
		long t = v[r + i];
		v[r + i] = v[r + j];
		v[r + j] = t;
	}
	char *out = malloc((size_t)n * 24 + 1), *o = out;
	for (int k = 0; k < n; k++)
		o += sprintf(o, "%s%ld", k ? "," : "", v[k]);
	*o = '\0';
	return out;
}

/* The mapping document with "name" before "type" in both field lists,
 * the values moved with them; the *_types lists aligned with the fields
 * when ALIGNED, else left as they were (the type names first). */
static char *reordered_doc(int aligned)
{
	const char *types = "[\"hidden\",\"array\",\"string\",\"object\",\"code\",\"closure\",\"regexp\",\"number\","
			    "\"native\",\"synthetic\",\"concatenated string\",\"sliced string\",\"symbol\",\"bigint\","
			    "\"object shape\"]";
	const char *etypes = "[\"context\",\"element\",\"property\",\"internal\",\"hidden\",\"shortcut\",\"weak\"]";
	char *nodes = swap_columns(MAP_NODES, 7, 0, 1), *edges = swap_columns(MAP_EDGES, 3, 0, 1);
	size_t n = strlen(nodes) + strlen(edges) + strlen(MAP_STRINGS) + 2048;
	char *d = malloc(n);
	snprintf(d, n,
		 "{\"snapshot\":{\"meta\":{\"node_types\":[%s%s%s,\"number\",\"number\",\"number\",\"number\",\"number\"],"
		 "\"node_fields\":[\"name\",\"type\",\"id\",\"self_size\",\"edge_count\",\"trace_node_id\",\"detachedness\"],"
		 "\"edge_types\":[%s%s%s,\"node\"],\"edge_fields\":[\"name_or_index\",\"type\",\"to_node\"]},"
		 "\"node_count\":9,\"edge_count\":8},\n\"nodes\":[%s],\n\"edges\":[%s],\n\"strings\":[%s]}\n",
		 aligned ? "\"string\"," : "", types, aligned ? "" : ",\"string\"", aligned ? "\"string_or_number\"," : "",
		 etypes, aligned ? "" : ",\"string_or_number\"", nodes, edges, MAP_STRINGS);
	free(nodes);
	free(edges);
	return d;
}

/* meta's fields may come in any order, each *_types entry at its field's
 * place (the format allows it): the same heap; a type list that is not at
 * the "type" field's place is refused, not read as if it were. */
TEST(v8_meta_fields_in_another_order)
{
	char *d = reordered_doc(1), *want = mapping_canonical();
	CHECK(chunkings_differing(d, want) == 0);
	free(d);
	free(want);
	char *bad = reordered_doc(0), err[SNAP_ERR_MAX];
	heap h;
	CHECK(parse_v8(bad, NULL, &h, err, sizeof err) != 0 &&
	      strstr(err, "snapshot.meta.node_types: no list of type names at the \"type\" field's place (1)"));
	free(bad);
}

TEST(v8_same_heap_whatever_the_chunks_and_threads)
{
	char *d = mapping_doc(), *want = mapping_canonical();
	CHECK(chunkings_differing(d, want) == 0);
	free(want);
	free(d);
}

/* Object I's whole name ("NAME@ID"), in a buffer of its own per call site. */
#define NAME_OF(h, i) (heap_name((h), (i), name_buf, sizeof name_buf), name_buf)
static char name_buf[HEAP_NAME_MAX];

TEST(v8_strings_are_decoded_and_cut)
{
	/* escapes, a surrogate pair, a lone surrogate and NUL (both U+FFFD),
	 * and a name long enough to be cut so that "@id" fits in 1023 bytes */
	char strings[4096];
	size_t n = (size_t)snprintf(strings, sizeof strings, "\"\",\"a\\\"b\\\\c\\n\\u00e9\\ud83d\\ude00\",\"x\\ud800y\\u0000\",\"");
	for (int k = 0; k < 1100; k++)
		n += (size_t)snprintf(strings + n, sizeof strings - n, k % 2 ? "\\u00e9" : "z"); /* 'z', 'é' alternate */
	snprintf(strings + n, sizeof strings - n, "\"");
	char *d = doc(4, 0, "9,0,1,0,0,0,0,2,1,3,0,0,0,0,2,2,5,0,0,0,0,2,3,123456,0,0,0,0", "", strings), err[SNAP_ERR_MAX];
	heap h;
	CHECK(parse_v8(d, NULL, &h, err, sizeof err) == 0);
	CHECK_STR(NAME_OF(&h, h.first_gc_index + 1), "a\"b\\c\n\xc3\xa9\xf0\x9f\x98\x80@3");
	CHECK_STR(NAME_OF(&h, h.first_gc_index + 2), "x\xef\xbf\xbdy\xef\xbf\xbd@5");
	/* 1023 - len("@123456") = 1016 bytes of "zé" pairs (3 bytes each): 338
	 * pairs are 1014 bytes, then 'z' = 1015; the next 'é' would end at 1017 */
	const char *long_name = NAME_OF(&h, h.first_gc_index + 3);
	CHECK(strlen(long_name) == 1015 + 7);
	CHECK(strcmp(long_name + 1015, "@123456") == 0 && long_name[1014] == 'z');
	heap_free(&h);
	free(d);
}

/* One bad document: the error must be "test.heapsnapshot: offset N: ..."
 * where N is where MARK (the MARK_NTH occurrence) starts in the text, or
 * the text's length for MARK NULL, and the message must contain WANT. */
static void bad_case(const char *text, const char *mark, int mark_nth, const char *want)
{
	long off = (long)strlen(text);
	if (mark) {
		const char *p = text;
		for (int k = 0; k <= mark_nth && p; k++)
			p = strstr(k ? p + 1 : p, mark);
		off = p ? p - text : -1;
	}
	char expect[128];
	snprintf(expect, sizeof expect, "test.heapsnapshot: offset %ld: ", off);
	for (int threads = 1; threads <= 2; threads++)
		for (size_t chunk = 0; chunk <= 5; chunk += 5) {
			v8_options opt = {.chunk = chunk, .step = 0, .threads = threads};
			heap h;
			char err[SNAP_ERR_MAX];
			int rc = parse_v8(text, &opt, &h, err, sizeof err);
			int ok = rc != 0 && strncmp(err, expect, strlen(expect)) == 0 && strstr(err, want) &&
				 !strchr(err, '\n') && h.slots == 0;
			if (!ok) {
				test_failed++;
				printf("    want \"%s...%s\"\n    got  \"%s\" (rc %d, threads %d, chunk %zu)\n", expect, want,
				       rc ? err : "", rc, threads, chunk);
				if (!rc)
					heap_free(&h);
				return;
			}
		}
}

/* MAPPING_DOC with its "locations" array holding BODY (malloc'd). */
static char *with_locations(const char *body)
{
	char *d = mapping_doc(), *at = strstr(d, "\"locations\":[]");
	size_t n = strlen(d) + strlen(body) + 1;
	char *out = malloc(n);
	snprintf(out, n, "%.*s\"locations\":[%s]%s", (int)(at - d), d, body, at + strlen("\"locations\":[]"));
	free(d);
	return out;
}

/* The arrays this tool skips ("samples", "locations": megabytes of numbers
 * in a real snapshot, skipped in a tight loop) are still checked as JSON:
 * numbers in them skip to the same heap however the chunks cut them, and a
 * misplaced comma or a missing one fails at its byte. */
TEST(v8_skipped_number_arrays_are_checked)
{
	char *want = mapping_canonical();
	char *d = with_locations("0,12,-3,4.5e6,1234567890 , 8,\n9,[1,2],77,-0.5E-2,3");
	CHECK(chunkings_differing(d, want) == 0);
	free(d);
	d = with_locations("1,2,,33333");
	bad_case(d, ",33333", 0, "expected a JSON value"); /* the second comma */
	free(d);
	d = with_locations("1,2,");
	bad_case(d, "],\n\"strings", 0, "expected a JSON value");
	free(d);
	d = with_locations("1,2 3");
	bad_case(d, "3],\n\"strings", 0, "expected ',' or ']'");
	free(d);
	d = with_locations("1,2x");
	bad_case(d, "x]", 0, "expected ',' or ']'");
	free(d);
	d = with_locations("{\"a\":1,2}"); /* in an object, numbers after a comma are no run */
	bad_case(d, "2}", 0, "expected a member name");
	free(d);
	/* each is a JSON number (issue #29, also seen), a long one across
	 * chunks too; one that is not fails at its first byte */
	d = with_locations("1234567890123456789012345678901234567890.5e-10,0,0.0,-0,1E+5,[-7e9]");
	CHECK(chunkings_differing(d, want) == 0);
	free(d);
	static const char *const bad[] = {"007", "-01", "1.", "2.e3", "3e", "4e+", "-", "0x1", "1..2", "5-6"};
	for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
		char body[64];
		snprintf(body, sizeof body, "1,%s,3", bad[k]);
		d = with_locations(body);
		if (strcmp(bad[k], "0x1") == 0) /* 0 is a number; the x after it is no comma */
			bad_case(d, "x1,3", 0, "expected ',' or ']'");
		else
			bad_case(d, bad[k], 0, "a number that is not JSON");
		free(d);
	}
	free(want);
}

/* A long nodes array, its ']' after PAD blanks: the value count is taken
 * 16 bytes at a time in blocks of 4080, so the ']' falls at every place
 * in a vector and in a block; one value too many is still seen. */
static char *long_nodes_doc(int nodes, int pad, int extra)
{
	size_t cap = (size_t)nodes * 40 + (size_t)pad + 64, len = 0;
	char *body = malloc(cap);
	for (int i = 0; i < nodes; i++)
		len += (size_t)snprintf(body + len, cap - len, "%s3,1,%d,%d,0,0,0", i ? "," : "", 2 * i + 1, i % 1000);
	if (extra)
		len += (size_t)snprintf(body + len, cap - len, ",0");
	memset(body + len, ' ', (size_t)pad);
	body[len + (size_t)pad] = '\0';
	char *d = doc(nodes, 0, body, "", "\"\",\"A\"");
	free(body);
	return d;
}

TEST(v8_long_arrays_are_counted_across_blocks)
{
	char err[SNAP_ERR_MAX];
	heap h;
	int bad = 0;
	for (int nodes = 600; nodes <= 2400; nodes += 1800) /* one block of 4080 bytes and several */
		for (int pad = 0; pad < 40; pad++) {
			char *d = long_nodes_doc(nodes, pad, 0);
			v8_options opt = {.chunk = pad % 2 ? 0 : 8192 + (size_t)pad, .threads = 2};
			if (parse_v8(d, &opt, &h, err, sizeof err) || h.slots - (uint32_t)h.first_gc_index != (uint32_t)nodes) {
				printf("    %d nodes, pad %d: %s\n", nodes, pad, err);
				bad++;
			} else {
				heap_free(&h);
			}
			free(d);
			d = long_nodes_doc(nodes, pad, 1);
			if (parse_v8(d, &opt, &h, err, sizeof err) == 0 || !strstr(err, "values where node_count/edge_count say")) {
				printf("    %d nodes, pad %d, a value too many: %s\n", nodes, pad, err);
				bad++;
			}
			free(d);
		}
	CHECK(bad == 0);
}

TEST(v8_bad_input_names_the_offset)
{
	char *d;
	/* truncated in the nodes, the strings, and right after the header */
	char *good = mapping_doc();
	size_t len = strlen(good);
	char *cut = strndup(good, (size_t)(strstr(good, "3,2,5") - good));
	bad_case(cut, NULL, 0, "unexpected end of the file");
	free(cut);
	cut = strndup(good, (size_t)(strstr(good, "hello") - good));
	bad_case(cut, NULL, 0, "unexpected end of the file in a string");
	free(cut);
	cut = strndup(good, len - 2);
	bad_case(cut, NULL, 0, "unexpected end of the file");
	free(cut);
	/* wrong field counts: a value missing, a value too many */
	d = doc(2, 0, "9,0,1,0,0,0,0,3,1,3,0,0,0", "", "\"\",\"A\"");
	bad_case(d, "],\n\"edges", 0, "13 values where node_count/edge_count say 14");
	free(d);
	d = doc(1, 0, "9,0,1,0,0,0,0,3", "", "\"\"");
	bad_case(d, "],\n\"edges", 0, "8 values where");
	free(d);
	/* to_node out of range, and not the start of a node */
	d = doc(2, 1, "9,0,1,0,1,0,0,3,1,3,0,0,0,0", "2,1,14", "\"\",\"A\"");
	bad_case(d, "14]", 0, "to_node 14 is no node");
	free(d);
	d = doc(2, 1, "9,0,1,0,1,0,0,3,1,3,0,0,0,0", "2,1,8", "\"\",\"A\"");
	bad_case(d, "8]", 0, "to_node 8 is no node (a multiple of 7 below 14)");
	free(d);
	/* edge counts that do not add up */
	d = doc(2, 1, "9,0,1,0,2,0,0,3,1,3,0,0,0,0", "2,1,7", "\"\",\"A\"");
	bad_case(d, "[9,0", 0, "edge_count fields add up to 2, but snapshot.edge_count is 1");
	free(d);
	/* strings out of range: a node name, an edge name */
	d = doc(2, 1, "9,0,1,0,1,0,0,3,99,3,0,0,0,0", "2,1,7", "\"\",\"A\"");
	bad_case(d, "99", 0, "node name: string index 99 out of range (2 strings)");
	free(d);
	d = doc(2, 1, "9,0,1,0,1,0,0,3,1,3,0,0,0,0", "2,77,7", "\"\",\"A\"");
	bad_case(d, "77", 0, "edge name: string index 77 out of range");
	free(d);
	/* an element index is no string index: 77 is fine there */
	d = doc(2, 1, "9,0,1,0,1,0,0,3,1,3,0,0,0,0", "1,77,7", "\"\",\"A\"");
	heap h;
	char err[SNAP_ERR_MAX];
	CHECK(parse_v8(d, NULL, &h, err, sizeof err) == 0 && strcmp(refs_of(&h, h.first_gc_index), "6:strong:[77]") == 0);
	heap_free(&h);
	free(d);
	/* types out of range */
	d = doc(2, 0, "9,0,1,0,0,0,0,15,1,3,0,0,0,0", "", "\"\",\"A\"");
	bad_case(d, "15,1,3", 0, "type 15 is not one of the 15 node types");
	free(d);
	d = doc(2, 1, "9,0,1,0,1,0,0,3,1,3,0,0,0,0", "7,1,7", "\"\",\"A\"");
	bad_case(d, "7,1,7", 0, "type 7 is not one of the 7 edge types");
	free(d);
	/* numbers that are not non-negative integers */
	d = doc(2, 0, "9,0,1,0,0,0,0,3,1,3,-4,0,0,0", "", "\"\",\"A\"");
	bad_case(d, "-4", 0, "expected a non-negative integer");
	free(d);
	d = doc(2, 0, "9,0,1,0,0,0,0,3,1,3,4.5,0,0,0", "", "\"\",\"A\"");
	bad_case(d, ".5", 0, "expected ','");
	free(d);
	d = doc(2, 0, "9,0,1,0,0,0,0,3,1,3,4,0,0,0,", "", "\"\",\"A\"");
	bad_case(d, "],\n\"edges", 0, "15 values where");
	free(d);
	/* missing meta, missing members, members out of order or twice */
	bad_case("{\"snapshot\":{\"node_count\":1,\"edge_count\":0},\"nodes\":[9,0,1,0,0,0,0]}", "{\"node_count", 0,
		 "snapshot: no \"meta\" member");
	bad_case("{\"nodes\":[9,0,1,0,0,0,0]}", "\"nodes", 0, "\"nodes\" before \"snapshot\"");
	d = doc(1, 0, "9,0,1,0,0,0,0", "", "\"\"");
	char *twice = malloc(strlen(d) + 32);
	sprintf(twice, "%.*s,\"strings\":[]}", (int)(strlen(d) - 2), d);
	bad_case(twice, "\"strings\":[]}", 0, "\"strings\" given twice");
	free(twice);
	char *nostr = strdup(d);
	strcpy(strstr(nostr, ",\n\"strings"), "}");
	bad_case(nostr, NULL, 0, "no \"strings\" member");
	free(nostr);
	char *after = malloc(strlen(d) + 8);
	sprintf(after, "%s!", d);
	bad_case(after, "!", 0, "data after the end of the snapshot");
	free(after);
	free(d);
	/* meta without a needed field; a bad escape; not JSON at all */
	char *noid = mapping_doc();
	memcpy(strstr(noid, "\"id\""), "\"ix\"", 4);
	bad_case(noid, "{\"meta", 0, "node_fields: no \"id\" field");
	free(noid);
	d = doc(1, 0, "9,0,1,0,0,0,0", "", "\"\\x\"");
	bad_case(d, "x\"]", 0, "bad escape '\\x'");
	free(d);
	/* a control byte after the backslash is named, never echoed (found by
	 * fuzzing: the message held a raw newline) */
	d = doc(1, 0, "9,0,1,0,0,0,0", "", "\"\\\n\"");
	bad_case(d, "\n\"]", 0, "bad escape (byte 0x0a after '\\')");
	free(d);
	bad_case("{", NULL, 0, "unexpected end of the file");
	bad_case("{\"snapshot\":{\"meta\":{},\"node_count\":1,\"edge_count\":0}}", "{\"meta", 0,
		 "snapshot.meta: missing node_fields");
	free(good);
}

TEST(v8_every_prefix_and_mutation_fails_cleanly)
{
	char *d = mapping_doc(), err[SNAP_ERR_MAX];
	size_t len = strlen(d);
	int bad = 0;
	heap h;
	/* every proper prefix is an error naming an offset */
	for (size_t n = 0; n + 1 < len; n++) {
		char *p = strndup(d, n);
		v8_options opt = {.chunk = n % 7 + 1, .step = n % 3, .threads = (int)(n % 2) + 1};
		if (parse_v8(p, &opt, &h, err, sizeof err) == 0) {
			bad++;
			heap_free(&h);
		} else if (strncmp(err, "test.heapsnapshot: offset ", 26) != 0 || strchr(err, '\n')) {
			bad++;
			printf("    prefix %zu: %s\n", n, err);
		}
		free(p);
	}
	CHECK(bad == 0);
	/* random byte changes load cleanly or give a one-line error */
	unsigned seed = 12345;
	bad = 0;
	for (int round = 0; round < 3000; round++) {
		char *p = strdup(d);
		for (int k = 0; k < 1 + round % 4; k++) {
			seed = seed * 1103515245u + 12345u;
			size_t at = (seed >> 8) % len;
			seed = seed * 1103515245u + 12345u;
			p[at] = "0123456789,[]{}\":-.e \\u"[(seed >> 8) % 23];
		}
		v8_options opt = {.chunk = (size_t)(round % 9) * 3, .step = 0, .threads = round % 2 + 1};
		if (parse_v8(p, &opt, &h, err, sizeof err) == 0)
			heap_free(&h);
		else if (strncmp(err, "test.heapsnapshot: offset ", 26) != 0 || strchr(err, '\n')) {
			bad++;
			printf("    round %d: %s\n", round, err);
		}
		free(p);
	}
	CHECK(bad == 0);
	free(d);
}

/* Figure KEY of testdata/v8/node-small.expect, or -1. */
static long long expected_figure(const char *key)
{
	FILE *f = fopen("testdata/v8/node-small.expect", "r");
	char line[256], k[64];
	long long v, found = -1;
	if (!f)
		return -1;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "%63s %lld", k, &v) == 2 && strcmp(k, key) == 0)
			found = v;
	fclose(f);
	return found;
}

TEST(v8_real_node_snapshot_is_read_whole)
{
	heap h;
	char err[SNAP_ERR_MAX];
	int rc = snapshot_load("testdata/v8/node-small.heapsnapshot.zst", &h, err, sizeof err);
	CHECK(rc == 0);
	if (rc) {
		printf("    %s\n", err);
		return;
	}
	obj_t first = h.first_gc_index;
	uint32_t n = h.slots - (uint32_t)first;
	CHECK(n == expected_figure("nodes") && h.nrefs == expected_figure("edges") && h.ndangling == 0);
	/* every edge kept, in order, each pointing at its node */
	uint32_t kinds[REF_KIND_COUNT] = {0}, check = 0;
	for (uint32_t k = 0; k < h.nrefs; k++) {
		kinds[h.ref_kind[k]]++;
		check += (uint32_t)(h.ref_dst[k] - first) * (k % 1000 + 1);
	}
	CHECK(check == (uint32_t)expected_figure("target_checksum"));
	CHECK(kinds[REF_STRONG] == expected_figure("strong") && kinds[REF_WEAK] == expected_figure("weak") &&
	      kinds[REF_SOFT] == expected_figure("soft"));
	CHECK(h.ref_start[first] == 0 && h.ref_start[h.slots] == h.nrefs);
	/* the links the reader counted on its second thread are those the rows,
	 * the Classes and the Outers hold */
	uint32_t *links = calloc(h.slots, sizeof *links);
	for (uint32_t k = 0; k < h.nrefs; k++)
		links[h.ref_dst[k]]++;
	for (uint32_t i = 0; i < h.slots; i++) {
		links[h.cls[i]]++;
		if (h.outer[i] >= 0)
			links[h.outer[i]]++;
	}
	CHECK(h.in_links && memcmp(links, h.in_links, h.slots * sizeof *links) == 0);
	free(links);
	/* sizes summed, classes counted over the nodes */
	uint64_t bytes = 0;
	uint8_t *used = calloc((size_t)first, 1);
	long long classes = 0;
	for (uint32_t i = (uint32_t)first; i < h.slots; i++) {
		bytes += h.size[i];
		if (h.cls[i] >= 0 && h.cls[i] < first && !used[h.cls[i]]) {
			used[h.cls[i]] = 1;
			classes++;
		}
	}
	free(used);
	CHECK(bytes == (uint64_t)expected_figure("bytes") && classes == expected_figure("classes"));
	/* the GC reaches what DevTools' essential edges reach */
	gc_result r;
	CHECK(run_gc(&h, MODE_GAME, 2, &r) == 0);
	uint64_t reached = 0, reached_bytes = 0;
	for (uint32_t i = (uint32_t)first; i < h.slots; i++)
		if (r.reachable[i]) {
			reached++;
			reached_bytes += h.size[i];
		}
	CHECK(reached == (uint64_t)expected_figure("reachable") && reached_bytes == (uint64_t)expected_figure("reachable_bytes"));
	gc_result_free(&r);
	heap_free(&h);
}

/* A plain file is mapped and read in place, its pages let go behind the
 * window: whatever the window and threads, the heap a zstd load gives. */
TEST(v8_mapped_plain_file_reads_like_a_stream)
{
	heap h;
	char err[SNAP_ERR_MAX], path[] = "/tmp/ugc-test-v8-XXXXXX";
	filebuf b;
	CHECK(file_read_all("testdata/v8/node-small.heapsnapshot.zst", &b, err, sizeof err) == 0 && b.was_zstd);
	int fd = mkstemp(path);
	CHECK(fd >= 0 && write(fd, b.data, b.len) == (ssize_t)b.len);
	if (fd >= 0)
		close(fd);
	CHECK(b.len > 64 * 4096); /* long enough for the reader to let pages go behind a 4 KiB
				   * window (which a piece could fault back in: nothing here
				   * tells whether it did) */
	CHECK(snapshot_load("testdata/v8/node-small.heapsnapshot.zst", &h, err, sizeof err) == 0);
	char *want = canonical(&h);
	heap_free(&h);
	size_t chunks[] = {4096, 65536, 0};
	for (int k = 0; k < 3; k++)
		for (int threads = 1; threads <= 2; threads++) {
			v8_options opt = {.chunk = chunks[k], .step = 0, .threads = threads};
			heap_init(&h);
			int rc = v8_load_with(path, &opt, &h, err, sizeof err);
			CHECK(rc == 0);
			if (rc) {
				printf("    chunk %zu, %d threads: %s\n", chunks[k], threads, err);
				continue;
			}
			char *got = canonical(&h);
			CHECK(strcmp(got, want) == 0);
			free(got);
			heap_free(&h);
		}
	/* cut short, the mapped file fails at the offset a stream reports */
	CHECK(truncate(path, (off_t)(b.len / 2)) == 0);
	char err2[SNAP_ERR_MAX];
	heap_init(&h);
	CHECK(v8_load_with(path, &(v8_options){.chunk = 4096, .step = 0, .threads = 2}, &h, err, sizeof err) != 0);
	heap_free(&h);
	heap_init(&h);
	CHECK(v8_parse(path, b.data, b.len / 2, &(v8_options){.chunk = 4096, .step = 0, .threads = 2}, &h, err2, sizeof err2) != 0);
	heap_free(&h);
	CHECK(strcmp(err, err2) == 0 && strstr(err, "offset") != NULL);
	free(want);
	filebuf_free(&b);
	unlink(path);
}

/* Issue #29, also seen: the JSON the reader takes is JSON.  A number with
 * a leading zero and a raw control byte in a string are refused, as
 * JSON.parse refuses them (V8 never writes either), at their offsets; a
 * run of blanks may be of any length anywhere, inside the nodes and edges
 * arrays too (it was refused past 4096 bytes there). */
static char *with_blanks(const char *text, const char *const *after, int n, size_t blanks)
{
	size_t len = strlen(text), cap = len + (size_t)n * blanks + 1, o = 0;
	char *out = malloc(cap);
	const char *p = text;
	for (int k = 0; k < n; k++) {
		const char *at = strstr(p, after[k]);
		if (!at) {
			CHECK(!"the place for blanks is in the text");
			printf("    no %s\n", after[k]);
			break;
		}
		at += strlen(after[k]);
		memcpy(out + o, p, (size_t)(at - p));
		o += (size_t)(at - p);
		memset(out + o, k % 2 ? '\n' : ' ', blanks);
		o += blanks;
		p = at;
	}
	strcpy(out + o, p);
	return out;
}

TEST(v8_json_numbers_strings_and_blanks)
{
	/* leading zeros: a header count, a node value, an edge value */
	char *d = mapping_doc();
	char *at = strstr(d, "\"node_count\":9");
	CHECK(at != NULL);
	if (at) {
		char *z = malloc(strlen(d) + 2);
		sprintf(z, "%.*s\"node_count\":09%s", (int)(at - d), d, at + strlen("\"node_count\":9"));
		bad_case(z, "09,", 0, "snapshot.node_count: a number with a leading zero");
		free(z);
	}
	free(d);
	d = doc(2, 0, "9,0,1,0,0,0,0,03,1,3,0,0,0,0", "", "\"\",\"A\"");
	bad_case(d, "03,1", 0, "nodes: a number with a leading zero");
	free(d);
	d = doc(2, 1, "9,0,1,0,1,0,0,3,1,3,0,0,0,0", "2,1,007", "\"\",\"A\"");
	bad_case(d, "007", 0, "edges: a number with a leading zero");
	free(d);
	/* 0 itself is a number (every document here has them) */
	heap h;
	char err[SNAP_ERR_MAX];
	d = doc(2, 1, "9,0,1,0,1,0,0,3,1,3,0,0,0,0", "2,1,7", "\"\",\"A\"");
	CHECK(parse_v8(d, NULL, &h, err, sizeof err) == 0);
	heap_free(&h);
	free(d);
	/* raw control bytes in a string: a newline, 0x01, a tab; escaped, fine */
	static const char *const raw[] = {"\"\",\"a\nb\"", "\"\",\"a\001b\"", "\"\",\"a\tb\""};
	static const char *const byte[] = {"(0x0a)", "(0x01)", "(0x09)"};
	for (int k = 0; k < 3; k++) {
		d = doc(2, 0, "9,0,1,0,0,0,0,3,1,3,0,0,0,0", "", raw[k]);
		char mark[4] = {raw[k][5], 'b', '"', 0}, want[80];
		snprintf(want, sizeof want, "a raw control byte %s in a string", byte[k]);
		bad_case(d, mark, 0, want);
		free(d);
	}
	d = doc(2, 0, "9,0,1,0,0,0,0,3,1,3,0,0,0,0", "", "\"\",\"a\\nb\\u0001\\tc\"");
	CHECK(parse_v8(d, NULL, &h, err, sizeof err) == 0 && strcmp(name_of(&h, h.first_gc_index + 1), "a\nb\x01\tc@3") == 0);
	heap_free(&h);
	free(d);
	/* blanks, 5000 at a time: after '[', between records, after a value and
	 * after a comma inside a record, before ']', between members; the same
	 * heap however the chunks cut them */
	char *want = mapping_canonical();
	static const char *const places[] = {"\"nodes\":[", "3,0,0,\n", "3,2,5", "20,", "0,0,0,0,\n", "3,1,17,50,1,0,0",
					     "\"edges\":[", "1,1,7,", " 5,8", "3,7,49", "\"strings\":", "\"(GC roots)\","};
	char *m = mapping_doc();
	d = with_blanks(m, places, 12, 5000);
	free(m);
	CHECK(chunkings_differing(d, want) == 0);
	CHECK(parse_v8(d, NULL, &h, err, sizeof err) == 0);
	if (!err[0]) {
		char *got = canonical(&h);
		CHECK(strcmp(got, want) == 0);
		free(got);
		heap_free(&h);
	}
	free(d);
	free(want);
	/* and an error past such a run names its own offset: in a record read
	 * around its blanks, a name out of range, a value that is no number,
	 * a type out of range, a count that does not add up */
	static const char *const mid[] = {"3,"};
	char *nodes = with_blanks("9,0,1,0,0,0,0,3,99,3,0,0,0,0", mid, 1, 5000);
	d = doc(2, 0, nodes, "", "\"\",\"A\"");
	bad_case(d, "99,", 0, "node name: string index 99 out of range (2 strings)");
	free(d);
	free(nodes);
	nodes = with_blanks("9,0,1,0,0,0,0,3,1,x,0,0,0,0", mid, 1, 5000);
	d = doc(2, 0, nodes, "", "\"\",\"A\"");
	bad_case(d, "x,", 0, "nodes: expected a non-negative integer");
	free(d);
	free(nodes);
	static const char *const first[] = {"9,0,1,0,0,0,0,"};
	nodes = with_blanks("9,0,1,0,0,0,0,15,1,3,0,0,0,0", first, 1, 5000);
	d = doc(2, 0, nodes, "", "\"\",\"A\"");
	bad_case(d, "15,", 0, "node 1: type 15 is not one of the 15 node types");
	free(d);
	free(nodes);
	static const char *const last[] = {"3,1,3,0,0"};
	nodes = with_blanks("9,0,1,0,0,0,0,3,1,3,0,0", last, 1, 5000);
	d = doc(2, 0, nodes, "", "\"\",\"A\"");
	bad_case(d, "],\n\"edges", 0, "nodes: 12 values where node_count/edge_count say 14");
	free(d);
	free(nodes);
}

TEST(v8_names_stay_interned_once)
{
	/* NAME@ID is the string NAME with the number "@ID": nodes named alike
	 * share one string whatever their ids, an edge named "Foo@3" is a
	 * string of its own, and the whole name reads back as one selector */
	char *d = doc(5, 1, "9,0,1,0,1,0,0,3,1,3,0,0,0,0,3,1,5,0,0,0,0,3,1,5,0,0,0,0,2,0,7,0,0,0,0", "2,2,7",
		      "\"\",\"Foo\",\"Foo@3\"");
	char err[SNAP_ERR_MAX];
	heap h;
	CHECK(parse_v8(d, NULL, &h, err, sizeof err) == 0);
	obj_t f = h.first_gc_index;
	CHECK_STR(NAME_OF(&h, f + 1), "Foo@3");
	CHECK_STR(heap_str(&h, h.name[f + 1]), "Foo");
	CHECK(h.name_num[f + 1] == (NAME_NUM_AT | 4));
	CHECK(h.name[f + 1] == h.name[f + 2] && h.name[f + 2] == h.name[f + 3]);
	CHECK(h.name_num[f + 2] == h.name_num[f + 3] && h.name_num[f + 1] != h.name_num[f + 2]);
	CHECK_STR(heap_str(&h, h.ref_prop[0]), "Foo@3");
	CHECK(h.ref_prop[0] != h.name[f + 1]);
	CHECK_STR(NAME_OF(&h, f + 4), "@7"); /* a node with an empty name */
	CHECK(h.name[f + 4] == 0 && h.name_num[f + 4] == (NAME_NUM_AT | 8));
	CHECK(heap_find_path(&h, "/V8.Foo@3") == f + 1 && heap_find_path(&h, "/V8.@7") == f + 4);
	heap_free(&h);
	free(d);
	/* an id past the number's range stays in the string */
	d = doc(3, 0, "9,0,1,0,0,0,0,3,1,3000000000,0,0,0,0,3,1,5,0,0,0,0", "", "\"\",\"Foo\"");
	CHECK(parse_v8(d, NULL, &h, err, sizeof err) == 0);
	f = h.first_gc_index;
	CHECK(strtab_find(&h.strings, "Foo@3000000000", 14) == h.name[f + 1] && h.name_num[f + 1] == 0);
	CHECK_STR(NAME_OF(&h, f + 2), "Foo@5");
	CHECK(heap_find_path(&h, "/V8.Foo@3000000000") == f + 1 && heap_find_path(&h, "/V8.Foo@5") == f + 2);
	heap_free(&h);
	free(d);
}

/* The reader's string table becomes the heap's (ugc-snapshot(5) §3.1):
 * an empty V8 string is string 0, however many the file has, and two V8
 * strings that read the same (here two lone surrogates, both U+FFFD) are
 * one string, for properties and names alike, the copy dropped.  The heap
 * then survives the binary format, whose reader refuses an empty string
 * past string 0. */
TEST(v8_empty_and_equal_strings_share_one_id)
{
	/* strings: 0 "", 1 "Foo", 2 "", 3 "x\ud800", 4 "x\udc00", 5 "" */
	char *d = doc(4, 4, "9,0,1,0,4,0,0, 3,2,3,10,0,0,0, 2,3,5,8,0,0,0, 2,4,7,8,0,0,0",
		      "2,0,7, 2,5,14, 2,3,21, 2,4,7", "\"\",\"Foo\",\"\",\"x\\ud800\",\"x\\udc00\",\"\"");
	char err[SNAP_ERR_MAX];
	heap h, back;
	CHECK(parse_v8(d, NULL, &h, err, sizeof err) == 0);
	free(d);
	obj_t f = h.first_gc_index;
	CHECK(h.nrefs == 4 && h.ref_prop[0] == 0 && h.ref_prop[1] == 0);
	CHECK(h.ref_prop[2] == h.ref_prop[3] && h.ref_prop[2] != 0);
	CHECK_STR(heap_str(&h, h.ref_prop[2]), "x\xef\xbf\xbd");
	CHECK(h.name[f] == 0 && h.name[f + 1] == 0 && h.name[f + 2] == h.ref_prop[2] && h.name[f + 3] == h.ref_prop[2]);
	CHECK_STR(name_of(&h, f + 3), "x\xef\xbf\xbd@7");
	CHECK(strtab_find(&h.strings, "x\xef\xbf\xbd", 4) == h.ref_prop[2] && strtab_find(&h.strings, "", 0) == 0);
	/* no string twice (a database's strings table refuses a repeat) */
	uint32_t itself = 0;
	for (uint32_t id = 0; id < h.strings.count; id++)
		itself += strtab_find(&h.strings, strtab_get(&h.strings, id), strtab_len(&h.strings, id)) == id;
	CHECK(itself == h.strings.count);
	FILE *fp = tmpfile();
	CHECK(fp && binary_write(&h, fp, err, sizeof err) == 0);
	long len = fp ? ftell(fp) : 0;
	unsigned char *bytes = len > 0 ? malloc((size_t)len) : NULL;
	CHECK(bytes && fseek(fp, 0, SEEK_SET) == 0 && fread(bytes, 1, (size_t)len, fp) == (size_t)len);
	heap_init(&back);
	CHECK(bytes && binary_parse("back.ugcs", bytes, (size_t)len, &back, err, sizeof err) == 0);
	int same = back.slots == h.slots && back.nrefs == h.nrefs;
	for (obj_t i = 0; same && i < (obj_t)h.slots; i++)
		same = strcmp(name_of(&back, i), name_of(&h, i)) == 0 || (printf("    #%d: %s\n", i, name_of(&h, i)), 0);
	for (uint32_t k = 0; same && k < h.nrefs; k++)
		same = strcmp(heap_str(&back, back.ref_prop[k]), heap_str(&h, h.ref_prop[k])) == 0;
	CHECK(same);
	if (fp)
		fclose(fp);
	free(bytes);
	heap_free(&back);
	heap_free(&h);
}

/* A file of more strings than the mapper's lookahead starts at (128k):
 * the root's N property edges are named "e0" .. "e<N-1>", then once more
 * by a second copy of "e5" (V8 never writes one; equal strings must still
 * share an id); M string nodes are named, in a shuffled order, by some
 * of those strings, by the copy, or by strings of their own.  Every
 * property and name must read back as the text the file gives it. */
TEST(v8_many_strings_map_through_the_lookahead)
{
	enum { N = 140000, M = 3000 };
	size_t cap = (size_t)N * 40 + (size_t)M * 40 + 4096;
	char *strs = malloc(cap), *edges = malloc(cap), *nodes = malloc(cap);
	size_t ls = 0, le = 0, ln = 0;
	ls += (size_t)snprintf(strs + ls, cap - ls, "\"\"");
	for (int k = 0; k < N; k++) /* string 1 + k is "e<k>" */
		ls += (size_t)snprintf(strs + ls, cap - ls, ",\"e%d\"", k);
	ls += (size_t)snprintf(strs + ls, cap - ls, ",\"e5\""); /* string N + 1, a copy */
	for (int k = 0; k < M; k++) /* string N + 2 + k is "own<k>" */
		ls += (size_t)snprintf(strs + ls, cap - ls, ",\"own%d\"", k);
	for (int j = 0; j <= N; j++) /* edge j: property, named string 1 + j, to node 1 + j % M */
		le += (size_t)snprintf(edges + le, cap - le, "%s2,%d,%d", j ? "," : "", 1 + j, 7 * (1 + j % M));
	ln += (size_t)snprintf(nodes + ln, cap - ln, "9,0,1,0,%d,0,0", N + 1);
	for (int i = 0; i < M; i++) { /* node 1 + i: named by string name_k(i), id 3 + 2i */
		int k = i % 3 == 0 ? 1 + (int)((uint32_t)i * 2654435761u % N) : i % 3 == 1 ? N + 2 + i : N + 1;
		ln += (size_t)snprintf(nodes + ln, cap - ln, ",2,%d,%d,8,0,0,0", k, 3 + 2 * i);
	}
	char *d = doc(M + 1, N + 1, nodes, edges, strs);
	free(strs);
	free(edges);
	free(nodes);
	char err[SNAP_ERR_MAX], want[32];
	heap h;
	CHECK(parse_v8(d, NULL, &h, err, sizeof err) == 0);
	free(d);
	obj_t root = h.first_gc_index;
	int bad = 0;
	CHECK(h.nrefs == N + 1 && h.ref_start[root + 1] - h.ref_start[root] == N + 1);
	for (int j = 0; j < N; j++) {
		uint32_t pos = h.ref_start[root] + (uint32_t)j, sid = h.ref_prop[pos];
		snprintf(want, sizeof want, "e%d", j);
		if ((strcmp(heap_str(&h, sid), want) != 0 || strtab_find(&h.strings, want, strlen(want)) != sid) &&
		    bad++ < 3)
			printf("    edge %d: property \"%s\", the file says %s\n", j, heap_str(&h, sid), want);
	}
	CHECK(bad == 0);
	CHECK(h.ref_prop[h.ref_start[root] + N] == h.ref_prop[h.ref_start[root] + 5]); /* the copy of "e5" */
	for (int i = 0; i < M; i++) {
		obj_t o = root + 1 + i;
		int k = i % 3 == 0 ? (int)((uint32_t)i * 2654435761u % N) : -1;
		if (k >= 0)
			snprintf(want, sizeof want, "e%d", k);
		else if (i % 3 == 1)
			snprintf(want, sizeof want, "own%d", i);
		else
			snprintf(want, sizeof want, "e5");
		if ((strcmp(heap_str(&h, h.name[o]), want) != 0 || h.name_num[o] != (NAME_NUM_AT | (uint32_t)(4 + 2 * i)) ||
		     (k >= 0 && h.name[o] != h.ref_prop[h.ref_start[root] + (uint32_t)k]) ||
		     (i % 3 == 2 && h.name[o] != h.ref_prop[h.ref_start[root] + 5])) &&
		    bad++ < 3)
			printf("    node %d: name \"%s\" (%u), the file says %s@%d\n", i, heap_str(&h, h.name[o]), h.name_num[o],
			       want, 3 + 2 * i);
	}
	CHECK(bad == 0);
	heap_free(&h);
}

TEST(v8_an_unnamed_object_gets_the_anonymous_class)
{
	/* an object node and a native node named "" (found by fuzzing: the class
	 * object had an empty name, which no heap may hold) */
	char *d = doc(3, 0, "9,0,1,0,0,0,0,3,0,3,4,0,0,0,8,0,5,4,0,0,0", "", "\"\"");
	char err[SNAP_ERR_MAX];
	heap h;
	CHECK(parse_v8(d, NULL, &h, err, sizeof err) == 0);
	obj_t f = h.first_gc_index;
	CHECK(h.cls[f + 1] == h.cls[f + 2]);
	CHECK_STR(name_of(&h, h.cls[f + 1]), "(anonymous)");
	CHECK_STR(name_of(&h, f + 1), "@3");
	heap_free(&h);
	free(d);
}

/* Load TEXT, run the GC and the gc policy's dominators; node ordinal i is
 * object h->first_gc_index + i. */
static int v8_dominators(const char *text, heap *h, gc_result *r, dom_result *d)
{
	char err[SNAP_ERR_MAX];
	if (parse_v8(text, NULL, h, err, sizeof err)) {
		printf("    %s\n", err);
		return -1;
	}
	if (run_gc(h, MODE_GAME, 2, r) == 0 && dom_compute(h, r, POLICY_GC, d) == 0)
		return 0;
	heap_free(h);
	return -1;
}

/* "IDOM/RETAINED" of every node: idom as a node ordinal, "T" for the
 * super-root, "-" for an unreached node. */
static const char *dom_list(const heap *h, const dom_result *d)
{
	static char buf[1024];
	size_t n = 0;
	buf[0] = '\0';
	for (uint32_t i = (uint32_t)h->first_gc_index; i < h->slots && n < sizeof buf - 64; i++) {
		obj_t dom = d->idom[i];
		if (dom == DOM_TOP)
			n += (size_t)snprintf(buf + n, sizeof buf - n, "%sT/%llu", n ? " " : "", (unsigned long long)d->retained[i]);
		else if (dom < 0)
			n += (size_t)snprintf(buf + n, sizeof buf - n, "%s-", n ? " " : "");
		else
			n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%d/%llu", n ? " " : "", dom - h->first_gc_index,
					      (unsigned long long)d->retained[i]);
	}
	return buf;
}

/* Nodes: 0 the root, then objects of 10, 20, 40 and 80 bytes, with
 * ECOUNT edges each (EDGES).  Checks the dominator list (see dom_list) and
 * the purged nodes' ordinals. */
static void dom_case(const int ecount[5], int nedges, const char *edges, const char *want, const char *want_purged)
{
	char nodes[256];
	snprintf(nodes, sizeof nodes, "9,0,1,0,%d,0,0,3,1,3,10,%d,0,0,3,1,5,20,%d,0,0,3,1,7,40,%d,0,0,3,1,9,80,%d,0,0",
		 ecount[0], ecount[1], ecount[2], ecount[3], ecount[4]);
	char *t = doc(5, nedges, nodes, edges, "\"\",\"Obj\",\"p\",\"s\""), purged[64] = "";
	heap h;
	gc_result r;
	dom_result d;
	if (v8_dominators(t, &h, &r, &d) == 0) {
		CHECK_STR(dom_list(&h, &d), want);
		for (uint32_t k = 0, n = 0; k < r.npurged; k++)
			n += (uint32_t)snprintf(purged + n, sizeof purged - n, "%s%d", n ? " " : "", r.purged[k] - h.first_gc_index);
		CHECK_STR(purged, want_purged);
		dom_free(&d);
		gc_result_free(&r);
		heap_free(&h);
	} else
		CHECK(0);
	free(t);
}

TEST(v8_dominators_ignore_a_non_root_shortcut)
{
	/* root -> 1 [0], root -> 2 [1], root -shortcut-> 4; 1 -p-> 3; 2 -shortcut-> 3.
	 * The shortcut from 2 does not retain 3, so 1 dominates it; the root's
	 * shortcut does retain 4. */
	dom_case((int[]){3, 1, 1, 0, 0}, 5, "1,0,7,1,1,14,5,3,28,2,2,21,5,3,21", "T/150 0/50 0/20 1/40 0/80", "");
}

TEST(v8_dominators_ignore_weak_edges)
{
	/* root -> 1, root -> 2, root -weak-> 4; 1 -p-> 3; 2 -weak-> 3.
	 * 1 dominates 3; 4 is held only weakly: unreached, purged. */
	dom_case((int[]){3, 1, 1, 0, 0}, 5, "1,0,7,1,1,14,6,3,28,2,2,21,6,3,21", "T/70 0/50 0/20 1/40 -", "4");
}

TEST(v8_dominators_leave_an_unreachable_island)
{
	/* root -> 1; 2 <-> 3 and 3 -> 4 reference each other but nothing
	 * reaches them: no dominator, no retained size, purged. */
	dom_case((int[]){1, 0, 1, 2, 0}, 4, "1,0,7,2,2,21,2,2,14,2,2,28", "T/10 0/10 - - -", "2 3 4");
}
