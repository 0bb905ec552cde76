/* fuzz_text.c — libFuzzer harness for the text snapshot reader: any bytes
 * either load into a heap that passes the heap invariants or give one error
 * line "fuzz:LINE: ..."; never a crash, a leak or undefined behaviour. */

#include "fuzz/common.h"
#include "snapshot/snapshot.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	heap h;
	if (fuzz_load(data, size, 0, &h) == 0)
		heap_free(&h);
	return 0;
}
