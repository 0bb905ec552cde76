/* cmd_worlds.c — `ugc-analyze worlds INPUT`: every World the GC keeps,
 * in use or leaked (analysis/worlds.h), and for each leak what the engine
 * prints when a world will not die and what it does not: its shortest
 * chain from a root, the fewest references whose removal frees it and its
 * package (analysis/cut.h), and the GC rerun without them that proves it,
 * with the bytes freed.  From a snapshot or a database (its heap read
 * back). */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "analysis/analysis.h"
#include "sql/sql.h"

struct worlds_opts {
	int format;
	long long limit, threads;
};

/* One leak's answer: its package's contents, chain, cut and proof. */
typedef struct leak_answer {
	vec targets;         /* the World's package and everything in it */
	uint64_t bytes;      /* their bytes (the ones the GC keeps) */
	chains cs;           /* the shortest chain */
	cut_result c;
	whatif_result w;
	int have_cut, have_w;
	uint32_t survivors;
} leak_answer;

static void leak_answer_free(leak_answer *a)
{
	vec_free(&a->targets);
	chains_free(&a->cs);
	if (a->have_w)
		whatif_free(&a->w);
	if (a->have_cut)
		cut_free(&a->c);
}

static int answer_leak(view *v, pipeline *p, obj_t world, const world_info *all, uint32_t nall, leak_answer *a)
{
	memset(a, 0, sizeof *a);
	cut_options co = {.keep_flags = p->opt.keep_flags, .root_cost = CUT_ROOT_COST_DEFAULT, .threads = p->opt.threads};
	if (world_contents(&p->h, world, &a->targets))
		return error("out of memory");
	/* a World in use in the same package stays: neither it, what is in it,
	 * nor its Outers (the package) are the leak's to free */
	const heap *h = &p->h;
	obj_t top = heap_outermost(h, world);
	uint8_t *keep = NULL;
	for (uint32_t k = 0; k < nall; k++) {
		if (all[k].leaked || heap_outermost(h, all[k].world) != top)
			continue;
		vec in = {0};
		if ((!keep && !(keep = calloc((size_t)h->slots + 1, 1))) || objects_under(h, all[k].world, 1, &in)) {
			vec_free(&in);
			free(keep);
			return error("out of memory");
		}
		for (size_t j = 0; j < in.n; j++)
			keep[in.v[j]] = 1;
		for (obj_t o = h->outer[all[k].world]; o >= 0; o = h->outer[o])
			keep[o] = 1;
		vec_free(&in);
	}
	/* and the disregard pool is never collected: not a target either */
	size_t m = 0;
	for (size_t j = 0; j < a->targets.n; j++)
		if (!(keep && keep[a->targets.v[j]]) && !heap_in_disregard(h, (obj_t)a->targets.v[j]))
			a->targets.v[m++] = a->targets.v[j];
	a->targets.n = m;
	free(keep);
	for (size_t k = 0; k < a->targets.n; k++)
		if (p->r.reachable[a->targets.v[k]])
			a->bytes += p->h.size[a->targets.v[k]];
	if (query_shortest(v, world, &a->cs))
		return error("%s", v->err);
	if (cut_compute(&p->h, &p->r, &co, (const obj_t *)a->targets.v, (uint32_t)a->targets.n, &a->c))
		return error("out of memory computing the cut");
	a->have_cut = 1;
	if (a->c.infinite || a->c.nalive == 0)
		return 0;
	if (cut_prove(&p->h, &p->r, &p->opt, &a->c, (const obj_t *)a->targets.v, (uint32_t)a->targets.n, &a->w,
		      &a->survivors))
		return error("out of memory running the GC without the cut");
	a->have_w = 1;
	return a->survivors ? error("the GC rerun without the cut still keeps %u object%s of the world's package: a "
				    "bug in cut, please report it", a->survivors, plural_s(a->survivors)) : 0;
}

static const char *obj_text(view *v, obj_t x)
{
	static char buf[2][VIEW_TEXT + 32];
	static int next;
	char *b = buf[next++ % 2];
	obj_info o;
	if (v->ops->object(v, x, &o)) {
		snprintf(b, VIEW_TEXT + 32, "#%d", x);
		return b;
	}
	snprintf(b, VIEW_TEXT + 32, "#%d %s", x, disp(object_text(v, &o)));
	obj_info_free(&o);
	return b;
}

static void print_leak_text(view *v, const heap *h, uint32_t keep, const leak_answer *a, size_t limit)
{
	printf("    its package: %s object%s kept, %s\n", count_text(a->c.nalive), plural_s(a->c.nalive),
	       size_text(a->bytes));
	if (a->cs.n) {
		printf("    shortest chain:\n");
		print_chain_text(v, stdout, &a->cs.v[0]);
	}
	const cut_result *c = &a->c;
	if (c->infinite) {
		printf("    no cut frees it: only references no property edit removes hold it (ugc-analyze cut --world "
		       "shows what)%s\n", c->unproven ? "; not proven: the GC's marking order decides part of it" : "");
		return;
	}
	printf("    cut %s reference%s to free it and its package%s:\n", count_text(c->nrefs), plural_s(c->nrefs),
	       c->unproven ? " (not proven minimal: the GC's marking order decides part of what holds it)" : "");
	size_t shown = c->nrefs < limit ? c->nrefs : limit;
	for (size_t k = 0; k < shown; k++) {
		const cut_ref *r = &c->refs[k];
		char words[2 * VIEW_TEXT];
		cut_ref_words(h, 0, r, keep, words, sizeof words);
		if (r->kind == CK_ROOT)
			printf("      %zu. %s: %s\n", k + 1, obj_text(v, r->holder), words);
		else if (r->holder != OBJ_NONE)
			printf("      %zu. %s .%s -> %s\n", k + 1, obj_text(v, r->holder), words, obj_text(v, r->target));
		else
			printf("      %zu. %s -> %s\n", k + 1, words, obj_text(v, r->target));
	}
	if (shown < c->nrefs)
		printf("     ");
	print_shown(shown, c->nrefs, "references");
	if (a->have_w)
		printf("    proof: the GC rerun without %s frees %s object%s (%s), every one of the package's\n",
		       c->nrefs == 1 ? "it" : "them", count_text(a->w.nlost), plural_s(a->w.nlost), size_text(a->w.lost_bytes));
}

static void json_obj(view *v, const char *key, obj_t x)
{
	obj_info o;
	printf("\"%s\":", key);
	if (x == OBJ_NONE || v->ops->object(v, x, &o)) {
		printf("null");
		return;
	}
	printf("{\"idx\":%d,\"class\":", x);
	json_str(stdout, o.class_name);
	printf(",\"path\":");
	json_str(stdout, o.path);
	json_node_id(stdout, &o);
	printf("}");
	obj_info_free(&o);
}

static void print_leak_json(view *v, const heap *h, uint32_t keep, const leak_answer *a)
{
	printf(",\"package_objects\":%u,\"package_bytes\":%llu,\"chain\":", a->c.nalive, (unsigned long long)a->bytes);
	if (a->cs.n)
		print_chain_json(v, stdout, &a->cs.v[0]);
	else
		printf("null");
	const cut_result *c = &a->c;
	printf(",\"cut\":{\"infinite\":%s,\"proven_minimal\":%s,\"references\":[", c->infinite ? "true" : "false",
	       c->unproven ? "false" : "true");
	for (uint32_t k = 0; k < c->nrefs; k++) {
		const cut_ref *r = &c->refs[k];
		char words[2 * VIEW_TEXT];
		static const char *const kinds[] = {"reference", "gcobject", "cluster-list", "root"};
		cut_ref_words(h, 0, r, keep, words, sizeof words);
		printf("%s{\"kind\":\"%s\",", k ? "," : "", kinds[r->kind]);
		json_obj(v, "holder", r->kind == CK_GCREF ? OBJ_NONE : r->holder);
		printf(",");
		json_obj(v, "target", r->target);
		printf(",\"what\":");
		json_str(stdout, words);
		printf("}");
	}
	printf("]");
	if (a->have_w)
		printf(",\"freed_objects\":%u,\"freed_bytes\":%llu", a->w.nlost, (unsigned long long)a->w.lost_bytes);
	printf("}");
}

/* Leaks first, then Worlds in use; each in index order. */
static int leaked_first(const void *x, const void *y)
{
	const world_info *a = x, *b = y;
	if (a->leaked != b->leaked)
		return b->leaked - a->leaked;
	return (a->world > b->world) - (a->world < b->world);
}

/* ANSWERED: how many leaks get their chain, cut and proof (each costs a
 * GC rerun over the whole heap); the others say "cut":null. */
static int print_worlds(view *v, pipeline *p, const char *input, world_info *w, uint32_t n, size_t limit,
			size_t answered, enum out_format fmt)
{
	const heap *h = &p->h;
	uint32_t leaked = 0;
	for (uint32_t k = 0; k < n; k++)
		leaked += w[k].leaked;
	qsort(w, n, sizeof *w, leaked_first);
	size_t shown = n < limit ? n : limit;
	if (fmt == FMT_JSON) {
		json_begin("worlds");
		printf(",\"in_use\":%u,\"leaked\":%u", n - leaked, leaked);
		json_list_begin("worlds", n, shown);
	} else {
		printf("worlds of %s: %s kept by the GC, %s in use, %s leaked\n", disp(input), count_text(n),
		       count_text(n - leaked), count_text(leaked));
	}
	int rc = 0;
	for (size_t k = 0; k < shown && rc == 0; k++) {
		const world_info *x = &w[k];
		char words[VIEW_TEXT];
		if (x->holder != OBJ_NONE)
			snprintf(words, sizeof words, "%s (%s)", disp(heap_str(h, h->ref_prop[x->holder_ref])),
				 ref_kind_names[h->ref_kind[x->holder_ref]]);
		if (fmt == FMT_JSON) {
			printf("%s{", k ? "," : "");
			json_obj(v, "world", x->world);
			printf(",\"state\":\"%s\",", x->leaked ? "leaked" : "in_use");
			json_obj(v, "held_by", x->holder);
			if (!x->leaked) {
				printf(",\"property\":");
				json_str(stdout, heap_str(h, h->ref_prop[x->holder_ref]));
			}
		} else if (x->leaked) {
			printf("\nleaked: %s\n", obj_text(v, x->world));
		} else {
			printf("%sin use: %s, held by %s .%s\n", k == leaked ? "\n" : "", obj_text(v, x->world),
			       obj_text(v, x->holder), words);
		}
		if (x->leaked && k >= answered) {
			printf(",\"chain\":null,\"cut\":null");
		} else if (x->leaked) {
			leak_answer a;
			rc = answer_leak(v, p, x->world, w, n, &a);
			if (rc == 0 && fmt == FMT_JSON)
				print_leak_json(v, h, p->opt.keep_flags, &a);
			else if (rc == 0)
				print_leak_text(v, h, p->opt.keep_flags, &a, limit);
			leak_answer_free(&a);
		}
		if (fmt == FMT_JSON)
			printf("}");
	}
	if (fmt == FMT_JSON) {
		printf("]}");
		json_end();
	} else {
		if (shown < n)
			printf("\n");
		print_shown(shown, n, "worlds");
	}
	return rc;
}

#define W struct worlds_opts
static const char *const worlds_formats[] = {"text", "json"};
static const option options[] = {
	OPT_LIMIT(W, limit, "Worlds listed, leaks first, and cut references shown of each\nleak (default 10 in text, 0: all); JSON lists every World and\nanswers the first N leaks (default 10)"),
	OPT_CHOICE(0, "format", W, format, worlds_formats, 2, "F", "text (default) or json"),
	OPT_INT(0, "threads", W, threads, 1, 64, "N", "marking threads (default: the number of cores)"),
	OPT_END(),
};
#undef W

const command command_worlds = {
	"worlds", cmd_worlds, "every World the GC keeps, in use or leaked; each leak's chain, cut and proof",
	"usage: ugc-analyze worlds INPUT [--limit N] [--format text|json] [--threads N]\n",
	"Lists every World the GC keeps: in use (held by the GameEngine or GameInstance,\n"
	"or a streamed sublevel of a World in use) or leaked (kept by anything else).\n"
	"For each leak: its package's objects and bytes, its shortest chain from a root,\n"
	"the fewest references to remove to free it and its package (cut --world), and\n"
	"the GC rerun without them that proves it.  ugc-gc(7), world-leak, states the\n"
	"rules.  INPUT is a snapshot or a database written by analyze.\n",
	options, 1, NULL,
};

int cmd_worlds(int argc, char **argv)
{
	struct worlds_opts o = {FMT_TEXT, LIMIT_UNSET, cpu_cores()};
	const char *input = NULL;
	int parsed = parse_options(&command_worlds, argc, argv, &o, &input);
	if (parsed < 0)
		return OPT_EXIT_STATUS(parsed);
	if (!input)
		return usage_error("worlds", "needs an INPUT (snapshot or database)");
	enum out_format fmt = o.format;
	size_t limit = listing_limit(o.limit, fmt, 10);
	pipeline p;
	pipeline_options po = PIPELINE_OPTIONS_INIT;
	po.threads = (int)o.threads;
	char err[SNAP_ERR_MAX];
	if (input_open_heap(&p, input, &po, err, sizeof err))
		return error("%s", err);
	if (pipeline_need(&p, PIPE_GC, err, sizeof err)) {
		pipeline_free(&p);
		return error("%s", err);
	}
	view *v = view_heap_borrow(&p.h, &p.r, err, sizeof err);
	world_info *w = NULL;
	uint32_t n = 0;
	int rc = !v ? error("%s", err) : worlds_find(&p.h, &p.r, &w, &n) ? error("out of memory finding the worlds") : 0;
	if (rc == 0 && heap_is_v8(&p.h)) {
		if (fmt == FMT_JSON) {
			json_begin("worlds");
			printf(",\"in_use\":0,\"leaked\":0");
			json_list_begin("worlds", 0, 0);
			printf("]}");
			json_end();
		} else {
			printf("worlds of %s: a V8 heap has no Worlds\n", disp(input));
		}
	} else if (rc == 0) {
		rc = print_worlds(v, &p, input, w, n, limit, o.limit == LIMIT_UNSET ? 10 : limit, fmt);
	}
	free(w);
	if (v)
		v->ops->close(v);
	pipeline_free(&p);
	return rc;
}
