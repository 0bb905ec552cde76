/* measures.c — a summary of one input for check and history add
 * (measures.h): a snapshot's from retention_open's class and package groups
 * and the view's findings, a database's from its own tables
 * (sql/history.h, history_read_db). */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/measures.h"
#include "cli/retention_input.h"
#include "base/base.h"

static int cmp_row(const void *a, const void *b)
{
	const hist_row *x = a, *y = b;
	if (x->kind != y->kind)
		return x->kind - y->kind;
	return strcmp(x->name, y->name);
}

void measures_free(measures *m)
{
	for (size_t i = 0; i < m->b.n; i++)
		free((char *)m->b.rows[i].name);
	free(m->b.rows);
	*m = (measures){0};
}

int measures_load(const char *path, measures *m)
{
	*m = (measures){0};
	if (is_sqlite_file(path)) {
		/* a database's own sums: no object is read (136,000 packages
		 * described one by one would take seconds) */
		char err[1024];
		if (history_read_db(path, &m->b, err, sizeof err))
			return error("%s", err);
		qsort(m->b.rows, m->b.n, sizeof *m->b.rows, cmp_row);
		return 0;
	}
	retention_input in;
	if (retention_open(path, -1, 1, 1, &in))
		return 1;
	m->v8 = in.v->v8;
	const dom_result *d = &in.d;
	size_t cap = 1 + (size_t)d->nclasses + d->npackages + FK_COUNT;
	finding_rows fs = {0};
	int rc = 1;
	if (!(m->b.rows = calloc(cap, sizeof *m->b.rows))) {
		error("out of memory");
		goto out;
	}
	hist_row *r = m->b.rows;
	r[m->b.n++] = (hist_row){HIST_TOTAL, strdup(""), d->reached, d->reached_bytes};
	for (int g = 0; g < 2; g++) {
		const dom_group *v = g ? d->packages : d->classes;
		uint32_t n = g ? d->npackages : d->nclasses;
		for (uint32_t j = 0; j < n; j++) {
			obj_info o;
			if (in.v->ops->describe(in.v, v[j].key, &o) != 0) {
				error("%s", in.v->err[0] ? in.v->err : "an object the results name is missing");
				goto out;
			}
			r[m->b.n++] = (hist_row){g ? HIST_PACKAGE : HIST_CLASS, strdup(g ? o.path : o.name), v[j].count,
						 v[j].retained};
			obj_info_free(&o);
		}
	}
	if (!m->v8) {
		if (in.v->ops->findings(in.v, OBJ_NONE, &fs)) {
			error("%s", in.v->err);
			goto out;
		}
	}
	/* every kind, those with none too: a trend or growth sees the 0 */
	for (int k = 0; k < FK_COUNT; k++) {
		uint64_t c = 0;
		for (size_t i = 0; i < fs.n; i++)
			c += strcmp(fs.v[i].kind, finding_kind_names[k]) == 0;
		r[m->b.n++] = (hist_row){HIST_FINDING, strdup(finding_kind_names[k]), c, 0};
	}
	for (size_t i = 0; i < m->b.n; i++)
		if (!r[i].name) {
			error("out of memory");
			goto out;
		}
	qsort(r, m->b.n, sizeof *r, cmp_row);
	rc = 0;
out:
	free(fs.v);
	retention_close(&in);
	if (rc)
		measures_free(m);
	return rc;
}

/* The first row at or after KIND (rows are sorted by kind). */
static size_t kind_start(const measures *m, int kind)
{
	size_t lo = 0, hi = m->b.n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->b.rows[mid].kind < kind)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

size_t measures_kind(const measures *m, int kind, size_t *first)
{
	*first = kind_start(m, kind);
	return kind_start(m, kind + 1) - *first;
}

size_t measures_find(const measures *m, int kind, const char *name, size_t *first)
{
	size_t at, n = measures_kind(m, kind, &at);
	size_t lo = at, hi = at + n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(m->b.rows[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t e = lo;
	while (e < at + n && strcmp(m->b.rows[e].name, name) == 0)
		e++;
	*first = lo;
	return e - lo;
}

int leak_worst_load(const char *a, const char *b, const char *c, leak_worst *w)
{
	*w = (leak_worst){0};
	diff_side sa = {0}, sb = {0}, sc = {0};
	diff_result ab = {0}, bc = {0};
	diff_leaks l = {0};
	char err[SNAP_ERR_MAX];
	int rc = 1;
	if (input_diff_side(a, 1, &sa, err, sizeof err) || input_diff_side(b, 1, &sb, err, sizeof err) ||
	    input_leak_side(c, 1, &sc, err, sizeof err)) {
		error("%s", err);
		goto out;
	}
	if (diff_compare(&sa, &sb, &ab) || diff_compare(&sb, &sc, &bc) ||
	    diff_leak_groups(&sb, &sc, &ab, &bc, SIZE_MAX, &l)) {
		error("out of memory grouping the leaks of %s", c);
		goto out;
	}
	w->groups = (uint32_t)l.n;
	const diff_leak_group *by_retained = NULL, *by_objects = NULL;
	for (size_t g = 0; g < l.n; g++) {
		const diff_leak_group *x = &l.v[g];
		if (!by_retained || x->retained > by_retained->retained)
			by_retained = x;
		if (!by_objects || x->count > by_objects->count)
			by_objects = x;
	}
	if (by_retained) {
		w->retained = by_retained->retained;
		w->objects = by_objects->count;
		if (!(w->retained_chain = strdup(by_retained->chain ? by_retained->chain : "")) ||
		    !(w->objects_chain = strdup(by_objects->chain ? by_objects->chain : ""))) {
			error("out of memory");
			goto out;
		}
	}
	rc = 0;
out:
	if (rc)
		leak_worst_free(w);
	diff_leaks_free(&l);
	diff_result_free(&ab);
	diff_result_free(&bc);
	diff_side_free(&sa);
	diff_side_free(&sb);
	diff_side_free(&sc);
	return rc;
}

void leak_worst_free(leak_worst *w)
{
	free(w->retained_chain);
	free(w->objects_chain);
	*w = (leak_worst){0};
}
