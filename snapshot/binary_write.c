/* binary_write.c — writes a heap as a .ugcs binary snapshot.
 * Each column is compressed into its own zstd frame, the header and section
 * table are written with their checksum, then the frames. */
#include "binary_format.h"
#include "snapshot.h"

#include <stdlib.h>
#include <string.h>
#include <zstd.h>

const char *const bin_section_names[BIN_NSECTIONS + 1] = {
	"?", "serial", "class", "outer", "name", "name_num", "size", "object_flags",
	"internal_flags", "traits", "ref_start", "ref_dst", "ref_prop", "ref_kind",
	"dangling", "gcrefs", "clusters", "cluster_items", "string_offsets", "string_bytes",
};

uint64_t bin_fnv1a(const void *data, uint64_t len)
{
	const unsigned char *p = data;
	uint64_t h = 0xcbf29ce484222325ull;
	for (uint64_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

static void put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void put64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* The columns of the packed small tables, built before compression. */
struct packed {
	uint32_t *dangling, *gcrefs, *clusters;
};

static int pack_tables(const heap *h, struct packed *pk)
{
	pk->dangling = malloc((size_t)h->ndangling * 16 + 1);
	pk->gcrefs = malloc((size_t)h->ngcrefs * 12 + 1);
	pk->clusters = malloc((size_t)h->nclusters * 28 + 1);
	if (!pk->dangling || !pk->gcrefs || !pk->clusters)
		return -1;
	for (uint32_t k = 0; k < h->ndangling; k++) {
		const dangling_ref *d = &h->dangling[k];
		uint32_t *o = pk->dangling + 4 * (size_t)k;
		o[0] = (uint32_t)d->src; o[1] = (uint32_t)d->dst; o[2] = d->prop; o[3] = d->kind;
	}
	for (uint32_t k = 0; k < h->ngcrefs; k++) {
		uint32_t *o = pk->gcrefs + 3 * (size_t)k;
		o[0] = h->gcrefs[k].referencer; o[1] = (uint32_t)h->gcrefs[k].dst; o[2] = h->gcrefs[k].prop;
	}
	for (uint32_t k = 0; k < h->nclusters; k++) {
		const cluster *c = &h->clusters[k];
		uint32_t *o = pk->clusters + 7 * (size_t)k;
		o[0] = (uint32_t)c->root; o[1] = c->members; o[2] = c->n_members; o[3] = c->mutables;
		o[4] = c->n_mutables; o[5] = c->refs; o[6] = c->n_refs;
	}
	return 0;
}

int binary_write(const heap *h, FILE *fp, char *err, size_t errsize)
{
	struct packed pk = {0};
	struct { const void *data; uint32_t elem; uint64_t count; } src[BIN_NSECTIONS + 1] = {
		[SEC_SERIAL] = {h->serial, 4, h->slots},
		[SEC_CLASS] = {h->cls, 4, h->slots},
		[SEC_OUTER] = {h->outer, 4, h->slots},
		[SEC_NAME] = {h->name, 4, h->slots},
		[SEC_NAME_NUM] = {h->name_num, 4, h->slots},
		[SEC_SIZE] = {h->size, 4, h->slots},
		[SEC_OFLAGS] = {h->oflags, 4, h->slots},
		[SEC_IFLAGS] = {h->iflags, 2, h->slots},
		[SEC_TRAITS] = {h->traits, 1, h->slots},
		[SEC_REF_START] = {h->ref_start, 4, (uint64_t)h->slots + 1},
		[SEC_REF_DST] = {h->ref_dst, 4, h->nrefs},
		[SEC_REF_PROP] = {h->ref_prop, 4, h->nrefs},
		[SEC_REF_KIND] = {h->ref_kind, 1, h->nrefs},
		[SEC_DANGLING] = {NULL, 16, h->ndangling},
		[SEC_GCREFS] = {NULL, 12, h->ngcrefs},
		[SEC_CLUSTERS] = {NULL, 28, h->nclusters},
		[SEC_CLUSTER_ITEMS] = {h->cluster_items, 4, h->ncluster_items},
		[SEC_STR_OFFSETS] = {h->strings.off, 4, (uint64_t)h->strings.count + 1},
		[SEC_STR_BYTES] = {h->strings.arena, 1, h->strings.arena_len},
	};
	void *frames[BIN_NSECTIONS + 1] = {0};
	size_t fsize[BIN_NSECTIONS + 1] = {0};
	int rc = -1;
	ZSTD_CCtx *cx = ZSTD_createCCtx();
	if (!cx || pack_tables(h, &pk)) {
		snprintf(err, errsize, "out of memory");
		goto out;
	}
	src[SEC_DANGLING].data = pk.dangling;
	src[SEC_GCREFS].data = pk.gcrefs;
	src[SEC_CLUSTERS].data = pk.clusters;
	ZSTD_CCtx_setParameter(cx, ZSTD_c_compressionLevel, 3);
	ZSTD_CCtx_setParameter(cx, ZSTD_c_checksumFlag, 1);
	ZSTD_CCtx_setParameter(cx, ZSTD_c_nbWorkers, 2); /* ignored without MT support */
	for (int s = 1; s <= BIN_NSECTIONS; s++) {
		size_t raw = (size_t)(src[s].count * src[s].elem);
		static const char empty[1];
		const void *data = raw ? src[s].data : empty;
		size_t bound = ZSTD_compressBound(raw);
		frames[s] = malloc(bound);
		if (!frames[s]) {
			snprintf(err, errsize, "out of memory compressing section %s", bin_section_names[s]);
			goto out;
		}
		fsize[s] = ZSTD_compress2(cx, frames[s], bound, data, raw);
		if (ZSTD_isError(fsize[s])) {
			snprintf(err, errsize, "compressing section %s: %s", bin_section_names[s], ZSTD_getErrorName(fsize[s]));
			goto out;
		}
	}
	unsigned char prefix[BIN_PREFIX_BYTES] = {0};
	memcpy(prefix, BIN_MAGIC, 8);
	put32(prefix + 8, BIN_VERSION);
	put32(prefix + 12, BIN_NSECTIONS);
	uint32_t hdr[16] = {(uint32_t)h->mode, (uint32_t)h->first_gc_index, h->slots, h->objects, h->nrefs,
			    h->ndangling, h->ngcrefs, h->nclusters, h->ncluster_items, h->strings.count,
			    (uint32_t)h->strings.arena_len, h->engine, h->label, 0, 0, 0};
	for (int i = 0; i < 16; i++)
		put32(prefix + 16 + 4 * i, hdr[i]);
	uint64_t offset = BIN_PREFIX_BYTES;
	for (int s = 1; s <= BIN_NSECTIONS; s++) {
		unsigned char *e = prefix + BIN_HEADER_BYTES + 32 * (s - 1);
		put32(e, (uint32_t)s);
		put32(e + 4, src[s].elem);
		put64(e + 8, src[s].count);
		put64(e + 16, offset);
		put64(e + 24, fsize[s]);
		offset += fsize[s];
	}
	put64(prefix + BIN_HEADER_BYTES + BIN_TABLE_BYTES, bin_fnv1a(prefix, BIN_HEADER_BYTES + BIN_TABLE_BYTES));
	fwrite(prefix, 1, sizeof prefix, fp);
	for (int s = 1; s <= BIN_NSECTIONS; s++)
		fwrite(frames[s], 1, fsize[s], fp);
	rc = ferror(fp) ? -1 : 0;
	if (rc)
		snprintf(err, errsize, "write error");
out:
	for (int s = 0; s <= BIN_NSECTIONS; s++)
		free(frames[s]);
	free(pk.dangling);
	free(pk.gcrefs);
	free(pk.clusters);
	ZSTD_freeCCtx(cx);
	return rc;
}
