/* analysis_options.h — the analysis options of `analyze` (--mode,
 * --keep-flags, --threads, --policy), shared with the commands that answer
 * from a snapshot the way they would from its database (`sql`): parsed
 * here, handed to the pipeline (analysis/pipeline.h) as its options. */
#ifndef UGC_CLI_ANALYSIS_OPTIONS_H
#define UGC_CLI_ANALYSIS_OPTIONS_H

#include "analysis/analysis.h"
#include "snapshot/snapshot.h"

#include "cli/options.h"

/* analyze's analysis options, a member of a command's options struct; the
 * table rows OPT_ANALYSIS() write them and analysis_options_check() finishes
 * them after parsing. */
typedef struct analysis_options {
	int mode;             /* enum gc_mode, or -1: the snapshot's */
	const char *keep;     /* --keep-flags as given, or NULL: the mode's ("-": none) */
	long long threads;    /* marking threads, 0: one a core */
	int policy;           /* enum dom_policy, or -1: gc */
	uint32_t keep_flags;  /* KEEP parsed (by analysis_options_check) */
} analysis_options;

/* The defaults: nothing given. */
#define ANALYSIS_OPTIONS_INIT {.mode = -1, .keep = NULL, .threads = 0, .policy = -1, .keep_flags = 0}

/* The option-table rows of the analysis options, for a command whose
 * options struct T holds an analysis_options F. */
#define OPT_ANALYSIS(T, F) \
	OPT_CHOICE(0, "mode", T, F.mode, mode_choices, 2, "MODE", \
		   "game (no keep flags) or editor (RF_Standalone kept); default:\nthe snapshot's mode header"), \
	OPT_STRING(0, "keep-flags", T, F.keep, "LIST", \
		   "comma-separated RF_ flags that keep objects alive (overrides\nthe mode's); '-' for none"), \
	OPT_INT(0, "threads", T, F.threads, 1, 64, "N", \
		"marking threads (default: the number of cores); analyze also writes\nthe database's big tables on up to 5 of them"), \
	OPT_POLICY(T, F.policy, \
		   "retention graph for the idom and retained columns: gc\n(default), refs, refs+weak or refs+weak+soft")

/* After parsing: parse --keep-flags and fill in the defaults.  0, or the
 * usage exit status after printing CMD's usage error. */
int analysis_options_check(const char *cmd, analysis_options *o);
/* Was any of the options given? */
int analysis_options_given(const analysis_options *o);

/* The pipeline's options (analysis/pipeline.h) O's given ones make. */
pipeline_options analysis_pipeline_options(const analysis_options *o);

#endif
