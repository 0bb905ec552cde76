/* fuzz_db.c — libFuzzer harness for the database reader: a hostile
 * analysis database is opened and run under every query command as the
 * command line runs them: refs (in and out), path (shortest, --roots,
 * --all, --external, --direct, every format), why, clusters (all, one,
 * --check), findings, info, gccost, dominators, top, suspects, whatif (the heap
 * rebuilt from the rows), diff against itself and sql (the tool's tables
 * and views, and what a hostile file may add beside them).  Each must
 * answer or fail with an error; never crash, leak, spin or allocate by a
 * number it read.
 *
 * An input that starts as a SQLite file does is the database, byte for
 * byte (the seeds in fuzz/corpus/db are the databases `analyze` writes
 * from testdata's spec-example, chains, cluster-quirks, stale-outer and
 * v8-ids (a V8 heap: node ids),
 * copied to 512-byte pages with "PRAGMA page_size=512; VACUUM INTO" to
 * keep them small): that fuzzes the pages.  Any other input is an edit
 * script (db_script.h) applied to a valid database first: that reaches the
 * schema and the values past SQLite's own checks — views and virtual
 * tables under the tool's names, sqlite_schema rows edited, snapshot
 * metadata and rows set to huge, negative, text or NULL values.
 *
 * Every SQLite statement the commands run is counted in steps (a progress
 * handler on each connection they open): a command that takes more than
 * SPIN_BUDGET steps is a spin and a crash, except a user's own statement
 * over a view or table the file added (`sql` runs those as asked, until
 * stopped), which is stopped there.  The commands' output goes to
 * /dev/null, their error lines too (libFuzzer and the sanitizers still
 * report on the real standard error). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "fuzz/common.h"
#include "fuzz/db_script.h"

int ugc_cli_main(int argc, char **argv);

/* Progress calls (of 1000 steps each) one command may make; a user's
 * statement over what the file added is stopped after USER_BUDGET. */
#define SPIN_BUDGET 50000
#define USER_BUDGET 1000

static char dbpath[64];
static FILE *real_stderr;
static unsigned steps;   /* progress calls since the command began */
/* The commands that rebuild per-slot arrays run too (dominators, top,
 * suspects: retention_db.c; whatif: db_heap.c); UGC_FUZZ_DB_SLOTS=0 leaves
 * them out.  This harness found a slots of 1e9 in a file of ten objects
 * making them allocate gigabytes (the seed script-meta-slots-huge's edit);
 * the arrays now follow the objects present (sql/db_extent.c). */
static int slot_commands;
/* A spin of sql over the tool's own names in a file without table
 * snapshot is a crash too (UGC_FUZZ_DB_STRICT_SQL=0 turns that off).  This
 * harness found a hostile analysis database that renamed its snapshot
 * table, or made it a view, to have its own endless objects view run as a
 * foreign file's; input_open_sql now holds any file that uses one of the
 * tool's names to the tool's schema, and db_check_version never reads a
 * snapshot that is not a table. */
static int strict_sql;
static int may_spin;     /* the command is a user's statement over what the file added */
static int spun;         /* a statement was stopped */

static int count_steps(void *arg)
{
	(void)arg;
	if (++steps <= (may_spin ? USER_BUDGET : SPIN_BUDGET))
		return 0;
	spun = 1;
	return 1;
}

/* An automatic extension: every connection opened from now on counts its
 * steps. */
static int watch_connection(sqlite3 *db, const char **err, const void *api)
{
	(void)err;
	(void)api;
	sqlite3_progress_handler(db, 1000, count_steps, NULL);
	return SQLITE_OK;
}

/* Run a command line (ARGC words in ARGV) and check its exit status and
 * its time. */
static void run_argv(int argc, char **argv, const char *line)
{
	steps = 0;
	spun = 0;
	int rc = ugc_cli_main(argc, argv);
	fflush(stdout);
	if (rc < 0 || rc > 2) {
		fprintf(real_stderr, "'%s' exited %d\n", line, rc);
		FUZZ_ASSERT(0, "a command returned an exit status outside 0-2");
	}
	if (spun && !may_spin) {
		fprintf(real_stderr, "'%s' ran over %u000 SQLite steps\n", line, SPIN_BUDGET);
		FUZZ_ASSERT(0, "a command spins in SQLite");
	}
}

static void cleanup(void)
{
	static const char *const suffix[] = {"", "-journal", "-wal", "-shm"};
	char p[96];
	for (size_t k = 0; k < sizeof suffix / sizeof suffix[0]; k++) {
		snprintf(p, sizeof p, "%s%s", dbpath, suffix[k]);
		unlink(p);
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	snprintf(dbpath, sizeof dbpath, "%s/ugc-fuzz-db-%ld.db", access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp",
		 (long)getpid());
	atexit(cleanup);
	real_stderr = stderr;
	slot_commands = !(getenv("UGC_FUZZ_DB_SLOTS") && strcmp(getenv("UGC_FUZZ_DB_SLOTS"), "0") == 0);
	strict_sql = !(getenv("UGC_FUZZ_DB_STRICT_SQL") && strcmp(getenv("UGC_FUZZ_DB_STRICT_SQL"), "0") == 0);
	FILE *null = fopen("/dev/null", "w");
	FUZZ_ASSERT(null && freopen("/dev/null", "w", stdout), "cannot open /dev/null");
	stderr = null; /* the commands' messages; sanitizer reports use fd 2 directly */
	db_script_init(access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
	sqlite3_auto_extension((void (*)(void))watch_connection);
	return 0;
}

/* Run one command line (words separated by spaces; DB stands for the database). */
static void run(const char *line, const char *obj)
{
	char buf[256], *argv[16];
	int argc = 0;
	snprintf(buf, sizeof buf, "ugc-analyze %s", line);
	for (char *tok = strtok(buf, " "); tok && argc < 15; tok = strtok(NULL, " "))
		argv[argc++] = strcmp(tok, "DB") == 0 ? dbpath : strcmp(tok, "OBJ") == 0 ? (char *)obj : tok;
	argv[argc] = NULL;
	run_argv(argc, argv, line);
}

/* Run sql with the statement SQL in FORMAT. */
static void run_sql(const char *sql, const char *format)
{
	char *argv[] = {"ugc-analyze", "sql", dbpath, (char *)sql, "--format", (char *)format, NULL};
	run_argv(6, argv, sql);
}

/* Does the database open with no table snapshot (a file sql queries as it
 * is, not as an analysis database)? */
static int foreign_database(void)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	int step = SQLITE_ERROR;
	if (sqlite3_open_v2(dbpath, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(db, "SELECT 1 FROM main.sqlite_schema WHERE type = 'table' AND name = 'snapshot'", -1, &st,
			       NULL) == SQLITE_OK)
		step = sqlite3_step(st);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return step == SQLITE_DONE;
}

/* Put the database the input describes at dbpath: 1 when it is an edit
 * script's, 0 when the input is the file. */
static int write_database(const uint8_t *data, size_t size)
{
	if (size >= 16 && memcmp(data, "SQLite format 3", 16) == 0) {
		FILE *f = fopen(dbpath, "wb");
		FUZZ_ASSERT(f && fwrite(data, 1, size, f) == size && fclose(f) == 0, "cannot write the database file");
		return 0;
	}
	db_script_apply(dbpath, data, size);
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cleanup();
	int script = write_database(data, size);
	/* an object the seeds have (the spec example's Enemy_1, the chains'
	 * Target), and one chosen by the input; an edit script's database (a
	 * seed's, edited) only one of Enemy_1 and the input's: its edits are
	 * met on opening and reading rows, not in a command's options, and
	 * every command takes milliseconds */
	char pick[16];
	unsigned byte = size ? data[size / 2] : 0;
	snprintf(pick, sizeof pick, "%u", byte % 40);
	static const char *const objs[] = {"13", "15", NULL};
	static const char *const per_object[] = {
		"refs DB OBJ", "refs DB OBJ --out --format json", "path DB OBJ", "path DB OBJ --roots --format csv",
		"path DB OBJ --all --max 5 --format json", "path DB OBJ --roots --external", "path DB OBJ --direct --format dot",
		"why DB OBJ", "why DB OBJ --format json", "why DB OBJ --format csv", "clusters DB OBJ",
	};
	static const char *const slots_per_object[] = {"dominators DB OBJ --depth 3", "whatif DB --cut OBJ --format json"};
	for (int k = script ? 2 * (byte % 2) : 0; k < 3; k += script ? 3 : 1) {
		const char *obj = k < 2 ? objs[k] : pick;
		for (size_t c = 0; c < sizeof per_object / sizeof per_object[0]; c++)
			run(per_object[c], obj);
		for (size_t c = 0; slot_commands && c < sizeof slots_per_object / sizeof *slots_per_object; c++)
			run(slots_per_object[c], obj);
	}
	static const char *const whole[] = {
		"refs DB --name E* --format csv", "path DB /Game/Maps/Arena.Arena:Enemy_1", "clusters DB",
		"clusters DB --check --format json", "clusters DB --sort bytes --format csv", "findings DB",
		"findings DB --format json", "info DB", "diff DB DB", "diff DB DB --format json",
		"diff --baseline DB --target DB --final DB", "refs DB @5 --format json", "why DB @100",
		"gccost DB --format json", "gccost DB --limit 2",
	};
	static const char *const slots_whole[] = {
		"top DB --by class", "top DB --sort count --format json", "suspects DB --format csv", "whatif DB --garbage 11",
	};
	for (size_t c = 0; c < sizeof whole / sizeof whole[0]; c++)
		run(whole[c], NULL);
	for (size_t c = 0; slot_commands && c < sizeof slots_whole / sizeof *slots_whole; c++)
		run(slots_whole[c], NULL);
	/* sql takes its statements as one argument */
	static const char *const sql[] = {
		"SELECT * FROM objects LIMIT 40", "SELECT * FROM refs LIMIT 40", "SELECT * FROM snapshot",
		"SELECT * FROM roots LIMIT 20", "SELECT * FROM class_histogram", "SELECT * FROM findings LIMIT 40",
		"SELECT type, name, tbl_name, rootpage, sql FROM sqlite_schema",
	};
	static const char *const fmt[] = {"text", "csv", "json"};
	may_spin = !strict_sql && foreign_database();
	for (size_t c = 0; c < sizeof sql / sizeof sql[0]; c++)
		run_sql(sql[c], fmt[c % 3]);
	/* what an edit script may have added: run as asked, however long */
	may_spin = 1;
	for (size_t k = 0; k < db_script_nextra; k++) {
		char q[128];
		snprintf(q, sizeof q, "SELECT * FROM \"%s\" LIMIT 20", db_script_extra[k]);
		run_sql(q, fmt[k % 3]);
	}
	run_sql("SELECT * FROM ft WHERE ft MATCH 'hello OR w*' LIMIT 20", "json");
	may_spin = 0;
	cleanup();
	return 0;
}
