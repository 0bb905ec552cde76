/* common.c — checks shared by the fuzz harnesses (see common.h). */
#include "common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
		FUZZ_ASSERT(h->name[i] > 0 && h->name[i] < nstr, "an object's name is no string");
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
}

void fuzz_check_error(const char *err, const char *prefix)
{
	FUZZ_ASSERT(err[0] != '\0', "an error without a message");
	FUZZ_ASSERT(strncmp(err, prefix, strlen(prefix)) == 0, "an error that does not name the input");
	FUZZ_ASSERT(strchr(err, '\n') == NULL, "an error message of more than one line");
}
