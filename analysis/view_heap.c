/* view_heap.c — the query view (view.h) over an analysed heap in memory. */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/cluster_causes.h"
#include "base/base.h"
#include "analysis/dominators.h"
#include "analysis/findings.h"
#include "analysis/view.h"

typedef struct heap_view {
	view base;
	heap *h;
	gc_result *r;
	findings f;           /* built on the first findings() */
	int have_findings;
	uint32_t *inst_start; /* objects by class */
	obj_t *inst;
	/* the indexes and findings are built on first use (a command that asks
	 * for neither never pays for them); view_heap_borrow: H and R stay the
	 * caller's, and the indexes the view built go at close */
	int borrowed, indexed, built_reverse, built_children;
	dom_result dom;       /* computed on the first retained() */
	int have_dom;
	/* view_heap_defer_gc: R is computed by RUN_GC(GC_ARG) before the view
	 * first reads it (then RUN_GC is NULL) */
	int (*run_gc)(void *arg, char *err, size_t errsize);
	void *gc_arg;
} heap_view;

#define HV(v) ((heap_view *)(v))

int edges_push(edges *e, const edge *x)
{
	if (!x->prop || !x->referencer) /* a name the pool could not hold: out of memory */
		return -1;
	if (grow_array((void **)&e->v, &e->cap, e->n, sizeof *e->v))
		return -1;
	e->v[e->n++] = *x;
	return 0;
}

int sources_push(sources *s, obj_t src, uint32_t distance, int type, int kind, int reachable)
{
	if (grow_array((void **)&s->v, &s->cap, s->n, sizeof *s->v))
		return -1;
	s->v[s->n++] = (source){src, distance, (uint8_t)type, (uint8_t)kind, (uint8_t)(reachable != 0)};
	return 0;
}

void edges_free(edges *e)
{
	free(e->v);
	memset(e, 0, sizeof *e);
}

int finding_rows_push(finding_rows *f, const finding_row *x)
{
	if (grow_array((void **)&f->v, &f->cap, f->n, sizeof *f->v))
		return -1;
	f->v[f->n++] = *x;
	return 0;
}

int cluster_rows_push(cluster_rows *c, const cluster_row *x)
{
	if (grow_array((void **)&c->v, &c->cap, c->n, sizeof *c->v))
		return -1;
	c->v[c->n++] = *x;
	return 0;
}

const char *view_text(view *v, const char *s)
{
	if (!s || !*s)
		return "";
	size_t len = strlen(s);
	char small[1024], *buf = len < sizeof small / 4 ? small : malloc(4 * len + 1);
	const char *out = buf ? strpool_intern(&v->pool, buf, display_escape(buf, 4 * len + 1, s, len)) : NULL;
	if (buf != small)
		free(buf);
	if (!out)
		snprintf(v->err, sizeof v->err, "out of memory");
	return out;
}

void view_copy(char *dst, size_t cap, const char *s)
{
	display_escape(dst, cap, s ? s : "", s ? strlen(s) : 0);
}

edge edge_make(view *v, obj_t src, obj_t dst, int type, int kind, const char *prop)
{
	edge e;
	memset(&e, 0, sizeof e);
	e.src = src;
	e.dst = dst;
	e.type = (uint8_t)type;
	e.kind = (uint8_t)kind;
	e.prop = type == EDGE_CLASS ? "Class" : type == EDGE_OUTER ? "Outer" : view_text(v, prop);
	e.referencer = "";
	return e;
}

int obj_info_set_text(obj_info *o, const char *name, const char *class_name, const char *flags,
		      const char *parent_property, const char *path)
{
	const char *raw[5] = {name, class_name, flags, parent_property, path};
	const char **dst[5] = {&o->name, &o->class_name, &o->flags, &o->parent_property, &o->path};
	size_t len[5], cap = 0;
	for (int k = 0; k < 5; k++) {
		len[k] = raw[k] ? strlen(raw[k]) : 0;
		cap += 4 * len[k] + 1; /* the display form is at most four times as long */
	}
	o->text = malloc(cap);
	size_t at = 0;
	for (int k = 0; k < 5; k++) {
		if (!o->text) {
			*dst[k] = "";
			continue;
		}
		*dst[k] = o->text + at;
		at += display_escape(o->text + at, 4 * len[k] + 1, raw[k] ? raw[k] : "", len[k]) + 1;
	}
	return o->text ? 0 : -1;
}

void obj_info_free(obj_info *o)
{
	free(o->text);
	o->text = NULL;
	o->name = o->class_name = o->flags = o->parent_property = o->path = "";
}

/* The GC result, when its owner deferred it (view_heap_defer_gc). */
static int need_gc(heap_view *hv)
{
	if (!hv->run_gc)
		return 0;
	if (hv->run_gc(hv->gc_arg, hv->base.err, sizeof hv->base.err))
		return -1;
	hv->run_gc = NULL;
	return 0;
}

/* ugc-gc(7) §3 (root kinds, distances, shortest-path parents) of a GC
 * result that left it for later (gc_options.defer_retention): computed on
 * first use, so a command that never asks for it (top) never pays for it. */
static int need_retention(heap_view *hv)
{
	if (need_gc(hv))
		return -1;
	if (hv->r->distance)
		return 0;
	if (gc_retention(hv->h, hv->r, hv->r->keep_flags) == 0)
		return 0;
	snprintf(hv->base.err, sizeof hv->base.err, "out of memory computing retention paths");
	return -1;
}

/* 0, or -1 (the view's error set) when the GC result left step 7's weak
 * reference lists out (gc_options.no_weak_lists): what reads them would
 * answer "none" where the answer is unknown. */
static int need_weak_lists(heap_view *hv)
{
	if (!hv->r->no_weak_lists)
		return 0;
	snprintf(hv->base.err, sizeof hv->base.err, "the GC ran without its weak-reference lists");
	return -1;
}

/* Object I into O; WITH_RETENTION 0 leaves ugc-gc(7) §3's fields unknown
 * (see view_ops.describe), so they need not have been computed. */
static int describe(heap_view *hv, obj_t i, obj_info *o, int with_retention)
{
	const heap *h = hv->h;
	const gc_result *r = hv->r;
	memset(o, 0, sizeof *o);
	obj_info_free(o); /* strings "" until set */
	if (!heap_exists(h, i))
		return 1;
	o->idx = i;
	o->cls = h->cls[i];
	o->outer = h->outer[i];
	o->cluster = heap_cluster(h, i) >= 0 ? h->clusters[heap_cluster(h, i)].root : OBJ_NONE;
	o->serial = h->serial[i];
	o->size = h->size[i];
	o->distance = with_retention ? r->distance[i] : UINT32_MAX;
	o->garbage = heap_is_garbage(h, i);
	o->reachable = hv->run_gc ? -1 : r->reachable[i]; /* the GC deferred: unknown */
	o->root_kind = with_retention ? r->root_kind[i] : RK_NONE;
	o->parent = with_retention ? r->parent[i] : OBJ_NONE;
	o->node_id = heap_node_id(h, i);
	o->v8 = hv->base.v8;
	o->oflags = h->oflags[i];
	o->iflags = h->iflags[i];
	o->traits = h->traits[i];
	char name[HEAP_NAME_MAX], cname[HEAP_NAME_MAX], flags[FLAGS_MAX];
	heap_name(h, i, name, sizeof name);
	heap_name(h, h->cls[i], cname, sizeof cname);
	flags_format(flags, h->oflags[i], h->iflags[i], h->traits[i]);
	char *path = heap_path(h, i);
	const char *via = !with_retention || r->via[i] == VIA_NONE ? "" : path_property(h, r, i);
	int rc = path ? obj_info_set_text(o, name, cname, flags, via, path) : -1;
	free(path);
	if (rc) {
		obj_info_free(o);
		snprintf(hv->base.err, sizeof hv->base.err, "out of memory");
		return -1;
	}
	return 0;
}

static int hv_object(view *v, obj_t i, obj_info *o)
{
	if (need_retention(HV(v))) {
		memset(o, 0, sizeof *o);
		obj_info_free(o);
		return -1;
	}
	return describe(HV(v), i, o, 1);
}

static int hv_describe(view *v, obj_t i, obj_info *o)
{
	return describe(HV(v), i, o, 0);
}

static int hv_state(view *v, obj_t i, obj_state *o)
{
	const heap *h = HV(v)->h;
	const gc_result *r = HV(v)->r;
	if (need_retention(HV(v)))
		return -1;
	if (!heap_exists(h, i))
		return 1;
	o->cls = h->cls[i];
	o->outer = h->outer[i];
	o->distance = r->distance[i];
	o->reachable = r->reachable[i];
	o->garbage = heap_is_garbage(h, i);
	o->root_kind = r->root_kind[i] == RK_NONE ? RK_NONE : r->root_kind[i];
	o->parent = r->parent[i];
	o->node_id = heap_node_id(h, i);
	o->parent_property = r->via[i] == VIA_NONE ? "" : view_text(v, path_property(h, r, i));
	return o->parent_property ? 0 : -1;
}

#define make_edge(h, src, dst, type, kind, prop) \
	edge_make(v, src, dst, type, kind, (prop) ? heap_str(h, prop) : NULL)

/* The objects by class (INST_START, INST), all or nothing: on failure
 * neither is kept, so a later call builds them again. */
static int build_instances(heap_view *hv)
{
	const heap *h = hv->h;
	if (hv->inst_start)
		return 0;
	uint32_t *start = calloc((size_t)h->slots + 1, sizeof *start);
	obj_t *inst = malloc(((size_t)h->objects + 1) * sizeof *inst);
	uint32_t *fill = malloc(((size_t)h->slots + 1) * sizeof *fill);
	if (!start || !inst || !fill) {
		free(start);
		free(inst);
		free(fill);
		return -1;
	}
	for (uint32_t i = 0; i < h->slots; i++)
		if (h->cls[i] != OBJ_FREE)
			start[h->cls[i] + 1]++;
	for (uint32_t i = 0; i < h->slots; i++)
		start[i + 1] += start[i];
	memcpy(fill, start, ((size_t)h->slots + 1) * sizeof *fill);
	for (uint32_t i = 0; i < h->slots; i++)
		if (h->cls[i] != OBJ_FREE)
			inst[fill[h->cls[i]]++] = (obj_t)i;
	free(fill);
	hv->inst_start = start;
	hv->inst = inst;
	return 0;
}

/* The indexes incoming() needs, built on first use; a failed attempt
 * leaves what it did build for the next (each build is all or nothing),
 * and BUILT_* record which of the heap's the view built (a borrowed
 * view's go at close). */
static int ensure_indexed(heap_view *hv)
{
	if (hv->indexed)
		return 0;
	if (!hv->h->rev_start) {
		if (heap_build_reverse(hv->h))
			return -1;
		hv->built_reverse = 1;
	}
	if (!hv->h->child_start) {
		if (heap_build_children(hv->h))
			return -1;
		hv->built_children = 1;
	}
	if (build_instances(hv))
		return -1;
	hv->indexed = 1;
	return 0;
}

static int hv_incoming(view *v, obj_t i, edges *out)
{
	heap_view *hv = HV(v);
	const heap *h = hv->h;
	if (ensure_indexed(hv))
		goto oom;
	/* merge three lists sorted by source: instances, children, reference rows */
	uint32_t a = hv->inst_start[i], ae = hv->inst_start[i + 1];
	uint32_t b = h->child_start[i], be = h->child_start[i + 1];
	uint32_t c = h->rev_start[i], ce = h->rev_start[i + 1];
	while (a < ae || b < be || c < ce) {
		obj_t s = INT32_MAX;
		if (a < ae && hv->inst[a] < s) s = hv->inst[a];
		if (b < be && h->child[b] < s) s = h->child[b];
		if (c < ce && h->rev_src[c] < s) s = h->rev_src[c];
		edge e;
		if (a < ae && hv->inst[a] == s) {
			e = make_edge(h, s, i, EDGE_CLASS, REF_IMMUTABLE, 0);
			if (edges_push(out, &e)) goto oom;
			a++;
		}
		if (b < be && h->child[b] == s) {
			e = make_edge(h, s, i, EDGE_OUTER, REF_IMMUTABLE, 0);
			if (edges_push(out, &e)) goto oom;
			b++;
		}
		while (c < ce && h->rev_src[c] == s) {
			uint32_t k = h->rev_ref[c++];
			e = make_edge(h, s, i, EDGE_REF, h->ref_kind[k], h->ref_prop[k]);
			if (edges_push(out, &e)) goto oom;
		}
	}
	for (uint32_t g = 0; g < h->ngcrefs; g++)
		if (h->gcrefs[g].dst == i) {
			edge e = make_edge(h, OBJ_NONE, i, EDGE_GC, REF_ARO, h->gcrefs[g].prop);
			e.referencer = view_text(v, heap_str(h, h->gcrefs[g].referencer));
			if (edges_push(out, &e)) goto oom;
		}
	return 0;
oom:
	snprintf(v->err, sizeof v->err, "out of memory");
	return -1;
}

static int hv_sources(view *v, obj_t i, sources *out)
{
	heap_view *hv = HV(v);
	const heap *h = hv->h;
	const gc_result *r = hv->r;
	if (need_retention(hv))
		return -1;
	if (ensure_indexed(hv))
		goto oom;
	for (uint32_t k = hv->inst_start[i]; k < hv->inst_start[i + 1]; k++) {
		obj_t s = hv->inst[k];
		if (sources_push(out, s, r->distance[s], EDGE_CLASS, REF_IMMUTABLE, r->reachable[s]))
			goto oom;
	}
	for (uint32_t k = h->child_start[i]; k < h->child_start[i + 1]; k++) {
		obj_t s = h->child[k];
		if (sources_push(out, s, r->distance[s], EDGE_OUTER, REF_IMMUTABLE, r->reachable[s]))
			goto oom;
	}
	for (uint32_t k = h->rev_start[i]; k < h->rev_start[i + 1]; k++) {
		obj_t s = h->rev_src[k];
		if (sources_push(out, s, r->distance[s], EDGE_REF, h->ref_kind[h->rev_ref[k]], r->reachable[s]))
			goto oom;
	}
	return 0;
oom:
	snprintf(v->err, sizeof v->err, "out of memory");
	return -1;
}

static int hv_outgoing(view *v, obj_t i, edges *out)
{
	const heap *h = HV(v)->h;
	edge e = make_edge(h, i, h->cls[i], EDGE_CLASS, REF_IMMUTABLE, 0);
	int rc = edges_push(out, &e);
	if (h->outer[i] >= 0) {
		e = make_edge(h, i, h->outer[i], EDGE_OUTER, REF_IMMUTABLE, 0);
		rc |= edges_push(out, &e);
	}
	for (uint32_t k = h->ref_start[i]; k < h->ref_start[i + 1]; k++) {
		e = make_edge(h, i, h->ref_dst[k], EDGE_REF, h->ref_kind[k], h->ref_prop[k]);
		rc |= edges_push(out, &e);
	}
	if (rc)
		snprintf(v->err, sizeof v->err, "out of memory");
	return rc ? -1 : 0;
}

static int hv_between(view *v, obj_t src, obj_t dst, edges *out)
{
	const heap *h = HV(v)->h;
	int rc = 0;
	edge e;
	if (h->cls[src] == dst) {
		e = make_edge(h, src, dst, EDGE_CLASS, REF_IMMUTABLE, 0);
		rc |= edges_push(out, &e);
	}
	if (h->outer[src] == dst) {
		e = make_edge(h, src, dst, EDGE_OUTER, REF_IMMUTABLE, 0);
		rc |= edges_push(out, &e);
	}
	for (uint32_t k = h->ref_start[src]; k < h->ref_start[src + 1]; k++)
		if (h->ref_dst[k] == dst) {
			e = make_edge(h, src, dst, EDGE_REF, h->ref_kind[k], h->ref_prop[k]);
			rc |= edges_push(out, &e);
		}
	if (rc)
		snprintf(v->err, sizeof v->err, "out of memory");
	return rc ? -1 : 0;
}

static int hv_eliminated_to(view *v, obj_t i, edges *out)
{
	const heap *h = HV(v)->h;
	const gc_result *r = HV(v)->r;
	if (need_gc(HV(v)))
		return -1;
	for (uint32_t k = 0; k < r->neliminated; k++) {
		const gc_eliminated *x = &r->eliminated[k];
		if (x->dst != i)
			continue;
		edge e;
		if (x->src == OBJ_NONE) {
			e = make_edge(h, OBJ_NONE, i, EDGE_GC, REF_ARO, h->gcrefs[x->ref].prop);
			e.referencer = view_text(v, heap_str(h, h->gcrefs[x->ref].referencer));
		} else {
			/* a handed-over reference (ugc-gc(7) §1.2) is the Level's aro one */
			e = make_edge(h, x->src, i, EDGE_REF, x->handoff ? REF_ARO : h->ref_kind[x->ref], h->ref_prop[x->ref]);
		}
		if (edges_push(out, &e))
			return -1;
	}
	return 0;
}

static int hv_cleared_to(view *v, obj_t i, edges *out)
{
	const heap *h = HV(v)->h;
	const gc_result *r = HV(v)->r;
	uint32_t src = 0;
	if (need_gc(HV(v)) || need_weak_lists(HV(v)))
		return -1;
	for (uint32_t k = 0; k < r->ncleared; k++) {
		uint32_t pos = r->cleared[k];
		while (h->ref_start[src + 1] <= pos)
			src++;
		if (h->ref_dst[pos] != i)
			continue;
		edge e = make_edge(h, (obj_t)src, i, EDGE_REF, REF_WEAK, h->ref_prop[pos]);
		if (edges_push(out, &e))
			return -1;
	}
	return 0;
}

static int hv_findings(view *v, obj_t about, finding_rows *out)
{
	heap_view *hv = HV(v);
	if (need_retention(hv) || need_weak_lists(hv))
		return -1;
	if (!hv->have_findings) {
		if (findings_collect(hv->h, hv->r, &hv->f)) {
			snprintf(v->err, sizeof v->err, "out of memory");
			return -1;
		}
		hv->have_findings = 1;
	}
	for (uint32_t k = 0; k < hv->f.n; k++) {
		const finding *f = &hv->f.v[k];
		if (about != OBJ_NONE && f->idx != about && f->other != about)
			continue;
		finding_row row;
		memset(&row, 0, sizeof row);
		snprintf(row.kind, sizeof row.kind, "%s", finding_kind_names[f->kind]);
		row.idx = f->idx;
		row.other = f->other;
		char detail[DETAIL_MAX];
		finding_detail(hv->h, f, detail, sizeof detail);
		uint32_t g = finding_referencer(hv->h, f);
		if (!(row.detail = view_text(v, detail)) ||
		    !(row.referencer = view_text(v, g ? heap_str(hv->h, g) : NULL)) || finding_rows_push(out, &row))
			return -1;
	}
	return 0;
}

static int hv_clusters(view *v, obj_t root, int bytes, cluster_rows *out)
{
	const heap *h = HV(v)->h;
	const gc_result *r = HV(v)->r;
	if (need_gc(HV(v)))
		return -1;
	for (uint32_t c = 0; c < h->nclusters; c++) {
		const cluster *cl = &h->clusters[c];
		if (root != OBJ_NONE && cl->root != root)
			continue;
		cluster_row row;
		memset(&row, 0, sizeof row);
		row.root = cl->root;
		row.members = cl->n_members;
		row.mutables = cl->n_mutables;
		row.referenced = cl->n_refs;
		row.referenced_by = h->refby_start[c + 1] - h->refby_start[c];
		for (uint32_t k = 0; bytes && k <= cl->n_members; k++)
			row.bytes += h->size[k == cl->n_members ? cl->root : h->cluster_items[cl->members + k]];
		snprintf(row.state, sizeof row.state, "%s", r->cluster_fate[c] == CF_ALIVE ? "alive" : "dissolved");
		snprintf(row.reason, sizeof row.reason, "%s", r->cluster_fate[c] == CF_ALIVE ? "" : cluster_fate_names[r->cluster_fate[c]]);
		if (cluster_rows_push(out, &row))
			return -1;
	}
	return 0;
}

static int hv_cluster_list(view *v, obj_t root, int which, obj_t **out, size_t *n)
{
	const heap *h = HV(v)->h;
	*out = NULL;
	*n = 0;
	if (!heap_exists(h, root) || heap_cluster(h, root) < 0 || h->clusters[heap_cluster(h, root)].root != root)
		return 0;
	uint32_t c = (uint32_t)heap_cluster(h, root);
	const cluster *cl = &h->clusters[c];
	if (which == 4) {
		if (need_gc(HV(v)))
			return -1;
		if (cluster_causes(h, HV(v)->r, c, out, n) == 0)
			return 0;
		snprintf(v->err, sizeof v->err, "out of memory");
		return -1;
	}
	uint32_t start, count;
	switch (which) {
	case 0: start = cl->members; count = cl->n_members; break;
	case 1: start = cl->mutables; count = cl->n_mutables; break;
	case 2: start = cl->refs; count = cl->n_refs; break;
	default: start = h->refby_start[c]; count = h->refby_start[c + 1] - start; break;
	}
	*out = malloc((count + 1) * sizeof **out);
	if (!*out)
		return -1;
	for (uint32_t k = 0; k < count; k++)
		(*out)[k] = which == 3 ? h->clusters[h->cluster_refby[start + k]].root : h->cluster_items[start + k];
	*n = count;
	return 0;
}

static int hv_find_path(view *v, const char *path, obj_t *out)
{
	*out = heap_find_path(HV(v)->h, path);
	if (*out == OBJ_ERROR) {
		snprintf(v->err, sizeof v->err, "out of memory");
		return -1;
	}
	return 0;
}

static int hv_find_glob(view *v, const char *glob, const char *class_name, obj_t **out, size_t *n)
{
	const heap *h = HV(v)->h;
	size_t cap = 64;
	*n = 0;
	*out = malloc(cap * sizeof **out);
	if (!*out)
		return -1;
	char name[HEAP_NAME_MAX], cname[HEAP_NAME_MAX];
	/* per class object: 0 not yet named, 1 CLASS_NAME, 2 another (a class is
	 * named once, not once an instance) */
	uint8_t *is_class = class_name ? calloc((size_t)h->slots + 1, 1) : NULL;
	if (class_name && !is_class)
		return -1;
	for (uint32_t i = 0; i < h->slots; i++) {
		if (h->cls[i] == OBJ_FREE)
			continue;
		if (class_name) {
			obj_t c = h->cls[i];
			if (!is_class[c]) {
				heap_name(h, c, cname, sizeof cname);
				is_class[c] = strcmp(cname, class_name) == 0 ? 1 : 2;
			}
			if (is_class[c] != 1)
				continue;
		}
		if (glob) {
			heap_name(h, (obj_t)i, name, sizeof name);
			if (fnmatch(glob, name, FNM_NOESCAPE) != 0) /* as SQLite's GLOB: no escapes */
				continue;
		}
		if (*n == cap) {
			obj_t *p = realloc(*out, (cap *= 2) * sizeof *p);
			if (!p) {
				free(is_class);
				return -1;
			}
			*out = p;
		}
		(*out)[(*n)++] = (obj_t)i;
	}
	free(is_class);
	return 0;
}

/* A scan of the names' numbers: a few milliseconds on a million nodes, once
 * a selection. */
static int hv_find_node(view *v, int64_t id, obj_t *out, size_t *n)
{
	const heap *h = HV(v)->h;
	*out = OBJ_NONE;
	*n = 0;
	for (uint32_t i = (uint32_t)(h->first_gc_index > 0 ? h->first_gc_index : 0); i < h->slots && *n < 2 && v->v8; i++) {
		if (h->cls[i] == OBJ_FREE || heap_node_id(h, (obj_t)i) != id)
			continue;
		if (!(*n)++)
			*out = (obj_t)i;
	}
	return 0;
}

static int hv_retained(view *v, obj_t i, obj_t *idom, long long *bytes)
{
	heap_view *hv = HV(v);
	if (!hv->have_dom) {
		if (need_gc(hv))
			return -1;
		if (dom_compute_objects(hv->h, hv->r, POLICY_GC, &hv->dom)) {
			snprintf(v->err, sizeof v->err, "out of memory computing dominators");
			return -1;
		}
		hv->have_dom = 1;
	}
	*idom = hv->dom.idom[i];
	*bytes = *idom == OBJ_NONE ? -1 : (long long)hv->dom.retained[i];
	return 0;
}

static void hv_close(view *v)
{
	heap_view *hv = HV(v);
	if (hv->have_dom)
		dom_free(&hv->dom);
	findings_free(&hv->f);
	if (hv->borrowed) {
		heap *h = hv->h;
		if (hv->built_reverse) {
			free(h->rev_start); free(h->rev_src); free(h->rev_ref);
			h->rev_start = h->rev_ref = NULL;
			h->rev_src = NULL;
		}
		if (hv->built_children) {
			free(h->child_start); free(h->child);
			h->child_start = NULL;
			h->child = NULL;
		}
	} else {
		gc_result_free(hv->r);
		heap_free(hv->h);
		free(hv->r);
		free(hv->h);
	}
	free(hv->inst_start);
	free(hv->inst);
	strpool_free(&v->pool);
	free(hv);
}

/* The operations of a heap view; see view.h. */
static const view_ops heap_view_ops = {
	.object = hv_object,
	.describe = hv_describe,
	.state = hv_state,
	.incoming = hv_incoming,
	.sources = hv_sources,
	.outgoing = hv_outgoing,
	.between = hv_between,
	.eliminated_to = hv_eliminated_to,
	.cleared_to = hv_cleared_to,
	.findings = hv_findings,
	.clusters = hv_clusters,
	.cluster_list = hv_cluster_list,
	.find_path = hv_find_path,
	.find_glob = hv_find_glob,
	.find_node = hv_find_node,
	.retained = hv_retained,
	.close = hv_close,
};

static view *open_view(heap *h, gc_result *r, int borrowed, char *err, size_t errsize)
{
	heap_view *hv = calloc(1, sizeof *hv);
	if (!hv) {
		snprintf(err, errsize, "out of memory");
		return NULL;
	}
	hv->h = h;
	hv->r = r;
	hv->borrowed = borrowed;
	/* the GC's retention paths, which nearly every query reads, as part of
	 * loading */
	if (!borrowed && need_retention(hv)) {
		snprintf(err, errsize, "%s", hv->base.err);
		free(hv);
		return NULL;
	}
	view *v = &hv->base;
	v->first_gc_index = h->first_gc_index;
	v->v8 = heap_is_v8(h);
	v->slots = h->slots;
	v->ops = &heap_view_ops;
	return v;
}

view *view_heap_open(heap *h, gc_result *r, char *err, size_t errsize)
{
	return open_view(h, r, 0, err, errsize);
}

view *view_heap_borrow(heap *h, gc_result *r, char *err, size_t errsize)
{
	return open_view(h, r, 1, err, errsize);
}

void view_heap_defer_gc(view *v, int (*run_gc)(void *arg, char *err, size_t errsize), void *arg)
{
	HV(v)->run_gc = run_gc;
	HV(v)->gc_arg = arg;
}
