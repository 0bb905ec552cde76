/* unit.h — a minimal unit-test framework: TEST(name) defines a test that
 * registers itself; CHECK(cond) records a failure with its location.  A test
 * passes when none of its checks failed. */
#ifndef UGC_UNIT_H
#define UGC_UNIT_H

#include <stdio.h>
#include <string.h>

#include "analysis/gc.h"
#include "snapshot/heap.h"

typedef void (*test_fn)(void);
void test_register(const char *name, test_fn fn);
extern int test_failed; /* checks failed in the current test */

#define TEST(name) \
	static void name(void); \
	__attribute__((constructor)) static void register_##name(void) { test_register(#name, name); } \
	static void name(void)

#define CHECK(cond) do { if (!(cond)) { test_failed++; \
	printf("    %s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); } } while (0)

#define CHECK_STR(got, want) do { const char *g_ = (got), *w_ = (want); if (strcmp(g_, w_) != 0) { \
	test_failed++; printf("    %s:%d: %s\n      got:  \"%s\"\n      want: \"%s\"\n", __FILE__, __LINE__, \
	#got, g_, w_); } } while (0)

/* Helpers shared by the test files (helpers.c). */
/* Parse PRELUDE + BODY; returns 0 and fills H, or prints the error. */
int load_heap(const char *body, heap *h);
/* Parse exactly TEXT (no prelude); the error, if any, goes to ERR. */
int parse_text(const char *text, heap *h, char *err, size_t errsize);
int run_gc(heap *h, int mode, int threads, gc_result *r);
/* Space-separated lists, rendered into a static buffer (one at a time). */
const char *purged_list(const gc_result *r);
const char *eliminated_list(const heap *h, const gc_result *r);  /* "src>dst" or "g:dst" */
const char *cleared_list(const heap *h, const gc_result *r);     /* "src>dst" */
const char *fates_list(const heap *h, const gc_result *r);       /* "root:fate" */
const char *kind_of(const gc_result *r, obj_t i);                /* root kind name or "-" */

/* Random heaps for the differential tests: a number below N, and a small
 * heap as text (PRELUDE plus N objects with random Outers, flags,
 * references of every kind, "g" records and clusters with random, so mostly
 * inconsistent, lists); malloc'd. */
uint32_t test_rand_below(uint32_t n);
char *random_heap_text(int n);
/* That heap parsed into H (without its clusters unless CLUSTERS); 0, or
 * -1 after printing the error and failing the test. */
int random_heap(int n, int clusters, heap *h);
/* H as a .ugcs in memory (malloc'd, *LEN bytes); NULL on failure. */
unsigned char *binary_bytes(const heap *h, size_t *len);

/* The prelude: natives 0-4 in the disregard pool, package 10 in the RootSet. */
#define PRELUDE "ugc-text 1\nfirst-gc-index 5\n" \
	"o 0 1 2 - /Script/CoreUObject 64 Native\no 1 2 2 0 Object 256 Native\n" \
	"o 2 3 2 0 Class 512 Native\no 3 4 2 0 Package 256 Native\no 4 5 2 0 Actor 900 Native\n" \
	"o 10 11 3 - /Game/Test 128 RootSet\n"

/* DIR/NAME, where DIR (DIRSIZE bytes, "" at first) is made from TEMPLATE
 * ("/tmp/...-XXXXXX", mkdtemp) on first use and removed, with what is in
 * it, when the tests end; the last four results stay valid. */
const char *test_dir_path(char *dir, size_t dirsize, const char *template, const char *name);

#endif
