/* query.c — selectors and retention chains (see query.h): the shortest
 * chain from the stored parents, and the searches behind path --roots,
 * --all and --direct.  Printing them is cli/chain_print.c's. */
#include "analysis/query.h"

#include <stdlib.h>
#include <string.h>

#include "base/base.h"

/* Steps a chain search takes before it stops and says so. */
#define DEFAULT_BUDGET 100000
/* Referencer rows a chain search keeps (12 bytes each) before it stops. */
#define MAX_SOURCE_ROWS (8u << 20)
/* Ways "Class Path" is split at a space before a selector is unknown. */
#define MAX_SPLITS 16

void chains_free(chains *c)
{
	for (size_t k = 0; k < c->n; k++) {
		free(c->v[k].nodes);
		free(c->v[k].edges);
		free(c->v[k].first);
	}
	free(c->v);
	memset(c, 0, sizeof *c);
}

static int chains_push(chains *c, const chain *x)
{
	if (grow_array((void **)&c->v, &c->cap, c->n, sizeof *c->v))
		return -1;
	c->v[c->n++] = *x;
	return 0;
}

static void chain_free(chain *c)
{
	free(c->nodes);
	free(c->edges);
	free(c->first);
	memset(c, 0, sizeof *c);
}

/* ---- selectors ---- */

static int hex(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* S with each \xHH of the display form (escape.h) turned back into its byte:
 * malloc'd, or NULL when S has none (or out of memory: then *OOM). */
static char *unescape(const char *s, int *oom)
{
	if (!strstr(s, "\\x"))
		return NULL;
	char *raw = malloc(strlen(s) + 1), *p = raw;
	if (!raw) {
		*oom = 1;
		return NULL;
	}
	for (; *s; s++) {
		if (s[0] == '\\' && s[1] == 'x' && hex(s[2]) >= 0 && hex(s[3]) >= 0 && (hex(s[2]) || hex(s[3]))) {
			*p++ = (char)(hex(s[2]) * 16 + hex(s[3]));
			s += 3;
		} else {
			*p++ = *s;
		}
	}
	*p = '\0';
	return raw;
}

/* The object whose path is PATH as printed (or, failing that, with its
 * \xHH escapes undone); OBJ_NONE when none.  0, or -1 on an error. */
static int find_printed_path(view *v, const char *path, obj_t *out)
{
	if (v->ops->find_path(v, path, out))
		return -1;
	int oom = 0;
	char *raw = *out == OBJ_NONE ? unescape(path, &oom) : NULL;
	int rc = raw ? v->ops->find_path(v, raw, out) : 0;
	free(raw);
	if (oom)
		snprintf(v->err, sizeof v->err, "out of memory");
	return oom ? -1 : rc;
}

/* Does object I's class print as the LEN bytes at CLS?  1, 0, or -1. */
static int class_is(view *v, obj_t i, const char *cls, size_t len)
{
	obj_info o;
	if (v->ops->describe(v, i, &o))
		return -1;
	int same = strlen(o.class_name) == len && memcmp(o.class_name, cls, len) == 0;
	obj_info_free(&o);
	return same;
}

/* Is SEL "@ID", a V8 node id as DevTools writes it? */
static int is_node_id(const char *sel)
{
	return sel[0] == '@' && sel[1] >= '0' && sel[1] <= '9' && sel[1 + strspn(sel + 1, "0123456789")] == '\0';
}

/* Is S all digits (at least one)? */
static int is_number(const char *s)
{
	return *s >= '0' && *s <= '9' && s[strspn(s, "0123456789")] == '\0';
}

/* The object whose V8 node id is the number DIGITS (heap_node_id), as
 * query_find answers: 0 found, 1 none (or several: an id names one
 * object), -1 error. */
static int find_node_id(view *v, const char *digits, obj_t *out)
{
	size_t n = 0;
	*out = OBJ_NONE;
	if (!v->v8 || strlen(digits) > 10)
		return 1;
	long long id = strtoll(digits, NULL, 10);
	if (id > UINT32_MAX)
		return 1;
	if (v->ops->find_node(v, id, out, &n))
		return -1;
	if (n != 1)
		*out = OBJ_NONE;
	return n != 1;
}

/* The object with index DIGITS: 0 found, 1 none, -1 error. */
static int find_index(view *v, const char *digits, obj_t *out)
{
	long long i = strlen(digits) > 10 ? -1 : strtoll(digits, NULL, 10);
	obj_info o;
	int rc = i >= 0 && i <= OBJ_INDEX_MAX ? v->ops->describe(v, (obj_t)i, &o) : 1;
	*out = OBJ_NONE;
	if (rc < 0)
		return -1;
	if (rc == 0) { /* O holds an object only then */
		obj_info_free(&o);
		*out = (obj_t)i;
	}
	return rc;
}

/* A bare number N: the object with index N, or on a V8 heap the node with
 * id N when no object has that index; 2 when both exist and differ (*OUT
 * the index's, *OTHER the node's).  0 found, 1 none, -1 error. */
static int find_bare_number(view *v, const char *digits, obj_t *out, obj_t *other)
{
	obj_t node = OBJ_NONE;
	int rc = find_index(v, digits, out);
	int rn = rc < 0 || !v->v8 ? 1 : find_node_id(v, digits, &node);
	*other = node;
	if (rc < 0 || rn < 0)
		return -1;
	if (rc == 0 && rn == 0 && node != *out)
		return 2;
	if (rc == 0)
		return 0;
	*out = node;
	return rn;
}

int query_find(view *v, const char *sel, obj_t *out)
{
	*out = OBJ_NONE;
	if (is_node_id(sel))
		return find_node_id(v, sel + 1, out);
	if (sel[0] == '#' && is_number(sel + 1))
		return find_index(v, sel + 1, out);
	if (is_number(sel)) {
		obj_t other;
		int rc = find_bare_number(v, sel, out, &other);
		if (rc == 2) /* ambiguous: query_select names both */
			*out = OBJ_NONE;
		return rc == 2 ? 1 : rc;
	}
	/* the whole text as a path name first: a path may hold spaces */
	if (find_printed_path(v, sel, out))
		return -1;
	/* then a full name, "Class Path", split at each space in turn */
	int splits = 0;
	for (const char *sp = strchr(sel, ' '); *out == OBJ_NONE && sp && splits < MAX_SPLITS; sp = strchr(sp + 1, ' ')) {
		obj_t i;
		splits++;
		if (find_printed_path(v, sp + 1, &i))
			return -1;
		int same = i == OBJ_NONE ? 0 : class_is(v, i, sel, (size_t)(sp - sel));
		if (same < 0)
			return -1;
		if (same)
			*out = i;
	}
	return *out == OBJ_NONE;
}

/* NAME as a glob that matches it alone (the wildcards of fnmatch and
 * SQLite's GLOB each in brackets), malloc'd; NULL when out of memory. */
static char *glob_literal(const char *name)
{
	char *g = malloc(3 * strlen(name) + 1), *p = g;
	if (!g)
		return NULL;
	for (; *name; name++) {
		if (*name == '*' || *name == '?' || *name == '[') {
			*p++ = '[';
			*p++ = *name;
			*p++ = ']';
		} else {
			*p++ = *name;
		}
	}
	*p = '\0';
	return g;
}

/* A near miss: an object and its distance from the selection. */
typedef struct near_miss {
	size_t d;
	obj_t idx;
} near_miss;

static int cmp_near(const void *a, const void *b)
{
	const near_miss *x = a, *y = b;
	if (x->d != y->d)
		return x->d < y->d ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

/* Nothing is named like SEL's last component LEAF (unescaped): keep of
 * CAND (objects whose name starts as LEAF does) those whose path is within
 * near_miss_limit(LEAF) edits of SEL's path, nearest first, in CAND (its
 * count in *N).  At most 5000 are looked at: each costs a description. */
static int keep_near_misses(view *v, const char *sel, const char *leaf, obj_t *cand, size_t *n)
{
	size_t limit = near_miss_limit(strlen(leaf)), kept = 0, look = *n < 5000 ? *n : 5000;
	near_miss *m = malloc((look + 1) * sizeof *m);
	if (!m)
		return -1;
	for (size_t k = 0; k < look; k++) {
		obj_info o;
		if (v->ops->describe(v, cand[k], &o))
			continue;
		size_t cl = strlen(o.class_name);
		const char *path = strncmp(sel, o.class_name, cl) == 0 && sel[cl] == ' ' ? sel + cl + 1 : sel;
		size_t d = edit_distance(path, o.path, limit);
		if (d <= limit)
			m[kept++] = (near_miss){d, cand[k]};
		obj_info_free(&o);
	}
	qsort(m, kept, sizeof *m, cmp_near);
	for (size_t k = 0; k < kept; k++)
		cand[k] = m[k].idx;
	*n = kept;
	free(m);
	return 0;
}

/* The refusal of a bare number DIGITS that is object I's index and object
 * NODE's V8 node id, into ERR: "#N is CLASS PATH and @N is CLASS PATH:
 * write #N or @N".  0, or -1 on an error (in V's err). */
static int say_ambiguous(view *v, const char *digits, obj_t i, obj_t node, char *err, size_t errsize)
{
	obj_info a, b;
	if (v->ops->describe(v, i, &a))
		return -1;
	if (v->ops->describe(v, node, &b)) {
		obj_info_free(&a);
		return -1;
	}
	snprintf(err, errsize, "#%s is %s %s and @%s is %s %s: write #%s or @%s", digits, a.class_name, a.path, digits,
		 b.class_name, b.path, digits, digits);
	obj_info_free(&a);
	obj_info_free(&b);
	return 0;
}

int query_select(view *v, const char *sel, obj_t *out, char *err, size_t errsize)
{
	obj_t other;
	int rc = is_number(sel) ? find_bare_number(v, sel, out, &other) : query_find(v, sel, out);
	if (rc == 2) { /* a V8 heap: an index and a node id, two objects */
		rc = say_ambiguous(v, sel, *out, other, err, errsize);
		*out = OBJ_NONE;
		return rc < 0 ? -1 : 1;
	}
	if (rc <= 0)
		return rc;
	const char *s = sel[0] == '#' ? sel + 1 : sel;
	if (is_number(s)) {
		if (v->v8 && sel[0] != '#')
			snprintf(err, errsize, "no object has index %s, and no node id %s", s, s);
		else
			snprintf(err, errsize, "no object has index %s", s);
		return 1;
	}
	if (is_node_id(sel)) {
		if (v->v8)
			snprintf(err, errsize, "no object has node id %s (a V8 heap's objects are named NAME%s)", sel, sel);
		else
			snprintf(err, errsize, "no object has node id %s: not a V8 heap (@ID selects a V8 node)", sel);
		return 1;
	}
	/* unknown: suggest other objects named like the last component */
	const char *leaf = sel + strlen(sel);
	while (leaf > sel && leaf[-1] != '.' && leaf[-1] != ':' && leaf[-1] != '/')
		leaf--;
	int oom = 0;
	char *raw = unescape(leaf, &oom), *glob = oom ? NULL : glob_literal(raw ? raw : leaf);
	obj_t *cand = NULL;
	size_t n = 0;
	if (!glob) {
		free(raw);
		snprintf(v->err, sizeof v->err, "out of memory");
		return -1;
	}
	rc = v->ops->find_glob(v, glob, NULL, &cand, &n);
	free(glob);
	if (rc == 0 && n == 0) {
		/* no such name anywhere: the near misses among the names that
		 * begin as it does (BP_Enemy_C_3x: BP_Enemy_C_3 first) */
		const char *name = raw ? raw : leaf;
		char head[4] = {0};
		memcpy(head, name, strlen(name) < 3 ? strlen(name) : 3);
		char *prefix = glob_literal(head), *g = prefix ? malloc(strlen(prefix) + 2) : NULL;
		free(cand);
		cand = NULL;
		if (g) {
			strcpy(g, prefix);
			strcat(g, "*");
			rc = v->ops->find_glob(v, g, NULL, &cand, &n);
			if (rc == 0 && keep_near_misses(v, sel, name, cand, &n))
				rc = -1;
		} else {
			rc = -1;
		}
		free(prefix);
		free(g);
		if (rc && !v->err[0])
			snprintf(v->err, sizeof v->err, "out of memory");
	}
	free(raw);
	if (rc) {
		free(cand);
		return -1;
	}
	size_t len = (size_t)snprintf(err, errsize, "no object is '%s'", sel), shown = 0, others = 0, k = 0;
	/* describing a candidate builds its path (a query on a database): stop
	 * once five are shown and count the rest (a common leaf name matches
	 * a million objects) */
	for (; k < n && shown < 5; k++) {
		obj_info o;
		if (v->ops->describe(v, cand[k], &o))
			continue;
		size_t cl = strlen(o.class_name);
		int same = strcmp(o.path, sel) == 0 || (strncmp(sel, o.class_name, cl) == 0 && sel[cl] == ' ' &&
							strcmp(sel + cl + 1, o.path) == 0);
		if (!same && shown < 5 && len < errsize) {
			len += (size_t)snprintf(err + len, errsize - len, "%s #%d %s %s", shown ? "," : "; did you mean",
						cand[k], o.class_name, o.path);
			shown++;
		}
		obj_info_free(&o);
	}
	others = n - k;
	if (others && len < errsize)
		snprintf(err + len, errsize - len, " (and %zu more)", others);
	free(cand);
	return 1;
}

/* ---- chains ---- */

int edge_retains(const view *v, const edge *e, int dst_garbage)
{
	if (e->type == EDGE_GC)
		return !dst_garbage;
	if (e->src < v->first_gc_index || e->dst < v->first_gc_index)
		return 0;
	return ref_retains(e->type == EDGE_REF ? e->kind : REF_IMMUTABLE, dst_garbage);
}

/* The FGCObject record that makes X a gcobject root, if any: 1 with *OUT, 0, -1. */
static int gc_root_edge(view *v, obj_t x, edge *out)
{
	edges in = {0};
	if (v->ops->incoming(v, x, &in)) {
		edges_free(&in);
		return -1;
	}
	int found = 0;
	for (size_t k = 0; k < in.n && !found; k++)
		if (in.v[k].type == EDGE_GC) {
			*out = in.v[k];
			found = 1;
		}
	edges_free(&in);
	return found;
}

/* A chain of N nodes with room for its hops, the nodes and edges still to fill. */
static int chain_alloc(view *v, chain *c, size_t n)
{
	memset(c, 0, sizeof *c);
	c->n = n;
	c->nodes = malloc(n * sizeof *c->nodes);
	c->first = calloc(n, sizeof *c->first);
	if (c->nodes && c->first)
		return 0;
	chain_free(c);
	snprintf(v->err, sizeof v->err, "out of memory");
	return -1;
}

/* Fill hop K of C (its nodes set, hops before it filled): every reference
 * from NODES[K] to NODES[K+1] that retains it (DST_GARBAGE: whether the
 * target is garbage), the one named PREFER (NULL: none) first.  A hop the
 * references do not bear out (a damaged database) gets PREFER as a strong
 * reference, so a hop is never empty.  ROOM: the edges C has room for. */
static int fill_hop(view *v, chain *c, size_t k, int dst_garbage, const char *prefer, size_t *room)
{
	obj_t src = c->nodes[k], dst = c->nodes[k + 1];
	edges between = {0};
	if (v->ops->between(v, src, dst, &between)) {
		edges_free(&between);
		return -1;
	}
	size_t at = c->first[k], kept = 0;
	for (size_t e = 0; e < between.n; e++) {
		edge x = between.v[e];
		if (!edge_retains(v, &x, dst_garbage))
			continue;
		if (grow_array((void **)&c->edges, room, at + kept, sizeof *c->edges))
			goto oom;
		c->edges[at + kept] = x;
		if (prefer && kept && strcmp(x.prop, prefer) == 0 && strcmp(c->edges[at].prop, prefer) != 0) {
			c->edges[at + kept] = c->edges[at];
			c->edges[at] = x;
		}
		kept++;
	}
	edges_free(&between);
	if (!kept) {
		if (grow_array((void **)&c->edges, room, at, sizeof *c->edges))
			goto oom;
		c->edges[at] = edge_make(v, src, dst, EDGE_REF, REF_STRONG, NULL);
		c->edges[at].prop = prefer ? prefer : "";
		kept = 1;
	}
	c->first[k + 1] = at + kept;
	return 0;
oom:
	edges_free(&between);
	snprintf(v->err, sizeof v->err, "out of memory");
	return -1;
}

/* The gcobject edge of C's root when ROOT_KIND says an FGCObject holds it. */
static int finish_chain(view *v, chain *c, int root_kind)
{
	c->gc_root = 0;
	if (root_kind == RK_GCOBJECT) {
		int rc = gc_root_edge(v, c->nodes[0], &c->gc_edge);
		if (rc < 0)
			return -1;
		c->gc_root = rc;
	}
	return 0;
}

/* The shortest chain is read backwards from the stored parents.  Each
 * parent must be one hop nearer a root than its child, so a damaged
 * database (a parent that is itself, a loop, a distance that lies) stops
 * with an error instead of spinning, and the arrays grow with the chain
 * actually walked, not with a stored distance. */
int query_shortest(view *v, obj_t x, chains *out)
{
	obj_state s;
	int rc = v->ops->state(v, x, &s);
	if (rc) {
		if (rc > 0)
			snprintf(v->err, sizeof v->err, "no object has index %d", x);
		return -1;
	}
	if (s.distance == UINT32_MAX)
		return 0;
	/* walk up first: the nodes, each child's garbage flag and parent property */
	vec nodes = {0}, garbage = {0};
	const char **via = NULL;
	size_t cap_via = 0, room = 0;
	chain c = {0};
	obj_t cur = x;
	for (;;) {
		if (vec_push(&nodes, (uint32_t)cur) || vec_push(&garbage, (uint32_t)s.garbage) ||
		    grow_array((void **)&via, &cap_via, nodes.n, sizeof *via))
			goto oom;
		via[nodes.n - 1] = s.parent_property;
		if (s.distance == 0)
			break;
		obj_t p = s.parent;
		obj_state ps;
		rc = p == OBJ_NONE ? 1 : v->ops->state(v, p, &ps);
		if (rc < 0)
			goto fail;
		if (rc > 0 || ps.distance != s.distance - 1) {
			snprintf(v->err, sizeof v->err, "database: object_table: the parent of object %d is not one hop nearer a "
				 "root (distance %u)", cur, s.distance);
			goto fail;
		}
		cur = p;
		s = ps;
	}
	/* then the chain root first: node k is walk entry n-1-k */
	if (chain_alloc(v, &c, nodes.n))
		goto fail;
	for (size_t k = 0; k < c.n; k++)
		c.nodes[k] = (obj_t)nodes.v[c.n - 1 - k];
	for (size_t k = 0; k + 1 < c.n; k++)
		if (fill_hop(v, &c, k, (int)garbage.v[c.n - 2 - k], via[c.n - 2 - k], &room))
			goto fail;
	if (finish_chain(v, &c, s.root_kind) || chains_push(out, &c))
		goto fail;
	free(nodes.v);
	free(garbage.v);
	free(via);
	return 0;
oom:
	snprintf(v->err, sizeof v->err, "out of memory");
fail:
	free(nodes.v);
	free(garbage.v);
	free(via);
	chain_free(&c);
	return -1;
}

/* ---- the backward search of path --roots and --all ----
 *
 * The search grows partial chains backwards from X: a step is an object,
 * the step after it (nearer X) and its length.  Every object with a
 * distance has a chain from a root that long, so a partial chain of LEN
 * hops whose first object is at distance D can become a whole chain of no
 * fewer than LEN + D hops (A*: the stored distances are an exact estimate
 * where they are not blocked, and consistent, since a referencer is at
 * most one hop nearer a root than what it references).  The queue holds
 * "the Kth referencer of step S" entries, keyed by that bound; popping one
 * makes one new step and queues the step's next referencer, so a popular
 * object's 100,000 referencers cost one entry at a time, not 100,000.
 * Chains therefore come out shortest first.  CHAINS_ROOTS takes each
 * object once (its first step is its shortest: the estimate is
 * consistent), so each root once; CHAINS_ALL takes every object not
 * already on the partial chain, so chains differ in their objects.
 * Parallel references between two objects are one hop. */

/* A referencer the search can step to, in the referencer lists it keeps. */
typedef struct ref_src {
	obj_t obj;
	uint32_t distance;
} ref_src;

typedef struct step {
	obj_t obj;
	uint32_t next;    /* the step nearer X; UINT32_MAX for X itself */
	uint32_t len;     /* hops from OBJ to X */
	uint8_t garbage;  /* OBJ is garbage */
	uint32_t srcs, nsrcs; /* OBJ's referencer list, once read (UINT32_MAX before) */
} step;

typedef struct entry {
	uint32_t bound;   /* no chain through this entry is shorter */
	uint32_t step;
	uint32_t cursor;  /* the step's referencer to take next; UINT32_MAX: read its list first */
	uint32_t seq;     /* ties in the order queued */
} entry;

typedef struct search {
	view *v;
	enum chain_mode mode;
	step *steps;
	size_t nsteps, cap_steps;
	entry *q;         /* a binary heap by (bound, seq) */
	size_t nq, cap_q;
	uint32_t seq;
	ref_src *refs;    /* every referencer list read, one after another */
	size_t nrefs, cap_refs;
	idmap lists;      /* object -> (start << 32 | count) of its list in REFS */
	idmap taken;      /* objects that have been a step (CHAINS_ROOTS: closed) */
	obj_t home;       /* EXTERNAL: X's package, else OBJ_NONE */
	int external;
} search;

static int entry_less(const entry *a, const entry *b)
{
	return a->bound < b->bound || (a->bound == b->bound && a->seq < b->seq);
}

static int q_push(search *s, uint32_t bound, uint32_t st, uint32_t cursor)
{
	if (grow_array((void **)&s->q, &s->cap_q, s->nq, sizeof *s->q))
		return -1;
	size_t i = s->nq++;
	s->q[i] = (entry){bound, st, cursor, s->seq++};
	while (i > 0 && entry_less(&s->q[i], &s->q[(i - 1) / 2])) {
		entry t = s->q[i];
		s->q[i] = s->q[(i - 1) / 2];
		s->q[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
	return 0;
}

static entry q_pop(search *s)
{
	entry top = s->q[0];
	s->q[0] = s->q[--s->nq];
	for (size_t i = 0;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < s->nq && entry_less(&s->q[l], &s->q[m]))
			m = l;
		if (r < s->nq && entry_less(&s->q[r], &s->q[m]))
			m = r;
		if (m == i)
			return top;
		entry t = s->q[i];
		s->q[i] = s->q[m];
		s->q[m] = t;
		i = m;
	}
}

static int cmp_ref_src(const void *a, const void *b)
{
	const ref_src *x = a, *y = b;
	if (x->distance != y->distance)
		return x->distance < y->distance ? -1 : 1;
	return (x->obj > y->obj) - (x->obj < y->obj);
}

/* The referencer list of step AT's object: the distinct objects with a
 * reference to it that retains it and a distance, nearest a root first
 * (ties by index), read once per object.  0, 1 when the search may keep no
 * more rows, -1 on an error. */
static int read_sources(search *s, uint32_t at)
{
	step *st = &s->steps[at];
	uint64_t *have = idmap_get(&s->lists, (uint32_t)st->obj);
	if (have) {
		st->srcs = (uint32_t)(*have >> 32);
		st->nsrcs = (uint32_t)*have;
		return 0;
	}
	sources in = {0};
	if (s->v->ops->sources(s->v, st->obj, &in)) {
		free(in.v);
		return -1;
	}
	if (s->nrefs + in.n > MAX_SOURCE_ROWS) {
		free(in.v);
		return 1;
	}
	size_t start = s->nrefs;
	for (size_t k = 0; k < in.n; k++) {
		const source *r = &in.v[k];
		edge e = {.src = r->src, .dst = st->obj, .type = r->type, .kind = r->kind};
		if (!r->reachable || r->distance == UINT32_MAX || !edge_retains(s->v, &e, st->garbage))
			continue;
		if (grow_array((void **)&s->refs, &s->cap_refs, s->nrefs, sizeof *s->refs))
			goto oom;
		s->refs[s->nrefs++] = (ref_src){r->src, r->distance};
	}
	free(in.v);
	if (s->nrefs > start) /* s->refs is still NULL when nothing retained the first one */
		qsort(s->refs + start, s->nrefs - start, sizeof *s->refs, cmp_ref_src);
	size_t n = start;
	for (size_t k = start; k < s->nrefs; k++) /* parallel references: one referencer */
		if (k == start || s->refs[k].obj != s->refs[n - 1].obj)
			s->refs[n++] = s->refs[k];
	s->nrefs = n;
	st->srcs = (uint32_t)start;
	st->nsrcs = (uint32_t)(n - start);
	if (idmap_add(&s->lists, (uint32_t)st->obj, (uint64_t)start << 32 | (n - start)) < 0)
		goto oom_freed;
	return 0;
oom:
	free(in.v);
oom_freed:
	snprintf(s->v->err, sizeof s->v->err, "out of memory");
	return -1;
}

/* Is X on the partial chain from step AT to the target? */
static int on_chain(const search *s, uint32_t at, obj_t x)
{
	if (!idmap_get(&s->taken, (uint32_t)x)) /* never a step: on no chain */
		return 0;
	for (; at != UINT32_MAX; at = s->steps[at].next)
		if (s->steps[at].obj == x)
			return 1;
	return 0;
}

/* The package of I, into *OUT: the end of its Outer chain (Brent's cycle
 * detection ends a looping chain from a damaged database).  0, or -1 when
 * the view failed (its message in v->err). */
static int outermost(view *v, obj_t i, obj_t *out)
{
	obj_t mark = i;
	for (size_t power = 1, lam = 0;;) {
		obj_state o;
		int rc = v->ops->state(v, i, &o);
		if (rc < 0)
			return -1;
		if (rc > 0 || o.outer == OBJ_NONE || o.outer == mark) {
			*out = i;
			return 0;
		}
		i = o.outer;
		if (++lam == power) {
			mark = i;
			power *= 2;
			lam = 0;
		}
	}
}

/* The whole chain from step AT (a root) to the target. */
static int emit_chain(search *s, uint32_t at, int root_kind, chains *out)
{
	view *v = s->v;
	chain c;
	size_t room = 0;
	if (chain_alloc(v, &c, (size_t)s->steps[at].len + 1))
		return -1;
	size_t k = 0;
	for (uint32_t p = at; p != UINT32_MAX; p = s->steps[p].next)
		c.nodes[k++] = s->steps[p].obj;
	k = 0;
	for (uint32_t p = at; s->steps[p].next != UINT32_MAX; p = s->steps[p].next, k++)
		if (fill_hop(v, &c, k, s->steps[s->steps[p].next].garbage, NULL, &room))
			goto fail;
	if (finish_chain(v, &c, root_kind) || chains_push(out, &c))
		goto fail;
	return 0;
fail:
	chain_free(&c);
	return -1;
}

/* Make a step for object X after step NEXT and queue what follows from it:
 * a root ends a chain (emitted when it may be); any other object has its
 * referencers read when its turn comes.  0, or -1 on an error. */
static int take_step(search *s, obj_t x, uint32_t next, chains *out)
{
	view *v = s->v;
	obj_state o;
	int rc = v->ops->state(v, x, &o);
	if (rc)
		return rc < 0 ? -1 : 0;
	if (!o.reachable || o.distance == UINT32_MAX)
		return 0; /* no chain passes through it */
	if (s->nsteps >= UINT32_MAX - 1 ||
	    grow_array((void **)&s->steps, &s->cap_steps, s->nsteps, sizeof *s->steps) ||
	    idmap_add(&s->taken, (uint32_t)x, 0) < 0) {
		snprintf(v->err, sizeof v->err, "out of memory");
		return -1;
	}
	uint32_t at = (uint32_t)s->nsteps++;
	uint32_t len = next == UINT32_MAX ? 0 : s->steps[next].len + 1;
	s->steps[at] = (step){x, next, len, (uint8_t)o.garbage, UINT32_MAX, 0};
	if (RK_IS_ROOT(o.root_kind)) { /* chains stop at roots */
		obj_t pkg = OBJ_NONE;
		if (s->external && o.root_kind != RK_GCOBJECT && outermost(v, x, &pkg))
			return -1;
		if (s->external && o.root_kind != RK_GCOBJECT && pkg == s->home)
			return 0;
		return emit_chain(s, at, o.root_kind, out);
	}
	if (q_push(s, len + o.distance, at, UINT32_MAX)) {
		snprintf(v->err, sizeof v->err, "out of memory");
		return -1;
	}
	return 0;
}

int query_chains(view *v, obj_t x, enum chain_mode mode, size_t max, int external, size_t budget, chains *out)
{
	search s = {.v = v, .mode = mode, .home = OBJ_NONE, .external = external};
	if (!budget)
		budget = DEFAULT_BUDGET;
	int rc = external ? outermost(v, x, &s.home) : 0;
	if (rc == 0)
		rc = take_step(&s, x, UINT32_MAX, out);
	for (size_t taken = 0; rc == 0 && s.nq; taken++) {
		if (out->n >= max) {
			out->limited = 1;
			break;
		}
		if (taken >= budget) {
			out->truncated = 1;
			break;
		}
		entry e = q_pop(&s);
		step *st = &s.steps[e.step];
		if (e.cursor == UINT32_MAX) { /* its turn: read its referencers, queue the first */
			rc = read_sources(&s, e.step);
			if (rc > 0) {
				out->truncated = 1;
				rc = 0;
				break;
			}
			st = &s.steps[e.step];
			if (rc == 0 && st->nsrcs && q_push(&s, st->len + 1 + s.refs[st->srcs].distance, e.step, 0))
				rc = -1;
			continue;
		}
		const ref_src *r = &s.refs[st->srcs + e.cursor];
		obj_t src = r->obj;
		if (e.cursor + 1 < st->nsrcs && q_push(&s, st->len + 1 + r[1].distance, e.step, e.cursor + 1)) {
			rc = -1;
			break;
		}
		if (mode == CHAINS_ROOTS ? idmap_get(&s.taken, (uint32_t)src) != NULL : on_chain(&s, e.step, src))
			continue;
		rc = take_step(&s, src, e.step, out);
	}
	if (rc && !v->err[0])
		snprintf(v->err, sizeof v->err, "out of memory");
	free(s.steps);
	free(s.q);
	free(s.refs);
	idmap_free(&s.lists);
	idmap_free(&s.taken);
	return rc ? -1 : 0;
}

int query_direct(view *v, obj_t x, chains *out)
{
	edges in = {0};
	obj_state xs;
	int rc = v->ops->state(v, x, &xs);
	if (rc || v->ops->incoming(v, x, &in)) {
		if (rc > 0)
			snprintf(v->err, sizeof v->err, "no object has index %d", x);
		edges_free(&in);
		return -1;
	}
	/* one chain a referencing object (its references to X on one hop: they
	 * come grouped by source), one an FGCObject reference */
	for (size_t k = 0; k < in.n;) {
		size_t m = 1;
		if (in.v[k].type != EDGE_GC)
			while (k + m < in.n && in.v[k + m].type != EDGE_GC && in.v[k + m].src == in.v[k].src)
				m++;
		chain c;
		if (chain_alloc(v, &c, 2))
			goto fail;
		c.edges = malloc(m * sizeof *c.edges);
		if (!c.edges) {
			chain_free(&c);
			goto fail;
		}
		memcpy(c.edges, &in.v[k], m * sizeof *c.edges);
		c.first[1] = m;
		c.nodes[1] = x;
		if (in.v[k].type == EDGE_GC) {
			c.n = 1;
			c.gc_root = 1;
			c.gc_edge = in.v[k];
			c.nodes[0] = x;
		} else {
			c.nodes[0] = in.v[k].src;
		}
		if (chains_push(out, &c)) {
			chain_free(&c);
			goto fail;
		}
		k += m;
	}
	edges_free(&in);
	return 0;
fail:
	snprintf(v->err, sizeof v->err, "out of memory");
	edges_free(&in);
	return -1;
}

const char *edge_kind_name(const edge *e)
{
	if (e->type == EDGE_CLASS)
		return "class";
	if (e->type == EDGE_OUTER)
		return "outer";
	if (e->type == EDGE_GC)
		return "gcobject";
	return ref_kind_names[e->kind < REF_KIND_COUNT ? e->kind : 0];
}
