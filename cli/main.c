/* main.c — ugc-analyze's entry point: global options and command dispatch. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "snapshot.h"

const command commands[] = {
	{"analyze", cmd_analyze, "run the engine's GC on a snapshot and store the results in SQLite",
	 "usage: ugc-analyze analyze SNAPSHOT [-o DB] [--mode game|editor] [--keep-flags LIST]\n"
	 "                           [--threads N] [--after FILE] [--force] [--quiet]\n"
	 "\n"
	 "Runs reachability analysis and purge exactly as Unreal Engine 5.5 would on the\n"
	 "heap in SNAPSHOT, prints a LogGarbage-style summary and writes every result to a\n"
	 "SQLite database (default: SNAPSHOT with its extension replaced by .db).\n"
	 "\n"
	 "  -o DB              database to write (written to a temporary file, then renamed)\n"
	 "  --mode MODE        game (no keep flags) or editor (RF_Standalone kept); default:\n"
	 "                     the snapshot's mode header\n"
	 "  --keep-flags LIST  comma-separated RF_ flags that keep objects alive (overrides\n"
	 "                     the mode's); '-' for none\n"
	 "  --threads N        marking threads (default: the number of cores)\n"
	 "  --after FILE       also write the heap as it is after this GC (.ugcs/.ugct/.zst)\n"
	 "  --force            overwrite existing output files\n"
	 "  --quiet            print nothing on success\n"},
	{"sql", cmd_sql, "run read-only SQL over a database written by analyze",
	 "usage: ugc-analyze sql DB ['SELECT ...'] [--format text|csv|json]\n"
	 "\n"
	 "Runs the statements given (or read from standard input) against DB, opened\n"
	 "read-only.  The schema is in ugc-analyze(1).\n"
	 "\n"
	 "  --format F   text (aligned columns, default), csv (RFC 4180) or json (array of objects)\n"},
	{"info", cmd_info, "summarise a snapshot: header, counts, roots, top classes",
	 "usage: ugc-analyze info SNAPSHOT [--format text|json] [--top N]\n"
	 "\n"
	 "Prints the header fields and counts of objects, classes, packages, references by\n"
	 "kind, FGCObject referencers, clusters, roots by kind, garbage objects and bytes,\n"
	 "and the top classes by count and by bytes.\n"
	 "\n"
	 "  --format F   text (default) or json\n"
	 "  --top N      how many classes in each top list (default 10)\n"},
	{"convert", cmd_convert, "convert between text (.ugct, .ugct.zst) and binary (.ugcs) snapshots",
	 "usage: ugc-analyze convert IN OUT [--force]\n"
	 "\n"
	 "Reads IN in either format (detected from its content) and writes OUT in the format\n"
	 "its name asks for: .ugcs binary, .ugct text, .ugct.zst zstd-compressed text.\n"
	 "The text written is canonical; text -> binary -> text is lossless.\n"
	 "\n"
	 "  --force      overwrite OUT if it exists\n"},
	{"gen", cmd_gen, "generate a deterministic heap shaped like a real UE game's",
	 "usage: ugc-analyze gen --objects N [--seed S] [--mode game|editor] [--broken-clusters P]\n"
	 "                       -o FILE [--force]\n"
	 "\n"
	 "Writes a synthetic snapshot of about N objects (at least 200): the CoreUObject\n"
	 "package, native classes and CDOs in the disregard pool, asset packages (materials,\n"
	 "textures, meshes, blueprint classes, some of them cluster roots), worlds with levels\n"
	 "whose actors and components are clustered as ULevelActorContainer clusters them,\n"
	 "FGCObject referencers, RootSet/RefCounted/RF_Standalone objects, destroyed actors\n"
	 "still referenced, weak and soft references, render resources not ready for\n"
	 "FinishDestroy, and an unreachable part.  The same N, S and mode give the same bytes.\n"
	 "\n"
	 "  --objects N          about how many objects (up to 20000000)\n"
	 "  --seed S             random seed (default 1)\n"
	 "  --mode M             game (default) or editor\n"
	 "  --broken-clusters P  drop P percent of cluster list entries (default 0), to make\n"
	 "                       the disagreements the engine would trust\n"
	 "  -o FILE              output (.ugcs, .ugct or .ugct.zst)\n"},
	{NULL, NULL, NULL, NULL},
};

const command *find_command(const char *name)
{
	for (const command *c = commands; c->name; c++)
		if (strcmp(c->name, name) == 0)
			return c;
	return NULL;
}

static void main_usage(FILE *fp)
{
	fprintf(fp, "usage: ugc-analyze COMMAND [ARGS]\n"
		    "       ugc-analyze COMMAND --help\n"
		    "       ugc-analyze --version\n\n"
		    "An offline analyzer for Unreal Engine UObject heap snapshots.\n\ncommands:\n");
	for (const command *c = commands; c->name; c++)
		fprintf(fp, "  %-9s %s\n", c->name, c->summary);
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
			fputs(find_command(argv[2])->usage, stdout);
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
	if (wants_help(c->name, argc - 1, argv + 1))
		return 0;
	return c->run(argc - 1, argv + 1);
}
