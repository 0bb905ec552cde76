/* worlds.h — which Worlds the game uses and which it leaked (ugc-gc(7)
 * §6, world-leak).  A snapshot names no active world, so a World is in use
 * when the engine's side holds it, and leaked when the GC keeps it and
 * nothing that uses worlds does:
 *   - in use: a World that a GameEngine, EditorEngine, UnrealEdEngine or
 *     GameInstance (a class whose name ends so, a Blueprint's _C aside:
 *     ShooterGameInstance, BP_MyGameInstance_C) references by a reference
 *     that keeps (not weak or soft) — the world contexts and the streaming
 *     worlds;
 *   - in use too: a World one of whose Levels (or itself) a World or a
 *     LevelStreaming* object inside a World in use references that way —
 *     a streamed sublevel, listed by its persistent world's Levels or
 *     held by a LevelStreaming's LoadedLevel — found round by round until
 *     no World is added;
 *   - leaked: every other World the GC keeps, outside the disregard pool,
 *     class default objects aside. */
#ifndef UGC_WORLDS_H
#define UGC_WORLDS_H

#include "analysis/gc.h"
#include "base/base.h"

typedef struct world_info {
	obj_t world;
	int leaked;
	obj_t holder;         /* in use: the object whose reference holds it (or one of its Levels) */
	uint32_t holder_ref;  /* that reference's forward position */
} world_info;

/* Every World R keeps (defaults and the disregard pool aside), in index
 * order, into *OUT (N of them, malloc'd).  0, or -1 when out of memory. */
int worlds_find(const heap *h, const gc_result *r, world_info **out, uint32_t *n);

/* Is class CLS's name NAME, NAME"_C", or does it end in "_"NAME or
 * "_"NAME"_C" (a Blueprint subclass such as BP_GameInstance_C)?  Unreal
 * class names say nothing of their parents in a snapshot, so the name is
 * what there is. */
int class_named(const heap *h, obj_t cls, const char *name);

/* Every object whose Outer chain reaches TOP (TOP itself when SELF),
 * appended to V in index order (a package, or a World, with what is in
 * it).  0, or -1 when out of memory. */
int objects_under(const heap *h, obj_t top, int self, vec *v);

/* Everything in WORLD's package: the objects whose Outer chain reaches
 * the package WORLD is in (WORLD itself when it has no Outer), the package
 * included, appended to V in index order.  0, or -1 when out of memory. */
int world_contents(const heap *h, obj_t world, vec *v);

#endif
