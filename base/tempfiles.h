/* tempfiles.h — temporary outputs that an interrupt must not leave behind.
 *
 * Every temporary output (fileio.h's outfile, "PATH.tmp.PID") is registered
 * here from the moment it is named until it is published or removed.
 * tempfiles_catch_signals(), called once by the command line, makes SIGINT,
 * SIGTERM and SIGHUP remove every registered file and end the process with
 * status 128 + the signal (130, 143, 129).  A SIGBUS on a watched mapping
 * (a plain input file mapped while it is read, then cut short by someone
 * else) removes them too, writes the command line's one error line naming
 * the file and the offset, and exits 1; any other SIGBUS is left a crash.
 * SIGXFSZ (a write over a file-size limit, `ulimit -f`) is ignored, so the
 * write fails with EFBIG and the command reports it like any failed write,
 * naming the file, and removes its temporary files.
 *
 * The handler does only what is async-signal-safe: it writes a fixed string
 * (the progress line's eraser, if one is set), calls unlink() on the paths
 * held in a static array and calls _exit().  It never frees, prints through
 * stdio or takes a lock, so it may interrupt anything, on any thread; no loop
 * has to poll a flag.  A signal that was ignored when the process started
 * (a background job of a non-interactive shell, nohup) stays ignored, and
 * one already handled (a fuzzer calling the command line) keeps its handler. */
#ifndef UGC_TEMPFILES_H
#define UGC_TEMPFILES_H

#include <signal.h>

/* How many temporary outputs can be pending at once (gen --evolve has 4). */
#define TEMPFILES_MAX 16

/* Register PATH; 0, or -1 when the table is full or PATH too long. */
int tempfiles_add(const char *path);
/* Forget PATH (it was published or removed). */
void tempfiles_forget(const char *path);
/* Install the handlers for SIGINT, SIGTERM, SIGHUP and SIGBUS, and ignore
 * SIGXFSZ (see above). */
void tempfiles_catch_signals(void);
/* Watch LEN bytes mapped at BASE from the file PATH: a SIGBUS there (the
 * file cut short while it is read) is one line naming PATH and the offset,
 * and exit 1.  Up to four mappings at once (more are not watched: a SIGBUS
 * there is the default crash); unwatch each by its BASE before unmapping. */
void tempfiles_watch_mapping(const char *path, const void *base, size_t len);
void tempfiles_unwatch_mapping(const void *base);
/* Bytes the handler writes to standard error before anything else (at most
 * 15; NULL for none): the progress display sets its line eraser here. */
void tempfiles_set_eraser(const char *s);
/* Block those signals for the calling thread (the old mask into OLD), and
 * restore OLD: a publication of several outputs completes before an
 * interrupt takes effect, so they appear all or none. */
void tempfiles_block(sigset_t *old);
void tempfiles_unblock(const sigset_t *old);

#endif
