/* retention_input.c — opening a snapshot or a database with its dominators
 * (see retention_input.h). */
#include "retention_input.h"

#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "progress.h"
#include "retention_db.h"
#include "trace.h"
#include "view_db.h"

int retention_open(const char *path, int policy, int groups, retention_input *in)
{
	memset(in, 0, sizeof *in);
	in->path = path;
	in->groups = groups;
	char err[1024];
	if (is_sqlite_file(path)) {
		if (!(in->v = open_input(path)))
			return 1;
		if (retention_db_load(path, in->v->slots, policy, &in->d, err, sizeof err)) {
			close_input(in->v);
			return die("%s", err);
		}
		return 0;
	}
	in->h = malloc(sizeof *in->h);
	in->r = malloc(sizeof *in->r);
	if (!in->h || !in->r) {
		free(in->h);
		free(in->r);
		return die("out of memory");
	}
	/* §3's distances (12 bytes an object) are left to the view, which
	 * computes them if the command asks (after the dominators, whose
	 * work arrays are then gone) */
	if (analyse_snapshot(path, default_threads(), 1, in->h, in->r)) {
		free(in->h);
		free(in->r);
		return 1;
	}
	trace_point("gc");
	progress_phase("retention");
	if ((groups ? dom_compute : dom_compute_objects)(in->h, in->r, policy < 0 ? POLICY_GC : policy, &in->d)) {
		gc_result_free(in->r);
		heap_free(in->h);
		free(in->h);
		free(in->r);
		return die("out of memory computing dominators");
	}
	/* borrowed: §3, the reverse rows, instance lists and findings the
	 * query view could build are built only if a command asks for them
	 * (top never does), so a large snapshot pays only for what is printed */
	trace_point("dominators");
	in->v = view_heap_borrow(in->h, in->r, err, sizeof err);
	progress_phase(NULL);
	if (!in->v) {
		dom_free(&in->d);
		gc_result_free(in->r);
		heap_free(in->h);
		free(in->h);
		free(in->r);
		return die("%s", err);
	}
	input_ready_at = now_seconds();
	return 0;
}

int retention_other(retention_input *in, int policy, dom_result *out)
{
	if (policy == in->d.policy)
		return die("--vs names the policy already shown (%s)", dom_policy_names[policy]);
	if (!in->h)
		return die("%s: a database holds one policy (%s); give the snapshot to compare with %s", in->path,
			   dom_policy_names[in->d.policy], dom_policy_names[policy]);
	progress_phase("retention");
	int rc = (in->groups ? dom_compute : dom_compute_objects)(in->h, in->r, policy, out);
	progress_phase(NULL);
	return rc ? die("out of memory computing dominators") : 0;
}

void retention_close(retention_input *in)
{
	dom_free(&in->d);
	if (in->v)
		close_input(in->v);
	if (in->h) { /* the view only borrowed them */
		gc_result_free(in->r);
		heap_free(in->h);
		free(in->h);
		free(in->r);
	}
	memset(in, 0, sizeof *in);
}
