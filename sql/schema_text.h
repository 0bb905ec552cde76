/* schema_text.h — the schema text of schema.h taken apart statement by
 * statement, so that a second database (the in-memory one over an analysed
 * snapshot, snapshot_db.c) is built from the very same text as the stored
 * one, and a virtual table declares exactly its table's columns. */
#ifndef UGC_SCHEMA_TEXT_H
#define UGC_SCHEMA_TEXT_H

#include <stddef.h>

enum schema_kind { SK_TABLE, SK_INDEX, SK_VIEW, SK_OTHER };

/* One statement: TEXT .. TEXT+LEN (up to and without its ';'), what it
 * creates and, for an index, the table it indexes. */
typedef struct schema_stmt {
	const char *text;
	size_t len;
	enum schema_kind kind;
	char name[64], on[64];
} schema_stmt;

/* The statement at *P (then *P moves past it): 1, or 0 when only
 * whitespace is left; -1 when the rest is not a complete statement, -2
 * when out of memory. */
int schema_next(const char **p, schema_stmt *s);
/* The CREATE TABLE statement of table NAME in SQL: 0, -1 when none, -2
 * when out of memory. */
int schema_table(const char *sql, const char *name, schema_stmt *s);
/* The column names of CREATE TABLE statement S, comma-separated, into OUT
 * (CAP bytes): 0, or -1 when they do not fit. */
int schema_columns(const schema_stmt *s, char *out, size_t cap);

#endif
