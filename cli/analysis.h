/* analysis.h — the analysis `analyze` runs on a snapshot (load, GC,
 * findings, dominators) and its options, shared with the commands that
 * answer from a snapshot the way they would from its database (`sql`). */
#ifndef UGC_CLI_ANALYSIS_H
#define UGC_CLI_ANALYSIS_H

#include "dominators.h"
#include "findings.h"
#include "gc.h"
#include "heap.h"

typedef struct analysis_options {
	const char *mode;     /* "game", "editor" or NULL: the snapshot's */
	const char *keep;     /* --keep-flags as given, or NULL: the mode's */
	uint32_t keep_flags;  /* KEEP parsed ("-": none) */
	int threads;          /* marking threads */
	int policy;           /* enum dom_policy */
	int given;            /* how many of these options were on the command line */
} analysis_options;

void analysis_options_init(analysis_options *o);
/* Take ARGV[*I] if it is one of the options (--mode, --keep-flags,
 * --threads, --policy): 1 (with *I past its value), 0 when it is none of
 * them, or 2 after printing CMD's usage error. */
int analysis_option(const char *cmd, int argc, char **argv, int *i, analysis_options *o);

typedef struct analysis {
	heap h;
	gc_options opt;
	gc_result r;
	findings f;
	dom_result dom;
	double load_s; /* seconds the load took */
} analysis;

/* Load PATH and analyse it: 0, or 1 after printing the error (nothing to free). */
int analysis_run(const char *path, const analysis_options *o, analysis *a);
void analysis_free(analysis *a);

#endif
