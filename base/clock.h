/* clock.h — the monotonic clock every layer times its work with. */
#ifndef UGC_CLOCK_H
#define UGC_CLOCK_H

/* Seconds on the monotonic clock (an arbitrary origin: only differences
 * mean anything). */
double now_seconds(void);

#endif
