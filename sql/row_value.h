/* row_value.h — one SQL value outside SQLite: NULL, a 64-bit integer or a
 * text.  What heap_row.c computes and btree_write.c encodes. */
#ifndef UGC_ROW_VALUE_H
#define UGC_ROW_VALUE_H

#include <stddef.h>
#include <stdint.h>

enum row_type { RV_NULL, RV_INT, RV_TEXT };

/* TYPE says which of I (RV_INT) or S and N (RV_TEXT: N bytes of UTF-8, not
 * necessarily NUL-terminated) holds the value. */
typedef struct row_value {
	enum row_type type;
	int64_t i;
	const char *s;
	size_t n;
} row_value;

#endif
