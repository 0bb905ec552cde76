/* ugc_capture.h — write ugc text snapshots (.ugct, optionally zstd) from an
 * engine, a script or a test.  The whole public interface of libugccapture.
 *
 * C99, no dependency beyond libzstd (none at all when built with
 * UGC_CAPTURE_NO_ZSTD), usable from C++.  The library does every formatting
 * rule of the text format for the caller: percent-escaping, flag names,
 * length limits, record order.  Records are streamed: memory stays a fixed
 * buffer plus one bit per object slot seen, whatever the number of records.
 *
 * Use:
 *     ugc_writer *w;
 *     char err[256];
 *     ugc_options o = UGC_OPTIONS_INIT;
 *     if (ugc_writer_open(&w, "heap.ugct", &o, err, sizeof err)) { report(err); return; }
 *     ugc_writer_engine(w, "5.5.4");            // header: before the first record
 *     ugc_writer_garbage_elimination(w, 1);
 *     ugc_writer_object(w, &obj);               // any order of o/r/g/c records
 *     ugc_writer_ref(w, from, to, UGC_REF_STRONG, "Components[3]");
 *     if (ugc_writer_close(w, &stats, err, sizeof err)) report(err);
 *
 * Errors are return codes (UGC_OK == 0, else a negative UGC_E* value) with a
 * message from ugc_writer_error(); nothing aborts.  A call rejected for a bad
 * argument or a call out of order (UGC_EINVAL, UGC_EORDER, UGC_ETOOLONG,
 * UGC_EDUP) writes nothing and the writer stays usable.  An I/O or memory
 * failure (UGC_EIO, UGC_ENOMEM) is sticky: every later call returns it, and
 * close removes the temporary file.  The output is written to PATH.tmp and
 * renamed to PATH only by a successful ugc_writer_close(), which first writes
 * the end record (the counts of each record kind), so PATH never holds a
 * partial snapshot and a reader can tell a file cut short.
 *
 * Length limits (the format's, which are the engine's): an object NAME is cut
 * to 1023 bytes, a PROPERTY and a referencer NAME to 4096 bytes, each on a
 * UTF-8 character boundary, and the cut is counted in ugc_stats.names_cut;
 * with ugc_options.strict_lengths the record is refused with UGC_ETOOLONG
 * instead.  A SIZE above 4294967295 is written as 4294967295 and counted in
 * ugc_stats.sizes_clamped.
 *
 * A writer is not thread-safe: one thread writes through it at a time. */
#ifndef UGC_CAPTURE_H
#define UGC_CAPTURE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Return codes. */
enum {
	UGC_OK = 0,
	UGC_EINVAL = -1,   /* a bad argument (index out of range, unknown kind, NULL) */
	UGC_EORDER = -2,   /* a header record after the first record, or given twice */
	UGC_ETOOLONG = -3, /* a name over its limit, with strict_lengths */
	UGC_EDUP = -4,     /* an object INDEX written twice */
	UGC_EEXIST = -5,   /* the output exists and overwrite is 0 */
	UGC_EIO = -6,      /* the file could not be opened, written or renamed (sticky) */
	UGC_ENOMEM = -7,   /* out of memory (sticky) */
	UGC_ENOZSTD = -8   /* compression asked of a library built without zstd */
};

/* "none" for an OUTER; also the largest INDEX is UGC_INDEX_MAX. */
#define UGC_NONE (-1)
#define UGC_INDEX_MAX 2147483646

/* The format's length limits, in bytes of the unescaped name. */
#define UGC_NAME_MAX 1023
#define UGC_PROPERTY_MAX 4096

/* Reference kinds (the KIND field of an "r" record). */
typedef enum ugc_ref_kind {
	UGC_REF_STRONG,    /* a UPROPERTY object reference (schema member) */
	UGC_REF_ARO,       /* reported by AddReferencedObjects */
	UGC_REF_IMMUTABLE, /* never nulled by GC (e.g. the external package) */
	UGC_REF_WEAK,      /* registered for clearing; does not keep alive */
	UGC_REF_SOFT       /* soft path / TWeakObjectPtr: for queries only */
} ugc_ref_kind;

/* Capture traits: what the dumper read from an object's virtual functions. */
enum {
	UGC_TRAIT_NOT_READY_FOR_FINISH_DESTROY = 1 << 0, /* IsReadyForFinishDestroy() was false */
	UGC_TRAIT_GAME_THREAD_DESTROY = 1 << 1           /* IsDestructionThreadSafe() was false */
};

/* EInternalObjectFlags bits of UE 5.5 that the format names (the engine's
 * values; pass the engine's flags word unchanged, other bits are ignored). */
#define UGC_IF_LoaderImport (1u << 20)
#define UGC_IF_Garbage (1u << 21)
#define UGC_IF_AsyncLoadingPhase1 (1u << 22)
#define UGC_IF_ReachableInCluster (1u << 23)
#define UGC_IF_ClusterRoot (1u << 24)
#define UGC_IF_Native (1u << 25)
#define UGC_IF_Async (1u << 26)
#define UGC_IF_AsyncLoadingPhase2 (1u << 27)
#define UGC_IF_Unreachable (1u << 28)
#define UGC_IF_RefCounted (1u << 29)
#define UGC_IF_RootSet (1u << 30)
#define UGC_IF_PendingConstruction (1u << 31)

/* Object flags are EObjectFlags with the engine's own values (RF_Public =
 * 0x1 ... RF_AllocatedInSharedPage = 0x80000000); every UE 5.5 bit has a
 * name except 0x04000000, which is unassigned and not written. */

/* Options of ugc_writer_open().  Start from UGC_OPTIONS_INIT. */
typedef struct ugc_options {
	int compress;       /* 0: plain text; 1..22: zstd level, streamed */
	int overwrite;      /* 0: refuse an existing PATH (UGC_EEXIST) */
	int strict_lengths; /* 0: cut over-long names and count them; 1: UGC_ETOOLONG */
	/* Allocation hooks for the writer's own memory (both or neither; NULL:
	 * malloc/free).  zstd keeps its own fixed working memory. */
	void *(*alloc)(void *user, size_t size);
	void (*free)(void *user, void *ptr);
	void *user;
} ugc_options;
#define UGC_OPTIONS_INIT {0, 0, 0, NULL, NULL, NULL}

/* One object record ("o").  name is NUL-terminated UTF-8, the FName with
 * its number suffix (e.g. "BP_Enemy_C_3"). */
typedef struct ugc_object {
	int32_t index;           /* InternalIndex, 0..UGC_INDEX_MAX */
	uint32_t serial;         /* SerialNumber, 0 when none was assigned */
	int32_t class_index;     /* INDEX of its UClass */
	int32_t outer_index;     /* INDEX of its Outer, or UGC_NONE */
	const char *name;
	uint64_t size;           /* bytes this object alone accounts for */
	uint32_t object_flags;   /* EObjectFlags, engine values */
	uint32_t internal_flags; /* EInternalObjectFlags, engine values (UGC_IF_*) */
	uint32_t traits;         /* UGC_TRAIT_* */
} ugc_object;

/* What a writer wrote (counts of records; bytes of text before compression;
 * bytes of the file). */
typedef struct ugc_stats {
	uint64_t objects, refs, gcrefs, clusters;
	uint64_t text_bytes, file_bytes;
	uint64_t names_cut;      /* names cut to their length limit */
	uint64_t sizes_clamped;  /* SIZE values clamped to 4294967295 */
	uint64_t null_entries;   /* negative cluster list entries skipped */
} ugc_stats;

typedef struct ugc_writer ugc_writer;

/* Open PATH.tmp for writing and write the magic record.  PATH is UTF-8 (on
 * Windows it is opened through its wide-character form).  On success *W is
 * the writer; on failure *W is NULL and ERR (if not NULL) holds the message. */
int ugc_writer_open(ugc_writer **w, const char *path, const ugc_options *opt, char *err, size_t errsize);

/* Header records: each at most once, before the first o/r/g/c record. */
int ugc_writer_engine(ugc_writer *w, const char *text);      /* engine version, free text */
int ugc_writer_mode(ugc_writer *w, int editor);              /* 0: mode game, 1: mode editor */
int ugc_writer_first_gc_index(ugc_writer *w, int32_t n);     /* the disregard pool is [0, n) */
int ugc_writer_label(ugc_writer *w, const char *text);       /* free text */
/* Whether the engine eliminates references to garbage objects (UE 5.5:
 * UObjectBaseUtility::IsGarbageEliminationEnabled()): 1 writes
 * "garbage-elimination on" (also what a snapshot without the record means),
 * 0 writes "garbage-elimination off", which ugc-analyze warns about. */
int ugc_writer_garbage_elimination(ugc_writer *w, int on);

/* Records. */
int ugc_writer_object(ugc_writer *w, const ugc_object *o);
/* PROPERTY may be NULL or "" (no property). */
int ugc_writer_ref(ugc_writer *w, int32_t from, int32_t to, ugc_ref_kind kind, const char *property);
/* An FGCObject's reference: REFERENCER is its GetReferencerName() (not empty). */
int ugc_writer_gcref(ugc_writer *w, const char *referencer, int32_t to, const char *property);
/* One FUObjectCluster.  Negative list entries (the engine's null entries in
 * ReferencedClusters) are skipped and counted in ugc_stats.null_entries. */
int ugc_writer_cluster(ugc_writer *w, int32_t root, const int32_t *members, size_t n_members,
		       const int32_t *mutables, size_t n_mutables, const int32_t *clusters, size_t n_clusters);

/* The message of the last failed call ("" when none). */
const char *ugc_writer_error(const ugc_writer *w);
/* Counts so far. */
void ugc_writer_stats(const ugc_writer *w, ugc_stats *st);

/* Finish the file, rename it to PATH and free the writer.  STATS and ERR
 * may be NULL.  On failure the temporary file is removed, PATH is untouched. */
int ugc_writer_close(ugc_writer *w, ugc_stats *stats, char *err, size_t errsize);
/* Give up: remove the temporary file and free the writer. */
void ugc_writer_abort(ugc_writer *w);

/* Escape LEN bytes of S as a field of the text format into OUT, which holds
 * 3 * LEN + 1 bytes; returns the escaped length (OUT is NUL-terminated). */
size_t ugc_escape(const char *s, size_t len, char *out);
/* The longest prefix of S (LEN bytes) of at most MAX bytes that ends on a
 * UTF-8 character boundary. */
size_t ugc_utf8_cut(const char *s, size_t len, size_t max);

#ifdef __cplusplus
}
#endif

#endif
