/* snapshot_db.c — the analysis schema over a heap in memory, its small
 * tables filled when first read (see snapshot_db.h). */
#include "sql/snapshot_db.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sql/input.h"
#include "sql/schema.h"
#include "sql/schema_text.h"


/* What the store fills each small table from beyond the heap (store.c); a
 * table not listed needs everything, so a new one is right before it is
 * listed here. */
static const struct {
	const char *table;
	int needs;
} table_needs[] = {
	{"snapshot", 0}, /* its policy is the option's, known before the dominators */
	{"dangling_refs", 0}, {"gc_object_refs", 0}, {"cluster_refs", 0},
	{"clusters", PIPE_GC}, {"cluster_dissolved_by", PIPE_GC}, {"eliminated_refs", PIPE_GC},
	{"cleared_weak_refs", PIPE_GC},
	{"findings", PIPE_GC | PIPE_FINDINGS},
	{"retained_by_class", PIPE_GC | PIPE_DOM}, {"package_retention", PIPE_GC | PIPE_DOM},
	{"gc_cost", PIPE_GC}, {"gc_cost_by_class", PIPE_GC}, {"gc_cost_by_package", PIPE_GC},
	{"gc_cost_candidates", PIPE_GC},
};

#define MAX_TABLES 48

struct snapshot_db {
	sqlite3 *db;
	vtab_source src; /* the virtual tables' */
	vtab_need_fn *need;
	void *owner;     /* NEED's */
	int ready;       /* PIPE_* bits computed (all without NEED) */
	const gc_result *r;
	const findings *f;
	const store_info *info;
	int ntables;
	struct small_table {
		char name[64];
		int needs;  /* PIPE_* */
		int filled;
		int read;   /* named by the statement being prepared */
	} tables[MAX_TABLES]; /* SCHEMA_TABLES' tables the heap does not serve */
};

static int is_virtual(const char *table)
{
	for (int k = 0; k < HV_COUNT; k++)
		if (strcmp(table, heap_vtab_tables[k]) == 0)
			return 1;
	return 0;
}

static int exec(sqlite3 *db, const char *sql, char *err, size_t errsize)
{
	char *msg = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) == SQLITE_OK)
		return 0;
	snprintf(err, errsize, "SQLite: %s", msg ? msg : sqlite3_errmsg(db));
	sqlite3_free(msg);
	return -1;
}

/* Run SQL's statements on DB; a table served by the heap becomes its
 * virtual table, and an index of one is left out (the table serves that
 * lookup itself).  The other tables are listed in S->tables. */
static int build(snapshot_db *s, const char *sql, char *err, size_t errsize)
{
	schema_stmt st;
	int more;
	while ((more = schema_next(&sql, &st)) > 0) {
		char *text;
		if (st.kind == SK_INDEX && is_virtual(st.on))
			continue;
		if (st.kind == SK_TABLE && is_virtual(st.name)) {
			text = sqlite3_mprintf("CREATE VIRTUAL TABLE %s USING ugc_heap", st.name);
		} else {
			text = sqlite3_mprintf("%.*s", (int)st.len, st.text);
			if (st.kind == SK_TABLE) {
				if (s->ntables == MAX_TABLES) {
					sqlite3_free(text);
					snprintf(err, errsize, "schema.h: more than %d tables", MAX_TABLES);
					return -1;
				}
				struct small_table *t = &s->tables[s->ntables++];
				snprintf(t->name, sizeof t->name, "%s", st.name);
				t->needs = PIPE_ALL;
				for (size_t k = 0; k < sizeof table_needs / sizeof *table_needs; k++)
					if (strcmp(st.name, table_needs[k].table) == 0)
						t->needs = table_needs[k].needs;
			}
		}
		if (!text) {
			snprintf(err, errsize, "out of memory");
			return -1;
		}
		int rc = exec(s->db, text, err, errsize);
		sqlite3_free(text);
		if (rc)
			return -1;
	}
	if (more < 0) {
		snprintf(err, errsize, more == -2 ? "out of memory" : "schema.h: a statement does not end");
		return -1;
	}
	return 0;
}

/* Fill the small tables not filled yet whose needs are computed (only
 * those read, when ONLY_READ), inside the caller's transaction. */
static int fill(snapshot_db *s, int only_read, char *err, size_t errsize)
{
	const char *skip[HV_COUNT + MAX_TABLES + 1];
	int n = 0, now[MAX_TABLES], todo = 0;
	for (int k = 0; k < HV_COUNT; k++)
		skip[n++] = heap_vtab_tables[k];
	for (int k = 0; k < s->ntables; k++) {
		const struct small_table *t = &s->tables[k];
		now[k] = !t->filled && (t->needs & ~s->ready) == 0 && (t->read || !only_read);
		todo |= now[k];
		if (!now[k])
			skip[n++] = t->name;
	}
	skip[n] = NULL;
	if (!todo)
		return 0;
	if (store_fill(s->db, s->src.h, s->r, s->f, s->info, skip, err, errsize))
		return -1;
	for (int k = 0; k < s->ntables; k++)
		s->tables[k].filled |= now[k];
	return 0;
}

snapshot_db *snapshot_db_open(heap *h, const gc_result *r, const findings *f, const store_info *info,
			      vtab_need_fn *need, void *owner, char *err, size_t errsize)
{
	snapshot_db *s = calloc(1, sizeof *s);
	if (!s) {
		snprintf(err, errsize, "out of memory");
		return NULL;
	}
	s->src = (vtab_source){h, r, NULL, info->dom, h, NULL};
	s->need = need;
	s->owner = owner;
	s->ready = need ? 0 : PIPE_ALL;
	s->r = r;
	s->f = f;
	s->info = info;
	if (sqlite3_open_v2(":memory:", &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
		snprintf(err, errsize, "in-memory database: %s", s->db ? sqlite3_errmsg(s->db) : "out of memory");
		snapshot_db_close(s);
		return NULL;
	}
	if (heap_vtab_register(s->db, &s->src) != SQLITE_OK) {
		snprintf(err, errsize, "registering the heap tables: %s", sqlite3_errmsg(s->db));
		snapshot_db_close(s);
		return NULL;
	}
	if (need && heap_vtab_on_demand(&s->src, need, owner)) {
		snprintf(err, errsize, "registering the heap tables: out of memory");
		snapshot_db_close(s);
		return NULL;
	}
	if (exec(s->db, "BEGIN", err, errsize) || build(s, SCHEMA_TABLES, err, errsize) || fill(s, 0, err, errsize) ||
	    build(s, SCHEMA_INDEXES, err, errsize) || exec(s->db, "COMMIT; PRAGMA query_only = 1", err, errsize)) {
		snapshot_db_close(s);
		return NULL;
	}
	return s;
}

sqlite3 *snapshot_db_handle(const snapshot_db *s)
{
	return s->db;
}

/* The authorizer while a statement is prepared: note the tables it reads. */
static int note_read(void *arg, int action, const char *table, const char *column, const char *db,
		     const char *trigger)
{
	(void)column; (void)db; (void)trigger;
	snapshot_db *s = arg;
	/* the functions and files a database's connection may use (input.h):
	 * fts3_tokenizer's pointers, say, are no more a user's here */
	if (action == SQLITE_FUNCTION && !input_sql_function_allowed(column))
		return SQLITE_DENY;
	if (action == SQLITE_ATTACH)
		return SQLITE_DENY;
	for (int k = 0; action == SQLITE_READ && table && k < s->ntables; k++)
		if (strcmp(s->tables[k].name, table) == 0)
			s->tables[k].read = 1;
	return SQLITE_OK;
}

int snapshot_db_prepare(snapshot_db *s, const char *sql, sqlite3_stmt **st, const char **tail, char *err,
			size_t errsize)
{
	int needs = 0, todo = 0;
	for (int k = 0; k < s->ntables; k++)
		s->tables[k].read = 0;
	sqlite3_set_authorizer(s->db, note_read, s);
	int rc = sqlite3_prepare_v2(s->db, sql, -1, st, tail);
	sqlite3_set_authorizer(s->db, NULL, NULL);
	if (rc != SQLITE_OK) {
		snprintf(err, errsize, "%s", sqlite3_errmsg(s->db));
		return -1;
	}
	for (int k = 0; k < s->ntables; k++)
		if (s->tables[k].read && !s->tables[k].filled) {
			needs |= s->tables[k].needs;
			todo = 1;
		}
	if (!todo)
		return 0;
	if ((needs & ~s->ready) && s->need(s->owner, needs & ~s->ready, err, errsize))
		goto fail;
	s->ready |= needs;
	if (exec(s->db, "PRAGMA query_only = 0; BEGIN", err, errsize) || fill(s, 1, err, errsize) ||
	    exec(s->db, "COMMIT; PRAGMA query_only = 1", err, errsize)) {
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
		sqlite3_exec(s->db, "PRAGMA query_only = 1", NULL, NULL, NULL);
		goto fail;
	}
	return 0;
fail:
	sqlite3_finalize(*st);
	*st = NULL;
	return -1;
}

void snapshot_db_close(snapshot_db *s)
{
	if (!s)
		return;
	sqlite3_close(s->db);
	free(s);
}
