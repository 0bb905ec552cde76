/* evolve.c — the snapshot series of evolve.h.  Snapshot 1 is the canonical
 * text of heap 0 after its GC with records appended (objects may follow
 * references in the text format); snapshot 2 is the same text written
 * again without the records that only 1 has (the level's streaming
 * reference, the holders of the re-created objects), then GC'd. */
#include "tools/gen/evolve.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "snapshot/snapshot.h"

typedef struct text {
	char *s;
	size_t len;
	FILE *fp;
} text;

static int text_open(text *t)
{
	memset(t, 0, sizeof *t);
	t->fp = open_memstream(&t->s, &t->len);
	return t->fp ? 0 : -1;
}

static int text_close(text *t)
{
	return fclose(t->fp) ? -1 : 0;
}

static int run_gc_after(heap *h, heap *after)
{
	gc_options opt = {.mode = h->mode, .keep_flags = gc_default_keep_flags(h->mode), .threads = 1};
	gc_result r;
	obj_t stale;
	if (gc_run(h, &opt, &r))
		return -1;
	int rc = gc_after_heap(h, &r, after, &stale);
	gc_result_free(&r);
	return rc;
}

/* Find an object by class name and name (the first in index order). */
static obj_t find_named(const heap *h, const char *cls, const char *name)
{
	char n[HEAP_NAME_MAX], c[HEAP_NAME_MAX];
	for (uint32_t i = 0; i < h->slots; i++) {
		if (h->cls[i] == OBJ_FREE)
			continue;
		heap_name(h, h->cls[i], c, sizeof c);
		heap_name(h, (obj_t)i, n, sizeof n);
		if (strcmp(c, cls) == 0 && strcmp(n, name) == 0)
			return (obj_t)i;
	}
	return OBJ_NONE;
}

/* Slots for new objects: free slots first (ascending), then new ones.  A
 * free slot that a dangling reference names is not reused: the stale
 * pointer would then hold the new object, which the plan does not foresee. */
typedef struct slots {
	const heap *h;
	uint8_t *stale; /* per slot: a dangling reference names it */
	uint32_t next_free, next_new, serial;
} slots;

static obj_t take_slot(slots *s)
{
	while (s->next_free < s->h->slots && (s->h->cls[s->next_free] != OBJ_FREE || s->stale[s->next_free]))
		s->next_free++;
	if (s->next_free < s->h->slots && s->next_free >= (uint32_t)s->h->first_gc_index)
		return (obj_t)s->next_free++;
	return (obj_t)s->next_new++;
}

static void plan_line(FILE *plan, const char *status, const char *cls, const char *path)
{
	fprintf(plan, "%s %s %s\n", status, cls, path);
}

/* The objects of heap 0 (after its GC) that the appended records name. */
typedef struct known {
	obj_t gi, transient;    /* the GameInstance, /Engine/Transient */
	obj_t package, world, level, container, actor, component, mid; /* classes */
} known;

static int find_known(const heap *h, known *k)
{
	k->gi = find_named(h, "GameInstance", "GameInstance_0");
	k->transient = find_named(h, "Package", "/Engine/Transient");
	k->package = find_named(h, "Class", "Package");
	k->world = find_named(h, "Class", "World");
	k->level = find_named(h, "Class", "Level");
	k->container = find_named(h, "Class", "LevelActorContainer");
	k->actor = find_named(h, "Class", "StaticMeshActor");
	k->component = find_named(h, "Class", "StaticMeshComponent");
	k->mid = find_named(h, "Class", "MaterialInstanceDynamic");
	return k->gi < 0 || k->transient < 0 || k->package < 0 || k->world < 0 || k->level < 0 || k->container < 0 ||
		       k->actor < 0 || k->component < 0 || k->mid < 0
		       ? -1
		       : 0;
}

/* The texts of snapshots 1 and 2, written side by side. */
typedef struct series {
	text one, two;
} series;

/* A record in both snapshots. */
static void __attribute__((format(printf, 2, 3))) both(series *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfprintf(t->one.fp, fmt, ap);
	va_end(ap);
	va_start(ap, fmt);
	vfprintf(t->two.fp, fmt, ap);
	va_end(ap);
}

/* A record in snapshot 1 only. */
static void __attribute__((format(printf, 2, 3))) first_only(series *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfprintf(t->one.fp, fmt, ap);
	va_end(ap);
}

/* Slots for new objects, after heap 0's GC (H0): past its serials, not
 * where a dangling reference points. */
static int slots_init(slots *sl, const heap *h0)
{
	uint32_t max_serial = 0;
	for (uint32_t i = 0; i < h0->slots; i++)
		if (h0->serial[i] > max_serial)
			max_serial = h0->serial[i];
	*sl = (slots){h0, calloc((size_t)h0->slots + 1, 1), (uint32_t)h0->first_gc_index, h0->slots, max_serial + 1};
	if (!sl->stale)
		return -1;
	for (uint32_t k = 0; k < h0->ndangling; k++)
		if ((uint32_t)h0->dangling[k].dst < h0->slots)
			sl->stale[h0->dangling[k].dst] = 1;
	for (uint32_t k = 0; k < h0->ngcrefs; k++)
		if (h0->gcrefs[k].dst >= 0 && (uint32_t)h0->gcrefs[k].dst < h0->slots)
			sl->stale[h0->gcrefs[k].dst] = 1;
	return 0;
}

/* The removed: what 0's GC purged; the first two whose Outer and Class
 * survive are re-created ("replaced"), held by the GameInstance in 1 only. */
static void removed_and_recreated(series *t, FILE *plan, slots *sl, const heap *a, const gc_result *r0,
				  const known *k)
{
	int replaced = 0;
	obj_t recreate[2] = {OBJ_NONE, OBJ_NONE};
	const heap *h0 = sl->h;
	for (uint32_t j = 0; j < r0->npurged && replaced < 2; j++) {
		obj_t p = r0->purged[j];
		obj_t outer = a->outer[p];
		if (outer >= 0 && h0->cls[outer] != OBJ_FREE && h0->cls[a->cls[p]] != OBJ_FREE && !heap_is_garbage(a, p))
			recreate[replaced++] = p;
	}
	char name[HEAP_NAME_MAX], cls[HEAP_NAME_MAX];
	for (uint32_t j = 0; j < r0->npurged; j++) {
		obj_t p = r0->purged[j];
		char *path = heap_path(a, p);
		heap_name(a, a->cls[p], cls, sizeof cls);
		plan_line(plan, p == recreate[0] || p == recreate[1] ? "replaced" : "removed", cls, path ? path : "?");
		free(path);
	}
	/* same class, outer and name, another slot and serial */
	for (int j = 0; j < replaced; j++) {
		obj_t p = recreate[j], i = take_slot(sl);
		char enc[3 * HEAP_NAME_MAX];
		heap_name(a, p, name, sizeof name);
		text_escape(name, strlen(name), enc);
		both(t, "o %d %u %d %d %s %u -\n", i, sl->serial++, a->cls[p], a->outer[p], enc, a->size[p]);
		first_only(t, "r %d %d strong Recreated[%d]\n", k->gi, i, j);
	}
}

/* The level loaded in 1 (package, World, PersistentLevel, its actor
 * cluster, NACTORS actors with a component and a material each), streamed
 * by the GameInstance in 1 only.  ACTORS gets the actors' slots. */
static void level(series *t, FILE *plan, slots *sl, const known *k, uint32_t nactors, obj_t *actors)
{
	obj_t pkg = take_slot(sl), world = take_slot(sl), lvl = take_slot(sl), cont = take_slot(sl);
	both(t, "o %d %u %d - /Game/Maps/Evolved 128 RF_Public,RF_WasLoaded\n", pkg, sl->serial++, k->package);
	both(t, "o %d %u %d %d Evolved 30000 RF_Public,RF_WasLoaded\n", world, sl->serial++, k->world, pkg);
	both(t, "o %d %u %d %d PersistentLevel 60000 RF_Public\n", lvl, sl->serial++, k->level, world);
	both(t, "o %d %u %d %d ActorCluster 200 RF_Transient\n", cont, sl->serial++, k->container, lvl);
	both(t, "r %d %d strong PersistentLevel\nr %d %d strong OwningWorld\nr %d %d strong ActorCluster\n", world, lvl,
	     lvl, world, lvl, cont);
	first_only(t, "r %d %d strong StreamingWorlds[99]\n", k->gi, world);
	obj_t *comps = actors + nactors, *mids = actors + 2 * nactors;
	char name[HEAP_NAME_MAX];
	for (uint32_t j = 0; j < nactors; j++) {
		actors[j] = take_slot(sl);
		comps[j] = take_slot(sl);
		mids[j] = take_slot(sl);
		both(t, "o %d %u %d %d StaticMeshActor_%u 2000 RF_WasLoaded\n", actors[j], sl->serial++, k->actor, lvl, j);
		both(t, "o %d %u %d %d StaticMeshComponent_0 1500 RF_DefaultSubObject\n", comps[j], sl->serial++,
		     k->component, actors[j]);
		both(t, "o %d %u %d %d MaterialInstanceDynamic_%u 1024 RF_Transient\n", mids[j], sl->serial++, k->mid,
		     k->transient, 900000 + j);
		both(t, "r %d %d strong Actors[%u]\nr %d %d strong RootComponent\nr %d %d aro OwnedComponents[0]\n", cont,
		     actors[j], j, actors[j], comps[j], actors[j], comps[j]);
		both(t, "r %d %d strong OverrideMaterials[0]\n", comps[j], mids[j]);
		snprintf(name, sizeof name, "/Game/Maps/Evolved.Evolved:PersistentLevel.StaticMeshActor_%u", j);
		plan_line(plan, "added", "StaticMeshActor", name);
		snprintf(name, sizeof name, "/Game/Maps/Evolved.Evolved:PersistentLevel.StaticMeshActor_%u.StaticMeshComponent_0", j);
		plan_line(plan, "added", "StaticMeshComponent", name);
		snprintf(name, sizeof name, "/Engine/Transient.MaterialInstanceDynamic_%u", 900000 + j);
		plan_line(plan, "added", "MaterialInstanceDynamic", name);
	}
	/* the actor cluster, as cluster creation makes it */
	both(t, "c %d ", cont);
	for (uint32_t j = 0; j < nactors; j++)
		both(t, "%s%d,%d", j ? "," : "", actors[j], comps[j]);
	both(t, " %d,%d,%d,%d", lvl, k->actor, k->component, k->mid);
	for (uint32_t j = 0; j < nactors; j++) /* the components' materials */
		both(t, ",%d", mids[j]);
	both(t, " -\n");
	plan_line(plan, "added", "Package", "/Game/Maps/Evolved");
	plan_line(plan, "added", "World", "/Game/Maps/Evolved.Evolved");
	plan_line(plan, "added", "Level", "/Game/Maps/Evolved.Evolved:PersistentLevel");
	plan_line(plan, "added", "LevelActorContainer", "/Game/Maps/Evolved.Evolved:PersistentLevel.ActorCluster");
}

/* The leaks: a debug cache (an FGCObject) keeps materials, the
 * GameInstance keeps widgets that reference the level's actors weakly. */
static void leaks(series *t, FILE *plan, slots *sl, const known *k, uint32_t nactors, const obj_t *actors)
{
	char name[HEAP_NAME_MAX];
	uint32_t nleak = nactors / 4 + 2;
	for (uint32_t j = 0; j < nleak; j++) {
		obj_t mid = take_slot(sl), widget = take_slot(sl);
		both(t, "o %d %u %d %d MaterialInstanceDynamic_%u 4096 RF_Transient\n", mid, sl->serial++, k->mid,
		     k->transient, 950000 + j);
		both(t, "g FLeakyDebugCache %d Cached[%u]\n", mid, j);
		both(t, "o %d %u %d %d HUDWidget_%u 512 RF_Transient\n", widget, sl->serial++, k->mid, k->gi, j);
		both(t, "r %d %d strong Widgets[%u]\nr %d %d weak TrackedActor\n", k->gi, widget, j, widget,
		     actors[j % nactors]);
		snprintf(name, sizeof name, "/Engine/Transient.MaterialInstanceDynamic_%u", 950000 + j);
		plan_line(plan, "added", "MaterialInstanceDynamic", name);
		plan_line(plan, "leaked", "MaterialInstanceDynamic", name);
		snprintf(name, sizeof name, "/Engine/Transient.GameEngine_0:GameInstance_0.HUDWidget_%u", j);
		plan_line(plan, "added", "MaterialInstanceDynamic", name);
		plan_line(plan, "leaked", "MaterialInstanceDynamic", name);
	}
}

/* Snapshots 1 and 2 from their texts: 1 as it is, 2 after its GC. */
static int parse_series(series *t, heap out[3], char *err, size_t errsize)
{
	heap two;
	heap_init(&out[1]);
	heap_init(&two);
	if (text_parse("evolve-1", t->one.s, t->one.len, &out[1], err, errsize) ||
	    text_parse("evolve-2", t->two.s, t->two.len, &two, err, errsize)) {
		heap_free(&two);
		return -1;
	}
	int rc = run_gc_after(&two, &out[2]);
	heap_free(&two);
	if (rc)
		snprintf(err, errsize, "--evolve: the heap after the last GC would hold a dangling Class or Outer "
			 "(cluster lists that omit them); try another seed or drop --broken-clusters");
	return rc ? -1 : 0;
}

/* Heap 0 after its GC into H0 (R0: that GC's result); -1 with ERR. */
static int first_gc(heap *h, gc_result *r0, heap *h0, char *err, size_t errsize)
{
	gc_options gopt = {.mode = h->mode, .keep_flags = gc_default_keep_flags(h->mode), .threads = 1};
	obj_t stale;
	if (gc_run(h, &gopt, r0)) {
		snprintf(err, errsize, "out of memory");
		return -1;
	}
	int built = gc_after_heap(h, r0, h0, &stale);
	if (built) {
		heap_free(h0); /* begun, whatever stopped it */
		gc_result_free(r0);
		snprintf(err, errsize, built == AFTER_STALE ? "--evolve needs consistent cluster lists: the heap after "
			 "the first GC would hold a dangling Outer (drop --broken-clusters)" : "out of memory");
		return -1;
	}
	return 0;
}

int evolve_series(const gen_options *opt, heap out[3], FILE *plan, char *err, size_t errsize)
{
	memset(out, 0, 3 * sizeof *out);
	err[0] = '\0';
	if (gen_heap(opt, &out[0], err, errsize))
		return -1;
	heap h0;
	gc_result r0;
	if (first_gc(&out[0], &r0, &h0, err, errsize)) {
		heap_free(&out[0]);
		return -1;
	}
	known k;
	slots sl = {0};
	series t = {{0}, {0}};
	uint32_t nactors = (uint32_t)(opt->objects / 50) + 8;
	obj_t *actors = malloc(3 * (size_t)nactors * sizeof *actors); /* actors, components, materials */
	int rc = -1;
	if (find_known(&h0, &k)) {
		snprintf(err, errsize, "internal error: the generated heap lacks the classes evolve needs");
	} else if (!actors || slots_init(&sl, &h0) || text_open(&t.one) || text_open(&t.two) ||
		   text_write_records(&h0, t.one.fp) || text_write_records(&h0, t.two.fp)) { /* no end record: more follow */
		snprintf(err, errsize, "out of memory");
	} else {
		removed_and_recreated(&t, plan, &sl, &out[0], &r0, &k);
		level(&t, plan, &sl, &k, nactors, actors);
		leaks(&t, plan, &sl, &k, nactors, actors);
		rc = 0;
	}
	if (t.one.fp && text_close(&t.one))
		rc = -1;
	if (t.two.fp && text_close(&t.two))
		rc = -1;
	if (rc == 0 && parse_series(&t, out, err, errsize))
		rc = -1;
	else if (rc && !err[0])
		snprintf(err, errsize, "out of memory");
	free(t.one.s);
	free(t.two.s);
	free(actors);
	free(sl.stale);
	gc_result_free(&r0);
	heap_free(&h0);
	for (int j = 0; rc && j < 3; j++)
		heap_free(&out[j]);
	return rc;
}
