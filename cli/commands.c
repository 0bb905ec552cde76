/* commands.c — the list of commands, in the order ugc-analyze --help shows
 * them (each one's description and options are in its own cli/cmd_NAME.c). */
#include <string.h>

#include "cli/cli.h"

const command *const commands[] = {
	&command_analyze, &command_sql, &command_refs, &command_path, &command_why, &command_clusters,
	&command_findings, &command_diff, &command_top, &command_dominators, &command_suspects, &command_whatif,
	&command_cut, &command_worlds, &command_gccost, &command_check, &command_history, &command_report, &command_info,
	&command_convert, &command_gen,
	NULL,
};

const command *find_command(const char *name)
{
	for (const command *const *c = commands; *c; c++)
		if (strcmp((*c)->name, name) == 0)
			return *c;
	return NULL;
}
