/* analysis.h — the analysis `analyze` runs on a snapshot (load, GC,
 * findings, dominators) and its options, shared with the commands that
 * answer from a snapshot the way they would from its database (`sql`,
 * which computes each part only when a statement first needs it). */
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
		"marking threads (default: the number of cores); analyze also writes\nthe database's big tables on up to 4 of them"), \
	OPT_POLICY(T, F.policy, \
		   "retention graph for the idom and retained columns: gc\n(default), refs, refs+weak or refs+weak+soft")

/* After parsing: parse --keep-flags and fill in the defaults.  0, or the
 * usage exit status after printing CMD's usage error. */
int analysis_options_check(const char *cmd, analysis_options *o);
/* Was any of the options given? */
int analysis_options_given(const analysis_options *o);

/* What analysis_need computes after the load, a bit each (the findings and
 * the dominators need the GC, which analysis_need runs first). */
enum { AN_GC = 1, AN_FINDINGS = 2, AN_DOM = 4, AN_ALL = 7 }; /* = heap_vtab.h's NEED_* */

typedef struct analysis {
	heap h;
	gc_options opt;
	gc_result r;      /* once done & AN_GC (zeroed before) */
	findings f;       /* once done & AN_FINDINGS (zeroed before) */
	dom_result dom;   /* once done & AN_DOM; before, zeroed but for policy */
	int done;         /* AN_* computed so far */
	double load_s;    /* seconds the load took */
} analysis;

/* Load PATH with O's options and compute nothing yet: 0, or 1 after
 * printing the error (nothing to free). */
int analysis_load(const char *path, const analysis_options *o, analysis *a);
/* Compute what of WHAT (AN_* bits) is not done yet, with what it needs: 0,
 * or -1 with the reason in ERR (what was done stays, for analysis_free). */
int analysis_need(analysis *a, int what, char *err, size_t errsize);
/* analysis_load, then everything: 0, or 1 after printing the error
 * (nothing to free). */
int analysis_run(const char *path, const analysis_options *o, analysis *a);
void analysis_free(analysis *a);

#endif
