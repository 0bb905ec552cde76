/* common.h — helpers shared by the libFuzzer harnesses (fuzz/fuzz_*.c; support
 * files like this one must not be named fuzz_*):
 * exact-size copies of the input, and the checks every harness makes on what
 * a reader returned.  A failed check aborts, which libFuzzer reports as a
 * crash with the input saved. */
#ifndef UGC_FUZZ_COMMON_H
#define UGC_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "snapshot/heap.h"

/* Abort with MSG when COND is false (also in release builds). */
#define FUZZ_ASSERT(cond, msg) ((cond) ? (void)0 : fuzz_fail(__FILE__, __LINE__, (msg)))
void fuzz_fail(const char *file, int line, const char *msg) __attribute__((noreturn));

/* A malloc'd copy of exactly SIZE bytes (not NUL-terminated, so reading past
 * the end is caught by ASan). */
char *fuzz_copy(const uint8_t *data, size_t size);
/* A loaded heap keeps its invariants: heap_validate passes, reference rows
 * are ordered and name objects, every string id is in the table, cluster
 * lists tile the items, link counts (if any) are its links. */
void fuzz_check_heap(heap *h);
/* H's links counted at their ends, as a loader may give them (heap.in_links):
 * every reference, Class and Outer.  Malloc'd, slots + 1 entries. */
uint32_t *fuzz_link_counts(const heap *h);
/* An error is one non-empty line starting with PREFIX. */
void fuzz_check_error(const char *err, const char *prefix);
/* The canonical text of H (text_write; malloc'd, *LEN bytes). */
char *fuzz_canonical(const heap *h, size_t *len);
/* Parse the input as a text (BINARY 0) or binary snapshot named "fuzz":
 * 0 with a checked heap in H, or -1 after checking the error (H freed). */
int fuzz_load(const uint8_t *data, size_t size, int binary, heap *h);

/* The re-framing mode, for a harness's LLVMFuzzerCustomMutator: a random
 * mutation of a .ugcs almost always breaks a checksum, so the column checks
 * behind them would never be reached.  Three mutations in four of an input
 * that is a framed .ugcs therefore take it apart (bin_unframe), let
 * libFuzzer mutate one part — the header words or one section's
 * decompressed content — and frame it again with valid sizes and checksums
 * (bin_frame); the rest, and any other input, mutate the raw bytes, which
 * fuzzes the framing checks.  UGC_FUZZ_RAW=1 mutates raw bytes only. */
size_t fuzz_mutate_reframing(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

#endif
