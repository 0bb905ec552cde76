/* ugc_flags.c — the FLAGS field of an "o" record from the engine's words. */
#include "ugc_internal.h"
#include "ugc_capture.h"

#include <string.h>

/* EObjectFlags of UE 5.5 by bit number (bit 26 was RF_Dynamic, removed). */
const char *const ugc_object_flag_names[32] = {
	"RF_Public", "RF_Standalone", "RF_MarkAsNative", "RF_Transactional",
	"RF_ClassDefaultObject", "RF_ArchetypeObject", "RF_Transient", "RF_MarkAsRootSet",
	"RF_TagGarbageTemp", "RF_NeedInitialization", "RF_NeedLoad", "RF_KeepForCooker",
	"RF_NeedPostLoad", "RF_NeedPostLoadSubobjects", "RF_NewerVersionExists", "RF_BeginDestroyed",
	"RF_FinishDestroyed", "RF_BeingRegenerated", "RF_DefaultSubObject", "RF_WasLoaded",
	"RF_TextExportTransient", "RF_LoadCompleted", "RF_InheritableComponentTemplate", "RF_DuplicateTransient",
	"RF_StrongRefOnFrame", "RF_NonPIEDuplicateTransient", NULL, "RF_WillBeLoaded",
	"RF_HasExternalPackage", "RF_HasPlaceholderType", "RF_MirroredGarbage", "RF_AllocatedInSharedPage",
};

/* EInternalObjectFlags in the format's canonical order.  Both async loading
 * phases together are the one name AsyncLoading (the engine's mask of the
 * two); one phase alone is written by its own name. */
static const struct {
	const char *name;
	uint32_t bits;
} internal_names[] = {
	{"RootSet", UGC_IF_RootSet},
	{"Native", UGC_IF_Native},
	{"Async", UGC_IF_Async},
	{"AsyncLoading", UGC_IF_AsyncLoadingPhase1 | UGC_IF_AsyncLoadingPhase2},
	{"AsyncLoadingPhase1", UGC_IF_AsyncLoadingPhase1},
	{"AsyncLoadingPhase2", UGC_IF_AsyncLoadingPhase2},
	{"LoaderImport", UGC_IF_LoaderImport},
	{"Garbage", UGC_IF_Garbage},
	{"RefCounted", UGC_IF_RefCounted},
	{"PendingConstruction", UGC_IF_PendingConstruction},
	{"ClusterRoot", UGC_IF_ClusterRoot},
	{"ReachableInCluster", UGC_IF_ReachableInCluster},
	{"Unreachable", UGC_IF_Unreachable},
};

static size_t append(char *buf, size_t n, const char *name)
{
	size_t l = strlen(name);
	if (n)
		buf[n++] = ',';
	memcpy(buf + n, name, l);
	return n + l;
}

size_t ugc_flags_format(char *buf, uint32_t object_flags, uint32_t internal_flags, uint32_t traits)
{
	size_t n = 0;
	for (int b = 0; b < 32; b++)
		if ((object_flags >> b & 1u) && ugc_object_flag_names[b])
			n = append(buf, n, ugc_object_flag_names[b]);
	/* a name is written when all its bits are set, which it then consumes:
	 * AsyncLoading comes before the phase names */
	for (size_t i = 0; i < sizeof internal_names / sizeof internal_names[0]; i++)
		if ((internal_flags & internal_names[i].bits) == internal_names[i].bits) {
			n = append(buf, n, internal_names[i].name);
			internal_flags &= ~internal_names[i].bits;
		}
	if (traits & UGC_TRAIT_NOT_READY_FOR_FINISH_DESTROY)
		n = append(buf, n, "NotReadyForFinishDestroy");
	if (traits & UGC_TRAIT_GAME_THREAD_DESTROY)
		n = append(buf, n, "GameThreadDestroy");
	if (!n)
		buf[n++] = '-';
	buf[n] = '\0';
	return n;
}
