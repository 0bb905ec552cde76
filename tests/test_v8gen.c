/* test_v8gen.c — gen --format v8 (tools/gen/v8gen.c, snapshot/v8_write.c):
 * a 50k-node synthetic snapshot checked by an independent scan of its JSON
 * (counts, to_node values, the node and edge type mix against the real
 * snapshot's table below, distinct strings) and by our reader (every node
 * loads and is reached from the root; the dominators finish), and the same
 * seed gives the same bytes, another seed others. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/dominators.h"
#include "tools/gen/gen.h"
#include "tests/unit.h"

/* The target mix: the shares measured by tools/v8-shape.js on the real
 * 1M-node app snapshot of BENCHMARKS.md (app1m: node 20 running npm's
 * Arborist, 1,024,612 nodes, 4,256,268 edges), which is also the model's
 * input; the test's snapshot adds the special shapes (about 2% objects). */
static const struct { const char *type; double share; } node_target[] = {
	{"object", 0.42090}, {"array", 0.28430}, {"string", 0.13051}, {"sliced string", 0.04488},
	{"code", 0.04127},   {"concatenated string", 0.02737}, {"hidden", 0.02324}, {"closure", 0.01343},
	{"object shape", 0.01266},
};
static const struct { const char *type; double share; } edge_target[] = {
	{"internal", 0.55912}, {"property", 0.40370}, {"hidden", 0.02150}, {"element", 0.00743},
	{"weak", 0.00523},     {"context", 0.00300},
};
static const char *const node_types[] = {"hidden", "array", "string", "object", "code", "closure",
					 "regexp", "number", "native", "synthetic", "concatenated string",
					 "sliced string", "symbol", "bigint", "object shape", "wasm object"};
static const char *const edge_types[] = {"context", "element", "property", "internal", "hidden", "shortcut", "weak"};

static char *generate(const gen_v8_options *o, size_t *len)
{
	char *buf = NULL, err[256];
	FILE *fp = open_memstream(&buf, len);
	gen_v8_stats st;
	int rc = gen_v8(o, fp, 0, &st, err, sizeof err);
	fclose(fp);
	if (rc) {
		printf("    gen_v8: %s\n", err);
		free(buf);
		return NULL;
	}
	return buf;
}

/* The unsigned numbers of the array after KEY ("nodes":[), into OUT (at
 * most MAX); returns how many, -1 when something else is in the array. */
static long numbers(const char *doc, const char *key, unsigned long long *out, long max)
{
	const char *p = strstr(doc, key);
	if (!p)
		return -1;
	p += strlen(key);
	long n = 0;
	while (*p != ']') {
		if (*p == ',' || *p == '\n') {
			p++;
			continue;
		}
		char *end;
		unsigned long long v = strtoull(p, &end, 10);
		if (end == p || n >= max)
			return -1;
		out[n++] = v;
		p = end;
	}
	return n;
}

static unsigned long long header_count(const char *doc, const char *key)
{
	const char *p = strstr(doc, key);
	return p ? strtoull(p + strlen(key), NULL, 10) : 0;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int within(double got, double want) { return got > want * 0.7 - 0.002 && got < want * 1.3 + 0.002; }

TEST(v8gen_shape_and_structure)
{
	gen_v8_options o = {50000, 7, 250, 100, 200};
	size_t len;
	char *doc = generate(&o, &len);
	CHECK(doc != NULL);
	if (!doc)
		return;
	unsigned long long n = header_count(doc, "\"node_count\":"), e = header_count(doc, "\"edge_count\":");
	CHECK(n == 50000);
	unsigned long long *nodes = malloc(8 * (7 * n + 1)), *edges = malloc(8 * (3 * e + 1));
	CHECK(numbers(doc, "\"nodes\":[", nodes, (long)(7 * n + 1)) == (long)(7 * n));
	CHECK(numbers(doc, "\"edges\":[", edges, (long)(3 * e + 1)) == (long)(3 * e));
	/* per node edge_count adds up to edge_count; to_node in range and a
	 * multiple of 7; the type mix */
	unsigned long long sum = 0, ntype[16] = {0}, etype[7] = {0}, bad_to = 0;
	for (unsigned long long i = 0; i < n; i++) {
		sum += nodes[7 * i + 4];
		ntype[nodes[7 * i] < 16 ? nodes[7 * i] : 15]++;
	}
	CHECK(sum == e);
	for (unsigned long long k = 0; k < e; k++) {
		etype[edges[3 * k] < 7 ? edges[3 * k] : 6]++;
		bad_to += edges[3 * k + 2] % 7 != 0 || edges[3 * k + 2] / 7 >= n;
	}
	CHECK(bad_to == 0);
	for (size_t t = 0; t < sizeof node_target / sizeof *node_target; t++)
		for (int k = 0; k < 16; k++)
			if (strcmp(node_types[k], node_target[t].type) == 0 && !within((double)ntype[k] / n, node_target[t].share)) {
				printf("    node type %s: %.5f, target %.5f\n", node_types[k], (double)ntype[k] / n,
				       node_target[t].share);
				CHECK(0);
			}
	for (size_t t = 0; t < sizeof edge_target / sizeof *edge_target; t++)
		for (int k = 0; k < 7; k++)
			if (strcmp(edge_types[k], edge_target[t].type) == 0 && !within((double)etype[k] / e, edge_target[t].share)) {
				printf("    edge type %s: %.5f, target %.5f\n", edge_types[k], (double)etype[k] / e,
				       edge_target[t].share);
				CHECK(0);
			}
	CHECK((double)e / n > 4.154 * 0.85 && (double)e / n < 4.154 * 1.15); /* edges a node */
	/* node 0: the synthetic root, element 1 -> (GC roots) (node 1, 28
	 * sub-roots), a shortcut to the global object */
	CHECK(nodes[0] == 9 && nodes[4] == 5 && edges[0] == 1 && edges[2] == 7 && nodes[7 + 4] == 28);
	CHECK(edges[3] == 5 && nodes[edges[5] / 7 * 7] == 3);
	CHECK(etype[5] == 1 && etype[6] > 0); /* one shortcut, some weak edges */
	free(nodes);
	free(edges);

	/* the string table: every string distinct */
	const char *s = strstr(doc, "\"strings\":[");
	size_t ns = 0, cap = 1024;
	char **str = malloc(cap * sizeof *str);
	for (s = s ? s + 11 : NULL; s && *s == '"';) {
		const char *q = s + 1;
		while (*q != '"')
			q += *q == '\\' ? 2 : 1;
		if (ns == cap)
			str = realloc(str, (cap *= 2) * sizeof *str);
		str[ns++] = strndup(s + 1, (size_t)(q - s - 1));
		s = q + 1;
		if (*s == ',')
			s += 2; /* ",\n" */
	}
	CHECK(ns > 1000 && s && strcmp(s, "]}") == 0);
	qsort(str, ns, sizeof *str, cmp_str);
	size_t dup = 0;
	for (size_t k = 1; k < ns; k++)
		dup += strcmp(str[k - 1], str[k]) == 0;
	CHECK(dup == 0);
	for (size_t k = 0; k < ns; k++)
		free(str[k]);
	free(str);

	/* our reader: every node loaded, every one reached from the root (the
	 * model makes no unreachable node), the dominators finish */
	heap h;
	heap_init(&h);
	char err[1024];
	int rc = v8_parse("gen.heapsnapshot", doc, len, NULL, &h, err, sizeof err);
	CHECK(rc == 0);
	if (rc == 0) {
		CHECK(h.slots - (uint32_t)h.first_gc_index == n);
		gc_result r;
		dom_result d;
		CHECK(run_gc(&h, MODE_GAME, 2, &r) == 0);
		uint64_t reached = 0;
		for (uint32_t i = (uint32_t)h.first_gc_index; i < h.slots; i++)
			reached += r.reachable[i] != 0;
		CHECK(reached == n);
		CHECK(dom_compute(&h, &r, POLICY_GC, &d) == 0);
		uint64_t dominated = 0;
		for (uint32_t i = (uint32_t)h.first_gc_index; i < h.slots; i++)
			dominated += d.idom[i] >= 0 || d.idom[i] == DOM_TOP;
		CHECK(dominated == n);
		dom_free(&d);
		gc_result_free(&r);
		heap_free(&h);
	} else
		printf("    %s\n", err);
	free(doc);
}

TEST(v8gen_same_seed_same_bytes)
{
	gen_v8_options a = {20000, 3, 100, 100, 50}, b = a;
	b.seed = 4;
	size_t la, la2, lb;
	char *x = generate(&a, &la), *y = generate(&a, &la2), *z = generate(&b, &lb);
	CHECK(x && y && z);
	if (x && y && z) {
		CHECK(la == la2 && memcmp(x, y, la) == 0);
		CHECK(la != lb || memcmp(x, z, la) != 0);
	}
	free(x);
	free(y);
	free(z);
}
