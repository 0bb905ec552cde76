/* fuzz_binary.c — libFuzzer harness for the binary snapshot reader: any
 * bytes either load into a heap that keeps the heap invariants or give one
 * error line "fuzz: offset N: ...".  Mutations mostly re-frame a changed
 * column or header with valid checksums (fuzz_mutate_reframing, common.c),
 * so the column checks behind the checksums are fuzzed too. */

#include "fuzz/common.h"
#include "snapshot/snapshot.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	heap h;
	if (fuzz_load(data, size, 1, &h) == 0)
		heap_free(&h);
	return 0;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	return fuzz_mutate_reframing(data, size, max_size, seed);
}
