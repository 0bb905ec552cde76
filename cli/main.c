/* main.c — ugc-analyze's entry point: global options and command dispatch. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "cli/cli.h"
#include "analysis/analysis.h"
#include "base/base.h"
#include "snapshot/snapshot.h"

static void main_usage(FILE *fp)
{
	fprintf(fp, "usage: ugc-analyze COMMAND [ARGS]\n"
		    "       ugc-analyze COMMAND --help\n"
		    "       ugc-analyze --version\n\n"
		    "An offline analyzer for Unreal Engine UObject heap snapshots (.ugct, .ugcs) and\n"
		    "V8 JavaScript heap snapshots (.heapsnapshot, from Node, Chrome DevTools or memlab).\n\ncommands:\n");
	for (const command *const *c = commands; *c; c++)
		fprintf(fp, "  %-10s %s\n", (*c)->name, (*c)->summary);
	fprintf(fp, "\nglobal options (before or after the command):\n"
		    "  --bytes     text output prints sizes as exact byte counts (5950 B) and counts\n"
		    "              without thousands separators (as JSON and CSV always do)\n"
		    "  --progress  show the progress line on standard error even when it is not a terminal\n"
		    "  --quiet     no progress line (analyze: print nothing on success)\n"
		    "\nInterrupted (SIGINT, SIGTERM, SIGHUP), a command removes its unfinished outputs and\n"
		    "exits 130, 143 or 129.\n");
	fprintf(fp, "\nSee ugc-analyze(1) and ugc-snapshot(5).\n");
}

/* Take the global options out of ARGV, wherever they are before a "--";
 * the new argc. */
static int global_options(int argc, char **argv, int *progress)
{
	int n = 1;
	*progress = PROGRESS_AUTO;
	cli_quiet = 0;
	cli_bytes = 0;
	int operands = 0; /* past "--": everything is an operand */
	for (int i = 1; i < argc; i++) {
		if (operands || strcmp(argv[i], "--") == 0)
			operands = 1, argv[n++] = argv[i];
		else if (strcmp(argv[i], "--quiet") == 0)
			cli_quiet = 1;
		else if (strcmp(argv[i], "--progress") == 0)
			*progress = PROGRESS_ON;
		else if (strcmp(argv[i], "--bytes") == 0)
			cli_bytes = 1;
		else
			argv[n++] = argv[i];
	}
	if (n < argc)
		argv[n] = NULL; /* (a caller's array may have no slot past argc) */
	if (cli_quiet)
		*progress = PROGRESS_OFF; /* --quiet wins */
	return n;
}

int main(int argc, char **argv)
{
	int progress;
	argc = global_options(argc, argv, &progress);
	if (argc < 2) {
		main_usage(stderr);
		return 2;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
		if (argc > 2 && find_command(argv[2])) {
			print_help(stdout, find_command(argv[2]));
			return 0;
		}
		main_usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
		printf("ugc-analyze %s\n", UGC_VERSION);
		return 0;
	}
	const command *c = find_command(argv[1]);
	if (!c) {
		const char *names[32];
		size_t n = 0;
		for (const command *const *k = commands; *k && n < 32; k++)
			names[n++] = (*k)->name;
		const char *near = closest_name(argv[1], names, n);
		fputs("ugc-analyze: '", stderr);
		display_put(stderr, argv[1]); /* as given: control bytes shown, not sent */
		if (near)
			fprintf(stderr, "' is not a command; did you mean '%s'? (see 'ugc-analyze --help')\n", near);
		else
			fputs("' is not a command (see 'ugc-analyze --help')\n", stderr);
		return 2;
	}
	double start = now_seconds();
	trace_on(); /* its clock starts here */
#ifdef __GLIBC__
	/* A fixed threshold: every large array is its own mapping, given back
	 * when freed.  glibc's default raises the threshold after the first
	 * such free, and the heap then keeps freed work arrays resident (20
	 * MiB more at the peak of a 4M-node snapshot's dominators). */
	mallopt(M_MMAP_THRESHOLD, 256 * 1024);
#endif
	progress_setup(progress);
	tempfiles_catch_signals();
	int rc = c->run(argc - 1, argv + 1);
	progress_phase(NULL);
	if (trace_on() && input_ready_at > 0) {
		fflush(stdout);
		trace_printf("input ready in %.3f s, answered in %.3f s", input_ready_at - start,
			     (answered_at > 0 ? answered_at : now_seconds()) - input_ready_at);
	}
	return rc;
}
