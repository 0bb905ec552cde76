/* worlds.c — the Worlds in use and the ones leaked (worlds.h states the
 * rules).  Linear: each class's verdict is asked once, each object's World
 * (the nearest World on its Outer chain) is found with a memo, and each
 * round of the streaming rule reads only the references of Worlds and
 * LevelStreaming objects. */
#include "analysis/worlds.h"

#include <stdlib.h>
#include <string.h>

int class_named(const heap *h, obj_t cls, const char *name)
{
	char buf[HEAP_NAME_MAX];
	size_t n = heap_name(h, cls, buf, sizeof buf), k = strlen(name);
	if (n == k && memcmp(buf, name, k) == 0)
		return 1;
	if (n > 2 && buf[n - 2] == '_' && buf[n - 1] == 'C')
		n -= 2; /* a Blueprint class */
	return n > k && buf[n - k - 1] == '_' && memcmp(buf + n - k, name, k) == 0;
}

/* Does class CLS's name end in NAME (a Blueprint's _C aside)?  For the
 * engine's classes a project subclasses as ShooterGameInstance or
 * BP_MyGameInstance_C. */
static int class_ends(const heap *h, obj_t cls, const char *name)
{
	char buf[HEAP_NAME_MAX];
	size_t n = heap_name(h, cls, buf, sizeof buf), k = strlen(name);
	if (n > 2 && buf[n - 2] == '_' && buf[n - 1] == 'C')
		n -= 2;
	return n >= k && memcmp(buf + n - k, name, k) == 0;
}

/* What a class is to the rules: one verdict per class, asked once. */
enum { CLS_UNASKED, CLS_OTHER, CLS_ENGINE, CLS_WORLD, CLS_LEVEL, CLS_STREAMING };

static uint8_t class_kind(const heap *h, obj_t cls)
{
	if (class_ends(h, cls, "GameEngine") || class_ends(h, cls, "EditorEngine") || class_ends(h, cls, "UnrealEdEngine") ||
	    class_ends(h, cls, "GameInstance"))
		return CLS_ENGINE;
	if (class_named(h, cls, "World"))
		return CLS_WORLD;
	if (class_named(h, cls, "Level"))
		return CLS_LEVEL;
	char buf[HEAP_NAME_MAX];
	heap_name(h, cls, buf, sizeof buf);
	return strncmp(buf, "LevelStreaming", 14) == 0 ? CLS_STREAMING : CLS_OTHER;
}

static int is_default(const heap *h, obj_t i)
{
	char name[HEAP_NAME_MAX];
	return heap_name(h, i, name, sizeof name) && strncmp(name, "Default__", 9) == 0;
}

/* The per-object state of one worlds_find. */
typedef struct scan {
	const heap *h;
	uint8_t *kind;     /* per class: CLS_* */
	obj_t *world_of;   /* per object: the nearest World on its Outer chain (itself when a World), or OBJ_NONE */
	obj_t *holder;     /* per World: the holder that put it in use, OBJ_NONE while not */
	uint32_t *via;     /* per World: that holder's reference */
	vec queue;         /* the Worlds put in use, each once: the streaming rule's worklist */
	int oom;
} scan;

static uint8_t kind_of(scan *s, obj_t i)
{
	obj_t c = s->h->cls[i];
	if (!s->kind[c])
		s->kind[c] = class_kind(s->h, c);
	return s->kind[c];
}

/* world_of for every object: a walk up each Outer chain until an object
 * already known, then the answer written down the walked part. */
static int find_world_of(scan *s)
{
	const heap *h = s->h;
	uint8_t *known = calloc((size_t)h->slots + 1, 1);
	vec path = {0};
	int rc = known ? 0 : -1;
	for (uint32_t i = 0; i < h->slots && rc == 0; i++) {
		if (h->cls[i] == OBJ_FREE || known[i])
			continue;
		path.n = 0;
		obj_t x = (obj_t)i, w = OBJ_NONE;
		while (x >= 0 && !known[x] && rc == 0) {
			if (kind_of(s, x) == CLS_WORLD) {
				w = x;
				break;
			}
			rc = vec_push(&path, (uint32_t)x);
			x = h->outer[x];
		}
		if (x >= 0 && w == OBJ_NONE && known[x])
			w = s->world_of[x];
		if (x >= 0 && kind_of(s, x) == CLS_WORLD) {
			s->world_of[x] = x;
			known[x] = 1;
		}
		for (size_t k = 0; k < path.n; k++) {
			s->world_of[path.v[k]] = w;
			known[path.v[k]] = 1;
		}
	}
	free(known);
	vec_free(&path);
	return rc;
}

/* The World a reference to T puts in use: T, a World, or the World a Level
 * T is in (for WORLD_SIDE holders); OBJ_NONE for any other target. */
static obj_t world_named(scan *s, obj_t t, int world_side)
{
	uint8_t k = kind_of(s, t);
	if (k == CLS_WORLD)
		return t;
	return world_side && k == CLS_LEVEL ? s->world_of[t] : OBJ_NONE;
}

/* Put in use the Worlds HOLDER's keeping references name; 1 when one was added. */
static int hold_from(scan *s, const gc_result *r, obj_t holder, int world_side)
{
	const heap *h = s->h;
	int added = 0;
	for (uint32_t k = h->ref_start[holder]; k < h->ref_start[holder + 1]; k++) {
		if (h->ref_kind[k] == REF_WEAK || h->ref_kind[k] == REF_SOFT || !heap_exists(h, h->ref_dst[k]))
			continue;
		obj_t w = world_named(s, h->ref_dst[k], world_side);
		if (w >= 0 && r->reachable[w] && s->holder[w] == OBJ_NONE) {
			s->holder[w] = holder;
			s->via[w] = k;
			added = 1;
			s->oom |= vec_push(&s->queue, (uint32_t)w) != 0;
		}
	}
	return added;
}

int worlds_find(const heap *h, const gc_result *r, world_info **out, uint32_t *n)
{
	*out = NULL;
	*n = 0;
	size_t slots = (size_t)h->slots + 1;
	scan s = {h, calloc(slots, 1), malloc(slots * sizeof(obj_t)), malloc(slots * sizeof(obj_t)),
		  malloc(slots * sizeof(uint32_t)), {0}, 0};
	int rc = s.kind && s.world_of && s.holder && s.via ? 0 : -1;
	for (size_t i = 0; i < slots && rc == 0; i++)
		s.world_of[i] = s.holder[i] = OBJ_NONE;
	if (rc == 0)
		rc = find_world_of(&s);
	/* the engine's side first, then the streaming rule round by round */
	for (uint32_t i = 0; i < h->slots && rc == 0; i++)
		if (h->cls[i] != OBJ_FREE && r->reachable[i] && kind_of(&s, (obj_t)i) == CLS_ENGINE)
			hold_from(&s, r, (obj_t)i, 0);
	/* the streaming rule: each World put in use once, with the LevelStreaming
	 * objects whose nearest World it is (HEAD, NEXT: a list per World) */
	obj_t *head = malloc(slots * sizeof *head), *next = malloc(slots * sizeof *next);
	if (rc == 0 && (!head || !next))
		rc = -1;
	for (size_t i = 0; i < slots && rc == 0; i++)
		head[i] = OBJ_NONE;
	for (uint32_t i = 0; i < h->slots && rc == 0; i++)
		if (h->cls[i] != OBJ_FREE && r->reachable[i] && s.world_of[i] >= 0 && kind_of(&s, (obj_t)i) == CLS_STREAMING) {
			next[i] = head[s.world_of[i]];
			head[s.world_of[i]] = (obj_t)i;
		}
	for (size_t q = 0; q < s.queue.n && rc == 0 && !s.oom; q++) {
		obj_t w = (obj_t)s.queue.v[q];
		hold_from(&s, r, w, 1);
		for (obj_t x = head[w]; x != OBJ_NONE; x = next[x])
			hold_from(&s, r, x, 1);
	}
	if (s.oom)
		rc = -1;
	free(head);
	free(next);
	vec found = {0};
	for (uint32_t i = 0; i < h->slots && rc == 0; i++)
		if (h->cls[i] != OBJ_FREE && r->reachable[i] && !heap_in_disregard(h, (obj_t)i) &&
		    kind_of(&s, (obj_t)i) == CLS_WORLD && !is_default(h, (obj_t)i))
			rc = vec_push(&found, i);
	if (rc == 0 && !(*out = calloc(found.n ? found.n : 1, sizeof **out)))
		rc = -1;
	for (size_t k = 0; k < found.n && rc == 0; k++) {
		obj_t w = (obj_t)found.v[k];
		(*out)[k] = (world_info){w, s.holder[w] == OBJ_NONE, s.holder[w], s.holder[w] == OBJ_NONE ? 0 : s.via[w]};
	}
	if (rc == 0)
		*n = (uint32_t)found.n;
	vec_free(&found);
	free(s.kind);
	free(s.world_of);
	free(s.holder);
	free(s.via);
	vec_free(&s.queue);
	return rc;
}

int objects_under(const heap *h, obj_t top, int self, vec *v)
{
	uint8_t *state = calloc((size_t)h->slots + 1, 1); /* 0 unknown, 1 under TOP, 2 not */
	vec path = {0};
	int rc = state ? 0 : -1;
	if (rc == 0)
		state[top] = 1;
	for (uint32_t i = 0; i < h->slots && rc == 0; i++) {
		if (h->cls[i] == OBJ_FREE)
			continue;
		path.n = 0;
		obj_t x = (obj_t)i;
		while (x >= 0 && !state[x] && rc == 0) {
			rc = vec_push(&path, (uint32_t)x);
			x = h->outer[x];
		}
		uint8_t st = x >= 0 ? state[x] : 2;
		for (size_t k = 0; k < path.n; k++)
			state[path.v[k]] = st;
		if (state[i] == 1 && ((obj_t)i != top || self))
			rc = vec_push(v, i);
	}
	free(state);
	vec_free(&path);
	return rc;
}

int world_contents(const heap *h, obj_t world, vec *v)
{
	return objects_under(h, heap_outermost(h, world), 1, v);
}
