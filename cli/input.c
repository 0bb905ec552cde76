/* input.c — what the query commands share: opening a snapshot or an
 * analysis database as a view, and resolving object selectors. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "base/base.h"
#include "analysis/analysis.h"
#include "snapshot/snapshot.h"
#include "sql/sql.h"

double input_ready_at, answered_at;

int default_threads(void)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	return cores > 0 && cores < 64 ? (int)cores : 1;
}

gc_options snapshot_gc_options(const heap *h, int threads)
{
	return (gc_options){.mode = h->mode, .keep_flags = gc_default_keep_flags(h->mode), .threads = threads};
}

int analyse_snapshot(const char *path, int threads, heap *h, gc_result *r)
{
	if (load_or_die(path, h))
		return 1;
	trace_point("load");
	gc_options opt = snapshot_gc_options(h, threads);
	progress_phase("gc");
	if (gc_run(h, &opt, r)) {
		heap_free(h);
		return die("out of memory running the GC on %s", path);
	}
	return 0;
}

void close_input(view *v)
{
	fflush(stdout);
	answered_at = now_seconds();
	v->ops->close(v);
}

view *open_input(const char *path)
{
	char err[SNAP_ERR_MAX];
	if (is_sqlite_file(path)) {
		view *v = view_db_open(path, err, sizeof err);
		if (!v)
			die("%s", err);
		input_ready_at = now_seconds();
		return v;
	}
	heap *h = malloc(sizeof *h);
	gc_result *r = malloc(sizeof *r);
	if (!h || !r) {
		free(h);
		free(r);
		die("out of memory");
		return NULL;
	}
	if (analyse_snapshot(path, default_threads(), h, r)) {
		free(h);
		free(r);
		return NULL;
	}
	view *v = view_heap_open(h, r, err, sizeof err);
	progress_phase(NULL); /* the answer starts on a clean line */
	input_ready_at = now_seconds();
	if (!v) {
		gc_result_free(r);
		heap_free(h);
		free(h);
		free(r);
		die("%s", err);
	}
	return v;
}

int selection_usage(const char *cmd, const char *input, const char *sel, const char *glob, const char *cls)
{
	if (!input || (!sel && !glob && !cls))
		return usage_error(cmd, "needs INPUT and OBJ (or --name/--class)");
	if (sel && (glob || cls))
		return usage_error(cmd, "OBJ and --name/--class exclude each other");
	return 0;
}

int select_objects(view *v, const char *sel, const char *glob, const char *cls, obj_t **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	if (sel) {
		char err[1024];
		obj_t one;
		int rc = query_select(v, sel, &one, err, sizeof err);
		if (rc < 0)
			return die("%s", v->err);
		if (rc > 0)
			return die("%s", err);
		*out = malloc(sizeof **out);
		if (!*out)
			return die("out of memory");
		**out = one;
		*n = 1;
		return 0;
	}
	if (v->ops->find_glob(v, glob, cls, out, n))
		return die("%s", v->err[0] ? v->err : "out of memory");
	if (*n == 0)
		return die("no object matches%s%s%s%s", glob ? " --name " : "", glob ? glob : "", cls ? " --class " : "",
			   cls ? cls : "");
	return 0;
}
