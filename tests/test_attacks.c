/* test_attacks.c — the base and sql helpers behind the hostile-input fixes
 * (tests/attacks.sh runs the attacks end to end): zstd's frame magics, the
 * refusal of a FIFO without blocking, a dangling symlink as an existing
 * output, an output that is its own input, the write error's line, and the
 * untrusted database's function allow list and schema check. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fileio.h"
#include "sql/input.h"
#include "sql/schema.h"
#include "tests/unit.h"

static char tdir[64];

static const char *in_dir(const char *name)
{
	return test_dir_path(tdir, sizeof tdir, "/tmp/ugc-test-attacks-XXXXXX", name);
}

TEST(is_zstd_takes_frames_and_skippable_frames)
{
	const unsigned char frame[4] = {0x28, 0xB5, 0x2F, 0xFD}, skip0[4] = {0x50, 0x2A, 0x4D, 0x18},
			    skipf[4] = {0x5F, 0x2A, 0x4D, 0x18}, next[4] = {0x60, 0x2A, 0x4D, 0x18},
			    before[4] = {0x4F, 0x2A, 0x4D, 0x18};
	CHECK(is_zstd(frame, 4) && is_zstd(skip0, 4) && is_zstd(skipf, 4));
	CHECK(!is_zstd(next, 4) && !is_zstd(before, 4) && !is_zstd(skip0, 3) && !is_zstd("ugc-text 1\n", 11));
}

static void on_alarm(int sig) { (void)sig; }

/* A FIFO with no writer: refused at once, by name and by descriptor. */
TEST(a_fifo_is_refused_without_blocking)
{
	/* a regression blocks in open(2): an alarm interrupts it (EINTR, no
	 * SA_RESTART), and the check of the message fails */
	struct sigaction sa, old;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, &old);
	const char *fifo = in_dir("in.fifo");
	unlink(fifo);
	CHECK(mkfifo(fifo, 0600) == 0);
	char err[512], want[600];
	snprintf(want, sizeof want, "%s: not a regular file (a FIFO)", fifo);
	alarm(5);
	CHECK(file_check_input(fifo, err, sizeof err) == -1);
	CHECK_STR(err, want);
	alarm(5);
	CHECK(file_open_input(fifo, err, sizeof err) == -1);
	CHECK_STR(err, want);
	filebuf fb;
	alarm(5);
	CHECK(file_read_all(fifo, &fb, err, sizeof err) == -1);
	CHECK_STR(err, want);
	alarm(0);
	sigaction(SIGALRM, &old, NULL);
	unlink(fifo);
}

/* A regular file opens, blocking again (O_NONBLOCK cleared). */
TEST(file_open_input_gives_a_blocking_descriptor)
{
	const char *path = in_dir("plain.ugct");
	FILE *f = fopen(path, "w");
	CHECK(f && fputs("ugc-text 1\n", f) >= 0 && fclose(f) == 0);
	char err[512];
	int fd = file_open_input(path, err, sizeof err);
	CHECK(fd >= 0 && !(fcntl(fd, F_GETFL) & O_NONBLOCK));
	if (fd >= 0)
		close(fd);
	CHECK(file_open_input(in_dir("missing.ugct"), err, sizeof err) == -1 && strstr(err, "No such file"));
}

TEST(a_dangling_symlink_is_an_existing_output)
{
	const char *link = in_dir("out.db");
	unlink(link);
	CHECK(symlink("nowhere/x.db", link) == 0);
	char err[512];
	CHECK(outfile_check(link, 0, NULL, NULL, err, sizeof err) == -1);
	CHECK(strstr(err, "a symbolic link to nowhere/x.db, which does not exist") != NULL);
	outfile o;
	int reserved = outfile_reserve(&o, link, 0, err, sizeof err) == 0;
	CHECK(!reserved && strstr(err, "already exists"));
	if (reserved)
		outfile_abort(&o);
	/* --force: the link is replaced, its target never created */
	CHECK(outfile_check(link, 1, NULL, NULL, err, sizeof err) == 0);
	CHECK(outfile_open(&o, link, 1, err, sizeof err) == 0 && fputs("x", o.fp) >= 0 &&
	      outfile_commit(&o, err, sizeof err) == 0);
	struct stat st;
	CHECK(lstat(link, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 1);
	CHECK(access(in_dir("nowhere"), F_OK) != 0);
	unlink(link);
}

TEST(an_output_that_is_its_input_is_refused)
{
	const char *in = in_dir("same.ugct"), *hard = in_dir("hard.ugct"), *other = in_dir("other.ugct");
	FILE *f = fopen(in, "w");
	CHECK(f && fclose(f) == 0);
	unlink(hard);
	CHECK(link(in, hard) == 0);
	char err[512];
	CHECK(outfile_check_input(in, in, err, sizeof err) == -1 && strstr(err, "is the input"));
	CHECK(outfile_check_input(hard, in, err, sizeof err) == -1 && strstr(err, "is the input"));
	CHECK(outfile_check_input(other, in, err, sizeof err) == 0); /* does not exist */
	f = fopen(other, "w");
	CHECK(f && fclose(f) == 0);
	CHECK(outfile_check_input(other, in, err, sizeof err) == 0); /* another file */
}

TEST(a_failed_write_names_the_file_and_the_reason)
{
	char err[256];
	fileio_write_error("out.db", EFBIG, err, sizeof err);
	CHECK_STR(err, "out.db: file too large (a file-size limit)");
	fileio_write_error("out.db", ENOSPC, err, sizeof err);
	CHECK_STR(err, "out.db: no space left on device");
	fileio_write_error("out.db", EIO, err, sizeof err);
	CHECK(strncmp(err, "out.db: write failed: ", 22) == 0);
}

TEST(untrusted_sql_calls_only_allowed_functions)
{
	CHECK(input_sql_function_allowed("count") && input_sql_function_allowed("COALESCE") &&
	      input_sql_function_allowed("json_extract") && input_sql_function_allowed("->>"));
	CHECK(!input_sql_function_allowed("fts3_tokenizer") && !input_sql_function_allowed("load_extension") &&
	      !input_sql_function_allowed("fts5") && !input_sql_function_allowed("readfile") &&
	      !input_sql_function_allowed(NULL));
}

/* A database with table snapshot at this version, whose objects view is
 * not the tool's: refused, naming the view; any other database opens. */
TEST(untrusted_sql_refuses_a_view_the_file_redefined)
{
	const char *path = in_dir("view.db"), *plain = in_dir("plain.db");
	unlink(path);
	unlink(plain);
	sqlite3 *db;
	char version[128], err[512];
	snprintf(version, sizeof version, "INSERT INTO snapshot VALUES('schema_version', %d)", SCHEMA_VERSION);
	CHECK(sqlite3_open(path, &db) == SQLITE_OK && sqlite3_exec(db, SCHEMA_TABLES, NULL, NULL, NULL) == SQLITE_OK &&
	      sqlite3_exec(db, SCHEMA_INDEXES, NULL, NULL, NULL) == SQLITE_OK &&
	      sqlite3_exec(db, version, NULL, NULL, NULL) == SQLITE_OK);
	sqlite3_close(db);
	sqlite3 *ok = input_open_sql(path, INPUT_SQL_ANALYSIS, err, sizeof err); /* the tool's schema, empty */
	CHECK(ok != NULL);
	sqlite3_close(ok);
	CHECK(sqlite3_open(path, &db) == SQLITE_OK &&
	      sqlite3_exec(db, "DROP VIEW objects; CREATE VIEW objects AS SELECT 1 AS idx", NULL, NULL, NULL) == SQLITE_OK);
	sqlite3_close(db);
	CHECK(input_open_sql(path, INPUT_SQL_ANY, err, sizeof err) == NULL);
	CHECK(strstr(err, "view.db: view objects: its definition in the file is not the one ugc-analyze writes") &&
	      !strchr(err, '\n'));
	CHECK(sqlite3_open(plain, &db) == SQLITE_OK &&
	      sqlite3_exec(db, "CREATE TABLE t(x); INSERT INTO t VALUES(1)", NULL, NULL, NULL) == SQLITE_OK);
	sqlite3_close(db);
	db = input_open_sql(plain, INPUT_SQL_ANY, err, sizeof err);
	CHECK(db != NULL);
	sqlite3_stmt *st = NULL;
	CHECK(db && sqlite3_prepare_v2(db, "SELECT fts3_tokenizer('simple')", -1, &st, NULL) != SQLITE_OK &&
	      strstr(sqlite3_errmsg(db), "not authorized"));
	sqlite3_finalize(st);
	sqlite3_close(db);
	CHECK(input_open_sql(plain, INPUT_SQL_ANALYSIS, err, sizeof err) == NULL && strstr(err, "plain.db: "));
}
