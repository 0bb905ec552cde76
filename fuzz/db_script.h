/* db_script.h — the edit-script mode of the database harness (fuzz_db.c):
 * the input's bytes, read as a small script of SQL edits, are applied to a
 * valid analysis database (one `analyze` writes from a snapshot built in)
 * through an ordinary read-write connection, as anyone holding the file
 * could: view and table definitions replaced by odd or endless ones,
 * virtual tables (FTS3/4/5, R*Tree) under the names the tool reads or
 * beside them, triggers, extra indexes, planner statistics, sqlite_schema
 * rows edited in place (texts, types, root pages swapped), page size and
 * journal mode changed, snapshot metadata (slots, first_gc_index, mode, ...)
 * and row values set to huge, negative, text, blob or NULL values, rows
 * added and removed, and raw SQL taken from the input.  Each edit may fail;
 * the edits that worked are what the tool's readers then meet.
 *
 * Editing is bounded: a progress handler stops any statement after a fixed
 * number of steps, values are limited to 1 MB and the file to a few MB. */
#ifndef UGC_FUZZ_DB_SCRIPT_H
#define UGC_FUZZ_DB_SCRIPT_H

#include <stddef.h>
#include <stdint.h>

/* The names a user's `sql` statements read besides the tool's: the extra
 * tables, views and virtual tables an edit script creates. */
extern const char *const db_script_extra[];
extern const size_t db_script_nextra;

/* Build the seed databases (in the harness's process, with ugc_cli_main's
 * analyze) and learn their tables and columns.  Call once; aborts on failure. */
void db_script_init(const char *dir);
/* Write the seed the script's first byte picks to PATH, and apply the
 * script (DATA, SIZE) to it. */
void db_script_apply(const char *path, const uint8_t *data, size_t size);

#endif
