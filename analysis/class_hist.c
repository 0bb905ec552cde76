/* class_hist.c — objects counted by class, the classes ranked (class_hist.h). */
#include "analysis/class_hist.h"

#include <stdlib.h>
#include <string.h>

#include "base/base.h"

void class_hist_free(class_hist *c)
{
	free(c->top[CLASS_BY_COUNT]);
	free(c->top[CLASS_BY_BYTES]);
	memset(c, 0, sizeof *c);
}

/* OBJS[0 .. N), or every object when ALL. */
static int hist(const heap *h, const obj_t *objs, uint32_t n, int all, size_t top, class_hist *out)
{
	memset(out, 0, sizeof *out);
	size_t slots = h->slots ? h->slots : 1;
	uint32_t *count = calloc(slots, sizeof *count);
	uint64_t *bytes = calloc(slots, sizeof *bytes);
	topn best[2] = {{0}};
	int rc = -1;
	if (!count || !bytes)
		goto done;
	for (uint32_t k = 0, end = all ? h->slots : n; k < end; k++) {
		obj_t i = all ? (obj_t)k : objs[k];
		if (h->cls[i] == OBJ_FREE)
			continue;
		out->classes += count[h->cls[i]]++ == 0;
		bytes[h->cls[i]] += h->size[i];
	}
	out->n = top < out->classes ? top : out->classes;
	if (topn_init(&best[CLASS_BY_COUNT], out->n) || topn_init(&best[CLASS_BY_BYTES], out->n))
		goto done;
	for (uint32_t c = 0; c < h->slots; c++)
		if (count[c]) {
			topn_offer(&best[CLASS_BY_COUNT], count[c], c);
			topn_offer(&best[CLASS_BY_BYTES], bytes[c], c);
		}
	for (int by = 0; by < 2; by++) {
		if (!(out->top[by] = malloc((out->n + 1) * sizeof *out->top[by])))
			goto done;
		topn_sort(&best[by]);
		for (size_t k = 0; k < out->n; k++) {
			obj_t c = (obj_t)best[by].v[k].idx;
			out->top[by][k] = (class_row){c, count[c], bytes[c]};
		}
	}
	rc = 0;
done:
	if (rc)
		class_hist_free(out);
	topn_free(&best[CLASS_BY_COUNT]);
	topn_free(&best[CLASS_BY_BYTES]);
	free(count);
	free(bytes);
	return rc;
}

int class_hist_of(const heap *h, const obj_t *objs, uint32_t n, size_t top, class_hist *out)
{
	return hist(h, objs, n, 0, top, out);
}

int class_hist_all(const heap *h, size_t top, class_hist *out)
{
	return hist(h, NULL, 0, 1, top, out);
}
