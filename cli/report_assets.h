/* report_assets.h — the report page's inline style sheet and script
 * (report_assets.c). */
#ifndef UGC_REPORT_ASSETS_H
#define UGC_REPORT_ASSETS_H

extern const char report_css[];
extern const char report_js[];

#endif
