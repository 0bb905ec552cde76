/* human.c — sizes, counts and plurals for text output (see human.h). */
#include "base/human.h"

#include <stdio.h>

/* N in units of 2^(10*K) bytes, in tenths, rounded to the nearest, halves
 * up; exact for every N (no floating point, no overflow). */
static uint64_t tenths_of_unit(uint64_t n, int k)
{
	int shift = 10 * k;
	uint64_t whole = n >> shift, rest = n & ((UINT64_C(1) << shift) - 1);
	/* rest * 10 + half < 10 * 2^60 + 2^59 < 2^64 */
	return whole * 10 + ((rest * 10 + (UINT64_C(1) << (shift - 1))) >> shift);
}

const char *human_bytes(char buf[HUMAN_MAX], uint64_t n)
{
	static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
	if (n < 1024) {
		snprintf(buf, HUMAN_MAX, "%u B", (unsigned)n);
		return buf;
	}
	int k = 1;
	uint64_t t = tenths_of_unit(n, k);
	while (t >= 10240 && k < 6)
		t = tenths_of_unit(n, ++k);
	snprintf(buf, HUMAN_MAX, "%llu.%u %s", (unsigned long long)(t / 10), (unsigned)(t % 10), units[k]);
	return buf;
}

const char *human_count(char buf[HUMAN_MAX], uint64_t n)
{
	char digits[24];
	int len = snprintf(digits, sizeof digits, "%llu", (unsigned long long)n);
	size_t o = 0;
	for (int i = 0; i < len; i++) {
		if (i > 0 && (len - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = '\0';
	return buf;
}

const char *plural(uint64_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

const char *plural_s(uint64_t n)
{
	return plural(n, "", "s");
}
