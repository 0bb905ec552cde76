/* progress_line.c — the progress line on standard error: the phase, how far it
 * is and an estimate of the time left, redrawn in place ('\r') at most five
 * times a second and erased when the phase's work is over (the lower layers
 * report through base/progress.h; this draws).
 *
 * Shown when standard error is a terminal, and then only for a phase that
 * has run half a second, so quick commands never flicker; --progress shows
 * it anyway (a log, a test) and from the start of every phase; --quiet
 * never. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "analysis/analysis.h"
#include "base/base.h"

#define REDRAW_S 0.2  /* at most five lines a second */
#define QUIET_S 0.5   /* a phase shorter than this is not shown (unless forced) */
#define ERASE "\r\033[K"

/* The display's state: the current phase and what is on the line. */
static struct {
	int forced;         /* --progress: draw whatever stderr is */
	int active;         /* a phase is running */
	int shown;          /* the line holds something to erase */
	int drawn;          /* this phase has been drawn at least once */
	char name[48];      /* the phase, as shown */
	double start, last; /* when the phase began, when it was last drawn */
	double fraction;    /* how far it is; never goes back within a phase */
	double from, to;    /* the current span of the phase (progress_span) */
	double span_start;  /* when it began */
	double pace;        /* the phase's fraction a second before the span, 0 if unknown */
} pg;

static void draw(double now)
{
	int pct = (int)(pg.fraction * 100.0);
	char left[48] = "";
	double elapsed = now - pg.start;
	if (pg.fraction >= 0.01 && pg.fraction < 1.0 && elapsed >= 1.0) {
		double s = elapsed * (1.0 - pg.fraction) / pg.fraction;
		long t = s < 1 ? 1 : (long)(s + 0.5); /* whole seconds, so never "1 min 60 s" */
		if (t < 60)
			snprintf(left, sizeof left, ", about %ld s left", t);
		else
			snprintf(left, sizeof left, ", about %ld min %02ld s left", t / 60, t % 60);
	}
	fprintf(stderr, "\r%s %3d%%%s\033[K", pg.name, pct > 100 ? 100 : pct, left);
	fflush(stderr);
	if (!pg.shown)
		tempfiles_set_eraser(ERASE); /* an interrupt leaves a clean line too */
	pg.shown = pg.drawn = 1;
	pg.last = now;
}

static void erase(void)
{
	if (!pg.shown)
		return;
	fputs(ERASE, stderr);
	fflush(stderr);
	tempfiles_set_eraser(NULL);
	pg.shown = 0;
}

static void sink_at(double fraction)
{
	if (!pg.active)
		return;
	double now = now_seconds();
	if (pg.pace > 0 && fraction < pg.to) {
		/* a span without reports of its own (one long SQLite statement):
		 * assume it goes at the phase's pace so far, up to 90% of it */
		double guess = pg.from + (now - pg.span_start) * pg.pace;
		double cap = pg.from + 0.9 * (pg.to - pg.from);
		if (fraction < (guess < cap ? guess : cap))
			fraction = guess < cap ? guess : cap;
	}
	if (fraction > pg.fraction)
		pg.fraction = fraction;
	if (pg.drawn ? now - pg.last >= REDRAW_S : (pg.forced || now - pg.start >= QUIET_S))
		draw(now);
}

static void sink_span(double from, double to)
{
	if (!pg.active)
		return;
	double now = now_seconds();
	pg.pace = from >= 0.02 && now > pg.start ? from / (now - pg.start) : 0;
	pg.from = from;
	pg.to = to;
	pg.span_start = now;
	sink_at(from);
}

static void sink_phase(const char *name)
{
	if (!name) {
		erase();
		pg.active = 0;
		return;
	}
	snprintf(pg.name, sizeof pg.name, "%s", name);
	pg.active = 1;
	pg.drawn = 0;
	pg.fraction = pg.from = pg.pace = 0.0;
	pg.to = 1.0;
	pg.start = pg.span_start = now_seconds();
	sink_at(0.0); /* forced: shown from the start */
}

static const progress_sink line_sink = {sink_phase, sink_at, sink_span};

void progress_setup(int mode)
{
	memset(&pg, 0, sizeof pg);
	pg.forced = mode == PROGRESS_ON;
	int on = pg.forced || (mode == PROGRESS_AUTO && isatty(STDERR_FILENO));
	progress_set_sink(on ? &line_sink : NULL);
}
