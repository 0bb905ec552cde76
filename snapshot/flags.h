/* flags.h — the three flag sets an object carries, and their names.
 *
 * Object flags are UE 5.5's EObjectFlags with the engine's own bit values.
 * Internal flags are the EInternalObjectFlags a snapshot may carry, packed
 * into our own 16-bit set (the engine's bit positions are of no use offline).
 * Capture traits are what the dumper read from virtual functions. */
#ifndef UGC_FLAGS_H
#define UGC_FLAGS_H

#include <stddef.h>
#include <stdint.h>

/* EObjectFlags (UE 5.5 values) that the GC and the reports look at. */
enum {
	RF_Public = 0x1,
	RF_Standalone = 0x2,
	RF_Transient = 0x40,
	RF_ClassDefaultObject = 0x10,
	RF_ArchetypeObject = 0x20,
	RF_BeginDestroyed = 0x8000,
	RF_FinishDestroyed = 0x10000,
	RF_DefaultSubObject = 0x40000,
	RF_WasLoaded = 0x80000,
	RF_MirroredGarbage = 0x40000000,
};

/* Every EObjectFlags bit UE 5.5 defines (0x04000000 is unassigned). */
#define RF_KNOWN_MASK 0xFBFFFFFFu

/* Internal flags (our bit positions). */
enum {
	IF_RootSet = 1 << 0,
	IF_Native = 1 << 1,
	IF_Async = 1 << 2,
	IF_AsyncLoadingPhase1 = 1 << 3,
	IF_LoaderImport = 1 << 4,
	IF_Garbage = 1 << 5,
	IF_RefCounted = 1 << 6,
	IF_PendingConstruction = 1 << 7,
	IF_ClusterRoot = 1 << 8,
	IF_ReachableInCluster = 1 << 9,
	IF_Unreachable = 1 << 10,
	IF_AsyncLoadingPhase2 = 1 << 11,
	IF_ALL = (1 << 12) - 1,
	/* either async loading phase (the engine's deprecated AsyncLoading mask) */
	IF_AsyncLoading = IF_AsyncLoadingPhase1 | IF_AsyncLoadingPhase2,
	/* the internal flags that make an object a root (ugc-gc(7) §1.3) */
	IF_INTERNAL_KEEP = IF_Native | IF_Async | IF_AsyncLoading | IF_LoaderImport,
};

/* Capture traits. */
enum {
	TR_NotReadyForFinishDestroy = 1 << 0,
	TR_GameThreadDestroy = 1 << 1,
	TR_ALL = 3,
};

/* Parse a FLAGS field ("-" or names joined by commas).  Returns 0, or -1
 * with the first unknown name copied to BAD (NUL-terminated, truncated). */
int flags_parse(const char *s, size_t len, uint32_t *oflags, uint16_t *iflags,
		uint8_t *traits, char *bad, size_t badsize);
/* Write the canonical FLAGS field ("-" when empty) into BUF; returns its length.
 * BUF must hold FLAGS_MAX bytes. */
#define FLAGS_MAX 1024
size_t flags_format(char *buf, uint32_t oflags, uint16_t iflags, uint8_t traits);
/* Parse a comma-separated list of RF_ names (for --keep-flags). */
int flags_parse_object(const char *s, uint32_t *oflags, char *bad, size_t badsize);

#endif
