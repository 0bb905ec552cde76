/* binary_read.c — loads a .ugcs binary snapshot.
 *
 * Nothing from the file is trusted before it is checked: the header checksum
 * first, then every count against sane limits and every section against the
 * bytes present; each zstd frame must declare exactly the size its count
 * implies (and zstd verifies its content checksum).  Sections decompress in
 * parallel straight into the heap's columns.  The loaded heap then passes
 * the same invariant check as a text one. */
#include "snapshot/binary_format.h"
#include "base/base.h"
#include "snapshot/snapshot.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include <zstd_errors.h>

#define LOAD_THREADS 2

int is_binary_snapshot(const void *data, size_t len)
{
	return len >= 8 && memcmp(data, BIN_MAGIC, 8) == 0;
}

static int fail(char *err, size_t errsize, const char *path, uint64_t offset, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static int fail(char *err, size_t errsize, const char *path, uint64_t offset, const char *fmt, ...)
{
	int n = snprintf(err, errsize, "%s: offset %llu: ", path, (unsigned long long)offset);
	va_list ap;
	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < errsize)
		vsnprintf(err + n, errsize - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

struct section_job {
	const unsigned char *src;
	uint64_t csize, raw;
	void *dst;
	size_t result; /* zstd return code */
	int no_memory; /* the worker could not allocate its decompression context */
};

/* The sections, taken in ORDER (the dearest first) by the workers. */
struct pool {
	struct section_job *jobs;
	const int *order;
	int njobs;
	atomic_int next;
};

static void *worker(void *arg)
{
	struct pool *pl = arg;
	ZSTD_DCtx *dx = ZSTD_createDCtx();
	for (;;) {
		int j = atomic_fetch_add(&pl->next, 1);
		if (j >= pl->njobs)
			break;
		struct section_job *jb = &pl->jobs[pl->order[j]];
		jb->result = dx ? ZSTD_decompressDCtx(dx, jb->dst, jb->raw ? jb->raw : 1, jb->src, jb->csize)
				: (size_t)-1;
		jb->no_memory = !dx;
	}
	ZSTD_freeDCtx(dx);
	return NULL;
}

/* Check element K of section S: report its offset as the section's start. */
#define BAD(s, ...) fail(err, errsize, path, sec[s].offset, __VA_ARGS__)

/* A property or referencer name (a string id already in range) within the format's limit. */
static int prop_ok(const strtab *t, uint32_t id) { return strtab_len(t, id) <= PROP_LEN_MAX; }

/* The first reference in [LO, HI) whose target is not an object or whose
 * kind or property is bad, or HI.  Reads the classes, the string offsets
 * and the references only. */
static uint32_t first_bad_ref(const heap *h, uint32_t lo, uint32_t hi)
{
	const strtab *t = &h->strings;
	for (uint32_t k = lo; k < hi; k++)
		if (!heap_exists(h, h->ref_dst[k]) || h->ref_kind[k] >= REF_KIND_COUNT || h->ref_prop[k] >= t->count ||
		    !prop_ok(t, h->ref_prop[k]))
			return k;
	return hi;
}

/* The references' upper half, checked on a thread of its own (a reference
 * is a cache miss or two: 95M of them at 10M objects) while the strings,
 * the objects and the lower half are checked. */
typedef struct ref_check {
	const heap *h;
	uint32_t lo, bad; /* [LO, nrefs); BAD: the first bad one there, or nrefs */
} ref_check;

static void *check_upper_refs(void *arg)
{
	ref_check *c = arg;
	c->bad = first_bad_ref(c->h, c->lo, c->h->nrefs);
	return NULL;
}

/* What comes before the references: the strings, the header's string
 * ids, the objects. */
static int check_objects(const char *path, heap *h, uint32_t version, const struct bin_section *sec, char *err,
			 size_t errsize)
{
	const strtab *t = &h->strings;
	if (t->off[0] != 0 || t->off[t->count] != t->arena_len || (t->count > 0 && t->off[1] != 1))
		return BAD(SEC_STR_OFFSETS, "section string_offsets: bad first or last offset");
	for (uint32_t k = 0; k < t->count; k++) /* each end checked before the byte before it is read */
		if (t->off[k + 1] <= t->off[k] || t->off[k + 1] > t->arena_len || t->arena[t->off[k + 1] - 1] != '\0')
			return BAD(SEC_STR_OFFSETS, "section string_offsets: string %u is malformed", k);
	for (uint32_t k = 1; k < t->count; k++) /* what the text format can say: no NUL, and "" is string 0 */
		if (t->off[k + 1] - t->off[k] < 2 || memchr(t->arena + t->off[k], '\0', t->off[k + 1] - t->off[k] - 1))
			return BAD(SEC_STR_BYTES, "section string_bytes: string %u is empty or holds a NUL byte", k);
	uint32_t copy = 0, as = 0;
	int unique = strtab_index_unique(&h->strings, &copy, &as); /* each text one id, as the text format's */
	if (unique < 0)
		return fail(err, errsize, path, 16, "out of memory (string index)");
	if (unique > 0)
		return BAD(SEC_STR_BYTES, "section string_bytes: string %u repeats string %u", copy, as);
	if (h->engine >= t->count || h->label >= t->count)
		return fail(err, errsize, path, 16, "header: engine or label string id out of range");
	uint32_t objects = 0;
	for (uint32_t i = 0; i < h->slots; i++) {
		if (h->cls[i] == OBJ_FREE) {
			if (h->ref_start[i + 1] != h->ref_start[i])
				return BAD(SEC_REF_START, "section ref_start: free slot %u has references", i);
			continue;
		}
		objects++;
		if ((h->name[i] == 0 && !(h->name_num[i] & NAME_NUM_AT)) || h->name[i] >= t->count || h->name_num[i] == NAME_NUM_AT ||
		    (version < 2 && (h->name_num[i] & NAME_NUM_AT)))
			return BAD(SEC_NAME, "section name: object %u has a bad name", i);
		if (strtab_len(t, h->name[i]) + name_suffix_len(h->name_num[i]) > NAME_LEN_MAX)
			return BAD(SEC_NAME, "section name: object %u's name is longer than %d bytes", i, NAME_LEN_MAX);
		if ((h->oflags[i] & ~RF_KNOWN_MASK) || (h->iflags[i] & ~IF_ALL) || (h->traits[i] & ~TR_ALL) ||
		    (version < BIN_VERSION_OPTIONS && (h->iflags[i] & IF_AsyncLoadingPhase2)))
			return BAD(SEC_OFLAGS, "flags: object %u has unknown flag bits", i);
		if (version < BIN_VERSION_OPTIONS && (h->iflags[i] & IF_AsyncLoadingPhase1))
			h->iflags[i] |= IF_AsyncLoading; /* bit 3 was both phases */
		if (h->ref_start[i + 1] < h->ref_start[i])
			return BAD(SEC_REF_START, "section ref_start: offsets decrease at object %u", i);
	}
	if (objects != h->objects)
		return BAD(SEC_CLASS, "section class: %u objects present, header says %u", objects, h->objects);
	if (h->ref_start[0] != 0 || h->ref_start[h->slots] != h->nrefs)
		return BAD(SEC_REF_START, "section ref_start: offsets do not span the %u references", h->nrefs);
	return 0;
}

/* What comes after the references: the small tables, the clusters' lists,
 * the heap's own invariants. */
static int check_lists(const char *path, heap *h, const struct bin_section *sec, char *err, size_t errsize)
{
	const strtab *t = &h->strings;
	for (uint32_t k = 0; k < h->ndangling; k++) {
		const dangling_ref *d = &h->dangling[k];
		if (!heap_exists(h, d->src) || heap_exists(h, d->dst) || d->dst < 0 || d->kind >= REF_KIND_COUNT ||
		    d->prop >= t->count || !prop_ok(t, d->prop))
			return BAD(SEC_DANGLING, "section dangling: record %u is malformed", k);
	}
	for (uint32_t k = 0; k < h->ngcrefs; k++)
		if (h->gcrefs[k].referencer == 0 || h->gcrefs[k].referencer >= t->count || h->gcrefs[k].prop >= t->count ||
		    !prop_ok(t, h->gcrefs[k].referencer) || !prop_ok(t, h->gcrefs[k].prop) || h->gcrefs[k].dst < 0)
			return BAD(SEC_GCREFS, "section gcrefs: record %u is malformed", k);
	uint64_t at = 0; /* the lists tile cluster_items in order (heap.h): none shared, none past the end */
	for (uint32_t k = 0; k < h->nclusters; k++) {
		const cluster *c = &h->clusters[k];
		if (c->members != at || c->mutables != at + c->n_members ||
		    c->refs != (uint64_t)c->mutables + c->n_mutables ||
		    (at = (uint64_t)c->refs + c->n_refs) > h->ncluster_items)
			return BAD(SEC_CLUSTERS, "section clusters: cluster %u lists are not the next ranges of the items", k);
	}
	if (at != h->ncluster_items)
		return BAD(SEC_CLUSTERS, "section clusters: %llu cluster items, the lists cover %llu",
			   (unsigned long long)h->ncluster_items, (unsigned long long)at);
	char msg[512];
	obj_t where;
	uint32_t cid;
	if (heap_validate(h, msg, sizeof msg, &where, &cid))
		return BAD(cid != UINT32_MAX ? SEC_CLUSTERS : SEC_CLASS, "%s", msg);
	return 0;
}

/* Every value against the format's rules, in the order ugc-snapshot(5)
 * §2.3 gives them (the first failing one is named), the references'
 * upper half on a thread of its own. */
static int check_columns(const char *path, heap *h, uint32_t version, const struct bin_section *sec, char *err,
			 size_t errsize)
{
	ref_check upper = {h, h->nrefs / 2, h->nrefs};
	job j;
	job_start(&j, check_upper_refs, &upper);
	int rc = check_objects(path, h, version, sec, err, errsize);
	uint32_t k = rc ? 0 : first_bad_ref(h, 0, upper.lo);
	job_wait(&j);
	if (rc)
		return rc;
	if (k == upper.lo)
		k = upper.bad;
	if (k < h->nrefs) {
		if (!heap_exists(h, h->ref_dst[k]))
			return BAD(SEC_REF_DST, "section ref_dst: reference %u targets %d, not an object", k, h->ref_dst[k]);
		return BAD(SEC_REF_KIND, "section ref_kind/ref_prop: reference %u is malformed", k);
	}
	return check_lists(path, h, sec, err, errsize);
}

/* Unpack the small tables the writer packed as u32 rows. */
static void unpack_tables(heap *h, const uint32_t *dng, const uint32_t *gc, const uint32_t *cl)
{
	for (uint32_t k = 0; k < h->ndangling; k++) {
		const uint32_t *r = dng + 4 * (size_t)k;
		h->dangling[k] = (dangling_ref){(obj_t)r[0], (obj_t)r[1], r[2], (uint8_t)(r[3] > 255 ? 255 : r[3])};
	}
	for (uint32_t k = 0; k < h->ngcrefs; k++) {
		const uint32_t *r = gc + 3 * (size_t)k;
		h->gcrefs[k] = (gc_ref){r[0], (obj_t)r[1], r[2]};
	}
	for (uint32_t k = 0; k < h->nclusters; k++) {
		const uint32_t *r = cl + 7 * (size_t)k;
		h->clusters[k] = (cluster){(obj_t)r[0], r[1], r[2], r[3], r[4], r[5], r[6]};
	}
}

/* The fixed prefix: magic, version, section count and header checksum,
 * then the header's counts within the format's limits, into *HD.  0, or -1
 * (ERR). */
static int read_header(const char *path, const unsigned char *data, size_t len, struct bin_header *hd, char *err,
		       size_t errsize)
{
	if (len < BIN_PREFIX_BYTES || !is_binary_snapshot(data, len))
		return fail(err, errsize, path, 0, "not a ugc binary snapshot, or truncated header");
	if (bin_get32(data + 8) < BIN_VERSION_OLDEST || bin_get32(data + 8) > BIN_VERSION)
		return fail(err, errsize, path, 8, "unsupported binary snapshot version %u (this tool reads %d to %d)",
			    bin_get32(data + 8), BIN_VERSION_OLDEST, BIN_VERSION);
	if (bin_get32(data + 12) != BIN_NSECTIONS)
		return fail(err, errsize, path, 12, "expected %d sections, found %u", BIN_NSECTIONS, bin_get32(data + 12));
	uint64_t sum = bin_get64(data + BIN_HEADER_BYTES + BIN_TABLE_BYTES);
	if (sum != bin_fnv1a(data, BIN_HEADER_BYTES + BIN_TABLE_BYTES))
		return fail(err, errsize, path, BIN_HEADER_BYTES + BIN_TABLE_BYTES, "header checksum mismatch (file corrupt)");
	uint32_t hv[16];
	for (int i = 0; i < 16; i++)
		hv[i] = bin_get32(data + 16 + 4 * i);
	*hd = (struct bin_header){hv[0], (int32_t)hv[1], hv[2], hv[3], hv[4], hv[5], hv[6], hv[7], hv[8], hv[9],
				  hv[10], hv[11], hv[12], hv[13], {hv[14], hv[15]}};
	uint32_t version = bin_get32(data + 8);
	if (hd->mode > 1)
		return fail(err, errsize, path, 16, "header: mode is %u, expected 0 (game) or 1 (editor)", hd->mode);
	if (hd->options && version < BIN_VERSION_OPTIONS)
		return fail(err, errsize, path, 68, "header: reserved word is %#x, must be zero in a version %u file",
			    hd->options, version);
	if (hd->options & ~(uint32_t)BIN_OPT_ALL)
		return fail(err, errsize, path, 68, "header: options word %#x has unknown bits %#x", hd->options,
			    hd->options & ~(uint32_t)BIN_OPT_ALL);
	for (int k = 0; k < 2; k++)
		if (hd->reserved[k])
			return fail(err, errsize, path, 72 + 4 * (uint64_t)k, "header: reserved word is %#x, must be zero",
				    hd->reserved[k]);
	if (hd->first_gc_index < 0 || hd->objects > hd->slots || hd->slots > (uint32_t)OBJ_INDEX_MAX + 1 ||
	    (uint64_t)hd->slots > (uint64_t)hd->objects * 16 + (1u << 24) || hd->nstrings == 0 ||
	    hd->nstrings == UINT32_MAX)
		return fail(err, errsize, path, 16, "header: counts out of range");
	return 0;
}

/* The section table into SEC[1 ..]: each entry's id, count and element
 * size as the header HD implies, its bytes within the file, one zstd frame
 * that declares exactly that many bytes; and all of them together no more
 * than a file of LEN bytes can plausibly hold.  0, or -1 (ERR). */
static int read_sections(const char *path, const unsigned char *data, size_t len, const struct bin_header *hd,
			 struct bin_section *sec, char *err, size_t errsize)
{
	/* expected element count and size of each section */
	const uint64_t want[BIN_NSECTIONS + 1][2] = {
		[SEC_SERIAL] = {hd->slots, 4}, [SEC_CLASS] = {hd->slots, 4}, [SEC_OUTER] = {hd->slots, 4},
		[SEC_NAME] = {hd->slots, 4}, [SEC_NAME_NUM] = {hd->slots, 4}, [SEC_SIZE] = {hd->slots, 4},
		[SEC_OFLAGS] = {hd->slots, 4}, [SEC_IFLAGS] = {hd->slots, 2}, [SEC_TRAITS] = {hd->slots, 1},
		[SEC_REF_START] = {(uint64_t)hd->slots + 1, 4}, [SEC_REF_DST] = {hd->nrefs, 4},
		[SEC_REF_PROP] = {hd->nrefs, 4}, [SEC_REF_KIND] = {hd->nrefs, 1}, [SEC_DANGLING] = {hd->ndangling, 16},
		[SEC_GCREFS] = {hd->ngcrefs, 12}, [SEC_CLUSTERS] = {hd->nclusters, 28},
		[SEC_CLUSTER_ITEMS] = {hd->ncluster_items, 4}, [SEC_STR_OFFSETS] = {(uint64_t)hd->nstrings + 1, 4},
		[SEC_STR_BYTES] = {hd->string_bytes, 1},
	};
	uint64_t total_raw = 0;
	for (int s = 1; s <= BIN_NSECTIONS; s++) {
		const unsigned char *e = data + BIN_HEADER_BYTES + 32 * (s - 1);
		uint64_t at = BIN_HEADER_BYTES + 32 * (uint64_t)(s - 1);
		sec[s] = (struct bin_section){bin_get32(e), bin_get32(e + 4), bin_get64(e + 8), bin_get64(e + 16), bin_get64(e + 24)};
		if (sec[s].id != (uint32_t)s || sec[s].count != want[s][0] || sec[s].elem_size != want[s][1])
			return fail(err, errsize, path, at, "section %s: id, count or element size disagrees with the header",
				    bin_section_names[s]);
		if (sec[s].offset < BIN_PREFIX_BYTES || sec[s].offset > len || sec[s].csize > len - sec[s].offset)
			return fail(err, errsize, path, at, "section %s: lies outside the file (truncated?)", bin_section_names[s]);
		uint64_t raw = sec[s].count * sec[s].elem_size;
		unsigned long long fcs = ZSTD_getFrameContentSize(data + sec[s].offset, sec[s].csize);
		if (fcs == ZSTD_CONTENTSIZE_ERROR || fcs == ZSTD_CONTENTSIZE_UNKNOWN)
			return fail(err, errsize, path, sec[s].offset, "section %s: not a zstd frame", bin_section_names[s]);
		if (fcs != raw)
			return fail(err, errsize, path, sec[s].offset, "section %s: frame holds %llu bytes, expected %llu",
				    bin_section_names[s], fcs, (unsigned long long)raw);
		total_raw += raw;
	}
	if (total_raw > fileio_decompress_limit(len)) /* a decompression bomb */
		return fail(err, errsize, path, 16, "declared sizes (%llu bytes) are implausible for a %zu-byte file",
			    (unsigned long long)total_raw, len);
	return 0;
}

/* The columns of H for the counts of HD (its slots grown already), and
 * the rows the small tables are packed in (*DNG, *GC, *CL, the caller's to
 * free).  0, or -1 when out of memory (what was allocated is H's). */
static int alloc_columns(heap *h, const struct bin_header *hd, uint32_t **dng, uint32_t **gc, uint32_t **cl)
{
	h->objects = hd->objects;
	h->nrefs = hd->nrefs;
	h->ndangling = hd->ndangling;
	h->ngcrefs = hd->ngcrefs;
	h->nclusters = hd->nclusters;
	h->ncluster_items = hd->ncluster_items;
	h->engine = hd->engine;
	h->label = hd->label;
	strtab_free(&h->strings);
	h->strings.count = hd->nstrings;
	h->strings.cap = hd->nstrings + 1;
	h->strings.arena_len = h->strings.arena_cap = hd->string_bytes;
	h->ref_start = malloc(((size_t)hd->slots + 1) * 4);
	h->ref_dst = malloc((size_t)hd->nrefs * 4 + 1);
	h->ref_prop = malloc((size_t)hd->nrefs * 4 + 1);
	h->ref_kind = malloc((size_t)hd->nrefs + 1);
	h->dangling = malloc((size_t)hd->ndangling * sizeof *h->dangling + 1);
	h->gcrefs = malloc((size_t)hd->ngcrefs * sizeof *h->gcrefs + 1);
	h->clusters = malloc((size_t)hd->nclusters * sizeof *h->clusters + 1);
	h->cluster_items = malloc((size_t)hd->ncluster_items * 4 + 1);
	h->strings.off = malloc(((size_t)hd->nstrings + 1) * 4);
	h->strings.arena = malloc((size_t)hd->string_bytes + 1);
	*dng = malloc((size_t)hd->ndangling * 16 + 1);
	*gc = malloc((size_t)hd->ngcrefs * 12 + 1);
	*cl = malloc((size_t)hd->nclusters * 28 + 1);
	if (!h->ref_start || !h->ref_dst || !h->ref_prop || !h->ref_kind || !h->dangling || !h->gcrefs ||
	    !h->clusters || !h->cluster_items || !h->strings.off || !h->strings.arena || !*dng || !*gc || !*cl)
		return -1;
	return 0;
}

/* Decompress section S of DATA (its entry SEC[S]) into DST[S], every
 * section, on LOAD_THREADS threads.  0, or -1 (ERR). */
static int decompress(const char *path, const unsigned char *data, const struct bin_section *sec, void *const *dst,
		      char *err, size_t errsize)
{
	struct section_job jobs[BIN_NSECTIONS];
	for (int s = 1; s <= BIN_NSECTIONS; s++)
		jobs[s - 1] = (struct section_job){data + sec[s].offset, sec[s].csize, sec[s].count * sec[s].elem_size, dst[s], 0, 0};
	/* the dearest first (by the bytes written and read: ref_dst, poorly
	 * compressible, then ref_prop), so that the other worker does the rest
	 * beside them instead of one of them finishing last, alone */
	int order[BIN_NSECTIONS];
	for (int j = 0; j < BIN_NSECTIONS; j++) {
		int k = j;
		for (; k > 0 && jobs[order[k - 1]].raw + jobs[order[k - 1]].csize < jobs[j].raw + jobs[j].csize; k--)
			order[k] = order[k - 1];
		order[k] = j;
	}
	struct pool pl = {jobs, order, BIN_NSECTIONS, 0};
	jobs_pool(worker, &pl, 0, LOAD_THREADS); /* one queue */
	for (int s = 1; s <= BIN_NSECTIONS; s++) {
		size_t r = jobs[s - 1].result;
		if (jobs[s - 1].no_memory || (ZSTD_isError(r) && ZSTD_getErrorCode(r) == ZSTD_error_memory_allocation))
			return fail(err, errsize, path, sec[s].offset, "section %s: out of memory decompressing it",
				    bin_section_names[s]);
		if (ZSTD_isError(r) || r != jobs[s - 1].raw)
			return fail(err, errsize, path, sec[s].offset, "section %s: corrupt data (%s)", bin_section_names[s],
				    ZSTD_isError(r) ? ZSTD_getErrorName(r) : "short frame");
	}
	return 0;
}

int binary_parse(const char *path, const unsigned char *data, size_t len, heap *h, char *err, size_t errsize)
{
	struct bin_header hd = {0};
	struct bin_section sec[BIN_NSECTIONS + 1] = {{0}};
	if (read_header(path, data, len, &hd, err, errsize) || read_sections(path, data, len, &hd, sec, err, errsize))
		return -1;
	uint32_t version = bin_get32(data + 8);
	/* allocate every column, then decompress into them */
	h->mode = (int)hd.mode;
	h->first_gc_index = hd.first_gc_index;
	h->no_garbage_elimination = (hd.options & BIN_OPT_NO_GARBAGE_ELIMINATION) != 0;
	if (heap_alloc_slots(h, hd.slots))
		return fail(err, errsize, path, 16, "out of memory (%u slots)", hd.slots);
	uint32_t *dng = NULL, *gc = NULL, *cl = NULL;
	int rc;
	if (alloc_columns(h, &hd, &dng, &gc, &cl)) {
		rc = fail(err, errsize, path, 16, "out of memory loading the snapshot");
		goto out;
	}
	void *const dst[BIN_NSECTIONS + 1] = {
		[SEC_SERIAL] = h->serial, [SEC_CLASS] = h->cls, [SEC_OUTER] = h->outer, [SEC_NAME] = h->name,
		[SEC_NAME_NUM] = h->name_num, [SEC_SIZE] = h->size, [SEC_OFLAGS] = h->oflags,
		[SEC_IFLAGS] = h->iflags, [SEC_TRAITS] = h->traits, [SEC_REF_START] = h->ref_start,
		[SEC_REF_DST] = h->ref_dst, [SEC_REF_PROP] = h->ref_prop, [SEC_REF_KIND] = h->ref_kind,
		[SEC_DANGLING] = dng, [SEC_GCREFS] = gc, [SEC_CLUSTERS] = cl,
		[SEC_CLUSTER_ITEMS] = h->cluster_items, [SEC_STR_OFFSETS] = h->strings.off,
		[SEC_STR_BYTES] = h->strings.arena,
	};
	rc = decompress(path, data, sec, dst, err, errsize);
	trace_point("load: sections");
	if (rc == 0) {
		h->strings.arena[hd.string_bytes] = '\0';
		unpack_tables(h, dng, gc, cl);
		rc = check_columns(path, h, version, sec, err, errsize);
	}
	trace_point("load: checked");
	if (rc == 0 && version < 2 && heap_split_whole_names(h))
		rc = fail(err, errsize, path, 0, "out of memory (names)");
out:
	free(dng);
	free(gc);
	free(cl);
	return rc;
}
