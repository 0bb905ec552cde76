/* similar.h — how alike two names are, for "did you mean" suggestions of
 * commands, options and object paths. */
#ifndef UGC_SIMILAR_H
#define UGC_SIMILAR_H

#include <stddef.h>

/* The Levenshtein distance between A and B (insertions, deletions and
 * substitutions of bytes), or LIMIT + 1 when it is above LIMIT (the work is
 * then cut short).  Memory: two rows of B's length + 1. */
size_t edit_distance(const char *a, const char *b, size_t limit);

/* The largest distance at which a name of LEN bytes still counts as a near
 * miss: 1 for short names, a third of the length for long ones (at most 8). */
size_t near_miss_limit(size_t len);

/* The best of the NAMES (COUNT of them, NULL entries skipped) for WANT: the
 * one at the smallest distance within near_miss_limit(), the first on a
 * tie; NULL when none is near and when WANT itself is one of them. */
const char *closest_name(const char *want, const char *const *names, size_t count);

#endif
