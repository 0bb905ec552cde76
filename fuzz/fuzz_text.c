/* fuzz_text.c — libFuzzer harness for the text snapshot reader: any bytes
 * either load into a heap that passes the heap invariants or give one error
 * line "fuzz:LINE: ..."; never a crash, a leak or undefined behaviour. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "snapshot.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy = fuzz_copy(data, size); /* exact size: overreads are caught */
	heap h;
	char err[SNAP_ERR_MAX];
	heap_init(&h);
	if (text_parse("fuzz", copy, size, &h, err, sizeof err) == 0)
		fuzz_check_heap(&h);
	else
		fuzz_check_error(err, "fuzz:");
	heap_free(&h);
	free(copy);
	return 0;
}
