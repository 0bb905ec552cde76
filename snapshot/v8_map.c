/* v8_map.c — puts a V8 heap graph (v8_raw) into the heap model, so that
 * every command works on it unchanged.  The mapping
 * (ugc-snapshot(5) §3.1):
 *  - the disregard pool holds the package /V8 (0), the classes Package (1)
 *    and Class (2), then one class object per distinct V8 class in order of
 *    first use; node ordinal i is object first-gc-index + i, Outer /V8;
 *  - class: the node's name for "object" and "native" nodes ("(anonymous)"
 *    when it is empty), else
 *    "(system)" for "hidden", "(compiled code)" for "code" and "(TYPE)" for
 *    the rest, as DevTools' summary groups them;
 *  - name: the node's name cut on a UTF-8 boundary so that "@ID" still fits
 *    in 1023 bytes, then "@ID"; size: self_size; node 0 is in the RootSet.
 *    The id is the name's number (NAME_NUM_AT), so the string table holds
 *    each V8 name once, not one "NAME@ID" string a node;
 *  - edges in order: weak -> weak; shortcut out of node 0 -> strong, other
 *    shortcuts -> soft; the rest strong; property: the edge name, or "[N]"
 *    for element and hidden edges;
 *  - strings: the reader's string table becomes the heap's as it is (v8.h:
 *    the empty string first, then V8's others in order; one equal to an
 *    earlier string, which only the reader's cut can make, is dropped and
 *    stands for that one); the pool's names, "[N]" and the names cut for
 *    "@ID" follow.
 * The reader's columns become the heap's in place: the edge columns are
 * the reference rows, and each node column (classes, sizes, names, ids,
 * edge counts) is grown by the pool's slots and moved up, then rewritten
 * where it is, so no second copy of a column is made (nor its pages).
 * The names (the string table indexed, every property and node name made
 * a string id) are mapped on a second thread, while this one makes the
 * graph: the edges' kinds, row
 * starts and targets, and every link counted at its end (the heap's
 * in_links).  Then the caller's load hook (snapshot.h) may work on the
 * graph, the dominators say, until the names are in. */
#include "snapshot/v8.h"

#include "base/base.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME_LIMIT 1023   /* a NAME's limit in the text format */
#define PROP_LIMIT 4096   /* a PROPERTY's */
_Static_assert(V8_STR_KEEP <= PROP_LIMIT, "a V8 string is never cut to be a property");
#define POOL_FIXED 3      /* /V8, Package, Class */
#define ELEM_CACHE (1u << 20)
#define ANON_CLASS "(anonymous)" /* the class of an object or native node with an empty name */

typedef struct mapper {
	const char *path;
	v8_raw *raw;
	heap *h;
	char *err;
	size_t errsize;
	uint32_t *class_of_str;  /* V8 string index -> class object + 1, 0 unset */
	obj_t class_of_type[256]; /* non-object node type -> class object, -1 unset */
	strtab pool_names;       /* the pool objects' names, until the heap's strings are in */
	uint32_t *class_of_sid;  /* pool_names id -> class object + 1 */
	size_t class_of_sid_cap;
	uint32_t *class_name;    /* pool_names id of pool object 0.. (index = object) */
	uint32_t npool, pool_cap;
	char engine[300];        /* the engine's text */
	uint32_t *renum;         /* the reader's string id -> the heap's, where the reader's
				  * table held a string twice (take_strings); NULL when it
				  * did not (V8 writes each once: only a cut could meet) */
	uint32_t *elem_sid;      /* N -> string id of "[N]" + 1, for N < ELEM_CACHE */
} mapper;

static int oom(mapper *m, const char *what)
{
	snprintf(m->err, m->errsize, "%s: out of memory (%s)", m->path, what);
	return -1;
}

/* The string id of V8 string K in the reader's table: K + 1 less the
 * empty strings before it (0 for an empty one). */
static uint32_t raw_id(const v8_raw *raw, uint32_t k)
{
	if (!raw->nempties)
		return k + 1;
	uint32_t lo = 0, hi = raw->nempties; /* the empties before K */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (raw->empties[mid] < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < raw->nempties && raw->empties[lo] == k ? 0 : k + 1 - lo;
}

/* V8 string K, while the reader's table is not the heap's yet */
static const char *v8_str(const v8_raw *raw, uint32_t k, size_t *len)
{
	uint32_t id = raw_id(raw, k);
	*len = (size_t)(raw->soff[id + 1] - raw->soff[id] - 1);
	return raw->sbytes + raw->soff[id];
}

/* The heap's id of V8 string K, once the table is the heap's: its id in
 * the reader's table, renumbered where copies were dropped */
static uint32_t str_id(const mapper *m, uint32_t k)
{
	uint32_t id = raw_id(m->raw, k);
	return m->renum ? m->renum[id] : id;
}

/* The class object named S (cut to a NAME), made on first use; its name
 * goes into the heap's strings with the names (pool_names()). */
static obj_t class_named(mapper *m, const char *s, size_t len)
{
	uint32_t sid = strtab_intern(&m->pool_names, s, v8_utf8_cut(s, len, NAME_LIMIT));
	if (sid == UINT32_MAX)
		return oom(m, "class names");
	if (sid >= m->class_of_sid_cap) {
		size_t cap = m->class_of_sid_cap ? m->class_of_sid_cap : 1024;
		while (cap <= sid)
			cap *= 2;
		uint32_t *a = realloc(m->class_of_sid, cap * sizeof *a);
		if (!a)
			return oom(m, "classes");
		memset(a + m->class_of_sid_cap, 0, (cap - m->class_of_sid_cap) * sizeof *a);
		m->class_of_sid = a;
		m->class_of_sid_cap = cap;
	}
	if (m->class_of_sid[sid])
		return (obj_t)(m->class_of_sid[sid] - 1);
	if (m->npool == m->pool_cap) {
		m->pool_cap = m->pool_cap ? m->pool_cap * 2 : 256;
		uint32_t *a = realloc(m->class_name, m->pool_cap * sizeof *a);
		if (!a)
			return oom(m, "classes");
		m->class_name = a;
	}
	m->class_name[m->npool] = sid;
	m->class_of_sid[sid] = m->npool + 1;
	return (obj_t)m->npool++;
}

/* Pass 1: every node's class, into CLS (node_count entries). */
static int assign_classes(mapper *m, obj_t *cls)
{
	v8_raw *raw = m->raw;
	for (int t = 0; t < 256; t++)
		m->class_of_type[t] = -1;
	int is_named[256] = {0};
	for (uint32_t t = 0; t < raw->n_node_types; t++)
		is_named[t] = strcmp(raw->node_types[t], "object") == 0 || strcmp(raw->node_types[t], "native") == 0;
	m->class_of_str = calloc((size_t)raw->nstrings + 1, sizeof *m->class_of_str);
	if (!m->class_of_str)
		return oom(m, "classes");
	for (uint32_t i = 0; i < raw->node_count; i++) {
		uint8_t t = raw->ntype[i];
		obj_t c;
		if (is_named[t]) {
			uint32_t k = raw->nname[i];
			if (!m->class_of_str[k]) {
				size_t len;
				const char *s = v8_str(raw, k, &len);
				if (len == 0) /* a class needs a name: DevTools shows these unnamed */
					s = ANON_CLASS, len = strlen(ANON_CLASS);
				if ((c = class_named(m, s, len)) < 0)
					return -1;
				m->class_of_str[k] = (uint32_t)c + 1;
			}
			c = (obj_t)m->class_of_str[k] - 1;
		} else {
			if (m->class_of_type[t] < 0) {
				const char *tn = raw->node_types[t];
				char buf[300];
				int n = strcmp(tn, "hidden") == 0 ? snprintf(buf, sizeof buf, "(system)")
					: strcmp(tn, "code") == 0 ? snprintf(buf, sizeof buf, "(compiled code)")
					: snprintf(buf, sizeof buf, "(%s)", tn);
				if ((m->class_of_type[t] = class_named(m, buf, (size_t)n)) < 0)
					return -1;
			}
			c = m->class_of_type[t];
		}
		cls[i] = c;
	}
	return 0;
}

static uint32_t elem_prop(mapper *m, uint32_t n)
{
	if (n < ELEM_CACHE && m->elem_sid[n])
		return m->elem_sid[n] - 1;
	char buf[16];
	int len = snprintf(buf, sizeof buf, "[%u]", n);
	uint32_t sid = strtab_intern(&m->h->strings, buf, (size_t)len);
	if (n < ELEM_CACHE && sid != UINT32_MAX)
		m->elem_sid[n] = sid + 1;
	return sid;
}

/* Node column *COL (N entries) as a heap column of TOTAL entries, its
 * entry i at AT + i and the first AT zero; *COL is then NULL.  Returns the
 * column, or NULL when out of memory (*COL still the caller's). */
static uint32_t *take_column(uint32_t **col, uint32_t n, uint32_t at, size_t total)
{
	uint32_t *c = realloc(*col, total * sizeof *c);
	if (!c)
		return NULL;
	*col = NULL;
	memmove(c + at, c, (size_t)n * sizeof *c);
	memset(c, 0, (size_t)at * sizeof *c);
	return c;
}

/* The links' ends: each edge target, an ordinal, becomes its object
 * index, and every link (each edge, each object's Class and Outer) is
 * counted at its end into COUNT (h->slots entries). */
static void count_links(obj_t *to, uint32_t nedges, obj_t first, const heap *h, uint32_t *count)
{
	for (uint32_t k = 0; k < nedges; k++) {
		obj_t t = to[k] + first; /* the parse checked every ordinal */
		to[k] = t;
		count[t]++;
	}
	for (uint32_t i = 0; i < h->slots; i++) {
		count[h->cls[i]]++; /* every slot is an object */
		if (h->outer[i] >= 0)
			count[h->outer[i]]++;
	}
}

/* Each edge's kind from its V8 type, into a column of its own: the V8
 * types stay for edge_names(), on the names' thread, which frees them. */
static int edge_kinds(const v8_raw *raw, heap *h)
{
	uint8_t kind_of[256];
	for (int t = 0; t < 256; t++)
		kind_of[t] = t == raw->edge_weak ? REF_WEAK : t == raw->edge_shortcut ? REF_SOFT : REF_STRONG;
	if (!(h->ref_kind = malloc((size_t)raw->edge_count + 1)))
		return -1;
	uint32_t from_root = raw->necount[0];
	for (uint32_t k = 0; k < raw->edge_count; k++) {
		uint8_t t = raw->etype[k];
		h->ref_kind[k] = (t == raw->edge_shortcut && k < from_root) ? REF_STRONG : kind_of[t];
	}
	return 0;
}

/* The edge columns become the reference rows, in place, but for the
 * kinds (edge_kinds(), before) and the properties (edge_names(), beside):
 * the edge counts made row starts, the targets made object indexes and
 * the links counted (heap.in_links).  Reads no V8 type or name. */
static int edge_graph(v8_raw *raw, heap *h, obj_t first)
{
	if (!(h->in_links = calloc(h->slots, sizeof *h->in_links)))
		return -1;
	h->nrefs = raw->edge_count;
	/* the edge counts become the row starts: count i moves to slot
	 * first + i + 1, then the sums run forward */
	if (!(h->ref_start = take_column(&raw->necount, raw->node_count, (uint32_t)first + 1, h->slots + 1)))
		return -1;
	for (uint32_t i = first; i < h->slots; i++)
		h->ref_start[i + 1] += h->ref_start[i];
	count_links(raw->eto, raw->edge_count, first, h, h->in_links);
	h->ref_dst = raw->eto;
	raw->eto = NULL;
	return 0;
}

/* Every edge's property, in place of its V8 name: a string index (the
 * string's id: a property is never cut, V8_STR_KEEP being PROPERTY's
 * limit), or an element index for element and hidden edges ("[N]",
 * interned).  The column becomes heap.ref_prop. */
static int edge_names(mapper *m)
{
	v8_raw *raw = m->raw;
	uint8_t numbered[256];
	for (int t = 0; t < 256; t++)
		numbered[t] = t == raw->edge_element || t == raw->edge_hidden;
	for (uint32_t k = 0; k < raw->edge_count; k++) {
		uint32_t v = raw->ename[k];
		uint32_t sid = numbered[raw->etype[k]] ? elem_prop(m, v) : str_id(m, v);
		if (sid == UINT32_MAX)
			return oom(m, "property names");
		raw->ename[k] = sid;
	}
	return 0;
}

static size_t digits(uint32_t v)
{
	size_t d = 1;
	while (v >= 10) {
		v /= 10;
		d++;
	}
	return d;
}

/* Node names.  NAME@ID is stored as NAME (the V8 string's id when it is
 * not cut, else the cut interned; possibly empty) with ID as its "@N"
 * number: what fname_split() makes of the whole, so that a text round trip
 * gives the same model.  Where it would not split (an id of 2^31 - 1 or
 * more) the whole "NAME@ID" is the name, with no number. */
static int map_names(mapper *m, obj_t first)
{
	v8_raw *raw = m->raw;
	heap *h = m->h;
	for (uint32_t i = 0; i < raw->node_count; i++) { /* the string index and id, taken over */
		uint32_t k = str_id(m, h->name[first + i]), id = h->name_num[first + i];
		const char *s = strtab_get(&h->strings, k);
		size_t len = strtab_len(&h->strings, k);
		/* "@ID" takes at most 11 bytes: a shorter name is never cut
		 * (and most are, so their ids' digits are not counted) */
		size_t keep = len <= NAME_LIMIT - 11 ? len : v8_utf8_cut(s, len, NAME_LIMIT - 1 - digits(id));
		uint32_t sid, num = 0;
		if (id < 0x7fffffff && keep == len) { /* fname_split's limit: N + 1 < 2^31 */
			num = (id + 1) | NAME_NUM_AT;
			sid = k;
		} else {
			/* copied out first: interning may move the strings */
			char buf[NAME_LIMIT + 1];
			memcpy(buf, s, keep);
			size_t n = keep;
			if (id < 0x7fffffff)
				num = (id + 1) | NAME_NUM_AT;
			else
				n += (size_t)snprintf(buf + keep, sizeof buf - keep, "@%u", id);
			sid = strtab_intern(&h->strings, buf, n);
		}
		if (sid == UINT32_MAX)
			return oom(m, "names");
		h->name[first + i] = sid;
		h->name_num[first + i] = num;
	}
	return 0;
}

/* The reader's string table becomes the heap's (the reader's ids), indexed;
 * a string held twice (RENUM says where the others went) is dropped; then
 * the pool's names and the engine's text join it. */
static int take_strings(mapper *m)
{
	v8_raw *raw = m->raw;
	heap *h = m->h;
	int rc = strtab_adopt(&h->strings, raw->sbytes, raw->sbytes_cap, raw->soff, raw->nids, raw->soff_cap, &m->renum);
	raw->sbytes = NULL;
	raw->soff = NULL;
	if (rc)
		return oom(m, "strings");
	for (uint32_t p = 0; p < m->npool; p++) {
		uint32_t c = m->class_name[p];
		if ((h->name[p] = strtab_intern(&h->strings, strtab_get(&m->pool_names, c),
						strtab_len(&m->pool_names, c))) == UINT32_MAX)
			return oom(m, "classes");
	}
	if ((h->engine = strtab_intern(&h->strings, m->engine, strlen(m->engine))) == UINT32_MAX)
		return oom(m, "engine");
	return 0;
}

/* The names' part of the mapping, on a thread of its own beside
 * edge_graph() and the load hook, which touch no name, property or string:
 * take_strings(), edge_names() and map_names(); RC 0, or -1 with the
 * message in ERR. */
typedef struct names_job {
	mapper *m;
	obj_t first;
	int rc;
} names_job;

static void *map_all_names(void *arg)
{
	names_job *j = arg;
	mapper *m = j->m;
	v8_raw *raw = m->raw;
	j->rc = take_strings(m) == 0 && edge_names(m) == 0 && map_names(m, j->first) == 0 ? 0 : -1;
	/* what only the names needed goes now, not when the load ends: the
	 * graph's work beside (the dominators, say) has its memory */
	free(raw->etype); free(m->renum); free(m->elem_sid);
	raw->etype = NULL; m->renum = NULL; m->elem_sid = NULL;
	strtab_unindex(&m->h->strings); /* built again if a lookup comes (64 MiB for 4M strings) */
	return NULL;
}

/* The object columns for SLOTS objects, every one free of flags: classes
 * (from CLS), sizes, names and name numbers (ids until map_names) taken
 * over from the node columns. */
static int alloc_columns(mapper *m, uint32_t slots, obj_t **cls)
{
	heap *h = m->h;
	v8_raw *raw = m->raw;
	size_t n = slots;
	uint32_t first = m->npool;
	h->serial = calloc(n, sizeof *h->serial);
	uint32_t *c = (uint32_t *)*cls; /* obj_t and uint32_t share a representation */
	h->cls = (obj_t *)take_column(&c, raw->node_count, first, n);
	*cls = (obj_t *)c;
	h->outer = calloc(n, sizeof *h->outer); /* every node's Outer is /V8, object 0 */
	h->name = take_column(&raw->nname, raw->node_count, first, n);
	h->name_num = take_column(&raw->nid, raw->node_count, first, n);
	h->size = take_column(&raw->nsize, raw->node_count, first, n);
	h->oflags = calloc(n, sizeof *h->oflags);
	h->iflags = calloc(n, sizeof *h->iflags);
	h->traits = calloc(n, sizeof *h->traits);
	h->in_cluster = calloc(n, sizeof *h->in_cluster);
	if (!h->serial || !h->cls || !h->outer || !h->name || !h->name_num || !h->size || !h->oflags ||
	    !h->iflags || !h->traits || !h->in_cluster)
		return oom(m, "objects");
	h->slots = h->objects = slots;
	return 0;
}

int v8_map(const char *path, v8_raw *raw, heap *h, const load_hook *hook, char *err, size_t errsize)
{
	mapper m = {.path = path, .raw = raw, .h = h, .err = err, .errsize = errsize};
	uint32_t n = raw->node_count;
	obj_t *cls = malloc((size_t)n * sizeof *cls);
	int rc = -1;
	if (!cls) {
		oom(&m, "classes");
		goto out;
	}
	/* the fixed pool first, so that V8 classes named Package or Class are those */
	strtab_init(&m.pool_names);
	m.pool_cap = 256;
	m.class_name = malloc(m.pool_cap * sizeof *m.class_name);
	if (!m.class_name || (m.class_name[0] = strtab_intern(&m.pool_names, "/V8", 3)) == UINT32_MAX) {
		oom(&m, "classes");
		goto out;
	}
	m.npool = 1; /* the package: a pool object, but no class */
	if (class_named(&m, "Package", 7) != 1 || class_named(&m, "Class", 5) != 2) {
		oom(&m, "classes");
		goto out;
	}
	if (assign_classes(&m, cls))
		goto out;
	free(m.class_of_str); /* the classes are in CLS */
	free(raw->ntype);
	m.class_of_str = NULL;
	raw->ntype = NULL;
	uint64_t slots = (uint64_t)m.npool + n;
	if (slots > (uint64_t)OBJ_INDEX_MAX + 1) {
		snprintf(err, errsize, "%s: %llu objects are more than the heap model holds", path, (unsigned long long)slots);
		goto out;
	}
	obj_t first = (obj_t)m.npool;
	if (alloc_columns(&m, (uint32_t)slots, &cls))
		goto out;
	for (uint32_t p = 0; p < m.npool; p++) { /* their names come with the others' */
		h->cls[p] = p == 0 ? 1 : 2;
		h->outer[p] = p == 0 ? OBJ_NONE : 0; /* size 0, as take_column left it */
	}
	h->iflags[first] = IF_RootSet;
	h->first_gc_index = first;
	h->mode = MODE_GAME;
	snprintf(m.engine, sizeof m.engine, "v8%s%s", raw->version ? " " : "", raw->version ? raw->version : "");
	if (!(m.elem_sid = calloc(ELEM_CACHE, sizeof *m.elem_sid))) {
		oom(&m, "property names");
		goto out;
	}
	if (edge_kinds(raw, h)) {
		oom(&m, "references");
		goto out;
	}
	names_job names = {.m = &m, .first = first, .rc = -1};
	job naming;
	job_start(&naming, map_all_names, &names);
	int graph = edge_graph(raw, h, first) == 0 && heap_index_clusters(h) == 0;
	if (graph && hook && hook->graph_ready)
		hook->graph_ready(h, hook->arg);
	job_wait(&naming);
	if (names.rc)
		goto out; /* its message is in ERR */
	if (!graph) {
		oom(&m, "references");
		goto out;
	}
	h->ref_prop = raw->ename;
	raw->ename = NULL;
	rc = 0;
out:
	free(cls);
	free(m.class_of_str);
	free(m.renum);
	free(m.elem_sid);
	strtab_free(&m.pool_names);
	free(m.class_of_sid);
	free(m.class_name);
	if (rc)
		heap_free(h);
	return rc;
}
