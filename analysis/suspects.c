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

/* What suspects_find() works with: the tree, the callbacks and the per-slot
 * scratch (COVERED marks objects inside a found suspect's chain). */
typedef struct {
	const dom_result *d;
	dom_tree t;
	const uint32_t *size;
	suspect_class_fn class_of;
	void *ctx;
	size_t limit, top;
	obj_t skip_class; /* never a suspect, its objects neither (OBJ_NONE: none) */
	uint64_t thr;
	uint8_t *covered;
	uint64_t *sums;
	uint32_t *counts;
} finder;

/* The threshold: PCT percent of the reached bytes, rounded up, at least 1. */
static uint64_t suspect_threshold(const dom_result *d, double pct)
{
	double q = pct * (double)d->reached_bytes / 100.0;
	uint64_t thr = (uint64_t)q;
	if ((double)thr < q || thr == 0)
		thr++;
	return thr;
}

/* Object suspect X, unless an earlier one covers it: mark its chain down to
 * its accumulation point, count it and list it while under the limit. */
static int object_suspect(finder *f, obj_t x, suspect_list *out)
{
	const dom_result *d = f->d;
	if (f->covered[x])
		return 0;
	uint32_t steps;
	obj_t a = accumulation(d, &f->t, x, &steps);
	if (a < 0)
		return -3;
	for (obj_t y = x; y != a; y = f->t.kids[f->t.start[y]])
		f->covered[y] = 1;
	f->covered[a] = 1;
	out->objects_all++;
	if (out->nobjects < f->limit) {
		suspect *s = &out->objects[out->nobjects++];
		*s = (suspect){x, OBJ_NONE, 1, d->retained[x], a, steps, d->retained[a], NULL, 0, 0};
		return classes_under(d, &f->t, f->size, f->class_of, f->ctx, f->top, f->sums, f->counts, s);
	}
	return 0;
}

/* Object suspects, largest first: every object retaining the threshold. */
static int object_suspects(finder *f, suspect_list *out)
{
	const dom_result *d = f->d;
	vec cand = {0};
	int rc = 0;
	for (uint32_t i = 0; i < d->slots && rc == 0; i++)
		if (d->idom[i] != OBJ_NONE && d->retained[i] >= f->thr && vec_push(&cand, i))
			rc = -1;
	if (rc == 0 && cand.n > 1)
		qsort_r(cand.v, cand.n, sizeof *cand.v, dom_cmp_retained, (void *)d);
	for (size_t k = 0; k < cand.n && rc == 0; k++) {
		obj_t cls = OBJ_NONE;
		if (f->skip_class != OBJ_NONE && f->class_of(f->ctx, (obj_t)cand.v[k], &cls))
			rc = -2;
		else if (cls == OBJ_NONE || cls != f->skip_class)
			rc = object_suspect(f, (obj_t)cand.v[k], out);
	}
	vec_free(&cand);
	return rc;
}

/* Class suspects from D's classes (largest first), their instances not yet known. */
static void class_suspects(finder *f, suspect_list *out)
{
	const dom_result *d = f->d;
	for (uint32_t j = 0; j < d->nclasses; j++)
		if (d->classes[j].retained >= f->thr && d->classes[j].key != f->skip_class) {
			out->classes_all++;
			if (out->nclasses < f->limit) {
				const dom_group *g = &d->classes[j];
				out->classes[out->nclasses++] =
				    (suspect){OBJ_NONE, g->key, g->count, g->retained, OBJ_NONE, 0, 0, NULL, 0, 0};
			}
		}
}

/* Mark each suspect class in COUNTS with its position + 1, or (POS 0) clear the marks. */
static void mark_classes(finder *f, const suspect_list *out, int pos)
{
	for (uint32_t j = 0; j < out->nclasses; j++)
		if (out->classes[j].cls >= 0 && (uint32_t)out->classes[j].cls < f->d->slots)
			f->counts[out->classes[j].cls] = pos ? j + 1 : 0;
}

/* The largest instance of each suspect class, in one pass over the reached
 * objects; -2 when CLASS_OF fails. */
static int largest_instances(finder *f, suspect_list *out)
{
	const dom_result *d = f->d;
	int rc = 0;
	mark_classes(f, out, 1); /* COUNTS (zero) marks each suspect class with its position + 1 */
	for (uint32_t i = 0; i < d->slots && rc != -2; i++) {
		obj_t cls;
		if (d->idom[i] == OBJ_NONE)
			continue;
		if (f->class_of(f->ctx, (obj_t)i, &cls)) {
			rc = -2;
		} else if (cls >= 0 && (uint32_t)cls < d->slots && f->counts[cls]) {
			suspect *s = &out->classes[f->counts[cls] - 1];
			if (s->obj == OBJ_NONE || d->retained[i] > d->retained[s->obj])
				s->obj = (obj_t)i;
		}
	}
	mark_classes(f, out, 0);
	return rc;
}

/* Each class suspect's accumulation point and the classes under it. */
static int class_accumulations(finder *f, suspect_list *out)
{
	const dom_result *d = f->d;
	for (uint32_t j = 0; j < out->nclasses; j++) {
		suspect *s = &out->classes[j];
		if (s->obj == OBJ_NONE)
			continue;
		if ((s->accum = accumulation(d, &f->t, s->obj, &s->steps)) < 0)
			return -3;
		s->accum_retained = d->retained[s->accum];
		int rc = classes_under(d, &f->t, f->size, f->class_of, f->ctx, f->top, f->sums, f->counts, s);
		if (rc != 0)
			return rc;
	}
	return 0;
}

int suspects_find(const dom_result *d, const uint32_t *size, suspect_class_fn class_of, void *ctx, double pct,
		  size_t limit, size_t top, obj_t skip_class, suspect_list *out)
{
	memset(out, 0, sizeof *out);
	if (limit > d->slots) /* no more suspects than objects (SIZE_MAX: all) */
		limit = d->slots;
	out->threshold = suspect_threshold(d, pct);
	finder f = {d, {0}, size, class_of, ctx, limit, top, skip_class, out->threshold, NULL, NULL, NULL};
	f.covered = calloc((size_t)d->slots + 1, 1);
	f.sums = calloc((size_t)d->slots + 1, sizeof *f.sums);
	f.counts = calloc((size_t)d->slots + 1, sizeof *f.counts);
	int rc = -1;
	if (!f.covered || !f.sums || !f.counts || dom_tree_build(d, &f.t))
		goto out;
	out->objects = calloc(limit + 1, sizeof *out->objects);
	out->classes = calloc(limit + 1, sizeof *out->classes);
	if (!out->objects || !out->classes)
		goto out;
	if ((rc = object_suspects(&f, out)) != 0)
		goto out;
	class_suspects(&f, out);
	if (out->nclasses > 0 && ((rc = largest_instances(&f, out)) != 0 || (rc = class_accumulations(&f, out)) != 0))
		goto out;
	rc = 0;
out:
	if (rc)
		suspects_free(out);
	dom_tree_free(&f.t);
	free(f.covered);
	free(f.sums);
	free(f.counts);
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
