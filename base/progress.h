/* progress.h — how far the current long job is, for whoever shows it.
 *
 * The layers below the command line never print: their long loops report
 * here, and the command line installs the sink that draws (cli/progress_line.c).
 * Without a sink every call is one test.  A command names its phases
 * ("load", "gc", "store", ...); the loops inside report how far they are
 * through progress_at, which a span maps into part of the phase (a phase
 * made of several loops gives each its share).  Only the thread that
 * installed the sink is heard: calls from other threads (diff's inputs load
 * in parallel, the GC marks on several) do nothing.  Loops report every few
 * thousand items at most; the sink decides when to draw. */
#ifndef UGC_PROGRESS_H
#define UGC_PROGRESS_H

#include <stdint.h>

typedef struct progress_sink {
	/* a new phase NAME begins (NULL: the work shown so far is over) */
	void (*phase)(const char *name);
	/* the current phase is FRACTION (0 to 1) done */
	void (*at)(double fraction);
	/* the next reports fill FROM to TO of the phase (progress_span) */
	void (*span)(double from, double to);
} progress_sink;

/* Install SINK (NULL: none). */
void progress_set_sink(const progress_sink *sink);
/* Begin phase NAME (its span is all of it), or end the display (NULL). */
void progress_phase(const char *name);
/* Begin the phase "WHAT FILE", FILE without its directories (escaped: a
 * name never drives the terminal). */
void progress_begin_file(const char *what, const char *path);
/* DONE of TOTAL within the current span (nothing when TOTAL is 0). */
void progress_at(uint64_t done, uint64_t total);
/* The span the next progress_at calls fill: from FROM to TO (0 to 1) of
 * the current phase.  With no loop to report from (one long SQLite
 * statement), progress_at(0, 1) now and then keeps the display alive: the
 * sink may then estimate the span's progress from the pace of the phase so
 * far; a phase's fraction never goes back. */
void progress_span(double from, double to);

#endif
