/* ugc_escape.c — percent-escaping of NAME/PROPERTY/TEXT fields and cutting
 * names to a length limit on a UTF-8 boundary.  ugc-analyze's own text
 * writer uses the same ugc_escape(), so both write identical fields. */
#include "ugc_capture.h"

size_t ugc_escape(const char *s, size_t len, char *out)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		/* spaces, tabs, controls, '%' and DEL always; '#' where it would
		 * start a comment; a lone '-' because it means "none" */
		if (c < 0x21 || c == '%' || c == 0x7f || (c == '#' && i == 0) || (c == '-' && len == 1)) {
			out[n++] = '%';
			out[n++] = hex[c >> 4];
			out[n++] = hex[c & 15];
		} else {
			out[n++] = (char)c;
		}
	}
	out[n] = '\0';
	return n;
}

size_t ugc_utf8_cut(const char *s, size_t len, size_t max)
{
	if (len <= max)
		return len;
	size_t n = max;
	/* s[n] is the first byte dropped: back up while it continues a character */
	while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
		n--;
	return n;
}
