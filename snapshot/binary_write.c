/* binary_write.c — writes a heap as a .ugcs binary snapshot: the columns
 * and the packed small tables become the sections that bin_frame()
 * (binary_frame.c) compresses and frames. */
#include "snapshot/binary_format.h"
#include "snapshot/snapshot.h"

#include <stdlib.h>
#include <string.h>

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
	bin_part parts[BIN_NSECTIONS + 1] = {
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
	int rc = -1;
	if (pack_tables(h, &pk)) {
		snprintf(err, errsize, "out of memory");
		goto out;
	}
	parts[SEC_DANGLING].data = pk.dangling;
	parts[SEC_GCREFS].data = pk.gcrefs;
	parts[SEC_CLUSTERS].data = pk.clusters;
	uint32_t hdr[16] = {(uint32_t)h->mode, (uint32_t)h->first_gc_index, h->slots, h->objects, h->nrefs,
			    h->ndangling, h->ngcrefs, h->nclusters, h->ncluster_items, h->strings.count,
			    (uint32_t)h->strings.arena_len, h->engine, h->label,
			    h->no_garbage_elimination ? BIN_OPT_NO_GARBAGE_ELIMINATION : 0, 0, 0};
	/* the oldest version that says it all, so older readers keep reading
	 * what they can: version 1 knows no "@N" name numbers, version 2 no
	 * options word and only both async loading phases at once (bit 3) */
	uint32_t version = hdr[13] ? BIN_VERSION_OPTIONS : BIN_VERSION_OLDEST;
	for (uint32_t i = 0; i < h->slots && version < BIN_VERSION_OPTIONS; i++) {
		if (h->iflags[i] & IF_AsyncLoading)
			version = BIN_VERSION_OPTIONS;
		else if (h->name_num[i] & NAME_NUM_AT)
			version = 2;
	}
	rc = bin_frame(version, hdr, parts, fp, err, errsize);
out:
	free(pk.dangling);
	free(pk.gcrefs);
	free(pk.clusters);
	return rc;
}
