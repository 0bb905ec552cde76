/* report_cells.c — the report's treemap cells (report.h): for the packages
 * shown, the retained bytes of their objects that no object of the same
 * package dominates, by class.  One walk down the dominator tree with an
 * explicit stack (chains can be millions long) counts, per package shown,
 * its objects on the path from the top: an object is a cell's when that
 * count is 0 as the walk reaches it.  A snapshot gives each object's class
 * and package from its heap and dominators; a database from the columns
 * report_summary_db read (each package then found by climbing Outers,
 * memoized). */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/report.h"
#include "base/base.h"

#define PKG_UNKNOWN (OBJ_NONE - 1)
#define PKG_CLIMBING (OBJ_NONE - 2) /* on the chain being climbed: met again, it loops */

/* Each slot's outermost Outer, into PKG (OUTER[] may loop in a damaged
 * database: a chain that meets itself gets no package; an Outer past the
 * slots is none).  Each slot is climbed once: linear.  0, or -1 when out
 * of memory. */
static int climb_packages(uint32_t slots, const obj_t *outer, obj_t *pkg)
{
	vec chain = {0};
	for (uint32_t i = 0; i < slots; i++)
		pkg[i] = PKG_UNKNOWN;
	for (uint32_t i = 0; i < slots; i++) {
		obj_t x = (obj_t)i;
		chain.n = 0;
		while (pkg[x] == PKG_UNKNOWN && outer[x] >= 0 && (uint32_t)outer[x] < slots) {
			if (vec_push(&chain, (uint32_t)x)) {
				vec_free(&chain);
				return -1;
			}
			pkg[x] = PKG_CLIMBING;
			x = outer[x];
		}
		int loops = pkg[x] == PKG_CLIMBING;
		obj_t top = loops ? OBJ_NONE : pkg[x] != PKG_UNKNOWN ? pkg[x] : x;
		if (!loops)
			pkg[x] = top;
		for (size_t k = 0; k < chain.n; k++)
			pkg[chain.v[k]] = top;
	}
	vec_free(&chain);
	return 0;
}

static int cmp_cell(const void *a, const void *b)
{
	const report_cell *x = a, *y = b;
	if (x->pkg != y->pkg)
		return x->pkg < y->pkg ? -1 : 1;
	if (x->cls != y->cls)
		return x->cls < y->cls ? -1 : 1;
	return 0;
}

static int cmp_cell_bytes(const void *a, const void *b)
{
	const report_cell *x = a, *y = b;
	if (x->pkg != y->pkg)
		return x->pkg < y->pkg ? -1 : 1;
	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	return (x->cls > y->cls) - (x->cls < y->cls);
}

/* One step of the walk: an object and the next of its children to visit. */
typedef struct walk_frame {
	obj_t x;
	uint32_t next;
} walk_frame;

int report_cells(const retention_input *in, const dom_tree *t, const report_columns *c, const obj_t *pkgs,
		 size_t npkgs, report_cell **out, size_t *n)
{
	const dom_result *d = &in->d;
	uint32_t slots = d->slots;
	*out = NULL;
	*n = 0;
	size_t s = slots ? slots : 1;
	obj_t *cls_db = NULL, *outer_db = NULL, *pkg_db = NULL;
	const obj_t *cls, *pkg;
	int32_t *which = malloc(s * sizeof *which);
	uint32_t *onpath = calloc(npkgs ? npkgs : 1, sizeof *onpath);
	walk_frame *stack = malloc((s + 1) * sizeof *stack);
	report_cell *cells = NULL;
	size_t ncells = 0, cap = 0;
	int rc = 1;
	if (!which || !onpath || !stack) {
		error("out of memory");
		goto out;
	}
	if (in->h && d->package) {
		cls = in->h->cls;
		pkg = d->package;
	} else {
		cls_db = malloc(s * sizeof *cls_db);
		outer_db = malloc(s * sizeof *outer_db);
		pkg_db = malloc(s * sizeof *pkg_db);
		if (!cls_db || !outer_db || !pkg_db) {
			error("out of memory");
			goto out;
		}
		for (uint32_t i = 0; i < slots; i++) {
			cls_db[i] = c && i < c->n ? c->cls[i] : OBJ_NONE;
			outer_db[i] = c && i < c->n && c->outer[i] < (obj_t)slots ? c->outer[i] : OBJ_NONE;
		}
		if (climb_packages(slots, outer_db, pkg_db)) {
			error("out of memory");
			goto out;
		}
		cls = cls_db;
		pkg = pkg_db;
	}
	for (uint32_t i = 0; i < slots; i++)
		which[i] = -1;
	for (size_t k = 0; k < npkgs; k++)
		if (pkgs[k] >= 0 && (uint32_t)pkgs[k] < slots)
			which[pkgs[k]] = (int32_t)k;
	/* every tree below the top, walked depth first */
	for (uint32_t r = 0; r < slots; r++) {
		if (d->idom[r] != DOM_TOP)
			continue;
		size_t sp = 0;
		stack[sp++] = (walk_frame){(obj_t)r, t->start[r]};
		int32_t k = pkg[r] >= 0 ? which[pkg[r]] : -1;
		for (;;) {
			/* entering stack[sp-1].x: counted, and a cell's when first of its package */
			obj_t x = stack[sp - 1].x;
			if (k >= 0) {
				if (onpath[k] == 0) {
					if (grow_array((void **)&cells, &cap, ncells, sizeof *cells)) {
						error("out of memory");
						goto out;
					}
					cells[ncells++] = (report_cell){(uint32_t)k, cls[x], 1, d->retained[x]};
				}
				onpath[k]++;
			}
			/* the next child to enter, leaving the finished frames */
			obj_t next = OBJ_NONE;
			while (sp > 0) {
				walk_frame *f = &stack[sp - 1];
				if (f->next < t->start[f->x + 1]) {
					next = t->kids[f->next++];
					break;
				}
				int32_t kx = pkg[f->x] >= 0 ? which[pkg[f->x]] : -1;
				if (kx >= 0)
					onpath[kx]--;
				sp--;
			}
			if (next == OBJ_NONE)
				break;
			stack[sp++] = (walk_frame){next, t->start[next]};
			k = pkg[next] >= 0 ? which[pkg[next]] : -1;
		}
	}
	/* one cell per package and class */
	if (ncells > 1)
		qsort(cells, ncells, sizeof *cells, cmp_cell);
	size_t m = 0;
	for (size_t i = 0; i < ncells; i++) {
		if (m > 0 && cells[m - 1].pkg == cells[i].pkg && cells[m - 1].cls == cells[i].cls) {
			cells[m - 1].count++;
			cells[m - 1].bytes += cells[i].bytes;
		} else {
			cells[m++] = cells[i];
		}
	}
	if (m > 1)
		qsort(cells, m, sizeof *cells, cmp_cell_bytes);
	*out = cells;
	*n = m;
	cells = NULL;
	rc = 0;
out:
	free(cells);
	free(which);
	free(onpath);
	free(stack);
	free(cls_db);
	free(outer_db);
	free(pkg_db);
	return rc;
}
