/* cmd_dominators.c — `ugc-analyze dominators`: an object's dominator chain
 * up to the top, and the objects it dominates, largest first, level by
 * level (Eclipse MAT's dominator tree view, as text, JSON or CSV). */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "analysis/analysis.h"
#include "cli/retention_input.h"

/* One level of the walk down: the children of one object (a range of the
 * dominator tree's rows). */
typedef struct frame {
	const obj_t *kids;
	long total;   /* children in all */
	size_t n, at; /* shown (at most --limit), next to print */
} frame;

static int print_object(const retention_input *in, obj_t x, const char *rel, int depth, enum out_format fmt,
			long children, int first)
{
	obj_info o;
	if (in->v->ops->describe(in->v, x, &o) != 0)
		return error("%s", in->v->err[0] ? in->v->err : "an object the results name is missing");
	unsigned long long ret = in->d.retained[x];
	if (fmt == FMT_TEXT) {
		if (strcmp(rel, "chain") == 0)
			printf("  #%d %s  retained %s, shallow %s\n", x, object_text(in->v, &o), size_text(ret),
			       size_text(o.size));
		else
			printf("%*s%10s  #%d %s  (shallow %s, dominates %s directly)\n", 2 + 2 * depth, "", size_text(ret), x,
			       object_text(in->v, &o), size_text(o.size), count_text((unsigned long long)children));
	} else if (fmt == FMT_CSV) {
		printf("%s,%d,%d,", rel, depth, x);
		csv_str(stdout, o.class_name);
		printf(",");
		csv_str(stdout, o.path);
		printf(",%u,%llu\n", o.size, ret);
	} else {
		printf("%s{\"idx\":%d,\"class\":", first ? "" : ",", x);
		json_str(stdout, o.class_name);
		printf(",\"path\":");
		json_str(stdout, o.path);
		json_node_id(stdout, &o);
		printf(",\"shallow\":%u,\"retained\":%llu", o.size, ret);
		if (strcmp(rel, "chain") == 0)
			printf("}");
		else
			printf(",\"children\":{\"total\":%ld,\"items\":[", children);
	}
	obj_info_free(&o);
	return 0;
}

static frame frame_of(const dom_tree *t, obj_t x, size_t limit)
{
	frame f = {t->kids + t->start[x], (long)(t->start[x + 1] - t->start[x]), 0, 0};
	f.n = (size_t)f.total < limit ? (size_t)f.total : limit;
	return f;
}

struct dominators_opts {
	int policy, format; /* policy -1: the input's */
	long long depth, limit;
};

#define D struct dominators_opts
static const option options[] = {
	OPT_INT(0, "depth", D, depth, 0, 1000, "N", "levels of dominated objects to show (default 1; 0 counts them)"),
	OPT_LIMIT_RANGE(D, limit, 0, 1000000, "objects shown per level and parent (default 10, 0: all)"),
	OPT_TOP_ALIAS(D, limit, 0, 1000000),
	OPT_POLICY(D, policy, "gc (default), refs, refs+weak or refs+weak+soft"),
	OPT_FORMAT(D, format, "text (default), json or csv"),
	OPT_END(),
};
#undef D

const command command_dominators = {
	"dominators", cmd_dominators, "an object's dominator chain and the objects it keeps alive",
	"usage: ugc-analyze dominators INPUT OBJ [--depth N] [--limit N] [--policy P]\n"
	"                              [--format text|json|csv]\n",
	"Prints OBJ's shallow and retained bytes, its dominator chain from the top (each\n"
	"object on it is on every path that keeps OBJ alive), and the objects it dominates\n"
	"directly, largest first, one level at a time.\n",
	options, 2, NULL,
};

/* X is not reached under the policy: say so. */
static void print_unreached(obj_t x, const obj_info *o, const dom_result *d, enum out_format fmt)
{
	if (fmt == FMT_TEXT)
		printf("#%d %s %s\n  not reached under policy %s: no dominator, no retained size%s\n", x, o->class_name,
		       o->path, dom_policy_names[d->policy], d->policy == POLICY_GC ? " (the GC purges it)" : "");
	else if (fmt == FMT_CSV)
		printf("relation,depth,idx,class,path,shallow,retained\n");
	else
	{
		json_begin("dominators");
		printf(",\"idx\":%d,\"class\":", x);
		json_str(stdout, o->class_name);
		printf(",\"path\":");
		json_str(stdout, o->path);
		printf(",\"policy\":\"%s\",\"reached\":false", dom_policy_names[d->policy]);
		json_end();
	}
}

/* X's heading and its dominator chain, from the top down; a damaged
 * database cannot make the chain loop.  0, or 1 after printing the error. */
static int print_chain(const retention_input *in, obj_t x, const obj_info *o, enum out_format fmt)
{
	const dom_result *d = &in->d;
	size_t nchain = 0;
	obj_t *chain = malloc(((size_t)d->slots + 1) * sizeof *chain);
	if (!chain)
		return error("out of memory");
	for (obj_t a = d->idom[x]; a >= 0; a = d->idom[a]) {
		if (nchain == d->slots) {
			free(chain);
			return error("%s: the dominator tree loops (a damaged database)", in->path);
		}
		chain[nchain++] = a;
	}
	if (fmt == FMT_TEXT) {
		printf("#%d %s\n  shallow %s, retained %s (policy %s)\n", x, object_text(in->v, o), size_text(o->size),
		       size_text(d->retained[x]), dom_policy_names[d->policy]);
		printf("dominator chain, from the top:\n  (top)\n");
	} else if (fmt == FMT_CSV) {
		printf("relation,depth,idx,class,path,shallow,retained\n");
	} else {
		json_begin("dominators");
		printf(",\"idx\":%d,\"class\":", x);
		json_str(stdout, o->class_name);
		printf(",\"path\":");
		json_str(stdout, o->path);
		json_node_id(stdout, o);
		printf(",\"reached\":true,\"shallow\":%u,\"retained\":%llu,\"policy\":\"%s\",\"chain\":[", o->size,
		       (unsigned long long)d->retained[x], dom_policy_names[d->policy]);
	}
	int rc = 0;
	for (size_t k = nchain; k > 0 && rc == 0; k--)
		rc = print_object(in, chain[k - 1], "chain", 0, fmt, 0, k == nchain);
	free(chain);
	return rc;
}

/* The objects X dominates, DEPTH levels down, LIMIT per object, walked
 * with a stack of frames (no recursion).  0, or 1 after printing the error. */
static int print_dominated(const retention_input *in, obj_t x, long long depth, long long limit, enum out_format fmt)
{
	dom_tree tree = {0};
	frame *stack = calloc((size_t)depth + 1, sizeof *stack);
	if (!stack || dom_tree_build(&in->d, &tree)) {
		free(stack);
		return error("out of memory");
	}
	size_t cap = limit == 0 ? SIZE_MAX : (size_t)limit; /* --limit 0: all */
	stack[0] = frame_of(&tree, x, cap);
	if (fmt == FMT_TEXT)
		printf("dominated directly: %s object%s%s\n", count_text((unsigned long long)stack[0].total),
		       plural_s((unsigned long long)stack[0].total),
		       depth == 0 ? "" : ", largest first");
	else if (fmt == FMT_JSON)
		printf("],\"children\":{\"total\":%ld,\"items\":[", stack[0].total);
	int sp = depth > 0 ? 1 : 0, rc = 0;
	while (sp > 0 && rc == 0) {
		frame *f = &stack[sp - 1];
		if (f->at == f->n) {
			if (fmt == FMT_TEXT && (size_t)f->total > f->n)
			{
				printf("%*s", 2 + 2 * (sp - 1), "");
				print_shown(f->n, (size_t)f->total, "objects");
			}
			sp--;
			if (fmt == FMT_JSON && sp > 0) /* the listing's shown count follows its items */
				printf("],\"shown\":%zu}}", f->n);
			continue;
		}
		obj_t c = f->kids[f->at++];
		frame next = frame_of(&tree, c, cap);
		rc = print_object(in, c, "child", sp, fmt, next.total, f->at == 1);
		if (sp < depth)
			stack[sp++] = next;
		else if (fmt == FMT_JSON)
			printf("],\"shown\":0}}");
	}
	if (rc == 0 && fmt == FMT_JSON) {
		printf("],\"shown\":%zu}", depth > 0 ? stack[0].n : 0);
		json_end();
	}
	dom_tree_free(&tree);
	free(stack);
	return rc;
}

int cmd_dominators(int argc, char **argv)
{
	struct dominators_opts opts = {-1, FMT_TEXT, 1, 10};
	const char *operands[2] = {NULL, NULL};
	int parsed = parse_options(&command_dominators, argc, argv, &opts, operands);
	if (parsed < 0)
		return OPT_EXIT_STATUS(parsed);
	const char *input = operands[0], *sel = operands[1];
	if (!input || !sel)
		return usage_error("dominators", "needs an INPUT and an OBJ");
	enum out_format fmt = opts.format;
	retention_input in;
	if (retention_open(input, opts.policy, 0, 0, &in))
		return 1;
	obj_t *objs = NULL;
	size_t nobjs;
	obj_info o;
	int rc = select_objects(in.v, sel, NULL, NULL, &objs, &nobjs);
	obj_t x = rc ? OBJ_NONE : objs[0];
	if (rc == 0 && in.v->ops->describe(in.v, x, &o) != 0)
		rc = error("%s", in.v->err[0] ? in.v->err : "no such object");
	else if (rc == 0 && in.d.idom[x] == OBJ_NONE) {
		print_unreached(x, &o, &in.d, fmt);
		obj_info_free(&o);
	} else if (rc == 0) {
		rc = print_chain(&in, x, &o, fmt);
		obj_info_free(&o);
		if (rc == 0 && fmt == FMT_TEXT)
			printf("  #%d (this object)\n", x);
		if (rc == 0)
			rc = print_dominated(&in, x, opts.depth, opts.limit, fmt);
	}
	free(objs);
	retention_close(&in);
	return rc;
}
