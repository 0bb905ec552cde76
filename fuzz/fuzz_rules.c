/* fuzz_rules.c — libFuzzer harness for the rules file parser (cli/rules.h,
 * ugc-rules(5)): any bytes either parse into rules that keep their
 * invariants — lines ascending, a name where the subject needs one, a known
 * finding kind, a trend of at least 2 builds — and whose texts, parsed
 * again, give the same rules; or give one error "fuzz.rules:LINE: ...".
 * Never a crash, a leak or undefined behaviour. */
#include <stdlib.h>
#include <string.h>

#include "fuzz/common.h"
#include "analysis/findings.h"
#include "cli/rules.h"

static void same_rule(const rule *a, const rule *b)
{
	FUZZ_ASSERT(a->kind == b->kind && a->subject == b->subject && a->measure == b->measure &&
			    a->percent == b->percent && a->limit == b->limit,
		    "a rule's text parses to another rule");
	FUZZ_ASSERT(!a->name == !b->name && (!a->name || strcmp(a->name, b->name) == 0),
		    "a rule's text parses to another name");
	FUZZ_ASSERT(strcmp(a->text, b->text) == 0, "a rule's text is not stable");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_copy(data, size);
	char err[512];
	rules rs;
	if (rules_parse(text, size, "fuzz.rules", finding_kind_names, FK_COUNT, &rs, err, sizeof err)) {
		fuzz_check_error(err, "fuzz.rules:");
		FUZZ_ASSERT(rs.n == 0 && !rs.v, "a failed parse keeps rules");
		free(text);
		return 0;
	}
	for (size_t i = 0; i < rs.n; i++) {
		const rule *r = &rs.v[i];
		FUZZ_ASSERT(i == 0 || r->line > rs.v[i - 1].line, "rule lines not ascending");
		FUZZ_ASSERT((r->subject == SUBJ_TOTAL || r->subject == SUBJ_LEAK_GROUP) == !r->name,
			    "a name where none belongs, or none where one does");
		FUZZ_ASSERT(r->kind != RULE_TREND || r->limit >= 2, "a trend under 2 builds");
		FUZZ_ASSERT(!r->percent || r->kind == RULE_GROWTH, "a percent outside a growth rule");
		if (r->subject == SUBJ_FINDING) {
			int k = 0;
			while (k < FK_COUNT && strcmp(finding_kind_names[k], r->name) != 0)
				k++;
			FUZZ_ASSERT(k < FK_COUNT, "an unknown finding kind accepted");
		}
		/* the text, parsed again, is the same rule */
		rules again;
		int rc = rules_parse(r->text, strlen(r->text), "again", finding_kind_names, FK_COUNT, &again, err,
				     sizeof err);
		FUZZ_ASSERT(rc == 0 && again.n == 1, "a rule's text does not parse");
		same_rule(r, &again.v[0]);
		rules_free(&again);
	}
	rules_free(&rs);
	free(text);
	return 0;
}
