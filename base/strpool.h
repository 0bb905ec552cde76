/* strpool.h — interned strings with stable addresses, owned by a query
 * view: edges carry pointers into it instead of fixed buffers, so a hop
 * costs a few bytes however long its property name, and each distinct name
 * is kept once however many edges carry it.
 *
 * One of the tool's two interners, for a real reason: this one hands out
 * pointers that stay valid while it grows (its arena is chunks that never
 * move); snapshot/strtab.h hands out 32-bit ids into one contiguous arena,
 * the form the binary snapshot stores.  Both index their strings with
 * hashindex.h. */
#ifndef UGC_STRPOOL_H
#define UGC_STRPOOL_H

#include <stddef.h>
#include <stdint.h>

#include "base/hashindex.h"

typedef struct strpool {
	char **chunks;          /* arena: strings never move */
	size_t nchunks, cap_chunks, used; /* bytes used in the last chunk */
	const char **str;       /* the strings in the order interned */
	size_t count, cap;
	hashindex *index;       /* their numbers by string; NULL until the first */
} strpool;

/* The interned copy of S (LEN bytes), NUL-terminated; NULL when out of memory. */
const char *strpool_intern(strpool *p, const char *s, size_t len);
void strpool_free(strpool *p);

#endif
