/* findings.c — ugc-gc(7) §6: eliminated references, garbage that survives,
 * dangling references, cluster lists that disagree with their members' real
 * references, objects only clusters keep, RootSet objects that are garbage,
 * weak references left uncleared, rooted members that die with their
 * cluster, KeepFlags cluster roots, garbage flags that disagree, rooted
 * clusters step 2 dissolves (the engine's crash), garbage members of live
 * clusters, clusters or a disregard pool in an editor snapshot, and World
 * leaks. */
#include "analysis/findings.h"
#include "analysis/worlds.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const finding_kind_names[FK_COUNT] = {
	"eliminated-ref", "garbage-survives", "dangling-ref", "cluster-missing-mutable",
	"cluster-missing-cluster", "cluster-keeps-alive", "rootset-garbage", "uncleared-weak-ref",
	"rooted-member-destroyed", "keepflags-cluster-root", "garbage-flag-mismatch", "rooted-cluster-dissolved",
	"garbage-cluster-member", "editor-mode-mismatch", "world-leak",
};

static int add(findings *f, finding x)
{
	if (f->n == f->cap) {
		uint32_t cap = f->cap ? f->cap * 2 : 64;
		finding *v = realloc(f->v, (size_t)cap * sizeof *v);
		if (!v)
			return -1;
		f->v = v;
		f->cap = cap;
	}
	f->v[f->n++] = x;
	f->count[x.kind]++;
	return 0;
}

void findings_free(findings *f)
{
	free(f->v);
	memset(f, 0, sizeof *f);
}

const char *edge_property(const heap *h, uint32_t via)
{
	if (via == VIA_CLASS)
		return "Class";
	if (via == VIA_OUTER)
		return "Outer";
	if (via == VIA_NONE)
		return "";
	uint32_t p = h->ref_prop[via - 2];
	return p ? heap_str(h, p) : "(unnamed)";
}

const char *path_property(const heap *h, const gc_result *r, obj_t i)
{
	uint32_t via = r->via[i];
	obj_t p = r->parent[i];
	/* a reference position outside the parent's own rows: handed over */
	if (via != VIA_NONE && via >= 2 && p >= 0 && (via - 2 < h->ref_start[p] || via - 2 >= h->ref_start[p + 1]))
		return "ActorsForGC";
	return edge_property(h, via);
}

/* Cluster disagreements: every real reference of a live cluster's root and
 * members that leaves the cluster must be covered by its lists. */
static int cluster_checks(const heap *h, const gc_result *r, findings *out)
{
	uint32_t *mut_stamp = calloc(h->slots ? h->slots : 1, sizeof *mut_stamp);
	uint32_t *ref_stamp = calloc(h->slots ? h->slots : 1, sizeof *ref_stamp);
	if (!mut_stamp || !ref_stamp) {
		free(mut_stamp);
		free(ref_stamp);
		return -1;
	}
	int rc = 0;
	for (uint32_t c = 0; c < h->nclusters && rc == 0; c++) {
		if (!r->cluster_live[c]) /* dissolved in step 2: its lists were never used */
			continue;
		const cluster *cl = &h->clusters[c];
		for (uint32_t k = 0; k < cl->n_mutables; k++)
			mut_stamp[h->cluster_items[cl->mutables + k]] = c + 1;
		for (uint32_t k = 0; k < cl->n_refs; k++)
			ref_stamp[h->cluster_items[cl->refs + k]] = c + 1;
		for (uint32_t k = 0; k <= cl->n_members && rc == 0; k++) {
			obj_t x = k == cl->n_members ? cl->root : h->cluster_items[cl->members + k];
			uint32_t first = h->ref_start[x], n = h->ref_start[x + 1] - first;
			for (uint32_t e = 0; e < n + 2 && rc == 0; e++) {
				obj_t t;
				uint32_t via;
				if (e == 0) {
					t = h->cls[x]; via = VIA_CLASS;
				} else if (e == 1) {
					t = h->outer[x]; via = VIA_OUTER;
				} else {
					uint32_t pos = first + e - 2;
					int kind = h->ref_kind[pos];
					if (kind == REF_WEAK || kind == REF_SOFT)
						continue;
					t = h->ref_dst[pos]; via = VIA_REF(pos);
				}
				/* roots by internal flags are never collected: a missing entry is harmless */
				if (t < 0 || heap_in_disregard(h, t) || heap_cluster(h, t) == (int32_t)c ||
				    (h->iflags[t] & (IF_RootSet | IF_RefCounted | IF_INTERNAL_KEEP)))
					continue;
				int32_t tc = heap_cluster(h, t);
				finding f = {0, 0, 0, x, t, cl->root, via};
				if (tc >= 0) {
					if (ref_stamp[h->clusters[tc].root] == c + 1)
						continue;
					f.kind = FK_CLUSTER_MISSING_CLUSTER;
				} else {
					if (mut_stamp[t] == c + 1)
						continue;
					f.kind = FK_CLUSTER_MISSING_MUTABLE;
				}
				f.use_after_free = r->reachable[x] && !r->reachable[t];
				rc = add(out, f);
			}
		}
		/* the engine trusts ReferencedClusters to be complete: a cluster it
		 * only marks does no step 5, so this cluster's lists must carry the
		 * referenced cluster's MutableObjects and ReferencedClusters too */
		for (uint32_t k = 0; k < cl->n_refs && rc == 0; k++) {
			obj_t br = h->cluster_items[cl->refs + k];
			const cluster *b = &h->clusters[heap_cluster(h, br)];
			for (uint32_t q = 0; q < b->n_mutables + b->n_refs && rc == 0; q++) {
				int is_mut = q < b->n_mutables;
				obj_t t = h->cluster_items[is_mut ? b->mutables + q : b->refs + q - b->n_mutables];
				if ((is_mut ? mut_stamp : ref_stamp)[t] == c + 1)
					continue;
				finding f = {is_mut ? FK_CLUSTER_MISSING_MUTABLE : FK_CLUSTER_MISSING_CLUSTER, 0, 0, cl->root, t,
					     cl->root, VIA_INHERITED(br)};
				f.use_after_free = r->reachable[cl->root] && !r->reachable[t];
				rc = add(out, f);
			}
		}
	}
	free(mut_stamp);
	free(ref_stamp);
	return rc;
}

/* Clusters step 2 treats badly: a rooted one it dissolves (the engine walks
 * it all the same, at cluster index -1: a crash), and garbage members of
 * one it keeps, which live while the GC nulls killable references to them.
 * And clusters or a disregard pool in mode editor, which has neither. */
static int cluster_quirks(const heap *h, const gc_result *r, findings *out)
{
	int rc = 0;
	for (uint32_t c = 0; c < h->nclusters && rc == 0; c++) {
		const cluster *cl = &h->clusters[c];
		if (r->cluster_fate[c] == CF_REFERENCES_DISSOLVED && !r->cluster_live[c] && gc_cluster_kept(h, c)) {
			obj_t why = OBJ_NONE; /* the first referenced cluster step 2 dissolved */
			for (uint32_t k = 0; k < cl->n_refs && why == OBJ_NONE; k++) {
				obj_t b = h->cluster_items[cl->refs + k];
				if (!r->cluster_live[heap_cluster(h, b)])
					why = b;
			}
			rc = add(out, (finding){FK_ROOTED_CLUSTER_DISSOLVED, 0, 0, cl->root, why, cl->root, VIA_NONE});
		}
		for (uint32_t k = 0; k < cl->n_members && rc == 0 && r->cluster_live[c]; k++) {
			obj_t x = h->cluster_items[cl->members + k];
			if (heap_is_garbage(h, x) && r->reachable[x])
				rc = add(out, (finding){FK_GARBAGE_CLUSTER_MEMBER, 0, 0, x, OBJ_NONE, cl->root, VIA_NONE});
		}
	}
	if (h->mode != MODE_EDITOR || rc)
		return rc;
	if (h->nclusters)
		rc = add(out, (finding){FK_EDITOR_MODE_MISMATCH, 0, 0, h->clusters[0].root, OBJ_NONE, h->clusters[0].root,
					VIA_NONE});
	obj_t first = OBJ_NONE; /* the pool's first object */
	for (obj_t i = 0; i < h->first_gc_index && i < (obj_t)h->slots && first == OBJ_NONE; i++)
		if (h->cls[i] != OBJ_FREE)
			first = i;
	if (rc == 0 && h->first_gc_index > 0 && first != OBJ_NONE)
		rc = add(out, (finding){FK_EDITOR_MODE_MISMATCH, 0, 0, first, OBJ_NONE, OBJ_NONE, VIA_NONE});
	return rc;
}

/* What the engine's own rules do that surprises: weak references it leaves
 * dangling (step 7), rooted members destroyed with a cluster whose root was
 * never reached (step 2), KeepFlags cluster roots whose lists it never walks
 * (step 3), and objects whose two garbage flags disagree. */
static int engine_quirks(const heap *h, const gc_result *r, findings *out)
{
	int rc = 0;
	for (uint32_t k = 0, i = 0; k < r->nuncleared && rc == 0; k++) {
		uint32_t pos = r->uncleared[k];
		while (h->ref_start[i + 1] <= pos)
			i++;
		obj_t src = (obj_t)i, c = heap_cluster(h, i) >= 0 ? h->clusters[heap_cluster(h, i)].root : OBJ_NONE;
		rc = add(out, (finding){FK_WEAK_UNCLEARED, 0, 0, src, h->ref_dst[pos], c, VIA_REF(pos)});
	}
	for (uint32_t c = 0; c < h->nclusters && rc == 0; c++) {
		const cluster *cl = &h->clusters[c];
		if (r->cluster_fate[c] == CF_UNREACHABLE_ROOT)
			for (uint32_t k = 0; k < cl->n_members && rc == 0; k++) {
				obj_t x = h->cluster_items[cl->members + k];
				int kind = root_kind_static(h, x, r->keep_flags, 0);
				if (kind != RK_NONE && kind != RK_DISREGARD)
					rc = add(out, (finding){FK_ROOTED_MEMBER_DESTROYED, 0, 0, x, OBJ_NONE, cl->root, VIA_NONE});
			}
		if (rc == 0 && r->cluster_fate[c] == CF_ALIVE && !r->cluster_walked[c] &&
		    root_kind_static(h, cl->root, r->keep_flags, 0) == RK_KEEPFLAGS)
			rc = add(out, (finding){FK_KEEPFLAGS_CLUSTER_ROOT, 0, 0, cl->root, OBJ_NONE, cl->root, VIA_NONE});
	}
	for (uint32_t i = 0; i < h->slots && rc == 0; i++)
		if (h->cls[i] != OBJ_FREE && !(h->iflags[i] & IF_Garbage) != !(h->oflags[i] & RF_MirroredGarbage))
			rc = add(out, (finding){FK_GARBAGE_FLAG_MISMATCH, 0, 0, (obj_t)i, OBJ_NONE, OBJ_NONE, VIA_NONE});
	return rc;
}

/* World leaks: every World the GC keeps that nothing using worlds holds
 * (worlds.h): a World kept only by a preview scene, a cache or an actor.
 * OTHER is the root its shortest chain starts from. */
static int world_leaks(const heap *h, const gc_result *r, findings *out)
{
	world_info *w;
	uint32_t n;
	if (worlds_find(h, r, &w, &n))
		return -1;
	int rc = 0;
	for (uint32_t k = 0; k < n && rc == 0; k++) {
		if (!w[k].leaked)
			continue;
		obj_t top = w[k].world;
		for (uint32_t d = r->distance[top]; d != UINT32_MAX && d > 0 && r->parent[top] >= 0; d--)
			top = r->parent[top];
		rc = add(out, (finding){FK_WORLD_LEAK, 0, 0, w[k].world, top == w[k].world ? OBJ_NONE : top, OBJ_NONE,
					VIA_NONE});
	}
	free(w);
	return rc;
}

int findings_collect(const heap *h, const gc_result *r, findings *out)
{
	memset(out, 0, sizeof *out);
	int rc = 0;
	for (uint32_t k = 0; k < r->neliminated && rc == 0; k++) {
		const gc_eliminated *e = &r->eliminated[k];
		finding f = {FK_ELIMINATED_REF, e->src == OBJ_NONE, 0, e->src, e->dst, OBJ_NONE,
			     e->src == OBJ_NONE ? e->ref : VIA_REF(e->ref)};
		if (e->handoff) /* handed over by the container that holds the record */
			f.cluster = heap_ref_source(h, e->ref);
		rc = add(out, f);
	}
	for (uint32_t i = 0; i < h->slots && rc == 0; i++) {
		if (!r->reachable[i] || !heap_is_garbage(h, (obj_t)i) || heap_in_disregard(h, (obj_t)i))
			continue;
		finding f = {FK_GARBAGE_SURVIVES, 0, 0, (obj_t)i, r->parent[i], OBJ_NONE, r->via[i]};
		if (heap_cluster(h, i) >= 0)
			f.cluster = h->clusters[heap_cluster(h, i)].root;
		rc = add(out, f);
	}
	for (uint32_t k = 0; k < h->ndangling && rc == 0; k++)
		rc = add(out, (finding){FK_DANGLING_REF, 0, 0, h->dangling[k].src, h->dangling[k].dst, OBJ_NONE, k});
	for (uint32_t k = 0; k < h->ngcrefs && rc == 0; k++)
		if (!heap_exists(h, h->gcrefs[k].dst))
			rc = add(out, (finding){FK_DANGLING_REF, 1, 0, OBJ_NONE, h->gcrefs[k].dst, OBJ_NONE, k});
	if (rc == 0)
		rc = cluster_checks(h, r, out);
	for (uint32_t i = 0; i < h->slots && rc == 0; i++) {
		if (!r->reachable[i] || r->distance[i] != UINT32_MAX)
			continue;
		int32_t c = heap_cluster(h, i);
		rc = add(out, (finding){FK_CLUSTER_KEEPS_ALIVE, 0, 0, (obj_t)i, c >= 0 ? h->clusters[c].root : OBJ_NONE,
					OBJ_NONE, VIA_NONE});
	}
	for (uint32_t i = 0; i < h->slots && rc == 0; i++)
		if (h->cls[i] != OBJ_FREE && (h->iflags[i] & IF_RootSet) && heap_is_garbage(h, (obj_t)i))
			rc = add(out, (finding){FK_ROOTSET_GARBAGE, 0, 0, (obj_t)i, OBJ_NONE, OBJ_NONE, VIA_NONE});
	if (rc == 0)
		rc = engine_quirks(h, r, out);
	if (rc == 0)
		rc = cluster_quirks(h, r, out);
	if (rc == 0)
		rc = world_leaks(h, r, out);
	if (rc)
		findings_free(out);
	return rc;
}

uint32_t finding_referencer(const heap *h, const finding *f)
{
	return f->gcref ? h->gcrefs[f->edge].referencer : 0;
}

/* Object X's path name, so that a detail names objects rather than
 * indexes; "#N" for an index that holds no object. */
typedef struct objname {
	char s[320];
} objname;

static const char *name_of(const heap *h, obj_t x, objname *n)
{
	char *p = heap_exists(h, x) ? heap_path(h, x) : NULL;
	if (p)
		snprintf(n->s, sizeof n->s, "%s", p);
	else
		snprintf(n->s, sizeof n->s, "#%d", x);
	free(p);
	return n->s;
}

void finding_detail(const heap *h, const finding *f, char *buf, size_t cap)
{
	objname a, b, c;
	switch (f->kind) {
	case FK_ELIMINATED_REF:
		if (f->gcref) {
			const gc_ref *g = &h->gcrefs[f->edge];
			snprintf(buf, cap, "reference %s of FGCObject %s to garbage object %s is nulled",
				 g->prop ? heap_str(h, g->prop) : "(unnamed)", heap_str(h, g->referencer), name_of(h, f->other, &a));
		} else if (f->cluster != OBJ_NONE) {
			snprintf(buf, cap, "aro reference %s to garbage object %s is nulled (an Actor LevelActorContainer %s "
				 "handed to its Level when step 2 dissolved its cluster)", edge_property(h, f->edge),
				 name_of(h, f->other, &a), name_of(h, f->cluster, &b));
		} else {
			snprintf(buf, cap, "%s reference %s to garbage object %s is nulled",
				 ref_kind_names[h->ref_kind[f->edge - 2]], edge_property(h, f->edge), name_of(h, f->other, &a));
		}
		return;
	case FK_GARBAGE_SURVIVES:
		if (f->other != OBJ_NONE && f->edge == VIA_CLASS)
			snprintf(buf, cap, "kept as the Class of %s", name_of(h, f->other, &a));
		else if (f->other != OBJ_NONE && f->edge == VIA_OUTER)
			snprintf(buf, cap, "kept as the Outer of %s", name_of(h, f->other, &a));
		else if (f->other != OBJ_NONE)
			snprintf(buf, cap, "kept by immutable reference %s of %s", edge_property(h, f->edge),
				 name_of(h, f->other, &a));
		else if (h->iflags[f->idx] & (IF_RootSet | IF_RefCounted | IF_INTERNAL_KEEP))
			snprintf(buf, cap, "kept as a root by its internal flags");
		else if (f->cluster != OBJ_NONE)
			snprintf(buf, cap, "kept by its cluster (root %s)", name_of(h, f->cluster, &a));
		else
			snprintf(buf, cap, "kept through a cluster's lists");
		return;
	case FK_DANGLING_REF:
		if (f->gcref) {
			const gc_ref *g = &h->gcrefs[f->edge];
			snprintf(buf, cap, "reference %s of FGCObject %s names free slot %d",
				 g->prop ? heap_str(h, g->prop) : "(unnamed)", heap_str(h, g->referencer), f->other);
		} else {
			const dangling_ref *d = &h->dangling[f->edge];
			snprintf(buf, cap, "%s reference %s names free slot %d", ref_kind_names[d->kind],
				 d->prop ? heap_str(h, d->prop) : "(unnamed)", f->other);
		}
		return;
	case FK_CLUSTER_MISSING_MUTABLE:
	case FK_CLUSTER_MISSING_CLUSTER:
		if (f->edge >= VIA_INHERITED(0)) {
			snprintf(buf, cap, "%s is listed by referenced cluster %s but missing from cluster %s's %s%s",
				 name_of(h, f->other, &a), name_of(h, (obj_t)(f->edge - VIA_INHERITED(0)), &b),
				 name_of(h, f->cluster, &c),
				 f->kind == FK_CLUSTER_MISSING_MUTABLE ? "MutableObjects" : "ReferencedClusters",
				 f->use_after_free ? "; use-after-free: the GC collects it while the referenced cluster's members still reference it" : "");
			return;
		}
		snprintf(buf, cap, "%s -> %s of cluster %s is missing from its %s%s", edge_property(h, f->edge),
			 name_of(h, f->other, &a), name_of(h, f->cluster, &b),
			 f->kind == FK_CLUSTER_MISSING_MUTABLE ? "MutableObjects" : "ReferencedClusters",
			 f->use_after_free ? "; use-after-free: the GC collects it while it is still referenced" : "");
		return;
	case FK_CLUSTER_KEEPS_ALIVE:
		if (f->other == f->idx)
			snprintf(buf, cap, "cluster root alive only through cluster lists: no reference chain reaches it");
		else if (f->other != OBJ_NONE)
			snprintf(buf, cap, "alive only as a member of cluster %s: no reference chain reaches it",
				 name_of(h, f->other, &a));
		else
			snprintf(buf, cap, "alive, but no reference chain from a surviving root reaches it: the GC marked it "
				 "through a cluster's lists, or from a rooted cluster member it then destroyed");
		return;
	case FK_ROOTSET_GARBAGE:
		snprintf(buf, cap, "in the RootSet and marked garbage: it is never collected");
		return;
	case FK_WEAK_UNCLEARED:
		snprintf(buf, cap, "weak reference %s to %s is not cleared though the GC destroys its target: this is "
			 "the engine's behaviour and a real hazard (it clears only weak references of objects it traced, "
			 "never traced the holder, %s, and the reference now points at a destroyed object)",
			 edge_property(h, f->edge), name_of(h, f->other, &a),
			 heap_in_disregard(h, f->idx) ? "a disregard-pool object"
			 : f->cluster == f->idx ? "a cluster root it only marked"
			 : f->cluster != OBJ_NONE ? "a cluster member" : "an object it only marked");
		return;
	case FK_ROOTED_MEMBER_DESTROYED:
		if (h->iflags[f->idx] & (IF_RootSet | IF_RefCounted | IF_INTERNAL_KEEP))
			snprintf(buf, cap, "has a root flag, but nothing reached its cluster's root %s or another member: "
				 "the GC dissolves the cluster and destroys it with the other members", name_of(h, f->cluster, &a));
		else
			snprintf(buf, cap, "kept by KeepFlags, which do not keep a cluster: nothing reached cluster %s's "
				 "root or another member, so the GC destroys it with the other members", name_of(h, f->cluster, &a));
		return;
	case FK_KEEPFLAGS_CLUSTER_ROOT:
		snprintf(buf, cap, "a cluster root kept only by KeepFlags: the GC traces it but never walks its cluster's "
			 "MutableObjects and ReferencedClusters, so they keep nothing");
		return;
	case FK_ROOTED_CLUSTER_DISSOLVED:
		snprintf(buf, cap, "a cluster the GC walks for a root flag (of its root or a member), dissolved before "
			 "tracing because it references cluster %s, dissolved for its garbage root: the engine walks it "
			 "all the same, at cluster index -1 (a checkf crash in development builds, undefined behaviour in "
			 "Shipping); the tool keeps the dissolution", f->other != OBJ_NONE ? name_of(h, f->other, &a) : "(none listed)");
		return;
	case FK_GARBAGE_CLUSTER_MEMBER:
		snprintf(buf, cap, "garbage, but a member of live cluster %s: it survives with the cluster while the GC "
			 "nulls every killable reference to it", name_of(h, f->cluster, &a));
		return;
	case FK_WORLD_LEAK:
		snprintf(buf, cap, "a World the GC keeps that nothing using worlds holds (the GameEngine or GameInstance, "
			 "or a streaming level of a world in use): a world leak, kept from root %s (ugc-analyze worlds "
			 "shows its chain and its cut)", f->other != OBJ_NONE ? name_of(h, f->other, &a)
			 : "(itself, or only through cluster lists)");
		return;
	case FK_EDITOR_MODE_MISMATCH:
		if (f->cluster != OBJ_NONE)
			snprintf(buf, cap, "a snapshot in mode editor with %u clusters: the engine builds clusters only in "
				 "cooked builds, so the snapshot or its mode is wrong", h->nclusters);
		else
			snprintf(buf, cap, "a snapshot in mode editor with a disregard pool (first-gc-index %d): the editor "
				 "has none, so the snapshot or its mode is wrong", h->first_gc_index);
		return;
	case FK_GARBAGE_FLAG_MISMATCH:
		if (h->iflags[f->idx] & IF_Garbage)
			snprintf(buf, cap, "internal flag Garbage without RF_MirroredGarbage: the GC treats it as garbage");
		else
			snprintf(buf, cap, "RF_MirroredGarbage without the internal flag Garbage: the GC does not treat it "
				 "as garbage");
		return;
	}
	snprintf(buf, cap, "?");
}
