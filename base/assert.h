/* assert.h — assertions as executable documentation, SQLite's way.
 *
 * assert(X) states what the code guarantees at that point: an invariant
 * the prose around it would otherwise only claim (a dominator numbered
 * below the node it dominates, a cell that fits its page).  It is never a
 * check of input: whatever a snapshot or a database holds has been
 * validated, or is reported as an error, before any assertion could see
 * it, so no input may trip one.  The release build (the Makefile's
 * default) compiles with NDEBUG and they cost nothing; the SAN=1 and fuzz
 * builds keep them, so the tests and the fuzzers check them.
 *
 * ALWAYS(X) and NEVER(X) wrap the condition of a branch that must stay
 * even though it is never taken: a defence the code keeps against its own
 * mistakes (a bound on a loop, say), which a debug build reports as one.
 * Debug builds assert X (ALWAYS) or !X (NEVER) and give X's truth value;
 * release builds give X alone.  So
 *	if (NEVER(n > limit))
 *		return -1;
 * returns -1 in a release build and fails the assertion in a debug one. */
#ifndef UGC_ASSERT_H
#define UGC_ASSERT_H

#include <assert.h>

#ifndef NDEBUG
#define ALWAYS(X) ((X) ? 1 : (assert(0 && "ALWAYS(" #X ")"), 0))
#define NEVER(X) ((X) ? (assert(0 && "NEVER(" #X ")"), 1) : 0)
#else
#define ALWAYS(X) (X)
#define NEVER(X) (X)
#endif

#endif
