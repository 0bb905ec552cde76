/* flags.c — flag names <-> bits, in the engine's spelling. */
#include "snapshot/flags.h"

#include "capture/ugc_capture.h"
#include "capture/ugc_internal.h" /* EObjectFlags names by bit; the FLAGS formatter */

#include <string.h>

struct flag_name {
	const char *name;
	uint32_t bit;
};

/* Internal flags in canonical order; PendingKill is Garbage's UE4 name, and
 * AsyncLoading (the engine's deprecated mask) means both loading phases. */
static const struct flag_name internal_flags[] = {
	{"RootSet", IF_RootSet}, {"Native", IF_Native}, {"Async", IF_Async},
	{"AsyncLoading", IF_AsyncLoading}, {"AsyncLoadingPhase1", IF_AsyncLoadingPhase1},
	{"AsyncLoadingPhase2", IF_AsyncLoadingPhase2}, {"LoaderImport", IF_LoaderImport},
	{"Garbage", IF_Garbage}, {"RefCounted", IF_RefCounted},
	{"PendingConstruction", IF_PendingConstruction}, {"ClusterRoot", IF_ClusterRoot},
	{"ReachableInCluster", IF_ReachableInCluster}, {"Unreachable", IF_Unreachable},
	{"PendingKill", IF_Garbage},
};

static const struct flag_name trait_names[] = {
	{"NotReadyForFinishDestroy", TR_NotReadyForFinishDestroy},
	{"GameThreadDestroy", TR_GameThreadDestroy},
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const struct flag_name *find(const struct flag_name *t, size_t n, const char *s, size_t len)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(t[i].name) == len && memcmp(t[i].name, s, len) == 0)
			return &t[i];
	return NULL;
}

/* The EObjectFlags bit named S (LEN bytes), 0 when none is. */
static uint32_t object_flag(const char *s, size_t len)
{
	for (int b = 0; b < 32; b++)
		if (ugc_object_flag_names[b] && strlen(ugc_object_flag_names[b]) == len &&
		    memcmp(ugc_object_flag_names[b], s, len) == 0)
			return 1u << b;
	return 0;
}

static void copy_bad(char *bad, size_t badsize, const char *s, size_t len)
{
	if (!badsize)
		return;
	if (len >= badsize)
		len = badsize - 1;
	memcpy(bad, s, len);
	bad[len] = '\0';
}

int flags_parse(const char *s, size_t len, uint32_t *oflags, uint16_t *iflags,
		uint8_t *traits, char *bad, size_t badsize)
{
	*oflags = 0;
	*iflags = 0;
	*traits = 0;
	if (len == 1 && s[0] == '-')
		return 0;
	size_t i = 0;
	while (i <= len) {
		size_t j = i;
		while (j < len && s[j] != ',')
			j++;
		const char *w = s + i;
		size_t wl = j - i;
		const struct flag_name *f;
		uint32_t rf;
		if (wl > 3 && memcmp(w, "RF_", 3) == 0 && (rf = object_flag(w, wl)))
			*oflags |= rf;
		else if ((f = find(internal_flags, COUNT(internal_flags), w, wl)))
			*iflags |= (uint16_t)f->bit;
		else if ((f = find(trait_names, COUNT(trait_names), w, wl)))
			*traits |= (uint8_t)f->bit;
		else {
			copy_bad(bad, badsize, w, wl);
			return -1;
		}
		i = j + 1;
	}
	return 0;
}

int flags_parse_object(const char *s, uint32_t *oflags, char *bad, size_t badsize)
{
	uint16_t iflags;
	uint8_t traits;
	if (flags_parse(s, strlen(s), oflags, &iflags, &traits, bad, badsize))
		return -1;
	if (iflags || traits) {
		copy_bad(bad, badsize, s, strlen(s));
		return -1;
	}
	return 0;
}

/* Our internal flag bits, in bit order, as the engine's EInternalObjectFlags
 * bits: the capture library formats the field (one canonical order). */
static const uint32_t engine_internal[] = {
	UGC_IF_RootSet, UGC_IF_Native, UGC_IF_Async, UGC_IF_AsyncLoadingPhase1, UGC_IF_LoaderImport, UGC_IF_Garbage,
	UGC_IF_RefCounted, UGC_IF_PendingConstruction, UGC_IF_ClusterRoot, UGC_IF_ReachableInCluster, UGC_IF_Unreachable,
	UGC_IF_AsyncLoadingPhase2,
};
_Static_assert(IF_ALL == (1 << COUNT(engine_internal)) - 1, "an internal flag without its engine bit");
_Static_assert((int)TR_NotReadyForFinishDestroy == (int)UGC_TRAIT_NOT_READY_FOR_FINISH_DESTROY &&
	       (int)TR_GameThreadDestroy == (int)UGC_TRAIT_GAME_THREAD_DESTROY && FLAGS_MAX >= UGC_FLAGS_MAX,
	       "capture traits or the FLAGS buffer differ from the capture library's");

size_t flags_format(char *buf, uint32_t oflags, uint16_t iflags, uint8_t traits)
{
	uint32_t engine = 0;
	for (size_t b = 0; b < COUNT(engine_internal); b++)
		if (iflags >> b & 1u)
			engine |= engine_internal[b];
	return ugc_flags_format(buf, oflags, engine, traits);
}
