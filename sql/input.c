/* input.c — a database or an analysed snapshot as one input (see input.h). */
#include "sql/input.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/base.h"
#include "sql/db_heap.h"
#include "sql/db_version.h"
#include "sql/diff_db.h"
#include "sql/retention_db.h"
#include "sql/retention_db.h"
#include "sql/schema.h"
#include "sql/schema_text.h"
#include "sql/view_db.h"

/* The SQL functions a statement may call on an untrusted database: SQLite's
 * own core, aggregate, window, date and time, math and JSON functions, and
 * the LIKE, GLOB and MATCH operators.  An allow list, not a deny list: what
 * it does not name is refused, fts3_tokenizer (it reads and writes code
 * addresses: a crafted pointer is a jump anywhere) and load_extension among
 * them, and so is anything a module, an application or a later SQLite adds,
 * until it is judged and added here. */
static const char *const allowed_functions[] = {
	"->", "->>", "abs", "avg", "changes", "char", "coalesce", "concat", "concat_ws", "count", "format", "glob",
	"group_concat", "hex", "if", "ifnull", "iif", "instr", "last_insert_rowid", "length", "like", "likelihood",
	"likely", "lower", "ltrim", "match", "max", "min", "nullif", "octet_length", "printf", "quote", "random",
	"randomblob", "replace", "round", "rtrim", "sign", "soundex", "sqlite_compileoption_get",
	"sqlite_compileoption_used", "sqlite_offset", "sqlite_source_id", "sqlite_version", "string_agg", "substr",
	"substring", "sum", "total", "total_changes", "trim", "typeof", "unhex", "unicode", "unistr", "unistr_quote",
	"unlikely", "upper", "zeroblob",
	/* window functions */
	"cume_dist", "dense_rank", "first_value", "lag", "last_value", "lead", "nth_value", "ntile", "percent_rank",
	"rank", "row_number",
	/* date and time */
	"current_date", "current_time", "current_timestamp", "date", "datetime", "julianday", "strftime", "time",
	"timediff", "unixepoch",
	/* math */
	"acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "ceil", "ceiling", "cos", "cosh", "degrees", "exp",
	"floor", "ln", "log", "log10", "log2", "mod", "pi", "pow", "power", "radians", "sin", "sinh", "sqrt", "tan",
	"tanh", "trunc",
	/* JSON */
	"json", "json_array", "json_array_length", "json_error_position", "json_extract", "json_group_array",
	"json_group_object", "json_insert", "json_object", "json_patch", "json_pretty", "json_quote", "json_remove",
	"json_replace", "json_set", "json_type", "json_valid", "jsonb", "jsonb_array", "jsonb_extract",
	"jsonb_group_array", "jsonb_group_object", "jsonb_insert", "jsonb_object", "jsonb_patch", "jsonb_remove",
	"jsonb_replace", "jsonb_set",
};

int input_sql_function_allowed(const char *name)
{
	for (size_t k = 0; name && k < sizeof allowed_functions / sizeof *allowed_functions; k++)
		if (strcasecmp(name, allowed_functions[k]) == 0)
			return 1;
	return 0;
}

/* The authorizer of every untrusted connection (see input.h): it runs when
 * a statement is prepared, the statements inside the views it reads too. */
static int untrusted_authorizer(void *ctx, int action, const char *a1, const char *a2, const char *db,
				const char *trigger)
{
	(void)ctx; (void)db; (void)trigger;
	switch (action) {
	case SQLITE_FUNCTION:
		return input_sql_function_allowed(a2) ? SQLITE_OK : SQLITE_DENY;
	case SQLITE_ATTACH:
		return SQLITE_DENY;
	case SQLITE_PRAGMA: /* reading it is fine; turning it back on is not */
		return a1 && a2 && strcasecmp(a1, "trusted_schema") == 0 ? SQLITE_DENY : SQLITE_OK;
	default:
		return SQLITE_OK;
	}
}

const char *input_sql_why(sqlite3 *db)
{
	if (db && sqlite3_extended_errcode(db) == SQLITE_READONLY_ROLLBACK)
		return "a write to it was left unfinished: the process writing it crashed or was killed, and its hot "
		       "journal (the file beside it ending -journal) must be rolled back before it can be read; open it "
		       "read-write once (e.g. sqlite3 FILE 'PRAGMA quick_check') and run again";
	return db ? sqlite3_errmsg(db) : "out of memory";
}

/* What a walk over the tool's schema names (schema_walk) does with each:
 * ST has run once for it, STEP is its result.  0 goes on, 1 stops the walk
 * with an answer, -1 stops it with ERR. */
typedef int (*schema_visit)(sqlite3 *db, sqlite3_stmt *st, int step, const schema_stmt *s, const char *path,
			    char *err, size_t errsize);

/* Run QUERY (one parameter: a name) over the file's sqlite_schema for each
 * table, index and view of schema.h, in order, handing each result to
 * VISIT.  0 when every name was visited, 1 when VISIT stopped with an
 * answer, -1 with ERR. */
static int schema_walk(sqlite3 *db, const char *query, schema_visit visit, const char *path, char *err,
		       size_t errsize)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, query, -1, &st, NULL) != SQLITE_OK) {
		snprintf(err, errsize, "%s: %s", path, input_sql_why(db));
		return -1;
	}
	int rc = 0;
	for (int part = 0; part < 2 && rc == 0; part++) {
		const char *text = part ? SCHEMA_INDEXES : SCHEMA_TABLES;
		schema_stmt s;
		int more;
		while (rc == 0 && (more = schema_next(&text, &s)) > 0) {
			if (s.kind == SK_OTHER)
				continue;
			sqlite3_reset(st);
			sqlite3_bind_text(st, 1, s.name, -1, SQLITE_STATIC);
			int step = sqlite3_step(st);
			if (step != SQLITE_ROW && step != SQLITE_DONE) {
				snprintf(err, errsize, "%s: %s", path, input_sql_why(db));
				rc = -1;
			} else {
				rc = visit(db, st, step, &s, path, err, errsize);
			}
		}
		if (rc == 0 && more < 0) {
			snprintf(err, errsize, "%s: %s", path, more == -2 ? "out of memory" : "the schema text is incomplete");
			rc = -1;
		}
	}
	sqlite3_finalize(st);
	return rc;
}

/* check_schema's visit: the entry must be there, of its kind, with the
 * tool's own text. */
static int same_as_ours(sqlite3 *db, sqlite3_stmt *st, int step, const schema_stmt *s, const char *path, char *err,
			size_t errsize)
{
	static const char *const kinds[] = {[SK_TABLE] = "table", [SK_INDEX] = "index", [SK_VIEW] = "view"};
	(void)db;
	const char *type = step == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
	const char *sql = step == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 1) : NULL;
	if (!type || !sql) {
		snprintf(err, errsize, "%s: %s %s: missing: not an analysis database as this version of "
			 "ugc-analyze writes it (analyse the snapshot again)", path, kinds[s->kind], s->name);
		return -1;
	}
	if (strcmp(type, kinds[s->kind]) != 0 || (size_t)sqlite3_column_bytes(st, 1) != s->len ||
	    memcmp(sql, s->text, s->len) != 0) {
		snprintf(err, errsize, "%s: %s %s: its definition in the file is not the one ugc-analyze writes; "
			 "refusing to run the file's own SQL (analyse the snapshot again)", path, kinds[s->kind], s->name);
		return -1;
	}
	return 0;
}

/* The tables, indexes and views of an analysis database, against schema.h's
 * text (see input.h).  0, or -1 with ERR. */
static int check_schema(sqlite3 *db, const char *path, char *err, size_t errsize)
{
	return schema_walk(db, "SELECT type, sql FROM main.sqlite_schema WHERE name = ?1 COLLATE NOCASE", same_as_ours,
			   path, err, errsize);
}

/* uses_our_names' visit: found one. */
static int present(sqlite3 *db, sqlite3_stmt *st, int step, const schema_stmt *s, const char *path, char *err,
		   size_t errsize)
{
	(void)db; (void)st; (void)s; (void)path; (void)err; (void)errsize;
	return step == SQLITE_ROW;
}

/* Does the file use any name of an analysis database's tables, indexes or
 * views (schema.h), as anything?  Then it is held to check_schema(): a
 * file that renamed its snapshot table cannot have its own "objects" view
 * run as if it were foreign.  1, 0, or -1 with ERR. */
static int uses_our_names(sqlite3 *db, const char *path, char *err, size_t errsize)
{
	return schema_walk(db, "SELECT 1 FROM main.sqlite_schema WHERE name = ?1 COLLATE NOCASE", present, path, err,
			   errsize);
}

sqlite3 *input_open_sql(const char *path, int kind, char *err, size_t errsize)
{
	sqlite3 *db = NULL;
	if (file_check_input(path, err, errsize))
		return NULL;
	/* one thread reads a connection: no mutex on every column read */
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		snprintf(err, errsize, "%s: %s", path, input_sql_why(db));
		sqlite3_close(db);
		return NULL;
	}
	int off = 0, on = 1;
	if (sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, on, NULL) != SQLITE_OK ||
	    sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, off, NULL) != SQLITE_OK ||
	    sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER, off, NULL) != SQLITE_OK ||
	    sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, off, NULL) != SQLITE_OK ||
	    sqlite3_set_authorizer(db, untrusted_authorizer, NULL) != SQLITE_OK) {
		snprintf(err, errsize, "%s: cannot make the connection safe for an untrusted file: %s", path,
			 sqlite3_errmsg(db));
		sqlite3_close(db);
		return NULL;
	}
	int analysis = kind == INPUT_SQL_ANALYSIS;
	if (!analysis && (analysis = uses_our_names(db, path, err, errsize)) < 0) {
		sqlite3_close(db);
		return NULL;
	}
	char why[512];
	if (analysis && db_check_version(db, why, sizeof why)) {
		snprintf(err, errsize, "%s: %s", path, why);
		sqlite3_close(db);
		return NULL;
	}
	if (analysis && check_schema(db, path, err, errsize)) {
		sqlite3_close(db);
		return NULL;
	}
	return db;
}

static int open_database(input *in, const char *path, int what, int policy, char *err, size_t errsize)
{
	if (!(in->v = view_db_open(path, err, errsize)))
		return -1;
	if ((what & PIPE_DOM) && retention_db_load(path, in->v->slots, policy, &in->d, err, errsize)) {
		input_close(in);
		return -1;
	}
	return 0;
}

/* The GC of a snapshot opened without it, when its view first needs it. */
static int run_gc(void *p, char *err, size_t errsize)
{
	int rc = pipeline_need(p, PIPE_GC, err, errsize);
	progress_phase(NULL); /* the answer goes on, on a clean line */
	return rc;
}

static int open_snapshot(input *in, const char *path, int what, const pipeline_options *o, char *err, size_t errsize)
{
	pipeline *p = calloc(1, sizeof *p);
	if (!p) {
		snprintf(err, errsize, "out of memory opening %s", path);
		return -1;
	}
	if (pipeline_load_for(p, path, o, what, err, errsize)) {
		free(p);
		return -1;
	}
	in->p = p;
	in->h = &p->h;
	in->r = &p->r;
	if (pipeline_need(p, what, err, errsize))
		goto fail;
	if (what & PIPE_DOM) { /* moved out: the input's, as a database's are */
		in->d = p->dom;
		memset(&p->dom, 0, sizeof p->dom);
		p->dom.policy = in->d.policy; /* still the one asked for */
		p->done &= ~PIPE_DOM;
	}
	/* borrowed: the view builds its indexes (and ugc-gc(7)'s retention
	 * step, when deferred) only if a command asks, so a large snapshot
	 * pays only for what is printed */
	if (!(in->v = view_heap_borrow(&p->h, &p->r, err, errsize)))
		goto fail;
	if (!(p->done & PIPE_GC))
		view_heap_defer_gc(in->v, run_gc, p);
	progress_phase(NULL);
	return 0;
fail:
	input_close(in);
	return -1;
}

int input_open(input *in, const char *path, int what, const pipeline_options *o, char *err, size_t errsize)
{
	memset(in, 0, sizeof *in);
	in->path = path;
	if (file_check_input(path, err, errsize)) /* before anything opens it: a FIFO would block the open */
		return -1;
	if (is_sqlite_file(path))
		return open_database(in, path, what, o ? o->policy : -1, err, errsize);
	return open_snapshot(in, path, what, o, err, errsize);
}

int input_dominators(input *in, int policy, dom_result *out, char *err, size_t errsize)
{
	if (!in->p) {
		snprintf(err, errsize, "%s: a database holds one policy (%s); give the snapshot to compare with %s", in->path,
			 dom_policy_names[in->d.policy], dom_policy_names[policy]);
		return -1;
	}
	return pipeline_dominators(in->p, policy, out, err, errsize);
}

void input_close(input *in)
{
	dom_free(&in->d);
	if (in->v)
		in->v->ops->close(in->v);
	if (in->p) { /* after the view, which only borrowed it */
		pipeline_free(in->p);
		free(in->p);
	}
	memset(in, 0, sizeof *in);
}

view *input_open_view(const char *path, char *err, size_t errsize)
{
	if (file_check_input(path, err, errsize))
		return NULL;
	if (is_sqlite_file(path))
		return view_db_open(path, err, errsize);
	pipeline p;
	if (pipeline_load(&p, path, NULL, err, errsize))
		return NULL;
	heap *h = malloc(sizeof *h);
	gc_result *r = malloc(sizeof *r);
	view *v = NULL;
	if (!h || !r)
		snprintf(err, errsize, "out of memory opening %s", path);
	else if (pipeline_need(&p, PIPE_GC, err, errsize) == 0) { /* the view takes the heap and its GC over */
		*h = p.h;
		*r = p.r;
		memset(&p.h, 0, sizeof p.h);
		memset(&p.r, 0, sizeof p.r);
		if ((v = view_heap_open(h, r, err, errsize))) {
			h = NULL;
			r = NULL;
		} else {
			gc_result_free(r);
			heap_free(h);
		}
	}
	pipeline_free(&p);
	free(h);
	free(r);
	progress_phase(NULL); /* the answer starts on a clean line */
	return v;
}

int input_open_heap(pipeline *p, const char *path, const pipeline_options *o, char *err, size_t errsize)
{
	if (file_check_input(path, err, errsize))
		return -1;
	if (!is_sqlite_file(path))
		return pipeline_load(p, path, o, err, errsize);
	heap h;
	gc_options opt = {0};
	if (db_heap_load(path, &h, &opt, err, errsize))
		return -1;
	pipeline_adopt(p, path, &h, &opt, o);
	return 0;
}

/* Leak mode's final side straight from an analysis database: its stored
 * state and the gc policy's dominators it holds.  1 when taken; 0 when the
 * heap must be analysed again (a V8 heap, whose paths leak mode takes from
 * program state, or one stored under another policy); -1 on error. */
static int leak_side_stored(const char *path, diff_side *s, char *err, size_t errsize)
{
	sqlite3 *db = input_open_sql(path, INPUT_SQL_ANALYSIS, err, errsize);
	if (!db)
		return -1;
	sqlite3_stmt *st = NULL;
	int taken = 0;
	if (sqlite3_prepare_v2(db, "SELECT (SELECT value FROM snapshot WHERE key = 'engine'), "
			       "(SELECT value FROM snapshot WHERE key = 'policy')", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_TEXT &&
	    sqlite3_column_type(st, 1) == SQLITE_TEXT)
		taken = !engine_is_v8((const char *)sqlite3_column_text(st, 0)) &&
			dom_policy_parse((const char *)sqlite3_column_text(st, 1)) == POLICY_GC;
	sqlite3_finalize(st);
	sqlite3_close(db);
	if (!taken)
		return 0;
	dom_result d;
	if (diff_side_from_db(path, s, err, errsize))
		return -1;
	if (retention_db_load(path, s->slots, POLICY_GC, &d, err, errsize))
		return -1;
	int rc = diff_side_keep_dominators(s, &d);
	dom_free(&d);
	if (rc)
		snprintf(err, errsize, "out of memory comparing %s", path);
	return rc ? -1 : 1;
}

int input_leak_side(const char *path, int threads, diff_side *s, char *err, size_t errsize)
{
	memset(s, 0, sizeof *s);
	if (file_check_input(path, err, errsize))
		return -1;
	if (is_sqlite_file(path)) {
		int stored = leak_side_stored(path, s, err, errsize);
		if (stored != 0)
			return stored < 0 ? -1 : 0;
		diff_side_free(s);
	}
	pipeline p;
	pipeline_options o = PIPELINE_OPTIONS_INIT;
	o.threads = threads;
	o.policy = POLICY_GC;
	if (input_open_heap(&p, path, &o, err, errsize))
		return -1;
	int rc = pipeline_need(&p, PIPE_ALL, err, errsize);
	if (rc == 0 && (leak_program_paths(&p.h, &p.r) || diff_side_from_analysis(&p.h, &p.r, &p.f, &p.dom, s))) {
		snprintf(err, errsize, "out of memory comparing %s", path);
		rc = -1;
	}
	pipeline_free(&p);
	return rc;
}

int input_diff_side(const char *path, int threads, diff_side *s, char *err, size_t errsize)
{
	memset(s, 0, sizeof *s); /* freeable whatever happens */
	if (file_check_input(path, err, errsize))
		return -1;
	if (is_sqlite_file(path))
		return diff_side_from_db(path, s, err, errsize) ? -1 : 0;
	pipeline p;
	pipeline_options o = PIPELINE_OPTIONS_INIT;
	o.threads = threads;
	if (pipeline_load(&p, path, &o, err, errsize))
		return -1;
	int rc = pipeline_need(&p, PIPE_GC | PIPE_FINDINGS, err, errsize);
	if (rc == 0 && diff_side_from_heap(&p.h, &p.r, &p.f, s)) {
		snprintf(err, errsize, "out of memory comparing %s", path);
		rc = -1;
	}
	pipeline_free(&p);
	return rc;
}
