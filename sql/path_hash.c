/* path_hash.c — path hashes for the database (see path_hash.h). */
#include "sql/path_hash.h"

#include "base/base.h"

#include <stdlib.h>
#include <string.h>

/* The hash of I's path, given its Outer's (already computed). */
static uint64_t extend(const heap *h, const uint64_t *hash, obj_t i, char *name)
{
	obj_t outer = h->outer[i];
	uint64_t x = FNV1A_START;
	if (outer >= 0) {
		char sep = heap_path_separator(h, outer);
		x = fnv1a_add(hash[outer], &sep, 1);
	}
	heap_name(h, i, name, HEAP_NAME_MAX);
	return fnv1a_add(x, name, strlen(name));
}

int path_hash_heap(const heap *h, uint64_t **out)
{
	uint64_t *hash = calloc((size_t)h->slots + 1, sizeof *hash);
	uint8_t *done = calloc((size_t)h->slots + 1, 1);
	obj_t *stack = malloc(((size_t)h->slots + 1) * sizeof *stack);
	char *name = malloc(HEAP_NAME_MAX);
	int rc = hash && done && stack && name ? 0 : -1;
	for (uint32_t i = 0; i < h->slots && rc == 0; i++) {
		if (h->cls[i] == OBJ_FREE || done[i])
			continue;
		/* climb to a computed Outer (validated heaps have no Outer loops;
		 * the stack holds at most every slot once even so) */
		size_t n = 0;
		for (obj_t o = (obj_t)i; o >= 0 && !done[o] && n <= h->slots; o = h->outer[o]) {
			stack[n++] = o;
			done[o] = 1;
		}
		while (n > 0) {
			obj_t o = stack[--n];
			hash[o] = extend(h, hash, o, name);
		}
	}
	free(done);
	free(stack);
	free(name);
	if (rc) {
		free(hash);
		return -1;
	}
	*out = hash;
	return 0;
}
