/* gen.c — builds a synthetic heap in the shape of a cooked UE 5.5 game:
 *
 *   disregard pool  /Script/CoreUObject and /Script/Engine with their native
 *                   classes and CDOs (Native), and one destroyed material
 *                   (Garbage) that transients still target (first-gc-index
 *                   ends here)
 *   engine          /Engine/Transient, GameEngine and GameInstance (RootSet),
 *                   MaterialInstanceDynamics held by TStrongObjectPtr
 *                   (RefCounted) or by nothing at all
 *   assets          one package each: textures and meshes (some not ready for
 *                   FinishDestroy), materials with expressions (some cluster
 *                   roots), material instances, sounds (the last two still
 *                   loading: AsyncLoadingPhase1, AsyncLoadingPhase2),
 *                   blueprint classes with CDOs
 *                   (cluster roots); all RF_Standalone, now and then a
 *                   material expression too (a KeepFlags cluster member)
 *   worlds          live worlds, each World/PersistentLevel/ActorCluster
 *                   (the ULevelActorContainer cluster root) with actors and
 *                   components; non-clusterable actors referenced by the
 *                   level's ARO; destroyed actors (Garbage and
 *                   RF_MirroredGarbage, rarely only one of them) that others
 *                   still target; now and then a RefCounted clustered actor; weak and soft references; in the last live world
 *                   a clustered actor targets a destroyed one, so its cluster
 *                   needs dissolving; in the first live world the container is
 *                   garbage (a level being streamed out): step 2 dissolves
 *                   its cluster and the Level takes the actors over
 *   unreachable     old worlds nothing references, unreferenced transients
 *   FGCObjects      "g" records to assets, and one to a destroyed actor
 *
 * Cluster lists are computed the way the engine's cluster creation does
 * (members' references leaving the cluster become MutableObjects or, into
 * another cluster, ReferencedClusters plus that cluster's own lists), then
 * --broken-clusters drops a percentage of the entries. */
#include "tools/gen/gen.h"
#include "base/base.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct builder {
	heap *h;
	uint64_t rng;
	uint64_t target;
	obj_t next;
	/* references in creation order */
	obj_t *from, *to;
	uint32_t *prop;
	uint8_t *kind;
	uint32_t n, cap;
	int oom;
	/* clusters to build: roots, and their members as ranges of mem[] */
	obj_t *croot;
	uint32_t *cmem_start, ncl, ccap;
	obj_t *mem;
	uint32_t nmem, memcap;
	obj_t hole; /* the last slot left free, target of a dangling reference */
} builder;

/* Native classes, by role. */
enum cls {
	C_OBJECT, C_CLASS, C_PACKAGE, C_WORLD, C_LEVEL, C_CONTAINER, C_ACTOR, C_SMACTOR, C_LIGHT,
	C_CONTROLLER, C_CHARACTER, C_SCENE, C_SMCOMP, C_AUDIO, C_CAPSULE, C_LIGHTCOMP, C_MATERIAL,
	C_MIC, C_EXPR, C_TEXTURE, C_MESH, C_BODYSETUP, C_BPGC, C_ENGINE, C_GAMEINSTANCE, C_MID,
	C_SOUND, C_COUNT
};
static const char *const class_names[C_COUNT] = {
	"Object", "Class", "Package", "World", "Level", "LevelActorContainer", "Actor", "StaticMeshActor",
	"PointLight", "PlayerController", "Character", "SceneComponent", "StaticMeshComponent",
	"AudioComponent", "CapsuleComponent", "PointLightComponent", "Material", "MaterialInstanceConstant",
	"MaterialExpressionTextureSample", "Texture2D", "StaticMesh", "BodySetup", "BlueprintGeneratedClass",
	"GameEngine", "GameInstance", "MaterialInstanceDynamic", "SoundWave",
};
static const char *const bp_names[] = {"BP_Enemy_C", "BP_Pickup_C", "BP_Door_C", "BP_Turret_C",
				       "BP_Spawner_C", "BP_Projectile_C", "BP_NPC_C", "BP_Trigger_C"};
#define NBP (sizeof bp_names / sizeof bp_names[0])

typedef struct world_parts {
	obj_t cls[C_COUNT];
	obj_t *textures, *materials, *mics, *meshes, *bps, *bp_cdos, *sounds;
	obj_t pool_garbage; /* a garbage object in the disregard pool */
	uint32_t ntex, nmat, nmic, nmesh, nbp, nsound;
} world_parts;

/* The next random number.  Two draws never share one expression (function
 * arguments are evaluated in an order C leaves open, and gcc and clang
 * differ): the same seed gives the same heap whatever the compiler. */
static uint64_t rnd(builder *b)
{
	uint64_t x = b->rng; /* xorshift64* */
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	b->rng = x;
	return x * 0x2545F4914F6CDD1Dull;
}

static uint32_t below(builder *b, uint32_t n) { return n ? (uint32_t)(rnd(b) % n) : 0; }
static int chance(builder *b, int percent) { return (int)(rnd(b) % 100) < percent; }

static obj_t obj(builder *b, obj_t cls, obj_t outer, const char *name, uint32_t num, uint32_t size,
		 uint32_t oflags, uint16_t iflags, uint8_t traits)
{
	heap *h = b->h;
	if (b->oom)
		return 0;
	if ((uint32_t)b->next >= h->slots && heap_grow_slots(h, h->slots ? h->slots * 2 : 4096)) {
		b->oom = 1;
		return 0;
	}
	obj_t i = b->next++;
	if ((i & 0xffff) == 0) /* the objects are most of the work; references and clusters the last fifth */
		progress_at((uint64_t)i, b->target + b->target / 4);
	uint32_t id = strtab_intern(&h->strings, name, strlen(name));
	if (id == UINT32_MAX) {
		b->oom = 1;
		return 0;
	}
	h->serial[i] = (uint32_t)i + 1;
	h->cls[i] = cls < 0 ? i : cls; /* a negative class: the object is its own class (Class) */
	h->outer[i] = outer;
	h->name[i] = id;
	h->name_num[i] = num;
	h->size[i] = size;
	h->oflags[i] = oflags;
	h->iflags[i] = iflags;
	h->traits[i] = traits;
	h->objects++;
	return i;
}

/* Leave a slot free now and then, as GUObjectArray does after a GC. */
static void maybe_hole(builder *b)
{
	if (chance(b, 1) && chance(b, 30)) {
		if ((uint32_t)b->next >= b->h->slots && heap_grow_slots(b->h, b->h->slots * 2)) {
			b->oom = 1;
			return;
		}
		b->hole = b->next++;
	}
}

static void ref(builder *b, obj_t from, obj_t to, int kind, const char *prop, int index)
{
	if (b->oom)
		return;
	if (b->n == b->cap) {
		uint32_t cap = b->cap ? b->cap * 2 : 1 << 16;
		obj_t *f = realloc(b->from, (size_t)cap * sizeof *f);
		if (f) b->from = f;
		obj_t *t = realloc(b->to, (size_t)cap * sizeof *t);
		if (t) b->to = t;
		uint32_t *p = realloc(b->prop, (size_t)cap * sizeof *p);
		if (p) b->prop = p;
		uint8_t *k = realloc(b->kind, cap);
		if (k) b->kind = k;
		if (!f || !t || !p || !k) {
			b->oom = 1;
			return;
		}
		b->cap = cap;
	}
	char buf[128];
	if (index >= 0)
		snprintf(buf, sizeof buf, "%s[%d]", prop, index);
	else
		snprintf(buf, sizeof buf, "%s", prop);
	uint32_t id = strtab_intern(&b->h->strings, buf, strlen(buf));
	if (id == UINT32_MAX) {
		b->oom = 1;
		return;
	}
	b->from[b->n] = from;
	b->to[b->n] = to;
	b->prop[b->n] = id;
	b->kind[b->n] = (uint8_t)kind;
	b->n++;
}

static void cluster_begin(builder *b, obj_t root)
{
	if (b->oom)
		return;
	if (b->ncl == b->ccap) {
		b->ccap = b->ccap ? b->ccap * 2 : 64;
		obj_t *r = realloc(b->croot, b->ccap * sizeof *r);
		if (r) b->croot = r;
		uint32_t *s = realloc(b->cmem_start, (b->ccap + 1) * sizeof *s);
		if (s) b->cmem_start = s;
		if (!r || !s) {
			b->oom = 1;
			return;
		}
	}
	b->croot[b->ncl] = root;
	b->cmem_start[b->ncl] = b->nmem;
	b->cmem_start[++b->ncl] = b->nmem;
}

static void cluster_add(builder *b, obj_t member)
{
	if (b->oom)
		return;
	if (b->nmem == b->memcap) {
		b->memcap = b->memcap ? b->memcap * 2 : 4096;
		obj_t *m = realloc(b->mem, b->memcap * sizeof *m);
		if (!m) {
			b->oom = 1;
			return;
		}
		b->mem = m;
	}
	b->mem[b->nmem++] = member;
	b->cmem_start[b->ncl] = b->nmem;
}

/* ---- the parts of the heap ---- */

static obj_t package(builder *b, world_parts *w, const char *dir, const char *name, uint32_t num)
{
	char path[256];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	return obj(b, w->cls[C_PACKAGE], OBJ_NONE, path, num, 128 + below(b, 512), RF_Public | RF_WasLoaded, 0, 0);
}

static void natives(builder *b, world_parts *w)
{
	/* 0 /Script/CoreUObject, 1 Object, 2 Class, 3 Package: as in the
	 * example of ugc-snapshot(5) §1.12 */
	obj_t core = obj(b, 2, OBJ_NONE, "/Script/CoreUObject", 0, 64, 0, IF_Native | IF_RootSet, 0);
	w->cls[C_OBJECT] = obj(b, 2, core, "Object", 0, 256, 0, IF_Native, 0);
	w->cls[C_CLASS] = obj(b, -1, core, "Class", 0, 512, 0, IF_Native, 0);
	w->cls[C_PACKAGE] = obj(b, 2, core, "Package", 0, 256, 0, IF_Native, 0);
	obj_t engine = obj(b, 2, OBJ_NONE, "/Script/Engine", 0, 64, 0, IF_Native | IF_RootSet, 0);
	b->h->cls[engine] = w->cls[C_PACKAGE];
	b->h->cls[core] = w->cls[C_PACKAGE];
	for (int c = C_WORLD; c < C_COUNT; c++)
		w->cls[c] = obj(b, w->cls[C_CLASS], engine, class_names[c], 0, 300 + below(b, 900), 0, IF_Native, 0);
	char cdo[96];
	for (int c = 0; c < C_COUNT; c++) {
		snprintf(cdo, sizeof cdo, "Default__%s", class_names[c]);
		obj(b, w->cls[c], c < C_WORLD ? core : engine, cdo, 0, 200 + below(b, 2000),
		    RF_Public | RF_ClassDefaultObject | RF_ArchetypeObject, 0, 0);
	}
	/* an engine material destroyed after the pool closed: the GC nulls
	 * killable references to it though it lives on (ugc-gc(7) §1.4) */
	w->pool_garbage = obj(b, w->cls[C_MATERIAL], engine, "LegacyDefaultMaterial", 0, 2048,
			      RF_Public | RF_MirroredGarbage, IF_Garbage, 0);
	b->h->first_gc_index = b->next;
}

static obj_t pick(builder *b, const obj_t *v, uint32_t n) { return v[below(b, n)]; }

/* An asset for a world: live worlds use the first four fifths of each asset
 * list, old (unreachable) worlds the last fifth, so that unloading a map
 * leaves assets nothing else holds. */
static obj_t pick_for(builder *b, const obj_t *v, uint32_t n, int old)
{
	uint32_t split = n - n / 5;
	if (split == 0 || split == n)
		return pick(b, v, n);
	return old ? v[split + below(b, n - split)] : v[below(b, split)];
}

static void assets(builder *b, world_parts *w, uint64_t budget)
{
	uint32_t ntex = (uint32_t)(budget * 25 / 100 / 2) + 4, nmat = (uint32_t)(budget * 30 / 100 / 7) + 2;
	uint32_t nmic = (uint32_t)(budget * 10 / 100 / 2) + 2, nmesh = (uint32_t)(budget * 20 / 100 / 3) + 2;
	uint32_t nsound = (uint32_t)(budget * 5 / 100 / 2) + 1, nbp = (uint32_t)NBP;
	w->textures = malloc(ntex * sizeof(obj_t));
	w->materials = malloc(nmat * sizeof(obj_t));
	w->mics = malloc(nmic * sizeof(obj_t));
	w->meshes = malloc(nmesh * sizeof(obj_t));
	w->sounds = malloc(nsound * sizeof(obj_t));
	w->bps = malloc(nbp * sizeof(obj_t));
	w->bp_cdos = malloc(nbp * sizeof(obj_t));
	if (!w->textures || !w->materials || !w->mics || !w->meshes || !w->sounds || !w->bps || !w->bp_cdos) {
		b->oom = 1;
		return;
	}
	const uint32_t asset = RF_Public | RF_Standalone | RF_WasLoaded;
	for (uint32_t i = 0; i < ntex && !b->oom; i++) {
		maybe_hole(b);
		obj_t p = package(b, w, "/Game/Textures", "T_Surface", i + 1);
		uint8_t slow = chance(b, 30) ? TR_NotReadyForFinishDestroy : 0; /* draws in a fixed order (see rnd) */
		w->textures[w->ntex++] = obj(b, w->cls[C_TEXTURE], p, "T_Surface", i + 1, 65536u << below(b, 8), asset, 0, slow);
		if (i > 0 && chance(b, 10))
			ref(b, w->textures[i], w->textures[below(b, i)], REF_STRONG, "CompositeTexture", -1);
	}
	for (uint32_t i = 0; i < nsound && !b->oom; i++) {
		obj_t p = package(b, w, "/Game/Audio", "SW_Effect", i + 1);
		uint8_t slow = chance(b, 20) ? TR_NotReadyForFinishDestroy : 0;
		/* the last two are still being loaded, one in each async loading
		 * phase: roots by their internal flags (ugc-gc(7) §1.3) */
		uint16_t loading = i + 1 == nsound ? IF_AsyncLoadingPhase2 : i + 2 == nsound ? IF_AsyncLoadingPhase1 : 0;
		if (!b->oom)
			b->h->iflags[p] |= loading;
		w->sounds[w->nsound++] = obj(b, w->cls[C_SOUND], p, "SW_Effect", i + 1, 20000 + below(b, 500000), asset,
					     loading, slow);
	}
	for (uint32_t i = 0; i < nmat && !b->oom; i++) {
		maybe_hole(b);
		obj_t p = package(b, w, "/Game/Materials", "M_Surface", i + 1);
		obj_t m = obj(b, w->cls[C_MATERIAL], p, "M_Surface", i + 1, 4096 + below(b, 60000), asset, 0, 0);
		w->materials[w->nmat++] = m;
		int clustered = chance(b, 50);
		if (clustered)
			cluster_begin(b, m);
		uint32_t ne = 4 + below(b, 8);
		for (uint32_t e = 0; e < ne; e++) {
			/* now and then a standalone expression: a KeepFlags member in the editor */
			uint32_t standalone = clustered && chance(b, 3) ? RF_Standalone : 0;
			obj_t x = obj(b, w->cls[C_EXPR], m, "MaterialExpressionTextureSample", e + 1, 200, standalone, 0, 0);
			ref(b, m, x, REF_STRONG, "Expressions", (int)e);
			obj_t t = pick(b, w->textures, w->ntex);
			ref(b, x, t, REF_STRONG, "Texture", -1);
			ref(b, x, m, REF_STRONG, "Material", -1);
			ref(b, m, t, REF_STRONG, "CachedReferencedTextures", (int)e);
			if (clustered)
				cluster_add(b, x);
		}
	}
	for (uint32_t i = 0; i < nmic && !b->oom; i++) {
		obj_t p = package(b, w, "/Game/Materials", "MI_Variant", i + 1);
		obj_t m = obj(b, w->cls[C_MIC], p, "MI_Variant", i + 1, 2048 + below(b, 8000), asset, 0, 0);
		w->mics[w->nmic++] = m;
		ref(b, m, pick(b, w->materials, w->nmat), REF_STRONG, "Parent", -1);
		for (int k = 0; k < 2; k++)
			ref(b, m, pick(b, w->textures, w->ntex), REF_STRONG, "TextureParameterValues.ParameterValue", k);
	}
	for (uint32_t i = 0; i < nmesh && !b->oom; i++) {
		maybe_hole(b);
		obj_t p = package(b, w, "/Game/Meshes", "SM_Prop", i + 1);
		uint8_t slow = chance(b, 30) ? TR_NotReadyForFinishDestroy : 0;
		obj_t m = obj(b, w->cls[C_MESH], p, "SM_Prop", i + 1, 50000 + below(b, 4000000), asset, 0, slow);
		w->meshes[w->nmesh++] = m;
		obj_t bs = obj(b, w->cls[C_BODYSETUP], m, "BodySetup", 0, 2000 + below(b, 20000), RF_Public, 0, 0);
		ref(b, m, bs, REF_STRONG, "BodySetup", -1);
		uint32_t nm = 1 + below(b, 3);
		for (uint32_t k = 0; k < nm; k++)
			ref(b, m, chance(b, 60) ? pick(b, w->materials, w->nmat) : pick(b, w->mics, w->nmic), REF_STRONG,
			    "StaticMaterials.MaterialInterface", (int)k);
	}
	char pkg[64];
	for (uint32_t i = 0; i < nbp && !b->oom; i++) {
		size_t l = strlen(bp_names[i]) - 2; /* package name without _C */
		snprintf(pkg, sizeof pkg, "%.*s", (int)l, bp_names[i]);
		obj_t p = package(b, w, "/Game/Blueprints", pkg, 0);
		obj_t c = obj(b, w->cls[C_BPGC], p, bp_names[i], 0, 20000 + below(b, 80000), RF_Public | RF_Standalone | RF_WasLoaded, 0, 0);
		w->bps[w->nbp++] = c;
		char cdo[96];
		snprintf(cdo, sizeof cdo, "Default__%s", bp_names[i]);
		obj_t d = w->bp_cdos[i] = obj(b, c, p, cdo, 0, 1000 + below(b, 4000),
					      RF_Public | RF_ClassDefaultObject | RF_ArchetypeObject, 0, 0);
		ref(b, c, w->cls[C_ACTOR], REF_STRONG, "SuperStruct", -1);
		ref(b, c, d, REF_STRONG, "ClassDefaultObject", -1);
		ref(b, d, pick(b, w->meshes, w->nmesh), REF_STRONG, "MeshAsset", -1);
		ref(b, d, pick(b, w->sounds, w->nsound), REF_STRONG, "HitSound", -1);
		cluster_begin(b, c);
		cluster_add(b, d);
	}
}

/* One world: package, World, PersistentLevel, the actor cluster, actors. */
/* Actor X's components (the first its root, the others attached to it)
 * and their references to assets, to X and to each other; GARBAGE: X was
 * destroyed, and its components with it. */
static void components(builder *b, world_parts *w, obj_t x, uint32_t key, uint16_t garbage, int clustered, int old)
{
	uint32_t nc = 2 + below(b, 4);
	obj_t root = OBJ_NONE;
	for (uint32_t c = 0; c < nc; c++) {
		int ck = c == 0 ? (key == C_CHARACTER ? C_CAPSULE : C_SCENE)
			 : key == C_LIGHT && c == 1 ? C_LIGHTCOMP : chance(b, 75) ? C_SMCOMP : C_AUDIO;
		obj_t k = obj(b, w->cls[ck], x, class_names[ck], c + 1, 600 + below(b, 1400),
			      RF_DefaultSubObject | (garbage ? RF_MirroredGarbage : 0), garbage, 0);
		if (clustered)
			cluster_add(b, k);
		ref(b, x, k, REF_ARO, "OwnedComponents", (int)c);
		if (c == 0) {
			root = k;
			ref(b, x, k, REF_STRONG, "RootComponent", -1);
			continue;
		}
		ref(b, k, root, REF_STRONG, "AttachParent", -1);
		ref(b, root, k, REF_STRONG, "AttachChildren", (int)c - 1);
		if (ck == C_SMCOMP) {
			ref(b, k, pick_for(b, w->meshes, w->nmesh, old), REF_STRONG, "StaticMesh", -1);
			uint32_t nm = 3 + below(b, 7);
			for (uint32_t m = 0; m < nm; m++)
				ref(b, k, chance(b, 50) ? pick_for(b, w->mics, w->nmic, old)
							: pick_for(b, w->materials, w->nmat, old),
				    REF_STRONG, "OverrideMaterials", (int)m);
			ref(b, k, pick_for(b, w->textures, w->ntex, old), REF_STRONG, "LightmapTexture", -1);
			ref(b, k, pick_for(b, w->textures, w->ntex, old), REF_STRONG, "ShadowmapTexture", -1);
		} else if (ck == C_AUDIO) {
			ref(b, k, pick_for(b, w->sounds, w->nsound, old), REF_STRONG, "Sound", -1);
			ref(b, k, pick_for(b, w->sounds, w->nsound, old), REF_STRONG, "AttenuationSound", -1);
		}
		/* the component's own references to its actor and siblings */
		ref(b, k, x, REF_STRONG, "OwnerPrivate", -1);
		uint32_t ne = 4 + below(b, 8);
		for (uint32_t e = 0; e < ne; e++)
			ref(b, k, pick_for(b, w->textures, w->ntex, old), REF_STRONG, "AssetUserData", (int)e);
	}
}

/* Actor A's (X's) references to other actors, to blueprints and to sounds.
 * The level's actors so far are ACTORS[0..A-1] (CLUSTERED says which are
 * in its cluster, NCLUSTERED how many); PREV_ACTORS, the previous world's. */
typedef struct level_actors {
	const obj_t *actors;
	const uint8_t *clustered;
	uint32_t nclustered;
	const obj_t *prev_actors;
	uint32_t nprev;
	int last_live, old;
} level_actors;

static void actor_references(builder *b, world_parts *w, const level_actors *l, uint32_t a, obj_t x, uint32_t key,
			     int destroyed)
{
	const obj_t *actors = l->actors;
	const uint8_t *clustered = l->clustered;
	int old = l->old;
	/* targets among earlier actors of this level */
	if (a > 0 && chance(b, 40)) {
		uint32_t t = below(b, a);
		/* a clustered actor never targets a destroyed one, except in the last live world */
		if (!clustered[a] || clustered[t] || (l->last_live && a > 3 && l->nclustered > 1))
			ref(b, x, actors[t], REF_STRONG, "Target", -1);
	}
	if (chance(b, 20) && l->nprev)
		ref(b, x, l->prev_actors[below(b, l->nprev)], REF_WEAK, "LastSeen", -1);
	else if (a > 0 && chance(b, 20))
		ref(b, x, actors[below(b, a)], REF_WEAK, "LastSeen", -1);
	if (chance(b, 20))
		ref(b, x, pick(b, w->bps, w->nbp), REF_SOFT, "SpawnClass", -1);
	if (key >= C_COUNT) /* a blueprint actor's archetype: its class's CDO, never nulled */
		ref(b, x, w->bp_cdos[key - C_COUNT], REF_IMMUTABLE, "Archetype", -1);
	/* a destroyed actor still held by an immutable reference survives */
	if (a > 0 && !clustered[a] && !destroyed && chance(b, 10)) {
		obj_t t = actors[below(b, a)];
		if (b->h->iflags[t] & IF_Garbage)
			ref(b, x, t, REF_IMMUTABLE, "PinnedActor", -1);
	}
	uint32_t ns = 3 + below(b, 6);
	for (uint32_t e = 0; e < ns; e++)
		ref(b, x, pick_for(b, w->sounds, w->nsound, old), REF_STRONG, "Sounds", (int)e);
	if (b->hole > 0 && chance(b, 1))
		ref(b, x, b->hole, REF_STRONG, "StaleActor", -1);
}

static obj_t world(builder *b, world_parts *w, uint32_t number, uint32_t nactors, int last_live, obj_t *prev_actors,
		   uint32_t nprev)
{
	int old = number >= 100;
	obj_t p = package(b, w, "/Game/Maps", "Arena", number);
	obj_t wo = obj(b, w->cls[C_WORLD], p, "Arena", number, 30000, RF_Public | RF_Standalone | RF_WasLoaded, 0, 0);
	obj_t lv = obj(b, w->cls[C_LEVEL], wo, "PersistentLevel", 0, 60000, RF_Public | RF_WasLoaded, 0, 0);
	/* the first live world's level is being streamed out: its actor
	 * container is garbage, so step 2 dissolves its cluster and the Level
	 * takes its actors over (ugc-gc(7) §1.2) */
	int unloading = number == 1;
	obj_t ac = obj(b, w->cls[C_CONTAINER], lv, "ActorCluster", 0, 200, RF_Transient | (unloading ? RF_MirroredGarbage : 0),
		       unloading ? IF_Garbage : 0, 0);
	ref(b, wo, lv, REF_STRONG, "PersistentLevel", -1);
	ref(b, wo, lv, REF_STRONG, "Levels", 0);
	ref(b, lv, wo, REF_STRONG, "OwningWorld", -1);
	ref(b, lv, ac, REF_STRONG, "ActorCluster", -1);
	cluster_begin(b, ac);
	obj_t *actors = malloc((nactors + 1) * sizeof *actors);
	uint8_t *clustered = malloc(nactors + 1);
	if (!actors || !clustered) {
		free(actors);
		free(clustered);
		b->oom = 1;
		return wo;
	}
	uint32_t nfor_gc = 0, nclustered = 0, counters[C_COUNT + NBP] = {0};
	for (uint32_t a = 0; a < nactors && !b->oom; a++) {
		maybe_hole(b);
		uint32_t roll = below(b, 100);
		obj_t cls;
		const char *base;
		uint32_t key;
		if (roll < 60) {
			key = C_COUNT + below(b, NBP);
			cls = w->bps[key - C_COUNT];
			base = bp_names[key - C_COUNT];
		} else {
			key = roll < 85 ? C_SMACTOR : roll < 95 ? C_LIGHT : roll < 98 ? C_CHARACTER : C_CONTROLLER;
			cls = w->cls[key];
			base = class_names[key];
		}
		/* MarkAsGarbage sets both flags; rarely a snapshot has only one */
		int destroyed = a > 2 && chance(b, 3);
		uint16_t garbage = destroyed ? IF_Garbage : 0;
		uint32_t mirrored = destroyed ? (chance(b, 2) ? 0 : RF_MirroredGarbage) : chance(b, 1) ? RF_MirroredGarbage : 0;
		clustered[a] = !destroyed && key != C_CHARACTER && key != C_CONTROLLER;
		/* now and then a clustered actor is held by a TStrongObjectPtr: a rooted member */
		uint16_t held = clustered[a] && chance(b, 2) ? IF_RefCounted : 0;
		uint8_t game_thread = chance(b, 5) ? TR_GameThreadDestroy : 0;
		obj_t x = obj(b, cls, lv, base, ++counters[key], 1500 + below(b, 3000), RF_WasLoaded | mirrored,
			      garbage | held, game_thread);
		actors[a] = x;
		if (clustered[a]) {
			cluster_add(b, x);
			ref(b, ac, x, REF_STRONG, "Actors", (int)nclustered++);
		} else if (!destroyed) {
			ref(b, lv, x, REF_ARO, "ActorsForGC", (int)nfor_gc++);
		}
		components(b, w, x, key, garbage, clustered[a], old);
		level_actors l = {actors, clustered, nclustered, prev_actors, nprev, last_live, old};
		actor_references(b, w, &l, a, x, key, destroyed);
	}
	if (prev_actors && nprev == 0)
		prev_actors[0] = actors[0];
	memcpy(prev_actors, actors, sizeof *actors * (nactors < 64 ? nactors : 64));
	free(actors);
	free(clustered);
	return wo;
}

/* Engine-side objects and transients. */
static void engine_objects(builder *b, world_parts *w, obj_t *transient, obj_t *gi)
{
	*transient = obj(b, w->cls[C_PACKAGE], OBJ_NONE, "/Engine/Transient", 0, 128, RF_Transient, IF_RootSet, 0);
	obj_t eng = obj(b, w->cls[C_ENGINE], *transient, "GameEngine", 1, 8000, RF_Transient, IF_RootSet, 0);
	*gi = obj(b, w->cls[C_GAMEINSTANCE], eng, "GameInstance", 1, 4000, RF_Transient, 0, 0);
	ref(b, eng, *gi, REF_STRONG, "GameInstance", -1);
}

static void transients(builder *b, world_parts *w, obj_t transient, uint32_t n)
{
	for (uint32_t i = 0; i < n && !b->oom; i++) {
		int held = chance(b, 30);
		obj_t m = obj(b, w->cls[C_MID], transient, "MaterialInstanceDynamic", i + 1, 1024 + below(b, 4096),
			      RF_Transient, held ? IF_RefCounted : 0, 0);
		ref(b, m, chance(b, 50) ? pick(b, w->mics, w->nmic) : pick(b, w->materials, w->nmat), REF_STRONG, "Parent", -1);
		if (chance(b, 5))
			ref(b, m, w->pool_garbage, REF_STRONG, "FallbackMaterial", -1);
		uint32_t nt = 3 + below(b, 8);
		for (uint32_t k = 0; k < nt; k++)
			ref(b, m, pick(b, w->textures, w->ntex), REF_STRONG, "TextureParameterValues.ParameterValue", (int)k);
	}
	/* a widget someone rooted and then destroyed: RootSet and Garbage at once */
	obj(b, w->cls[C_MID], transient, "LeakedWidgetMaterial", 0, 4096, RF_Transient | RF_MirroredGarbage,
	    IF_RootSet | IF_Garbage, 0);
}

/* ---- cluster lists, the way cluster creation makes them ---- */

typedef struct list {
	obj_t *v;
	uint32_t n, cap;
} list;

static int list_push(list *l, obj_t x)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 64;
		obj_t *v = realloc(l->v, l->cap * sizeof *v);
		if (!v)
			return -1;
		l->v = v;
	}
	l->v[l->n++] = x;
	return 0;
}

/* Append X unless this cluster (MARK) already listed it. */
static int list_add(list *l, obj_t x, uint32_t *stamp, uint32_t mark)
{
	if (stamp[x] == mark)
		return 0;
	stamp[x] = mark;
	return list_push(l, x);
}

static int build_clusters(builder *b, int broken_pct)
{
	heap *h = b->h;
	int rc = -1;
	uint32_t *owner = calloc(h->slots, sizeof *owner); /* 1 + builder cluster of each member/root */
	uint32_t *mstamp = calloc(h->slots, sizeof *mstamp), *rstamp = calloc(h->slots, sizeof *rstamp);
	h->clusters = calloc(b->ncl + 1, sizeof *h->clusters);
	list items = {0};
	if (!owner || !mstamp || !rstamp || !h->clusters)
		goto out;
	for (uint32_t c = 0; c < b->ncl; c++) {
		owner[b->croot[c]] = c + 1;
		for (uint32_t k = b->cmem_start[c]; k < b->cmem_start[c + 1]; k++)
			owner[b->mem[k]] = c + 1;
	}
	for (uint32_t c = 0; c < b->ncl; c++) { /* clusters made earlier never reference later ones */
		cluster *cl = &h->clusters[c];
		list mut = {0}, refs = {0};
		uint32_t mark = c + 1;
		cl->root = b->croot[c];
		for (uint32_t k = b->cmem_start[c]; k <= b->cmem_start[c + 1]; k++) {
			obj_t x = k == b->cmem_start[c + 1] ? cl->root : b->mem[k];
			uint32_t nref = h->ref_start[x + 1] - h->ref_start[x];
			for (uint32_t e = 0; e < nref + 2; e++) {
				obj_t t = e == 0 ? h->cls[x] : e == 1 ? h->outer[x] : h->ref_dst[h->ref_start[x] + e - 2];
				int kind = e < 2 ? REF_IMMUTABLE : h->ref_kind[h->ref_start[x] + e - 2];
				if (!heap_exists(h, t) || kind == REF_WEAK || kind == REF_SOFT || heap_in_disregard(h, t) || owner[t] == mark)
					continue;
				if (owner[t] && owner[t] < mark) {
					const cluster *o = &h->clusters[owner[t] - 1];
					if (list_add(&refs, o->root, rstamp, mark))
						goto out;
					for (uint32_t q = 0; q < o->n_refs; q++)
						if (list_add(&refs, items.v[o->refs + q], rstamp, mark))
							goto out;
					for (uint32_t q = 0; q < o->n_mutables; q++)
						if (list_add(&mut, items.v[o->mutables + q], mstamp, mark))
							goto out;
				} else if (list_add(&mut, t, mstamp, mark)) {
					goto out;
				}
			}
		}
		list *src[3] = {NULL, &mut, &refs};
		uint32_t *starts[3] = {&cl->members, &cl->mutables, &cl->refs};
		uint32_t *counts[3] = {&cl->n_members, &cl->n_mutables, &cl->n_refs};
		for (int l = 0; l < 3; l++) {
			*starts[l] = items.n;
			uint32_t n = l == 0 ? b->cmem_start[c + 1] - b->cmem_start[c] : src[l]->n;
			for (uint32_t k = 0; k < n; k++) {
				obj_t x = l == 0 ? b->mem[b->cmem_start[c] + k] : src[l]->v[k];
				if (l > 0 && broken_pct && chance(b, broken_pct))
					continue;
				if (list_push(&items, x))
					goto out;
				(*counts[l])++;
			}
		}
		free(mut.v);
		free(refs.v);
		h->nclusters++;
	}
	h->cluster_items = items.v;
	h->ncluster_items = items.n;
	items.v = NULL;
	rc = 0;
out:
	free(items.v);
	free(owner);
	free(mstamp);
	free(rstamp);
	return rc;
}

int gen_heap(const gen_options *opt, heap *h, char *err, size_t errsize)
{
	heap_init(h);
	builder b = {0};
	b.h = h;
	b.rng = opt->seed * 0x9E3779B97F4A7C15ull + 0x1234567ull;
	b.target = opt->objects < GEN_MIN_OBJECTS ? GEN_MIN_OBJECTS : opt->objects;
	h->mode = opt->mode;
	const char *eng = "5.5.4-ugc-gen";
	h->engine = strtab_intern(&h->strings, eng, strlen(eng));
	char label[96];
	snprintf(label, sizeof label, "gen --objects %llu --seed %llu", (unsigned long long)opt->objects,
		 (unsigned long long)opt->seed);
	h->label = strtab_intern(&h->strings, label, strlen(label));
	world_parts w = {0};
	obj_t transient, gi, prev[64] = {0};
	natives(&b, &w);
	engine_objects(&b, &w, &transient, &gi);
	uint64_t rest = b.target - (uint64_t)b.next;
	assets(&b, &w, rest * 22 / 100);
	/* an actor with its components is 4.5 objects on average; most of the
	 * rest of the budget goes to actors, what is left to transients */
	uint64_t actor_objects = b.target > (uint64_t)b.next ? b.target - (uint64_t)b.next : 0;
	uint32_t nactors = (uint32_t)(actor_objects * 85 / 450) + 3;
	uint32_t nworlds = 2 + (uint32_t)(b.target / 2000000), nold = 1 + nworlds / 3;
	uint32_t per_world = nactors / (nworlds + nold) + 3;
	for (uint32_t k = 0; k < nold && !b.oom; k++) /* worlds from an earlier map: nothing holds them */
		world(&b, &w, 100 + k, per_world, 0, prev, 0);
	for (uint32_t k = 0; k < nworlds && !b.oom; k++) {
		obj_t wo = world(&b, &w, k + 1, per_world, k + 1 == nworlds, prev, 64);
		ref(&b, gi, wo, REF_STRONG, k == 0 ? "World" : "StreamingWorlds", k == 0 ? -1 : (int)k - 1);
	}
	uint64_t left = b.target > (uint64_t)b.next ? b.target - (uint64_t)b.next : 0;
	transients(&b, &w, transient, (uint32_t)left + 4);
	/* FGCObjects: the streamable manager holds a share of the assets */
	for (uint32_t k = 0; k < w.ntex / 20 + 1 && !b.oom; k++) {
		if (heap_needs_grow(h->ngcrefs)) {
			gc_ref *g = realloc(h->gcrefs, heap_grow_cap(h->ngcrefs) * sizeof *g);
			if (!g) { b.oom = 1; break; }
			h->gcrefs = g;
		}
		const char *nm = k % 3 ? "FStreamableManager" : "FAssetManagerPreload";
		char pr[48];
		snprintf(pr, sizeof pr, "StreamableHandles[%u]", k);
		uint32_t name_id = strtab_intern(&h->strings, nm, strlen(nm));
		obj_t held = k % 2 ? pick(&b, w.textures, w.ntex) : pick(&b, w.meshes, w.nmesh);
		h->gcrefs[h->ngcrefs++] = (gc_ref){name_id, held, strtab_intern(&h->strings, pr, strlen(pr))};
	}
	/* and one FGCObject still points at a destroyed actor: eliminated */
	for (obj_t i = h->first_gc_index; i < b.next && !b.oom; i++)
		if (h->cls[i] != OBJ_FREE && (h->iflags[i] & IF_Garbage) && h->outer[i] >= 0 &&
		    h->cls[h->outer[i]] == w.cls[C_LEVEL]) {
			gc_ref *g = realloc(h->gcrefs, ((size_t)h->ngcrefs + 1) * sizeof *g);
			if (!g) { b.oom = 1; break; }
			h->gcrefs = g;
			uint32_t name_id = strtab_intern(&h->strings, "FPreviewScene", 13); /* ids in a fixed order */
			h->gcrefs[h->ngcrefs++] = (gc_ref){name_id, i, strtab_intern(&h->strings, "PreviewActor", 12)};
			break;
		}
	if (!b.oom) {
		h->slots = (uint32_t)b.next; /* columns may be larger; slots beyond are unused */
		if (heap_trim_slots(h) || heap_set_refs(h, b.from, b.to, b.prop, b.kind, b.n))
			b.oom = 1;
		b.from = b.to = NULL;
		b.prop = NULL;
		b.kind = NULL;
	}
	if (!b.oom && build_clusters(&b, opt->broken_pct))
		b.oom = 1;
	char msg[256];
	obj_t where;
	uint32_t cid;
	int rc = 0;
	if (b.oom) {
		snprintf(err, errsize, "out of memory generating %llu objects", (unsigned long long)b.target);
		rc = -1;
	} else if (heap_validate(h, msg, sizeof msg, &where, &cid)) {
		snprintf(err, errsize, "internal error: generated heap is invalid: %s", msg);
		rc = -1;
	}
	free(b.from); free(b.to); free(b.prop); free(b.kind);
	free(b.croot); free(b.cmem_start); free(b.mem);
	free(w.textures); free(w.materials); free(w.mics); free(w.meshes); free(w.bps); free(w.bp_cdos); free(w.sounds);
	return rc;
}
