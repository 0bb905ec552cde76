/* v8_map.c — puts a V8 heap graph (v8_raw) into the heap model, so that
 * every command works on it unchanged.  The mapping (ugc-snapshot(5), "V8
 * HEAP SNAPSHOTS"):
 *  - the disregard pool holds the package /V8 (0), the classes Package (1)
 *    and Class (2), then one class object per distinct V8 class in order of
 *    first use; node ordinal i is object first-gc-index + i, Outer /V8;
 *  - class: the node's name for "object" and "native" nodes ("(anonymous)"
 *    when it is empty), else
 *    "(system)" for "hidden", "(compiled code)" for "code" and "(TYPE)" for
 *    the rest, as DevTools' summary groups them;
 *  - name: the node's name cut on a UTF-8 boundary so that "@ID" still fits
 *    in 1023 bytes, then "@ID"; size: self_size; node 0 is in the RootSet;
 *  - edges in order: weak -> weak; shortcut out of node 0 -> strong, other
 *    shortcuts -> soft; the rest strong; property: the edge name, or "[N]"
 *    for element and hidden edges. */
#include "v8.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME_LIMIT 1023   /* a NAME's limit in the text format */
#define PROP_LIMIT 4096   /* a PROPERTY's */
#define POOL_FIXED 3      /* /V8, Package, Class */
#define ELEM_CACHE (1u << 20)
#define ANON_CLASS "(anonymous)" /* the class of an object or native node with an empty name */

typedef struct mapper {
	const char *path;
	v8_raw *raw;
	heap *h;
	char *err;
	size_t errsize;
	uint32_t *prop_of_str;   /* V8 string index -> property string id + 1, 0 unset */
	uint32_t *class_of_str;  /* V8 string index -> class object + 1, 0 unset */
	obj_t class_of_type[256]; /* non-object node type -> class object, -1 unset */
	uint32_t *elem_sid;      /* N -> string id of "[N]" + 1, for N < ELEM_CACHE */
	uint32_t *class_of_sid;  /* string id -> class object + 1 */
	size_t class_of_sid_cap;
	uint32_t *class_name;    /* string id of class object 0.. (index = object) */
	uint32_t npool, pool_cap;
	uint32_t at_sid[8];      /* interned strings that look like "...@123" */
	int n_at;                /* how many (more than 8: too many to check) */
} mapper;

static int oom(mapper *m, const char *what)
{
	snprintf(m->err, m->errsize, "%s: out of memory (%s)", m->path, what);
	return -1;
}

static int ends_at_digits(const char *s, size_t len)
{
	size_t d = 0;
	while (d < len && s[len - 1 - d] >= '0' && s[len - 1 - d] <= '9')
		d++;
	return d > 0 && d < len && s[len - 1 - d] == '@';
}

static uint32_t intern(mapper *m, const char *s, size_t len)
{
	uint32_t sid = strtab_intern(&m->h->strings, s, len);
	if (sid != UINT32_MAX && ends_at_digits(s, len)) {
		int seen = 0;
		for (int k = 0; k < m->n_at && k < 8; k++)
			seen |= m->at_sid[k] == sid;
		if (!seen && m->n_at++ < 8)
			m->at_sid[m->n_at - 1] = sid;
	}
	return sid;
}

static const char *v8_str(const v8_raw *raw, uint32_t k, size_t *len)
{
	*len = (size_t)(raw->soff[k + 1] - raw->soff[k]);
	return raw->sbytes + raw->soff[k];
}

/* The class object named S (cut to a NAME), made on first use. */
static obj_t class_named(mapper *m, const char *s, size_t len)
{
	uint32_t sid = intern(m, s, v8_utf8_cut(s, len, NAME_LIMIT));
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
	uint32_t sid = intern(m, buf, (size_t)len);
	if (n < ELEM_CACHE && sid != UINT32_MAX)
		m->elem_sid[n] = sid + 1;
	return sid;
}

static uint32_t named_prop(mapper *m, uint32_t k)
{
	if (m->prop_of_str[k])
		return m->prop_of_str[k] - 1;
	size_t len;
	const char *s = v8_str(m->raw, k, &len);
	uint32_t sid = intern(m, s, v8_utf8_cut(s, len, PROP_LIMIT));
	if (sid != UINT32_MAX)
		m->prop_of_str[k] = sid + 1;
	return sid;
}

/* The edge columns become the reference rows, in place. */
static int map_edges(mapper *m, obj_t first)
{
	v8_raw *raw = m->raw;
	heap *h = m->h;
	m->prop_of_str = calloc((size_t)raw->nstrings + 1, sizeof *m->prop_of_str);
	m->elem_sid = calloc(ELEM_CACHE, sizeof *m->elem_sid);
	if (!m->prop_of_str || !m->elem_sid)
		return oom(m, "edges");
	uint8_t kind_of[256], numbered[256];
	for (int t = 0; t < 256; t++) {
		kind_of[t] = t == raw->edge_weak ? REF_WEAK : t == raw->edge_shortcut ? REF_SOFT : REF_STRONG;
		numbered[t] = t == raw->edge_element || t == raw->edge_hidden;
	}
	uint32_t from_root = raw->necount[0];
	for (uint32_t k = 0; k < raw->edge_count; k++) {
		uint8_t t = raw->etype[k];
		uint32_t sid = numbered[t] ? elem_prop(m, raw->ename[k]) : named_prop(m, raw->ename[k]);
		if (sid == UINT32_MAX)
			return oom(m, "property names");
		raw->ename[k] = sid;
		raw->etype[k] = (t == raw->edge_shortcut && k < from_root) ? REF_STRONG : kind_of[t];
		raw->eto[k] += first;
	}
	h->ref_dst = raw->eto;
	h->ref_prop = raw->ename;
	h->ref_kind = raw->etype;
	raw->eto = NULL;
	raw->ename = NULL;
	raw->etype = NULL;
	h->nrefs = raw->edge_count;
	h->ref_start = malloc(((size_t)h->slots + 1) * sizeof *h->ref_start);
	if (!h->ref_start)
		return oom(m, "references");
	memset(h->ref_start, 0, ((size_t)first + 1) * sizeof *h->ref_start);
	for (uint32_t i = 0; i < raw->node_count; i++)
		h->ref_start[first + i + 1] = h->ref_start[first + i] + raw->necount[i];
	return 0;
}

/* Are the node ids all different?  (Then "NAME@ID" names are.)  A radix
 * sort of a copy, then a look at neighbours: ids are sparse (V8 numbers
 * embedder objects in the billions), so no bitmap. */
static int ids_unique(const v8_raw *raw)
{
	size_t n = raw->node_count;
	uint32_t *a = malloc(n * sizeof *a + 1), *b = malloc(n * sizeof *b + 1);
	int unique = a && b;
	if (unique) {
		memcpy(a, raw->nid, n * sizeof *a);
		for (int shift = 0; shift < 32; shift += 8) {
			size_t count[257] = {0};
			for (size_t i = 0; i < n; i++)
				count[((a[i] >> shift) & 255) + 1]++;
			for (int d = 0; d < 256; d++)
				count[d + 1] += count[d];
			for (size_t i = 0; i < n; i++)
				b[count[(a[i] >> shift) & 255]++] = a[i];
			uint32_t *t = a;
			a = b;
			b = t;
		}
		for (size_t i = 1; i < n && unique; i++)
			unique = a[i] != a[i - 1];
	}
	free(a);
	free(b);
	return unique;
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

/* Length of node I's name and of the part of its V8 name it keeps. */
static size_t node_name_len(const v8_raw *raw, uint32_t i, const char **s, size_t *keep)
{
	size_t len, tail = 1 + digits(raw->nid[i]);
	*s = v8_str(raw, raw->nname[i], &len);
	*keep = v8_utf8_cut(*s, len, NAME_LIMIT - tail);
	return *keep + tail;
}

static size_t write_name(const v8_raw *raw, uint32_t i, char *out)
{
	const char *s;
	size_t keep, n = node_name_len(raw, i, &s, &keep);
	memcpy(out, s, keep);
	out[keep] = '@';
	uint32_t id = raw->nid[i];
	for (size_t k = n; k-- > keep + 1; id /= 10)
		out[k] = (char)('0' + id % 10);
	return n;
}

/* Nodes FROM..TO-1 get string ids FIRST_ID + i.  Pass 1 stores each name's
 * offset relative to the range's start in off[] and the range's length in
 * BYTES; pass 2 (after BASE, the range's arena offset, is known) fixes the
 * offsets and writes the names. */
struct name_job {
	const v8_raw *raw;
	strtab *t;
	uint32_t *name; /* the heap's name column, at node 0 */
	uint32_t from, to, first_id;
	uint64_t bytes, base;
	int pass;
};

static void *name_pass(void *arg)
{
	struct name_job *j = arg;
	uint32_t *off = j->t->off + j->first_id;
	if (j->pass == 1) {
		uint64_t at = 0;
		for (uint32_t i = j->from; i < j->to; i++) {
			const char *s;
			size_t keep;
			off[i] = (uint32_t)at; /* a range longer than 4 GiB is refused below */
			at += node_name_len(j->raw, i, &s, &keep) + 1;
			j->name[i] = j->first_id + i;
			if (at > UINT32_MAX)
				break;
		}
		j->bytes = at;
		return NULL;
	}
	for (uint32_t i = j->from; i < j->to; i++) {
		off[i] += (uint32_t)j->base;
		size_t n = write_name(j->raw, i, j->t->arena + off[i]);
		j->t->arena[off[i] + n] = '\0';
	}
	return NULL;
}

/* Run JOBS[0] here and JOBS[1] on another thread (or here too). */
static void run_pair(struct name_job *jobs, int pass)
{
	pthread_t th;
	jobs[0].pass = jobs[1].pass = pass;
	int spawned = jobs[1].from < jobs[1].to && pthread_create(&th, NULL, name_pass, &jobs[1]) == 0;
	name_pass(&jobs[0]);
	if (spawned)
		pthread_join(th, NULL);
	else
		name_pass(&jobs[1]);
}

/* Is some node named exactly like an interned "...@ID" string? */
static int names_collide(const mapper *m)
{
	const v8_raw *raw = m->raw;
	if (m->n_at > 8)
		return 1;
	for (int k = 0; k < m->n_at; k++) {
		const char *s = heap_str(m->h, m->at_sid[k]);
		const char *at = strrchr(s, '@');
		uint64_t id = 0;
		for (const char *d = at + 1; *d && id <= UINT32_MAX; d++)
			id = id * 10 + (uint64_t)(*d - '0');
		for (uint32_t i = 0; i < raw->node_count; i++)
			if (raw->nid[i] == id) {
				char buf[NAME_LIMIT + 1];
				size_t n = write_name(raw, i, buf);
				if (n == strtab_len(&m->h->strings, m->at_sid[k]) && memcmp(buf, s, n) == 0)
					return 1;
			}
	}
	return 0;
}

/* Node names.  When no two can be equal and none equals a string already
 * interned, they are appended to the string table directly (in parallel)
 * and its hash index is dropped, to be rebuilt on the next lookup. */
static int map_names(mapper *m, obj_t first, int threads, int ids_are_unique)
{
	v8_raw *raw = m->raw;
	heap *h = m->h;
	strtab *t = &h->strings;
	uint32_t n = raw->node_count;
	if (!ids_are_unique || names_collide(m)) {
		char buf[NAME_LIMIT + 1];
		for (uint32_t i = 0; i < n; i++) {
			uint32_t sid = strtab_intern(t, buf, write_name(raw, i, buf));
			if (sid == UINT32_MAX)
				return oom(m, "names");
			h->name[first + i] = sid;
		}
		return 0;
	}
	uint32_t base = t->count;
	if ((uint64_t)base + n + 2 > UINT32_MAX)
		return oom(m, "too many names");
	uint32_t *off = realloc(t->off, ((size_t)base + n + 2) * sizeof *off);
	if (!off)
		return oom(m, "names");
	t->off = off;
	t->cap = base + n + 2;
	uint32_t half = threads > 1 ? n / 2 : n;
	struct name_job jobs[2] = {{raw, t, h->name + first, 0, half, base, 0, 0, 0},
				   {raw, t, h->name + first, half, n, base, 0, 0, 0}};
	run_pair(jobs, 1);
	jobs[0].base = t->arena_len;
	jobs[1].base = t->arena_len + jobs[0].bytes;
	uint64_t total = jobs[1].base + jobs[1].bytes;
	if (total > UINT32_MAX) {
		snprintf(m->err, m->errsize, "%s: node names need more than 4 GiB", m->path);
		return -1;
	}
	t->off[base + n] = (uint32_t)total;
	char *arena = realloc(t->arena, total + 1);
	if (!arena)
		return oom(m, "names");
	t->arena = arena;
	t->arena_cap = total + 1;
	run_pair(jobs, 2);
	t->arena_len = total;
	t->count = base + n;
	free(t->hash);
	t->hash = NULL;
	t->hash_mask = 0;
	return 0;
}

/* The nodes' object columns, and whether their ids are unique. */
struct fill_job {
	heap *h;
	const v8_raw *raw;
	const obj_t *cls;
	obj_t first;
	int unique;
};

static void *fill_objects(void *arg)
{
	struct fill_job *j = arg;
	uint32_t n = j->raw->node_count;
	memcpy(j->h->cls + j->first, j->cls, (size_t)n * sizeof *j->cls);
	memcpy(j->h->size + j->first, j->raw->nsize, (size_t)n * sizeof *j->h->size);
	j->unique = ids_unique(j->raw);
	return NULL;
}

/* The object columns for SLOTS objects, every one free of flags. */
static int alloc_columns(mapper *m, uint32_t slots)
{
	heap *h = m->h;
	size_t n = slots;
	h->serial = calloc(n, sizeof *h->serial);
	h->cls = malloc(n * sizeof *h->cls);
	h->outer = calloc(n, sizeof *h->outer); /* every node's Outer is /V8, object 0 */
	h->name = malloc(n * sizeof *h->name);
	h->name_num = calloc(n, sizeof *h->name_num);
	h->size = malloc(n * sizeof *h->size);
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

int v8_map(const char *path, v8_raw *raw, heap *h, int threads, char *err, size_t errsize)
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
	m.pool_cap = 256;
	m.class_name = malloc(m.pool_cap * sizeof *m.class_name);
	if (!m.class_name || (m.class_name[0] = intern(&m, "/V8", 3)) == UINT32_MAX) {
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
	uint64_t slots = (uint64_t)m.npool + n;
	if (slots > (uint64_t)OBJ_INDEX_MAX + 1) {
		snprintf(err, errsize, "%s: %llu objects are more than the heap model holds", path, (unsigned long long)slots);
		goto out;
	}
	obj_t first = (obj_t)m.npool;
	if (alloc_columns(&m, (uint32_t)slots))
		goto out;
	for (uint32_t p = 0; p < m.npool; p++) {
		h->cls[p] = p == 0 ? 1 : 2;
		h->outer[p] = p == 0 ? OBJ_NONE : 0;
		h->name[p] = m.class_name[p];
		h->size[p] = 0;
	}
	h->iflags[first] = IF_RootSet;
	h->first_gc_index = first;
	h->mode = MODE_GAME;
	/* the object columns and the id check on a second thread, while this
	 * one turns the edges into references (which interns strings) */
	struct fill_job fj = {h, raw, cls, first, 0};
	pthread_t th;
	int spawned = threads > 1 && pthread_create(&th, NULL, fill_objects, &fj) == 0;
	if (!spawned)
		fill_objects(&fj);
	char engine[300];
	int el = snprintf(engine, sizeof engine, "v8%s%s", raw->version ? " " : "", raw->version ? raw->version : "");
	int bad = (h->engine = intern(&m, engine, (size_t)el)) == UINT32_MAX ? oom(&m, "engine") : map_edges(&m, first);
	if (spawned)
		pthread_join(th, NULL);
	if (bad || map_names(&m, first, threads, fj.unique))
		goto out;
	if (heap_index_clusters(h)) {
		oom(&m, "clusters");
		goto out;
	}
	rc = 0;
out:
	free(cls);
	free(m.prop_of_str);
	free(m.class_of_str);
	free(m.elem_sid);
	free(m.class_of_sid);
	free(m.class_name);
	if (rc)
		heap_free(h);
	return rc;
}
