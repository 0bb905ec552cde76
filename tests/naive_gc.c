/* naive_gc.c — the GC spelled out as simply as possible (see naive_gc.h).
 *
 * Same rules and the same documented marking order as analysis/gc.c
 * (breadth-first rounds; in each round the cluster work is done in the
 * order of the references that found it), but with none of its machinery: no work lists, no derived
 * ReferencedByClusters, no parallelism.  Every round scans all objects. */
#include "tests/naive_gc.h"

#include <stdlib.h>
#include <string.h>

enum { K_DISREGARD, K_ROOTSET, K_REFCOUNTED, K_INTERNAL, K_KEEP, K_GCOBJ, K_CLUSTER, K_REFERENCED };
enum { F_ALIVE, F_GARBAGE_ROOT, F_REFS_DISSOLVED, F_UNREACHABLE_ROOT, F_GARBAGE_MUTABLE };

typedef struct naive {
	const heap *h;
	uint8_t *reach, *next, *ever;   /* per slot: marked; to trace next round; ever queued */
	uint8_t *live, *step5, *needs;  /* per cluster */
	uint32_t *queue, qh, qt;        /* clusters awaiting step 5 */
} naive;

static int garbage(const heap *h, obj_t i) /* the Garbage flag alone */
{
	return (h->iflags[i] & IF_Garbage) != 0;
}

static int root_flag(const heap *h, obj_t i) /* KeepFlags are not root flags */
{
	return (h->iflags[i] & (IF_RootSet | IF_RefCounted | IF_INTERNAL_KEEP)) != 0;
}

static int cluster_of(const heap *h, obj_t i) /* by searching the lists, not the column */
{
	for (uint32_t c = 0; c < h->nclusters; c++) {
		if (h->clusters[c].root == i)
			return (int)c;
		for (uint32_t k = 0; k < h->clusters[c].n_members; k++)
			if (h->cluster_items[h->clusters[c].members + k] == i)
				return (int)c;
	}
	return -1;
}

static void queue_step5(naive *n, int c)
{
	if (!n->step5[c]) {
		n->step5[c] = 1;
		n->queue[n->qt++] = (uint32_t)c;
	}
}

static void push(naive *n, obj_t x)
{
	if (!n->ever[x]) {
		n->ever[x] = 1;
		n->next[x] = 1;
	}
}

static void activate(naive *n, int c)
{
	obj_t r = n->h->clusters[c].root;
	if (!n->reach[r]) {
		n->reach[r] = 1;
		queue_step5(n, c);
	}
}

static void drain(naive *n, int *cl_of)
{
	const heap *h = n->h;
	while (n->qh < n->qt) {
		int c = (int)n->queue[n->qh++];
		const cluster *cl = &h->clusters[c];
		for (uint32_t k = 0; k < cl->n_refs; k++) {
			obj_t r = h->cluster_items[cl->refs + k];
			if (garbage(h, r))
				n->needs[c] = 1;
			else
				n->reach[r] = 1;
		}
		for (uint32_t k = 0; k < cl->n_mutables; k++) {
			obj_t t = h->cluster_items[cl->mutables + k];
			if (garbage(h, t)) {
				n->needs[c] = 1;
				continue;
			}
			if (t < h->first_gc_index)
				continue;
			int tc = cl_of[t];
			if (tc >= 0 && n->live[tc] && h->clusters[tc].root != t) {
				activate(n, tc);
			} else if (!n->reach[t]) {
				n->reach[t] = 1;
				push(n, t);
				if (tc >= 0 && n->live[tc])
					queue_step5(n, tc);
			}
		}
		if (n->needs[c])
			for (uint32_t k = 0; k < cl->n_members; k++)
				push(n, h->cluster_items[cl->members + k]);
	}
}

void naive_gc(const heap *h, uint32_t keep, naive_result *out)
{
	size_t s = h->slots + 1, nc = h->nclusters + 1;
	naive n = {h, calloc(s, 1), calloc(s, 1), calloc(s, 1), calloc(nc, 1), calloc(nc, 1), calloc(nc, 1),
		   calloc(nc, sizeof(uint32_t)), 0, 0};
	memset(out, 0, sizeof *out);
	out->reachable = calloc(s, 1);
	out->fate = calloc(nc, 1);
	out->eliminated = calloc(h->nrefs + 1, 1);
	out->h_eliminated = calloc(h->nrefs + 1, 1);
	out->g_eliminated = calloc(h->ngcrefs + 1, 1);
	out->cleared = calloc(h->nrefs + 1, 1);
	out->uncleared = calloc(h->nrefs + 1, 1);
	out->walked = calloc(nc, 1);
	out->traced = calloc(s, 1);
	out->kind = malloc(s);
	out->distance = malloc(s * sizeof *out->distance);
	out->parent = malloc(s * sizeof *out->parent);
	out->via = malloc(s * sizeof *out->via);
	int *cl_of = malloc(s * sizeof *cl_of);
	uint8_t *weak = calloc(h->nrefs + 1, 1), *cur = calloc(s, 1), *gtarget = calloc(s, 1);
	for (uint32_t i = 0; i < h->slots; i++)
		cl_of[i] = h->cls[i] == OBJ_FREE ? -1 : cluster_of(h, (obj_t)i);

	/* step 2 as a fixpoint: dissolve garbage roots, then any cluster listing a dissolved one */
	for (uint32_t c = 0; c < h->nclusters; c++) {
		n.live[c] = !garbage(h, h->clusters[c].root);
		if (!n.live[c])
			out->fate[c] = F_GARBAGE_ROOT;
	}
	for (int changed = 1; changed;) {
		changed = 0;
		for (uint32_t c = 0; c < h->nclusters; c++)
			for (uint32_t k = 0; k < h->clusters[c].n_refs && n.live[c]; k++)
				if (!n.live[cl_of[h->cluster_items[h->clusters[c].refs + k]]]) {
					n.live[c] = 0;
					out->fate[c] = F_REFS_DISSOLVED;
					changed = 1;
				}
	}
	/* a LevelActorContainer dissolved here hands its Actors to its Outer:
	 * hand[pos] is the Level that also holds reference POS, else -1 */
	obj_t *hand = malloc((h->nrefs + 1) * sizeof *hand);
	int any_hand = 0;
	for (uint32_t k = 0; k < h->nrefs; k++)
		hand[k] = OBJ_NONE;
	for (uint32_t c = 0; c < h->nclusters; c++) {
		obj_t root = h->clusters[c].root, cls = h->cls[root];
		if (n.live[c] || h->outer[root] < 0 || h->name_num[cls] != 0 ||
		    strcmp(strtab_get(&h->strings, h->name[cls]), "LevelActorContainer") != 0)
			continue;
		for (uint32_t k = h->ref_start[root]; k < h->ref_start[root + 1]; k++) {
			const char *prop = h->ref_prop[k] ? strtab_get(&h->strings, h->ref_prop[k]) : "";
			if (strncmp(prop, "Actors", 6) == 0) {
				hand[k] = h->outer[root];
				any_hand = 1;
			}
		}
	}
	for (uint32_t i = 0; i < h->slots; i++)
		n.reach[i] = h->cls[i] != OBJ_FREE && ((obj_t)i < h->first_gc_index ||
						       (cl_of[i] >= 0 && n.live[cl_of[i]] && h->clusters[cl_of[i]].root != (obj_t)i));
	/* step 2, kept clusters: a root with a root flag is marked and does step 5;
	 * a member with a root flag makes the cluster do step 5, root unmarked */
	for (uint32_t c = 0; c < h->nclusters; c++) {
		if (!n.live[c])
			continue;
		int keep = root_flag(h, h->clusters[c].root);
		if (keep)
			n.reach[h->clusters[c].root] = 1;
		for (uint32_t k = 0; k < h->clusters[c].n_members; k++)
			keep |= root_flag(h, h->cluster_items[h->clusters[c].members + k]);
		if (keep) {
			queue_step5(&n, (int)c);
			drain(&n, cl_of);
		}
	}
	/* step 3: roots are marked and traced, nothing more */
	for (uint32_t i = 0; i < h->slots; i++) {
		if (h->cls[i] == OBJ_FREE || (obj_t)i < h->first_gc_index)
			continue;
		if (root_flag(h, (obj_t)i) || ((h->oflags[i] & keep) && !garbage(h, (obj_t)i))) {
			n.reach[i] = 1;
			push(&n, (obj_t)i);
		}
	}
	for (uint32_t g = 0; g < h->ngcrefs; g++) {
		obj_t t = h->gcrefs[g].dst;
		if (t < 0 || t >= (obj_t)h->slots || h->cls[t] == OBJ_FREE)
			continue;
		gtarget[t] = 1;
		if (garbage(h, t)) { /* before the pool test */
			out->g_eliminated[g] = 1;
			continue;
		}
		if (t < h->first_gc_index)
			continue;
		int c = cl_of[t];
		if (c >= 0 && n.live[c])
			activate(&n, c);
		else if (!n.reach[t]) {
			n.reach[t] = 1;
			push(&n, t);
		}
		drain(&n, cl_of);
	}
	/* rounds: trace every object queued last round, in index order; cluster
	 * work found on the way is listed in that order and done afterwards */
	uint32_t *req = malloc((h->nrefs + 2 * (size_t)h->slots + 1) * sizeof *req);
	for (;;) {
		uint32_t nreq = 0;
		int any = 0;
		memcpy(cur, n.next, s);
		memset(n.next, 0, s);
		for (uint32_t x = 0; x < h->slots; x++) {
			if (!cur[x])
				continue;
			any = 1;
			/* Class, Outer, its records, then every record handed to it */
			int64_t nown = (int64_t)(h->ref_start[x + 1] - h->ref_start[x]);
			for (int64_t e = -2; e < nown + (any_hand ? (int64_t)h->nrefs : 0); e++) {
				obj_t t;
				int kind, handed = e >= nown;
				uint32_t pos = 0;
				if (e == -2) { t = h->cls[x]; kind = REF_IMMUTABLE; }
				else if (e == -1) { t = h->outer[x]; kind = REF_IMMUTABLE; if (t < 0) continue; }
				else if (!handed) { pos = h->ref_start[x] + (uint32_t)e; t = h->ref_dst[pos]; kind = h->ref_kind[pos]; }
				else {
					pos = (uint32_t)(e - nown);
					if (hand[pos] != (obj_t)x)
						continue;
					t = h->ref_dst[pos];
					kind = REF_ARO;
				}
				if (kind == REF_WEAK) { weak[pos] = 1; continue; }
				if (kind == REF_SOFT)
					continue;
				if (kind != REF_IMMUTABLE && garbage(h, t)) { /* before the pool test */
					if (handed)
						out->h_eliminated[pos] = 1;
					else
						out->eliminated[pos] = 1;
					continue;
				}
				if (t < h->first_gc_index)
					continue;
				int c = cl_of[t];
				if (c >= 0 && n.live[c]) {
					if (!n.reach[h->clusters[c].root])
						req[nreq++] = (uint32_t)c;
				} else if (!n.reach[t]) {
					n.reach[t] = 1;
					push(&n, t);
				}
			}
		}
		if (!any)
			break;
		for (uint32_t k = 0; k < nreq; k++) {
			activate(&n, (int)req[k]);
			drain(&n, cl_of);
		}
	}
	/* step 6: the clusters that need dissolving and, as a fixpoint, every
	 * live cluster whose ReferencedClusters names one of them */
	uint8_t *dis = calloc(nc, 1);
	for (uint32_t c = 0; c < h->nclusters; c++)
		dis[c] = n.live[c] && n.needs[c];
	for (int changed = 1; changed;) {
		changed = 0;
		for (uint32_t c = 0; c < h->nclusters; c++)
			for (uint32_t k = 0; k < h->clusters[c].n_refs && n.live[c] && !dis[c]; k++)
				if (dis[cl_of[h->cluster_items[h->clusters[c].refs + k]]])
					dis[c] = changed = 1;
	}
	for (uint32_t c = 0; c < h->nclusters; c++) {
		if (!n.live[c])
			continue;
		if (n.reach[h->clusters[c].root]) {
			if (dis[c])
				out->fate[c] = n.needs[c] ? F_GARBAGE_MUTABLE : F_REFS_DISSOLVED;
			continue;
		}
		out->fate[c] = F_UNREACHABLE_ROOT;
		for (uint32_t k = 0; k < h->clusters[c].n_members; k++)
			if (h->cluster_items[h->clusters[c].members + k] >= h->first_gc_index)
				n.reach[h->cluster_items[h->clusters[c].members + k]] = 0;
	}
	free(dis);
	memcpy(out->walked, n.step5, nc);
	memcpy(out->traced, n.ever, s);
	for (uint32_t i = 0; i < h->slots; i++)
		out->reachable[i] = h->cls[i] != OBJ_FREE && n.reach[i];
	for (uint32_t k = 0; k < h->nrefs; k++) /* step 7 */
		out->cleared[k] = weak[k] && !out->reachable[h->ref_dst[k]];
	/* weak references never remembered, held by a survivor, to an object that dies */
	for (uint32_t x = 0; x < h->slots; x++)
		for (uint32_t k = h->ref_start[x]; k < h->ref_start[x + 1]; k++)
			out->uncleared[k] = out->reachable[x] && h->ref_kind[k] == REF_WEAK && !weak[k] &&
					    !out->reachable[h->ref_dst[k]];

	/* ugc-gc(7) §3: kinds, then distances level by level; among the
	 * candidates for a parent, the earliest in breadth-first order (rank),
	 * then edge order */
	uint32_t *rank = malloc(s * sizeof *rank), next_rank = 0;
	for (uint32_t i = 0; i < h->slots; i++) {
		out->distance[i] = UINT32_MAX;
		out->parent[i] = OBJ_NONE;
		out->via[i] = UINT32_MAX;
		out->kind[i] = 255;
		rank[i] = UINT32_MAX;
		if (!out->reachable[i])
			continue;
		int k;
		if ((obj_t)i < h->first_gc_index) k = K_DISREGARD;
		else if (h->iflags[i] & IF_RootSet) k = K_ROOTSET;
		else if (h->iflags[i] & IF_RefCounted) k = K_REFCOUNTED;
		else if (h->iflags[i] & IF_INTERNAL_KEEP) k = K_INTERNAL;
		else if ((h->oflags[i] & keep) && !garbage(h, (obj_t)i)) k = K_KEEP;
		else if (gtarget[i] && !garbage(h, (obj_t)i)) k = K_GCOBJ;
		else if (cl_of[i] >= 0 && h->clusters[cl_of[i]].root != (obj_t)i && n.live[cl_of[i]]) k = K_CLUSTER;
		else k = K_REFERENCED;
		out->kind[i] = (uint8_t)k;
		if (k <= K_GCOBJ) {
			out->distance[i] = 0;
			rank[i] = next_rank++;
		}
	}
	for (uint32_t d = 0;; d++) {
		int found = 0;
		/* best candidate edge into each new object: minimal (rank of parent, edge order) */
		uint64_t *best = malloc(s * sizeof *best);
		for (uint32_t i = 0; i < h->slots; i++)
			best[i] = UINT64_MAX;
		for (uint32_t x = 0; x < h->slots; x++) {
			if (out->distance[x] != d || (obj_t)x < h->first_gc_index)
				continue;
			uint32_t nref = h->ref_start[x + 1] - h->ref_start[x];
			/* edge e: 0 Class, 1 Outer, 2.. its records, then the handed-over
			 * ones in position order (e - 2 - nref is the position) */
			for (uint32_t e = 0; e < nref + 2 + (any_hand ? h->nrefs : 0); e++) {
				int handed = e >= nref + 2;
				if (handed && hand[e - 2 - nref] != (obj_t)x)
					continue;
				uint32_t pos = handed ? e - 2 - nref : h->ref_start[x] + e - 2;
				obj_t t = e == 0 ? h->cls[x] : e == 1 ? h->outer[x] : h->ref_dst[pos];
				int kind = e < 2 ? REF_IMMUTABLE : handed ? REF_ARO : h->ref_kind[pos];
				if (t < 0 || t < h->first_gc_index || !out->reachable[t] || out->distance[t] != UINT32_MAX)
					continue;
				if (!(kind == REF_IMMUTABLE || ((kind == REF_STRONG || kind == REF_ARO) && !garbage(h, t))))
					continue;
				uint64_t key = (uint64_t)rank[x] << 32 | e;
				if (key < best[t])
					best[t] = key;
			}
		}
		/* new objects get ranks in order of their best key */
		for (;;) {
			uint32_t pick = UINT32_MAX;
			for (uint32_t t = 0; t < h->slots; t++)
				if (best[t] != UINT64_MAX && (pick == UINT32_MAX || best[t] < best[pick]))
					pick = t;
			if (pick == UINT32_MAX)
				break;
			uint32_t prank = (uint32_t)(best[pick] >> 32), e = (uint32_t)best[pick];
			obj_t par = OBJ_NONE;
			for (uint32_t x = 0; x < h->slots; x++)
				if (rank[x] == prank)
					par = (obj_t)x;
			out->distance[pick] = d + 1;
			out->parent[pick] = par;
			uint32_t nref = h->ref_start[par + 1] - h->ref_start[par];
			out->via[pick] = e < 2 ? e : e >= nref + 2 ? e - nref : h->ref_start[par] + e - 2 + 2;
			rank[pick] = next_rank++;
			best[pick] = UINT64_MAX;
			found = 1;
		}
		free(best);
		if (!found)
			break;
	}
	free(rank);
	free(hand);
	free(req);
	free(weak);
	free(cur);
	free(gtarget);
	free(cl_of);
	free(n.reach); free(n.next); free(n.ever); free(n.live); free(n.step5); free(n.needs); free(n.queue);
}

void naive_free(naive_result *r)
{
	free(r->reachable); free(r->fate); free(r->eliminated); free(r->h_eliminated); free(r->g_eliminated); free(r->cleared);
	free(r->uncleared); free(r->walked); free(r->traced);
	free(r->kind); free(r->distance); free(r->parent); free(r->via);
	memset(r, 0, sizeof *r);
}
