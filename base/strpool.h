/* strpool.h — interned strings with stable addresses, owned by a query
 * view: edges carry pointers into it instead of fixed buffers, so a hop
 * costs a few bytes however long its property name, and each distinct name
 * is kept once however many edges carry it. */
#ifndef UGC_STRPOOL_H
#define UGC_STRPOOL_H

#include <stddef.h>
#include <stdint.h>

typedef struct strpool {
	char **chunks;          /* arena: strings never move */
	size_t nchunks, cap_chunks, used; /* bytes used in the last chunk */
	const char **slot;      /* open-addressing table of the strings */
	size_t nslots, count;
} strpool;

/* The interned copy of S (LEN bytes), NUL-terminated; NULL when out of memory. */
const char *strpool_intern(strpool *p, const char *s, size_t len);
void strpool_free(strpool *p);

#endif
