/* v8_permute.h — the V8 harness's field-order mutation (fuzz_v8.c): a
 * .heapsnapshot document whose snapshot.meta node_fields or edge_fields
 * come in another order, with the node_types / edge_types entries moved
 * with their fields and every tuple of the nodes / edges arrays reordered
 * to match, so the document means the same heap.  A reader that reads the
 * fields by name must load both alike. */
#ifndef UGC_FUZZ_V8_PERMUTE_H
#define UGC_FUZZ_V8_PERMUTE_H

#include <stddef.h>
#include <stdint.h>

/* Write to OUT (room for at least SIZE bytes) the document IN with the
 * fields of nodes, of edges or of both in an order SEED picks: its size,
 * or 0 when IN is not a document this can take apart (not plain JSON, no
 * meta, a *_types array whose length is not its *_fields', an array of
 * values that is not whole tuples, a key given twice).  *DISTINCT is set
 * to whether the field names permuted were all different (if not, a
 * reader may take another of two fields of one name). */
size_t v8_permute(const uint8_t *in, size_t size, uint8_t *out, unsigned seed, int *distinct);

#endif
