/* cmd_history.c — `ugc-analyze history`: a history database of builds
 * (sql/history.h).  `history add INPUT HISTORY` appends INPUT's summary
 * (cli/measures.h); `history HISTORY [--class NAME | --package NAME |
 * --finding KIND | --total]` prints one series over the builds. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/measures.h"
#include "base/base.h"

struct history_opts {
	const char *label, *cls, *package, *finding;
	int total, format;
	long long time; /* --time: seconds since 1970 (-1: now) */
};

#define H struct history_opts
static const option options[] = {
	OPT_GROUP("history add INPUT HISTORY"),
	OPT_STRING(0, "label", H, label, "L", "the build's label (default: INPUT's name)"),
	OPT_INT(0, "time", H, time, 0, 1LL << 40, "T", "the build's time, seconds since 1970 (default: now)"),
	OPT_GROUP("history HISTORY: one series (default --total)"),
	OPT_STRING(0, "class", H, cls, "NAME", "the retained bytes and objects of class NAME"),
	OPT_STRING(0, "package", H, package, "PATH", "those of package PATH"),
	OPT_STRING(0, "finding", H, finding, "KIND", "the count of findings of kind KIND"),
	OPT_FLAG(0, "total", H, total, "the objects reached and their bytes"),
	OPT_FORMAT(H, format, "text (default), json or csv"),
	OPT_END(),
};
#undef H

const command command_history = {
	"history", cmd_history, "a history of builds: append one's summary, print a series over them",
	"usage: ugc-analyze history add INPUT HISTORY [--label L] [--time T]\n"
	"       ugc-analyze history HISTORY [--class NAME | --package PATH | --finding KIND | --total]\n"
	"                                   [--format text|json|csv]\n",
	"history add appends INPUT's summary (a snapshot or database: the objects reached\n"
	"and their bytes, retained bytes and objects per class and per package, findings\n"
	"per kind) to the history database HISTORY, made when absent.  history HISTORY\n"
	"prints one of those series over the builds, oldest first, with each change; the\n"
	"trend rules of check --history read the same series.\n",
	options, 3, "history add INPUT HISTORY, or history HISTORY",
};

/* The series printer's state. */
typedef struct series_ctx {
	int fmt, kind;
	size_t n;
	uint64_t prev_count, prev_retained;
} series_ctx;

static int count_present(void *arg, const hist_point *p)
{
	*(int64_t *)arg += p->present;
	return 0;
}

static int print_point(void *arg, const hist_point *p)
{
	series_ctx *s = arg;
	char when[32] = "";
	time_t t = (time_t)p->time;
	struct tm tm;
	if (gmtime_r(&t, &tm))
		strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
	if (s->fmt == FMT_CSV) {
		printf("%lld,%lld,", (long long)p->build, (long long)p->time);
		csv_str(stdout, p->label);
		printf(",%llu,%llu\n", (unsigned long long)p->count, (unsigned long long)p->retained);
	} else if (s->fmt == FMT_JSON) {
		printf("%s{\"build\":%lld,\"time\":%lld,\"label\":", s->n ? "," : "", (long long)p->build,
		       (long long)p->time);
		json_str(stdout, p->label);
		printf(",\"count\":%llu,\"retained\":%llu}", (unsigned long long)p->count,
		       (unsigned long long)p->retained);
	} else if (s->kind == HIST_FINDING) {
		printf("%6lld  %-19s  %12s %12s  %s\n", (long long)p->build, when, count_text(p->count),
		       s->n ? count_diff_text((long long)p->count - (long long)s->prev_count) : "", disp(p->label));
	} else {
		printf("%6lld  %-19s  %12s %12s %14s %14s  %s\n", (long long)p->build, when, count_text(p->count),
		       s->n ? count_diff_text((long long)p->count - (long long)s->prev_count) : "",
		       size_text(p->retained),
		       s->n ? size_diff_text((long long)p->retained - (long long)s->prev_retained) : "",
		       disp(p->label));
	}
	s->prev_count = p->count;
	s->prev_retained = p->retained;
	s->n++;
	return 0;
}

static int history_add_cmd(const struct history_opts *o, const char *input, const char *path)
{
	char err[1024];
	measures m;
	int64_t builds;
	if (is_sqlite_file(input) && history_builds(input, &builds, err, sizeof err) == 0)
		return error("%s: a history database, not a snapshot or an analysis database: history add takes "
			     "INPUT first, then HISTORY (history add INPUT HISTORY)", disp(input));
	if (measures_load(input, &m))
		return 1;
	const char *base = strrchr(input, '/');
	m.b.label = o->label ? o->label : base ? base + 1 : input;
	m.b.source = input;
	m.b.time = o->time >= 0 ? o->time : (int64_t)time(NULL);
	int64_t id;
	int rc = 0;
	if (history_add(path, &m.b, &id, err, sizeof err))
		rc = error("%s", err);
	else if (!cli_quiet)
		printf("%s: build %lld, %s, from %s: %s objects reached, %s\n", disp(path), (long long)id, disp(m.b.label),
		       disp(input), count_text(m.b.rows[0].count), size_text(m.b.rows[0].retained));
	measures_free(&m);
	return rc;
}

int cmd_history(int argc, char **argv)
{
	struct history_opts o = {.format = FMT_TEXT, .time = -1};
	const char *ops[3] = {0};
	int n = parse_options(&command_history, argc, argv, &o, ops);
	if (n < 0)
		return OPT_EXIT_STATUS(n);
	if (n >= 1 && strcmp(ops[0], "add") == 0) {
		if (n != 3)
			return usage_error("history", "history add takes INPUT and HISTORY");
		if (o.cls || o.package || o.finding || o.total)
			return usage_error("history", "a series option is for history HISTORY, not history add");
		return history_add_cmd(&o, ops[1], ops[2]);
	}
	if (n != 1)
		return usage_error("history", n ? "too many arguments (history add INPUT HISTORY, or history HISTORY)"
					    : "needs HISTORY (or add INPUT HISTORY)");
	if (o.label || o.time >= 0)
		return usage_error("history", "--label and --time are for history add");
	if (!!o.cls + !!o.package + !!o.finding + o.total > 1)
		return usage_error("history", "one series at a time: --class, --package, --finding or --total");
	int kind = o.cls ? HIST_CLASS : o.package ? HIST_PACKAGE : o.finding ? HIST_FINDING : HIST_TOTAL;
	const char *name = o.cls ? o.cls : o.package ? o.package : o.finding ? o.finding : "";
	series_ctx s = {o.format, kind, 0, 0, 0};
	int64_t builds;
	char err[1024];
	if (history_builds(ops[0], &builds, err, sizeof err))
		return error("%s", err);
	/* a class or package no build has is a misspelling, not a series of zeros */
	int64_t present = 0;
	if ((kind == HIST_CLASS || kind == HIST_PACKAGE) && builds > 0) {
		if (history_series(ops[0], kind, name, count_present, &present, err, sizeof err))
			return error("%s", err);
		if (present == 0)
			return error("%s: no build has %s '%s' (names match exactly, as 'top --by %s' prints them)",
				     disp(ops[0]), hist_kind_names[kind], disp(name), hist_kind_names[kind]);
	}
	if (o.format == FMT_CSV)
		printf("build,time,label,%s,retained\n", kind == HIST_FINDING ? "count" : "objects");
	else if (o.format == FMT_JSON) {
		json_begin("history");
		printf(",\"series\":\"%s\",\"name\":", hist_kind_names[kind]);
		json_str(stdout, name);
		json_list_begin("builds", (size_t)builds, (size_t)builds);
	} else {
		printf("%s%s%s over %lld build%s\n", hist_kind_names[kind], kind == HIST_TOTAL ? "" : " ",
		       kind == HIST_TOTAL ? "" : disp(name), (long long)builds, plural_s((uint64_t)builds));
		if (kind == HIST_FINDING)
			printf("%6s  %-19s  %12s %12s  %s\n", "build", "time (UTC)", "findings", "change", "label");
		else
			printf("%6s  %-19s  %12s %12s %14s %14s  %s\n", "build", "time (UTC)", "objects", "change", "retained",
			       "change", "label");
	}
	if (history_series(ops[0], kind, name, print_point, &s, err, sizeof err))
		return error("%s", err);
	if (o.format == FMT_JSON) {
		printf("]}");
		json_end();
	}
	return 0;
}
