/* vec.h — a growable array of 32-bit values (object indexes, positions). */
#ifndef UGC_VEC_H
#define UGC_VEC_H

#include <stdint.h>
#include <stdlib.h>

/* Make room for one more element in a growable array: *V holds N elements
 * of ELEM bytes in room for *CAP.  Returns 0, or -1 when out of memory (the
 * array is left as it was). */
static inline int grow_array(void **v, size_t *cap, size_t n, size_t elem)
{
	if (n < *cap)
		return 0;
	size_t c = *cap ? *cap * 2 : 16;
	void *p = realloc(*v, c * elem);
	if (!p)
		return -1;
	*v = p;
	*cap = c;
	return 0;
}

typedef struct vec {
	uint32_t *v;
	size_t n, cap;
} vec;

static inline int vec_push(vec *a, uint32_t x)
{
	if (grow_array((void **)&a->v, &a->cap, a->n, sizeof *a->v))
		return -1;
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

static inline int vec_cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* Sort ascending and drop duplicates. */
static inline void vec_sort_unique(vec *a)
{
	if (a->n < 2)
		return;
	qsort(a->v, a->n, sizeof *a->v, vec_cmp_u32);
	size_t w = 1;
	for (size_t i = 1; i < a->n; i++)
		if (a->v[i] != a->v[w - 1])
			a->v[w++] = a->v[i];
	a->n = w;
}

#endif
