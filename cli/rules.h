/* rules.h — the rules file `check --rules` reads (ugc-rules(5)): one rule a
 * line, parsed strictly into a list; any fault is "FILE:LINE: what is
 * wrong" and nothing of the file is kept. */
#ifndef UGC_RULES_H
#define UGC_RULES_H

#include <stddef.h>
#include <stdint.h>

enum rule_kind {
	RULE_BUDGET, /* SUBJECT MEASURE <= LIMIT */
	RULE_GROWTH, /* SUBJECT MEASURE grows by at most LIMIT (bytes, a count, or a percent) over --baseline */
	RULE_FORBID, /* no finding of kind NAME (a budget of 0 findings) */
	RULE_TREND,  /* SUBJECT MEASURE grows fewer than LIMIT builds in a row in --history */
};
enum rule_subject { SUBJ_TOTAL, SUBJ_CLASS, SUBJ_PACKAGE, SUBJ_FINDING, SUBJ_LEAK_GROUP };
enum rule_measure { MEASURE_RETAINED, MEASURE_COUNT };

/* One rule.  NAME is the class's name or path, the package's path, the
 * finding kind (one of finding_kind_names), or "*" for each class or
 * package (the rule holds for every one; the worst is reported); NULL for
 * total and leak-group (a budget on each of leak mode's groups: the largest
 * is measured).  LIMIT is in bytes for MEASURE_RETAINED, else a count; a growth
 * rule with PERCENT set has LIMIT in hundredths of a percent (5% is 500);
 * a trend's LIMIT is the builds in a row (at least 2).  TEXT is the line as
 * written, without its comment and outer blanks. */
typedef struct rule {
	uint32_t line;
	uint8_t kind, subject, measure, percent;
	char *name, *text;
	uint64_t limit;
} rule;

typedef struct rules {
	rule *v;
	size_t n;
	int need_baseline, need_history; /* some growth / trend rule */
	int need_leaks;                  /* some leak-group budget */
} rules;

/* Parse the LEN bytes of TEXT (the file FILE, for the messages).  0, or -1
 * with "FILE:LINE: what is wrong" in ERR (out of memory says so); OUT is
 * empty then.  Finding kinds are checked against KINDS[0..NKINDS). */
int rules_parse(const char *text, size_t len, const char *file, const char *const *kinds, int nkinds, rules *out,
		char *err, size_t errsize);
void rules_free(rules *r);

/* A size as a rules file writes it: an integer or a decimal with one of
 * B, KiB, MiB, GiB, TiB ("1.5GiB", "10 MiB" is two words: not here), or a
 * plain integer of bytes.  0, or -1 when malformed or above 2^63. */
int rules_parse_size(const char *s, uint64_t *out);

#endif
