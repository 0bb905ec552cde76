/* db_extent.h — how far an analysis database's object array reaches, read
 * and checked once for every reader (view_db.c, db_heap.c, diff_db.c).
 *
 * snapshot.slots is a number the file states; a crafted one (a 3-object
 * database claiming 10^9 slots) once sized every per-slot array.  Readers
 * size them from the object indexes present instead: SPAN, one past the
 * highest idx of object_table.  The stated slots must still cover every
 * index, and may exceed SPAN only as far as a snapshot the tool reads can
 * (free slots at the end of a binary snapshot's array, up to
 * heap_slots_limit() of its objects): analyze writes no more, so a
 * database that states more is refused, not trusted. */
#ifndef UGC_DB_EXTENT_H
#define UGC_DB_EXTENT_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

typedef struct db_extent {
	int64_t slots;          /* snapshot.slots as stated: checked and shown, never an array size */
	int64_t first_gc_index; /* snapshot.first_gc_index: 0 .. OBJ_INDEX_MAX (it may lie past SPAN:
				 * the text format lets it, and it only says which indexes are below it) */
	uint32_t span;          /* highest object index + 1, 0 when there are no objects */
} db_extent;

/* Reads and checks the extent of DB (an analysis database whose version and
 * schema input_open_sql() has checked).  0, or -1 with a one-line reason in
 * WHY naming the table ("table snapshot: ..."). */
int db_read_extent(sqlite3 *db, db_extent *e, char *why, size_t whysize);

#endif
