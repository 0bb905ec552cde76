/* db_version.h — the one check every reader of an analysis database makes
 * first: its snapshot.schema_version is the one this build writes. */
#ifndef UGC_DB_VERSION_H
#define UGC_DB_VERSION_H

#include <sqlite3.h>
#include <stddef.h>

/* 0 when DB is an analysis database of SCHEMA_VERSION; else -1 with a
 * one-line reason in ERR (beginning "table snapshot: ") that says which
 * version the database has and which this build reads. */
int db_check_version(sqlite3 *db, char *err, size_t errsize);

#endif
