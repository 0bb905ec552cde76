/* common.c — checks and the re-framing mutator shared by the fuzz harnesses
 * (see common.h). */
#include "fuzz/common.h"

#include "snapshot/binary_format.h"
#include "snapshot/snapshot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

/* Largest decompressed section the re-framing mutator takes apart. */
#define MUTATE_MAX (1u << 20)

void fuzz_fail(const char *file, int line, const char *msg)
{
	fprintf(stderr, "%s:%d: invariant broken: %s\n", file, line, msg);
	abort();
}

char *fuzz_copy(const uint8_t *data, size_t size)
{
	char *p = malloc(size ? size : 1);
	FUZZ_ASSERT(p != NULL, "out of memory copying the input");
	if (size)
		memcpy(p, data, size);
	return p;
}

void fuzz_check_heap(heap *h)
{
	char msg[512];
	obj_t where;
	uint32_t cid;
	FUZZ_ASSERT(heap_validate(h, msg, sizeof msg, &where, &cid) == HP_OK, "a loaded heap fails heap_validate");
	uint32_t objects = 0, nstr = h->strings.count;
	FUZZ_ASSERT(h->ref_start[0] == 0 && h->ref_start[h->slots] == h->nrefs, "reference rows do not span");
	for (uint32_t i = 0; i < h->slots; i++) {
		FUZZ_ASSERT(h->ref_start[i] <= h->ref_start[i + 1], "reference rows decrease");
		if (h->cls[i] == OBJ_FREE) {
			FUZZ_ASSERT(h->ref_start[i] == h->ref_start[i + 1], "a free slot has references");
			continue;
		}
		objects++;
		/* an empty base only before an "@N" number (a V8 node without a name) */
		FUZZ_ASSERT(h->name[i] < nstr && (h->name[i] > 0 || (h->name_num[i] & NAME_NUM_AT)),
			    "an object's name is no string");
		FUZZ_ASSERT(h->name_num[i] != NAME_NUM_AT, "an object's name number is malformed");
		FUZZ_ASSERT(strtab_len(&h->strings, h->name[i]) + name_suffix_len(h->name_num[i]) <= NAME_LEN_MAX,
			    "an object's name is longer than the format allows");
	}
	FUZZ_ASSERT(objects == h->objects, "object count disagrees with the slots in use");
	for (uint32_t k = 0; k < h->nrefs; k++) {
		FUZZ_ASSERT(heap_exists(h, h->ref_dst[k]), "a reference row names no object");
		FUZZ_ASSERT(h->ref_kind[k] < REF_KIND_COUNT && h->ref_prop[k] < nstr, "a reference row is malformed");
	}
	for (uint32_t k = 0; k < h->ndangling; k++)
		FUZZ_ASSERT(heap_exists(h, h->dangling[k].src) && !heap_exists(h, h->dangling[k].dst),
			    "a dangling record is not dangling");
	for (uint32_t k = 0; k < h->ngcrefs; k++)
		FUZZ_ASSERT(h->gcrefs[k].referencer < nstr && h->gcrefs[k].prop < nstr, "a g record is malformed");
	uint64_t at = 0;
	for (uint32_t c = 0; c < h->nclusters; c++) {
		const cluster *x = &h->clusters[c];
		FUZZ_ASSERT(x->members == at && x->mutables == at + x->n_members &&
				    x->refs == (uint64_t)x->mutables + x->n_mutables,
			    "cluster lists do not tile the items");
		at = (uint64_t)x->refs + x->n_refs;
	}
	FUZZ_ASSERT(at == h->ncluster_items, "cluster lists do not cover the items");
	if (h->in_links) { /* a loader's link counts */
		uint32_t *c = fuzz_link_counts(h);
		FUZZ_ASSERT(h->slots == 0 || memcmp(c, h->in_links, h->slots * sizeof *c) == 0,
			    "the link counts are not the heap's");
		free(c);
	}
}

uint32_t *fuzz_link_counts(const heap *h)
{
	uint32_t *c = calloc((size_t)h->slots + 1, sizeof *c);
	FUZZ_ASSERT(c, "out of memory");
	for (uint32_t k = 0; k < h->nrefs; k++)
		c[h->ref_dst[k]]++;
	for (uint32_t i = 0; i < h->slots; i++)
		if (h->cls[i] != OBJ_FREE) {
			c[h->cls[i]]++;
			if (h->outer[i] >= 0)
				c[h->outer[i]]++;
		}
	return c;
}

int fuzz_load(const uint8_t *data, size_t size, int binary, heap *h)
{
	char *copy = fuzz_copy(data, size), err[SNAP_ERR_MAX];
	heap_init(h);
	int rc = binary ? binary_parse("fuzz", (const unsigned char *)copy, size, h, err, sizeof err)
			: text_parse("fuzz", copy, size, h, err, sizeof err);
	free(copy);
	if (rc == 0) {
		fuzz_check_heap(h);
		return 0;
	}
	fuzz_check_error(err, binary ? "fuzz: offset " : "fuzz:");
	heap_free(h);
	return -1;
}

void fuzz_check_error(const char *err, const char *prefix)
{
	FUZZ_ASSERT(err[0] != '\0', "an error without a message");
	FUZZ_ASSERT(strncmp(err, prefix, strlen(prefix)) == 0, "an error that does not name the input");
	FUZZ_ASSERT(strchr(err, '\n') == NULL, "an error message of more than one line");
}

/* Mutate part K (0: the header words, else section K) of a taken-apart file
 * and frame it again into DATA; the new size, or 0 when it does not fit. */
static size_t reframe(uint32_t hdr[16], bin_part parts[], unsigned k, uint8_t *data, size_t max_size)
{
	if (k == 0) {
		LLVMFuzzerMutate((uint8_t *)hdr, 64, 64);
	} else {
		size_t len = (size_t)(parts[k].count * parts[k].elem), cap = len * 2 + 64;
		uint8_t *buf = malloc(cap);
		if (!buf)
			return 0;
		if (len)
			memcpy(buf, parts[k].data, len);
		len = LLVMFuzzerMutate(buf, len, cap);
		free((void *)parts[k].data);
		parts[k].data = buf;
		parts[k].count = len / parts[k].elem;
	}
	char *out = NULL;
	size_t n = 0;
	char err[256];
	FILE *fp = open_memstream(&out, &n);
	if (!fp)
		return 0;
	int rc = bin_frame(BIN_VERSION_OLDEST, hdr, parts, fp, err, sizeof err);
	fclose(fp);
	if (rc || n > max_size) {
		free(out);
		return 0;
	}
	memcpy(data, out, n);
	free(out);
	return n;
}

size_t fuzz_mutate_reframing(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	static int raw_only = -1;
	if (raw_only < 0)
		raw_only = getenv("UGC_FUZZ_RAW") != NULL && strcmp(getenv("UGC_FUZZ_RAW"), "1") == 0;
	if (!raw_only && seed % 4 != 0) {
		uint32_t hdr[16];
		bin_part parts[BIN_NSECTIONS + 1];
		if (bin_unframe(data, size, MUTATE_MAX, hdr, parts) == 0) {
			size_t n = reframe(hdr, parts, (seed / 4) % (BIN_NSECTIONS + 1), data, max_size);
			bin_parts_free(parts);
			if (n)
				return n;
		}
	}
	return LLVMFuzzerMutate(data, size, max_size);
}

char *fuzz_canonical(const heap *h, size_t *len)
{
	char *t = NULL;
	FILE *f = open_memstream(&t, len);
	FUZZ_ASSERT(f != NULL, "open_memstream");
	FUZZ_ASSERT(text_write(h, f) == 0, "text_write failed");
	fclose(f);
	return t;
}
