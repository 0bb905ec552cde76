/* common.h — helpers shared by the libFuzzer harnesses (fuzz/fuzz_*.c; support
 * files like this one must not be named fuzz_*):
 * exact-size copies of the input, and the checks every harness makes on what
 * a reader returned.  A failed check aborts, which libFuzzer reports as a
 * crash with the input saved. */
#ifndef UGC_FUZZ_COMMON_H
#define UGC_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "heap.h"

/* Abort with MSG when COND is false (also in release builds). */
#define FUZZ_ASSERT(cond, msg) ((cond) ? (void)0 : fuzz_fail(__FILE__, __LINE__, (msg)))
void fuzz_fail(const char *file, int line, const char *msg) __attribute__((noreturn));

/* A malloc'd copy of exactly SIZE bytes (not NUL-terminated, so reading past
 * the end is caught by ASan). */
char *fuzz_copy(const uint8_t *data, size_t size);
/* A loaded heap keeps its invariants: heap_validate passes, reference rows
 * are ordered and name objects, every string id is in the table. */
void fuzz_check_heap(heap *h);
/* An error is one non-empty line starting with PREFIX. */
void fuzz_check_error(const char *err, const char *prefix);

#endif
