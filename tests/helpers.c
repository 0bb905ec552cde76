/* helpers.c — the test runner and helpers shared by the unit tests. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "snapshot/snapshot.h"
#include "tests/unit.h"

#define MAX_TESTS 512
struct test { const char *name; test_fn fn; };
static struct test tests[MAX_TESTS];
static int ntests;
int test_failed;

void test_register(const char *name, test_fn fn)
{
	if (ntests < MAX_TESTS)
		tests[ntests++] = (struct test){name, fn};
}

int main(int argc, char **argv)
{
	int passed = 0, failed = 0;
	for (int i = 0; i < ntests; i++) {
		if (argc > 1 && !strstr(tests[i].name, argv[1]))
			continue;
		test_failed = 0;
		tests[i].fn();
		printf("%s %s\n", test_failed ? "FAIL" : "ok  ", tests[i].name);
		if (test_failed)
			failed++;
		else
			passed++;
	}
	printf("unit: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}

int parse_text(const char *text, heap *h, char *err, size_t errsize)
{
	heap_init(h);
	int rc = text_parse("test.ugct", text, strlen(text), h, err, errsize);
	if (rc)
		heap_free(h);
	return rc;
}

int load_heap(const char *body, heap *h)
{
	size_t n = strlen(PRELUDE) + strlen(body) + 1;
	char *text = malloc(n);
	char err[1024];
	snprintf(text, n, "%s%s", PRELUDE, body);
	int rc = parse_text(text, h, err, sizeof err);
	if (rc)
		printf("    parse error: %s\n", err);
	free(text);
	return rc;
}

int run_gc(heap *h, int mode, int threads, gc_result *r)
{
	gc_options opt = {.mode = mode, .keep_flags = gc_default_keep_flags(mode), .threads = threads, .parallel_min = 1};
	return gc_run(h, &opt, r);
}

static char buf[65536];

static void append(size_t *n, const char *fmt, long a, long b)
{
	if (*n)
		buf[(*n)++] = ' ';
	*n += (size_t)snprintf(buf + *n, sizeof buf - *n, fmt, a, b);
}

const char *purged_list(const gc_result *r)
{
	size_t n = 0;
	buf[0] = '\0';
	for (uint32_t k = 0; k < r->npurged && n < sizeof buf - 64; k++)
		append(&n, "%ld", r->purged[k], 0);
	return buf;
}

const char *eliminated_list(const heap *h, const gc_result *r)
{
	(void)h;
	size_t n = 0;
	buf[0] = '\0';
	for (uint32_t k = 0; k < r->neliminated && n < sizeof buf - 64; k++) {
		if (r->eliminated[k].src == OBJ_NONE)
			append(&n, "g:%ld", r->eliminated[k].dst, 0);
		else
			append(&n, "%ld>%ld", r->eliminated[k].src, r->eliminated[k].dst);
	}
	return buf;
}

const char *cleared_list(const heap *h, const gc_result *r)
{
	size_t n = 0;
	buf[0] = '\0';
	for (uint32_t k = 0; k < r->ncleared && n < sizeof buf - 64; k++) {
		uint32_t pos = r->cleared[k], src = 0;
		while (h->ref_start[src + 1] <= pos)
			src++;
		append(&n, "%ld>%ld", (long)src, h->ref_dst[pos]);
	}
	return buf;
}

const char *fates_list(const heap *h, const gc_result *r)
{
	size_t n = 0;
	buf[0] = '\0';
	for (uint32_t c = 0; c < h->nclusters && n < sizeof buf - 64; c++) {
		if (n)
			buf[n++] = ' ';
		n += (size_t)snprintf(buf + n, sizeof buf - n, "%d:%s", h->clusters[c].root,
				      cluster_fate_names[r->cluster_fate[c]]);
	}
	return buf;
}

const char *kind_of(const gc_result *r, obj_t i)
{
	return r->root_kind[i] == RK_NONE ? "-" : root_kind_names[r->root_kind[i]];
}

/* A xorshift generator for the tests' random heaps. */
static uint64_t rng = 88172645463325252ull;
uint32_t test_rand_below(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

/* A small random heap as text: random Outers, flags, references of every
 * kind, and clusters with random (so mostly inconsistent) lists.  Beside
 * the prelude's objects: two more in the disregard pool (5, garbage one
 * time in three, and 6), which references sometimes target, and the class
 * LevelActorContainer (9), whose instances' references are now and then
 * named Actors[N] (ugc-gc(7) §1.2's hand-over). */
char *random_heap_text(int n)
{
	size_t cap = 1 << 20, len = 0;
	char *t = malloc(cap);
#define OUT(...) (len += (size_t)snprintf(t + len, cap - len, __VA_ARGS__))
	OUT("ugc-text 1\nfirst-gc-index 7\n%s", strstr(PRELUDE, "o 0 "));
	OUT("o 5 1 4 0 Pool5 1 %s\no 6 1 4 0 Pool6 1 -\no 9 1 2 0 LevelActorContainer 64 Native\n",
	    test_rand_below(3) == 0 ? "Garbage" : "-");
	static const char *flags[] = {"-", "-", "-", "-", "RootSet", "Garbage", "RefCounted", "RF_Standalone",
				      "RF_MirroredGarbage", "Native", "RootSet,Garbage", "AsyncLoadingPhase1",
				      "AsyncLoadingPhase2"};
	for (int i = 11; i < 11 + n; i++) {
		int outer = test_rand_below(3) == 0 && i > 11 ? 11 + (int)test_rand_below((uint32_t)(i - 11)) : 10;
		int cls = test_rand_below(8) == 0 ? 9 : 4;
		OUT("o %d 1 %d %d O%d 1 %s\n", i, cls, outer, i, flags[test_rand_below(13)]);
	}
	static const char *kinds[] = {"strong", "strong", "strong", "aro", "immutable", "weak", "soft"};
	int nref = n * 2;
	for (int k = 0; k < nref; k++) {
		int from = 11 + (int)test_rand_below((uint32_t)n);
		int to = test_rand_below(16) == 0 ? 5 + (int)test_rand_below(2) : 11 + (int)test_rand_below((uint32_t)n);
		const char *kind = kinds[test_rand_below(7)];
		OUT("r %d %d %s %s%d\n", from, to, kind, test_rand_below(4) == 0 ? "Actors" : "P", k);
	}
	for (int k = 0; k < n / 8; k++)
		OUT("g G%d %d\n", k % 3, test_rand_below(16) == 0 ? 5 : 11 + (int)test_rand_below((uint32_t)n));
	/* clusters: roots and members drawn without overlap */
	int *owner = calloc((size_t)n + 11, sizeof *owner), roots[32], nroots = 0;
	for (int c = 0; c < 32 && c < n / 4; c++) {
		int r = 11 + (int)test_rand_below((uint32_t)n);
		if (owner[r])
			continue;
		owner[r] = -1;
		roots[nroots++] = r;
	}
	for (int c = 0; c < nroots; c++) {
		OUT("c %d ", roots[c]);
		int first = 1, m = 1 + (int)test_rand_below(5);
		for (int k = 0; k < m; k++) {
			int x = 11 + (int)test_rand_below((uint32_t)n);
			if (owner[x])
				continue;
			owner[x] = roots[c];
			OUT("%s%d", first ? "" : ",", x);
			first = 0;
		}
		if (first)
			OUT("-");
		OUT(" ");
		m = (int)test_rand_below(4);
		for (int k = 0; k < m; k++)
			OUT("%s%d", k ? "," : "", 11 + (int)test_rand_below((uint32_t)n));
		if (!m)
			OUT("-");
		OUT(" ");
		m = (int)test_rand_below(4);
		first = 1;
		for (int k = 0; k < m; k++) {
			int o = roots[test_rand_below((uint32_t)nroots)];
			if (o == roots[c])
				continue;
			OUT("%s%d", first ? "" : ",", o);
			first = 0;
		}
		if (first)
			OUT("-");
		OUT("\n");
	}
	free(owner);
	return t;
#undef OUT
}

/* H as a .ugcs in memory (malloc'd, *LEN bytes); NULL on failure. */
unsigned char *binary_bytes(const heap *h, size_t *len)
{
	char err[512], *bin = NULL;
	FILE *f = open_memstream(&bin, len);
	int rc = binary_write(h, f, err, sizeof err);
	fclose(f);
	if (rc) {
		free(bin);
		return NULL;
	}
	return (unsigned char *)bin;
}

int random_heap(int n, int clusters, heap *h)
{
	char *text = random_heap_text(n), err[512];
	char *c = clusters ? NULL : strstr(text, "\nc "); /* the clusters come last */
	if (c)
		c[1] = '\0';
	int rc = parse_text(text, h, err, sizeof err);
	if (rc) {
		printf("    random heap: %s\n", err);
		test_failed++;
	}
	free(text);
	return rc;
}

/* The scratch directories test_dir_path made: each goes, with the files in
 * it, when the tests end. */
static char *scratch_dirs[32];
static int nscratch;

static void remove_scratch_dirs(void)
{
	for (int k = 0; k < nscratch; k++) {
		DIR *d = opendir(scratch_dirs[k]);
		if (d) {
			char path[512];
			for (struct dirent *e; (e = readdir(d)) != NULL;) {
				if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
					continue;
				snprintf(path, sizeof path, "%s/%s", scratch_dirs[k], e->d_name);
				if (unlink(path) != 0)
					rmdir(path);
			}
			closedir(d);
			rmdir(scratch_dirs[k]);
		}
		free(scratch_dirs[k]);
	}
	nscratch = 0;
}

const char *test_dir_path(char *dir, size_t dirsize, const char *template, const char *name)
{
	static char buf[4][256];
	static int k;
	if (!dir[0]) {
		snprintf(dir, dirsize, "%s", template);
		if (!mkdtemp(dir)) {
			dir[0] = '\0';
			return "/nonexistent/x";
		}
		if (nscratch == 0)
			atexit(remove_scratch_dirs);
		if (nscratch < (int)(sizeof scratch_dirs / sizeof scratch_dirs[0]))
			scratch_dirs[nscratch++] = strdup(dir);
	}
	k = (k + 1) % 4;
	snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
	return buf[k];
}
