/* tempfiles.c — the registry of temporary outputs and the signal handler
 * that removes them (see tempfiles.h). */
#include "base/tempfiles.h"

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

/* Slot K holds a path while used[K] is 1: a slot is filled before it is
 * marked used (release) and the handler reads the flag before the path
 * (acquire), on whichever thread the signal lands.  Lock-free atomics are
 * async-signal-safe (C17 7.14.1.1).  The eraser likewise: its bytes, then
 * its length. */
static char paths[TEMPFILES_MAX][PATH_MAX];
static atomic_int used[TEMPFILES_MAX];
static char eraser[16];
static atomic_int eraser_len;
/* The watched mappings (tempfiles_watch_mapping), a slot each (diff loads
 * its inputs at once): the slot claimed, then its path and range, the
 * length written last (release) and read first (acquire); 0: none. */
#define WATCH_MAX 4
static atomic_int bus_taken[WATCH_MAX];
static char bus_path[WATCH_MAX][PATH_MAX];
static atomic_uintptr_t bus_base[WATCH_MAX];
static atomic_size_t bus_len[WATCH_MAX];

_Static_assert(ATOMIC_INT_LOCK_FREE == 2 && ATOMIC_POINTER_LOCK_FREE == 2 && ATOMIC_LONG_LOCK_FREE == 2,
	       "the handlers need lock-free atomics");

static const int caught[] = {SIGINT, SIGTERM, SIGHUP};
#define NCAUGHT (sizeof caught / sizeof caught[0])

int tempfiles_add(const char *path)
{
	size_t n = strlen(path);
	if (n >= PATH_MAX)
		return -1;
	for (int k = 0; k < TEMPFILES_MAX; k++)
		if (!atomic_load(&used[k])) {
			memcpy(paths[k], path, n + 1);
			atomic_store_explicit(&used[k], 1, memory_order_release);
			return 0;
		}
	return -1;
}

void tempfiles_forget(const char *path)
{
	for (int k = 0; k < TEMPFILES_MAX; k++)
		if (atomic_load(&used[k]) && strcmp(paths[k], path) == 0) {
			atomic_store(&used[k], 0);
			return;
		}
}

void tempfiles_set_eraser(const char *s)
{
	atomic_store(&eraser_len, 0);
	size_t n = s ? strlen(s) : 0;
	if (n == 0 || n >= sizeof eraser)
		return;
	memcpy(eraser, s, n);
	atomic_store_explicit(&eraser_len, (int)n, memory_order_release);
}

/* write() to standard error; a failure changes nothing: the files matter
 * more than the line. */
static void say(const char *s, size_t n)
{
	if (write(STDERR_FILENO, s, n) < 0)
		return;
}

static void erase_and_remove(void)
{
	int n = atomic_load_explicit(&eraser_len, memory_order_acquire);
	if (n > 0)
		say(eraser, (size_t)n);
	for (int k = 0; k < TEMPFILES_MAX; k++)
		if (atomic_load_explicit(&used[k], memory_order_acquire))
			unlink(paths[k]);
}

static void on_signal(int sig)
{
	erase_and_remove();
	_exit(128 + sig);
}

/* SIGBUS: inside the watched mapping, the file was cut short while it was
 * read: one line naming it and the offset, exit 1.  Elsewhere a real fault:
 * the default action, once the handler returns and the access faults again. */
static void on_bus(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	uintptr_t at = (uintptr_t)si->si_addr, base = 0;
	int w = -1;
	for (int k = 0; k < WATCH_MAX && w < 0; k++) {
		size_t len = atomic_load_explicit(&bus_len[k], memory_order_acquire);
		base = atomic_load_explicit(&bus_base[k], memory_order_relaxed);
		if (len && at >= base && at - base < len)
			w = k;
	}
	erase_and_remove();
	if (w < 0) {
		signal(sig, SIG_DFL);
		return;
	}
	char digits[24];
	size_t k = sizeof digits;
	uintptr_t off = at - base;
	do
		digits[--k] = (char)('0' + off % 10);
	while ((off /= 10) > 0);
	say("ugc-analyze: ", 13);
	say(bus_path[w], strlen(bus_path[w]));
	say(": offset ", 9);
	say(digits + k, sizeof digits - k);
	const char *tail = ": the file was cut short while it was read\n";
	say(tail, strlen(tail));
	_exit(1);
}

void tempfiles_watch_mapping(const char *path, const void *base, size_t len)
{
	size_t n = strlen(path);
	if (n >= PATH_MAX || !len)
		return;
	for (int k = 0; k < WATCH_MAX; k++) {
		int free_slot = 0;
		if (!atomic_compare_exchange_strong(&bus_taken[k], &free_slot, 1))
			continue;
		memcpy(bus_path[k], path, n + 1);
		atomic_store_explicit(&bus_base[k], (uintptr_t)base, memory_order_relaxed);
		atomic_store_explicit(&bus_len[k], len, memory_order_release);
		return;
	}
}

void tempfiles_unwatch_mapping(const void *base)
{
	for (int k = 0; k < WATCH_MAX; k++)
		if (atomic_load_explicit(&bus_len[k], memory_order_acquire) &&
		    atomic_load_explicit(&bus_base[k], memory_order_relaxed) == (uintptr_t)base) {
			atomic_store_explicit(&bus_len[k], 0, memory_order_release);
			atomic_store(&bus_taken[k], 0);
			return;
		}
}

void tempfiles_catch_signals(void)
{
	for (size_t k = 0; k < NCAUGHT; k++) {
		struct sigaction old, sa;
		if (sigaction(caught[k], NULL, &old) || (old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL)
			continue; /* ignored by whoever started us, or handled (a fuzzer): left so */
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_signal;
		sigfillset(&sa.sa_mask); /* one signal at a time */
		sigaction(caught[k], &sa, NULL);
	}
	struct sigaction old, sa;
	/* over a file-size limit (ulimit -f) a write raises SIGXFSZ, whose
	 * default kills the process with no word and leaves the temporary
	 * file: ignored, the write fails with EFBIG instead, and the command
	 * says so, naming the file (fileio_write_error), and removes it */
	if (sigaction(SIGXFSZ, NULL, &old) == 0 && !(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_DFL) {
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = SIG_IGN;
		sigaction(SIGXFSZ, &sa, NULL);
	}
	if (sigaction(SIGBUS, NULL, &old) == 0 && !(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_DFL) {
		memset(&sa, 0, sizeof sa);
		sa.sa_sigaction = on_bus;
		sa.sa_flags = SA_SIGINFO;
		sigfillset(&sa.sa_mask);
		sigaction(SIGBUS, &sa, NULL);
	}
}

void tempfiles_block(sigset_t *old)
{
	sigset_t set;
	sigemptyset(&set);
	for (size_t k = 0; k < NCAUGHT; k++)
		sigaddset(&set, caught[k]);
	pthread_sigmask(SIG_BLOCK, &set, old);
}

void tempfiles_unblock(const sigset_t *old)
{
	pthread_sigmask(SIG_SETMASK, old, NULL);
}
