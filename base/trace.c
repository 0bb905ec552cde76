/* trace.c — UGC_TRACE's phase lines (see trace.h). */
#include "base/trace.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int state = -1; /* -1 unknown, 0 off, 1 on */
static double start;

static double clock_s(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int trace_on(void)
{
	if (state < 0) {
		state = getenv("UGC_TRACE") != NULL;
		start = clock_s(CLOCK_MONOTONIC);
	}
	return state;
}

/* VmRSS and VmHWM of /proc/self/status in KiB (0 when unknown). */
static void resident(long *rss, long *peak)
{
	*rss = *peak = 0;
	FILE *f = fopen("/proc/self/status", "r");
	if (!f)
		return;
	char line[256];
	while (fgets(line, sizeof line, f)) {
		if (strncmp(line, "VmRSS:", 6) == 0)
			*rss = strtol(line + 6, NULL, 10);
		else if (strncmp(line, "VmHWM:", 6) == 0)
			*peak = strtol(line + 6, NULL, 10);
	}
	fclose(f);
}

void trace_point(const char *what)
{
	if (!trace_on())
		return;
	long rss, peak;
	resident(&rss, &peak);
	fprintf(stderr, "trace: %s at %.3f s, cpu %.3f s, rss %ld MiB, peak %ld MiB\n", what,
		clock_s(CLOCK_MONOTONIC) - start, clock_s(CLOCK_THREAD_CPUTIME_ID), rss / 1024, peak / 1024);
}

void trace_printf(const char *fmt, ...)
{
	if (!trace_on())
		return;
	char line[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	fprintf(stderr, "trace: %s\n", line);
}
