/* input.h — a command's input, whatever it is: a database analyze wrote,
 * read through SQLite, or a snapshot analysed in memory through the
 * pipeline (analysis/pipeline.h).  The commands open their input here and
 * never run the GC, the findings or the dominators themselves.
 *
 * Every function returns 0, or -1 with a one-line reason in ERR that names
 * the file. */
#ifndef UGC_INPUT_H
#define UGC_INPUT_H

#include "analysis/analysis.h"

/* An opened input: the query view, and the dominators when asked for. */
typedef struct input {
	const char *path;
	view *v;          /* names, selectors, references, states */
	dom_result d;     /* with PIPE_DOM: under the policy asked for */
	heap *h;          /* a snapshot: its heap (V borrows it); NULL for a database */
	gc_result *r;     /* a snapshot: its GC result, likewise, once computed
			   * (PIPE_GC asked for, or the view's first need of it) */
	pipeline *p;      /* a snapshot: the analysis H and R belong to */
} input;

/* Open PATH as a view, with what of WHAT it needs: PIPE_GC for a command
 * that reads the GC's results (without it a snapshot's view runs the GC
 * when a call first needs it: naming objects does not) and PIPE_DOM for
 * the dominators under O's policy (-1: gc for a snapshot, the stored one
 * for a database).  O (NULL: the defaults) analyses a snapshot;
 * a snapshot's findings are computed by the view if a command asks. */
int input_open(input *in, const char *path, int what, const pipeline_options *o, char *err, size_t errsize);
/* Another policy's dominators over the same input (a snapshot: a database
 * holds one policy). */
int input_dominators(input *in, int policy, dom_result *out, char *err, size_t errsize);
void input_close(input *in);

/* PATH as a view that owns what is behind it (closing it frees all), with
 * a snapshot's GC run: for the query commands.  NULL with the reason in ERR. */
view *input_open_view(const char *path, char *err, size_t errsize);

/* PATH, a snapshot or a database, as a heap in P with its GC's options (a
 * database's stored mode and keep flags; O overrides them), nothing
 * computed yet: for a command that changes the heap (whatif). */
int input_open_heap(pipeline *p, const char *path, const pipeline_options *o, char *err, size_t errsize);

/* One side of a diff: a database's stored state, or a snapshot's GC and
 * findings on THREADS marking threads. */
int input_diff_side(const char *path, int threads, diff_side *s, char *err, size_t errsize);
/* The final side of leak mode: PATH, a snapshot or a database, analysed
 * (its GC, findings and gc-policy dominators, whose per-object results the
 * side keeps: diff_side.idom, obj_retained) on THREADS marking threads; on
 * a V8 heap its shortest paths are from program state
 * (leak_program_paths).  A database of a heap that is not V8's, stored
 * under the gc policy, is read as it is (the same answers, no GC run);
 * any other's heap is read back and analysed again. */
int input_leak_side(const char *path, int threads, diff_side *s, char *err, size_t errsize);

/* The one way an untrusted database file is opened, whoever reads it: PATH
 * must be a regular file (fileio.h, file_check_input), and is opened
 * read-only so that nothing in the file runs code or calls a function the
 * tool did not choose:
 *   - SQLITE_DBCONFIG_DEFENSIVE on, SQLITE_DBCONFIG_TRUSTED_SCHEMA off (the
 *     file's schema may use only innocuous functions and virtual tables),
 *     SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER and load_extension off;
 *   - an authorizer that lets a statement call only the SQL functions of an
 *     allow list (SQLite's own pure functions: no fts3_tokenizer, which
 *     hands out and takes code addresses, no load_extension, nothing a
 *     module or a later SQLite adds), and refuses ATTACH (another file
 *     would bypass these checks) and turning trusted_schema back on;
 *   - an analysis database (one with table snapshot; with KIND
 *     INPUT_SQL_ANALYSIS, every database) must be of this build's schema
 *     version (db_version.h), and its tables, indexes and views exactly the
 *     ones this build writes, text for text: a view the file redefines (an
 *     endless recursive objects view) or a table it replaces by a view is
 *     refused, so the tool's statements and views never run the file's SQL.
 * Any other database (a diff -o database) is queried as it is.  The
 * connection, or NULL with a one-line reason in ERR that names PATH (a hot
 * journal, SQLite's "attempt to write a readonly database", is said as what
 * it is: input_sql_why). */
enum { INPUT_SQL_ANY, INPUT_SQL_ANALYSIS };
struct sqlite3;
struct sqlite3 *input_open_sql(const char *path, int kind, char *err, size_t errsize);
/* Why the last call on DB failed, for a message after the file's name:
 * SQLite's message, or for a hot journal (a process writing the database
 * crashed or was killed mid-write, and a read-only connection cannot roll
 * it back) what that is and what to do. */
const char *input_sql_why(struct sqlite3 *db);
/* Is NAME one of the SQL functions input_open_sql's connections may call? */
int input_sql_function_allowed(const char *name);

#endif
