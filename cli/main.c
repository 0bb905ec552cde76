/* main.c — ugc-analyze's entry point: global options and command dispatch. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gc.h"
#include "progress.h"
#include "snapshot.h"
#include "tempfiles.h"

int cli_quiet;

const command commands[] = {
	{"analyze", cmd_analyze, "run the engine's GC on a snapshot and store the results in SQLite",
	 "usage: ugc-analyze analyze SNAPSHOT [-o DB] [--mode game|editor] [--keep-flags LIST]\n"
	 "                           [--threads N] [--policy P] [--after FILE] [--force] [--quiet]\n"
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
	 "  --policy P         retention graph for the idom and retained columns: gc\n"
	 "                     (default), refs, refs+weak or refs+weak+soft\n"
	 "  --after FILE       also write the heap as it is after this GC (.ugcs/.ugct/.zst)\n"
	 "  --force            overwrite existing output files\n"
	 "  --quiet, -q        print nothing on success, and no progress line\n"},
	{"sql", cmd_sql, "run read-only SQL over a database written by analyze",
	 "usage: ugc-analyze sql DB ['SELECT ...'] [--format text|csv|json]\n"
	 "\n"
	 "Runs the statements given (or read from standard input) against DB, opened\n"
	 "read-only.  The schema is in ugc-analyze(1).\n"
	 "\n"
	 "  --format F   text (aligned columns, default), csv (RFC 4180) or json (array of objects)\n"},
	{"refs", cmd_refs, "who references an object (or, with --out, what it references)",
	 "usage: ugc-analyze refs INPUT OBJ [--out] [--kind K[,K...]] [--limit N] [--format text|json|csv]\n"
	 "       ugc-analyze refs INPUT --name GLOB | --class NAME ...\n"
	 "\n"
	 "Lists every direct referencer of OBJ: the reference kind (strong, aro, immutable,\n"
	 "weak, soft), the implicit class and outer references (objects whose Class or Outer\n"
	 "OBJ is) and FGCObjects (gcobject, shown as 'NAME (FGCObject)'), the property, the\n"
	 "referencer's fate in this GC (survives, garbage: marked garbage but kept, purged)\n"
	 "and the referencer, then the counts by kind and by fate over all of them.\n"
	 "INPUT is a snapshot (analysed in memory) or a database written by analyze.\n"
	 "OBJ is an index (123 or #123), a path name or a full name ('Class /Path').\n"
	 "\n"
	 "  --out          what OBJ references instead (the fate is the target's)\n"
	 "  --kind LIST    only these kinds: strong,aro,immutable,weak,soft,class,outer,gcobject\n"
	 "  --limit N      rows shown (text: default 100; json, csv: all unless given; 0: all)\n"
	 "  --name GLOB    every object whose name matches GLOB (shell wildcards)\n"
	 "  --class NAME   every object of class NAME (with --name: both)\n"
	 "  --format F     text (default), json or csv\n"},
	{"path", cmd_path, "why an object is alive: its retention chains from the GC roots",
	 "usage: ugc-analyze path INPUT OBJ [--roots | --all [--max N] | --direct] [--external]\n"
	 "                        [--format text|json|csv|dot]\n"
	 "\n"
	 "Prints the chains of references that keep OBJ alive, in the engine's reference-\n"
	 "chain layout (root line with its tags, then one '-> Class::Property = ...' line a\n"
	 "hop).  By default the true shortest chain (breadth-first from the roots in index\n"
	 "order).  A root gets its root reason; an unreachable object is explained (each\n"
	 "referencer and why it does not count: eliminated, weak, itself unreachable, or a\n"
	 "cluster member the GC does not trace).\n"
	 "\n"
	 "  --roots        one shortest chain per distinct root\n"
	 "  --all          up to N distinct chains, shortest first (--max N, default 100)\n"
	 "  --direct       direct referencers only, as one-hop chains\n"
	 "  --external     only chains whose root lies outside OBJ's package\n"
	 "  --name GLOB / --class NAME   every matching object\n"
	 "  --format F     text (default), json, csv (one row a hop) or dot (Graphviz)\n"},
	{"why", cmd_why, "explain one object: identity, fate, root kind, chain, nulled references, findings",
	 "usage: ugc-analyze why INPUT OBJ [--format text|json|csv]\n"
	 "\n"
	 "One screen about OBJ: identity and flags, garbage or not, reachable or not and its\n"
	 "root kind, distance, its cluster and whether the cluster is what keeps it, the\n"
	 "shortest chain (or why it dies), references to it the GC nulls or clears, and the\n"
	 "findings about it.\n"},
	{"clusters", cmd_clusters, "GC clusters: sizes, bytes, fate; one in detail; --check their lists",
	 "usage: ugc-analyze clusters INPUT [ROOT] [--sort members|bytes|mutable|referenced|root]\n"
	 "                            [--limit N] [--format text|json|csv]\n"
	 "       ugc-analyze clusters INPUT --check | --risks [--limit N] [--format text|json|csv]\n"
	 "\n"
	 "Lists every cluster with its members, mutable objects, referenced and referencing\n"
	 "clusters, bytes (root and members) and its fate in this GC (alive, or dissolved and\n"
	 "why), largest first like gc.ListClusters.  With ROOT, that cluster: first what\n"
	 "dissolved it (its garbage root, the garbage entries of its lists, or the dissolved\n"
	 "clusters it references), then the bytes its root dominates and its four lists.\n"
	 "\n"
	 "  --check   every disagreement between a cluster's lists and its members' real\n"
	 "            references, the use-after-free risks first (marked USE-AFTER-FREE: the\n"
	 "            engine collects an object that is still referenced)\n"
	 "  --risks   only the use-after-free risks\n"
	 "  --limit N clusters, entries of each list, or disagreements shown (text: default\n"
	 "            20; json, csv: all unless given; 0: all); the totals are always said\n"},
	{"findings", cmd_findings, "what the analysis found, grouped by kind, with counts",
	 "usage: ugc-analyze findings INPUT [--kind K] [--limit N] [--format text|json|csv]\n"
	 "\n"
	 "Kinds: eliminated-ref, garbage-survives, dangling-ref, cluster-missing-mutable,\n"
	 "cluster-missing-cluster, cluster-keeps-alive, rootset-garbage, uncleared-weak-ref,\n"
	 "rooted-member-destroyed, keepflags-cluster-root, garbage-flag-mismatch.  Objects\n"
	 "are named by path; a reference an FGCObject holds by 'NAME (FGCObject)'.\n"
	 "\n"
	 "  --limit N   findings of each kind shown (text: default 20; json, csv: all unless\n"
	 "              given; 0: all); each kind's count is always said\n"},
	{"diff", cmd_diff, "compare two snapshots or databases; or find leaks across three",
	 "usage: ugc-analyze diff A B [-o DIFF.db [--force]] [--limit N] [--format text|json|csv]\n"
	 "       ugc-analyze diff --baseline A --target B --final C [--limit N] [--format text|json|csv]\n"
	 "\n"
	 "Two-way: matches the objects of A and B by class and path name (and, when both come\n"
	 "from one process, by index and serial too, so that a re-created object or a reused\n"
	 "slot is not taken for the same object), then reports the class histogram delta\n"
	 "(count and bytes, largest growth first), objects added and removed by package and\n"
	 "by outer, objects garbage in A still alive in B, new roots, new eliminated\n"
	 "references and new cluster disagreements.  -o stores the status of every object\n"
	 "and the aggregates in SQLite.\n"
	 "\n"
	 "Leak mode: the objects new in B (absent from A) that are still alive in C after its\n"
	 "GC, grouped by their shortest retention chain with numbered names made generic\n"
	 "(BP_Enemy_C_12 -> BP_Enemy_C_*), largest groups first, one representative chain\n"
	 "each in the engine's reference-chain layout.\n"
	 "\n"
	 "Inputs are snapshots (analysed in memory) or databases written by analyze.\n"
	 "  --limit N  rows a list (default 20, 0: all); counts are always complete\n"},
	{"top", cmd_top, "the largest retainers: objects, classes or packages by bytes kept alive",
	 "usage: ugc-analyze top INPUT [--by object|class|package] [--sort retained|shallow|count]\n"
	 "                       [--policy P] [--vs P2] [--limit N] [--format text|json|csv]\n"
	 "\n"
	 "Lists what keeps the most memory alive: each object's retained size is the bytes\n"
	 "the heap would lose if every reference into it were cut (its dominator subtree);\n"
	 "a class's or package's counts each byte once.  INPUT is a snapshot (analysed in\n"
	 "memory) or a database written by analyze (which holds one policy).\n"
	 "\n"
	 "  --by B         object (default), class or package\n"
	 "  --sort S       retained (default), shallow, or count (classes and packages)\n"
	 "  --policy P     the retention graph: gc (default: the GC's own walk, clusters\n"
	 "                 included), refs (the objects' own references), refs+weak,\n"
	 "                 refs+weak+soft\n"
	 "  --vs P2        a second policy beside the first, with the difference: gc vs refs\n"
	 "                 shows what only cluster lists keep, refs+weak vs refs what weak\n"
	 "                 references would keep (snapshot input)\n"
	 "  --limit N      lines to print (default 20; --top is the same); the total is said\n"
	 "  --format F     text (default), json or csv\n"},
	{"dominators", cmd_dominators, "an object's dominator chain and the objects it keeps alive",
	 "usage: ugc-analyze dominators INPUT OBJ [--depth N] [--limit N] [--policy P]\n"
	 "                              [--format text|json|csv]\n"
	 "\n"
	 "Prints OBJ's shallow and retained bytes, its dominator chain from the top (each\n"
	 "object on it is on every path that keeps OBJ alive), and the objects it dominates\n"
	 "directly, largest first, one level at a time.\n"
	 "\n"
	 "  --depth N      levels of dominated objects to show (default 1; 0 counts them)\n"
	 "  --limit N      objects shown per level and parent (default 10)\n"
	 "  --policy P     gc (default), refs, refs+weak or refs+weak+soft\n"
	 "  --format F     text (default), json or csv\n"},
	{"suspects", cmd_suspects, "leak suspects: garbage kept alive, and what keeps the most bytes",
	 "usage: ugc-analyze suspects INPUT [--threshold PCT] [--policy P] [--limit N]\n"
	 "                            [--format text|json|csv]\n"
	 "\n"
	 "First the engine's own leak signals: garbage objects still alive (Worlds and\n"
	 "Levels first), each with its shortest retention chain.  Then the suspects: the\n"
	 "objects, and the classes, whose retained size is at least PCT% of the reached\n"
	 "bytes, largest first.  For each, its accumulation point (from it, down the\n"
	 "dominator tree into the largest child while that child keeps at least 80% of\n"
	 "its parent's bytes), the classes that make up the bytes under that point, and\n"
	 "the shortest retention path to it; a class is shown through its largest\n"
	 "instance.  An object on the way down from a larger suspect to its accumulation\n"
	 "point is not listed again.  INPUT is a snapshot or a database written by analyze.\n"
	 "\n"
	 "  --threshold PCT  share of the reached bytes, above 0 and up to 100 (default 10)\n"
	 "  --policy P       gc (default), refs, refs+weak or refs+weak+soft\n"
	 "  --limit N        signals, object suspects and class suspects shown (default 10)\n"
	 "  --format F       text (default), json or csv (CSV: no chains; `path` has them)\n"},
	{"whatif", cmd_whatif, "what the GC would free if an object were garbage, cut off or unrooted",
	 "usage: ugc-analyze whatif INPUT CHANGE... [--format text|json|csv] [--limit N]\n"
	 "                          [--threads N] [--keep-flags LIST]\n"
	 "\n"
	 "Applies the changes to a copy of the heap, runs the whole GC again and reports\n"
	 "every object reachable before and unreachable after (count, bytes, by class),\n"
	 "any object made reachable (only cluster lists can do that), and for each object\n"
	 "the changes aim at that still survives, the retention chain that keeps it now.\n"
	 "INPUT is a snapshot or a database written by analyze; OBJ is an index (123 or\n"
	 "#123), a path name or a full name ('Class /Path').  Changes, any number:\n"
	 "\n"
	 "  --garbage OBJ          OBJ is marked as garbage (Garbage, RF_MirroredGarbage):\n"
	 "                         killable references to it are nulled, immutable ones\n"
	 "                         (an inner's Outer, an instance's Class) still keep it\n"
	 "  --cut OBJ              every reference into OBJ goes: r records of every kind,\n"
	 "                         g records, its instances' Class and inners' Outer, its\n"
	 "                         entries in cluster lists; and its root reasons (RootSet,\n"
	 "                         RefCounted, KeepFlags).  Frees what OBJ dominates\n"
	 "  --unroot OBJ           only OBJ's root reasons go, and the g records into it\n"
	 "  --null OBJ.PROPERTY    OBJ's r records named PROPERTY go\n"
	 "  --null OBJ:N           OBJ's N-th r record goes (from 0, in file order, as\n"
	 "                         'refs INPUT OBJ --out' lists them after Class and Outer)\n"
	 "  --drop-referencer NAME every g record of the FGCObject NAME goes\n"
	 "\n"
	 "  --format F        text (default), json or csv (no chains: see 'path')\n"
	 "  --limit N         classes listed, and objects aimed at shown (default 10, 0: all);\n"
	 "                    the totals are always printed\n"
	 "  --threads N       marking threads (default: the number of cores)\n"
	 "  --keep-flags LIST RF_ flags that keep objects alive, for both runs (default: the\n"
	 "                    input's mode's; '-' for none)\n"},
	{"info", cmd_info, "summarise a snapshot: header, counts, roots, top classes",
	 "usage: ugc-analyze info SNAPSHOT|DB [--format text|json] [--limit N]\n"
	 "\n"
	 "Prints the header fields and counts of objects, classes, packages, references by\n"
	 "kind, FGCObject referencers, clusters, roots by kind (as the GC would count them\n"
	 "before it runs), garbage objects and bytes, and the top classes by count and by\n"
	 "bytes.  Given a database written by analyze, says so and what it holds: its\n"
	 "schema version, source and mode, objects, references, roots by kind (as the\n"
	 "roots view), clusters and findings.\n"
	 "\n"
	 "  --format F   text (default) or json\n"
	 "  --limit N    how many classes in each top list (0 to 256, default 10)\n"},
	{"convert", cmd_convert, "convert between text (.ugct, .ugct.zst) and binary (.ugcs) snapshots",
	 "usage: ugc-analyze convert IN OUT [--force]\n"
	 "\n"
	 "Reads IN in any format (detected from its content; a V8 .heapsnapshot too) and\n"
	 "writes OUT in the format its name asks for: .ugcs binary, .ugct text, .ugct.zst\n"
	 "zstd-compressed text.\n"
	 "The text written is canonical; text -> binary -> text is lossless.\n"
	 "\n"
	 "  --force      overwrite OUT if it exists\n"},
	{"gen", cmd_gen, "generate a deterministic heap shaped like a real UE game's",
	 "usage: ugc-analyze gen --objects N [--seed S] [--mode game|editor] [--broken-clusters P]\n"
	 "                       [--evolve] -o FILE [--force]\n"
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
	 "  --evolve             write a series instead: FILE-0, FILE-1, FILE-2 (same process:\n"
	 "                       0 after its GC, a level loaded into reused slots, two purged\n"
	 "                       objects re-created, leaks planted; then the level unloaded and\n"
	 "                       GC'd) and FILE.plan, one 'STATUS Class /Path' line for every\n"
	 "                       object added, removed, replaced or leaked\n"
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
	fprintf(fp, "\nglobal options (before or after the command):\n"
		    "  --progress  show the progress line on standard error even when it is not a terminal\n"
		    "  --quiet     no progress line (analyze: print nothing on success)\n"
		    "\nInterrupted (SIGINT, SIGTERM, SIGHUP), a command removes its unfinished outputs and\n"
		    "exits 130, 143 or 129.\n");
	fprintf(fp, "\nSee ugc-analyze(1) and ugc-snapshot(5).\n");
}

/* Take the global options out of ARGV, wherever they are; the new argc. */
static int global_options(int argc, char **argv, int *progress)
{
	int n = 1;
	*progress = PROGRESS_AUTO;
	cli_quiet = 0;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--quiet") == 0)
			cli_quiet = 1;
		else if (strcmp(argv[i], "--progress") == 0)
			*progress = PROGRESS_ON;
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
	double start = now_seconds();
	progress_setup(progress);
	tempfiles_catch_signals();
	int rc = c->run(argc - 1, argv + 1);
	progress_phase(NULL);
	if (getenv("UGC_TRACE") && input_ready_at > 0) {
		fflush(stdout);
		fprintf(stderr, "trace: input ready in %.3f s, answered in %.3f s\n", input_ready_at - start,
			(answered_at > 0 ? answered_at : now_seconds()) - input_ready_at);
	}
	return rc;
}
