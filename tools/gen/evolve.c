/* evolve.c — the snapshot series of evolve.h, built by editing the
 * canonical text of a heap: records are appended (objects may follow
 * references in the text format) and one reference line is dropped. */
#include "tools/gen/evolve.h"

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

int evolve_series(const gen_options *opt, heap out[3], FILE *plan, char *err, size_t errsize)
{
	heap h0;
	memset(out, 0, 3 * sizeof *out);
	if (gen_heap(opt, &out[0], err, errsize))
		return -1;
	/* snapshot 1 starts as 0 after its GC: the purged objects are removed */
	gc_options gopt = {.mode = out[0].mode, .keep_flags = gc_default_keep_flags(out[0].mode), .threads = 1};
	gc_result r0;
	obj_t stale;
	int built = gc_run(&out[0], &gopt, &r0) ? -1 : gc_after_heap(&out[0], &r0, &h0, &stale);
	if (built) {
		snprintf(err, errsize, built == AFTER_STALE ? "--evolve needs consistent cluster lists: the heap after "
			 "the first GC would hold a dangling Outer (drop --broken-clusters)" : "out of memory");
		return -1;
	}
	const heap *a = &out[0];
	obj_t gi = find_named(&h0, "GameInstance", "GameInstance_0"), package_cls = find_named(&h0, "Class", "Package");
	obj_t transient = find_named(&h0, "Package", "/Engine/Transient");
	obj_t world_cls = find_named(&h0, "Class", "World"), level_cls = find_named(&h0, "Class", "Level");
	obj_t cont_cls = find_named(&h0, "Class", "LevelActorContainer"), actor_cls = find_named(&h0, "Class", "StaticMeshActor");
	obj_t comp_cls = find_named(&h0, "Class", "StaticMeshComponent"), mid_cls = find_named(&h0, "Class", "MaterialInstanceDynamic");
	if (gi < 0 || package_cls < 0 || transient < 0 || world_cls < 0 || level_cls < 0 || cont_cls < 0 || actor_cls < 0 ||
	    comp_cls < 0 || mid_cls < 0) {
		snprintf(err, errsize, "internal error: the generated heap lacks the classes evolve needs");
		gc_result_free(&r0);
		heap_free(&h0);
		return -1;
	}
	uint32_t max_serial = 0;
	for (uint32_t i = 0; i < h0.slots; i++)
		if (h0.serial[i] > max_serial)
			max_serial = h0.serial[i];
	slots sl = {&h0, calloc((size_t)h0.slots + 1, 1), (uint32_t)h0.first_gc_index, h0.slots, max_serial + 1};
	if (!sl.stale) {
		snprintf(err, errsize, "out of memory");
		return -1;
	}
	for (uint32_t k = 0; k < h0.ndangling; k++)
		if ((uint32_t)h0.dangling[k].dst < h0.slots)
			sl.stale[h0.dangling[k].dst] = 1;
	for (uint32_t k = 0; k < h0.ngcrefs; k++)
		if (h0.gcrefs[k].dst >= 0 && (uint32_t)h0.gcrefs[k].dst < h0.slots)
			sl.stale[h0.gcrefs[k].dst] = 1;
	text t1, extra;
	if (text_open(&t1) || text_write_records(&h0, t1.fp) || text_open(&extra)) { /* records follow: no end record */
		snprintf(err, errsize, "out of memory");
		return -1;
	}
	FILE *x = extra.fp;
	/* the removed: what 0's GC purged (the re-created ones are "replaced") */
	int replaced = 0;
	obj_t recreate[2] = {OBJ_NONE, OBJ_NONE};
	for (uint32_t k = 0; k < r0.npurged && replaced < 2; k++) {
		obj_t p = r0.purged[k];
		obj_t outer = a->outer[p];
		if (outer >= 0 && h0.cls[outer] != OBJ_FREE && h0.cls[a->cls[p]] != OBJ_FREE && !heap_is_garbage(a, p))
			recreate[replaced++] = p;
	}
	char name[HEAP_NAME_MAX], cls[HEAP_NAME_MAX];
	for (uint32_t k = 0; k < r0.npurged; k++) {
		obj_t p = r0.purged[k];
		char *path = heap_path(a, p);
		heap_name(a, a->cls[p], cls, sizeof cls);
		plan_line(plan, p == recreate[0] || p == recreate[1] ? "replaced" : "removed", cls, path ? path : "?");
		free(path);
	}
	/* re-created objects: same class, outer and name, another slot and serial;
	 * held by the GameInstance so that they survive */
	for (int k = 0; k < replaced; k++) {
		obj_t p = recreate[k], i = take_slot(&sl);
		char enc[3 * HEAP_NAME_MAX];
		heap_name(a, p, name, sizeof name);
		text_escape(name, strlen(name), enc);
		fprintf(x, "o %d %u %d %d %s %u -\nr %d %d strong Recreated[%d]\n", i, sl.serial++, a->cls[p], a->outer[p],
			enc, a->size[p], gi, i, k);
	}
	/* the level: package, World, PersistentLevel, ActorCluster and actors */
	obj_t pkg = take_slot(&sl), world = take_slot(&sl), level = take_slot(&sl), cont = take_slot(&sl);
	fprintf(x, "o %d %u %d - /Game/Maps/Evolved 128 RF_Public,RF_WasLoaded\n", pkg, sl.serial++, package_cls);
	fprintf(x, "o %d %u %d %d Evolved 30000 RF_Public,RF_WasLoaded\n", world, sl.serial++, world_cls, pkg);
	fprintf(x, "o %d %u %d %d PersistentLevel 60000 RF_Public\n", level, sl.serial++, level_cls, world);
	fprintf(x, "o %d %u %d %d ActorCluster 200 RF_Transient\n", cont, sl.serial++, cont_cls, level);
	fprintf(x, "r %d %d strong PersistentLevel\nr %d %d strong OwningWorld\nr %d %d strong ActorCluster\n", world, level,
		level, world, level, cont);
	fprintf(x, "r %d %d strong StreamingWorlds[99]\n", gi, world);
	uint32_t nactors = (uint32_t)(opt->objects / 50) + 8;
	obj_t *actors = malloc(nactors * sizeof *actors), *comps = malloc(nactors * sizeof *comps);
	obj_t *mids = malloc(nactors * sizeof *mids);
	if (!actors || !comps || !mids) {
		free(actors);
		free(comps);
		free(mids);
		snprintf(err, errsize, "out of memory");
		return -1;
	}
	for (uint32_t k = 0; k < nactors; k++) {
		actors[k] = take_slot(&sl);
		comps[k] = take_slot(&sl);
		obj_t mid = mids[k] = take_slot(&sl);
		fprintf(x, "o %d %u %d %d StaticMeshActor_%u 2000 RF_WasLoaded\n", actors[k], sl.serial++, actor_cls, level, k);
		fprintf(x, "o %d %u %d %d StaticMeshComponent_0 1500 RF_DefaultSubObject\n", comps[k], sl.serial++, comp_cls,
			actors[k]);
		fprintf(x, "o %d %u %d %d MaterialInstanceDynamic_%u 1024 RF_Transient\n", mid, sl.serial++, mid_cls,
			transient, 900000 + k);
		fprintf(x, "r %d %d strong Actors[%u]\nr %d %d strong RootComponent\nr %d %d aro OwnedComponents[0]\n", cont,
			actors[k], k, actors[k], comps[k], actors[k], comps[k]);
		fprintf(x, "r %d %d strong OverrideMaterials[0]\n", comps[k], mid);
		snprintf(name, sizeof name, "/Game/Maps/Evolved.Evolved:PersistentLevel.StaticMeshActor_%u", k);
		plan_line(plan, "added", "StaticMeshActor", name);
		snprintf(name, sizeof name, "/Game/Maps/Evolved.Evolved:PersistentLevel.StaticMeshActor_%u.StaticMeshComponent_0", k);
		plan_line(plan, "added", "StaticMeshComponent", name);
		snprintf(name, sizeof name, "/Engine/Transient.MaterialInstanceDynamic_%u", 900000 + k);
		plan_line(plan, "added", "MaterialInstanceDynamic", name);
	}
	/* the actor cluster, as cluster creation makes it */
	fprintf(x, "c %d ", cont);
	for (uint32_t k = 0; k < nactors; k++)
		fprintf(x, "%s%d,%d", k ? "," : "", actors[k], comps[k]);
	fprintf(x, " %d,%d,%d,%d", level, actor_cls, comp_cls, mid_cls);
	for (uint32_t k = 0; k < nactors; k++) /* the components' materials */
		fprintf(x, ",%d", mids[k]);
	fprintf(x, " -\n");
	plan_line(plan, "added", "Package", "/Game/Maps/Evolved");
	plan_line(plan, "added", "World", "/Game/Maps/Evolved.Evolved");
	plan_line(plan, "added", "Level", "/Game/Maps/Evolved.Evolved:PersistentLevel");
	plan_line(plan, "added", "LevelActorContainer", "/Game/Maps/Evolved.Evolved:PersistentLevel.ActorCluster");
	/* the leaks: a debug cache (an FGCObject) keeps MIDs, the GameInstance keeps widgets */
	uint32_t nleak = nactors / 4 + 2;
	for (uint32_t k = 0; k < nleak; k++) {
		obj_t mid = take_slot(&sl), widget = take_slot(&sl);
		fprintf(x, "o %d %u %d %d MaterialInstanceDynamic_%u 4096 RF_Transient\n", mid, sl.serial++, mid_cls, transient,
			950000 + k);
		fprintf(x, "g FLeakyDebugCache %d Cached[%u]\n", mid, k);
		fprintf(x, "o %d %u %d %d HUDWidget_%u 512 RF_Transient\n", widget, sl.serial++, mid_cls, gi, k);
		fprintf(x, "r %d %d strong Widgets[%u]\nr %d %d weak TrackedActor\n", gi, widget, k, widget, actors[k % nactors]);
		snprintf(name, sizeof name, "/Engine/Transient.MaterialInstanceDynamic_%u", 950000 + k);
		plan_line(plan, "added", "MaterialInstanceDynamic", name);
		plan_line(plan, "leaked", "MaterialInstanceDynamic", name);
		snprintf(name, sizeof name, "/Engine/Transient.GameEngine_0:GameInstance_0.HUDWidget_%u", k);
		plan_line(plan, "added", "MaterialInstanceDynamic", name);
		plan_line(plan, "leaked", "MaterialInstanceDynamic", name);
	}
	free(actors);
	free(comps);
	free(mids);
	int rc = text_close(&extra);
	fputs(extra.s, t1.fp);
	rc |= text_close(&t1);
	/* snapshot 1, and 2: the same text without the level's streaming
	 * reference and the holders of the re-created objects */
	char line[64];
	snprintf(line, sizeof line, "r %d %d strong StreamingWorlds[99]\n", gi, world);
	char *cut = strstr(t1.s, line);
	heap h2pre;
	heap_init(&out[1]);
	if (rc || !cut || text_parse("evolve-1", t1.s, t1.len, &out[1], err, errsize)) {
		if (!err[0] || rc || !cut)
			snprintf(err, errsize, "internal error building the evolved heap");
		rc = -1;
	} else {
		memmove(cut, cut + strlen(line), strlen(cut + strlen(line)) + 1);
		for (int k = 0; k < replaced; k++) {
			char holder[64];
			snprintf(holder, sizeof holder, " strong Recreated[%d]\n", k);
			char *h = strstr(t1.s, holder);
			if (h) { /* back to the start of the line, drop it */
				char *start = h;
				while (start > t1.s && start[-1] != '\n')
					start--;
				char *end = h + strlen(holder);
				memmove(start, end, strlen(end) + 1);
			}
		}
		heap_init(&h2pre);
		if (text_parse("evolve-2", t1.s, strlen(t1.s), &h2pre, err, errsize))
			rc = -1;
		else if (run_gc_after(&h2pre, &out[2])) {
			snprintf(err, errsize, "--evolve: the heap after the last GC would hold a dangling Class or Outer "
				 "(cluster lists that omit them); try another seed or drop --broken-clusters");
			rc = -1;
		}
		heap_free(&h2pre);
	}
	free(t1.s);
	free(extra.s);
	free(sl.stale);
	gc_result_free(&r0);
	heap_free(&h0);
	return rc;
}
