/* query.c — selectors, retention chains and their layouts (see query.h). */
#include "query.h"

#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "findings.h"
#include "vec.h"

/* The deepest indentation of a chain line, as the engine's log has it. */
#define MAX_INDENT 255

/* Objects a chain search examines before it stops and says so. */
#define DEFAULT_BUDGET 100000

void chains_free(chains *c)
{
	for (size_t k = 0; k < c->n; k++) {
		free(c->v[k].nodes);
		free(c->v[k].hops);
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

int query_find(view *v, const char *sel, obj_t *out)
{
	const char *s = sel[0] == '#' ? sel + 1 : sel;
	*out = OBJ_NONE;
	if (*s >= '0' && *s <= '9') {
		char *end;
		long long i = strtoll(s, &end, 10);
		if (*end == '\0') {
			obj_info o;
			int rc = i >= 0 && i <= OBJ_INDEX_MAX ? v->object(v, (obj_t)i, &o) : 1;
			if (rc < 0)
				return -1;
			obj_info_free(&o);
			if (rc == 0)
				*out = (obj_t)i;
			return rc;
		}
	}
	/* a full name: "Class /Path" */
	const char *space = strchr(sel, ' ');
	const char *path = space ? space + 1 : sel;
	obj_t i;
	if (v->find_path(v, path, &i))
		return -1;
	if (i != OBJ_NONE && space) {
		obj_info o;
		if (v->object(v, i, &o))
			return -1;
		int same = strlen(o.class_name) == (size_t)(space - sel) && memcmp(o.class_name, sel, (size_t)(space - sel)) == 0;
		obj_info_free(&o);
		if (!same)
			i = OBJ_NONE;
	}
	*out = i;
	return i == OBJ_NONE;
}

int query_select(view *v, const char *sel, obj_t *out, char *err, size_t errsize)
{
	int rc = query_find(v, sel, out);
	if (rc <= 0)
		return rc;
	const char *s = sel[0] == '#' ? sel + 1 : sel;
	if (*s >= '0' && *s <= '9' && s[strspn(s, "0123456789")] == '\0') {
		snprintf(err, errsize, "no object has index %s", s);
		return 1;
	}
	const char *space = strchr(sel, ' ');
	const char *path = space ? space + 1 : sel;
	/* unknown: suggest objects whose name is the last component */
	const char *leaf = path + strlen(path);
	while (leaf > path && leaf[-1] != '.' && leaf[-1] != ':' && leaf[-1] != '/')
		leaf--;
	obj_t *cand = NULL;
	size_t n = 0;
	if (v->find_glob(v, leaf, NULL, &cand, &n)) {
		free(cand);
		return -1;
	}
	size_t len = (size_t)snprintf(err, errsize, "no object is '%s'", sel);
	for (size_t k = 0; k < n && k < 5 && len < errsize; k++) {
		obj_info o;
		if (v->object(v, cand[k], &o) == 0) {
			len += (size_t)snprintf(err + len, errsize - len, "%s #%d %s %s", k ? "," : "; did you mean", cand[k],
						o.class_name, o.path);
			obj_info_free(&o);
		}
	}
	if (n > 5 && len < errsize)
		snprintf(err + len, errsize - len, " (and %zu more)", n - 5);
	free(cand);
	return 1;
}

int edge_retains(const view *v, const edge *e, int dst_garbage)
{
	if (e->type == EDGE_GC)
		return !dst_garbage;
	if (e->src < v->first_gc_index || e->dst < v->first_gc_index)
		return 0;
	return ref_retains(e->type == EDGE_REF ? e->kind : REF_IMMUTABLE, dst_garbage);
}

/* The FGCObject record that makes X a gcobject root, if any. */
static int gc_root_edge(view *v, obj_t x, edge *out)
{
	edges in = {0};
	if (v->incoming(v, x, &in)) {
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
	int rc = v->state(v, x, &s);
	if (rc) {
		if (rc > 0)
			snprintf(v->err, sizeof v->err, "no object has index %d", x);
		return -1;
	}
	if (s.distance == UINT32_MAX)
		return 0;
	chain c = {0};
	size_t cap_nodes = 0, cap_hops = 0;
	obj_t cur = x;
	edges oe = {0};
	for (;;) {
		if (grow_array((void **)&c.nodes, &cap_nodes, c.n, sizeof *c.nodes))
			goto oom;
		c.nodes[c.n++] = cur;
		if (s.distance == 0)
			break;
		obj_t p = s.parent;
		obj_state ps;
		rc = p == OBJ_NONE ? 1 : v->state(v, p, &ps);
		if (rc < 0)
			goto fail;
		if (rc > 0 || ps.distance != s.distance - 1) {
			snprintf(v->err, sizeof v->err, "database: object_table: the parent of object %d is not one hop nearer a "
				 "root (distance %u)", cur, s.distance);
			goto fail;
		}
		/* the parent's first retaining edge to CUR with the stored name */
		oe.n = 0;
		if (v->between(v, p, cur, &oe))
			goto fail;
		edge hop = edge_make(v, p, cur, EDGE_REF, REF_STRONG, NULL);
		hop.prop = s.parent_property;
		for (size_t e = 0; e < oe.n; e++)
			if (oe.v[e].dst == cur && strcmp(oe.v[e].prop, s.parent_property) == 0 &&
			    edge_retains(v, &oe.v[e], s.garbage)) {
				hop = oe.v[e];
				break;
			}
		if (grow_array((void **)&c.hops, &cap_hops, c.n - 1, sizeof *c.hops))
			goto oom;
		c.hops[c.n - 1] = hop;
		cur = p;
		s = ps;
	}
	edges_free(&oe);
	/* the walk went object first: turn it root first */
	for (size_t a = 0, b = c.n - 1; a < b; a++, b--) {
		obj_t t = c.nodes[a];
		c.nodes[a] = c.nodes[b];
		c.nodes[b] = t;
	}
	for (size_t a = 0, b = c.n - 1; a + 1 < b; a++, b--) {
		edge t = c.hops[a];
		c.hops[a] = c.hops[b - 1];
		c.hops[b - 1] = t;
	}
	if (finish_chain(v, &c, s.root_kind) || chains_push(out, &c))
		goto fail;
	return 0;
oom:
	snprintf(v->err, sizeof v->err, "out of memory");
fail:
	edges_free(&oe);
	free(c.nodes);
	free(c.hops);
	return -1;
}

/* A set of object ids (open addressing): what a search has visited, in
 * memory proportional to the objects it examined, not to the heap's slots. */
typedef struct idset {
	obj_t *v;
	size_t n, cap; /* cap: 0 or a power of two */
} idset;

/* Add X; 1 when it was there already, 0 when added, -1 when out of memory. */
static int idset_add(idset *s, obj_t x)
{
	if ((s->n + 1) * 2 > s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		obj_t *v = malloc(cap * sizeof *v);
		if (!v)
			return -1;
		for (size_t k = 0; k < cap; k++)
			v[k] = OBJ_NONE;
		for (size_t k = 0; k < s->cap; k++)
			if (s->v[k] != OBJ_NONE) {
				size_t at = ((uint32_t)s->v[k] * 2654435761u) & (cap - 1);
				while (v[at] != OBJ_NONE)
					at = (at + 1) & (cap - 1);
				v[at] = s->v[k];
			}
		free(s->v);
		s->v = v;
		s->cap = cap;
	}
	size_t at = ((uint32_t)x * 2654435761u) & (s->cap - 1);
	for (; s->v[at] != OBJ_NONE; at = (at + 1) & (s->cap - 1))
		if (s->v[at] == x)
			return 1;
	s->v[at] = x;
	s->n++;
	return 0;
}

static int idset_has(const idset *s, obj_t x)
{
	if (!s->cap)
		return 0;
	for (size_t at = ((uint32_t)x * 2654435761u) & (s->cap - 1); s->v[at] != OBJ_NONE; at = (at + 1) & (s->cap - 1))
		if (s->v[at] == x)
			return 1;
	return 0;
}

/* The backward search keeps a tree of partial paths: each step is an object
 * and the edge leading from it toward the target (its "next"). */
typedef struct step {
	obj_t obj;
	edge via;      /* from OBJ to the next step's object */
	size_t next;   /* index of the step nearer the target; SIZE_MAX for the target */
	uint32_t len;  /* hops from OBJ to the target */
	uint32_t bound; /* len + OBJ's distance: no chain through this step is shorter */
} step;

static int on_path(const step *s, size_t at, obj_t x)
{
	for (; at != SIZE_MAX; at = s[at].next)
		if (s[at].obj == x)
			return 1;
	return 0;
}

/* The package of I: the end of its Outer chain (Brent's cycle detection
 * ends a looping chain from a damaged database). */
static obj_t outermost(view *v, obj_t i)
{
	obj_t mark = i;
	for (size_t power = 1, lam = 0;; ) {
		obj_state o;
		if (v->state(v, i, &o) || o.outer == OBJ_NONE || o.outer == mark)
			return i;
		i = o.outer;
		if (++lam == power) {
			mark = i;
			power *= 2;
			lam = 0;
		}
	}
}

static int make_chain(view *v, const step *s, size_t at, int root_kind, chains *out)
{
	chain c = {0};
	c.n = s[at].len + 1;
	c.nodes = malloc(c.n * sizeof *c.nodes);
	c.hops = calloc(c.n, sizeof *c.hops);
	if (!c.nodes || !c.hops) {
		free(c.nodes);
		free(c.hops);
		return -1;
	}
	size_t k = 0;
	for (size_t p = at; p != SIZE_MAX; p = s[p].next, k++) {
		c.nodes[k] = s[p].obj;
		if (s[p].next != SIZE_MAX)
			c.hops[k] = s[p].via;
	}
	if (finish_chain(v, &c, root_kind) || chains_push(out, &c)) {
		free(c.nodes);
		free(c.hops);
		return -1;
	}
	return 0;
}

/* A binary heap of step indexes ordered by (bound, index): the search takes
 * the step that can still lead to the shortest chain, ties in creation order. */
typedef struct pqueue {
	size_t *v, n, cap;
} pqueue;

static int pq_less(const step *s, size_t a, size_t b)
{
	return s[a].bound < s[b].bound || (s[a].bound == s[b].bound && a < b);
}

static int pq_push(pqueue *q, const step *s, size_t x)
{
	if (grow_array((void **)&q->v, &q->cap, q->n, sizeof *q->v))
		return -1;
	size_t i = q->n++;
	q->v[i] = x;
	while (i > 0 && pq_less(s, q->v[i], q->v[(i - 1) / 2])) {
		size_t t = q->v[i];
		q->v[i] = q->v[(i - 1) / 2];
		q->v[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
	return 0;
}

static size_t pq_pop(pqueue *q, const step *s)
{
	size_t top = q->v[0], i = 0;
	q->v[0] = q->v[--q->n];
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < q->n && pq_less(s, q->v[l], q->v[m]))
			m = l;
		if (r < q->n && pq_less(s, q->v[r], q->v[m]))
			m = r;
		if (m == i)
			return top;
		size_t t = q->v[i];
		q->v[i] = q->v[m];
		q->v[m] = t;
		i = m;
	}
}

int query_chains(view *v, obj_t x, int mode, size_t max, int external, size_t budget, chains *out)
{
	if (!budget)
		budget = DEFAULT_BUDGET;
	obj_t home = external ? outermost(v, x) : OBJ_NONE;
	size_t cap = 1024, n = 0, examined = 0;
	step *s = malloc(cap * sizeof *s);
	pqueue q = {0};
	/* per-root mode visits each object once; all-chains mode each root once per chain */
	idset seen = {0}, root_done = {0};
	int rc = -1;
	obj_state xs;
	if (!s || v->state(v, x, &xs))
		goto out;
	if (!xs.reachable || xs.distance == UINT32_MAX) { /* no chain to find */
		rc = 0;
		goto out;
	}
	s[n] = (step){x, {0}, SIZE_MAX, 0, xs.distance};
	if (pq_push(&q, s, n++))
		goto out;
	if (mode == 0 && idset_add(&seen, x) < 0)
		goto out;
	while (q.n && out->n < max) {
		if (++examined > budget) {
			out->truncated = 1;
			break;
		}
		size_t at = pq_pop(&q, s);
		obj_state o;
		if (v->state(v, s[at].obj, &o) < 0)
			goto out;
		if (RK_IS_ROOT(o.root_kind)) {
			obj_t r = s[at].obj;
			int keep = !(mode == 0 && idset_has(&root_done, r));
			if (keep && external && o.root_kind != RK_GCOBJECT && outermost(v, r) == home)
				keep = 0;
			if (keep) {
				if (idset_add(&root_done, r) < 0)
					goto out;
				if (make_chain(v, s, at, o.root_kind, out))
					goto out;
			}
			continue; /* chains stop at roots */
		}
		edges in = {0};
		if (v->incoming(v, s[at].obj, &in)) {
			edges_free(&in);
			goto out;
		}
		for (size_t k = 0; k < in.n; k++) {
			const edge *e = &in.v[k];
			if (e->type == EDGE_GC || !edge_retains(v, e, o.garbage))
				continue;
			if (mode == 0 ? idset_has(&seen, e->src) : on_path(s, at, e->src))
				continue;
			obj_state p;
			int prc = v->state(v, e->src, &p);
			if (prc < 0) {
				edges_free(&in);
				goto out;
			}
			if (prc || !p.reachable || p.distance == UINT32_MAX)
				continue; /* no chain passes through it */
			if (n == cap) {
				step *nq = realloc(s, (cap *= 2) * sizeof *nq);
				if (!nq) {
					edges_free(&in);
					goto out;
				}
				s = nq;
			}
			if (mode == 0 && idset_add(&seen, e->src) < 0) {
				edges_free(&in);
				goto out;
			}
			s[n] = (step){e->src, *e, at, s[at].len + 1, s[at].len + 1 + p.distance};
			if (pq_push(&q, s, n++)) {
				edges_free(&in);
				goto out;
			}
		}
		edges_free(&in);
	}
	rc = 0;
out:
	if (rc && !v->err[0])
		snprintf(v->err, sizeof v->err, "out of memory");
	free(s);
	free(q.v);
	free(seen.v);
	free(root_done.v);
	return rc;
}

int query_direct(view *v, obj_t x, chains *out)
{
	edges in = {0};
	if (v->incoming(v, x, &in)) {
		edges_free(&in);
		return -1;
	}
	for (size_t k = 0; k < in.n; k++) {
		chain c = {0};
		if (in.v[k].type == EDGE_GC) {
			c.n = 1;
			c.gc_root = 1;
			c.gc_edge = in.v[k];
		} else {
			c.n = 2;
		}
		c.nodes = malloc(2 * sizeof *c.nodes);
		c.hops = calloc(2, sizeof *c.hops);
		if (c.nodes && c.hops) {
			c.nodes[0] = c.n == 1 ? x : in.v[k].src;
			c.nodes[1] = x;
			c.hops[0] = in.v[k];
		}
		if (!c.nodes || !c.hops || chains_push(out, &c)) {
			free(c.nodes);
			free(c.hops);
			edges_free(&in);
			return -1;
		}
	}
	edges_free(&in);
	return 0;
}

/* ---- layouts ---- */

void object_tags(const obj_info *o, char *buf, size_t cap)
{
	/* the engine's GetObjectFlags, plus (refcounted) */
	size_t n = 0;
	buf[0] = '\0';
#define TAG(cond, text) if (cond) n += (size_t)snprintf(buf + n, n < cap ? cap - n : 0, "%s", text)
	TAG(o->iflags & IF_RootSet, "(root) ");
	TAG(o->iflags & IF_RefCounted, "(refcounted) ");
	TAG(o->iflags & IF_Native, "(native) ");
	TAG(o->garbage, "(Garbage) ");
	TAG(o->oflags & RF_Standalone, "(standalone) ");
	TAG(o->iflags & IF_Async, "(async) ");
	TAG(o->iflags & IF_AsyncLoading, "(asyncloading) ");
	TAG(o->root_kind == RK_DISREGARD, "(NeverGCed) ");
	TAG(o->cluster == o->idx, "(ClusterRoot) ");
	TAG(o->cluster != OBJ_NONE && o->cluster != o->idx, "(Clustered) ");
#undef TAG
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

/* "<tags> <Class> <path>" as the engine writes an object. */
static void object_line(view *v, obj_t i, char *buf, size_t cap)
{
	obj_info o;
	if (v->object(v, i, &o)) {
		snprintf(buf, cap, " #%d", i);
		return;
	}
	char tags[256];
	object_tags(&o, tags, sizeof tags);
	snprintf(buf, cap, "%s %s %s", tags, o.class_name, o.path);
	obj_info_free(&o);
}

void print_chain_text(view *v, FILE *fp, const chain *c)
{
	char line[8192];
	int indent = 1;
	if (c->gc_root) {
		fprintf(fp, "%*s(root)  GCObjectReferencer /Engine/Transient.GCObjectReferencer\n", indent, "");
		object_line(v, c->nodes[0], line, sizeof line);
		fprintf(fp, "%*s-> %s::AddReferencedObjects(%s)\n", indent, "", c->gc_edge.referencer, line);
	} else {
		object_line(v, c->nodes[0], line, sizeof line);
		fprintf(fp, "%*s%s\n", indent, "", line);
		indent = 0;
	}
	for (size_t k = 0; k + 1 < c->n; k++) {
		if (indent < MAX_INDENT) /* the engine's TCStringSpcHelper::MAX_SPACES */
			indent++;
		const edge *e = &c->hops[k];
		obj_info src;
		char cls[HEAP_NAME_MAX] = "UObject";
		if (v->object(v, e->src, &src) == 0) {
			snprintf(cls, sizeof cls, "%s", src.class_name);
			obj_info_free(&src);
		}
		object_line(v, c->nodes[k + 1], line, sizeof line);
		if (e->type == EDGE_CLASS || e->type == EDGE_OUTER)
			fprintf(fp, "%*s-> UObject* UObject::%s = %s\n", indent, "", e->prop, line);
		else if (e->kind == REF_ARO)
			fprintf(fp, "%*s-> %s::AddReferencedObjects(%s)\n", indent, "", cls, line);
		else
			fprintf(fp, "%*s-> UObject* %s::%s = %s\n", indent, "", cls, e->prop[0] ? e->prop : "(unnamed)", line);
	}
	fprintf(fp, "  \n");
}

void json_str(FILE *fp, const char *s)
{
	/* valid UTF-8 out whatever comes in: controls as \\u escapes, a byte
	 * that is not part of valid UTF-8 as the text \\xHH (escape.h) */
	const unsigned char *p = (const unsigned char *)s;
	size_t len = strlen(s);
	fputc('"', fp);
	for (size_t k = 0; k < len;) {
		size_t c = utf8_char(p + k, len - k);
		if (p[k] == '"' || p[k] == '\\')
			fprintf(fp, "\\%c", p[k]);
		else if (c)
			fwrite(p + k, 1, c, fp);
		else if (p[k] < 0x20 || p[k] == 0x7f)
			fprintf(fp, "\\u%04x", p[k]);
		else if (p[k] == 0xc2 && k + 1 < len && p[k + 1] >= 0x80 && p[k + 1] < 0xa0) {
			fprintf(fp, "\\u%04x", p[k + 1]); /* a C1 control */
			k++;
		} else
			fprintf(fp, "\\\\x%02x", p[k]);
		k += c ? c : 1;
	}
	fputc('"', fp);
}

static void json_object(view *v, FILE *fp, obj_t i)
{
	obj_info o;
	if (v->object(v, i, &o)) {
		fprintf(fp, "{\"idx\":%d}", i);
		return;
	}
	fprintf(fp, "{\"idx\":%d,\"class\":", i);
	json_str(fp, o.class_name);
	fprintf(fp, ",\"path\":");
	json_str(fp, o.path);
	fprintf(fp, ",\"flags\":");
	json_str(fp, o.flags);
	fprintf(fp, ",\"root_kind\":");
	if (o.root_kind == RK_NONE)
		fprintf(fp, "null");
	else
		json_str(fp, root_kind_names[o.root_kind]);
	fprintf(fp, "}");
	obj_info_free(&o);
}

void print_chain_json(view *v, FILE *fp, const chain *c)
{
	fprintf(fp, "{\"length\":%zu,\"gcobject\":", c->n - 1);
	if (c->gc_root) {
		fprintf(fp, "{\"referencer\":");
		json_str(fp, c->gc_edge.referencer);
		fprintf(fp, ",\"property\":");
		json_str(fp, c->gc_edge.prop);
		fprintf(fp, "}");
	} else {
		fprintf(fp, "null");
	}
	fprintf(fp, ",\"root\":");
	json_object(v, fp, c->nodes[0]);
	fprintf(fp, ",\"hops\":[");
	for (size_t k = 0; k + 1 < c->n; k++) {
		fprintf(fp, "%s{\"kind\":\"%s\",\"property\":", k ? "," : "", edge_kind_name(&c->hops[k]));
		json_str(fp, c->hops[k].prop);
		fprintf(fp, ",\"to\":");
		json_object(v, fp, c->nodes[k + 1]);
		fprintf(fp, "}");
	}
	fprintf(fp, "]}");
}

static void dot_label(FILE *fp, const char *s)
{
	fputc('"', fp);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', fp);
		fputc(*s, fp);
	}
	fputc('"', fp);
}

void print_chains_dot(view *v, FILE *fp, const chains *cs, obj_t target)
{
	fprintf(fp, "digraph retention {\n  rankdir=LR;\n  node [shape=box, fontname=\"monospace\"];\n");
	/* nodes once, then edges (duplicates across chains are harmless to dot but noisy: skip exact repeats) */
	for (size_t c = 0; c < cs->n; c++) {
		const chain *ch = &cs->v[c];
		for (size_t k = 0; k < ch->n; k++) {
			obj_info o;
			if (v->object(v, ch->nodes[k], &o))
				continue;
			char label[8192];
			snprintf(label, sizeof label, "%s\\n%s", o.class_name, o.path);
			fprintf(fp, "  n%d [label=", ch->nodes[k]);
			dot_label(fp, label);
			fprintf(fp, "%s];\n", ch->nodes[k] == target ? ", style=bold" : RK_IS_ROOT(o.root_kind) ? ", style=filled" : "");
			obj_info_free(&o);
		}
		if (ch->gc_root) {
			fprintf(fp, "  gc_%zu [shape=ellipse, label=", c);
			dot_label(fp, ch->gc_edge.referencer);
			fprintf(fp, "];\n  gc_%zu -> n%d [label=", c, ch->nodes[0]);
			dot_label(fp, ch->gc_edge.prop);
			fprintf(fp, "];\n");
		}
		for (size_t k = 0; k + 1 < ch->n; k++) {
			fprintf(fp, "  n%d -> n%d [label=", ch->nodes[k], ch->nodes[k + 1]);
			dot_label(fp, ch->hops[k].prop);
			fprintf(fp, "%s];\n", ch->hops[k].type == EDGE_REF && ch->hops[k].kind == REF_STRONG ? "" : ", style=dashed");
		}
	}
	fprintf(fp, "}\n");
}
