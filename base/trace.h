/* trace.h — UGC_TRACE's phase lines for benchmarks: with the variable set,
 * trace_point() writes to stderr the seconds since the first call, this
 * thread's CPU seconds and the process's resident memory, current and
 * peak, so a run shows where its time and memory go.  Without it, each
 * call is one test. */
#ifndef UGC_TRACE_H
#define UGC_TRACE_H

/* Is UGC_TRACE set? */
int trace_on(void);
/* One line: "trace: WHAT at S s, cpu C s, rss R MiB, peak P MiB". */
void trace_point(const char *what);
/* One line "trace: " and FMT's text (a newline added): a phase's own
 * figures.  Every trace line of the tool goes through these two. */
void trace_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
