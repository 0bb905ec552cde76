/* escape.c — the display form of untrusted names (see escape.h). */
#include "base/escape.h"

#include <stdlib.h>
#include <string.h>

size_t utf8_char(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	if (c >= 0x20 && c < 0x7f)
		return 1;
	size_t len;
	unsigned lo = 0x80, hi = 0xbf;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		if (c == 0xe0) lo = 0xa0;
		if (c == 0xed) hi = 0x9f; /* no surrogates */
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		if (c == 0xf0) lo = 0x90;
		if (c == 0xf4) hi = 0x8f;
	} else
		return 0;
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t k = 2; k < len; k++)
		if (s[k] < 0x80 || s[k] > 0xbf)
			return 0;
	if (c == 0xc2 && s[1] < 0xa0)
		return 0; /* C1 controls (0x9b is a CSI to some terminals) */
	return len;
}

size_t display_escape(char *dst, size_t cap, const char *src, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)src;
	size_t n = 0;
	if (cap == 0)
		return 0;
	for (size_t k = 0; k < len;) {
		size_t c = utf8_char(s + k, len - k);
		if (c) {
			if (n + c >= cap)
				break;
			memcpy(dst + n, s + k, c);
			n += c;
			k += c;
		} else {
			if (n + 4 >= cap)
				break;
			dst[n++] = '\\';
			dst[n++] = 'x';
			dst[n++] = hex[s[k] >> 4];
			dst[n++] = hex[s[k] & 15];
			k++;
		}
	}
	dst[n] = '\0';
	return n;
}

char *display_escape_dup(const char *s)
{
	size_t len = strlen(s);
	char *out = malloc(4 * len + 1);
	if (out)
		display_escape(out, 4 * len + 1, s, len);
	return out;
}

void display_put(FILE *fp, const char *s)
{
	if (!s)
		return;
	char buf[1024];
	const unsigned char *p = (const unsigned char *)s;
	size_t len = strlen(s), k = 0;
	while (k < len) {
		/* a slice that ends on a character boundary, escaped into BUF */
		size_t take = 0;
		while (k + take < len && take < 250) {
			size_t c = utf8_char(p + k + take, len - k - take);
			take += c ? c : 1;
		}
		fputs((display_escape(buf, sizeof buf, s + k, take), buf), fp);
		k += take;
	}
}
