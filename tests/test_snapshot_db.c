/* test_snapshot_db.c — the in-memory database over an analysed heap
 * (snapshot_db.h) holds what the store writes: on random heaps every table
 * and view of schema.h has the same rows as the database store_write
 * writes from the same analysis, whether the analysis is complete when the
 * database opens or computed on demand; on demand, nothing is computed
 * before a statement reads what needs it (the GC for reachable, the
 * findings for findings, the dominators for retained), and a lookup of
 * references and paths needs nothing; every key the virtual tables serve
 * finds, for every object, the rows the database's indexes find (by outer,
 * class, idom and dst: the first lookups by a scan, the later ones by
 * what is built for them; and odd
 * keys: text, real, NULL, IN lists); the lookups show in the query plan;
 * and writes are refused. */
#include <sqlite3.h>
#include <stdlib.h>
#include <unistd.h>

#include "analysis/dominators.h"
#include "analysis/findings.h"
#include "sql/schema.h"
#include "sql/schema_text.h"
#include "sql/snapshot_db.h"
#include "sql/store.h"
#include "tests/unit.h"

static int cmp_line(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* SQL's rows on DB (or on S's, prepared by snapshot_db_prepare, when S is
 * set) as text, one a line, each value typed (so 5 and '5' differ), sorted
 * unless ORDERED; malloc'd, NULL on an SQL error. */
static char *rows(sqlite3 *db, snapshot_db *s, const char *sql, int ordered)
{
	sqlite3_stmt *st;
	char err[512];
	if (s)
		db = snapshot_db_handle(s);
	if (s ? snapshot_db_prepare(s, sql, &st, NULL, err, sizeof err)
	      : sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		printf("    %s: %s\n", sql, s ? err : sqlite3_errmsg(db));
		return NULL;
	}
	char **line = NULL;
	size_t n = 0, total = 1;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		size_t len = 1;
		for (int c = 0; c < sqlite3_column_count(st); c++)
			len += (size_t)sqlite3_column_bytes(st, c) + 3;
		char *s = malloc(len), *p = s;
		for (int c = 0; c < sqlite3_column_count(st); c++) {
			int type = sqlite3_column_type(st, c);
			const char *v = (const char *)sqlite3_column_text(st, c);
			p += sprintf(p, "%c%s|", "?ifbtn"[type], type == SQLITE_NULL ? "" : v);
		}
		line = realloc(line, (n + 1) * sizeof *line);
		line[n++] = s;
		total += (size_t)(p - s) + 1;
	}
	if (rc != SQLITE_DONE)
		printf("    %s: %s\n", sql, sqlite3_errmsg(db));
	sqlite3_finalize(st);
	if (!ordered && n)
		qsort(line, n, sizeof *line, cmp_line);
	char *out = malloc(total), *p = out;
	*p = '\0';
	for (size_t k = 0; k < n; k++) {
		p += sprintf(p, "%s\n", line[k]);
		free(line[k]);
	}
	free(line);
	if (rc != SQLITE_DONE) {
		free(out);
		return NULL;
	}
	return out;
}

/* SQL gives the same rows on A (the snapshot's) and B (the database). */
static int same_rows(snapshot_db *a, sqlite3 *b, const char *sql, int ordered)
{
	char *x = rows(NULL, a, sql, ordered), *y = rows(b, NULL, sql, ordered);
	int same = x && y && strcmp(x, y) == 0;
	if (!same)
		printf("    %s:\n      snapshot: %.300s\n      database: %.300s\n", sql, x ? x : "(error)", y ? y : "(error)");
	free(x);
	free(y);
	return same;
}

/* For every object, how many rows each served key finds, by lookup on a
 * virtual table (snapshot) or by index (database). */
#define LOOKUPS \
	"SELECT o.idx, (SELECT count(*) FROM ref_table r WHERE r.dst = o.idx)," \
	" (SELECT group_concat(r.pos) FROM ref_table r WHERE r.src = o.idx)," \
	" (SELECT count(*) FROM ref_table r WHERE r.src = o.idx AND r.pos = (SELECT min(pos) FROM ref_table q WHERE q.src = o.idx))," \
	" (SELECT group_concat(c.idx) FROM object_table c WHERE c.outer = o.idx)," \
	" (SELECT group_concat(c.idx) FROM object_table c WHERE c.class = o.idx)," \
	" (SELECT group_concat(c.idx) FROM object_table c WHERE c.idom = o.idx)," \
	" (SELECT group_concat(c.idx) FROM object_table c WHERE c.path_hash = o.path_hash)," \
	" (SELECT group_concat(m.idx) FROM cluster_members m WHERE m.root = o.idx)," \
	" (SELECT group_concat(m.root) FROM cluster_members m WHERE m.idx = o.idx)," \
	" (SELECT group_concat(m.idx) FROM cluster_mutable m WHERE m.root = o.idx)," \
	" (SELECT count(*) FROM purge p WHERE p.idx = o.idx)," \
	" (SELECT retained FROM retained_by_package p WHERE p.package = o.idx)," \
	" (SELECT text FROM strings s WHERE s.id = o.idx)" \
	" FROM object_table o"

/* Keys that are no plain integer, out of range, and lists. */
static const char *const odd_keys[] = {
	"SELECT idx FROM object_table WHERE idx = '12'",
	"SELECT idx FROM object_table WHERE idx = 12.0",
	"SELECT idx FROM object_table WHERE idx = 12.5",
	"SELECT idx FROM object_table WHERE idx = NULL",
	"SELECT idx FROM object_table WHERE idx = 'x'",
	"SELECT idx FROM object_table WHERE idx IN (11, 12, -1, 99999999999, 13)",
	"SELECT src, pos FROM ref_table WHERE dst IN (11, 12) AND src > 0",
	"SELECT * FROM ref_table WHERE src = -5 OR dst = 2147483648",
	"SELECT * FROM strings WHERE id = 0",
	"SELECT * FROM purge WHERE idx = '13'",
	"SELECT root FROM cluster_members WHERE idx = root",
};

/* Queries whose plan must use the virtual table's lookup, and its name. */
static const char *const plans[][2] = {
	{"SELECT * FROM refs WHERE dst = 12", "dst="},
	{"SELECT * FROM ref_table WHERE src = 12", "src="},
	{"SELECT * FROM objects WHERE idx = 12", "idx="},
	{"SELECT idx FROM objects WHERE outer = 10", "outer="},
	{"SELECT idx FROM objects WHERE idom = 10", "idom="},
	{"SELECT idx, path FROM objects ORDER BY retained DESC LIMIT 3", "order by retained desc"},
	{"SELECT * FROM cluster_members WHERE idx = 12", "idx="},
	{"SELECT * FROM retained_by_package WHERE package = 10", "package="},
	{"SELECT r.src, o.path FROM refs r JOIN objects o ON o.idx = r.src WHERE r.dst = 12", "idx="},
};

/* Does the plan of SQL name a virtual-table lookup WANT? */
static int plan_uses(snapshot_db *s, const char *sql, const char *want)
{
	char *eqp = sqlite3_mprintf("EXPLAIN QUERY PLAN %s", sql);
	char *plan = rows(NULL, s, eqp, 1);
	int found = plan && strstr(plan, want) != NULL;
	if (!found)
		printf("    %s: no %s in\n%s", sql, want, plan ? plan : "(error)\n");
	sqlite3_free(eqp);
	free(plan);
	return found;
}

static char dir[64];

/* An analysis computed on demand (snapshot_db's NEED), the way `sql`
 * computes it: DONE says what has been. */
typedef struct on_demand {
	heap *h;
	const gc_options *opt;
	gc_result r;
	findings f;
	dom_result d; /* before it is computed: zeroed but for the policy */
	int done;     /* PIPE_* */
} on_demand;

static int compute(void *owner, int what, char *err, size_t errsize)
{
	on_demand *a = owner;
	int rc = 0;
	if (!(a->done & PIPE_GC) && (rc = gc_run(a->h, a->opt, &a->r)) == 0)
		a->done |= PIPE_GC;
	if (rc == 0 && (what & PIPE_FINDINGS) && !(a->done & PIPE_FINDINGS) && (rc = findings_collect(a->h, &a->r, &a->f)) == 0)
		a->done |= PIPE_FINDINGS;
	if (rc == 0 && (what & PIPE_DOM) && !(a->done & PIPE_DOM) && (rc = dom_compute(a->h, &a->r, a->d.policy, &a->d)) == 0)
		a->done |= PIPE_DOM;
	if (rc)
		snprintf(err, errsize, "out of memory");
	return rc ? -1 : 0;
}

/* On demand, S (over A) computes only what each statement reads; each
 * answers as on DB. */
static void check_on_demand(snapshot_db *s, sqlite3 *db, const on_demand *a)
{
	CHECK(a->done == 0);
	CHECK(same_rows(s, db, "SELECT value FROM snapshot WHERE key = 'policy'", 0));
	CHECK(same_rows(s, db, "SELECT r.src, o.path, r.kind, r.property FROM refs r JOIN objects o ON o.idx = r.src "
			       "WHERE r.dst = 12", 0));
	CHECK(same_rows(s, db, "SELECT o.idx, o.path, t.class_name, t.size, t.flags, t.garbage, t.cluster, t.path_hash "
			       "FROM objects o JOIN object_table t ON t.idx = o.idx", 0));
	CHECK(same_rows(s, db, "SELECT * FROM cluster_members JOIN cluster_refs USING (root)", 0));
	CHECK(a->done == 0);
	CHECK(same_rows(s, db, "SELECT idx, reachable, distance, parent FROM objects", 0));
	CHECK(a->done == PIPE_GC);
	CHECK(same_rows(s, db, "SELECT c.root, c.state, p.size FROM clusters c, purge p", 0));
	CHECK(a->done == PIPE_GC);
	CHECK(same_rows(s, db, "SELECT kind, count(*) FROM findings GROUP BY kind", 0));
	CHECK(a->done == (PIPE_GC | PIPE_FINDINGS));
	CHECK(same_rows(s, db, "SELECT idx, retained FROM objects ORDER BY retained DESC", 1));
	CHECK(a->done == (PIPE_GC | PIPE_FINDINGS | PIPE_DOM));
}

/* One random heap of N objects analysed under POLICY: the in-memory
 * database (the analysis complete first, or ON_DEMAND) against the stored
 * one. */
static void compare(int n, int policy, int on_demand_)
{
	char path[128], err[512];
	snprintf(path, sizeof path, "%s", test_dir_path(dir, sizeof dir, "/tmp/ugc-test-snapdb-XXXXXX", "heap.db"));
	if (!dir[0]) {
		CHECK(0);
		return;
	}
	heap h;
	if (random_heap(n, 1, &h))
		return;
	gc_options opt = {.mode = h.mode, .keep_flags = gc_default_keep_flags(h.mode), .threads = 1};
	gc_result r;
	findings f;
	dom_result d;
	CHECK(gc_run(&h, &opt, &r) == 0);
	CHECK(findings_collect(&h, &r, &f) == 0);
	CHECK(dom_compute(&h, &r, policy, &d) == 0);
	store_info info = {"random.ugct", &opt, 1234567, &d, STORE_AUTO, 0, 0};
	sqlite3 *db = NULL;
	int stored = store_write(path, 1, &h, &r, &f, &info, err, sizeof err) == 0;
	CHECK(stored);
	on_demand a = {&h, &opt, {0}, {0}, {.policy = policy}, 0};
	store_info lazy_info = info;
	lazy_info.dom = &a.d;
	snapshot_db *mem = on_demand_ ? snapshot_db_open(&h, &a.r, &a.f, &lazy_info, compute, &a, err, sizeof err)
				      : snapshot_db_open(&h, &r, &f, &info, NULL, NULL, err, sizeof err);
	if (!mem)
		printf("    snapshot_db_open: %s\n", err);
	CHECK(mem != NULL);
	if (stored && mem && sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK) {
		if (on_demand_)
			check_on_demand(mem, db, &a);
		/* every table and view, whole, from the schema text itself */
		const char *texts[2] = {SCHEMA_TABLES, SCHEMA_INDEXES};
		schema_stmt s;
		int tables = 0;
		for (int t = 0; t < 2; t++)
			for (const char *p = texts[t]; schema_next(&p, &s) > 0;) {
				if (s.kind != SK_TABLE && s.kind != SK_VIEW)
					continue;
				char *sql = sqlite3_mprintf("SELECT * FROM %s", s.name);
				CHECK(same_rows(mem, db, sql, 0));
				sqlite3_free(sql);
				tables++;
			}
		CHECK(tables >= 20);
		CHECK(same_rows(mem, db, LOOKUPS, 0));
		for (size_t k = 0; k < sizeof odd_keys / sizeof *odd_keys; k++)
			CHECK(same_rows(mem, db, odd_keys[k], 0));
		/* the orders the tables give, as the database's indexes give them */
		CHECK(same_rows(mem, db, "SELECT idx, retained FROM objects ORDER BY retained DESC", 1));
		CHECK(same_rows(mem, db, "SELECT idx, retained FROM objects ORDER BY retained", 1));
		CHECK(same_rows(mem, db, "SELECT src, pos FROM ref_table ORDER BY src, pos", 1));
		CHECK(same_rows(mem, db, "SELECT * FROM retained_by_package ORDER BY package", 1));
		for (size_t k = 0; k < sizeof plans / sizeof *plans; k++)
			CHECK(plan_uses(mem, plans[k][0], plans[k][1]));
	}
	sqlite3_close(db);
	snapshot_db_close(mem);
	dom_free(&a.d);
	findings_free(&a.f);
	gc_result_free(&a.r);
	dom_free(&d);
	findings_free(&f);
	gc_result_free(&r);
	heap_free(&h);
}

TEST(snapshot_db_is_the_database)
{
	for (int k = 0; k < 8; k++) {
		compare(20 + 25 * k, k % POLICY_COUNT, 0);
		compare(20 + 25 * k, k % POLICY_COUNT, 1);
	}
}

/* Every write is refused: to a virtual table and to a filled one. */
TEST(snapshot_db_refuses_writes)
{
	heap h;
	if (random_heap(60, 1, &h))
		return;
	gc_options opt = {.mode = h.mode, .keep_flags = gc_default_keep_flags(h.mode), .threads = 1};
	gc_result r;
	findings f;
	CHECK(gc_run(&h, &opt, &r) == 0);
	CHECK(findings_collect(&h, &r, &f) == 0);
	store_info info = {"random.ugct", &opt, 0, NULL, STORE_AUTO, 0, 0};
	char err[512];
	snapshot_db *s = snapshot_db_open(&h, &r, &f, &info, NULL, NULL, err, sizeof err);
	CHECK(s != NULL);
	sqlite3 *db = s ? snapshot_db_handle(s) : NULL;
	static const char *const writes[] = {
		"DELETE FROM object_table", "INSERT INTO ref_table VALUES(1, 2, 3, 0, NULL)",
		"UPDATE purge SET size = 0", "DELETE FROM findings", "INSERT INTO snapshot VALUES('x', 1)",
		"DROP TABLE clusters", "CREATE TABLE t(x)",
	};
	char *before = rows(db, NULL, "SELECT count(*), (SELECT count(*) FROM findings) FROM object_table", 1);
	for (size_t k = 0; db && k < sizeof writes / sizeof *writes; k++) {
		int rc = sqlite3_exec(db, writes[k], NULL, NULL, NULL);
		CHECK(rc != SQLITE_OK);
		CHECK(strstr(sqlite3_errmsg(db), "readonly") || strstr(sqlite3_errmsg(db), "may not be modified"));
	}
	/* the virtual tables refuse even without query_only */
	CHECK(sqlite3_exec(db, "PRAGMA query_only = 0", NULL, NULL, NULL) == SQLITE_OK);
	CHECK(sqlite3_exec(db, "DELETE FROM object_table", NULL, NULL, NULL) != SQLITE_OK);
	CHECK(strstr(sqlite3_errmsg(db), "may not be modified") != NULL);
	char *after = rows(db, NULL, "SELECT count(*), (SELECT count(*) FROM findings) FROM object_table", 1);
	CHECK(before && after && strcmp(before, after) == 0);
	free(before);
	free(after);
	snapshot_db_close(s);
	findings_free(&f);
	gc_result_free(&r);
	heap_free(&h);
}

/* schema_text takes schema.h apart: every statement, tables' columns. */
TEST(schema_text_statements)
{
	schema_stmt s;
	const char *p = SCHEMA_TABLES;
	int tables = 0;
	while (schema_next(&p, &s) > 0)
		tables += s.kind == SK_TABLE;
	CHECK(tables >= 15);
	char cols[256];
	CHECK(schema_table(SCHEMA_TABLES, "ref_table", &s) == 0);
	CHECK(schema_columns(&s, cols, sizeof cols) == 0);
	CHECK_STR(cols, "src,pos,dst,kind,prop");
	CHECK(schema_table(SCHEMA_TABLES, "nope", &s) < 0);
	p = "CREATE INDEX a ON b(c); CREATE VIEW v AS SELECT ';' AS x; SELECT 1";
	CHECK(schema_next(&p, &s) == 1 && s.kind == SK_INDEX && strcmp(s.name, "a") == 0 && strcmp(s.on, "b") == 0);
	CHECK(schema_next(&p, &s) == 1 && s.kind == SK_VIEW && strcmp(s.name, "v") == 0);
	CHECK(s.len == strlen("CREATE VIEW v AS SELECT ';' AS x"));
	CHECK(schema_next(&p, &s) == -1); /* no ';' ends it */
}
