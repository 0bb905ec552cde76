/* html.h — writing HTML safely: every string that came from a heap (object
 * names, paths, file names) goes through one of these, so no name can
 * start markup, end an attribute or close a <script>. */
#ifndef UGC_HTML_H
#define UGC_HTML_H

#include <stdio.h>

/* S as HTML text or a quoted attribute value: & < > " ' as entities. */
void html_text(FILE *fp, const char *s);
/* The first MAX bytes of S so (not cutting a UTF-8 sequence), then
 * "…" when S is longer. */
void html_text_cut(FILE *fp, const char *s, size_t max);
/* S as a JSON string for a <script type="application/json"> block:
 * quoted, with " \ and control characters escaped as JSON requires and
 * < > & as \u003c \u003e \u0026, so that neither "</script" nor "<!--"
 * can appear inside the block.  S must be valid UTF-8 (display form). */
void html_json_str(FILE *fp, const char *s);

#endif
