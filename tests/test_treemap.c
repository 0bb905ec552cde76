/* test_treemap.c — cli/treemap.c, the squarified layout: the example of
 * Bruls, Huizing and van Wijk (areas 6 6 4 3 2 2 1 in a 6 x 4 rectangle)
 * laid out by hand, row by row, by the rule treemap.h states; and for a
 * longer list, what any treemap must hold: each area proportional to its
 * value, inside the rectangle, no two overlapping. */
#include <math.h>

#include "cli/treemap.h"
#include "tests/unit.h"

#define NEAR(a, b) (fabs((a) - (b)) < 1e-3)

static int rect_is(tm_rect r, double x, double y, double w, double h)
{
	return NEAR(r.x, x) && NEAR(r.y, y) && NEAR(r.w, w) && NEAR(r.h, h);
}

TEST(treemap_lays_the_papers_example_row_by_row)
{
	const double v[] = {6, 6, 4, 3, 2, 2, 1};
	tm_rect r[7];
	treemap_layout(v, 7, (tm_rect){0, 0, 6, 4}, r);
	/* along the shorter side (4): [6] is 1.5 x 4 (ratio 2.67), [6 6] two
	 * 3 x 2 (1.5), [6 6 4] a strip 4 wide (ratio 4): the row is 6 6 */
	CHECK(rect_is(r[0], 0, 0, 3, 2));
	CHECK(rect_is(r[1], 0, 2, 3, 2));
	/* 3 x 4 left, along its top (3): [4] 3 x 1.333 (2.25), [4 3] a strip
	 * 7/3 high, 12/7 and 9/7 wide (worst 1.81), [4 3 2] worst 4.5 */
	CHECK(rect_is(r[2], 3, 0, 12.0 / 7, 7.0 / 3));
	CHECK(rect_is(r[3], 3 + 12.0 / 7, 0, 9.0 / 7, 7.0 / 3));
	/* 3 x 5/3 left, along its left side: [2] 1.2 wide (1.39), [2 2] 2.88 */
	CHECK(rect_is(r[4], 3, 7.0 / 3, 1.2, 5.0 / 3));
	/* 1.8 x 5/3: [2] again (1.39; [2 1] is 3.24), then 1 fills the rest */
	CHECK(rect_is(r[5], 4.2, 7.0 / 3, 1.2, 5.0 / 3));
	CHECK(rect_is(r[6], 5.4, 7.0 / 3, 0.6, 5.0 / 3));
}

TEST(treemap_areas_are_proportional_inside_and_disjoint)
{
	enum { N = 60 };
	double v[N], total = 0;
	for (int i = 0; i < N; i++) /* decreasing, of several magnitudes */
		total += v[i] = 1000.0 / (1 + i) + (N - i);
	tm_rect r[N], area = {10, 20, 1000, 460};
	treemap_layout(v, N, area, r);
	double sum = 0;
	for (int i = 0; i < N; i++) {
		double a = r[i].w * r[i].h;
		sum += a;
		CHECK(fabs(a - v[i] / total * area.w * area.h) < 1e-6 * area.w * area.h);
		CHECK(r[i].w >= 0 && r[i].h >= 0);
		CHECK(r[i].x >= area.x - 1e-9 && r[i].y >= area.y - 1e-9);
		CHECK(r[i].x + r[i].w <= area.x + area.w + 1e-6 && r[i].y + r[i].h <= area.y + area.h + 1e-6);
		for (int j = 0; j < i; j++) {
			double ox = fmin(r[i].x + r[i].w, r[j].x + r[j].w) - fmax(r[i].x, r[j].x);
			double oy = fmin(r[i].y + r[i].h, r[j].y + r[j].h) - fmax(r[i].y, r[j].y);
			CHECK(ox <= 1e-6 || oy <= 1e-6);
		}
	}
	CHECK(fabs(sum - area.w * area.h) < 1e-6 * area.w * area.h);
}

TEST(treemap_gives_zero_values_empty_rectangles)
{
	const double v[] = {5, 0, 0};
	tm_rect r[3];
	treemap_layout(v, 3, (tm_rect){0, 0, 10, 10}, r);
	CHECK(rect_is(r[0], 0, 0, 10, 10));
	CHECK(r[1].w == 0 && r[1].h == 0 && r[2].w == 0 && r[2].h == 0);
	treemap_layout(v + 1, 2, (tm_rect){0, 0, 10, 10}, r); /* nothing to lay */
	CHECK(r[0].w == 0 && r[1].w == 0);
}
