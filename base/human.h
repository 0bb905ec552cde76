/* human.h — sizes and counts as people read them: "38.4 MiB", "65,536",
 * and the plural that goes with a count. */
#ifndef UGC_HUMAN_H
#define UGC_HUMAN_H

#include <stddef.h>
#include <stdint.h>

/* Room for any result of human_bytes and human_count, NUL included. */
#define HUMAN_MAX 32

/* N bytes in binary units: below 1 KiB the exact "812 B" ("0 B" for 0);
 * above, one decimal and the unit (KiB, MiB, GiB, TiB, PiB, EiB) that keeps
 * the number below 1024 once rounded to the nearest tenth, halves up:
 * "512.0 KiB", "1.5 KiB", 1048575 is "1.0 MiB".  Into BUF; returns BUF. */
const char *human_bytes(char buf[HUMAN_MAX], uint64_t n);

/* N with a comma between each group of three digits: "65,536".  Into BUF;
 * returns BUF. */
const char *human_count(char buf[HUMAN_MAX], uint64_t n);

/* ONE when N is 1, else MANY: "%u %s", n, plural(n, "class", "classes"). */
const char *plural(uint64_t n, const char *one, const char *many);

/* "" when N is 1, else "s": "%u object%s", n, plural_s(n). */
const char *plural_s(uint64_t n);

#endif
