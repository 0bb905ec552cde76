/* refdump.c — the reference dumper: an engine-like UObject heap built in
 * memory and captured through libugccapture the way the UE 5.5 plugin
 * (engine/UE5/UgcCapture) captures a real one, so the library's use by an
 * engine is tested end to end here (tests/capture.sh analyses its output).
 *
 * The heap is a small game: native classes in the disregard pool, the
 * transient package with the rooted GameEngine, a map (World, PersistentLevel)
 * whose Level lists N enemies, each with a mesh component using a clustered
 * StaticMesh asset; every fourth enemy has been destroyed (Garbage), an
 * unused material is referenced only by TSoftObjectPtr members, and an
 * FGCObject holds the mesh.  After the enemies come five objects that each
 * test one rule of the capture: a GameViewportClient held only by a
 * skip-serialization member, a pooled component held only by a struct's
 * AddStructReferencedObjects, an enemy being async-loaded, an actor still
 * under construction, and an instance-data object held by the FGCObject
 * referencer's own AddReferencedObjects (no FGCObject holds it).
 * Like the engine: an object array of items (object, internal flags, serial,
 * cluster index), objects whose class carries its reflected members (name,
 * type, CPF_SkipSerialization) that the GC's schema and a serializing archive
 * walk, AddReferencedObjects callbacks reporting through a collector (which
 * may register weak references for clearing), a registry of FGCObjects, and
 * a cluster container.
 *
 * Usage: ugc-refdump [--enemies N] [--zstd LEVEL] [--force] [--no-garbage-elimination] OUT.ugct */
#include "ugc_capture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- the engine-like heap ---- */

struct uobject;
struct collector;

/* The type of a reflected pointer member. */
typedef enum field_type {
	F_OBJECT,  /* TObjectPtr<>: in the GC's schema, a strong reference */
	F_WEAKPTR, /* TWeakObjectPtr<>: not in the schema; keeps nothing alive, never cleared */
	F_SOFTPTR  /* TSoftObjectPtr<>: a path; resolving it caches a weak pointer */
} field_type;

#define NFIELDS 4

/* A class's reflected members: up to NFIELDS pointer members, each with its
 * name, type and whether it is CPF_SkipSerialization (SerializeBin skips it,
 * the GC's schema does not), and one array member; a struct member whose
 * AddStructReferencedObjects reports through the collector; and the class's
 * AddReferencedObjects. */
typedef struct schema {
	const char *field_name[NFIELDS];
	field_type field_type[NFIELDS];
	int field_skip_serialization[NFIELDS];
	const char *array_name; /* a TArray<TObjectPtr<>> member, strong */
	void (*struct_aro)(struct uobject *self, struct collector *c);
	void (*aro)(struct uobject *self, struct collector *c);
} schema;

/* A UObject: what UObjectBase holds, plus its pointer members. */
typedef struct uobject {
	int32_t index;            /* InternalIndex (GetUniqueID) */
	struct uobject *cls;      /* GetClass() */
	struct uobject *outer;    /* GetOuter() */
	const char *name;         /* GetFName(), with its number */
	char name_buf[48];
	uint32_t flags;           /* EObjectFlags */
	uint32_t size;            /* FArchiveCountMem + resource size */
	const schema *class_schema; /* on a UClass: the schema of its instances */
	struct uobject *field[NFIELDS];
	struct uobject **array;
	int narray;
	struct uobject *aro_held;    /* what this object's AddReferencedObjects reports */
	struct uobject *aro_weak;    /* what it registers for clearing (MarkWeakObjectReferenceForClearing) */
	struct uobject *struct_held; /* what its struct member's AddStructReferencedObjects reports */
} uobject;

/* An FUObjectItem of the object array. */
typedef struct item {
	uobject *object;
	uint32_t internal_flags; /* EInternalObjectFlags */
	uint32_t serial;         /* 0 when none was assigned */
} item;

/* An FUObjectCluster. */
typedef struct ucluster {
	int32_t root;
	int32_t objects[4], mutables[4], referenced[4];
	int nobjects, nmutables, nreferenced;
} ucluster;

/* An FGCObject: a name and what its AddReferencedObjects reports. */
typedef struct gcobject {
	const char *name;
	uobject *held;
	const char *member;
} gcobject;

typedef struct engine {
	item *items;
	int32_t num, cap;
	int32_t first_gc_index;
	ucluster clusters[1];
	int nclusters;
	gcobject gcobjects[1];
	int ngcobjects;
	uobject *referencer_own[1]; /* what UGCObjectReferencer's own Super::AddReferencedObjects reports */
	int nreferencer_own;
	int garbage_elimination;    /* UObjectBaseUtility::IsGarbageEliminationEnabled() */
} engine;

/* The FReferenceCollector the capture hands to AddReferencedObjects and to
 * the property walk: HandleObjectReference with the FProperty (or none) and
 * MarkWeakObjectReferenceForClearing. */
typedef struct collector {
	ugc_writer *w;
	int32_t from;
	int property_walk; /* 1: AddPropertyReferencesWithStructARO; 0: CallAddReferencedObjects */
	int rc;
} collector;

/* HandleObjectReference: in the property walk a reference with a member is
 * that member's (strong), one without comes from a struct's
 * AddStructReferencedObjects (aro); in AddReferencedObjects all are aro. */
static void collector_add(collector *c, uobject *o, const char *member)
{
	if (o && c->rc == UGC_OK)
		c->rc = ugc_writer_ref(c->w, c->from, o->index, c->property_walk && member ? UGC_REF_STRONG : UGC_REF_ARO,
				       member);
}

/* MarkWeakObjectReferenceForClearing: a weak reference, with no member name. */
static void collector_weak(collector *c, uobject *o)
{
	if (o && c->rc == UGC_OK)
		c->rc = ugc_writer_ref(c->w, c->from, o->index, UGC_REF_WEAK, NULL);
}

static void world_list_aro(uobject *self, collector *c)
{
	collector_add(c, self->aro_held, "WorldList[0].ThisCurrentWorld");
}

/* FWorldPSCPool-like: a struct that reports its pooled components itself. */
static void psc_pool_struct_aro(uobject *self, collector *c)
{
	collector_add(c, self->struct_held, NULL);
}

/* An actor's AddReferencedObjects that registers a raw pointer for clearing,
 * as BlueprintGeneratedClass does. */
static void enemy_aro(uobject *self, collector *c)
{
	collector_weak(c, self->aro_weak);
}

#define NO_FIELDS {NULL, NULL, NULL, NULL}, {F_OBJECT, F_OBJECT, F_OBJECT, F_OBJECT}, {0, 0, 0, 0}
static const schema no_refs = {NO_FIELDS, NULL, NULL, NULL};
/* GameViewport is CPF_SkipSerialization (Transient, DuplicateTransient) */
static const schema engine_schema = {{"GameInstance", "GameViewport", NULL, NULL}, {F_OBJECT, F_OBJECT, F_OBJECT, F_OBJECT},
				     {0, 1, 0, 0}, NULL, NULL, world_list_aro};
static const schema world_schema = {{"PersistentLevel", NULL, NULL, NULL}, {F_OBJECT, F_OBJECT, F_OBJECT, F_OBJECT},
				    {0, 0, 0, 0}, NULL, psc_pool_struct_aro, NULL};
static const schema level_schema = {NO_FIELDS, "Actors", NULL, NULL};
/* LastAttacker: a TWeakObjectPtr UPROPERTY; Skin: a TSoftObjectPtr; Cached:
 * a TWeakObjectPtr that is CPF_SkipSerialization (not seen by SerializeBin) */
static const schema enemy_schema = {{"Mesh", "LastAttacker", "Skin", "Cached"}, {F_OBJECT, F_WEAKPTR, F_SOFTPTR, F_WEAKPTR},
				    {0, 0, 0, 1}, NULL, NULL, enemy_aro};
static const schema component_schema = {{"StaticMesh", NULL, NULL, NULL}, {F_OBJECT, F_OBJECT, F_OBJECT, F_OBJECT},
					{0, 0, 0, 0}, NULL, NULL, NULL};
static const schema mesh_schema = {NO_FIELDS, "Materials", NULL, NULL};

/* NewObject: the next slot of the object array. */
static uobject *new_object(engine *e, uobject *cls, uobject *outer, const char *name, uint32_t size,
			   uint32_t flags, uint32_t internal_flags)
{
	if (e->num == e->cap) {
		e->cap = e->cap ? e->cap * 2 : 64;
		item *it = realloc(e->items, (size_t)e->cap * sizeof *it);
		if (!it) {
			fprintf(stderr, "ugc-refdump: out of memory\n");
			exit(1);
		}
		e->items = it;
	}
	uobject *o = calloc(1, sizeof *o);
	if (!o) {
		fprintf(stderr, "ugc-refdump: out of memory\n");
		exit(1);
	}
	o->index = e->num;
	o->cls = cls ? cls : o; /* the class Class is its own class */
	o->outer = outer;
	snprintf(o->name_buf, sizeof o->name_buf, "%s", name);
	o->name = o->name_buf;
	o->size = size;
	o->flags = flags;
	/* serials are assigned lazily by the engine: only some objects have one */
	e->items[e->num] = (item){o, internal_flags, (uint32_t)(e->num % 3 ? e->num + 1000 : 0)};
	e->num++;
	return o;
}

static uobject *native_class(engine *e, uobject *cls, uobject *pkg, const char *name, const schema *s)
{
	uobject *c = new_object(e, cls, pkg, name, 512, 0, UGC_IF_Native);
	c->class_schema = s;
	return c;
}

#define RF_Public 0x1u
#define RF_Standalone 0x2u
#define RF_Transient 0x40u
#define RF_DefaultSubObject 0x40000u
#define RF_WasLoaded 0x80000u
#define RF_MirroredGarbage 0x40000000u

/* Build the game described at the top of the file with N enemies. */
static void build(engine *e, int n)
{
	/* natives: the disregard pool */
	uobject *core = new_object(e, NULL, NULL, "/Script/CoreUObject", 64, RF_Public, UGC_IF_Native);
	uobject *klass = native_class(e, NULL, core, "Class", &no_refs);
	core->cls = klass;
	klass->cls = klass;
	native_class(e, klass, core, "Object", &no_refs);
	uobject *package = native_class(e, klass, core, "Package", &no_refs);
	core->cls = package;
	uobject *script = new_object(e, package, NULL, "/Script/Engine", 64, RF_Public, UGC_IF_Native);
	uobject *world_c = native_class(e, klass, script, "World", &world_schema);
	uobject *level_c = native_class(e, klass, script, "Level", &level_schema);
	uobject *engine_c = native_class(e, klass, script, "GameEngine", &engine_schema);
	uobject *instance_c = native_class(e, klass, script, "GameInstance", &no_refs);
	uobject *enemy_c = native_class(e, klass, script, "EnemyCharacter", &enemy_schema);
	uobject *component_c = native_class(e, klass, script, "StaticMeshComponent", &component_schema);
	uobject *mesh_c = native_class(e, klass, script, "StaticMesh", &mesh_schema);
	uobject *material_c = native_class(e, klass, script, "Material", &no_refs);
	e->first_gc_index = e->num;

	uobject *transient = new_object(e, package, NULL, "/Engine/Transient", 100, RF_Transient, UGC_IF_RootSet);
	uobject *gengine = new_object(e, engine_c, transient, "GameEngine_0", 4000, RF_Transient, UGC_IF_RootSet);
	gengine->field[0] = new_object(e, instance_c, gengine, "GameInstance_0", 900, RF_Transient, 0);
	uobject *map = new_object(e, package, NULL, "/Game/Maps/Arena", 100, RF_Public | RF_WasLoaded, 0);
	uobject *world = new_object(e, world_c, map, "Arena", 20000, RF_Public | RF_Standalone | RF_WasLoaded, 0);
	gengine->aro_held = world;
	uobject *level = new_object(e, level_c, world, "PersistentLevel", 10000, RF_WasLoaded, 0);
	world->field[0] = level;
	uobject *mesh_pkg = new_object(e, package, NULL, "/Game/Meshes/SM_Rock", 100, RF_Public | RF_WasLoaded, 0);
	uobject *mesh = new_object(e, mesh_c, mesh_pkg, "SM_Rock", 300000, RF_Public | RF_Standalone | RF_WasLoaded,
				   UGC_IF_ClusterRoot);
	uobject *mat_pkg = new_object(e, package, NULL, "/Game/Materials/M_Rock", 100, RF_Public | RF_WasLoaded, 0);
	uobject *mat = new_object(e, material_c, mat_pkg, "M_Rock", 7000, RF_Public | RF_Standalone | RF_WasLoaded,
				  UGC_IF_ReachableInCluster);
	mesh->array = malloc(sizeof *mesh->array);
	mesh->array[0] = mat;
	mesh->narray = 1;
	uobject *unused_pkg = new_object(e, package, NULL, "/Game/Materials/M_Unused", 100, RF_Public | RF_WasLoaded, 0);
	uobject *unused = new_object(e, material_c, unused_pkg, "M_Unused", 5000, RF_Public | RF_Standalone | RF_WasLoaded, 0);

	/* the asset cluster: SM_Rock with its material; the packages its
	 * members' Outer references reach are its mutable objects */
	ucluster *c = &e->clusters[e->nclusters++];
	memset(c, 0, sizeof *c);
	c->root = mesh->index;
	c->objects[c->nobjects++] = mat->index;
	c->mutables[c->nmutables++] = mesh_pkg->index;
	c->mutables[c->nmutables++] = mat_pkg->index;
	c->referenced[c->nreferenced++] = -1; /* the engine's null entry */

	e->gcobjects[e->ngcobjects++] = (gcobject){"FStreamableManager", mesh, "ManagedHandles[0]"};

	level->array = malloc((size_t)n * sizeof *level->array);
	level->narray = n;
	uobject **enemies = malloc((size_t)n * sizeof *enemies);
	if (!level->array || !enemies) {
		fprintf(stderr, "ugc-refdump: out of memory\n");
		exit(1);
	}
	for (int i = 0; i < n; i++) {
		char name[48];
		snprintf(name, sizeof name, "BP_Enemy_C_%d", i);
		/* Destroy() marks actor and components as garbage: MarkAsGarbage sets
		 * the internal flag and its mirror RF_MirroredGarbage */
		int dead = i % 4 == 3;
		uint32_t garbage = dead ? UGC_IF_Garbage : 0, mirrored = dead ? RF_MirroredGarbage : 0;
		uobject *enemy = new_object(e, enemy_c, level, name, 1200, RF_Transient | mirrored, garbage);
		uobject *comp = new_object(e, component_c, enemy, "StaticMeshComponent0", 800,
					   RF_Transient | RF_DefaultSubObject | mirrored, garbage);
		comp->field[0] = mesh;
		enemy->field[0] = comp;
		enemy->field[2] = unused;
		enemy->field[3] = mesh;
		level->array[i] = enemy;
		enemies[i] = enemy;
	}
	for (int i = 0; i < n; i++) {
		enemies[i]->aro_weak = enemies[(i + 1) % n];          /* Target, registered for clearing */
		enemies[i]->field[1] = enemies[(i + n - 1) % n];      /* LastAttacker, a TWeakObjectPtr */
	}

	/* the five objects after the enemies (indexes 25 + 2N ...) */
	gengine->field[1] = new_object(e, instance_c, gengine, "GameViewportClient_0", 700, RF_Transient, 0);
	world->struct_held = new_object(e, component_c, world, "PSCPool_Component0", 800, RF_Transient, 0);
	world->struct_held->field[0] = mesh;
	/* still being loaded and still being constructed: their members are set,
	 * but the capture writes neither their references nor their sizes */
	uobject *loading = new_object(e, enemy_c, level, "BP_Enemy_C_Loading", 1200, RF_WasLoaded, UGC_IF_AsyncLoadingPhase1);
	loading->field[0] = world->struct_held;
	loading->field[1] = enemies[0];
	loading->aro_weak = enemies[0];
	uobject *constructing = new_object(e, enemy_c, level, "BP_Enemy_C_New", 1200, RF_Transient,
					   UGC_IF_PendingConstruction | UGC_IF_Async);
	constructing->field[0] = world->struct_held;
	e->referencer_own[e->nreferencer_own++] = new_object(e, instance_c, transient, "InstanceData_0", 300, RF_Transient, 0);
	free(enemies);
}

static void destroy(engine *e)
{
	for (int32_t i = 0; i < e->num; i++) {
		free(e->items[i].object->array);
		free(e->items[i].object);
	}
	free(e->items);
}

/* ---- the capture: what the plugin does, step by step ---- */

static int capture_object(ugc_writer *w, const item *it)
{
	const uobject *o = it->object;
	ugc_object rec = {o->index, it->serial, o->cls->index, o->outer ? o->outer->index : UGC_NONE, o->name, o->size,
			  o->flags, it->internal_flags, 0};
	/* still being constructed or loaded (the engine's iterators skip such
	 * objects): the record, but neither its references nor its size */
	int skip = (it->internal_flags & (UGC_IF_PendingConstruction | UGC_IF_AsyncLoadingPhase1 |
					  UGC_IF_AsyncLoadingPhase2 | UGC_IF_Unreachable)) != 0;
	if (skip)
		rec.size = 0;
	int rc = ugc_writer_object(w, &rec);
	if (rc || skip)
		return rc;
	if (rc)
		return rc;
	const schema *s = o->cls->class_schema;
	/* 1. what the GC's schema walks (the plugin:
	 * AddPropertyReferencesWithStructARO): every object member, those
	 * SerializeBin skips included, named by their FProperty (an array by the
	 * array member, not the element), then the struct's own
	 * AddStructReferencedObjects, unnamed; weak and soft members not at all */
	collector c = {w, o->index, 1, UGC_OK};
	for (int k = 0; k < NFIELDS && c.rc == UGC_OK; k++)
		if (s->field_name[k] && s->field_type[k] == F_OBJECT)
			collector_add(&c, o->field[k], s->field_name[k]);
	for (int k = 0; k < o->narray && c.rc == UGC_OK; k++)
		collector_add(&c, o->array[k], s->array_name);
	if (s->struct_aro)
		s->struct_aro((uobject *)o, &c);
	/* 2. TWeakObjectPtr members (the plugin: SerializeBin with an archive
	 * whose operator<<(FWeakObjectPtr&) reads Get(true)): "soft", as they
	 * keep nothing alive and the GC does not clear them; skip-serialization
	 * members are not serialized, and TSoftObjectPtr members are not read
	 * (resolving one would cache a weak pointer) */
	for (int k = 0; k < NFIELDS && c.rc == UGC_OK; k++)
		if (s->field_name[k] && s->field_type[k] == F_WEAKPTR && !s->field_skip_serialization[k] && o->field[k])
			c.rc = ugc_writer_ref(w, o->index, o->field[k]->index, UGC_REF_SOFT, s->field_name[k]);
	/* 3. AddReferencedObjects through the collector: aro, and weak for
	 * what it registers for clearing */
	c.property_walk = 0;
	if (s->aro)
		s->aro((uobject *)o, &c);
	return c.rc;
}

static int capture(const engine *e, ugc_writer *w, int n)
{
	char label[64];
	snprintf(label, sizeof label, "ugc-refdump --enemies %d", n);
	int rc;
	/* the plugin: the engine version, the build configuration and game or
	 * editor; whether this run eliminates references to garbage */
	if ((rc = ugc_writer_engine(w, "5.5.1 (reference dumper; Development, game)")) || (rc = ugc_writer_mode(w, 0)) ||
	    (rc = ugc_writer_first_gc_index(w, e->first_gc_index)) || (rc = ugc_writer_label(w, label)) ||
	    (rc = ugc_writer_garbage_elimination(w, e->garbage_elimination)))
		return rc;
	for (int32_t i = 0; i < e->num; i++)
		if (e->items[i].object && (rc = capture_object(w, &e->items[i])))
			return rc;
	for (int g = 0; g < e->ngcobjects; g++)
		if ((rc = ugc_writer_gcref(w, e->gcobjects[g].name, e->gcobjects[g].held->index, e->gcobjects[g].member)))
			return rc;
	/* the referencer's own Super::AddReferencedObjects, asked while no
	 * FGCObject is: the GC names their holder "Unknown" */
	for (int g = 0; g < e->nreferencer_own; g++)
		if ((rc = ugc_writer_gcref(w, "Unknown", e->referencer_own[g]->index, NULL)))
			return rc;
	for (int k = 0; k < e->nclusters; k++) {
		const ucluster *c = &e->clusters[k];
		if ((rc = ugc_writer_cluster(w, c->root, c->objects, (size_t)c->nobjects, c->mutables, (size_t)c->nmutables,
					     c->referenced, (size_t)c->nreferenced)))
			return rc;
	}
	return UGC_OK;
}

static int usage(FILE *f, int rc)
{
	fprintf(f, "usage: ugc-refdump [--enemies N] [--zstd LEVEL] [--force] [--no-garbage-elimination] OUT.ugct\n"
		   "Build an engine-like UObject heap of a small game with N enemies (default 8,\n"
		   "a multiple of 4: every fourth one destroyed) and capture it to OUT through\n"
		   "libugccapture, as the UE 5.5 plugin does.  --zstd compresses while writing;\n"
		   "--no-garbage-elimination captures an engine run with garbage elimination off.\n");
	return rc;
}

int main(int argc, char **argv)
{
	int n = 8, level = 0, force = 0, elimination = 1;
	const char *out = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return usage(stdout, 0);
		if (!strcmp(argv[i], "--enemies") && i + 1 < argc)
			n = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--zstd") && i + 1 < argc)
			level = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--force"))
			force = 1;
		else if (!strcmp(argv[i], "--no-garbage-elimination"))
			elimination = 0;
		else if (argv[i][0] == '-' || out)
			return usage(stderr, 2);
		else
			out = argv[i];
	}
	if (!out || n < 4 || n % 4 || n > 100000000)
		return usage(stderr, 2);

	engine e;
	memset(&e, 0, sizeof e);
	build(&e, n);
	e.garbage_elimination = elimination;

	clock_t t0 = clock();
	ugc_options opt = UGC_OPTIONS_INIT;
	opt.compress = level;
	opt.overwrite = force;
	ugc_writer *w;
	char err[512];
	int rc = ugc_writer_open(&w, out, &opt, err, sizeof err);
	if (rc == UGC_OK) {
		rc = capture(&e, w, n);
		if (rc) {
			snprintf(err, sizeof err, "%s", ugc_writer_error(w));
			ugc_writer_abort(w);
		}
	}
	ugc_stats st;
	if (rc == UGC_OK)
		rc = ugc_writer_close(w, &st, err, sizeof err);
	destroy(&e);
	if (rc) {
		fprintf(stderr, "ugc-refdump: %s\n", err);
		return 1;
	}
	double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
#define S(n) ((n) == 1 ? "" : "s")
	printf("ugc-refdump: %s: %llu object%s, %llu reference%s, %llu FGCObject reference%s, %llu cluster%s; "
	       "%llu bytes (%llu of text) in %.2f s\n",
	       out, (unsigned long long)st.objects, S(st.objects), (unsigned long long)st.refs, S(st.refs),
	       (unsigned long long)st.gcrefs, S(st.gcrefs), (unsigned long long)st.clusters, S(st.clusters),
	       (unsigned long long)st.file_bytes, (unsigned long long)st.text_bytes, secs);
#undef S
	return 0;
}
