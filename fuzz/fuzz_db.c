/* fuzz_db.c — libFuzzer harness for the database reader: a mutated
 * analysis database (the bytes of a SQLite file; the seeds in
 * fuzz/corpus/db are the databases `analyze` writes from testdata's
 * spec-example, chains, cluster-quirks and stale-outer, copied to 512-byte
 * pages with "PRAGMA page_size=512; VACUUM INTO" to keep them small) is opened and
 * run under every query command as the command line runs them: refs (in
 * and out), path (shortest, --roots, --all, --external, --direct, every
 * format), why, clusters (all, one, --check), findings, info, diff against
 * itself and sql.  Each must answer or fail with an error; never crash,
 * leak, spin or allocate by a number it read.  The commands' output goes
 * to /dev/null, their error lines too (libFuzzer and the sanitizers still
 * report on the real standard error). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz/common.h"

int ugc_cli_main(int argc, char **argv);

static char dbpath[64];
static FILE *real_stderr;

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
	FILE *null = fopen("/dev/null", "w");
	FUZZ_ASSERT(null && freopen("/dev/null", "w", stdout), "cannot open /dev/null");
	stderr = null; /* the commands' messages; sanitizer reports use fd 2 directly */
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
	int rc = ugc_cli_main(argc, argv);
	fflush(stdout);
	if (rc < 0 || rc > 2) {
		fprintf(real_stderr, "'%s' exited %d\n", line, rc);
		FUZZ_ASSERT(0, "a command returned an exit status outside 0-2");
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cleanup();
	FILE *f = fopen(dbpath, "wb");
	FUZZ_ASSERT(f != NULL, "cannot write the database file");
	if (size)
		fwrite(data, 1, size, f);
	fclose(f);
	/* an object the seeds have (the spec example's Enemy_1, the chains'
	 * Target), and one chosen by the input */
	char pick[16];
	snprintf(pick, sizeof pick, "%u", size ? data[size / 2] % 40 : 0);
	static const char *const objs[] = {"13", "15", NULL};
	static const char *const per_object[] = {
		"refs DB OBJ", "refs DB OBJ --out --format json", "path DB OBJ", "path DB OBJ --roots --format csv",
		"path DB OBJ --all --max 5 --format json", "path DB OBJ --roots --external", "path DB OBJ --direct --format dot",
		"why DB OBJ", "why DB OBJ --format json", "why DB OBJ --format csv", "clusters DB OBJ",
	};
	for (int k = 0; k < 3; k++) {
		const char *obj = k < 2 ? objs[k] : pick;
		for (size_t c = 0; c < sizeof per_object / sizeof per_object[0]; c++)
			run(per_object[c], obj);
	}
	static const char *const whole[] = {
		"refs DB --name E* --format csv", "path DB /Game/Maps/Arena.Arena:Enemy_1", "clusters DB",
		"clusters DB --check --format json", "clusters DB --sort bytes --format csv", "findings DB",
		"findings DB --format json", "info DB", "diff DB DB", "diff DB DB --format json",
		"diff --baseline DB --target DB --final DB",
	};
	for (size_t c = 0; c < sizeof whole / sizeof whole[0]; c++)
		run(whole[c], NULL);
	/* sql takes its statements as one argument */
	static const char *const sql[] = {
		"SELECT * FROM objects LIMIT 40", "SELECT * FROM refs LIMIT 40", "SELECT * FROM snapshot",
		"SELECT * FROM roots LIMIT 20", "SELECT * FROM class_histogram", "SELECT * FROM findings LIMIT 40",
	};
	static const char *const fmt[] = {"text", "csv", "json"};
	for (size_t c = 0; c < sizeof sql / sizeof sql[0]; c++) {
		char *argv[] = {"ugc-analyze", "sql", dbpath, (char *)sql[c], "--format", (char *)fmt[c % 3], NULL};
		int rc = ugc_cli_main(6, argv);
		fflush(stdout);
		FUZZ_ASSERT(rc >= 0 && rc <= 2, "sql returned an exit status outside 0-2");
	}
	cleanup();
	return 0;
}
