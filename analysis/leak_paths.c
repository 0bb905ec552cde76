/* leak_paths.c — shortest paths from program state on a V8 heap, for leak
 * mode (see leak_paths.h): the walk of retention.c, in the same order,
 * that never enters a system node. */
#include "analysis/leak_paths.h"

#include <stdlib.h>
#include <string.h>

/* Synthetic roots that hold no program state (documented in leak_paths.h
 * and ugc-analyze(1), Leak mode). */
static const char *const system_roots[] = {
	"(Internalized strings)", "(External strings)", "(Startup object cache)", "(Read-only roots)",
	"(Builtins)", "(Compilation cache)", "(Code flusher)", "(Extensions)", NULL,
};

int leak_system_node(const heap *h, obj_t i)
{
	if (!heap_is_v8(h) || !heap_exists(h, i) || heap_in_disregard(h, i))
		return 0;
	const char *cls = heap_str(h, h->name[h->cls[i]]);
	if (strcmp(cls, "(compiled code)") == 0)
		return 1;
	if (strcmp(cls, "(synthetic)") != 0)
		return 0;
	const char *name = heap_str(h, h->name[i]);
	for (int k = 0; system_roots[k]; k++)
		if (strcmp(name, system_roots[k]) == 0)
			return 1;
	return 0;
}

int leak_program_paths(const heap *h, gc_result *r)
{
	if (!heap_is_v8(h) || h->slots == 0 || !r->distance)
		return 0; /* nothing to rewrite (no §3 yet: nothing asks for paths) */
	uint32_t n = h->slots;
	uint32_t *dist = malloc((size_t)n * sizeof *dist), *via = malloc((size_t)n * sizeof *via);
	obj_t *parent = malloc((size_t)n * sizeof *parent), *queue = malloc((size_t)n * sizeof *queue);
	uint8_t *system = malloc(n);
	if (!dist || !via || !parent || !queue || !system) {
		free(dist); free(via); free(parent); free(queue); free(system);
		return -1;
	}
	uint32_t head = 0, tail = 0;
	for (uint32_t i = 0; i < n; i++) {
		system[i] = (uint8_t)leak_system_node(h, (obj_t)i);
		dist[i] = UINT32_MAX;
		parent[i] = OBJ_NONE;
		via[i] = VIA_NONE;
		/* the roots as retention.c takes them: distance 0 there */
		if (r->distance[i] == 0 && !system[i]) {
			dist[i] = 0;
			queue[tail++] = (obj_t)i;
		}
	}
	/* as retention.c walks a heap with no cluster, no Garbage flag and no
	 * Level: Class, Outer, then the references in order */
	while (head < tail) {
		obj_t x = queue[head++];
		if (heap_in_disregard(h, x))
			continue;
		uint32_t d = dist[x] + 1;
		for (uint32_t k = 0; k < 2 + h->ref_start[x + 1] - h->ref_start[x]; k++) {
			obj_t t = k == 0 ? h->cls[x] : k == 1 ? h->outer[x] : h->ref_dst[h->ref_start[x] + k - 2];
			int kind = k < 2 ? REF_IMMUTABLE : h->ref_kind[h->ref_start[x] + k - 2];
			if (t < 0 || heap_in_disregard(h, t) || !r->reachable[t] || dist[t] != UINT32_MAX || system[t] ||
			    !ref_retains(kind, 0))
				continue;
			dist[t] = d;
			parent[t] = x;
			via[t] = k == 0 ? VIA_CLASS : k == 1 ? VIA_OUTER : VIA_REF(h->ref_start[x] + k - 2);
			queue[tail++] = t;
		}
	}
	free(queue);
	free(system);
	free(r->distance);
	free(r->parent);
	free(r->via);
	r->distance = dist;
	r->parent = parent;
	r->via = via;
	return 0;
}
