/* suspects.c — leak suspects from a dominator tree (see suspects.h). */
#include "analysis/suspects.h"

#include <stdlib.h>
#include <string.h>

#include "base/base.h"

/* The accumulation point below OBJ: step into the largest child while it
 * holds at least 80% of its parent's retained bytes (5c >= 4p, i.e.
 * c >= p - floor(p/5), without overflow).  -1 when the walk outlasts the
 * slots (a damaged tree). */
static obj_t accumulation(const dom_result *d, const dom_tree *t, obj_t obj, uint32_t *steps)
{
	*steps = 0;
	for (;;) {
		if (t->start[obj + 1] == t->start[obj])
			return obj;
		obj_t c = t->kids[t->start[obj]];
		uint64_t p = d->retained[obj];
		if (d->retained[c] < p - p / 5)
			return obj;
		if (++*steps > d->slots)
			return -1;
		obj = c;
	}
}

/* Fill S's UNDER: the TOP largest classes of the subtree of S->accum.
 * SUMS/COUNTS: per-slot scratch, all zero, left zero. */
static int classes_under(const dom_result *d, const dom_tree *t, const uint32_t *size, suspect_class_fn class_of,
			 void *ctx, size_t top, uint64_t *sums, uint32_t *counts, suspect *s)
{
	vec stack = {0}, seen = {0};
	int rc = 0;
	size_t visited = 0;
	if (vec_push(&stack, (uint32_t)s->accum))
		return -1;
	while (stack.n && rc == 0) {
		obj_t x = (obj_t)stack.v[--stack.n];
		if (++visited > d->slots) {
			rc = -3;
			break;
		}
		obj_t cls;
		if (class_of(ctx, x, &cls)) {
			rc = -2;
			break;
		}
		if (cls >= 0 && (uint32_t)cls < d->slots) {
			if (counts[cls]++ == 0 && vec_push(&seen, (uint32_t)cls))
				rc = -1;
			sums[cls] += size[x];
		}
		for (uint32_t k = t->start[x]; k < t->start[x + 1] && rc == 0; k++)
			if (vec_push(&stack, (uint32_t)t->kids[k]))
				rc = -1;
	}
	/* the TOP with the most bytes, ties to the lower class index (topn.h) */
	topn best = {0};
	if (rc == 0 && topn_init(&best, seen.n < top ? seen.n : top))
		rc = -1;
	for (size_t k = 0; k < seen.n && rc == 0; k++)
		topn_offer(&best, sums[seen.v[k]], seen.v[k]);
	topn_sort(&best);
	suspect_bytes *under = rc == 0 ? malloc((best.n + 1) * sizeof *under) : NULL;
	if (rc == 0 && !under)
		rc = -1;
	for (size_t k = 0; under && k < best.n; k++) {
		obj_t c = (obj_t)best.v[k].idx;
		under[k] = (suspect_bytes){c, counts[c], sums[c]};
	}
	for (size_t k = 0; k < seen.n; k++) {
		sums[seen.v[k]] = 0;
		counts[seen.v[k]] = 0;
	}
	if (under) {
		s->under = under;
		s->nunder = (uint32_t)best.n;
		s->nunder_all = (uint32_t)seen.n;
	}
	topn_free(&best);
	vec_free(&stack);
	vec_free(&seen);
	return rc;
}

int suspects_find(const dom_result *d, const uint32_t *size, suspect_class_fn class_of, void *ctx, double pct,
		  size_t limit, size_t top, suspect_list *out)
{
	memset(out, 0, sizeof *out);
	/* the threshold: PCT percent of the reached bytes, rounded up */
	double q = pct * (double)d->reached_bytes / 100.0;
	out->threshold = (uint64_t)q;
	if ((double)out->threshold < q || out->threshold == 0)
		out->threshold++;
	const uint64_t thr = out->threshold;
	dom_tree t = {0};
	vec cand = {0};
	uint8_t *covered = calloc((size_t)d->slots + 1, 1);
	uint64_t *sums = calloc((size_t)d->slots + 1, sizeof *sums);
	uint32_t *counts = calloc((size_t)d->slots + 1, sizeof *counts);
	int rc = -1;
	if (!covered || !sums || !counts || dom_tree_build(d, &t))
		goto out;
	out->objects = calloc(limit + 1, sizeof *out->objects);
	out->classes = calloc(limit + 1, sizeof *out->classes);
	if (!out->objects || !out->classes)
		goto out;
	/* object suspects, largest first */
	for (uint32_t i = 0; i < d->slots; i++)
		if (d->idom[i] != OBJ_NONE && d->retained[i] >= thr && vec_push(&cand, i))
			goto out;
	if (cand.n > 1)
		qsort_r(cand.v, cand.n, sizeof *cand.v, dom_cmp_retained, (void *)d);
	for (size_t k = 0; k < cand.n; k++) {
		obj_t x = (obj_t)cand.v[k];
		if (covered[x])
			continue;
		uint32_t steps;
		obj_t a = accumulation(d, &t, x, &steps);
		if (a < 0) {
			rc = -3;
			goto out;
		}
		for (obj_t y = x; y != a; y = t.kids[t.start[y]])
			covered[y] = 1;
		covered[a] = 1;
		out->objects_all++;
		if (out->nobjects < limit) {
			suspect *s = &out->objects[out->nobjects++];
			*s = (suspect){x, OBJ_NONE, 1, d->retained[x], a, steps, d->retained[a], NULL, 0, 0};
			if ((rc = classes_under(d, &t, size, class_of, ctx, top, sums, counts, s)) != 0)
				goto out;
		}
	}
	/* class suspects (D's classes are largest first); the largest instance
	 * of each found in one pass over the reached objects */
	for (uint32_t j = 0; j < d->nclasses; j++)
		if (d->classes[j].retained >= thr) {
			out->classes_all++;
			if (out->nclasses < limit) {
				const dom_group *g = &d->classes[j];
				out->classes[out->nclasses++] =
				    (suspect){OBJ_NONE, g->key, g->count, g->retained, OBJ_NONE, 0, 0, NULL, 0, 0};
			}
		}
	if (out->nclasses > 0) {
		/* COUNTS (zero) marks each suspect class with its position + 1 */
		for (uint32_t j = 0; j < out->nclasses; j++)
			if (out->classes[j].cls >= 0 && (uint32_t)out->classes[j].cls < d->slots)
				counts[out->classes[j].cls] = j + 1;
		for (uint32_t i = 0; i < d->slots && rc != -2; i++) {
			obj_t cls;
			if (d->idom[i] == OBJ_NONE)
				continue;
			if (class_of(ctx, (obj_t)i, &cls)) {
				rc = -2;
			} else if (cls >= 0 && (uint32_t)cls < d->slots && counts[cls]) {
				suspect *s = &out->classes[counts[cls] - 1];
				if (s->obj == OBJ_NONE || d->retained[i] > d->retained[s->obj])
					s->obj = (obj_t)i;
			}
		}
		for (uint32_t j = 0; j < out->nclasses; j++)
			if (out->classes[j].cls >= 0 && (uint32_t)out->classes[j].cls < d->slots)
				counts[out->classes[j].cls] = 0;
		if (rc == -2)
			goto out;
		for (uint32_t j = 0; j < out->nclasses; j++) {
			suspect *s = &out->classes[j];
			if (s->obj == OBJ_NONE)
				continue;
			if ((s->accum = accumulation(d, &t, s->obj, &s->steps)) < 0) {
				rc = -3;
				goto out;
			}
			s->accum_retained = d->retained[s->accum];
			if ((rc = classes_under(d, &t, size, class_of, ctx, top, sums, counts, s)) != 0)
				goto out;
		}
	}
	rc = 0;
out:
	if (rc)
		suspects_free(out);
	dom_tree_free(&t);
	vec_free(&cand);
	free(covered);
	free(sums);
	free(counts);
	return rc;
}

void suspects_free(suspect_list *s)
{
	for (uint32_t k = 0; s->objects && k < s->nobjects; k++)
		free(s->objects[k].under);
	for (uint32_t k = 0; s->classes && k < s->nclasses; k++)
		free(s->classes[k].under);
	free(s->objects);
	free(s->classes);
	memset(s, 0, sizeof *s);
}
