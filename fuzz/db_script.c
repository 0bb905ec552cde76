/* db_script.c — the database harness's edit scripts (see db_script.h).
 *
 * A script is bytes: the first picks the seed database, then each edit is
 * one byte naming the edit (its value modulo the number of edits) and the
 * bytes its choices take (a missing byte reads as 0).  At most MAX_EDITS
 * edits run. */
#include "fuzz/db_script.h"

#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz/common.h"

int ugc_cli_main(int argc, char **argv);

#define MAX_EDITS 16
/* An edit statement is stopped after this many progress calls of 1000 steps. */
#define EDIT_BUDGET 2000
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* The seeds: testdata's spec-example, cluster-quirks and v8-ids (a V8 heap,
 * whose objects.node_id the readers check against the names), without
 * comments. */
static const char *const seed_text[] = {
	"ugc-text 1\nengine 5.5.4\nmode game\n"
	"o 0 1 2 - /Script/CoreUObject 64 Native,RootSet\no 1 2 2 0 Object 256 Native\no 2 3 2 0 Class 512 Native\n"
	"o 3 4 2 0 Package 256 Native\no 4 0 2 0 Actor 900 Native\no 10 11 3 - /Game/Maps/Arena 128 RF_Public,RF_WasLoaded\n"
	"o 11 12 4 10 Arena 2048 RF_Public,RootSet\no 12 13 4 11 Pickup_1 400 Garbage\no 13 14 4 11 Enemy_1 400 -\n"
	"o 14 15 4 11 Enemy_2 400 -\nr 11 13 strong Actors[1]\nr 13 12 strong TargetPickup\nr 13 14 weak LastSeen\n"
	"g FStreamableManager 13 Handles[0]\nc 11 13 12 -\n",
	"ugc-text 1\nengine 5.5.4\nmode game\nfirst-gc-index 5\nlabel cluster quirks\n"
	"o 0 1 2 - /Script/CoreUObject 64 Native\no 1 2 2 0 Object 256 Native\no 2 3 2 0 Class 512 Native\n"
	"o 3 4 2 0 Package 256 Native\no 4 5 2 0 Actor 900 Native\no 10 11 3 - /Game/Quirks 128 RootSet\n"
	"o 11 12 4 10 GameState 1000 RootSet\no 20 21 4 10 Level 5000 -\no 21 22 4 10 Door_1 400 -\n"
	"o 22 23 4 10 Orphan 300 -\nr 11 20 strong CurrentLevel\nr 20 21 strong Actors[0]\nr 20 22 strong Unlisted\n"
	"c 20 21 - -\no 40 41 4 10 Level2 5000 -\no 41 42 4 10 Guard_1 400 -\no 30 31 4 10 Vault 800 -\n"
	"o 31 32 4 10 Chest 200 -\no 32 33 4 10 Loot 100 -\nr 11 40 strong SublevelRef\nr 41 31 strong GuardedChest\n"
	"r 31 32 strong Contents\nc 40 41 - 30\nc 30 31 32 -\no 50 51 4 10 Squad 600 -\no 51 52 4 10 Soldier_1 400 -\n"
	"o 52 53 4 10 Soldier_2 400 -\no 53 54 4 10 DeadTarget 400 Garbage\nr 11 50 strong ActiveSquad\n"
	"r 51 53 strong Target\nc 50 51,52 53 -\no 60 61 4 10 Crate 300 -\no 61 62 4 10 HeldLid 100 RefCounted\n"
	"c 60 61 - -\no 65 66 4 10 Ghost 50 -\nr 21 65 weak LastOpener\n",
	"ugc-text 1\nengine v8\nfirst-gc-index 5\no 0 0 1 - /V8 0 -\no 1 0 2 0 Package 0 -\no 2 0 2 0 Class 0 -\n"
	"o 3 0 2 0 (synthetic) 0 -\no 4 0 2 0 Foo 0 -\no 5 0 3 0 @1 0 RootSet\no 6 0 4 0 Foo@5 10 -\no 7 0 4 0 @7 20 -\n"
	"o 8 0 4 0 Foo@100 30 -\no 9 0 4 0 Foo@6 40 -\nr 5 6 strong a\nr 5 7 strong b\nr 6 8 strong c\nr 7 9 strong d\n"
	"r 9 8 weak e\n",
};
#define NSEEDS COUNT(seed_text)

static struct {
	uint8_t *bytes;
	size_t len;
} seed[NSEEDS];

/* The names in the seed's schema (tables, indexes, views), then the extras. */
static char **names;
static size_t nnames;

const char *const db_script_extra[] = {"ft", "rt", "xv"};
const size_t db_script_nextra = COUNT(db_script_extra);

/* Values a cell or a snapshot key is set to: SQL expressions. */
static const char *const values[] = {
	"NULL", "0", "-1", "1", "2", "3", "5", "14", "15", "16", "66", "255", "65536", "1000000000", "2147483647",
	"2147483648", "4294967295", "4294967296", "9223372036854775807", "-9223372036854775808", "1e9", "1.5",
	"-0.0", "1e308", "'game'", "'editor'", "'gc'", "'x'", "''", "'15'", "'-1'", "x'00ff'", "zeroblob(9)",
	"'Native,RootSet'", "'RootSet'", "'-'", "'strong'", "'weak'", "'Package'", "'/Game/Maps/Arena'",
	"'ugc-analyze 0.1.0'", "printf('%.*c', 5000, 'x')", "char(0, 10, 65)", "'a' || char(10) || 'b'",
	"randomblob(64)",
};

/* The same, relative to the cell's value (after the column's name). */
static const char *const relative[] = {
	"+ 1", "- 1", "* -1", "* 4294967296", "|| 'x'", "+ 0.5", "% 3",
};

static const char *const snapshot_keys[] = {
	"slots", "first_gc_index", "mode", "snapshot_mode", "keep_flags", "policy", "schema_version", "engine",
	"label", "source_file", "tool_version", "analysed_at", "x",
};

/* A view's (or a table's replacement's) body. */
static const char *const bodies[] = {
	"WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) SELECT x AS idx FROM r WHERE x < 0",
	"WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x FROM r) SELECT * FROM object_table, r",
	"SELECT * FROM object_table", "SELECT * FROM object_table_old", "SELECT 1 AS idx, 2 AS src, 3 AS dst",
	"SELECT * FROM objects", "SELECT * FROM refs", "SELECT * FROM ft", "SELECT fts3_tokenizer('simple') AS idx",
	"SELECT load_extension('/nonexistent') AS idx", "SELECT zeroblob(2000000000) AS idx",
	"SELECT * FROM object_table a, object_table b, object_table c", "SELECT * FROM pragma_table_info('objects')",
	"SELECT * FROM json_each('[1,2,3]')", "SELECT * FROM sqlite_schema", "SELECT * FROM dbstat",
	"SELECT NULL AS idx UNION ALL SELECT 'x' UNION ALL SELECT x'00'",
};

/* A virtual table's module and arguments. */
static const char *const modules[] = {
	"fts3(body)", "fts4(body, tokenize=porter)", "fts4(content='object_table', name)", "fts5(body)",
	"fts5(name, content='object_table', content_rowid='idx')", "fts3(tokenize=simple)", "rtree(id, x0, x1)",
	"rtree_i32(id, a, b, c, d)", "fts4aux(ft)", "fts5vocab(ft, 'row')", "fts3tokenize(simple)", "dbstat",
	"json_each",
};

static const char *const trigger_when[] = {"AFTER INSERT", "BEFORE DELETE", "INSTEAD OF INSERT", "AFTER UPDATE"};
static const char *const trigger_do[] = {
	"SELECT fts3_tokenizer('simple')", "SELECT load_extension('x')", "INSERT INTO snapshot VALUES('x', 1)",
	"DELETE FROM object_table", "SELECT RAISE(ABORT, 'x')",
};

static const char *const index_on[] = {
	"object_table(name COLLATE NOCASE)", "object_table(abs(size))", "object_table(hex(name))",
	"object_table(idx DESC)", "object_table(length(name)) WHERE size > 0", "ref_table(src, dst)",
	"ref_table(kind)", "snapshot(value)", "strings(text)", "findings(kind, idx)",
};

static const char *const stats[] = {
	"1000000000 1", "1 1 1", "0", "x", "18446744073709551616 0 0", "10 1 unordered", "10 2 sz=1000", "-1 -1",
	"1 1 noskipscan",
};

/* sqlite_schema edits: SET clauses (%Q the other name), and replace pairs. */
static const char *const schema_set[] = {
	"rootpage = (SELECT rootpage FROM sqlite_schema WHERE name = %Q)", "type = 'view'", "type = 'table'",
	"type = 'index'", "tbl_name = %Q", "name = upper(name)", "rootpage = 0", "rootpage = -1",
	"rootpage = 2147483648", "sql = NULL", "sql = sql || ' '", "sql = replace(sql, 'idx', 'src')",
	"sql = replace(sql, 'INTEGER', 'TEXT')", "sql = replace(sql, 'object_table', 'ref_table')",
};

static const char *const pragmas[] = {
	"PRAGMA journal_mode=WAL", "PRAGMA page_size=512; VACUUM", "PRAGMA page_size=65536; VACUUM",
	"PRAGMA auto_vacuum=FULL; VACUUM", "PRAGMA user_version=-1", "PRAGMA application_id=1", "VACUUM", "REINDEX",
	"PRAGMA secure_delete=ON; DELETE FROM strings",
};

/* ---- reading the script ---- */

typedef struct script {
	const uint8_t *p, *end;
	sqlite3 *db;
	unsigned budget;
	FILE *trace; /* UGC_FUZZ_DB_TRACE=1: each edit and its outcome, on fd 2 */
} script;

static unsigned next(script *s) { return s->p < s->end ? *s->p++ : 0; }

static unsigned next16(script *s)
{
	unsigned hi = next(s);
	return hi << 8 | next(s);
}

#define PICK(s, list) ((list)[next(s) % COUNT(list)])

static const char *pick_name(script *s) { return names[next16(s) % nnames]; }

/* Run one edit, SQL from the printf-like FMT (sqlite3_mprintf's %Q, %w);
 * a failure is fine. */
static void edit(script *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *sql = sqlite3_vmprintf(fmt, ap);
	va_end(ap);
	if (!sql)
		return;
	s->budget = 0;
	int rc = sqlite3_exec(s->db, sql, NULL, NULL, NULL);
	if (s->trace)
		fprintf(s->trace, "edit: %s\n  -> %s\n", sql, rc == SQLITE_OK ? "ok" : sqlite3_errmsg(s->db));
	sqlite3_free(sql);
}

/* ---- the edits ---- */

static void edit_meta(script *s)
{
	const char *key = PICK(s, snapshot_keys), *val = PICK(s, values);
	if (next(s) % 8 == 0)
		edit(s, "DELETE FROM snapshot WHERE key = %Q", key);
	else
		edit(s, "INSERT OR REPLACE INTO snapshot VALUES(%Q, %s)", key, val);
}

/* A table and a column of the file as it is now (shadow tables too):
 * 0 with both in T and C (sqlite3_malloc'd), or -1. */
static int live_column(script *s, char **t, char **c)
{
	sqlite3_stmt *st = NULL;
	int rc = -1;
	unsigned k = next16(s);
	if (sqlite3_prepare_v2(s->db,
			       "WITH c AS (SELECT m.name AS t, p.name AS c FROM sqlite_schema m, pragma_table_info(m.name) p "
			       "WHERE m.type = 'table') SELECT t, c FROM c LIMIT 1 OFFSET ?1 % (SELECT count(*) FROM c)",
			       -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int(st, 1, (int)k);
		if (sqlite3_step(st) == SQLITE_ROW) {
			*t = sqlite3_mprintf("%s", sqlite3_column_text(st, 0));
			*c = sqlite3_mprintf("%s", sqlite3_column_text(st, 1));
			rc = *t && *c ? 0 : -1;
			if (rc) {
				sqlite3_free(*t);
				sqlite3_free(*c);
			}
		}
	}
	sqlite3_finalize(st);
	return rc;
}

/* A row's cell (or every row's) set to a value, absolute or relative. */
static void edit_cell(script *s)
{
	char *t, *c;
	if (live_column(s, &t, &c))
		return;
	unsigned v = next(s) % (COUNT(values) + COUNT(relative)), row = next(s);
	char *val = v < COUNT(values) ? sqlite3_mprintf("%s", values[v])
				      : sqlite3_mprintf("\"%w\" %s", c, relative[v - COUNT(values)]);
	if (val && row == 255)
		edit(s, "UPDATE \"%w\" SET \"%w\" = %s", t, c, val);
	else if (val)
		edit(s, "UPDATE \"%w\" SET \"%w\" = %s WHERE \"%w\" IS (SELECT \"%w\" FROM \"%w\" LIMIT 1 OFFSET %u)", t, c,
		     val, c, c, t, row % 16);
	sqlite3_free(val);
	sqlite3_free(t);
	sqlite3_free(c);
}

/* A row added (a copy of one, or one value) or rows removed. */
static void edit_rows(script *s)
{
	char *t, *c;
	if (live_column(s, &t, &c))
		return;
	unsigned how = next(s) % 4, row = next(s) % 16;
	const char *val = PICK(s, values);
	if (how == 0)
		edit(s, "INSERT INTO \"%w\" SELECT * FROM \"%w\" LIMIT 1 OFFSET %u", t, t, row);
	else if (how == 1)
		edit(s, "INSERT INTO \"%w\"(\"%w\") VALUES(%s)", t, c, val);
	else if (how == 2)
		edit(s, "DELETE FROM \"%w\" WHERE \"%w\" IS (SELECT \"%w\" FROM \"%w\" LIMIT 1 OFFSET %u)", t, c, c, t, row);
	else
		edit(s, "DELETE FROM \"%w\"", t);
	sqlite3_free(t);
	sqlite3_free(c);
}

/* NAME moved aside (a table renamed NAME_old, the views naming it left as
 * they are; a view dropped), for something else under its name. */
static void move_aside(script *s, const char *name)
{
	edit(s, "PRAGMA legacy_alter_table=ON; ALTER TABLE \"%w\" RENAME TO \"%w_old\"", name, name);
	edit(s, "DROP VIEW IF EXISTS \"%w\"", name);
}

static void edit_view(script *s)
{
	const char *name = pick_name(s), *body = PICK(s, bodies);
	move_aside(s, name);
	edit(s, "CREATE VIEW \"%w\" AS %s", name, body);
}

static void edit_vtab(script *s)
{
	const char *name = next(s) % 2 ? pick_name(s) : PICK(s, db_script_extra), *mod = PICK(s, modules);
	move_aside(s, name);
	edit(s, "CREATE VIRTUAL TABLE \"%w\" USING %s", name, mod);
	edit(s, "INSERT INTO \"%w\" VALUES('hello world')", name);
	edit(s, "INSERT INTO \"%w\" VALUES(%u, %u, %u)", name, next(s), next(s), next(s));
}

static void edit_trigger(script *s)
{
	unsigned k = next(s);
	const char *when = PICK(s, trigger_when), *name = pick_name(s), *action = PICK(s, trigger_do);
	edit(s, "CREATE TRIGGER \"trg%u\" %s ON \"%w\" BEGIN %s; END", k, when, name, action);
}

static void edit_index(script *s)
{
	unsigned k = next(s);
	if (k % 4 == 0)
		edit(s, "DROP INDEX \"%w\"", pick_name(s));
	else
		edit(s, "CREATE INDEX \"xi%u\" ON %s", k, PICK(s, index_on));
}

static void edit_stat(script *s)
{
	unsigned row = next(s);
	edit(s, "ANALYZE");
	edit(s, "UPDATE sqlite_stat1 SET stat = %Q WHERE rowid = 1 + %u %% (SELECT count(*) FROM sqlite_stat1)",
	     PICK(s, stats), row);
	if (row % 4 == 0)
		edit(s, "INSERT INTO sqlite_stat1 VALUES(%Q, %Q, %Q)", pick_name(s), pick_name(s), PICK(s, stats));
}

/* sqlite_schema rows edited in place (writable_schema): texts, types,
 * names, root pages set or swapped, rows duplicated. */
static void edit_schema(script *s)
{
	const char *a = pick_name(s), *b = pick_name(s);
	unsigned how = next(s) % (COUNT(schema_set) + 2);
	edit(s, "PRAGMA writable_schema=ON");
	if (how == COUNT(schema_set))
		edit(s, "UPDATE sqlite_schema SET rootpage = CASE name WHEN %Q THEN (SELECT rootpage FROM sqlite_schema "
			"WHERE name = %Q) ELSE (SELECT rootpage FROM sqlite_schema WHERE name = %Q) END WHERE name IN (%Q, %Q)",
		     a, b, a, a, b);
	else if (how == COUNT(schema_set) + 1)
		edit(s, "INSERT INTO sqlite_schema SELECT * FROM sqlite_schema WHERE name = %Q", a);
	else {
		char *set = sqlite3_mprintf(schema_set[how], b);
		if (set)
			edit(s, "UPDATE sqlite_schema SET %s WHERE name = %Q", set, a);
		sqlite3_free(set);
	}
	edit(s, "PRAGMA writable_schema=OFF");
}

static void edit_pragma(script *s) { edit(s, "%s", PICK(s, pragmas)); }

/* The script's bytes up to the next NUL, as SQL. */
static void edit_raw(script *s)
{
	const uint8_t *nul = memchr(s->p, 0, (size_t)(s->end - s->p));
	size_t len = (size_t)((nul ? nul : s->end) - s->p);
	edit(s, "%.*s", (int)len, (const char *)s->p);
	s->p += len + (nul != NULL);
}

static void (*const edits[])(script *) = {
	edit_meta, edit_cell, edit_rows, edit_view, edit_vtab, edit_trigger,
	edit_index, edit_stat, edit_schema, edit_pragma, edit_raw,
};

/* ---- running a script ---- */

static int stop_editing(void *arg)
{
	script *s = arg;
	return ++s->budget > EDIT_BUDGET;
}

static void write_file(const char *path, const uint8_t *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	FUZZ_ASSERT(f && fwrite(data, 1, len, f) == len && fclose(f) == 0, "cannot write the database file");
}

void db_script_apply(const char *path, const uint8_t *data, size_t size)
{
	static FILE *trace;
	if (!trace && getenv("UGC_FUZZ_DB_TRACE") && strcmp(getenv("UGC_FUZZ_DB_TRACE"), "1") == 0)
		if ((trace = fdopen(dup(2), "w")))
			setvbuf(trace, NULL, _IOLBF, 0);
	script s = {data, data + size, NULL, 0, trace};
	unsigned k = next(&s) % NSEEDS;
	write_file(path, seed[k].bytes, seed[k].len);
	FUZZ_ASSERT(sqlite3_open_v2(path, &s.db, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK, "cannot open the seed");
	sqlite3_progress_handler(s.db, 1000, stop_editing, &s);
	sqlite3_limit(s.db, SQLITE_LIMIT_LENGTH, 1 << 20);
	edit(&s, "PRAGMA max_page_count=1024");
	for (int n = 0; n < MAX_EDITS && s.p < s.end; n++)
		edits[next(&s) % COUNT(edits)](&s);
	sqlite3_close_v2(s.db);
}

/* ---- the seeds ---- */

static uint8_t *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	FUZZ_ASSERT(f != NULL, "cannot read a seed database");
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	rewind(f);
	uint8_t *b = malloc(n > 0 ? (size_t)n : 1);
	FUZZ_ASSERT(n > 0 && b && fread(b, 1, (size_t)n, f) == (size_t)n, "cannot read a seed database");
	fclose(f);
	*len = (size_t)n;
	return b;
}

/* Seed K: its text analysed into a database, read into memory. */
static void build_seed(const char *dir, unsigned k)
{
	char txt[128], db[128];
	snprintf(txt, sizeof txt, "%s/ugc-fuzz-seed-%ld-%u.ugct", dir, (long)getpid(), k);
	snprintf(db, sizeof db, "%s/ugc-fuzz-seed-%ld-%u.db", dir, (long)getpid(), k);
	write_file(txt, (const uint8_t *)seed_text[k], strlen(seed_text[k]));
	unlink(db);
	char *argv[] = {"ugc-analyze", "analyze", txt, "-o", db, NULL};
	FUZZ_ASSERT(ugc_cli_main(5, argv) == 0, "analyze fails on a seed snapshot");
	seed[k].bytes = read_file(db, &seed[k].len);
	unlink(txt);
	unlink(db);
}

/* The names of seed 0's schema, and the extras. */
static void learn_names(void)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	FUZZ_ASSERT(sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK &&
			    sqlite3_deserialize(db, "main", seed[0].bytes, (sqlite3_int64)seed[0].len,
						(sqlite3_int64)seed[0].len, SQLITE_DESERIALIZE_READONLY) == SQLITE_OK &&
			    sqlite3_prepare_v2(db, "SELECT name FROM sqlite_schema WHERE name NOT LIKE 'sqlite%'", -1, &st,
					       NULL) == SQLITE_OK,
		    "cannot read the seed's schema");
	names = malloc(db_script_nextra * sizeof *names);
	for (size_t k = 0; names && k < db_script_nextra; k++)
		names[nnames++] = strdup(db_script_extra[k]);
	while (names && sqlite3_step(st) == SQLITE_ROW) {
		char **n = realloc(names, (nnames + 1) * sizeof *n);
		FUZZ_ASSERT(n != NULL, "out of memory");
		names = n;
		names[nnames++] = strdup((const char *)sqlite3_column_text(st, 0));
	}
	FUZZ_ASSERT(names && nnames > db_script_nextra, "the seed has no schema");
	sqlite3_finalize(st);
	sqlite3_close(db);
}

void db_script_init(const char *dir)
{
	for (unsigned k = 0; k < NSEEDS; k++)
		build_seed(dir, k);
	learn_names();
}
