/* fuzz_binary.c — libFuzzer harness for the binary snapshot reader: any
 * bytes either load into a heap that keeps the heap invariants or give one
 * error line "fuzz: offset N: ...".  Mutations mostly re-frame a changed
 * column or header with valid checksums (fuzz_mutate_reframing, common.c),
 * so the column checks behind the checksums are fuzzed too. */
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "snapshot.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy = fuzz_copy(data, size);
	heap h;
	char err[SNAP_ERR_MAX];
	heap_init(&h);
	if (binary_parse("fuzz", (const unsigned char *)copy, size, &h, err, sizeof err) == 0)
		fuzz_check_heap(&h);
	else
		fuzz_check_error(err, "fuzz: offset ");
	heap_free(&h);
	free(copy);
	return 0;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	return fuzz_mutate_reframing(data, size, max_size, seed);
}
