/* oom_wrap.h — the failing allocator of the unit tests (oom_wrap.c). */
#ifndef UGC_OOM_WRAP_H
#define UGC_OOM_WRAP_H

#include <stdatomic.h>
#include <stddef.h>

/* Allocation number OOM_FAIL_AT (1-based, counted in OOM_COUNT) fails; 0: none.
 * SQLite's allocations are counted apart, in OOM_SQLITE_COUNT. */
extern atomic_long oom_fail_at, oom_count, oom_sqlite_fail_at, oom_sqlite_count;

#endif
