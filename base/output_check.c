/* output_check.c — before a command starts its work: can its output be
 * written, and are there leftovers of killed runs to remove (fileio.h,
 * outfile_check). */
#include "base/fileio.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* PATH's directory ("." when none) into DIR, its last component into *BASE. */
static int split_path(const char *path, char *dir, size_t dirsize, const char **base)
{
	const char *slash = strrchr(path, '/');
	*base = slash ? slash + 1 : path;
	size_t n = slash ? (slash == path ? 1 : (size_t)(slash - path)) : 1;
	if (n >= dirsize)
		return -1;
	memcpy(dir, slash ? path : ".", n);
	dir[n] = '\0';
	return 0;
}

/* The PID in NAME when NAME is BASE OUTFILE_TMP_INFIX followed by digits only; else 0. */
static long leftover_pid(const char *name, const char *base)
{
	size_t b = strlen(base), i = strlen(OUTFILE_TMP_INFIX);
	if (strncmp(name, base, b) != 0 || strncmp(name + b, OUTFILE_TMP_INFIX, i) != 0)
		return 0;
	const char *digits = name + b + i;
	if (*digits < '1' || *digits > '9' || strlen(digits) > 9)
		return 0;
	for (const char *p = digits; *p; p++)
		if (*p < '0' || *p > '9')
			return 0;
	return strtol(digits, NULL, 10);
}

/* Remove the leftovers of dead runs on BASE in DIR (see fileio.h). */
static void remove_leftovers(const char *dir, const char *base, outfile_note_fn *note, void *ctx)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	int dfd = dirfd(d);
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		long pid = leftover_pid(e->d_name, base);
		struct stat st;
		if (pid <= 0 || pid == (long)getpid() || fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISREG(st.st_mode) || st.st_uid != geteuid())
			continue;
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue; /* alive (or someone else's): its run may still be writing */
		if (unlinkat(dfd, e->d_name, 0) == 0 && note) {
			char shown[PATH_MAX];
			snprintf(shown, sizeof shown, "%s%s%s", strcmp(dir, ".") ? dir : "",
				 strcmp(dir, ".") && strcmp(dir, "/") ? "/" : "", e->d_name);
			note(ctx, shown, pid);
		}
	}
	closedir(d);
}

int outfile_check(const char *path, int force, outfile_note_fn *note, void *ctx, char *err, size_t errsize)
{
	char dir[PATH_MAX];
	const char *base;
	struct stat st;
	if (!*path || split_path(path, dir, sizeof dir, &base) || !*base) {
		snprintf(err, errsize, "%s: not a file name", path);
		return -1;
	}
	/* lstat: a symbolic link is an output that exists, even a dangling one
	 * (stat would call that missing, and the publication's no-clobber
	 * rename would then fail after the whole run); --force replaces the
	 * link, as rename does, never its target */
	int exists = lstat(path, &st) == 0;
	if (exists && S_ISLNK(st.st_mode)) {
		if (!force) {
			char target[PATH_MAX];
			ssize_t n = readlink(path, target, sizeof target - 1);
			target[n > 0 ? n : 0] = '\0';
			struct stat t;
			snprintf(err, errsize, "%s: already exists (a symbolic link to %s%s; use --force to replace the link)",
				 path, n > 0 ? target : "?", stat(path, &t) != 0 ? ", which does not exist" : "");
			return -1;
		}
	} else if (exists && (S_ISDIR(st.st_mode) || !force)) {
		snprintf(err, errsize, S_ISDIR(st.st_mode) ? "%s: is a directory" : "%s: already exists (use --force to overwrite)",
			 path);
		return -1;
	}
	const char *why = stat(dir, &st) != 0 ? strerror(errno) : !S_ISDIR(st.st_mode) ? "not a directory" : NULL;
	if (why) {
		snprintf(err, errsize, "%s: cannot write there: %s: %s", path, dir, why);
		return -1;
	}
	remove_leftovers(dir, base, note, ctx);
	/* the surest test: create the temporary file the run will use, and remove it */
	char probe[PATH_MAX];
	if (snprintf(probe, sizeof probe, "%s" OUTFILE_TMP_INFIX "%ld", path, (long)getpid()) >= (int)sizeof probe) {
		snprintf(err, errsize, "%s: path too long", path);
		return -1;
	}
	int fd = outfile_create_tmp(probe);
	if (fd < 0) {
		snprintf(err, errsize, "%s: cannot write there: %s", path, strerror(errno));
		return -1;
	}
	close(fd);
	unlink(probe);
	return 0;
}
