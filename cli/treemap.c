/* treemap.c — the squarified treemap layout (treemap.h). */
#include "cli/treemap.h"

/* The worst aspect ratio of a row of values summing to SUM, the largest
 * MAX and the smallest MIN, laid along a side of length SIDE, where SCALE
 * turns a value into an area. */
static double worst(double sum, double max, double min, double side, double scale)
{
	double s2 = side * side, a = sum * scale;
	double r1 = s2 * max * scale / (a * a), r2 = a * a / (s2 * min * scale);
	return r1 > r2 ? r1 : r2;
}

void treemap_layout(const double *values, size_t n, tm_rect area, tm_rect *out)
{
	double total = 0;
	size_t m = 0; /* the positive values (they come first: largest first) */
	for (; m < n && values[m] > 0; m++)
		total += values[m];
	for (size_t i = m; i < n; i++)
		out[i] = (tm_rect){area.x, area.y, 0, 0};
	if (m == 0 || area.w <= 0 || area.h <= 0)
		return;
	double scale = area.w * area.h / total; /* area per unit of value */
	tm_rect free_r = area;
	size_t start = 0;
	while (start < m) {
		double side = free_r.w < free_r.h ? free_r.w : free_r.h;
		/* grow the row while its worst ratio does not get worse */
		size_t end = start + 1;
		double sum = values[start], max = values[start], min = values[start];
		double cur = worst(sum, max, min, side, scale);
		while (end < m) {
			double v = values[end];
			double next = worst(sum + v, max > v ? max : v, min < v ? min : v, side, scale);
			if (next > cur)
				break;
			sum += v;
			if (v > max)
				max = v;
			if (v < min)
				min = v;
			cur = next;
			end++;
		}
		/* the row takes a strip along the shorter side */
		double thick = sum * scale / side, at = 0;
		int across = free_r.w >= free_r.h; /* strip at the left, rectangles stacked downwards */
		if (end == m) /* the last row fills what is left exactly */
			thick = across ? free_r.w : free_r.h;
		for (size_t i = start; i < end; i++) {
			double len = sum > 0 ? side * values[i] / sum : 0;
			if (i + 1 == end)
				len = side - at; /* no gap from rounding */
			out[i] = across ? (tm_rect){free_r.x, free_r.y + at, thick, len}
					: (tm_rect){free_r.x + at, free_r.y, len, thick};
			at += len;
		}
		if (across) {
			free_r.x += thick;
			free_r.w -= thick;
		} else {
			free_r.y += thick;
			free_r.h -= thick;
		}
		if (free_r.w < 0)
			free_r.w = 0;
		if (free_r.h < 0)
			free_r.h = 0;
		start = end;
	}
}
