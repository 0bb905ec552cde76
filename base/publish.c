/* publish.c — fsync, no-clobber rename and all-or-nothing publication of
 * output files (see publish.h). */
#include "base/publish.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/tempfiles.h"

/* fsync the file or directory at PATH. */
static int fsync_path(const char *path, int dir)
{
	int fd = open(path, (dir ? O_DIRECTORY : 0) | O_RDONLY);
	if (fd < 0)
		return -1;
	int rc = fsync(fd);
	if (rc && dir && (errno == EINVAL || errno == EROFS))
		rc = 0; /* some filesystems cannot sync a directory: nothing more to do */
	close(fd);
	return rc;
}

/* The directory holding PATH, fsynced. */
static int fsync_parent(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return fsync_path(".", 1);
	if (slash == path)
		return fsync_path("/", 1);
	char dir[PATH_MAX]; /* no allocation: a publication cannot fail for want of memory here */
	size_t n = (size_t)(slash - path);
	if (n >= sizeof dir) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(dir, path, n);
	dir[n] = '\0';
	return fsync_path(dir, 1);
}

/* Rename TMP to PATH unless PATH exists. */
static int rename_noreplace(const char *tmp, const char *path)
{
	if (renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP)
		return -1;
	/* no RENAME_NOREPLACE here: a hard link fails on an existing name too */
	if (link(tmp, path) == 0)
		return unlink(tmp) == 0 || errno == ENOENT ? 0 : -1;
	if (errno == EEXIST)
		return -1;
	/* no hard links either: claim the name, then replace only our claim */
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd < 0)
		return -1;
	close(fd);
	if (rename(tmp, path) == 0)
		return 0;
	int e = errno;
	unlink(path);
	errno = e;
	return -1;
}

int publish_file(const char *tmp, const char *path, int force, char *err, size_t errsize)
{
	if (fsync_path(tmp, 0)) {
		fileio_write_error(path, errno, err, errsize);
		return -1;
	}
	if ((force ? rename(tmp, path) : rename_noreplace(tmp, path)) != 0) {
		if (errno == EEXIST)
			snprintf(err, errsize, "%s: appeared while it was being written (another run?); not overwritten "
				 "(use --force to overwrite)", path);
		else
			snprintf(err, errsize, "%s: write failed: %s", path, strerror(errno));
		return -1;
	}
	if (fsync_parent(path)) {
		fileio_write_error(path, errno, err, errsize);
		return -1;
	}
	return 0;
}

int outfile_commit_all(outfile *o, size_t n, char *err, size_t errsize)
{
	size_t done = 0;
	int bad = 0;
	for (size_t k = 0; k < n && !bad; k++)
		if (o[k].fp) {
			int e = 0;
			if (fflush(o[k].fp) != 0 || ferror(o[k].fp))
				e = fileio_stream_errno(o[k].fp);
			if (fclose(o[k].fp) != 0 && !e)
				e = errno ? errno : EIO;
			o[k].fp = NULL;
			if ((bad = e != 0))
				fileio_write_error(o[k].path, e, err, errsize);
		}
	for (size_t k = 0; k < n && !bad; k++) /* the slow part, still interruptible */
		if ((bad = fsync_path(o[k].tmp, 0) != 0))
			fileio_write_error(o[k].path, errno, err, errsize);
	/* an interrupt from here on waits until the outputs are all in place or
	 * all gone (publish_file's own fsync finds nothing left to write) */
	sigset_t held;
	tempfiles_block(&held);
	for (; done < n && !bad; done++)
		bad = publish_file(o[done].tmp, o[done].path, o[done].force, err, errsize) != 0;
	if (bad) /* take back what was published: all or nothing */
		for (size_t k = 0; k + 1 < done; k++)
			unlink(o[k].path);
	for (size_t k = 0; k < n; k++) {
		if (bad)
			outfile_abort(&o[k]);
		else {
			tempfiles_forget(o[k].tmp);
			free(o[k].path);
			free(o[k].tmp);
			memset(&o[k], 0, sizeof o[k]);
		}
	}
	tempfiles_unblock(&held);
	return bad ? -1 : 0;
}
