/* test_tempfiles.c — nothing left behind (issue #12.4): the registry of
 * temporary outputs, the signal handler that removes them, and
 * outfile_check's removal of a killed run's leftovers. */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/tempfiles.h"
#include "tests/unit.h"

static char tdir[64];

static const char *in_dir(const char *name)
{
	return test_dir_path(tdir, sizeof tdir, "/tmp/ugc-test-tempfiles-XXXXXX", name);
}

static void touch(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0)
		close(fd);
}

static int exists(const char *path) { return access(path, F_OK) == 0; }

/* How many more paths the registry takes (then forgets them again). */
static int room(void)
{
	char name[TEMPFILES_MAX + 2][32];
	int n = 0;
	while (n < TEMPFILES_MAX + 2) {
		snprintf(name[n], sizeof name[n], "/x/room-%d", n);
		if (tempfiles_add(name[n]))
			break;
		n++;
	}
	for (int k = 0; k < n; k++)
		tempfiles_forget(name[k]);
	return n;
}

/* Full at TEMPFILES_MAX; an outfile holds a slot from reserve to commit or abort, no longer. */
TEST(tempfiles_registry_is_released_by_commit_and_abort)
{
	CHECK(room() == TEMPFILES_MAX);
	outfile a, b;
	char err[256];
	const char *pa = in_dir("a.out"), *pb = in_dir("b.out");
	unlink(pa);
	unlink(pb);
	CHECK(outfile_open(&a, pa, 0, err, sizeof err) == 0 && outfile_reserve(&b, pb, 0, err, sizeof err) == 0);
	CHECK(room() == TEMPFILES_MAX - 2);
	CHECK(outfile_commit(&a, err, sizeof err) == 0);
	outfile_abort(&b);
	CHECK(room() == TEMPFILES_MAX);
	unlink(pa);
}

/* Run BODY's signal in a child with TMP registered; its exit status (-1: killed otherwise). */
static int child_status(const char *tmp, int sig, int ignore_first)
{
	pid_t pid = fork();
	if (pid == 0) {
		signal(sig, ignore_first ? SIG_IGN : SIG_DFL);
		touch(tmp);
		if (tempfiles_add(tmp))
			_exit(3);
		tempfiles_catch_signals();
		raise(sig);
		_exit(7); /* the signal was ignored */
	}
	int st = 0;
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -2;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* SIGINT and SIGTERM remove the registered file and exit 128 + the signal;
 * a signal ignored by whoever started the process stays ignored. */
TEST(tempfiles_signal_removes_and_exits_128_plus_signal)
{
	const char *tmp = in_dir("sig.tmp.1");
	CHECK(child_status(tmp, SIGINT, 0) == 130 && !exists(tmp));
	CHECK(child_status(tmp, SIGTERM, 0) == 143 && !exists(tmp));
	CHECK(child_status(tmp, SIGINT, 1) == 7 && exists(tmp));
	unlink(tmp);
}

/* A mapped input cut short while it is read: the SIGBUS on its missing
 * pages gives one error line naming the file and the offset of the access,
 * exit 1, and the registered output removed.  A fault outside the watched
 * mappings stays a crash.  WATCHED: 0 not watched, 1 watched, 2 watched
 * after another mapping (diff maps its two inputs at once), 3 watched and
 * then unwatched. */
static int bus_child(const char *input, const char *tmp, const char *errpath, int watched)
{
	pid_t pid = fork();
	if (pid == 0) {
		int e = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (e < 0 || dup2(e, STDERR_FILENO) < 0)
			_exit(3);
		long page = sysconf(_SC_PAGESIZE);
		int fd = open(input, O_RDWR | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || ftruncate(fd, 3 * page))
			_exit(3);
		const volatile char *map = mmap(NULL, (size_t)(3 * page), PROT_READ, MAP_PRIVATE, fd, 0);
		touch(tmp);
		if (map == MAP_FAILED || tempfiles_add(tmp))
			_exit(3);
		signal(SIGBUS, SIG_DFL); /* as at a process's start (a sanitizer build handles it) */
		tempfiles_catch_signals();
		static const char other[4096];
		if (watched == 2)
			tempfiles_watch_mapping("other.ugcs", other, sizeof other);
		if (watched)
			tempfiles_watch_mapping(input, (const void *)map, (size_t)(3 * page));
		if (watched == 3)
			tempfiles_unwatch_mapping((const void *)map);
		if (ftruncate(fd, page)) /* the writer starts over */
			_exit(3);
		(void)map[2 * page + 5];
		_exit(7); /* no fault */
	}
	int st = 0;
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -2;
	return WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? -WTERMSIG(st) : -3;
}

TEST(tempfiles_cut_short_mapping_is_one_error_line)
{
	const char *input = in_dir("cut.heapsnapshot"), *tmp = in_dir("out.tmp.2"), *errpath = in_dir("bus.err");
	CHECK(bus_child(input, tmp, errpath, 1) == 1 && !exists(tmp));
	char want[512], got[512] = "";
	snprintf(want, sizeof want, "ugc-analyze: %s: offset %ld: the file was cut short while it was read\n", input,
		 2 * sysconf(_SC_PAGESIZE) + 5);
	FILE *f = fopen(errpath, "r");
	size_t n = f ? fread(got, 1, sizeof got - 1, f) : 0;
	got[n] = '\0';
	if (f)
		fclose(f);
	CHECK(strcmp(got, want) == 0);
	CHECK(bus_child(input, tmp, errpath, 2) == 1 && !exists(tmp)); /* beside another: still this one named */
	f = fopen(errpath, "r");
	n = f ? fread(got, 1, sizeof got - 1, f) : 0;
	got[n] = '\0';
	if (f)
		fclose(f);
	CHECK(strcmp(got, want) == 0);
	CHECK(bus_child(input, tmp, errpath, 0) == -SIGBUS && !exists(tmp)); /* not watched: a crash, output removed */
	CHECK(bus_child(input, tmp, errpath, 3) == -SIGBUS && !exists(tmp)); /* unwatched: the same */
	unlink(input);
	unlink(errpath);
}

/* A pid that no process has: a child that has exited and been reaped. */
static long dead_pid(void)
{
	pid_t pid = fork();
	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	return (long)pid;
}

struct notes {
	int n;
	long pid;
	char path[256];
};

static void note(void *ctx, const char *removed, long pid)
{
	struct notes *s = ctx;
	s->n++;
	s->pid = pid;
	snprintf(s->path, sizeof s->path, "%s", removed);
}

/* Leftovers: a dead run's is removed and reported; a live run's, another
 * output's and a name that only looks like one are kept. */
TEST(outfile_check_removes_only_dead_runs_leftovers)
{
	char dead[200], live[200], other[200], odd[200], err[256];
	long pid = dead_pid();
	const char *out = in_dir("out.db");
	snprintf(dead, sizeof dead, "%s.tmp.%ld", out, pid);
	snprintf(live, sizeof live, "%s.tmp.%ld", out, (long)getppid());
	snprintf(other, sizeof other, "%s.tmp.%ld", in_dir("other.db"), pid);
	snprintf(odd, sizeof odd, "%s.tmp.0%ld", out, pid);
	touch(dead);
	touch(live);
	touch(other);
	touch(odd);
	struct notes s = {0};
	CHECK(outfile_check(out, 0, note, &s, err, sizeof err) == 0);
	CHECK(!exists(dead) && exists(live) && exists(other) && exists(odd));
	CHECK(s.n == 1 && s.pid == pid && strcmp(s.path, dead) == 0);
	CHECK(!exists(out)); /* the probe left nothing */
	unlink(live);
	unlink(other);
	unlink(odd);
}

/* Refused before the work: an existing output without force, a directory,
 * a missing directory; accepted with force. */
TEST(outfile_check_refuses_what_cannot_be_written)
{
	char err[256];
	const char *out = in_dir("exists.db");
	touch(out);
	CHECK(outfile_check(out, 0, NULL, NULL, err, sizeof err) == -1 && strstr(err, "already exists"));
	CHECK(outfile_check(out, 1, NULL, NULL, err, sizeof err) == 0 && exists(out));
	unlink(out);
	CHECK(outfile_check(tdir, 1, NULL, NULL, err, sizeof err) == -1 && strstr(err, "is a directory"));
	CHECK(outfile_check(in_dir("no/x.db"), 0, NULL, NULL, err, sizeof err) == -1 &&
	      strstr(err, "cannot write there") && strstr(err, "No such file"));
	CHECK(outfile_check("", 0, NULL, NULL, err, sizeof err) == -1);
	if (rmdir(tdir) == 0) /* empty: the other tests are done with it */
		tdir[0] = '\0';
}
