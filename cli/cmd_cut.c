/* cmd_cut.c — `ugc-analyze cut`: the fewest references whose removal lets
 * the GC free some objects (a minimum cut over the gc retention graph,
 * analysis/cut.h), then the proof: the GC rerun without them frees every
 * one.  From a snapshot or a database (the heap is rebuilt from it). */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "analysis/analysis.h"
#include "sql/sql.h"

#define MAX_OBJS 256
#define FMT_CUT_DOT 2 /* cut's --format: text, json, dot */
static const char *const cut_formats[] = {"text", "json", "dot"};

struct cut_opts {
	const char *cls, *package, *world, *keep_arg, *root_cost;
	int format;
	long long threads, limit;
};

/* The targets: the operands, --class, --package, --world.  0, or 1 after
 * printing. */
static int gather(view *v, heap *h, const struct cut_opts *o, const char **objs, int nobjs, vec *t)
{
	char err[1024];
	for (int k = 0; k < nobjs; k++) {
		obj_t x;
		int rc = query_select(v, objs[k], &x, err, sizeof err);
		if (rc)
			return error("%s", rc < 0 ? v->err : err);
		if (vec_push(t, (uint32_t)x))
			return error("out of memory");
	}
	if (o->cls) { /* the view's class selector, as every command's --class */
		obj_t *of;
		size_t n;
		if (v->ops->find_glob(v, NULL, o->cls, &of, &n))
			return error("%s", v->err);
		for (size_t k = 0; k < n; k++)
			if (vec_push(t, (uint32_t)of[k])) {
				free(of);
				return error("out of memory");
			}
		free(of);
		if (n == 0)
			return error("--class %s: no object of that class", o->cls);
	}
	const char *tops[2] = {o->package, o->world};
	for (int k = 0; k < 2; k++) {
		if (!tops[k])
			continue;
		obj_t x;
		int rc = query_select(v, tops[k], &x, err, sizeof err);
		if (rc)
			return error("--%s: %s", k ? "world" : "package", rc < 0 ? v->err : err);
		if (k == 1) {
			char name[HEAP_NAME_MAX];
			heap_name(h, h->cls[x], name, sizeof name);
			if (strcmp(name, "World") != 0)
				return error("--world %s: #%d is a %s, not a World", tops[k], x, name);
			if (vec_push(t, (uint32_t)x))
				return error("out of memory");
			x = heap_outermost(h, x);
		}
		if (objects_under(h, x, k == 0, t))
			return error("out of memory");
	}
	vec_sort_unique(t);
	return 0;
}

static const char *kind_word(int kind)
{
	static const char *const w[] = {"reference", "gcobject", "cluster-list", "root"};
	return w[kind];
}

typedef struct out {
	view *v;
	const heap *h;
	const cut_result *c;
	uint32_t keep;
	size_t shown;
} out;

/* "#X Class path", or on a V8 heap "#X Constructor name @id" (object_text).
 * Never the retention paths: describe, not object (cut leaves them out). */
static void print_obj_text(view *v, obj_t x)
{
	obj_info o;
	if (v->ops->describe(v, x, &o) == 0) {
		printf("#%d %s", x, object_text(v, &o));
		obj_info_free(&o);
	} else {
		printf("#%d", x);
	}
}

/* Why an answer is not proven minimal (cut.h's unproven). */
#define UNPROVEN_WHY                                                                                            \
	"the GC's marking order decides part of what holds them (see cut in ugc-analyze(1))"

static void print_text(const out *p, const whatif_result *w, uint32_t survivors, uint32_t nt)
{
	const cut_result *c = p->c;
	const heap *h = p->h;
	printf("targets: %s object%s, %s kept by the GC (%s)\n", count_text(c->ntargets), plural_s(c->ntargets),
	       count_text(c->nalive), size_text(c->alive_bytes));
	if (c->nalive == 0) {
		printf("nothing to cut: the GC frees every target already\n");
		return;
	}
	if (c->infinite) {
		printf("no cut frees them: only references that cannot be removed by editing a property hold them.\n");
		if (c->unproven)
			printf("not proven: %s; no cut was found, one may exist\n", UNPROVEN_WHY);
		printf("what holds them, from the roots:\n");
		char buf[VIEW_TEXT];
		for (uint32_t k = 0; k < c->nhold; k++) {
			printf("  %s%s ", k ? "-> " : "", disp(cut_label_words(h, p->v->v8, c->hold_label[k], buf, sizeof buf)));
			print_obj_text(p->v, c->hold[k]);
			printf("\n");
		}
		return;
	}
	printf("%s: %s reference%s, cost %s", c->unproven ? "cut" : "minimum cut", count_text(c->nrefs),
	       plural_s(c->nrefs), count_text(c->cost));
	printf(" (flow network: %s objects, %s edges)\n", count_text(c->nodes), count_text(c->arcs));
	if (c->unproven)
		printf("not proven minimal: %s; this cut is proven to free them, a smaller one may exist\n",
		       UNPROVEN_WHY);
	if (c->nrefs > p->shown)
		printf("a large cut: the %s that keep the most targets on their own:\n", count_text(p->shown));
	for (size_t k = 0; k < p->shown; k++) {
		const cut_ref *r = &c->refs[k];
		char words[2 * VIEW_TEXT];
		cut_ref_words(h, p->v->v8, r, p->keep, words, sizeof words);
		printf("%3zu. ", k + 1);
		if (r->kind == CK_ROOT) {
			print_obj_text(p->v, r->holder);
			printf("\n     %s (cost %u)\n", words, r->cost);
		} else {
			if (r->holder != OBJ_NONE) {
				print_obj_text(p->v, r->holder);
				printf("\n     .%s -> ", words);
			} else {
				printf("%s -> ", words);
			}
			print_obj_text(p->v, r->target);
			printf("\n");
		}
		if (r->kept == UINT32_MAX)
			printf("     keeps: not counted\n");
		else
			printf("     keeps %s target%s on its own (%s)\n", count_text(r->kept), plural_s(r->kept),
			       size_text(r->kept_bytes));
	}
	print_shown(p->shown, c->nrefs, "references");
	printf("proof: the GC rerun without %s frees %s object%s (%s); targets still kept: %s of %s\n",
	       c->nrefs == 1 ? "it" : "them", count_text(w->nlost), plural_s(w->nlost), size_text(w->lost_bytes),
	       count_text(survivors), count_text(nt));
}

static void json_obj(view *v, const char *key, obj_t x)
{
	obj_info o;
	printf(",\"%s_idx\":", key);
	if (x == OBJ_NONE || v->ops->describe(v, x, &o)) {
		printf("null,\"%s\":null", key);
		return;
	}
	printf("%d,\"%s\":", x, key);
	json_str(stdout, o.path);
	obj_info_free(&o);
}

static void print_json(const out *p, const whatif_result *w, uint32_t survivors)
{
	const cut_result *c = p->c;
	const heap *h = p->h;
	json_begin("cut");
	printf(",\"targets\":%u,\"targets_kept\":%u,\"targets_kept_bytes\":%llu,\"infinite\":%s,\"proven_minimal\":%s",
	       c->ntargets, c->nalive, (unsigned long long)c->alive_bytes, c->infinite ? "true" : "false",
	       c->unproven ? "false" : "true");
	char buf[2 * VIEW_TEXT];
	if (c->infinite) {
		printf(",\"held_by\":[");
		for (uint32_t k = 0; k < c->nhold; k++) {
			printf("%s{\"via\":", k ? "," : "");
			json_str(stdout, cut_label_words(h, p->v->v8, c->hold_label[k], buf, sizeof buf));
			json_obj(p->v, "object", c->hold[k]);
			printf("}");
		}
		printf("]");
		json_end();
		return;
	}
	printf(",\"cost\":%llu,\"references\":%u", (unsigned long long)c->cost, c->nrefs);
	json_list_begin("cut", c->nrefs, p->shown);
	for (size_t k = 0; k < p->shown; k++) {
		const cut_ref *r = &c->refs[k];
		printf("%s{\"kind\":\"%s\"", k ? "," : "", kind_word(r->kind));
		json_obj(p->v, "holder", r->holder);
		if (r->kind == CK_REF) {
			printf(",\"property\":");
			json_str(stdout, heap_str(h, h->ref_prop[r->id]));
			printf(",\"ref_kind\":\"%s\",\"record\":%u", ref_kind_names[h->ref_kind[r->id]],
			       r->id - h->ref_start[r->holder]);
		} else if (r->kind == CK_GCREF) {
			printf(",\"referencer\":");
			json_str(stdout, heap_str(h, h->gcrefs[r->id].referencer));
			printf(",\"property\":");
			json_str(stdout, heap_str(h, h->gcrefs[r->id].prop));
		} else {
			cut_ref_words(h, p->v->v8, r, p->keep, buf, sizeof buf);
			printf(",\"action\":");
			json_str(stdout, buf);
		}
		json_obj(p->v, "target", r->target);
		printf(",\"cost\":%u", r->cost);
		if (r->kept == UINT32_MAX)
			printf(",\"targets_kept_alone\":null,\"bytes_kept_alone\":null}");
		else
			printf(",\"targets_kept_alone\":%u,\"bytes_kept_alone\":%llu}", r->kept,
			       (unsigned long long)r->kept_bytes);
	}
	printf("]},\"proof\":{\"freed\":%u,\"freed_bytes\":%llu,\"targets_surviving\":%u}", w ? w->nlost : 0,
	       w ? (unsigned long long)w->lost_bytes : 0ULL, survivors);
	json_end();
}

/* DOT: each shown cut reference on its chain from the roots (⊤) to its
 * holder and from its target to the first target it keeps; cut edges red. */
static void dot_node(const out *p, idmap *seen, obj_t x, int target)
{
	if (idmap_add(seen, (uint32_t)x, 0) == 1)
		return;
	obj_info o;
	if (p->v->ops->describe(p->v, x, &o))
		return;
	char label[3 * VIEW_TEXT];
	if (p->v->v8)
		snprintf(label, sizeof label, "%s", object_text(p->v, &o));
	else
		snprintf(label, sizeof label, "%s\n%s", o.class_name, o.path);
	printf("  n%d [label=", x);
	dot_str(stdout, label);
	printf("%s];\n", target ? ", style=bold" : "");
	obj_info_free(&o);
}

static void print_dot(const out *p, const uint8_t *is_target)
{
	const cut_result *c = p->c;
	idmap seen = {0}, pairs = {0};
	printf("digraph cut {\n  rankdir=LR;\n  node [shape=box, fontname=\"monospace\"];\n"
	       "  top [shape=ellipse, label=\"roots\"];\n");
	for (uint32_t k = 0; c->infinite && k < c->nhold; k++) {
		dot_node(p, &seen, c->hold[k], k + 1 == c->nhold);
		char buf[VIEW_TEXT];
		printf("  %s%d -> n%d [label=", k ? "n" : "top", k ? c->hold[k - 1] : 0, c->hold[k]);
		dot_str(stdout, cut_label_words(p->h, p->v->v8, c->hold_label[k], buf, sizeof buf));
		printf("];\n");
	}
	for (size_t k = 0; !c->infinite && k < p->shown; k++) {
		const cut_ref *r = &c->refs[k];
		obj_t prev = OBJ_NONE;
		for (uint32_t j = 0; j < r->nup; j++) {
			dot_node(p, &seen, r->up[j], is_target[r->up[j]]);
			uint64_t key = (uint64_t)(uint32_t)prev << 32 | (uint32_t)r->up[j];
			if (idmap_add(&pairs, key, 0) == 0) {
				if (prev == OBJ_NONE)
					printf("  top -> n%d;\n", r->up[j]);
				else
					printf("  n%d -> n%d;\n", prev, r->up[j]);
			}
			prev = r->up[j];
		}
		for (uint32_t j = 0; j < r->ndown; j++)
			dot_node(p, &seen, r->down[j], is_target[r->down[j]]);
		if (r->ndown == 0)
			dot_node(p, &seen, r->target, is_target[r->target]);
		char words[2 * VIEW_TEXT];
		cut_ref_words(p->h, p->v->v8, r, p->keep, words, sizeof words);
		if (r->holder != OBJ_NONE && r->kind != CK_ROOT) {
			dot_node(p, &seen, r->holder, is_target[r->holder]);
			if (r->nup == 0)
				printf("  top -> n%d [style=dotted];\n", r->holder);
			printf("  n%d -> n%d [color=red, fontcolor=red, style=dashed, penwidth=2, label=", r->holder,
			       r->target);
		} else {
			printf("  top -> n%d [color=red, fontcolor=red, style=dashed, penwidth=2, label=", r->target);
		}
		char label[3 * VIEW_TEXT];
		snprintf(label, sizeof label, "cut %zu: %s", k + 1, words);
		dot_str(stdout, label);
		printf("];\n");
		for (uint32_t j = 0; j + 1 < r->ndown; j++) {
			uint64_t key = (uint64_t)(uint32_t)r->down[j] << 32 | (uint32_t)r->down[j + 1];
			if (idmap_add(&pairs, key, 0) == 0)
				printf("  n%d -> n%d;\n", r->down[j], r->down[j + 1]);
		}
	}
	printf("}\n");
	idmap_free(&seen);
	idmap_free(&pairs);
}

static const char *root_cost_arg(const option *o, void *field, const char *arg)
{
	(void)o;
	long long n = strcmp(arg, "never") == 0 ? CUT_NEVER : parse_count(arg, 1000000000);
	if (n == 0 || (n < 0 && strcmp(arg, "never")))
		return "takes a cost from 1 to 1000000000, or never";
	*(long long *)field = n;
	return NULL;
}

#define W struct cut_opts
struct cut_fields {
	W o;
	long long root_cost;
};
#undef W
#define W struct cut_fields
static const option options[] = {
	OPT_GROUP("Targets, beside the OBJ operands:"),
	OPT_STRING(0, "class", W, o.cls, "NAME", "every object of class NAME"),
	OPT_STRING(0, "package", W, o.package, "PATH", "the package PATH and every object under it"),
	OPT_STRING(0, "world", W, o.world, "PATH",
		   "the World PATH and every object in its package (the\npackage itself not)"),
	OPT_GROUP("Options:"),
	OPT_CALLBACK(0, "root-cost", W, root_cost, long long, root_cost_arg, 0, "N",
		     "the cost of removing one object's root reasons\n(RootSet, RefCounted, KeepFlags) against 1 a\n"
		     "reference; 'never': not allowed (default 1000)"),
	OPT_CHOICE(0, "format", W, o.format, cut_formats, 3, "F",
		   "text (default), json, or dot (Graphviz: each cut\nreference on a chain from the roots, in red)"),
	OPT_LIMIT_RANGE(W, o.limit, 0, 1000000000, "cut references shown (text and dot default 10,\njson all; 0: all)"),
	OPT_INT(0, "threads", W, o.threads, 1, 64, "N", "marking threads; two or more also search, prove and bound\nthe cut side by side (default: the number of cores)"),
	OPT_STRING(0, "keep-flags", W, o.keep_arg, "LIST",
		   "RF_ flags that keep objects alive (default: the\ninput's mode's; '-' for none)"),
	OPT_END(),
};
#undef W

const command command_cut = {
	"cut", cmd_cut, "the fewest references whose removal lets the GC free some objects",
	"usage: ugc-analyze cut INPUT [OBJ...] [--class NAME] [--package PATH] [--world PATH]\n"
	"                       [--root-cost N|never] [--format text|json|dot] [--limit N]\n"
	"                       [--threads N] [--keep-flags LIST]\n",
	"A minimum cut between the GC roots and the targets over the references the GC\n"
	"follows (ugc-gc(7) §4.1): the fewest references to null so that the GC frees\n"
	"every target.  A strong or aro reference, an FGCObject's reference and a\n"
	"cluster's list entry cost 1; Class, Outer, immutable references and cluster\n"
	"membership cannot be cut; an object's root reasons cost --root-cost.  Each\n"
	"reference to cut (holder, property, target, the targets it keeps on its own),\n"
	"then the proof: the GC rerun without them frees every target.  INPUT is a\n"
	"snapshot or a database written by analyze; OBJ is an index (123 or #123), a\n"
	"path name or a full name ('Class /Path').\n",
	options, MAX_OBJS, "(at most 255 OBJ operands: use --class, --package or --world)",
};

int cmd_cut(int argc, char **argv)
{
	struct cut_fields f = {.o = {.format = FMT_TEXT, .threads = cpu_cores(), .limit = LIMIT_UNSET},
			       .root_cost = CUT_ROOT_COST_DEFAULT};
	const char *ops[MAX_OBJS];
	int nops = parse_options(&command_cut, argc, argv, &f, ops);
	if (nops < 0)
		return OPT_EXIT_STATUS(nops);
	const struct cut_opts *o = &f.o;
	uint32_t keep = 0;
	char bad[256];
	if (o->keep_arg && strcmp(o->keep_arg, "-") && flags_parse_object(o->keep_arg, &keep, bad, sizeof bad))
		return usage_error("cut", "--keep-flags: '%s' is not an RF_ object flag", bad);
	if (nops == 0)
		return usage_error("cut", "needs INPUT");
	if (nops == 1 && !o->cls && !o->package && !o->world)
		return usage_error("cut", "needs targets: OBJ..., --class, --package or --world");
	pipeline p;
	pipeline_options po = PIPELINE_OPTIONS_INIT;
	po.threads = (int)o->threads;
	po.keep_given = o->keep_arg != NULL;
	po.keep_flags = keep;
	po.defer_retention = 1; /* cut reads no retention path */
	po.no_weak_lists = 1;   /* nor step 7's weak references */
	char err[SNAP_ERR_MAX];
	if (input_open_heap(&p, ops[0], &po, err, sizeof err))
		return error("%s", err);
	if (pipeline_need(&p, PIPE_GC, err, sizeof err)) {
		pipeline_free(&p);
		return error("%s", err);
	}
	heap *h = &p.h;
	view *v = view_heap_borrow(h, &p.r, err, sizeof err);
	vec t = {0};
	int rc = v ? gather(v, h, o, ops + 1, nops - 1, &t) : error("%s", err);
	input_ready_at = now_seconds();
	cut_result c;
	enum out_format lf = o->format == 1 ? FMT_JSON : FMT_TEXT;
	size_t lim = listing_limit(o->limit, lf, 10);
	/* chains only for what a drawing shows */
	cut_options co = {.keep_flags = p.opt.keep_flags, .root_cost = f.root_cost,
			  .chains = o->format == FMT_CUT_DOT ? (lim < UINT32_MAX ? (uint32_t)lim : UINT32_MAX) : 0,
			  .threads = p.opt.threads};
	int have_cut = 0, have_w = 0;
	whatif_result w;
	uint32_t survivors = 0;
	/* the proof starts as soon as the cut is known, beside what follows */
	cut_proof proof;
	cut_proof_init(&proof, h, &p.r, &p.opt, (const obj_t *)t.v, (uint32_t)t.n, &w, &survivors);
	co.proof = &proof;
	if (rc == 0) {
		progress_phase("minimum cut");
		if (cut_compute(h, &p.r, &co, (const obj_t *)t.v, (uint32_t)t.n, &c))
			rc = error("out of memory computing the cut");
		else
			have_cut = 1;
	}
	if (proof.begun) {
		/* started beside the count: its end, whatever became of the cut */
		progress_phase("gc without the cut");
		int prc = cut_proof_wait(&proof);
		if (rc == 0 && prc)
			rc = error("out of memory running the GC without the cut");
		else if (prc == 0 && rc == 0)
			have_w = 1;
		else if (prc == 0)
			whatif_free(&w);
	}
	progress_phase(NULL);
	trace_point("cut: proof");
	if (rc == 0) {
		out pr = {v, h, &c, co.keep_flags, 0};
		pr.shown = lim < c.nrefs ? lim : c.nrefs;
		if (o->format == 1) {
			print_json(&pr, have_w ? &w : NULL, survivors);
		} else if (o->format == FMT_CUT_DOT) {
			uint8_t *is_target = calloc((size_t)h->slots + 1, 1);
			if (!is_target) {
				rc = error("out of memory");
			} else {
				for (size_t k = 0; k < t.n; k++)
					is_target[t.v[k]] = 1;
				print_dot(&pr, is_target);
				free(is_target);
			}
		} else {
			print_text(&pr, &w, survivors, (uint32_t)t.n);
		}
		fflush(stdout);
		trace_point("cut: printed");
		answered_at = now_seconds();
		if (rc == 0 && survivors)
			rc = error("the GC rerun without the cut still keeps %u target%s: a bug in cut, please report it",
				   survivors, survivors == 1 ? "" : "s");
	}
	if (have_w)
		whatif_free(&w);
	if (have_cut)
		cut_free(&c);
	if (v)
		v->ops->close(v);
	vec_free(&t);
	pipeline_free(&p);
	return rc;
}
