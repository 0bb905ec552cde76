/* fuzz_v8.c — libFuzzer harness for the V8 .heapsnapshot reader
 * (snapshot/v8_*.c): any bytes, plain JSON or zstd, either map onto a heap
 * that keeps the heap invariants or give one error line "fuzz: offset N: ...".
 * Each input is read three times: whole on one thread; in small chunks
 * handed over a few bytes at a time on two threads (the size of the input
 * picks the chunking); and from a file, as the command line reads it
 * (mapped and read in place when plain, read through chunks when zstd or
 * under 4 bytes).
 * All reads must agree — the same heap, or all an error — and a heap must
 * survive a text round trip (what `convert` does with it).  The same
 * document with its node and edge fields in another order (v8_permute.h:
 * the *_types entries and every tuple moved with them) must read alike too,
 * when its field names are all different.
 *
 * The mutator, one time in three, gives a plain JSON document's fields
 * another order (the reader takes them by name, and by the place of the
 * field named "type" for the type lists); otherwise, and for any input it
 * cannot take apart, libFuzzer's own mutations. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz/common.h"
#include "fuzz/v8_permute.h"
#include "snapshot/snapshot.h"

/* Read DATA with OPT into H: 0 with a checked heap, or -1 (H freed). */
static int read_v8(const char *data, size_t size, const v8_options *opt, heap *h)
{
	char err[SNAP_ERR_MAX];
	heap_init(h);
	if (v8_parse("fuzz", data, size, opt, h, err, sizeof err) == 0) {
		fuzz_check_heap(h);
		return 0;
	}
	fuzz_check_error(err, "fuzz: ");
	heap_free(h);
	return -1;
}

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	if (seed % 3 == 0 && size) {
		uint8_t *out = malloc(size);
		int distinct;
		size_t n = out ? v8_permute(data, size, out, seed / 3, &distinct) : 0;
		if (n && n <= max_size)
			memcpy(data, out, n);
		free(out);
		if (n && n <= max_size)
			return n;
	}
	return LLVMFuzzerMutate(data, size, max_size);
}

/* DATA with its fields in another order must read as DATA did: RA and the
 * heap A of the whole read. */
static void check_permuted(const uint8_t *data, size_t size, int ra, const heap *a)
{
	uint8_t *out = malloc(size ? size : 1);
	int distinct;
	size_t n = out && size ? v8_permute(data, size, out, (unsigned)size * 2654435761u, &distinct) : 0;
	if (n && distinct) {
		char *copy = fuzz_copy(out, n);
		v8_options whole = {.chunk = 0, .step = 0, .threads = 1};
		heap p;
		int rp = read_v8(copy, n, &whole, &p);
		FUZZ_ASSERT(rp == ra, "the document with its fields in another order reads otherwise");
		if (rp == 0) {
			size_t la, lp;
			char *ta = fuzz_canonical(a, &la), *tp = fuzz_canonical(&p, &lp);
			FUZZ_ASSERT(la == lp && memcmp(ta, tp, la) == 0,
				    "the document with its fields in another order gives another heap");
			free(ta);
			free(tp);
			heap_free(&p);
		}
		free(copy);
	}
	free(out);
}

static char path[64];

static void remove_file(void) { unlink(path); }

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	snprintf(path, sizeof path, "%s/ugc-fuzz-v8-%ld.heapsnapshot",
		 access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp", (long)getpid());
	atexit(remove_file);
	return 0;
}

/* Read DATA the way the command line does, from a file at PATH: 0 with a
 * checked heap, or -1 (H freed). */
static int read_v8_file(const uint8_t *data, size_t size, heap *h)
{
	FILE *f = fopen(path, "wb");
	FUZZ_ASSERT(f && fwrite(data, 1, size, f) == size && fclose(f) == 0, "cannot write the input file");
	char err[SNAP_ERR_MAX];
	v8_options whole = {.chunk = 0, .step = 0, .threads = 1};
	heap_init(h);
	int rc = v8_load_with(path, &whole, h, err, sizeof err);
	unlink(path);
	if (rc == 0) {
		fuzz_check_heap(h);
		return 0;
	}
	fuzz_check_error(err, path);
	heap_free(h);
	return -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy = fuzz_copy(data, size);
	/* tiny chunks for small inputs; larger ones would only be slow */
	size_t chunk = size < 8192 ? 1 + size % 61 : 1024 + size % 61;
	v8_options whole = {.chunk = 0, .step = 0, .threads = 1}, pieces = {.chunk = chunk, .step = size % 7, .threads = 2};
	heap a, b, f;
	int ra = read_v8(copy, size, &whole, &a), rb = read_v8(copy, size, &pieces, &b), rf = read_v8_file(data, size, &f);
	FUZZ_ASSERT(ra == rb, "the chunked read disagrees with the whole read");
	FUZZ_ASSERT(ra == rf, "the read from a file disagrees with the whole read");
	check_permuted(data, size, ra, &a);
	if (ra == 0) {
		size_t la, lb, lf;
		char *ta = fuzz_canonical(&a, &la), *tb = fuzz_canonical(&b, &lb), err[SNAP_ERR_MAX];
		FUZZ_ASSERT(la == lb && memcmp(ta, tb, la) == 0, "the chunked read gives another heap");
		char *tf = fuzz_canonical(&f, &lf);
		FUZZ_ASSERT(lf == la && memcmp(tf, ta, la) == 0, "the read from a file gives another heap");
		free(tf);
		heap_free(&f);
		heap c;
		heap_init(&c);
		FUZZ_ASSERT(text_parse("canon", ta, la, &c, err, sizeof err) == 0, "the mapped heap's text does not load");
		size_t lc;
		char *tc = fuzz_canonical(&c, &lc);
		FUZZ_ASSERT(lc == la && memcmp(tc, ta, la) == 0, "the mapped heap's text round trip changes it");
		free(tc);
		heap_free(&c);
		free(ta);
		free(tb);
		heap_free(&a);
		heap_free(&b);
	}
	free(copy);
	return 0;
}
