/* test_intern.c — the two interners over their one hash table
 * (base/hashindex.h): strtab's ids and strpool's pointers checked against
 * the definition (a string's id is the place of its first appearance among
 * the distinct strings, "" first; equal strings share a copy, different ones
 * do not), through many rebuilds of the index, with strings that are
 * prefixes of each other and embedded NULs; and an allocation failed at
 * every point leaves each interner whole: the string that failed can be
 * interned again and nothing is indexed twice. */
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "snapshot/strtab.h"
#include "tests/oom_wrap.h"
#include "tests/unit.h"

enum { DISTINCT = 3000, DRAWS = 20000 };

/* Distinct string K: "s<k>" with a tail of K % 7 bytes, so that "s1" is a
 * prefix of "s1x", "s10" and so on; every fifth carries a NUL. */
static size_t make(uint32_t k, char *buf)
{
	size_t n = (size_t)sprintf(buf, "s%u", k);
	for (uint32_t t = 0; t < k % 7; t++)
		buf[n++] = k % 5 == 0 && t == 0 ? '\0' : (char)('a' + t);
	return n;
}

/* The definition: the distinct strings in order of first appearance. */
typedef struct naive {
	char buf[DISTINCT][32];
	size_t len[DISTINCT];
	uint32_t n;
} naive;

static uint32_t naive_find(const naive *d, const char *s, size_t len)
{
	for (uint32_t k = 0; k < d->n; k++)
		if (d->len[k] == len && memcmp(d->buf[k], s, len) == 0)
			return k;
	return UINT32_MAX;
}

static uint32_t naive_id(naive *d, const char *s, size_t len)
{
	uint32_t k = naive_find(d, s, len);
	if (k != UINT32_MAX)
		return k;
	memcpy(d->buf[d->n], s, len);
	d->len[d->n] = len;
	return d->n++;
}

TEST(strtab_ids_are_first_appearances)
{
	static naive d;
	d.n = 0;
	naive_id(&d, "", 0);
	strtab t;
	strtab_init(&t);
	int bad = 0;
	char s[32];
	for (int k = 0; k < DRAWS; k++) {
		size_t n = make(test_rand_below(DISTINCT - 1), s);
		uint32_t want = naive_id(&d, s, n), got = strtab_intern(&t, s, n);
		if (got != want && bad++ < 3)
			printf("    draw %d: id %u, the definition says %u\n", k, got, want);
	}
	CHECK(bad == 0 && t.count == d.n);
	for (uint32_t k = 0; k < d.n; k++)
		CHECK(strtab_len(&t, k) == d.len[k] && memcmp(strtab_get(&t, k), d.buf[k], d.len[k]) == 0 &&
		      strtab_get(&t, k)[d.len[k]] == '\0');
	/* a copy has no index: it is built on first use (so after a binary load) */
	strtab c;
	CHECK(strtab_copy(&c, &t) == 0 && c.hash == NULL);
	for (uint32_t k = 0; k < d.n; k++) {
		if (strtab_find(&c, d.buf[k], d.len[k]) != k && bad++ < 3)
			printf("    copy: string %u not found as itself\n", k);
		/* a prefix is found only when it was interned itself */
		if (k && strtab_find(&c, d.buf[k], d.len[k] - 1) != naive_find(&d, d.buf[k], d.len[k] - 1) && bad++ < 3)
			printf("    copy: a prefix of string %u found as another\n", k);
	}
	CHECK(bad == 0);
	CHECK(strtab_find(&c, "never", 5) == UINT32_MAX && strtab_find(&c, "", 0) == 0);
	strtab_free(&c);
	strtab_free(&t);
}

/* The V8 load's table taken over whole (strtab_adopt) and indexed in one
 * pass: strings drawn with repeats, more of them than the pass's
 * lookahead starts at (128k).  The copies are dropped: the table is then
 * the distinct strings in order of first appearance (the definition), each
 * old id renumbered to its text's, every string found as itself, before
 * and after the index is rebuilt from the arena; an interned string joins
 * after them.  A table without a repeat keeps its ids. */
TEST(strtab_adopted_strings_lose_their_copies)
{
	enum { N = 150000 };
	static naive d; /* the distinct drawn strings, first appearances */
	static char text[N][32];
	static size_t tlen[N];
	d.n = 0;
	naive_id(&d, "", 0);
	size_t cap = (size_t)N * 32, len = 1;
	char *arena = malloc(cap);
	uint32_t *off = malloc((N + 1) * sizeof *off);
	arena[0] = '\0';
	off[0] = 0;
	tlen[0] = 0;
	uint32_t distinct = 1;
	for (uint32_t id = 1; id < N; id++) {
		/* a few drawn strings, most new ones: the table is mostly distinct, as V8's */
		uint32_t k = id % 50 == 0 ? test_rand_below(DISTINCT) : DISTINCT + id;
		size_t n = k < DISTINCT ? make(k, text[id]) : (size_t)sprintf(text[id], "n%u", k);
		tlen[id] = n;
		if (k >= DISTINCT || naive_find(&d, text[id], n) == UINT32_MAX)
			distinct++;
		if (k < DISTINCT)
			naive_id(&d, text[id], n);
		off[id] = (uint32_t)len;
		memcpy(arena + len, text[id], n);
		arena[len + n] = '\0';
		len += n + 1;
	}
	off[N] = (uint32_t)len;
	strtab t;
	strtab_init(&t);
	uint32_t *renum;
	CHECK(strtab_adopt(&t, arena, cap, off, N, N + 1, &renum) == 0 && renum);
	if (!renum)
		return;
	CHECK(t.count == distinct && distinct < N - 100 && t.arena_len == t.off[t.count]);
	/* the new ids: each string's first appearance, numbered in order */
	int bad = 0;
	uint32_t next = 0;
	for (uint32_t id = 0; id < N; id++) {
		uint32_t earlier = UINT32_MAX;
		for (uint32_t e = 50; e < id && earlier == UINT32_MAX && id % 50 == 0; e += 50) /* only drawn ones repeat */
			if (tlen[e] == tlen[id] && memcmp(text[e], text[id], tlen[id]) == 0)
				earlier = e;
		uint32_t want = earlier != UINT32_MAX ? renum[earlier] : next++;
		if ((renum[id] != want || strtab_len(&t, renum[id]) != tlen[id] ||
		     memcmp(strtab_get(&t, renum[id]), text[id], tlen[id]) != 0) && bad++ < 3)
			printf("    string %u: renumbered %u, want %u\n", id, renum[id], want);
	}
	CHECK(bad == 0 && next == t.count);
	for (int pass = 0; pass < 2; pass++) { /* the pass's index, then one rebuilt from the arena */
		for (uint32_t id = 0; id < t.count; id++)
			if (strtab_find(&t, strtab_get(&t, id), strtab_len(&t, id)) != id && bad++ < 3)
				printf("    pass %d: string %u not found as itself\n", pass, id);
		strtab_unindex(&t);
	}
	CHECK(bad == 0);
	uint32_t before = t.count;
	CHECK(strtab_intern(&t, "never drawn", 11) == before && strtab_intern(&t, text[N - 1], tlen[N - 1]) == renum[N - 1]);
	free(renum);
	strtab_free(&t);
	/* no repeat: no renumbering, the ids stand */
	char *a2 = malloc(16);
	uint32_t *o2 = malloc(4 * sizeof *o2);
	memcpy(a2, "\0ab\0cd\0", 7);
	o2[0] = 0, o2[1] = 1, o2[2] = 4, o2[3] = 7;
	strtab_init(&t);
	CHECK(strtab_adopt(&t, a2, 16, o2, 3, 4, &renum) == 0 && !renum && t.count == 3);
	CHECK(strtab_find(&t, "ab", 2) == 1 && strtab_find(&t, "cd", 2) == 2);
	strtab_free(&t);
}

TEST(strpool_keeps_one_stable_copy_of_each_string)
{
	strpool p = {0};
	static const char *got[DISTINCT];
	memset(got, 0, sizeof got);
	int bad = 0;
	char s[32];
	for (int k = 0; k < DRAWS; k++) {
		uint32_t i = test_rand_below(DISTINCT);
		size_t n = (size_t)sprintf(s, "p%u%.*s", i, (int)(i % 7), "abcdefg"); /* no NULs: C strings */
		const char *x = strpool_intern(&p, s, n);
		if ((!x || strcmp(x, s) != 0 || (got[i] && got[i] != x)) && bad++ < 3)
			printf("    draw %d: string %u interned as another copy or another string\n", k, i);
		got[i] = x;
	}
	/* every copy still holds its string after all the growth (stable) */
	for (uint32_t i = 0; i < DISTINCT; i++) {
		if (!got[i])
			continue;
		size_t n = (size_t)sprintf(s, "p%u%.*s", i, (int)(i % 7), "abcdefg");
		if ((strlen(got[i]) != n || memcmp(got[i], s, n) != 0) && bad++ < 3)
			printf("    string %u moved or changed\n", i);
		for (uint32_t j = 0; j < i; j++)
			if (got[j] == got[i] && bad++ < 3)
				printf("    strings %u and %u share a copy\n", j, i);
	}
	CHECK(bad == 0);
	strpool_free(&p);
}

/* Intern "o0" .. "o<N-1>" with allocation number FAIL failed; then, with
 * none failed, all of them twice: each must have one id, in order of
 * first success. */
static int strtab_after_failure(long fail, uint32_t n)
{
	strtab t;
	strtab_init(&t);
	char s[16];
	uint32_t failed = UINT32_MAX;
	oom_count = 0;
	oom_fail_at = fail;
	for (uint32_t k = 0; k < n; k++)
		if (strtab_intern(&t, s, (size_t)sprintf(s, "o%u", k)) == UINT32_MAX && failed == UINT32_MAX)
			failed = k;
	oom_fail_at = 0;
	int ok = t.count == 1 + n - (failed != UINT32_MAX);
	for (int round = 0; round < 2; round++)
		for (uint32_t k = 0; k < n; k++) {
			uint32_t want = k < failed ? k + 1 : k == failed ? n : k;
			ok &= strtab_intern(&t, s, (size_t)sprintf(s, "o%u", k)) == want;
		}
	ok &= t.count == n + 1;
	strtab_free(&t);
	return ok;
}

static int strpool_after_failure(long fail, uint32_t n)
{
	strpool p = {0};
	char s[16];
	oom_count = 0;
	oom_fail_at = fail;
	for (uint32_t k = 0; k < n; k++)
		strpool_intern(&p, s, (size_t)sprintf(s, "o%u", k));
	oom_fail_at = 0;
	const char **first = calloc(n, sizeof *first);
	int ok = first != NULL;
	for (uint32_t k = 0; ok && k < n; k++)
		ok &= (first[k] = strpool_intern(&p, s, (size_t)sprintf(s, "o%u", k))) != NULL && strcmp(first[k], s) == 0;
	for (uint32_t k = 0; ok && k < n; k++)
		ok &= strpool_intern(&p, s, (size_t)sprintf(s, "o%u", k)) == first[k];
	ok &= p.count == n;
	free(first);
	strpool_free(&p);
	return ok;
}

TEST(interners_stay_whole_when_memory_runs_out)
{
	enum { N = 300 }; /* past the index's first rebuild (64 slots) twice */
	int bad = 0;
	for (long fail = 1; fail <= 40; fail++) {
		if (!strtab_after_failure(fail, N) && bad++ < 3)
			printf("    strtab, allocation %ld failed: not whole after\n", fail);
		if (!strpool_after_failure(fail, N) && bad++ < 3)
			printf("    strpool, allocation %ld failed: not whole after\n", fail);
	}
	CHECK(bad == 0);
}
