/* tempfiles.c — the registry of temporary outputs and the signal handler
 * that removes them (see tempfiles.h). */
#include "tempfiles.h"

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
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

_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "the handler needs lock-free atomics");

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

static void on_signal(int sig)
{
	int n = atomic_load_explicit(&eraser_len, memory_order_acquire);
	if (n > 0 && write(STDERR_FILENO, eraser, (size_t)n) < 0) {
		/* nothing to do: the files matter more than the line */
	}
	for (int k = 0; k < TEMPFILES_MAX; k++)
		if (atomic_load_explicit(&used[k], memory_order_acquire))
			unlink(paths[k]);
	_exit(128 + sig);
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
