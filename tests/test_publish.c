/* test_publish.c — nothing lost (issue #8.9): an output that appears
 * between a command's start and its rename is not clobbered without
 * --force, and several outputs are published all or none. */
#include <stdlib.h>
#include <unistd.h>

#include "base/publish.h"
#include "tests/unit.h"

static char pdir[64];

static const char *at(const char *name)
{
	return test_dir_path(pdir, sizeof pdir, "/tmp/ugc-test-publish-XXXXXX", name);
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static int holds(const char *path, const char *text)
{
	char buf[64] = {0};
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	return n == strlen(text) && memcmp(buf, text, n) == 0;
}

/* Another run's output appears while ours is being written: ours fails, theirs stays. */
TEST(publish_does_not_clobber_an_output_that_appeared)
{
	const char *path = at("race.db");
	unlink(path);
	outfile o;
	char err[256];
	CHECK(outfile_open(&o, path, 0, err, sizeof err) == 0);
	fputs("ours", o.fp);
	char tmp[256];
	snprintf(tmp, sizeof tmp, "%s", o.tmp);
	put(path, "theirs"); /* the other run finished first */
	CHECK(outfile_commit(&o, err, sizeof err) == -1 && strstr(err, "appeared") != NULL);
	CHECK(holds(path, "theirs"));
	CHECK(access(tmp, F_OK) != 0); /* our temporary file is gone */
	/* with --force the later run wins */
	CHECK(outfile_open(&o, path, 1, err, sizeof err) == 0);
	fputs("ours", o.fp);
	CHECK(outfile_commit(&o, err, sizeof err) == 0 && holds(path, "ours"));
	unlink(path);
}

/* A symlink planted under this process's temporary name, in a shared
 * directory, is never written through: neither by the check's probe nor
 * by the output itself; what it points at is left as it was. */
TEST(publish_never_follows_a_planted_temporary_name)
{
	const char *path = at("planted.db");
	char victim[256], tmp[256], err[256];
	snprintf(victim, sizeof victim, "%s", at("victim"));
	snprintf(tmp, sizeof tmp, "%s" OUTFILE_TMP_INFIX "%ld", path, (long)getpid());
	unlink(path);
	put(victim, "precious");
	unlink(tmp);
	CHECK(symlink(victim, tmp) == 0);
	CHECK(outfile_check(path, 0, NULL, NULL, err, sizeof err) == 0);
	CHECK(holds(victim, "precious"));
	unlink(tmp);
	CHECK(symlink(victim, tmp) == 0);
	outfile o;
	CHECK(outfile_open(&o, path, 0, err, sizeof err) == 0);
	fputs("ours", o.fp);
	CHECK(outfile_commit(&o, err, sizeof err) == 0 && holds(path, "ours"));
	CHECK(holds(victim, "precious"));
	unlink(path);
	unlink(victim);
	/* a plain file left under the name by an earlier process with this pid
	 * is removed, and the check passes */
	put(tmp, "leftover");
	CHECK(outfile_check(path, 0, NULL, NULL, err, sizeof err) == 0);
	CHECK(access(tmp, F_OK) != 0);
	unlink(tmp);
}

/* A failed second output takes the first back: all or nothing (a failed --after leaves no database). */
TEST(publish_all_or_nothing)
{
	const char *a = at("a.db"), *b = at("b.ugct");
	unlink(a);
	unlink(b);
	outfile o[2];
	char err[256];
	CHECK(outfile_open(&o[0], a, 0, err, sizeof err) == 0 && outfile_open(&o[1], b, 0, err, sizeof err) == 0);
	fputs("A", o[0].fp);
	fputs("B", o[1].fp);
	put(b, "other"); /* B's name is taken meanwhile */
	CHECK(outfile_commit_all(o, 2, err, sizeof err) == -1);
	CHECK(access(a, F_OK) != 0 && holds(b, "other"));
	unlink(b);
	CHECK(outfile_open(&o[0], a, 0, err, sizeof err) == 0 && outfile_open(&o[1], b, 0, err, sizeof err) == 0);
	fputs("A", o[0].fp);
	fputs("B", o[1].fp);
	CHECK(outfile_commit_all(o, 2, err, sizeof err) == 0 && holds(a, "A") && holds(b, "B"));
	unlink(a);
	unlink(b);
	rmdir(pdir);
}
