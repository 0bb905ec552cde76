/* escape.h — safe output of names that come from snapshots and databases
 * (hostile input: a name may hold ESC, NUL or bytes that are not UTF-8).
 *
 * Display form: printable ASCII and valid UTF-8 characters as they are;
 * every other byte (C0 controls, DEL, the C1 controls U+0080-U+009F, bytes
 * that are not part of valid UTF-8) as the four characters \xHH.  The
 * result is valid UTF-8 with nothing a terminal acts on.  The query views
 * hand out names in this form; the commands that print raw names (info,
 * diff, sql) pass them through display_put.  JSON strings are written by
 * json_str (cli/cli.h), which escapes what the display form leaves. */
#ifndef UGC_ESCAPE_H
#define UGC_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

/* Length of the valid, printable UTF-8 character at S (N bytes left), or 0
 * when the byte at S must be escaped. */
size_t utf8_char(const unsigned char *s, size_t n);
/* The display form of SRC (LEN bytes) into DST (CAP bytes, NUL-terminated,
 * cut before an escape or character that does not fit).  Returns its length. */
size_t display_escape(char *dst, size_t cap, const char *src, size_t len);
/* The display form of the C string S, malloc'd (NULL when out of memory). */
char *display_escape_dup(const char *s);
/* Write the display form of S (NULL: nothing) to FP. */
void display_put(FILE *fp, const char *s);

#endif
