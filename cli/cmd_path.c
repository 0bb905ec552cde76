/* cmd_path.c — `ugc-analyze path`: the retention chains that keep an object
 * alive (the shortest, one a root, every distinct one, or the direct
 * referencers), in the engine's reference-chain layout, JSON, CSV or
 * Graphviz, from a snapshot or a database. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

enum path_mode { PM_SHORTEST, PM_ROOTS, PM_ALL, PM_DIRECT };

/* The options of one path run. */
struct path_ctx {
	enum path_mode mode;
	size_t max;   /* --limit: chains for --roots and --all */
	int external;
	enum out_format fmt;
	int dot;      /* --format dot (FMT is then unused) */
};

static int path_one(view *v, obj_t x, const struct path_ctx *p, int first)
{
	obj_info o;
	if (v->object(v, x, &o))
		return die("%s", v->err);
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
		return die("%s", v->err);
	}
	const char *status = !o.reachable ? "unreachable" : RK_IS_ROOT(o.root_kind) ? "root"
			     : o.distance == UINT32_MAX ? "cluster-only" : "reachable";
	if (p->dot) {
		print_chains_dot(v, stdout, &cs, x);
	} else if (p->fmt == FMT_TEXT) {
		printf("#%d %s %s: ", x, o.class_name, o.path);
		if (p->mode == PM_DIRECT)
			printf("%zu direct referencer%s\n", cs.n, cs.n == 1 ? "" : "s");
		else if (!o.reachable)
			printf("unreachable: this GC purges it, because\n");
		else if (RK_IS_ROOT(o.root_kind))
			printf("a root: %s\n", root_reason(o.root_kind));
		else if (o.distance == UINT32_MAX)
			printf("alive only through cluster lists (cluster #%d): no reference chain reaches it\n", o.cluster);
		else
			printf("%zu chain%s%s%s\n", cs.n, cs.n == 1 ? "" : "s",
			       cs.truncated ? " (search budget reached)" : "",
			       cs.limited && p->mode != PM_SHORTEST ? " (--limit reached: there may be more)" : "");
		if (!o.reachable && p->mode != PM_DIRECT)
			rc = explain_unreachable(v, x, p->fmt);
		for (size_t c = 0; c < cs.n; c++)
			print_chain_text(v, stdout, &cs.v[c]);
	} else if (p->fmt == FMT_JSON) {
		printf("%s{\"object\":", first ? "" : ",\n");
		print_object_json(&o);
		printf(",\"status\":\"%s\",\"reason\":", status);
		json_str(stdout, o.reachable ? root_reason(o.root_kind) : "unreachable");
		printf(",\"truncated\":%s,\"limited\":%s,\"chains\":[", cs.truncated ? "true" : "false",
		       cs.limited && p->mode != PM_SHORTEST ? "true" : "false");
		for (size_t c = 0; c < cs.n; c++) {
			if (c)
				putchar(',');
			print_chain_json(v, stdout, &cs.v[c]);
		}
		printf("]}");
	} else {
		print_chains_csv(v, stdout, &cs);
	}
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

int cmd_path(int argc, char **argv)
{
	query_args q = {0};
	struct path_ctx p = {PM_SHORTEST, 100, 0, FMT_TEXT, 0};
	const char *mode_opt = NULL, *limit_opt = NULL;
	for (int i = 1; i < argc; i++) {
		int rc = query_arg("path", argc, argv, &i, &q);
		if (rc < 0)
			return 2;
		if (rc > 0)
			continue;
		const char *a = argv[i];
		enum path_mode m = strcmp(a, "--roots") == 0 ? PM_ROOTS : strcmp(a, "--all") == 0 ? PM_ALL
				   : strcmp(a, "--direct") == 0 ? PM_DIRECT : PM_SHORTEST;
		if (m != PM_SHORTEST) {
			if (mode_opt && strcmp(mode_opt, a) != 0)
				return usage_error("path", "%s and %s exclude each other", mode_opt, a);
			mode_opt = a;
			p.mode = m;
		} else if (strcmp(a, "--external") == 0) {
			p.external = 1;
		} else if ((strcmp(a, "--limit") == 0 || strcmp(a, "--max") == 0) && i + 1 < argc) {
			long long n = parse_count(argv[++i], 1000000);
			if (n < 1)
				return usage_error("path", "%s takes a number from 1 to 1000000", a);
			p.max = (size_t)n;
			limit_opt = a;
		} else {
			return usage_error("path", "unknown option '%s' or missing value", a);
		}
	}
	if (limit_opt && p.mode != PM_ROOTS && p.mode != PM_ALL)
		return usage_error("path", "%s goes with --roots or --all", limit_opt);
	if (p.external && p.mode == PM_DIRECT)
		return usage_error("path", "--external and --direct exclude each other");
	p.fmt = q.fmt;
	p.dot = q.dot;
	return for_selected("path", &q, q.fmt, "chain,hop,from,kind,property,to,path", path_cb, &p);
}
