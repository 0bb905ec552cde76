/* options.h — one command-line parser for every command, after git's
 * parse-options: each command describes its options in a const table
 * (name, kind, where the value goes, help), and parse_options() reads argv
 * against it and prints the command's --help from it.
 *
 * Syntax accepted: --name VALUE, --name=VALUE, -o VALUE, -oVALUE; short
 * flags cluster (-qf); a flag is negated by --no-NAME; "--" ends the
 * options (everything after it is an operand); a lone "-" is an operand.
 * --help or -h anywhere before "--" prints the help.  A repeated option
 * overwrites the earlier value (callbacks are called once per use).
 *
 * Values are written into one struct per command: an option names its
 * field by offset (OPT_FIELD), so a table is a static const at file scope,
 * shared by every run of the command (and by the help and the tests), and
 * the defaults are that struct's initial values. */
#ifndef UGC_OPTIONS_H
#define UGC_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

enum opt_kind {
	OPTK_END,      /* ends a table */
	OPTK_GROUP,    /* no option: a heading in the help (help is the heading) */
	OPTK_FLAG,     /* int field: 1, or 0 for --no-NAME */
	OPTK_SET,      /* int field: set to DEFVAL (several options, one field) */
	OPTK_INT,      /* long long field: a decimal number from MIN to MAX */
	OPTK_STRING,   /* const char * field: the argument itself */
	OPTK_CHOICE,   /* int field: the index of the argument in CHOICES */
	OPTK_CALLBACK, /* CALLBACK(option, field, argument) */
};

typedef struct option option;
/* Takes ARG for option O into FIELD; NULL when ARG is good, else what the
 * option takes ("takes a percentage above 0, up to 100"), which the parser
 * prints as "--NAME takes ..., not 'ARG'". */
typedef const char *(*opt_callback)(const option *o, void *field, const char *arg);

struct option {
	enum opt_kind kind;
	char short_name;          /* 0: none */
	const char *long_name;    /* NULL: none */
	size_t offset;            /* of the field in the command's struct */
	const char *argh;         /* the value's name in the help ("N", "FILE"); NULL for flags */
	const char *help;         /* may hold '\n': continuation lines are indented */
	long long min, max;       /* OPTK_INT */
	const char *const *choices; /* OPTK_CHOICE */
	int nchoices;
	long long defval;         /* OPTK_SET: the value; OPTK_CALLBACK: free for its use */
	opt_callback callback;
};

/* The offset of FIELD in struct type T, checked to be of type TYPE. */
#define OPT_FIELD(T, field, type) (offsetof(T, field) + 0 * sizeof(_Generic(((T *)0)->field, type: 1)))

#define OPT_FLAG(s, l, T, f, h) {OPTK_FLAG, s, l, OPT_FIELD(T, f, int), NULL, h, 0, 0, NULL, 0, 0, NULL}
#define OPT_SET(s, l, T, f, v, h) {OPTK_SET, s, l, OPT_FIELD(T, f, int), NULL, h, 0, 0, NULL, 0, v, NULL}
#define OPT_INT(s, l, T, f, lo, hi, a, h) {OPTK_INT, s, l, OPT_FIELD(T, f, long long), a, h, lo, hi, NULL, 0, 0, NULL}
#define OPT_STRING(s, l, T, f, a, h) {OPTK_STRING, s, l, OPT_FIELD(T, f, const char *), a, h, 0, 0, NULL, 0, 0, NULL}
#define OPT_CHOICE(s, l, T, f, c, n, a, h) {OPTK_CHOICE, s, l, OPT_FIELD(T, f, int), a, h, 0, 0, c, n, 0, NULL}
#define OPT_CALLBACK(s, l, T, f, type, cb, v, a, h) \
	{OPTK_CALLBACK, s, l, OPT_FIELD(T, f, type), a, h, 0, 0, NULL, 0, v, cb}
#define OPT_GROUP(h) {OPTK_GROUP, 0, NULL, 0, NULL, h, 0, 0, NULL, 0, 0, NULL}
#define OPT_END() {OPTK_END, 0, NULL, 0, NULL, NULL, 0, 0, NULL, 0, 0, NULL}

/* The --format choices most commands take, in enum out_format's order. */
extern const char *const format_choices[3]; /* text, json, csv */
/* --mode: in enum gc_mode's order. */
extern const char *const mode_choices[2]; /* game, editor */

/* A command: its name, what it runs, and everything its --help says. */
typedef struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;       /* one line, for ugc-analyze --help */
	const char *synopsis;      /* the "usage: ..." lines, each ending in '\n' */
	const char *about;         /* what it does: paragraphs ending in '\n' */
	const option *options;     /* ends with OPT_END() */
	int max_operands;          /* arguments that are not options */
	const char *operands_hint; /* said after "too many arguments", or NULL */
} command;

/* What parse_options returns instead of a count. */
#define OPT_EXIT_HELP (-1)  /* --help was printed: exit 0 */
#define OPT_EXIT_USAGE (-2) /* a usage error was printed: exit 2 */
/* The exit status for one of those. */
#define OPT_EXIT_STATUS(n) ((n) == OPT_EXIT_HELP ? 0 : 2)

/* Parse ARGV[1..ARGC) (ARGV[0] is the command's name) for CMD: each
 * option's value into its field of VALUES, the operands, in order, into
 * OPERANDS (room for CMD->max_operands).  Returns the number of operands,
 * or OPT_EXIT_HELP after printing the help to stdout, or OPT_EXIT_USAGE
 * after printing one line to stderr:
 *   ugc-analyze CMD: MESSAGE (see 'ugc-analyze CMD --help') */
int parse_options(const command *cmd, int argc, char **argv, void *values, const char **operands);
/* The same, printing to OUT and ERR. */
int parse_options_to(const command *cmd, int argc, char **argv, void *values, const char **operands, FILE *out,
		     FILE *err);

/* Print "ugc-analyze CMD: MESSAGE (see 'ugc-analyze CMD --help')" to
 * stderr, for a usage error found after parsing; returns 2, the usage exit
 * status. */
int usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Print CMD's --help: synopsis, about, then one line an option, from its table. */
void print_help(FILE *fp, const command *cmd);

#endif
