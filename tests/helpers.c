/* helpers.c — the test runner and helpers shared by the unit tests. */
#include <stdlib.h>

#include "snapshot.h"
#include "unit.h"

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
	gc_options opt = {mode, gc_default_keep_flags(mode), threads, 1};
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
