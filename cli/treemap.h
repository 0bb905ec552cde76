/* treemap.h — the geometry of a squarified treemap (Bruls, Huizing and van
 * Wijk, "Squarified Treemaps", 2000), for the report's SVG: no analysis,
 * only rectangles.
 *
 * The algorithm: values, largest first, are laid in rows along the shorter
 * side of the free rectangle.  A value joins the current row while that
 * does not make the row's worst aspect ratio (the longer side over the
 * shorter of its rectangles) worse; otherwise the row is fixed (it takes
 * a strip of the free rectangle as wide as its share of the area) and a
 * new row starts in what is left.  Rows are laid one after the other in a
 * loop: no recursion, whatever the number of values. */
#ifndef UGC_TREEMAP_H
#define UGC_TREEMAP_H

#include <stddef.h>

typedef struct tm_rect {
	double x, y, w, h;
} tm_rect;

/* Lay VALUES[0..N) (largest first, each > 0; a value <= 0 gets an empty
 * rectangle) over the rectangle AREA, each a rectangle of area
 * proportional to its value, into OUT[0..N). */
void treemap_layout(const double *values, size_t n, tm_rect area, tm_rect *out);

#endif
