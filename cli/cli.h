/* cli.h — the command table and small helpers shared by the commands.
 * Each command lives in its own cli/cmd_NAME.c, git-builtin style, and
 * returns the process exit status: 0 success, 1 failure, 2 usage error. */
#ifndef UGC_CLI_H
#define UGC_CLI_H

#include <stdio.h>

#include "snapshot/snapshot.h"
#include "cli/options.h"
#include "analysis/analysis.h"

/* Each command's run function and its description (options.h): both in
 * its own cli/cmd_NAME.c. */
int cmd_convert(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_analyze(int argc, char **argv);
int cmd_sql(int argc, char **argv);
int cmd_refs(int argc, char **argv);
int cmd_path(int argc, char **argv);
int cmd_why(int argc, char **argv);
int cmd_clusters(int argc, char **argv);
int cmd_findings(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_whatif(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_dominators(int argc, char **argv);
int cmd_suspects(int argc, char **argv);
int cmd_gccost(int argc, char **argv);
int cmd_cut(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_history(int argc, char **argv);
int cmd_worlds(int argc, char **argv);
int cmd_report(int argc, char **argv);
extern const command command_analyze, command_sql, command_refs, command_path, command_why, command_clusters,
	command_findings, command_diff, command_top, command_dominators, command_suspects, command_whatif, command_cut,
	command_gccost, command_worlds, command_check, command_history, command_report, command_info, command_convert,
	command_gen;

/* Every command, in the order ugc-analyze --help lists them; NULL-terminated. */
extern const command *const commands[];
const command *find_command(const char *name);

/* Print "ugc-analyze: message" to stderr (in display form) and return 1,
 * the failure exit status, so a command says `return error(...)` (git's
 * word: an error returns; nothing in the tool exits behind the caller's
 * back).  Usage errors go through usage_error() (options.h), which
 * returns 2. */
int error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

enum out_format { FMT_TEXT, FMT_JSON, FMT_CSV };
/* `info` on an analysis database (cmd_info_db.c). */
int info_database(const char *path, enum out_format fmt);

/* Options several commands share (options.h), into an int or a const char *
 * field F of T: --format text|json|csv, --policy P (-1 when not given is the
 * caller's default), and the --name/--class selectors of select_objects();
 * --limit N into a long long field (see LIMIT_UNSET below). */
#define OPT_FORMAT(T, f, help) OPT_CHOICE(0, "format", T, f, format_choices, 3, "F", help)
#define OPT_POLICY(T, f, help) OPT_CHOICE(0, "policy", T, f, dom_policy_names, POLICY_COUNT, "P", help)
#define OPT_NAME_GLOB(T, f) OPT_STRING(0, "name", T, f, "GLOB", "every object whose name matches GLOB (shell wildcards)")
#define OPT_CLASS_NAME(T, f) OPT_STRING(0, "class", T, f, "NAME", "every object of class NAME (with --name: both)")
#define OPT_LIMIT_RANGE(T, f, lo, hi, help) OPT_INT(0, "limit", T, f, lo, hi, "N", help)
#define OPT_LIMIT(T, f, help) OPT_LIMIT_RANGE(T, f, 0, 1LL << 40, help)
/* --top, the old name of --limit where a command had it (same field and range) */
#define OPT_TOP_ALIAS(T, f, lo, hi) OPT_INT(0, "top", T, f, lo, hi, "N", "the old name of --limit")

/* CSV string output. */
void csv_str(FILE *fp, const char *s);
/* S as a JSON string, quoted and escaped: valid UTF-8 whatever S holds. */
void json_str(FILE *fp, const char *s);
/* The member every JSON object standing for object O carries on a V8 heap,
 * written after its "path": ',"node_id":ID' (null for the pool below
 * first-gc-index, which has none); nothing on any other heap, nor for O
 * NULL.  The one place the key is written: every writer calls it. */
void json_node_id(FILE *fp, const obj_info *o);
/* The display form of a name from a snapshot or database (escape.h), for
 * printing as text or CSV: valid until four more calls. */
const char *disp(const char *s);
/* Parse a non-negative integer option value; -1 when bad. */
long long parse_count(const char *s, long long max);

/* --limit N, the one row cap of the listing commands (OPT_LIMIT): its
 * field starts at LIMIT_UNSET; 0 means all. */
#define LIMIT_UNSET (-1LL)
/* The rows a listing shows: LIMIT when given (0: all), else TEXT_DEFAULT
 * in text output and all in JSON and CSV.  SIZE_MAX stands for all. */
size_t listing_limit(long long limit, enum out_format fmt, size_t text_default);
/* An object as text output names it: "Class /Path/Name.Inner" on an Unreal
 * heap; on a V8 heap as DevTools does, "Constructor name @ID" ("Object
 * @68543", "(closure) ResolverBase @68379", "(array) @67699").  Valid for
 * seven more calls. */
struct view;
struct obj_info;
const char *object_text(const struct view *v, const struct obj_info *o);
/* How many of a V8 node name's LEN bytes text shows: all up to 100; past
 * that 97, back to a character's start, for "..." to follow (as DevTools
 * cuts a long string's text; JSON and CSV carry it whole). */
size_t v8_name_shown(const char *name, size_t len);
/* JSON documents (ugc-analyze(1), JSON OUTPUT).  Every command's JSON is
 * one object that begins {"format_version":1,"command":"CMD": json_begin()
 * prints that, the command's fields follow, each after a comma, and
 * json_end() closes it.  Keys are snake_case and stay as they are while
 * format_version does; a change that renames or removes one raises it.
 * A listing is a field KEY:{"total":M,"shown":N,"items":[...]} (N < M
 * when --limit cut it): json_list_begin() prints up to the '[', the
 * caller the items and "]}". */
#define JSON_FORMAT_VERSION 1
void json_begin(const char *command);
void json_end(void);
/* "NAME": with NAME's '-' and ' ' as '_' (a root or finding kind made a key) */
void json_key(const char *name);
void json_list_begin(const char *key, size_t total, size_t shown);
/* What this GC does to an object: "purged" (unreachable: destroyed),
 * "garbage" (marked garbage but kept alive), "survives". */
const char *fate_name(int reachable, int garbage);
/* The text line that says what a capped listing left out: "showing N of
 * TOTAL WHAT (--limit 0 shows all)" when N < TOTAL, nothing otherwise. */
void print_shown(size_t shown, size_t total, const char *what);

/* Global options, accepted before or after the command name by every
 * command (main.c takes them out of argv): --quiet sets CLI_QUIET (no
 * progress; analyze prints nothing on success either), --progress forces
 * the progress line, --bytes sets CLI_BYTES (below). */
extern int cli_quiet;
/* --bytes sets CLI_BYTES: text output then prints sizes as exact byte
 * counts and counts without separators, as JSON and CSV always do. */
extern int cli_bytes;
/* Text output's numbers (base/human.h): a size "38.4 MiB", a signed size
 * "+1.5 KiB", a count "65,536", a signed count "-1,024"; with --bytes the
 * plain integers ("+0" for a zero change).  Each is valid until sixteen more
 * calls of any of them. */
const char *size_text(unsigned long long bytes);
const char *size_diff_text(long long bytes);
const char *count_text(unsigned long long n);
const char *count_diff_text(long long n);
/* The progress line (progress.c): AUTO draws it when stderr is a terminal. */
enum { PROGRESS_AUTO, PROGRESS_ON, PROGRESS_OFF };
void progress_setup(int mode);

/* Before the work: can the output PATH be written (fileio.h, outfile_check)?
 * Says on stderr which leftovers of killed runs it removed.  0, or 1 after
 * printing the error. */
int check_output(const char *path, int force);

/* Load a snapshot, printing the error; 0 on success. */
int load_or_die(const char *path, heap *h);


/* The query commands' input: a database written by analyze, or a snapshot
 * analysed in memory.  NULL after printing the error. */
struct view;
struct view *open_input(const char *path);
extern double input_ready_at; /* when open_input returned (UGC_TRACE) */
/* Note the answer's end, then close V (so the trace times the answer, not the cleanup). */
void close_input(struct view *v);
extern double answered_at;
/* SEL (one object) or GLOB/CLS (many) into a malloc'd list; 0, or 1 after
 * printing the reason (unknown, ambiguous, none matched). */
int select_objects(struct view *v, const char *sel, const char *glob, const char *cls, obj_t **out, size_t *n);
/* The selection's usage rules: an INPUT, and an OBJ or --name/--class but
 * not both.  0, or 2 after the usage message. */
int selection_usage(const char *cmd, const char *input, const char *sel, const char *glob, const char *cls);
/* What `path` prints for X by default: its status and its shortest
 * retention chain (JSON: one object, preceded by a comma unless FIRST; CSV:
 * the chain's rows). */
int path_shortest(struct view *v, obj_t x, enum out_format fmt, int first);

/* What path and why share (explain.c). */
const char *root_reason(int root_kind);
/* The same for a V8 heap, in V8's words. */
const char *v8_root_reason(int root_kind);
/* Why X (unreachable) is not kept: each referencer and why it does not
 * count (text only).  0, or 1 after printing the error. */
int explain_unreachable(struct view *v, obj_t x, enum out_format fmt);
void print_object_json(const obj_info *o);
/* The arguments of path and why (why takes no mode, --limit or --external). */
typedef struct query_args {
	const char *input, *sel, *glob, *cls;
	int fmt;                 /* enum out_format, or FMT_DOT (path) */
	int roots, all, direct;  /* path's modes: at most one */
	int external;
	long long limit;         /* path --limit (or --max) N; 0: all, LIMIT_UNSET: not given */
} query_args;
#define FMT_DOT 3 /* path's --format dot */
/* Parse CMD's arguments into Q: -1 to go on, else the exit status. */
int query_parse(const command *cmd, int argc, char **argv, query_args *q);
/* Open Q's input, resolve its selection and run ONE on each object, inside
 * a JSON array or under CSV_HEADER as FMT asks.  The exit status. */
typedef int (*one_fn)(struct view *v, obj_t x, int first, void *ctx);
int for_selected(const char *cmd, const query_args *q, enum out_format fmt, const char *csv_header, one_fn one, void *ctx);

/* A cut reference (analysis/cut.h) in words into BUF (cut_words.c): an "r"
 * record's property and kind (V8: the edge's name), a "g" record's
 * FGCObject, a cluster list's entry, or what a root's removal takes (KEEP:
 * the keep flags in force). */
struct heap;
struct cut_ref;
void cut_ref_words(const struct heap *h, int v8, const struct cut_ref *c, uint32_t keep, char *buf, size_t cap);

/* A name or chain of leak mode in display form, on a V8 heap each object
 * as text names it (cmd_diff.c): malloc'd when *OWNED (free it), else IN's
 * display form. */
const char *v8_text(const char *in, int v8, int *owned);

/* Retention chains printed (chain_print.c): the engine's reference-chain
 * layout (parallel references on a line under their hop), one JSON object,
 * CSV rows (chain, hop, from, kind, property, to, path: one a reference),
 * and a Graphviz digraph with each object and each pair of objects once. */
void print_chain_text(view *v, FILE *fp, const chain *c);
/* S as a Graphviz string, quoted, '\n' kept as a line break. */
void dot_str(FILE *fp, const char *s);
void print_chain_json(view *v, FILE *fp, const chain *c);
void print_chains_csv(view *v, FILE *fp, const chains *cs);
void print_chains_dot(view *v, FILE *fp, const chains *cs, obj_t target);
/* The engine's object tags: "(root) (native) ..." (each with a trailing space). */
void object_tags(const obj_info *o, char *buf, size_t cap);

#endif
