/* cmd_path.c — `ugc-analyze path`: the retention chains that keep an object
 * alive (the shortest, one a root, every distinct one, or the direct
 * referencers), in the engine's reference-chain layout, JSON, CSV or
 * Graphviz, from a snapshot or a database. */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

enum path_mode { PM_SHORTEST, PM_ROOTS, PM_ALL, PM_DIRECT };

/* The options of one path run. */
struct path_ctx {
	enum path_mode mode;
	size_t max;   /* --limit: chains for --roots and --all, referencers shown for --direct */
	int external;
	enum out_format fmt;
	int dot;      /* --format dot (FMT is then unused) */
};

static int path_one(view *v, obj_t x, const struct path_ctx *p, int first)
{
	obj_info o;
	if (v->ops->object(v, x, &o))
		return error("%s", v->err);
	chains cs = {0};
	int rc = 0;
	if (p->mode == PM_DIRECT)
		rc = query_direct(v, x, &cs);
	else if (p->mode == PM_SHORTEST && !p->external)
		rc = query_shortest(v, x, &cs);
	else if (o.reachable)
		rc = query_chains(v, x, p->mode == PM_ALL ? CHAINS_ALL : CHAINS_ROOTS, p->mode == PM_SHORTEST ? 1 : p->max,
				  p->external, 0, &cs);
	if (rc) {
		obj_info_free(&o);
		chains_free(&cs);
		return error("%s", v->err);
	}
	const char *status = !o.reachable ? "unreachable" : RK_IS_ROOT(o.root_kind) ? "root"
			     : o.distance == UINT32_MAX ? "cluster-only" : "reachable";
	/* --direct lists them all, then shows at most --limit (said in text) */
	size_t found = cs.n;
	if (p->mode == PM_DIRECT && p->max < cs.n)
		cs.n = p->max;
	if (p->dot) {
		print_chains_dot(v, stdout, &cs, x);
	} else if (p->fmt == FMT_TEXT) {
		printf("#%d %s: ", x, object_text(v, &o));
		if (p->mode == PM_DIRECT)
			printf("%s direct referencer%s\n", count_text(found), plural_s(found));
		else if (!o.reachable)
			printf(v->v8 ? "unreachable: nothing the root reaches retains it, because\n"
				     : "unreachable: this GC purges it, because\n");
		else if (RK_IS_ROOT(o.root_kind))
			printf("a root: %s\n", (v->v8 ? v8_root_reason : root_reason)(o.root_kind));
		else if (o.distance == UINT32_MAX)
			printf("alive only through cluster lists (cluster #%d): no reference chain reaches it\n", o.cluster);
		else
			printf("%s %s%s%s%s\n", count_text(cs.n), v->v8 ? "retainer path" : "chain", plural_s(cs.n),
			       cs.truncated ? " (search budget reached)" : "",
			       cs.limited && p->mode != PM_SHORTEST ? " (--limit reached: there may be more)" : "");
		if (!o.reachable && p->mode != PM_DIRECT)
			rc = explain_unreachable(v, x, p->fmt);
		for (size_t c = 0; c < cs.n; c++)
			print_chain_text(v, stdout, &cs.v[c]);
		if (p->mode == PM_DIRECT)
			print_shown(cs.n, found, "direct referencers");
	} else if (p->fmt == FMT_JSON) {
		printf("%s{\"object\":", first ? "" : ",\n");
		print_object_json(&o);
		printf(",\"status\":\"%s\",\"reason\":", status);
		json_str(stdout, o.reachable ? (v->v8 ? v8_root_reason : root_reason)(o.root_kind) : "unreachable");
		printf(",\"truncated\":%s,\"limited\":%s,\"chains\":[", cs.truncated ? "true" : "false",
		       (cs.limited && p->mode != PM_SHORTEST) || cs.n < found ? "true" : "false");
		for (size_t c = 0; c < cs.n; c++) {
			if (c)
				putchar(',');
			print_chain_json(v, stdout, &cs.v[c]);
		}
		printf("]}");
	} else {
		print_chains_csv(v, stdout, &cs);
	}
	cs.n = found;
	chains_free(&cs);
	obj_info_free(&o);
	return rc;
}

int path_shortest(view *v, obj_t x, enum out_format fmt, int first)
{
	struct path_ctx p = {PM_SHORTEST, 1, 0, fmt, 0};
	return path_one(v, x, &p, first);
}

static int path_cb(view *v, obj_t x, int first, void *p)
{
	return path_one(v, x, p, first);
}

static const char *const path_formats[] = {"text", "json", "csv", "dot"};

#define Q query_args
static const option path_options[] = {
	OPT_FLAG(0, "roots", Q, roots, "the shortest chain of each distinct root, nearest roots first"),
	OPT_FLAG(0, "all", Q, all, "chains that differ in the objects they pass through, shortest first"),
	OPT_FLAG(0, "direct", Q, direct, "direct referencers only, as one-hop chains"),
	OPT_LIMIT_RANGE(Q, limit, 0, 1000000,
			"at most N chains with --roots or --all (default 100; 0: all, up\nto 1,000,000); with --direct, referencers shown (text: 100\nunless given; JSON, CSV, DOT: all unless given; 0: all)"),
	OPT_INT(0, "max", Q, limit, 0, 1000000, "N", "the same as --limit"),
	OPT_FLAG(0, "external", Q, external, "only chains whose root lies outside OBJ's package"),
	OPT_NAME_GLOB(Q, glob),
	OPT_CLASS_NAME(Q, cls),
	OPT_CHOICE(0, "format", Q, fmt, path_formats, 4, "F",
		   "text (default), json, csv (one row a reference) or dot (Graphviz)"),
	OPT_END(),
};
#undef Q

const command command_path = {
	"path", cmd_path, "why an object is alive: its retention chains from the GC roots",
	"usage: ugc-analyze path INPUT OBJ [--roots | --all | --direct] [--limit N] [--external]\n"
	"                        [--format text|json|csv|dot]\n"
	"       ugc-analyze path INPUT --name GLOB | --class NAME ...\n",
	"Prints the chains of references that keep OBJ alive, in the engine's reference-\n"
	"chain layout (root line with its tags, then one '-> Class::Property = ...' line a\n"
	"hop; other references between the same two objects on an '(also ...)' line under\n"
	"it).  By default the true shortest chain (breadth-first from the roots in index\n"
	"order).  A root gets its root reason; an unreachable object is explained (each\n"
	"referencer and why it does not count: eliminated, weak, itself unreachable, or a\n"
	"cluster member the GC does not trace).  --roots, --all and --direct exclude each\n"
	"other.  OBJ is an index (123 or #123), a V8 node id (@123), a path name exactly\n"
	"as printed (one shell word: quote it, spaces and punctuation are part of it) or\n"
	"a full name ('Class /Path').\n",
	path_options, 2, NULL,
};

int cmd_path(int argc, char **argv)
{
	query_args q = {.fmt = FMT_TEXT, .limit = LIMIT_UNSET};
	int rc = query_parse(&command_path, argc, argv, &q);
	if (rc >= 0)
		return rc;
	static const char *const mode_names[3] = {"--roots", "--all", "--direct"};
	const int given[3] = {q.roots, q.all, q.direct};
	/* --limit 0: all, up to the option's bound (--all can find more
	 * chains than any screen holds) */
	size_t max = q.limit == LIMIT_UNSET ? 100 : q.limit == 0 ? 1000000 : (size_t)q.limit;
	struct path_ctx p = {PM_SHORTEST, max, q.external, FMT_TEXT, q.fmt == FMT_DOT};
	const char *mode_opt = NULL;
	for (int k = 0; k < 3; k++) {
		if (!given[k])
			continue;
		if (mode_opt)
			return usage_error("path", "%s and %s exclude each other", mode_opt, mode_names[k]);
		mode_opt = mode_names[k];
		p.mode = k == 0 ? PM_ROOTS : k == 1 ? PM_ALL : PM_DIRECT;
	}
	if (q.limit != LIMIT_UNSET && p.mode == PM_SHORTEST)
		return usage_error("path", "--limit goes with --roots, --all or --direct");
	if (p.mode == PM_DIRECT) /* text: 100 unless given; JSON, CSV, DOT: all unless given */
		p.max = listing_limit(q.limit, p.dot ? FMT_JSON : (enum out_format)q.fmt, 100);
	if (p.external && p.mode == PM_DIRECT)
		return usage_error("path", "--external and --direct exclude each other");
	p.fmt = p.dot ? FMT_TEXT : (enum out_format)q.fmt;
	return for_selected("path", &q, p.fmt, "chain,hop,from,kind,property,to,path", path_cb, &p);
}
