/* cmd_sql.c — `ugc-analyze sql DB [SQL]`: read-only queries over an
 * analysis database, printed as aligned text, CSV or JSON. */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

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

static const char *cell(sqlite3_stmt *st, int c)
{
	const unsigned char *t = sqlite3_column_text(st, c);
	return t ? (const char *)t : NULL;
}

/* Text output: rows are collected so that columns can be aligned. */
typedef struct table {
	char **cells;
	size_t n, cap;
	int cols;
} table;

static int table_add(table *t, const char *s)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 256;
		char **c = realloc(t->cells, cap * sizeof *c);
		if (!c)
			return -1;
		t->cells = c;
		t->cap = cap;
	}
	t->cells[t->n] = strdup(s ? s : "NULL");
	return t->cells[t->n++] ? 0 : -1;
}

static void table_print(table *t)
{
	if (!t->cols)
		return;
	size_t *w = calloc((size_t)t->cols, sizeof *w);
	if (!w)
		return;
	for (size_t i = 0; i < t->n; i++) {
		size_t l = strlen(t->cells[i]);
		if (l > w[i % t->cols])
			w[i % t->cols] = l;
	}
	for (size_t i = 0; i < t->n; i++) {
		int c = (int)(i % t->cols);
		if (c == t->cols - 1)
			printf("%s\n", t->cells[i]);
		else
			printf("%-*s  ", (int)w[c], t->cells[i]);
		if (i / t->cols == 0 && c == t->cols - 1) {
			for (int k = 0; k < t->cols; k++)
				for (size_t d = 0; d < w[k] + (k < t->cols - 1 ? 2 : 0); d++)
					putchar('-');
			putchar('\n');
		}
	}
	free(w);
}

static int run_statement(sqlite3_stmt *st, enum out_format fmt, int *first_json)
{
	int cols = sqlite3_column_count(st);
	table t = {NULL, 0, 0, cols};
	int rc;
	if (fmt == FMT_TEXT)
		for (int c = 0; c < cols; c++)
			table_add(&t, sqlite3_column_name(st, c));
	if (fmt == FMT_CSV && cols) {
		for (int c = 0; c < cols; c++) {
			if (c)
				putchar(',');
			csv_str(stdout, sqlite3_column_name(st, c));
		}
		putchar('\n');
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (fmt == FMT_TEXT) {
			for (int c = 0; c < cols; c++)
				if (table_add(&t, cell(st, c)))
					return die("out of memory");
		} else if (fmt == FMT_CSV) {
			for (int c = 0; c < cols; c++) {
				if (c)
					putchar(',');
				if (cell(st, c))
					csv_str(stdout, cell(st, c));
			}
			putchar('\n');
		} else {
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
				else
					json_str(stdout, cell(st, c));
			}
			putchar('}');
		}
	}
	if (fmt == FMT_TEXT)
		table_print(&t);
	for (size_t i = 0; i < t.n; i++)
		free(t.cells[i]);
	free(t.cells);
	return rc == SQLITE_DONE ? 0 : -1;
}

int cmd_sql(int argc, char **argv)
{
	const char *dbpath = NULL, *sql = NULL;
	enum out_format fmt = FMT_TEXT;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--format") == 0 && i + 1 < argc) {
			if (parse_format(argv[++i], 1, &fmt))
				return usage_error("sql", "--format is text, csv or json");
		} else if (argv[i][0] == '-' && argv[i][1] == '-')
			return usage_error("sql", "unknown option '%s'", argv[i]);
		else if (!dbpath)
			dbpath = argv[i];
		else if (!sql)
			sql = argv[i];
		else
			return usage_error("sql", "too many arguments (quote the SQL)");
	}
	if (!dbpath)
		return usage_error("sql", "needs a DB");
	char *owned = NULL;
	if (!sql || strcmp(sql, "-") == 0) {
		if (!(sql = owned = read_stdin()))
			return die("out of memory reading standard input");
	}
	sqlite3 *db;
	if (sqlite3_open_v2(dbpath, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		int rc = die("%s: %s", dbpath, sqlite3_errmsg(db));
		sqlite3_close(db);
		free(owned);
		return rc;
	}
	int rc = 0, first_json = 1;
	if (fmt == FMT_JSON)
		putchar('[');
	const char *tail = sql;
	while (rc == 0 && tail && *tail) {
		sqlite3_stmt *st = NULL;
		if (sqlite3_prepare_v2(db, tail, -1, &st, &tail) != SQLITE_OK) {
			rc = die("%s: %s", dbpath, sqlite3_errmsg(db));
			break;
		}
		if (!st)
			break; /* only whitespace or comments left */
		if (!sqlite3_stmt_readonly(st))
			rc = die("%s: only read-only statements are allowed", dbpath);
		else if (run_statement(st, fmt, &first_json))
			rc = die("%s: %s", dbpath, sqlite3_errmsg(db));
		sqlite3_finalize(st);
	}
	if (fmt == FMT_JSON)
		printf("]\n");
	sqlite3_close(db);
	free(owned);
	return rc;
}
