/* test_options.c — the option parser (cli/options.c): every kind of option,
 * the --opt=value, --opt value, -oVALUE and clustered forms, --no-FLAG,
 * "--", unknown options, missing and bad values, repeats; the help it
 * prints; and every real command's table (each option in its --help). */
#include <limits.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "tests/unit.h"

/* A command with one option of each kind. */
struct t_opts {
	int flag, verbose, mode, choice;
	long long num, big;
	const char *str;
	int calls;        /* the callback's count */
	long long last;   /* the callback's defval at its last call */
	const char *seen; /* its last argument */
};

static const char *t_callback(const option *o, void *field, const char *arg)
{
	struct t_opts *t = (struct t_opts *)((char *)field - offsetof(struct t_opts, calls));
	if (strcmp(arg, "bad") == 0)
		return "takes anything but bad";
	t->calls++;
	t->last = o->defval;
	t->seen = arg;
	return NULL;
}

static const char *const t_choices[] = {"alpha", "beta", "gamma"};

#define T struct t_opts
static const option t_options[] = {
	OPT_FLAG('f', "flag", T, flag, "a flag"),
	OPT_FLAG('v', NULL, T, verbose, "a short-only flag"),
	OPT_SET(0, "one", T, mode, 1, "mode one"),
	OPT_SET(0, "two", T, mode, 2, "mode two"),
	OPT_INT('n', "num", T, num, 1, 10, "N", "a number from 1 to 10\nsecond line"),
	OPT_INT(0, "big", T, big, 0, LLONG_MAX, "N", "any number"),
	OPT_STRING('s', "str", T, str, "TEXT", "any text"),
	OPT_GROUP("More:"),
	OPT_CHOICE(0, "choice", T, choice, t_choices, 3, "C", "alpha, beta or gamma"),
	OPT_CALLBACK(0, "call", T, calls, int, t_callback, 7, "X", "counted"),
	OPT_CALLBACK(0, "call-other", T, calls, int, t_callback, 9, "X", "counted too"),
	OPT_END(),
};
#undef T

static const command t_cmd = {
	"tcmd", NULL, "a test command", "usage: ugc-analyze tcmd A [B]\n", "Tests the parser.\n", t_options, 2,
	"(hint)",
};

/* One parse of the words in LINE (space-separated, "_" for an empty word):
 * its result, operands, stdout and stderr. */
struct run {
	int rc;
	struct t_opts o;
	const char *ops[2];
	char *out, *err;
	size_t outlen, errlen;
};

static void parse_line(const char *line, struct run *r)
{
	static char buf[512];
	static char *argv[32];
	snprintf(buf, sizeof buf, "tcmd %s", line);
	int argc = 0;
	for (char *tok = strtok(buf, " "); tok && argc < 31; tok = strtok(NULL, " "))
		argv[argc++] = strcmp(tok, "_") == 0 ? tok + 1 : tok;
	argv[argc] = NULL;
	memset(r, 0, sizeof *r);
	r->o.num = 5;
	r->o.choice = -1;
	FILE *out = open_memstream(&r->out, &r->outlen), *err = open_memstream(&r->err, &r->errlen);
	r->rc = parse_options_to(&t_cmd, argc, argv, &r->o, r->ops, out, err);
	fclose(out);
	fclose(err);
}

static void run_free(struct run *r)
{
	free(r->out);
	free(r->err);
}

/* LINE is a usage error whose one-line message contains WANT. */
static int usage_says(const char *line, const char *want)
{
	struct run r;
	parse_line(line, &r);
	int ok = r.rc == OPT_EXIT_USAGE && r.outlen == 0 && strstr(r.err, want) != NULL &&
		 strncmp(r.err, "ugc-analyze tcmd: ", 18) == 0 && strchr(r.err, '\n') == r.err + r.errlen - 1 &&
		 strstr(r.err, "(see 'ugc-analyze tcmd --help')") != NULL;
	if (!ok)
		printf("    '%s': rc %d, stderr: %s", line, r.rc, r.err);
	run_free(&r);
	return ok;
}

TEST(options_defaults_and_operands)
{
	struct run r;
	parse_line("a b", &r);
	CHECK(r.rc == 2);
	CHECK_STR(r.ops[0], "a");
	CHECK_STR(r.ops[1], "b");
	CHECK(r.o.flag == 0 && r.o.verbose == 0 && r.o.mode == 0 && r.o.num == 5 && r.o.str == NULL);
	CHECK(r.o.choice == -1 && r.o.calls == 0);
	CHECK(r.outlen == 0 && r.errlen == 0);
	run_free(&r);
	/* options and operands mix in any order */
	parse_line("--flag a --num 3 b", &r);
	CHECK(r.rc == 2 && r.o.flag == 1 && r.o.num == 3);
	CHECK_STR(r.ops[0], "a");
	CHECK_STR(r.ops[1], "b");
	run_free(&r);
	parse_line("", &r);
	CHECK(r.rc == 0);
	run_free(&r);
}

TEST(options_flags)
{
	struct run r;
	parse_line("--flag", &r);
	CHECK(r.rc == 0 && r.o.flag == 1);
	run_free(&r);
	parse_line("--flag --no-flag", &r);
	CHECK(r.rc == 0 && r.o.flag == 0);
	run_free(&r);
	parse_line("-f", &r);
	CHECK(r.rc == 0 && r.o.flag == 1 && r.o.verbose == 0);
	run_free(&r);
	/* clustered short flags, then one with its value attached or next */
	parse_line("-vf", &r);
	CHECK(r.rc == 0 && r.o.flag == 1 && r.o.verbose == 1);
	run_free(&r);
	parse_line("-fvn7", &r);
	CHECK(r.rc == 0 && r.o.flag == 1 && r.o.verbose == 1 && r.o.num == 7);
	run_free(&r);
	parse_line("-vn 8 x", &r);
	CHECK(r.rc == 1 && r.o.verbose == 1 && r.o.num == 8);
	CHECK_STR(r.ops[0], "x");
	run_free(&r);
	CHECK(usage_says("--flag=1", "'--flag' takes no value"));
	CHECK(usage_says("--no-flag=0", "'--no-flag' takes no value"));
	/* only flags have a --no- form */
	CHECK(usage_says("--no-num", "unknown option '--no-num'"));
	CHECK(usage_says("--no-one", "unknown option '--no-one'"));
	CHECK(usage_says("-fx", "unknown option '-x'"));
}

TEST(options_set_last_wins)
{
	struct run r;
	parse_line("--one", &r);
	CHECK(r.rc == 0 && r.o.mode == 1);
	run_free(&r);
	parse_line("--one --two", &r);
	CHECK(r.rc == 0 && r.o.mode == 2);
	run_free(&r);
	parse_line("--two --one", &r);
	CHECK(r.rc == 0 && r.o.mode == 1);
	run_free(&r);
}

TEST(options_int)
{
	struct run r;
	static const char *const good[][2] = {
		{"--num 3", "3"}, {"--num=4", "4"}, {"-n6", "6"}, {"-n 10", "10"}, {"--num 1", "1"}, {"--num 007", "7"},
		{"--num 2 --num 9", "9"}, /* repeated: the last one */
	};
	for (size_t k = 0; k < sizeof good / sizeof good[0]; k++) {
		parse_line(good[k][0], &r);
		CHECK(r.rc == 0 && r.o.num == atoll(good[k][1]));
		if (r.rc != 0 || r.o.num != atoll(good[k][1]))
			printf("    '%s' gave rc %d num %lld\n", good[k][0], r.rc, r.o.num);
		run_free(&r);
	}
	CHECK(usage_says("--num 0", "--num takes a number from 1 to 10, not '0'"));
	CHECK(usage_says("--num 11", "--num takes a number from 1 to 10, not '11'"));
	CHECK(usage_says("--num=-3", "not '-3'"));
	CHECK(usage_says("--num -3", "not '-3'"));
	CHECK(usage_says("--num +3", "not '+3'"));
	CHECK(usage_says("--num 3x", "not '3x'"));
	CHECK(usage_says("--num _", "not ''"));
	CHECK(usage_says("--num=", "not ''"));
	CHECK(usage_says("--num 99999999999999999999999", "not '99999999999999999999999'"));
	/* the whole range of a long long, and not one more */
	parse_line("--big 9223372036854775807", &r);
	CHECK(r.rc == 0 && r.o.big == LLONG_MAX);
	run_free(&r);
	parse_line("--big 0", &r);
	CHECK(r.rc == 0 && r.o.big == 0);
	run_free(&r);
	CHECK(usage_says("--big 9223372036854775808", "--big takes a number from 0 to 9223372036854775807"));
	CHECK(usage_says("--big 92233720368547758070", "not '92233720368547758070'"));
	CHECK(usage_says("--num", "--num needs a value"));
	CHECK(usage_says("a -n", "-n needs a value"));
	/* a bad value stops the parse before later options are taken */
	parse_line("--num 0 --flag", &r);
	CHECK(r.rc == OPT_EXIT_USAGE && r.o.flag == 0);
	run_free(&r);
}

TEST(options_string_and_choice)
{
	struct run r;
	parse_line("--str=a=b", &r);
	CHECK(r.rc == 0 && r.o.str && strcmp(r.o.str, "a=b") == 0);
	run_free(&r);
	/* the next word is the value, even when it looks like an option */
	parse_line("--str --flag", &r);
	CHECK(r.rc == 0 && r.o.flag == 0 && r.o.str && strcmp(r.o.str, "--flag") == 0);
	run_free(&r);
	parse_line("-sX --str _", &r);
	CHECK(r.rc == 0 && r.o.str && strcmp(r.o.str, "") == 0);
	run_free(&r);
	parse_line("--choice beta", &r);
	CHECK(r.rc == 0 && r.o.choice == 1);
	run_free(&r);
	parse_line("--choice=gamma --choice alpha", &r);
	CHECK(r.rc == 0 && r.o.choice == 0);
	run_free(&r);
	CHECK(usage_says("--choice delta", "--choice is alpha, beta or gamma, not 'delta'"));
	CHECK(usage_says("--choice Beta", "not 'Beta'"));
	CHECK(usage_says("--choice", "--choice needs a value"));
}

TEST(options_callback)
{
	struct run r;
	parse_line("--call x --call-other y --call z", &r);
	CHECK(r.rc == 0 && r.o.calls == 3 && r.o.last == 7);
	CHECK(r.o.seen && strcmp(r.o.seen, "z") == 0);
	run_free(&r);
	parse_line("--call-other=w", &r);
	CHECK(r.rc == 0 && r.o.calls == 1 && r.o.last == 9);
	run_free(&r);
	CHECK(usage_says("--call bad", "--call takes anything but bad, not 'bad'"));
}

TEST(options_unknown_and_operands)
{
	CHECK(usage_says("--nope", "unknown option '--nope'"));
	CHECK(usage_says("a --nope=3", "unknown option '--nope=3'"));
	CHECK(usage_says("-z", "unknown option '-z'"));
	/* no abbreviations */
	CHECK(usage_says("--fla", "unknown option '--fla'"));
	CHECK(usage_says("a b c", "too many arguments: 'c' (hint)"));
	struct run r;
	/* "--" ends the options; a lone "-" is an operand */
	parse_line("-- --flag -n", &r);
	CHECK(r.rc == 2 && r.o.flag == 0 && r.o.num == 5);
	CHECK(r.ops[0] && strcmp(r.ops[0], "--flag") == 0 && r.ops[1] && strcmp(r.ops[1], "-n") == 0);
	run_free(&r);
	parse_line("- --flag", &r);
	CHECK(r.rc == 1 && r.o.flag == 1 && r.ops[0] && strcmp(r.ops[0], "-") == 0);
	run_free(&r);
	parse_line("a -- --", &r);
	CHECK(r.rc == 2 && r.ops[1] && strcmp(r.ops[1], "--") == 0);
	run_free(&r);
}

TEST(options_help)
{
	struct run r;
	/* --help and -h anywhere before "--", even after a bad option */
	static const char *const asks[] = {"--help", "a -h", "--nope --help", "--num 0 -h"};
	for (size_t k = 0; k < sizeof asks / sizeof asks[0]; k++) {
		parse_line(asks[k], &r);
		CHECK(r.rc == OPT_EXIT_HELP && r.errlen == 0 && r.outlen > 0);
		run_free(&r);
	}
	parse_line("-- --help", &r);
	CHECK(r.rc == 1 && r.outlen == 0);
	run_free(&r);
	parse_line("--help", &r);
	const char *want =
		"usage: ugc-analyze tcmd A [B]\n"
		"\n"
		"Tests the parser.\n"
		"\n"
		"  -f, --flag      a flag\n"
		"  -v              a short-only flag\n"
		"  --one           mode one\n"
		"  --two           mode two\n"
		"  -n, --num N     a number from 1 to 10\n"
		"                  second line\n"
		"  --big N         any number\n"
		"  -s, --str TEXT  any text\n"
		"\n"
		"More:\n"
		"  --choice C      alpha, beta or gamma\n"
		"  --call X        counted\n"
		"  --call-other X  counted too\n";
	CHECK_STR(r.out, want);
	run_free(&r);
}

/* Every command: its --help names each of its options, each option has a
 * help text and a name no other option of the command has; --help exits 0,
 * an unknown option is a usage error. */
TEST(options_every_command)
{
	int ncommands = 0;
	for (const command *const *c = commands; *c; c++, ncommands++) {
		const command *cmd = *c;
		char *help;
		size_t len;
		FILE *fp = open_memstream(&help, &len);
		print_help(fp, cmd);
		fclose(fp);
		char want[80];
		snprintf(want, sizeof want, "usage: ugc-analyze %s ", cmd->name);
		CHECK(strncmp(help, want, strlen(want)) == 0);
		int nopts = 0;
		for (const option *o = cmd->options; o->kind != OPTK_END; o++) {
			CHECK(o->help && o->help[0]);
			if (o->kind == OPTK_GROUP)
				continue;
			nopts++;
			CHECK(o->long_name || o->short_name);
			/* "--name" (or "-x") in the help, followed by a space, comma or newline */
			char name[64];
			if (o->long_name)
				snprintf(name, sizeof name, "--%s", o->long_name);
			else
				snprintf(name, sizeof name, "-%c", o->short_name);
			int listed = 0;
			for (const char *at = help; (at = strstr(at, name)) != NULL; at++)
				listed |= at[-1] == ' ' && strchr(" ,\n", at[strlen(name)]) != NULL;
			if (!listed)
				printf("    %s --help does not list %s\n", cmd->name, name);
			CHECK(listed);
			for (const option *p = cmd->options; p < o; p++)
				if (p->kind != OPTK_GROUP) {
					CHECK(!(o->long_name && p->long_name && strcmp(o->long_name, p->long_name) == 0));
					CHECK(!(o->short_name && o->short_name == p->short_name));
				}
		}
		CHECK(nopts > 0);
		free(help);
		/* values are never written on these two */
		char values[1024];
		FILE *out = open_memstream(&help, &len), *err;
		char *msg;
		size_t msglen;
		err = open_memstream(&msg, &msglen);
		char *help_argv[] = {(char *)cmd->name, "--help", NULL};
		CHECK(parse_options_to(cmd, 2, help_argv, values, NULL, out, err) == OPT_EXIT_HELP);
		char *bad_argv[] = {(char *)cmd->name, "--no-such-option", NULL};
		CHECK(parse_options_to(cmd, 2, bad_argv, values, NULL, out, err) == OPT_EXIT_USAGE);
		fclose(out);
		fclose(err);
		CHECK(strstr(msg, "unknown option '--no-such-option'") != NULL);
		free(help);
		free(msg);
	}
	CHECK(ncommands == 21);
}
