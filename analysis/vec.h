/* vec.h — a growable array of 32-bit values (object indexes, positions). */
#ifndef UGC_VEC_H
#define UGC_VEC_H

#include <stdint.h>
#include <stdlib.h>

typedef struct vec {
	uint32_t *v;
	size_t n, cap;
} vec;

static inline int vec_push(vec *a, uint32_t x)
{
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 256;
		uint32_t *p = realloc(a->v, cap * sizeof *p);
		if (!p)
			return -1;
		a->v = p;
		a->cap = cap;
	}
	a->v[a->n++] = x;
	return 0;
}

static inline int vec_append(vec *a, const vec *b)
{
	for (size_t i = 0; i < b->n; i++)
		if (vec_push(a, b->v[i]))
			return -1;
	return 0;
}

static inline void vec_free(vec *a)
{
	free(a->v);
	a->v = NULL;
	a->n = a->cap = 0;
}

int vec_sort_unique(vec *a); /* ascending, duplicates removed */

#endif
