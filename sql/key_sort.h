/* key_sort.h — sorts index entries (an integer key or NULL, and the row
 * they belong to) into SQLite's index order: NULLs first, then keys in
 * signed order, rows of one key in rowid order.  Linear time (LSD radix on
 * the key bytes that vary), for the page writer's indexes over objects. */
#ifndef UGC_KEY_SORT_H
#define UGC_KEY_SORT_H

#include <stddef.h>
#include <stdint.h>

/* One entry: KEY (ignored when NULL is set) of row ROWID. */
typedef struct key_row {
	int64_t key;
	uint32_t rowid;
	uint32_t null; /* 1: the key is NULL */
} key_row;

/* Sort the N entries of ROWS, given in ascending rowid order, using TMP
 * (room for N entries) as scratch. */
void key_sort(key_row *rows, key_row *tmp, size_t n);

#endif
