/* cmd_check.c — `ugc-analyze check INPUT --rules FILE`: CI gates.  Each
 * rule of the rules file (cli/rules.h, ugc-rules(5)) is measured on INPUT
 * (a snapshot or a database), against --baseline for growth rules and over
 * --history for trend rules, and passes or fails; text or JSON on stdout,
 * JUnit XML into --junit OUT.  Exit 0 all passed, 1 one failed, 2 usage or
 * rules-file error. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/measures.h"
#include "cli/rules.h"
#include "base/base.h"

/* What one rule measured.  VALUE is the subject's measure (for '*' the
 * worst one's, named by NAME); BASE its baseline value (growth); GROWTH the
 * change in the rule's unit (bytes, a count, or hundredths of a percent;
 * INFINITE when the baseline was 0); RUN a trend's longest run of builds in
 * a row that grew; ABSENT says so for a name the input lacks. */
typedef struct verdict {
	int pass, infinite;
	int absent; /* a named class or package INPUT does not have (a typo in a rule passes silently otherwise) */
	uint64_t value, base, run;
	int64_t growth;
	char *name; /* malloc'd, or NULL */
} verdict;

static const int subject_kind[] = {HIST_TOTAL, HIST_CLASS, HIST_PACKAGE, HIST_FINDING, HIST_TOTAL}; /* by SUBJ_ (a leak group has no rows) */
static const char *const rule_kind_names[] = {"budget", "growth", "forbid", "trend"};
static const char *const subject_names[] = {"total", "class", "package", "finding", "leak-group"};
static const char *const measure_names[] = {"retained", "count"};

/* The sum of the rows [at, at + n) by MEASURE (at most 2^63 - 1: a
 * hostile database's values cannot wrap it). */
static uint64_t sum_rows(const measures *m, size_t at, size_t n, int measure)
{
	uint64_t s = 0;
	for (size_t i = at; i < at + n; i++) {
		uint64_t x = measure == MEASURE_RETAINED ? m->b.rows[i].retained : m->b.rows[i].count;
		s = x > (uint64_t)INT64_MAX - s ? (uint64_t)INT64_MAX : s + x;
	}
	return s;
}

/* A - B, both at most 2^63 - 1 (sum_rows), without overflow. */
static int64_t difference(uint64_t a, uint64_t b)
{
	return a >= b ? (int64_t)(a - b) : -(int64_t)(b - a);
}

static uint64_t value_of(const measures *m, const rule *r, const char *name)
{
	size_t at, n = r->subject == SUBJ_TOTAL ? measures_kind(m, HIST_TOTAL, &at)
						: measures_find(m, subject_kind[r->subject], name, &at);
	return sum_rows(m, at, n, r->measure);
}

/* Growth of NAME under R from BASE: into V; does it pass? */
static int grow(const measures *cur, const measures *base, const rule *r, const char *name, verdict *v)
{
	v->value = value_of(cur, r, name);
	v->base = value_of(base, r, name);
	int64_t d = difference(v->value, v->base);
	v->infinite = 0;
	if (!r->percent) {
		v->growth = d;
		return d <= 0 || (uint64_t)d <= r->limit;
	}
	if (v->base == 0) {
		v->infinite = v->value > 0;
		v->growth = 0;
		return !v->infinite;
	}
	long double g = (long double)d * 10000 / (long double)v->base; /* hundredths of a percent */
	v->growth = g > 1e15L ? INT64_C(1000000000000000) : g < -1e15L ? -INT64_C(1000000000000000) : (int64_t)g;
	return v->growth <= (int64_t)r->limit;
}

/* A trend's running state over history_series's points. */
typedef struct trend_ctx {
	int measure;
	char *name, *worst; /* the current series, the one with the longest run */
	uint64_t prev, run, best;
	int have_prev, oom;
} trend_ctx;

static int trend_point(void *arg, const hist_point *p)
{
	trend_ctx *t = arg;
	uint64_t x = t->measure == MEASURE_RETAINED ? p->retained : p->count;
	if (!t->name || strcmp(t->name, p->name) != 0) {
		free(t->name);
		if (!(t->name = strdup(p->name))) {
			t->oom = 1;
			return 1;
		}
		t->have_prev = 0;
		t->run = 0;
	}
	t->run = t->have_prev && x > t->prev ? t->run + 1 : 0;
	t->prev = x;
	t->have_prev = 1;
	if (!t->worst || t->run > t->best) {
		free(t->worst);
		if (!(t->worst = strdup(p->name))) {
			t->oom = 1;
			return 1;
		}
		t->best = t->run;
	}
	return 0;
}

/* Measure R into V: 0, or 1 after printing an error.  LEAKS: leak mode's
 * groups, for a leak-group budget. */
static int judge(const rule *r, const measures *cur, const measures *base, const leak_worst *leaks,
		 const char *history, verdict *v)
{
	*v = (verdict){0};
	if (r->subject == SUBJ_LEAK_GROUP) { /* the largest group by the measure */
		int by_bytes = r->measure == MEASURE_RETAINED;
		v->value = by_bytes ? leaks->retained : leaks->objects;
		const char *chain = by_bytes ? leaks->retained_chain : leaks->objects_chain;
		if (leaks->groups && !(v->name = strdup(chain ? chain : "")))
			return error("out of memory");
		v->pass = v->value <= r->limit;
		return 0;
	}
	int each = r->name && strcmp(r->name, "*") == 0;
	if (r->kind == RULE_TREND) {
		trend_ctx t = {.measure = r->measure};
		char err[512];
		int rc = history_series(history, subject_kind[r->subject], r->subject == SUBJ_TOTAL ? "" : each ? NULL : r->name,
					trend_point, &t, err, sizeof err);
		free(t.name);
		if (rc || t.oom) {
			free(t.worst);
			return rc ? error("%s", err) : error("out of memory");
		}
		v->run = t.best;
		v->name = t.worst;
		v->pass = t.best < r->limit;
		return 0;
	}
	if (r->kind == RULE_GROWTH && each) {
		size_t at, n = measures_kind(cur, subject_kind[r->subject], &at);
		int have = 0;
		v->pass = 1;
		for (size_t i = at; i < at + n; i++) {
			if (i > at && strcmp(cur->b.rows[i].name, cur->b.rows[i - 1].name) == 0)
				continue; /* one name once (it sums its rows) */
			verdict w = {0};
			int ok = grow(cur, base, r, cur->b.rows[i].name, &w);
			/* the worst: a failing one before a passing one, then the larger growth */
			int better = !have || (!ok && v->pass) ||
				     (ok == v->pass && (w.infinite > v->infinite ||
							(w.infinite == v->infinite && w.growth > v->growth)));
			if (better) {
				*v = w;
				v->pass = ok;
				v->name = (char *)cur->b.rows[i].name;
				have = 1;
			}
		}
		if (v->name && !(v->name = strdup(v->name)))
			return error("out of memory");
		return 0;
	}
	if ((r->subject == SUBJ_CLASS || r->subject == SUBJ_PACKAGE) && !each) {
		size_t at;
		v->absent = measures_find(cur, subject_kind[r->subject], r->name, &at) == 0;
	}
	if (r->kind == RULE_GROWTH) {
		v->pass = grow(cur, base, r, r->name, v);
		return 0;
	}
	if (each) { /* a budget on every class or package: the largest */
		size_t at, n = measures_kind(cur, subject_kind[r->subject], &at);
		const char *worst = NULL;
		for (size_t i = at; i < at + n; i++) {
			uint64_t x = value_of(cur, r, cur->b.rows[i].name);
			if (!worst || x > v->value) {
				v->value = x;
				worst = cur->b.rows[i].name;
			}
		}
		if (worst && !(v->name = strdup(worst)))
			return error("out of memory");
	} else {
		v->value = value_of(cur, r, r->name);
	}
	v->pass = v->value <= (r->kind == RULE_FORBID ? 0 : r->limit);
	return 0;
}

/* A value of R's measure as text: a size or a count. */
static const char *amount(const rule *r, uint64_t x)
{
	return r->measure == MEASURE_RETAINED ? size_text(x) : count_text(x);
}

/* What V measured against R's limit, one phrase (for text and JUnit). */
static void describe(const rule *r, const verdict *v, char *buf, size_t cap)
{
	char who[600] = "";
	if (v->name && r->kind != RULE_TREND)
		snprintf(who, sizeof who, "%s: ", disp(v->name));
	size_t used = 0;
	if (v->absent) {
		snprintf(buf, cap, "no %s '%s' in the input: ", subject_names[r->subject], disp(r->name));
		used = strlen(buf);
		buf += used;
		cap -= used;
	}
	switch (r->kind) {
	case RULE_BUDGET:
		snprintf(buf, cap, "%s%s, limit %s", who, amount(r, v->value), amount(r, r->limit));
		break;
	case RULE_FORBID:
		snprintf(buf, cap, "%s %s finding%s", count_text(v->value), r->name, plural_s(v->value));
		break;
	case RULE_GROWTH: {
		char change[96], lim[64];
		long long d = difference(v->value, v->base);
		const char *dt = r->measure == MEASURE_RETAINED ? size_diff_text(d) : count_diff_text(d);
		if (v->infinite)
			snprintf(change, sizeof change, "%s (new: baseline 0)", dt);
		else if (r->percent)
			snprintf(change, sizeof change, "%s%.2f%% (%s)", v->growth >= 0 ? "+" : "", v->growth / 100.0, dt);
		else
			snprintf(change, sizeof change, "%s", dt);
		if (r->percent)
			snprintf(lim, sizeof lim, "%.2f%%", r->limit / 100.0);
		else
			snprintf(lim, sizeof lim, "%s", amount(r, r->limit));
		snprintf(buf, cap, "%s%s, from %s to %s, limit %s", who, change, amount(r, v->base), amount(r, v->value),
			 lim);
		break;
	}
	case RULE_TREND:
		if (v->name)
			snprintf(buf, cap, "longest run: %s grew %s build%s in a row, limit fewer than %llu",
				 v->name[0] ? disp(v->name) : "total", count_text(v->run), plural_s(v->run),
				 (unsigned long long)r->limit);
		else
			snprintf(buf, cap, "no builds in the history");
		break;
	}
}

/* S for XML text and attributes: the display form, with & < > " ' as entities. */
static void xml_str(FILE *fp, const char *s)
{
	char *d = display_escape_dup(s);
	for (const char *p = d ? d : "?"; *p; p++)
		switch (*p) {
		case '&': fputs("&amp;", fp); break;
		case '<': fputs("&lt;", fp); break;
		case '>': fputs("&gt;", fp); break;
		case '"': fputs("&quot;", fp); break;
		case '\'': fputs("&apos;", fp); break;
		default: fputc(*p, fp);
		}
	free(d);
}

static void write_junit(FILE *fp, const char *input, const char *rules_path, const rules *rs, const verdict *v,
			size_t failed)
{
	fprintf(fp, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites tests=\"%zu\" failures=\"%zu\">\n", rs->n,
		failed);
	fprintf(fp, "  <testsuite name=\"ugc-analyze check ");
	xml_str(fp, input);
	fprintf(fp, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"0\">\n", rs->n, failed);
	for (size_t i = 0; i < rs->n; i++) {
		char what[1024];
		describe(&rs->v[i], &v[i], what, sizeof what);
		fprintf(fp, "    <testcase classname=\"");
		xml_str(fp, rules_path);
		fprintf(fp, "\" name=\"line %u: ", rs->v[i].line);
		xml_str(fp, rs->v[i].text);
		fprintf(fp, "\"");
		if (v[i].pass) {
			fprintf(fp, "/>\n");
			continue;
		}
		fprintf(fp, ">\n      <failure message=\"");
		xml_str(fp, what);
		fprintf(fp, "\" type=\"%s\">", rule_kind_names[rs->v[i].kind]);
		xml_str(fp, rs->v[i].text);
		fprintf(fp, ": ");
		xml_str(fp, what);
		fprintf(fp, "</failure>\n    </testcase>\n");
	}
	fprintf(fp, "  </testsuite>\n</testsuites>\n");
}

static void print_json(const char *input, const rules *rs, const verdict *v, size_t failed)
{
	json_begin("check");
	printf(",\"input\":");
	json_str(stdout, input);
	printf(",\"passed\":%zu,\"failed\":%zu", rs->n - failed, failed);
	json_list_begin("rules", rs->n, rs->n);
	for (size_t i = 0; i < rs->n; i++) {
		const rule *r = &rs->v[i];
		printf("%s{\"line\":%u,\"rule\":", i ? "," : "", r->line);
		json_str(stdout, r->text);
		printf(",\"status\":\"%s\",\"kind\":\"%s\",\"subject\":\"%s\",\"name\":", v[i].pass ? "pass" : "fail",
		       rule_kind_names[r->kind], subject_names[r->subject]);
		if (r->name)
			json_str(stdout, r->name);
		else
			printf("null");
		printf(",\"measure\":\"%s\"", measure_names[r->measure]);
		if (v[i].absent)
			printf(",\"found\":false");
		if (v[i].name) {
			printf(",\"worst\":");
			json_str(stdout, v[i].name);
		}
		if (r->kind == RULE_TREND)
			printf(",\"run\":%llu,\"limit_builds\":%llu", (unsigned long long)v[i].run, (unsigned long long)r->limit);
		else
			printf(",\"value\":%llu", (unsigned long long)v[i].value);
		if (r->kind == RULE_BUDGET || (r->kind == RULE_GROWTH && !r->percent))
			printf(",\"limit\":%llu", (unsigned long long)r->limit);
		if (r->kind == RULE_GROWTH) {
			printf(",\"baseline\":%llu,\"growth\":%lld", (unsigned long long)v[i].base,
			       (long long)difference(v[i].value, v[i].base));
			if (r->percent) {
				printf(",\"limit_percent\":%.2f,\"growth_percent\":", r->limit / 100.0);
				if (v[i].infinite)
					printf("null");
				else
					printf("%.2f", v[i].growth / 100.0);
			}
		}
		printf("}");
	}
	printf("]}");
	json_end();
}

struct check_opts {
	const char *rules, *baseline, *history, *junit, *leak_baseline, *leak_target;
	int format, force;
};

static const char *const check_formats[] = {"text", "json"};

#define C struct check_opts
static const option options[] = {
	OPT_STRING(0, "rules", C, rules, "FILE", "the rules (ugc-rules(5)); required"),
	OPT_STRING(0, "baseline", C, baseline, "BASE", "the snapshot or database growth rules compare with"),
	OPT_STRING(0, "history", C, history, "HISTORY", "the history database trend rules read (history add)"),
	OPT_STRING(0, "leak-baseline", C, leak_baseline, "A",
		   "leak-group budgets: the snapshot before (INPUT is the final one)"),
	OPT_STRING(0, "leak-target", C, leak_target, "B", "leak-group budgets: the snapshot whose new objects are followed"),
	OPT_STRING(0, "junit", C, junit, "OUT", "also write the verdicts as JUnit XML to OUT"),
	OPT_FLAG(0, "force", C, force, "overwrite an existing --junit file"),
	OPT_CHOICE(0, "format", C, format, check_formats, 2, "F", "text (default) or json"),
	OPT_END(),
};
#undef C

const command command_check = {
	"check", cmd_check, "CI gates: check budgets, growth, findings and trends against a rules file",
	"usage: ugc-analyze check INPUT --rules FILE [--baseline BASE] [--history HISTORY]\n"
	"                         [--leak-baseline A --leak-target B]\n"
	"                         [--junit OUT [--force]] [--format text|json]\n",
	"Measures each rule of FILE (ugc-rules(5)) on INPUT, a snapshot or a database:\n"
	"budgets of retained bytes or objects of a class, a package or the whole heap,\n"
	"growth over BASE, finding kinds that must not appear, and trends over the builds\n"
	"of a history database.  Prints PASS or FAIL and what was measured for each rule.\n"
	"Exit status: 0 every rule passed, 1 a rule failed, 2 a usage or rules-file error.\n",
	options, 1, NULL,
};

int cmd_check(int argc, char **argv)
{
	struct check_opts o = {.format = FMT_TEXT};
	const char *input = NULL;
	int parsed = parse_options(&command_check, argc, argv, &o, &input);
	if (parsed < 0)
		return OPT_EXIT_STATUS(parsed);
	if (!input)
		return usage_error("check", "needs an INPUT (snapshot or database)");
	if (!o.rules)
		return usage_error("check", "needs --rules FILE");
	char err[1024];
	filebuf fb = {0};
	if (file_read_raw(o.rules, &fb, err, sizeof err)) {
		fprintf(stderr, "ugc-analyze: %s\n", disp(err));
		return 2;
	}
	rules rs;
	int prc = rules_parse((const char *)fb.data, fb.len, o.rules, finding_kind_names, FK_COUNT, &rs, err, sizeof err);
	filebuf_free(&fb);
	if (prc) {
		fprintf(stderr, "%s\n", disp(err));
		return 2;
	}
	int rc = 2;
	measures cur = {0}, base = {0};
	leak_worst leaks = {0};
	verdict *v = NULL;
	if (rs.need_baseline && !o.baseline) {
		usage_error("check", "growth rules need --baseline BASE");
		goto out;
	}
	if (rs.need_history && !o.history) {
		usage_error("check", "trend rules need --history HISTORY");
		goto out;
	}
	if (rs.need_leaks && (!o.leak_baseline || !o.leak_target)) {
		usage_error("check", "leak-group budgets need --leak-baseline A --leak-target B (INPUT is the final snapshot)");
		goto out;
	}
	rc = 1;
	if (o.junit) {
		/* --force never lets the XML overwrite what check reads */
		const char *ins[] = {input, o.rules, o.baseline, o.history, o.leak_baseline, o.leak_target};
		for (int k = 0; k < 6; k++)
			if (ins[k] && outfile_check_input(o.junit, ins[k], err, sizeof err)) {
				error("%s", err);
				goto out;
			}
		if (check_output(o.junit, o.force))
			goto out;
	}
	/* an input given that no rule reads is still an input: one that is not
	 * a readable file (a history: a history database) fails the gate, as a
	 * misspelled path must not pass forever */
	const char *unread[] = {rs.need_baseline ? NULL : o.baseline, rs.need_history ? NULL : o.history,
				rs.need_leaks ? NULL : o.leak_baseline, rs.need_leaks ? NULL : o.leak_target};
	for (int k = 0; k < 4; k++) {
		if (!unread[k])
			continue;
		struct stat st;
		FILE *f = fopen(unread[k], "rb");
		if (!f || fstat(fileno(f), &st) || !S_ISREG(st.st_mode)) {
			error("%s: %s", disp(unread[k]), !f ? strerror(errno) : "not a regular file");
			if (f)
				fclose(f);
			goto out;
		}
		fclose(f);
		int64_t builds;
		if (k == 1 && history_builds(unread[k], &builds, err, sizeof err)) {
			error("%s", err);
			goto out;
		}
	}
	if (measures_load(input, &cur) || (rs.need_baseline && measures_load(o.baseline, &base)) ||
	    (rs.need_leaks && leak_worst_load(o.leak_baseline, o.leak_target, input, &leaks)))
		goto out;
	if (!(v = calloc(rs.n + 1, sizeof *v))) {
		error("out of memory");
		goto out;
	}
	size_t failed = 0;
	for (size_t i = 0; i < rs.n; i++) {
		if (judge(&rs.v[i], &cur, &base, &leaks, o.history, &v[i]))
			goto out;
		failed += !v[i].pass;
	}
	if (o.junit) {
		outfile of;
		if (outfile_open(&of, o.junit, o.force, err, sizeof err)) {
			error("%s", err);
			goto out;
		}
		write_junit(of.fp, input, o.rules, &rs, v, failed);
		if (outfile_commit(&of, err, sizeof err)) {
			error("%s", err);
			goto out;
		}
	}
	if (o.format == FMT_JSON) {
		print_json(input, &rs, v, failed);
	} else {
		for (size_t i = 0; i < rs.n; i++) {
			char what[1024];
			describe(&rs.v[i], &v[i], what, sizeof what);
			printf("%s  %s:%u: %s: %s\n", v[i].pass ? "PASS" : "FAIL", disp(o.rules), rs.v[i].line,
			       disp(rs.v[i].text), what);
		}
		printf("%s: %zu rule%s, %zu passed, %zu failed\n", disp(input), rs.n, plural_s(rs.n), rs.n - failed,
		       failed);
	}
	rc = failed ? 1 : 0;
out:
	if (v)
		for (size_t i = 0; i < rs.n; i++)
			free(v[i].name);
	free(v);
	measures_free(&cur);
	measures_free(&base);
	leak_worst_free(&leaks);
	rules_free(&rs);
	return rc;
}
