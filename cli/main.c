/* main.c — ugc-analyze's entry point: global options and command dispatch. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gc.h"
#include "snapshot.h"

static void main_usage(FILE *fp)
{
	fprintf(fp, "usage: ugc-analyze COMMAND [ARGS]\n"
		    "       ugc-analyze COMMAND --help\n"
		    "       ugc-analyze --version\n\n"
		    "An offline analyzer for Unreal Engine UObject heap snapshots.\n\ncommands:\n");
	for (const command *const *c = commands; *c; c++)
		fprintf(fp, "  %-9s %s\n", (*c)->name, (*c)->summary);
	fprintf(fp, "\nSee ugc-analyze(1) and ugc-snapshot(5).\n");
}

int main(int argc, char **argv)
{
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
		fprintf(stderr, "ugc-analyze: '%s' is not a command (see 'ugc-analyze --help')\n", argv[1]);
		return 2;
	}
	double start = now_seconds();
	int rc = c->run(argc - 1, argv + 1);
	if (getenv("UGC_TRACE") && input_ready_at > 0) {
		fflush(stdout);
		fprintf(stderr, "trace: input ready in %.3f s, answered in %.3f s\n", input_ready_at - start,
			(answered_at > 0 ? answered_at : now_seconds()) - input_ready_at);
	}
	return rc;
}
