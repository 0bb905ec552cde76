/* cmd_sql.c — `ugc-analyze sql SNAPSHOT|DB [SQL]`: read-only queries over
 * an analysis database, or over a snapshot analysed in memory (each part of
 * the analysis when a statement first reads what needs it) and presented
 * with the database's tables and views (snapshot_db.h), printed as aligned
 * text, CSV or JSON, streamed: memory does not grow with the result (an
 * endless recursive query runs until stopped, in constant memory).  Values
 * are shown in display form. */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/analysis_options.h"
#include "cli/cli.h"
#include "sql/sql.h"
#include "base/base.h"

/* Read all of standard input. */
static char *read_stdin(void)
{
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap);
	while (buf) {
		size_t n = fread(buf + len, 1, cap - len - 1, stdin);
		len += n;
		if (n == 0)
			break;
		if (len + 1 == cap) {
			char *b = realloc(buf, cap *= 2);
			if (!b) {
				free(buf);
				return NULL;
			}
			buf = b;
		}
	}
	if (buf)
		buf[len] = '\0';
	return buf;
}

/* Column C of the current row in display form (escape.h: controls, NUL
 * bytes and bytes that are not UTF-8 as \\xHH), malloc'd; NULL for NULL. */
static char *cell(sqlite3_stmt *st, int c)
{
	if (sqlite3_column_type(st, c) == SQLITE_NULL)
		return NULL;
	const char *t = (const char *)sqlite3_column_text(st, c);
	size_t len = (size_t)sqlite3_column_bytes(st, c);
	char *out = malloc(4 * len + 1);
	if (out)
		display_escape(out, 4 * len + 1, t ? t : "", t ? len : 0);
	return out;
}

/* Text output is aligned on the widths of the first TEXT_SAMPLE rows, which
 * are held back until then; later rows stream out at those widths (a wider
 * cell just sticks out), so memory does not grow with the result. */
#define TEXT_SAMPLE 1000

typedef struct table {
	char **cells; /* held rows, header first, COLS a row; NULL cells print NULL */
	size_t n, cap;
	int cols;
	size_t *w;
	int flushed;
} table;

static int table_add(table *t, char *s)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 256;
		char **c = realloc(t->cells, cap * sizeof *c);
		if (!c) {
			free(s);
			return -1;
		}
		t->cells = c;
		t->cap = cap;
	}
	t->cells[t->n++] = s;
	return 0;
}

static void table_row(const table *t, char *const *row)
{
	for (int c = 0; c < t->cols; c++) {
		const char *s = row[c] ? row[c] : "NULL";
		if (c == t->cols - 1)
			printf("%s\n", s);
		else
			printf("%-*s  ", (int)t->w[c], s);
	}
}

/* Print the held rows (the header line under the first) and stream from now on. */
static void table_flush(table *t)
{
	if (t->flushed || !t->cols)
		return;
	for (size_t i = 0; i < t->n; i++) {
		size_t l = strlen(t->cells[i] ? t->cells[i] : "NULL");
		if (l > t->w[i % t->cols])
			t->w[i % t->cols] = l;
	}
	for (size_t r = 0; r * t->cols < t->n; r++) {
		table_row(t, t->cells + r * t->cols);
		if (r == 0) {
			for (int k = 0; k < t->cols; k++)
				for (size_t d = 0; d < t->w[k] + (k < t->cols - 1 ? 2 : 0); d++)
					putchar('-');
			putchar('\n');
		}
	}
	for (size_t i = 0; i < t->n; i++)
		free(t->cells[i]);
	t->n = 0;
	t->flushed = 1;
}

static void table_free(table *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->cells[i]);
	free(t->cells);
	free(t->w);
}

/* One result row in FMT; -1 when out of memory. */
static int put_row(sqlite3_stmt *st, enum out_format fmt, table *t, int *first_json)
{
	int cols = t->cols;
	if (fmt == FMT_TEXT) {
		if (!t->flushed) {
			for (int c = 0; c < cols; c++) {
				char *s = cell(st, c);
				if ((!s && sqlite3_column_type(st, c) != SQLITE_NULL) || table_add(t, s))
					return -1;
			}
			if (t->n >= (size_t)(TEXT_SAMPLE + 1) * cols)
				table_flush(t);
			return 0;
		}
		char *row[cols > 0 ? cols : 1];
		int bad = 0;
		for (int c = 0; c < cols; c++) {
			row[c] = cell(st, c);
			bad |= !row[c] && sqlite3_column_type(st, c) != SQLITE_NULL;
		}
		if (!bad)
			table_row(t, row);
		for (int c = 0; c < cols; c++)
			free(row[c]);
		return bad ? -1 : 0;
	}
	if (fmt == FMT_CSV) {
		for (int c = 0; c < cols; c++) {
			if (c)
				putchar(',');
			char *s = cell(st, c);
			if (!s && sqlite3_column_type(st, c) != SQLITE_NULL)
				return -1;
			if (s)
				csv_str(stdout, s);
			free(s);
		}
		putchar('\n');
		return 0;
	}
	printf("%s{", *first_json ? "" : ",\n");
	*first_json = 0;
	for (int c = 0; c < cols; c++) {
		if (c)
			putchar(',');
		json_str(stdout, sqlite3_column_name(st, c));
		putchar(':');
		int type = sqlite3_column_type(st, c);
		if (type == SQLITE_NULL)
			fputs("null", stdout);
		else if (type == SQLITE_INTEGER)
			printf("%lld", (long long)sqlite3_column_int64(st, c));
		else if (type == SQLITE_FLOAT)
			printf("%.17g", sqlite3_column_double(st, c));
		else {
			const char *raw = (const char *)sqlite3_column_text(st, c);
			size_t len = (size_t)sqlite3_column_bytes(st, c);
			if (raw && type == SQLITE_TEXT && strlen(raw) == len) {
				json_str(stdout, raw); /* exact: json_str escapes what JSON needs */
			} else {
				char *s = cell(st, c); /* a blob, or text with NUL bytes */
				if (!s)
					return -1;
				json_str(stdout, s);
				free(s);
			}
		}
	}
	putchar('}');
	return 0;
}

/* Run ST, printing its rows: 0, -1 on an SQL error (for the caller to
 * report), 1 when out of memory (reported). */
static int run_statement(sqlite3_stmt *st, enum out_format fmt, int *first_json)
{
	int cols = sqlite3_column_count(st);
	table t = {NULL, 0, 0, cols, calloc((size_t)cols + 1, sizeof(size_t)), 0};
	int rc;
	if (!t.w)
		return error("out of memory");
	if (fmt == FMT_TEXT)
		for (int c = 0; c < cols; c++)
			if (table_add(&t, display_escape_dup(sqlite3_column_name(st, c))) || !t.cells[t.n - 1]) {
				table_free(&t);
				return error("out of memory");
			}
	if (fmt == FMT_CSV && cols) {
		for (int c = 0; c < cols; c++) {
			if (c)
				putchar(',');
			char *name = display_escape_dup(sqlite3_column_name(st, c));
			csv_str(stdout, name ? name : "");
			free(name);
		}
		putchar('\n');
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if (put_row(st, fmt, &t, first_json)) {
			table_free(&t);
			return error("out of memory");
		}
	if (fmt == FMT_TEXT)
		table_flush(&t);
	table_free(&t);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* A snapshot loaded in memory, analysed as statements need it. */
typedef struct in_memory {
	pipeline an;
	store_info info;
	snapshot_db *sdb;
} in_memory;

/* vtab_need_fn (heap_vtab.h): compute what a statement reads. */
static int compute(void *owner, int what, char *err, size_t errsize)
{
	in_memory *m = owner;
	return pipeline_need(&m->an, what, err, errsize);
}

static void in_memory_free(in_memory *m)
{
	if (m) {
		snapshot_db_close(m->sdb);
		pipeline_free(&m->an);
		free(m);
	}
}

/* Open PATH: a database read-only as untrusted input (sql/input.h,
 * input_open_sql: an analysis database of this build's schema, its views
 * the tool's own; any other SQLite file, a diff -o database, as it is), or
 * a snapshot loaded into an in-memory one (*MEM, to free after the
 * connection, whose statements are prepared with snapshot_db_prepare).
 * NULL after printing the error. */
static sqlite3 *open_sql_input(const char *path, const analysis_options *ao, in_memory **mem)
{
	char err[1024];
	*mem = NULL;
	if (is_sqlite_file(path)) {
		sqlite3 *db = input_open_sql(path, INPUT_SQL_ANY, err, sizeof err);
		if (!db)
			error("%s", err);
		return db;
	}
	in_memory *m = calloc(1, sizeof *m);
	if (!m) {
		error("out of memory");
		return NULL;
	}
	pipeline_options po = analysis_pipeline_options(ao);
	if (pipeline_load(&m->an, path, &po, err, sizeof err)) {
		error("%s", err);
		free(m);
		return NULL;
	}
	double t1 = now_seconds();
	m->info = (store_info){path, &m->an.opt, (double)time(NULL), &m->an.dom, STORE_AUTO, 0, 0};
	m->sdb = snapshot_db_open(&m->an.h, &m->an.r, &m->an.f, &m->info, compute, m, err, sizeof err);
	if (!m->sdb) {
		error("%s: %s", path, err);
		in_memory_free(m);
		return NULL;
	}
	trace_printf("loaded in %.3f s, tables ready in %.3f s", m->an.load_s, now_seconds() - t1);
	*mem = m;
	return snapshot_db_handle(m->sdb);
}

struct sql_opts {
	int format;
	analysis_options an;
};

#define S struct sql_opts
static const option options[] = {
	OPT_FORMAT(S, format, "text (aligned columns, default), csv (RFC 4180) or json (array of objects)"),
	OPT_GROUP("for a SNAPSHOT, as for analyze:"),
	OPT_ANALYSIS(S, an),
	OPT_END(),
};
#undef S

const command command_sql = {
	"sql", cmd_sql, "run read-only SQL over a database written by analyze, or over a snapshot",
	"usage: ugc-analyze sql SNAPSHOT|DB ['SELECT ...'] [--format text|csv|json]\n"
	"                      [--mode game|editor] [--keep-flags LIST] [--threads N] [--policy P]\n",
	"Runs the statements given (or read from standard input) against DB, opened\n"
	"read-only, or against a SNAPSHOT (.ugct, .ugcs, .zst, .heapsnapshot) analysed in\n"
	"memory as analyze would, with the same tables and views: no database is\n"
	"written, and the GC, findings and dominators are computed only when a\n"
	"statement reads what needs them.  The schema is in ugc-analyze(1).\n",
	options, 2, "(quote the SQL)",
};

int cmd_sql(int argc, char **argv)
{
	struct sql_opts opts = {FMT_TEXT, ANALYSIS_OPTIONS_INIT};
	const char *operands[2] = {NULL, NULL};
	int parsed = parse_options(&command_sql, argc, argv, &opts, operands);
	if (parsed < 0)
		return OPT_EXIT_STATUS(parsed);
	const char *dbpath = operands[0], *sql = operands[1];
	enum out_format fmt = opts.format;
	analysis_options ao = opts.an;
	if (!dbpath)
		return usage_error("sql", "needs a SNAPSHOT or a DB");
	char bad[1024];
	if (file_check_input(dbpath, bad, sizeof bad)) /* a FIFO: refused before an open waits for a writer */
		return error("%s", bad);
	if (analysis_options_given(&ao) && is_sqlite_file(dbpath))
		return usage_error("sql", "--mode, --keep-flags, --threads and --policy are for a snapshot; %s is a database",
				   dbpath);
	if (analysis_options_check("sql", &ao))
		return 2;
	char *owned = NULL;
	if (!sql || strcmp(sql, "-") == 0) {
		if (!(sql = owned = read_stdin()))
			return error("out of memory reading standard input");
	}
	in_memory *mem;
	sqlite3 *db = open_sql_input(dbpath, &ao, &mem);
	if (!db) {
		free(owned);
		return 1;
	}
	input_ready_at = now_seconds();
	int rc = 0, first_json = 1;
	if (fmt == FMT_JSON)
		putchar('[');
	const char *tail = sql;
	while (rc == 0 && tail && *tail) {
		sqlite3_stmt *st = NULL;
		char err[1024];
		if (mem ? snapshot_db_prepare(mem->sdb, tail, &st, &tail, err, sizeof err)
			: sqlite3_prepare_v2(db, tail, -1, &st, &tail) != SQLITE_OK) {
			rc = error("%s: %s", dbpath, mem ? err : sqlite3_errmsg(db));
			break;
		}
		if (!st)
			break; /* only whitespace or comments left */
		if (!sqlite3_stmt_readonly(st))
			rc = error("%s: only read-only statements are allowed", dbpath);
		else if ((rc = run_statement(st, fmt, &first_json)) < 0)
			rc = error("%s: %s", dbpath, sqlite3_errmsg(db));
		sqlite3_finalize(st);
	}
	if (fmt == FMT_JSON)
		printf("]\n");
	fflush(stdout);
	answered_at = now_seconds();
	if (mem)
		in_memory_free(mem);
	else
		sqlite3_close(db);
	free(owned);
	return rc;
}
