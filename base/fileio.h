/* fileio.h — whole-file reading (with transparent zstd) and safe writing.
 *
 * Reading: a file that starts with the zstd frame magic is decompressed,
 * whatever its name; the result is capped so a decompression bomb is an
 * error, not an exhausted machine.
 * Writing: output goes to "PATH.tmp.PID" and is renamed over PATH only once
 * complete; an existing PATH is refused unless FORCE is set.  The temporary
 * name is registered with tempfiles.h while it exists, so an interrupt
 * removes it; one left by a run that was killed outright (kill -9, a crash)
 * is removed by outfile_check before the next run on the same output. */
#ifndef UGC_FILEIO_H
#define UGC_FILEIO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Largest decompressed text accepted (bytes). */
#define FILEIO_MAX_DECOMPRESSED (64ull << 30)
/* Against decompression bombs, on every zstd path: at most this many times
 * the compressed size, plus the slack, is decompressed (text files and the
 * binary format's sections alike). */
#define FILEIO_BOMB_RATIO 1024u
#define FILEIO_BOMB_SLACK (64ull << 20)
/* The most bytes COMPRESSED bytes may decompress to. */
uint64_t fileio_decompress_limit(uint64_t compressed);

typedef struct filebuf {
	char *data;   /* NUL-terminated for the text parser's convenience */
	size_t len;
	int was_zstd;
} filebuf;

/* Inputs are regular files: a FIFO, a device, a socket or a directory is
 * refused with one line, "PATH: not a regular file (a FIFO)", before
 * anything could block on it (a FIFO's open waits for a writer).
 * file_open_input opens PATH with O_NONBLOCK, checks the descriptor with
 * fstat and clears O_NONBLOCK again: the descriptor, or -1 with ERR.
 * file_check_input checks PATH by name (stat), for code that opens it
 * itself afterwards: 0, or -1 with ERR (a missing PATH too). */
int file_open_input(const char *path, char *err, size_t errsize);
int file_check_input(const char *path, char *err, size_t errsize);
/* Does PATH start like a SQLite database ("SQLite format 3" and a NUL)?  0
 * for anything that cannot be read (the reader then says why). */
int is_sqlite_file(const char *path);

/* Read PATH whole (decompressing zstd).  Returns 0, or -1 with a one-line
 * message in ERR. */
int file_read_all(const char *path, filebuf *out, char *err, size_t errsize);
/* Read PATH raw, without decompressing. */
int file_read_raw(const char *path, filebuf *out, char *err, size_t errsize);
void filebuf_free(filebuf *b);
/* Does DATA start with a zstd frame: the frame magic 0xFD2FB528, or a
 * skippable frame's 0x184D2A50-0x184D2A5F (which zstd -d skips too)? */
int is_zstd(const void *data, size_t len);

/* Atomic output.  The temporary file is PATH OUTFILE_TMP_INFIX PID. */
#define OUTFILE_TMP_INFIX ".tmp."
typedef struct outfile {
	FILE *fp;
	char *path, *tmp;
	int force; /* replace PATH if it exists (publish.h) */
} outfile;
/* Open a temporary file beside PATH.  Fails (with ERR) when PATH exists and
 * FORCE is 0. */
int outfile_open(outfile *o, const char *path, int force, char *err, size_t errsize);
/* Only the temporary file is made (empty, by outfile_create_tmp): a caller
 * that writes through another API (SQLite) opens o->tmp itself. */
int outfile_reserve(outfile *o, const char *path, int force, char *err, size_t errsize);
/* Flush and publish (publish.h: fsync, no clobber without FORCE, fsync of
 * the directory); 0 on success.  Several at once: outfile_commit_all. */
int outfile_commit(outfile *o, char *err, size_t errsize);
/* Remove the temporary file. */
void outfile_abort(outfile *o);
/* Create the temporary file TMP afresh: whatever is left under the name (by
 * an earlier process with this pid) is removed, and the file is created
 * with O_EXCL and O_NOFOLLOW, so a symlink planted there in a shared
 * directory is never written through.  The descriptor, or -1 (errno). */
int outfile_create_tmp(const char *tmp);

/* Before any work (output_check.c): can PATH be written?  Refuses an
 * existing PATH without FORCE (and a directory always), a missing or
 * unwritable directory (a file is created there and removed, so a read-only
 * filesystem or a full quota shows too).  Removes the temporary files of
 * earlier runs on PATH that are gone: "PATH.tmp.PID", a regular file owned by
 * this user, whose PID is no live process (kill(PID, 0) fails with ESRCH);
 * NOTE, when not NULL, is told each one.  0, or -1 with ERR.
 * A symbolic link at PATH is an existing output, even one whose target is
 * missing (PATH is looked at with lstat): refused without FORCE; with FORCE
 * the publication's rename replaces the link itself, never its target (a
 * link planted where an output goes cannot send the write elsewhere). */
typedef void outfile_note_fn(void *ctx, const char *removed, long pid);
int outfile_check(const char *path, int force, outfile_note_fn *note, void *ctx, char *err, size_t errsize);

/* Before any work, for each output OUT and each input IN of a command:
 * when both exist and are one file (the same device and inode, through
 * links of either kind), -1 with ERR ("OUT: is the input IN itself; ..."),
 * so that --force cannot make a command overwrite what it reads; else 0. */
int outfile_check_input(const char *out, const char *in, char *err, size_t errsize);

/* The one line for a failed write of PATH, errno E, into ERR: "PATH: file
 * too large (a file-size limit)" for EFBIG (tempfiles_catch_signals ignores
 * SIGXFSZ, so a write over `ulimit -f` fails instead of killing the
 * process), "PATH: no space left on device" for ENOSPC, else "PATH: write
 * failed: " and strerror(E). */
void fileio_write_error(const char *path, int e, char *err, size_t errsize);
/* The errno of FP's failed write: FP is flushed again (the failing write
 * fails again, with its own errno), else the errno at the call, else EIO. */
int fileio_stream_errno(FILE *fp);

/* Does PATH end with SUFFIX? */
int ends_with(const char *path, const char *suffix);

#endif
