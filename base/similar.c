/* similar.c — edit distances for "did you mean" (see similar.h). */
#include "base/similar.h"

#include <stdlib.h>
#include <string.h>

size_t edit_distance(const char *a, const char *b, size_t limit)
{
	size_t la = strlen(a), lb = strlen(b);
	if ((la > lb ? la - lb : lb - la) > limit)
		return limit + 1;
	size_t *prev = malloc((lb + 1) * sizeof *prev), *cur = malloc((lb + 1) * sizeof *cur);
	if (!prev || !cur) {
		free(prev);
		free(cur);
		return limit + 1; /* out of memory: no suggestion, nothing worse */
	}
	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = i;
		size_t row_min = cur[0];
		for (size_t j = 1; j <= lb; j++) {
			size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
			size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
			cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
			if (cur[j] < row_min)
				row_min = cur[j];
		}
		size_t *t = prev;
		prev = cur;
		cur = t;
		if (row_min > limit) { /* every path through this row is over */
			free(prev);
			free(cur);
			return limit + 1;
		}
	}
	size_t d = prev[lb];
	free(prev);
	free(cur);
	return d > limit ? limit + 1 : d;
}

size_t near_miss_limit(size_t len)
{
	size_t k = len / 3;
	return k < 1 ? 1 : k > 8 ? 8 : k;
}

const char *closest_name(const char *want, const char *const *names, size_t count)
{
	size_t limit = near_miss_limit(strlen(want)), best_d = limit + 1;
	const char *best = NULL;
	for (size_t k = 0; k < count; k++) {
		if (!names[k])
			continue;
		size_t d = edit_distance(want, names[k], limit);
		if (d == 0)
			return NULL; /* it exists: nothing to suggest */
		if (d < best_d) {
			best_d = d;
			best = names[k];
		}
	}
	return best;
}
