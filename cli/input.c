/* input.c — what the query commands share: their input opened (sql/input.h)
 * with its errors printed and its times noted for UGC_TRACE, and object
 * selectors resolved. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "base/base.h"
#include "analysis/analysis.h"
#include "snapshot/snapshot.h"
#include "cli/retention_input.h"
#include "sql/sql.h"

double input_ready_at, answered_at;

/* The answer is out: note when (UGC_TRACE times the answer, not the cleanup). */
static void note_answered(void)
{
	fflush(stdout);
	answered_at = now_seconds();
}

void close_input(view *v)
{
	note_answered();
	v->ops->close(v);
}

view *open_input(const char *path)
{
	char err[SNAP_ERR_MAX];
	view *v = input_open_view(path, err, sizeof err);
	if (!v)
		error("%s", err);
	else
		input_ready_at = now_seconds();
	return v;
}

int retention_open(const char *path, int policy, int groups, int gc, retention_input *in)
{
	char err[SNAP_ERR_MAX];
	pipeline_options o = PIPELINE_OPTIONS_INIT;
	o.policy = policy;
	o.objects_only = !groups;
	o.defer_retention = 1; /* the view computes it if a command asks */
	if (input_open(in, path, (gc ? PIPE_GC : 0) | PIPE_DOM, &o, err, sizeof err))
		return error("%s", err);
	input_ready_at = now_seconds();
	return 0;
}

int retention_other(retention_input *in, int policy, dom_result *out)
{
	char err[SNAP_ERR_MAX];
	if (policy == in->d.policy)
		return error("--vs names the policy already shown (%s)", dom_policy_names[policy]);
	if (input_dominators(in, policy, out, err, sizeof err))
		return error("%s", err);
	return 0;
}

void retention_close(retention_input *in)
{
	note_answered();
	input_close(in);
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
			return error("%s", v->err);
		if (rc > 0)
			return error("%s", err);
		*out = malloc(sizeof **out);
		if (!*out)
			return error("out of memory");
		**out = one;
		*n = 1;
		return 0;
	}
	if (v->ops->find_glob(v, glob, cls, out, n))
		return error("%s", v->err[0] ? v->err : "out of memory");
	if (*n == 0)
		return error("no object matches%s%s%s%s", glob ? " --name " : "", glob ? glob : "", cls ? " --class " : "",
			   cls ? cls : "");
	return 0;
}
