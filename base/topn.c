/* topn.c — the best N of many (topn.h). */
#include "base/topn.h"

#include <stdlib.h>

int topn_init(topn *t, size_t cap)
{
	t->n = 0;
	t->cap = cap;
	t->v = malloc((cap + 1) * sizeof *t->v);
	return t->v ? 0 : -1;
}

void topn_keep(topn *t, ranked r)
{
	ranked *v = t->v;
	size_t i;
	if (t->n < t->cap) { /* sift up: a better parent comes down */
		for (i = t->n++; i > 0 && ranked_before(v[(i - 1) / 2], r); i = (i - 1) / 2)
			v[i] = v[(i - 1) / 2];
		v[i] = r;
		return;
	}
	for (i = 0;;) { /* R replaces the worst: sift down, the worse child up */
		size_t c = 2 * i + 1;
		if (c >= t->n)
			break;
		if (c + 1 < t->n && ranked_before(v[c], v[c + 1]))
			c++;
		if (!ranked_before(r, v[c]))
			break;
		v[i] = v[c];
		i = c;
	}
	v[i] = r;
}

static int cmp_ranked(const void *a, const void *b)
{
	const ranked *x = a, *y = b;
	return ranked_before(*x, *y) ? -1 : ranked_before(*y, *x);
}

void topn_sort(topn *t)
{
	if (t->n > 1)
		qsort(t->v, t->n, sizeof *t->v, cmp_ranked);
}

void topn_free(topn *t)
{
	free(t->v);
	t->v = NULL;
	t->n = t->cap = 0;
}
