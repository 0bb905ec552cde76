/* test_human.c — base/human.c: sizes, counts and plurals as text output
 * prints them, checked against values worked out by hand (the unit edges,
 * the rounding to a tenth that moves a size up a unit, the largest size). */
#include <stdint.h>

#include "base/base.h"
#include "tests/unit.h"

static const char *bytes(uint64_t n)
{
	static char buf[HUMAN_MAX];
	return human_bytes(buf, n);
}

static const char *count(uint64_t n)
{
	static char buf[HUMAN_MAX];
	return human_count(buf, n);
}

TEST(human_bytes_below_a_kib_are_exact)
{
	CHECK_STR(bytes(0), "0 B");
	CHECK_STR(bytes(1), "1 B");
	CHECK_STR(bytes(812), "812 B");
	CHECK_STR(bytes(1023), "1023 B");
}

TEST(human_bytes_take_the_unit_that_keeps_them_below_1024)
{
	CHECK_STR(bytes(1024), "1.0 KiB");
	CHECK_STR(bytes(1536), "1.5 KiB");              /* 1024 + 512 */
	CHECK_STR(bytes(1280), "1.3 KiB");              /* 1.25: the half goes up */
	CHECK_STR(bytes(1126), "1.1 KiB");              /* 1.0996 */
	CHECK_STR(bytes(524288), "512.0 KiB");          /* 512 * 1024 */
	CHECK_STR(bytes(1048524), "1023.9 KiB");        /* 1023.9492 KiB */
	CHECK_STR(bytes(1048525), "1.0 MiB");           /* 1023.9502 KiB rounds to 1024.0 */
	CHECK_STR(bytes(1048575), "1.0 MiB");           /* 2^20 - 1 */
	CHECK_STR(bytes(1048576), "1.0 MiB");
	CHECK_STR(bytes(40265318), "38.4 MiB");         /* 38.4 * 2^20 = 40265318.4 */
	CHECK_STR(bytes(1288490189), "1.2 GiB");        /* 1.2 * 2^30 = 1288490188.8 */
	CHECK_STR(bytes(UINT64_C(1) << 40), "1.0 TiB");
	CHECK_STR(bytes(UINT64_C(1) << 50), "1.0 PiB");
	CHECK_STR(bytes(UINT64_C(1) << 60), "1.0 EiB");
	CHECK_STR(bytes(UINT64_MAX), "16.0 EiB");       /* 16 EiB - 1 byte */
}

TEST(human_count_groups_digits_by_three)
{
	CHECK_STR(count(0), "0");
	CHECK_STR(count(999), "999");
	CHECK_STR(count(1000), "1,000");
	CHECK_STR(count(65536), "65,536");
	CHECK_STR(count(100000), "100,000");
	CHECK_STR(count(1234567), "1,234,567");
	CHECK_STR(count(UINT64_MAX), "18,446,744,073,709,551,615");
}

TEST(plural_is_singular_only_for_one)
{
	CHECK_STR(plural_s(0), "s");
	CHECK_STR(plural_s(1), "");
	CHECK_STR(plural_s(2), "s");
	CHECK_STR(plural(1, "class", "classes"), "class");
	CHECK_STR(plural(3, "class", "classes"), "classes");
	CHECK_STR(plural(0, "class", "classes"), "classes");
}
