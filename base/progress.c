/* progress.c — forwards the lower layers' progress reports to the sink the
 * command line installed (progress.h). */
#include "base/progress.h"

#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "base/escape.h"

static const progress_sink *sink;
static pthread_t owner;                 /* the thread that installed the sink: the only one heard */
static double span_from, span_to = 1.0; /* the part of the phase progress_at fills */

void progress_set_sink(const progress_sink *s)
{
	sink = s;
	owner = pthread_self();
}

/* Is there a sink, and is this the thread it listens to?  (diff loads its
 * inputs on several threads: only the command's own is shown.) */
static int heard(void)
{
	return sink && pthread_equal(owner, pthread_self());
}

void progress_phase(const char *name)
{
	if (!heard())
		return;
	span_from = 0.0;
	span_to = 1.0;
	sink->phase(name);
}

void progress_span(double from, double to)
{
	if (!heard())
		return;
	span_from = from;
	span_to = to;
	sink->span(from, to);
}

void progress_at(uint64_t done, uint64_t total)
{
	if (total == 0 || !heard())
		return;
	double f = done >= total ? 1.0 : (double)done / (double)total;
	sink->at(span_from + (span_to - span_from) * f);
}

void progress_begin_file(const char *what, const char *path)
{
	const char *base = strrchr(path, '/');
	char shown[80], name[96];
	base = base ? base + 1 : path;
	display_escape(shown, sizeof shown, base, strlen(base)); /* a name never drives the terminal */
	snprintf(name, sizeof name, "%s %s", what, shown);
	progress_phase(name);
}
