/* input.c — a database or an analysed snapshot as one input (see input.h). */
#include "sql/input.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "sql/db_heap.h"
#include "sql/diff_db.h"
#include "sql/retention_db.h"
#include "sql/view_db.h"

static int open_database(input *in, const char *path, int what, int policy, char *err, size_t errsize)
{
	if (!(in->v = view_db_open(path, err, errsize)))
		return -1;
	if ((what & PIPE_DOM) && retention_db_load(path, in->v->slots, policy, &in->d, err, errsize)) {
		input_close(in);
		return -1;
	}
	return 0;
}

static int open_snapshot(input *in, const char *path, int what, const pipeline_options *o, char *err, size_t errsize)
{
	pipeline *p = calloc(1, sizeof *p);
	if (!p) {
		snprintf(err, errsize, "out of memory");
		return -1;
	}
	if (pipeline_load(p, path, o, err, errsize)) {
		free(p);
		return -1;
	}
	in->p = p;
	in->h = &p->h;
	in->r = &p->r;
	if (pipeline_need(p, what | PIPE_GC, err, errsize))
		goto fail;
	if (what & PIPE_DOM) { /* moved out: the input's, as a database's are */
		in->d = p->dom;
		memset(&p->dom, 0, sizeof p->dom);
		p->done &= ~PIPE_DOM;
	}
	/* borrowed: the view builds its indexes (and ugc-gc(7)'s retention
	 * step, when deferred) only if a command asks, so a large snapshot
	 * pays only for what is printed */
	if (!(in->v = view_heap_borrow(&p->h, &p->r, err, errsize)))
		goto fail;
	progress_phase(NULL);
	return 0;
fail:
	input_close(in);
	return -1;
}

int input_open(input *in, const char *path, int what, const pipeline_options *o, char *err, size_t errsize)
{
	memset(in, 0, sizeof *in);
	in->path = path;
	if (file_check_input(path, err, errsize)) /* before anything opens it: a FIFO would block the open */
		return -1;
	if (is_sqlite_file(path))
		return open_database(in, path, what, o ? o->policy : -1, err, errsize);
	return open_snapshot(in, path, what, o, err, errsize);
}

int input_dominators(input *in, int policy, dom_result *out, char *err, size_t errsize)
{
	if (!in->p) {
		snprintf(err, errsize, "%s: a database holds one policy (%s); give the snapshot to compare with %s", in->path,
			 dom_policy_names[in->d.policy], dom_policy_names[policy]);
		return -1;
	}
	return pipeline_dominators(in->p, policy, out, err, errsize);
}

void input_close(input *in)
{
	dom_free(&in->d);
	if (in->v)
		in->v->ops->close(in->v);
	if (in->p) { /* after the view, which only borrowed it */
		pipeline_free(in->p);
		free(in->p);
	}
	memset(in, 0, sizeof *in);
}

view *input_open_view(const char *path, char *err, size_t errsize)
{
	if (file_check_input(path, err, errsize))
		return NULL;
	if (is_sqlite_file(path))
		return view_db_open(path, err, errsize);
	pipeline p;
	if (pipeline_load(&p, path, NULL, err, errsize))
		return NULL;
	heap *h = malloc(sizeof *h);
	gc_result *r = malloc(sizeof *r);
	view *v = NULL;
	if (!h || !r)
		snprintf(err, errsize, "out of memory");
	else if (pipeline_need(&p, PIPE_GC, err, errsize) == 0) { /* the view takes the heap and its GC over */
		*h = p.h;
		*r = p.r;
		memset(&p.h, 0, sizeof p.h);
		memset(&p.r, 0, sizeof p.r);
		if ((v = view_heap_open(h, r, err, errsize))) {
			h = NULL;
			r = NULL;
		} else {
			gc_result_free(r);
			heap_free(h);
		}
	}
	pipeline_free(&p);
	free(h);
	free(r);
	progress_phase(NULL); /* the answer starts on a clean line */
	return v;
}

int input_open_heap(pipeline *p, const char *path, const pipeline_options *o, char *err, size_t errsize)
{
	if (file_check_input(path, err, errsize))
		return -1;
	if (!is_sqlite_file(path))
		return pipeline_load(p, path, o, err, errsize);
	heap h;
	gc_options opt = {0};
	if (db_heap_load(path, &h, &opt, err, errsize))
		return -1;
	pipeline_adopt(p, path, &h, &opt, o);
	return 0;
}

int input_diff_side(const char *path, int threads, diff_side *s, char *err, size_t errsize)
{
	memset(s, 0, sizeof *s); /* freeable whatever happens */
	if (file_check_input(path, err, errsize))
		return -1;
	if (is_sqlite_file(path))
		return diff_side_from_db(path, s, err, errsize) ? -1 : 0;
	pipeline p;
	pipeline_options o = PIPELINE_OPTIONS_INIT;
	o.threads = threads;
	if (pipeline_load(&p, path, &o, err, errsize))
		return -1;
	int rc = pipeline_need(&p, PIPE_GC | PIPE_FINDINGS, err, errsize);
	if (rc == 0 && diff_side_from_heap(&p.h, &p.r, &p.f, s)) {
		snprintf(err, errsize, "out of memory comparing %s", path);
		rc = -1;
	}
	pipeline_free(&p);
	return rc;
}
