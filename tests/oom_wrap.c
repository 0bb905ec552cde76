/* oom_wrap.c — a failing allocator for the OOM test (test_oom.c).  The unit
 * tests are linked with -Wl,--wrap for malloc, calloc, realloc, strdup and
 * strndup, so every allocation our code makes comes here, and SQLite's
 * allocator is wrapped the same way (sqlite3_config before it starts).
 * Allocation number oom_fail_at (counted from oom_count = 0) returns NULL;
 * oom_fail_at 0 fails nothing.  zstd's and libc's own internal allocations
 * are not counted. */
#include "tests/oom_wrap.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <string.h>

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);
char *__real_strndup(const char *s, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);
char *__wrap_strdup(const char *s);
char *__wrap_strndup(const char *s, size_t n);

atomic_long oom_fail_at, oom_count, oom_sqlite_fail_at, oom_sqlite_count;

/* Is this allocation the one to fail? */
static int fail_now(void)
{
	long n = atomic_fetch_add(&oom_count, 1) + 1;
	if (n != atomic_load(&oom_fail_at))
		return 0;
	errno = ENOMEM; /* as the C library's allocators do */
	return 1;
}

static int sqlite_fail_now(void)
{
	long n = atomic_fetch_add(&oom_sqlite_count, 1) + 1;
	return n == atomic_load(&oom_sqlite_fail_at);
}

void *__wrap_malloc(size_t n) { return fail_now() ? NULL : __real_malloc(n); }
void *__wrap_calloc(size_t n, size_t size) { return fail_now() ? NULL : __real_calloc(n, size); }
void *__wrap_realloc(void *p, size_t n) { return fail_now() ? NULL : __real_realloc(p, n); }
char *__wrap_strdup(const char *s) { return fail_now() ? NULL : __real_strdup(s); }
char *__wrap_strndup(const char *s, size_t n) { return fail_now() ? NULL : __real_strndup(s, n); }

/* SQLite's allocator, counted apart (it makes most of the allocations). */
static sqlite3_mem_methods sqlite_real;
static void *sq_malloc(int n) { return sqlite_fail_now() ? NULL : sqlite_real.xMalloc(n); }
static void *sq_realloc(void *p, int n) { return sqlite_fail_now() ? NULL : sqlite_real.xRealloc(p, n); }

__attribute__((constructor)) static void wrap_sqlite(void)
{
	if (sqlite3_config(SQLITE_CONFIG_GETMALLOC, &sqlite_real) != SQLITE_OK)
		return;
	sqlite3_mem_methods m = sqlite_real;
	m.xMalloc = sq_malloc;
	m.xRealloc = sq_realloc;
	sqlite3_config(SQLITE_CONFIG_MALLOC, &m);
}
