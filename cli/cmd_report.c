/* cmd_report.c — `ugc-analyze report INPUT -o REPORT.html`: one HTML page
 * that opens offline in any browser (everything inline: style, script,
 * SVG), in the CLI's words (Unreal's or V8's): the snapshot's identity and
 * the GC's summary, a treemap of retained bytes by package and class (by
 * constructor on a V8 heap), the top of the dominator tree with shortest
 * chains, the findings ranked, and with --baseline the growth by class and
 * package (with --target, leak mode's groups too).  The numbers come from
 * what the other commands compute (retention_input, report_summary.c,
 * measures.h, diff_report.h); this file only lays them out.  The page is
 * written to a temporary file and published when complete (outfile). */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/html.h"
#include "cli/measures.h"
#include "cli/report.h"
#include "cli/report_assets.h"
#include "cli/treemap.h"
#include "base/base.h"

#define TM_W 1000.0 /* the treemap's drawing, in SVG units */
#define TM_H 460.0
#define TM_PACKAGES 40  /* packages (constructors) drawn at least */
#define TM_CLASSES 60   /* classes drawn at least in a zoomed package */
#define CHAIN_HOPS 64   /* a longer chain is said, not printed: path prints it */
#define CHAIN_BYTES 6000

struct report_opts {
	const char *out, *baseline, *target;
	int force;
	long long limit, depth;
};

typedef struct page {
	FILE *fp;
	retention_input *in;
	const char *input;
	int v8;
	size_t limit;
	long long depth;
	dom_tree tree;
	report_columns columns; /* a database's (report_summary_db) */
} page;

/* ---- small writers ---- */

static void esc(page *p, const char *s) { html_text(p->fp, s); }

/* A size as text says it, with the exact bytes in its title; a cell of a
 * sortable table carries the exact value in data-v. */
static void size_cell(page *p, uint64_t bytes)
{
	fprintf(p->fp, "<td class=\"num\" data-v=\"%llu\" title=\"%llu bytes\">%s</td>", (unsigned long long)bytes,
		(unsigned long long)bytes, size_text(bytes));
}

static void count_cell(page *p, uint64_t n)
{
	fprintf(p->fp, "<td class=\"num\" data-v=\"%llu\">%s</td>", (unsigned long long)n, count_text(n));
}

static void shown_line(page *p, size_t shown, size_t total, const char *what)
{
	if (shown < total)
		fprintf(p->fp, "<p class=\"shown\">showing %s of %s %s (--limit 0 shows all)</p>\n", count_text(shown),
			count_text(total), what);
}

static double share(uint64_t part, uint64_t whole) { return whole ? 100.0 * (double)part / (double)whole : 0; }

/* The shortest chain of X as path prints it, in a <details> opened on demand. */
static void chain_block(page *p, obj_t x)
{
	chains cs = {0};
	obj_state st;
	/* a chain can be millions of hops: its length is known before it is built */
	if (p->in->v->ops->state(p->in->v, x, &st) == 0 && st.distance != UINT32_MAX && st.distance >= CHAIN_HOPS) {
		fprintf(p->fp, "<details class=\"chain\"><summary>shortest chain (%s hops)</summary><p class=\"note\">too long "
			    "to show here: ugc-analyze path ", count_text(st.distance));
		esc(p, p->input);
		fprintf(p->fp, " '#%d' prints it</p></details>", x);
		return;
	}
	if (query_shortest(p->in->v, x, &cs) != 0 || cs.n == 0) {
		fprintf(p->fp, "<details class=\"chain\"><summary>shortest chain</summary><p class=\"note\">%s</p></details>",
			cs.n == 0 ? "no retention chain (kept only through cluster lists, or not reached)" : "not available");
		chains_free(&cs);
		return;
	}
	fprintf(p->fp, "<details class=\"chain\"><summary>shortest chain (%zu hop%s)</summary>", cs.v[0].n - 1,
		plural_s(cs.v[0].n - 1));
	if (cs.v[0].n > CHAIN_HOPS) {
		fprintf(p->fp, "<p class=\"note\">too long to show here: ugc-analyze path ");
		esc(p, p->input);
		fprintf(p->fp, " '#%d' prints it</p></details>", x);
		chains_free(&cs);
		return;
	}
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	if (m) {
		print_chain_text(p->in->v, m, &cs.v[0]);
		fclose(m);
		fprintf(p->fp, "<pre>");
		html_text_cut(p->fp, text, CHAIN_BYTES);
		fprintf(p->fp, "</pre>");
	}
	free(text);
	fprintf(p->fp, "</details>");
	chains_free(&cs);
}

/* ---- header and summary ---- */

static void write_header(page *p, const report_summary *s, const finding_rows *fs)
{
	const dom_result *d = &p->in->d;
	FILE *fp = p->fp;
	fprintf(fp, "<header><h1>ugc-analyze report: <span class=\"name\">");
	esc(p, p->input);
	fprintf(fp, "</span></h1>\n<table class=\"kv\">");
	fprintf(fp, "<tr><th>input</th><td class=\"name\">");
	esc(p, p->input);
	fprintf(fp, " (%s)</td></tr>", p->in->h ? (p->v8 ? "a V8 heap snapshot, analysed in memory"
						 : "a snapshot, analysed in memory")
					       : "a database written by analyze");
	fprintf(fp, "<tr><th>engine</th><td>");
	esc(p, s->engine[0] ? s->engine : "-");
	fprintf(fp, "</td></tr>");
	if (!p->v8) {
		fprintf(fp, "<tr><th>mode</th><td>");
		esc(p, s->mode[0] ? s->mode : "-");
		fprintf(fp, "</td></tr><tr><th>label</th><td>");
		esc(p, s->label[0] ? s->label : "-");
		fprintf(fp, "</td></tr>");
	}
	const char *objs = p->v8 ? "nodes" : "objects";
	/* on V8, the heap's own nodes: not the objects the tool adds below
	 * first-gc-index (/V8 and the constructors' class objects) */
	report_summary v8s = *s;
	uint64_t pool = p->v8 && p->in->v->first_gc_index > 0 ? (uint64_t)p->in->v->first_gc_index : 0;
	if (pool) {
		v8s.objects -= pool < v8s.objects ? pool : v8s.objects;
		v8s.reachable -= pool < v8s.reachable ? pool : v8s.reachable;
		v8s.nroots -= v8s.roots[RK_DISREGARD] < v8s.nroots ? v8s.roots[RK_DISREGARD] : v8s.nroots;
		s = &v8s;
	}
	fprintf(fp, "<tr><th>%s</th><td>%s: %s reachable, %s unreachable", objs, count_text(s->objects),
		count_text(s->reachable), count_text(s->objects - (s->reachable < s->objects ? s->reachable : s->objects)));
	if (!p->v8)
		fprintf(fp, " (%s purged, %s)", count_text(s->purged), size_text(s->purged_bytes));
	fprintf(fp, "</td></tr><tr><th>%s</th><td>%s</td></tr>", p->v8 ? "edges" : "references",
		count_text(s->references));
	uint64_t reached = d->reached - (pool < d->reached ? pool : d->reached); /* (the tool's are always reached) */
	fprintf(fp, "<tr><th>retained</th><td>%s reached under policy %s (%s %s)</td></tr>", size_text(d->reached_bytes),
		dom_policy_names[d->policy], count_text(reached), objs);
	if (!p->v8) {
		fprintf(fp, "<tr><th>roots</th><td>%s:", count_text(s->nroots));
		for (int k = 0; k <= RK_GCOBJECT; k++)
			fprintf(fp, "%s %s %s", k ? "," : "", root_kind_names[k], count_text(s->roots[k]));
		fprintf(fp, "</td></tr><tr><th>clusters</th><td>%s: %s alive, dissolved:", count_text(s->clusters),
			count_text(s->fates[CF_ALIVE]));
		for (int k = 1; k < CF_COUNT; k++)
			fprintf(fp, "%s %s %s", k > 1 ? "," : "", count_text(s->fates[k]), cluster_fate_names[k]);
		fprintf(fp, "</td></tr><tr><th>findings</th><td>%s:", count_text(fs->n));
		for (int k = 0; k < FK_COUNT; k++) {
			size_t c = 0;
			for (size_t i = 0; i < fs->n; i++)
				c += strcmp(fs->v[i].kind, finding_kind_names[k]) == 0;
			fprintf(fp, "%s %s %s", k ? "," : "", finding_kind_names[k], count_text(c));
		}
		fprintf(fp, "</td></tr>");
	} else {
		fprintf(fp, "<tr><th>roots</th><td>%s (the root and what the heap's roots hold)</td></tr>",
			count_text(s->nroots));
	}
	fprintf(fp, "</table></header>\n");
	if (!p->v8) {
		fprintf(fp, "<section id=\"purge\"><h2>Purged by class</h2>\n");
		if (s->purge_classes == 0)
			fprintf(fp, "<p>nothing purged: every object is reachable</p>");
		else {
			fprintf(fp, "<table class=\"sortable\"><thead><tr><th>class</th><th class=\"num\">objects</th>"
				    "<th class=\"num\">bytes</th></tr></thead><tbody>\n");
			for (size_t i = 0; i < s->npurge; i++) {
				fprintf(fp, "<tr><td class=\"name\">");
				esc(p, s->purge[i].name);
				fprintf(fp, "</td>");
				count_cell(p, s->purge[i].count);
				size_cell(p, s->purge[i].bytes);
				fprintf(fp, "</tr>\n");
			}
			fprintf(fp, "</tbody></table>");
			shown_line(p, s->npurge, s->purge_classes, "classes");
		}
		fprintf(fp, "</section>\n");
	}
}

/* ---- the treemap ---- */

/* A colour for the K-th rectangle: hues around the wheel. */
static void fill(FILE *fp, size_t k, int light)
{
	fprintf(fp, "hsl(%zu,%d%%,%d%%)", (k * 47) % 360, light ? 45 : 55, light ? 80 : 68);
}

/* One rectangle with its <title> (name, bytes, share) and, when it is
 * large enough, its name written in it. */
static void tm_rect_out(page *p, const tm_rect *r, size_t k, int light, const char *name, uint64_t bytes,
			uint64_t whole, const char *extra)
{
	FILE *fp = p->fp;
	fprintf(fp, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"", r->x, r->y, r->w, r->h);
	fill(fp, k, light);
	fprintf(fp, "\" data-bytes=\"%llu\"><title>", (unsigned long long)bytes);
	esc(p, name);
	fprintf(fp, ": %s (%llu bytes), %.1f%%%s</title></rect>", size_text(bytes), (unsigned long long)bytes,
		share(bytes, whole), extra);
	if (r->w > 60 && r->h > 28) {
		size_t fit = (size_t)(r->w / 6.5);
		fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\">", r->x + 4, r->y + 14);
		/* the name's end, which tells packages apart */
		const char *shown = name;
		size_t len = strlen(name);
		if (len > fit && fit > 1) {
			shown = name + len - (fit - 1);
			while (((unsigned char)*shown & 0xC0) == 0x80)
				shown++;
			fputs("\xE2\x80\xA6", fp);
		}
		esc(p, shown);
		fprintf(fp, "</text><text x=\"%.1f\" y=\"%.1f\">%s</text>", r->x + 4, r->y + 27, size_text(bytes));
	}
}

/* Is KEY the class of V8's synthetic nodes, "(synthetic)", whose group
 * holds the root and so retains everything? */
static int synthetic_group(retention_input *in, obj_t key)
{
	obj_info o;
	if (in->v->ops->describe(in->v, key, &o) != 0)
		return 0;
	int yes = strcmp(o.name, "(synthetic)") == 0;
	obj_info_free(&o);
	return yes;
}

static int write_treemap(page *p)
{
	retention_input *in = p->in;
	const dom_result *d = &in->d;
	FILE *fp = p->fp;
	const dom_group *g = p->v8 ? d->classes : d->packages;
	size_t ng = p->v8 ? d->nclasses : d->npackages;
	/* at least TM_PACKAGES drawn, more when --limit asks (0: all) */
	size_t cap = p->limit > TM_PACKAGES ? p->limit : TM_PACKAGES, n = ng < cap ? ng : cap;
	double *val = malloc((n + 1) * sizeof *val);
	tm_rect *rect = malloc((n + 1) * sizeof *rect);
	obj_t *keys = malloc((n + 1) * sizeof *keys);
	size_t *idx_of = malloc((n + 1) * sizeof *idx_of); /* a drawn rectangle's group in G */
	report_cell *cells = NULL;
	size_t ncells = 0;
	int rc = 1;
	if (!val || !rect || !keys || !idx_of) {
		error("out of memory");
		goto out;
	}
	/* the groups drawn (on V8 not the root's constructor, (synthetic), which
	 * retains everything), and the rest of the bytes reached as one grey
	 * rectangle: each area is then its share of the whole */
	size_t m = 0;
	uint64_t sum = 0;
	for (size_t k = 0; k < n; k++) {
		if (p->v8 && synthetic_group(in, g[k].key))
			continue;
		val[m] = (double)g[k].retained;
		keys[m] = g[k].key;
		idx_of[m++] = k;
		sum += g[k].retained;
	}
	uint64_t rest = d->reached_bytes > sum ? d->reached_bytes - sum : 0;
	val[m] = (double)rest;
	if (!p->v8 && report_cells(in, &p->tree, &p->columns, keys, m, &cells, &ncells))
		goto out;
	treemap_layout(val, m + (rest > 0), (tm_rect){0, 0, TM_W, TM_H}, rect);
	fprintf(fp, "<section id=\"treemap\"><h2>Retained bytes by %s</h2>\n<p class=\"note\">",
		p->v8 ? "constructor" : "package and class");
	if (p->v8)
		fprintf(fp, "Each rectangle is a constructor, its area the bytes its objects retain (each byte once).");
	else
		fprintf(fp, "Each rectangle is a package (its outermost Outer), its area the bytes its objects retain "
			    "(each byte once within the package; a package that keeps another's objects counts them "
			    "too). Click a package for its classes: each class's area is what its objects keep that no "
			    "other object of the package keeps.");
	fprintf(fp, " Hover for the exact bytes.</p>\n");
	if (!p->v8)
		fprintf(fp, "<button id=\"tm-back\" style=\"display:none\">&#8592; all packages</button>\n");
	fprintf(fp, "<svg id=\"tm-top\" viewBox=\"0 0 %.0f %.0f\" role=\"img\">", TM_W, TM_H);
	for (size_t k = 0; k < m; k++) {
		obj_info o;
		const dom_group *x = &g[idx_of[k]];
		if (in->v->ops->describe(in->v, keys[k], &o) != 0) {
			error("%s", in->v->err[0] ? in->v->err : "an object the results name is missing");
			goto out;
		}
		char extra[96];
		snprintf(extra, sizeof extra, ", %s object%s", count_text(x->count), plural_s(x->count));
		fprintf(fp, "<g class=\"pkg\" data-pkg=\"%zu\">", k);
		tm_rect_out(p, &rect[k], k, 0, p->v8 ? o.name : o.path, x->retained, d->reached_bytes, extra);
		fprintf(fp, "</g>");
		obj_info_free(&o);
	}
	if (rest > 0) {
		const tm_rect *r = &rect[m];
		fprintf(fp, "<rect class=\"tm-rest\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#ccc\" "
			    "data-bytes=\"%llu\"><title>the rest: %s (%llu bytes), %.1f%%: what the %s not drawn retain"
			    "</title></rect>", r->x, r->y, r->w, r->h, (unsigned long long)rest, size_text(rest),
			(unsigned long long)rest, share(rest, d->reached_bytes), p->v8 ? "constructors" : "packages");
	}
	fprintf(fp, "</svg>\n");
	/* each package's classes, drawn over the whole area, shown by a click */
	size_t c0 = 0;
	for (size_t k = 0; k < m && !p->v8; k++) {
		size_t c1 = c0;
		while (c1 < ncells && cells[c1].pkg == k)
			c1++;
		size_t ccap = p->limit > TM_CLASSES ? p->limit : TM_CLASSES;
		size_t nc = c1 - c0 < ccap ? c1 - c0 : ccap;
		double *cv = malloc((nc + 1) * sizeof *cv);
		tm_rect *cr = malloc((nc + 1) * sizeof *cr);
		if (!cv || !cr) {
			free(cv);
			free(cr);
			error("out of memory");
			goto out;
		}
		uint64_t drawn = 0, whole = g[idx_of[k]].retained;
		for (size_t j = 0; j < nc; j++) {
			cv[j] = (double)cells[c0 + j].bytes;
			drawn += cells[c0 + j].bytes;
		}
		uint64_t crest = whole > drawn ? whole - drawn : 0; /* the classes not drawn */
		cv[nc] = (double)crest;
		treemap_layout(cv, nc + (crest > 0), (tm_rect){0, 22, TM_W, TM_H - 22}, cr);
		obj_info po;
		int have = in->v->ops->describe(in->v, keys[k], &po) == 0;
		fprintf(fp, "<svg class=\"tm-zoom\" id=\"tm-pkg-%zu\" viewBox=\"0 0 %.0f %.0f\" style=\"display:none\">"
			    "<text x=\"4\" y=\"15\">", k, TM_W, TM_H);
		esc(p, have ? po.path : "?");
		fprintf(fp, ": %s retained, %s class%s", size_text(whole), count_text(c1 - c0),
			c1 - c0 == 1 ? "" : "es");
		if (nc < c1 - c0)
			fprintf(fp, " (showing %s of %s, --limit 0 shows all)", count_text(nc), count_text(c1 - c0));
		fprintf(fp, "</text>");
		if (have)
			obj_info_free(&po);
		for (size_t j = 0; j < nc; j++) {
			obj_info co;
			const char *name = "?";
			have = cells[c0 + j].cls >= 0 && in->v->ops->describe(in->v, cells[c0 + j].cls, &co) == 0;
			if (have)
				name = co.name;
			char extra[96];
			snprintf(extra, sizeof extra, " of the package, %s object%s", count_text(cells[c0 + j].count),
				 plural_s(cells[c0 + j].count));
			tm_rect_out(p, &cr[j], k * 7 + j, 1, name, cells[c0 + j].bytes, whole, extra);
			if (have)
				obj_info_free(&co);
		}
		if (crest > 0)
			fprintf(fp, "<rect class=\"tm-rest\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#ddd\">"
				    "<title>the classes not drawn: %s (%llu bytes), %.1f%%</title></rect>", cr[nc].x, cr[nc].y,
				cr[nc].w, cr[nc].h, size_text(crest), (unsigned long long)crest, share(crest, whole));
		fprintf(fp, "</svg>\n");
		free(cv);
		free(cr);
		c0 = c1;
	}
	shown_line(p, m, ng - (n - m), p->v8 ? "constructors" : "packages");
	fprintf(fp, "</section>\n");
	rc = 0;
out:
	free(val);
	free(rect);
	free(keys);
	free(idx_of);
	free(cells);
	return rc;
}

/* ---- the dominator tree ---- */

/* One row and, DEPTH levels down, its children; CHAIN: give its shortest
 * chain.  Written with a stack of levels, not recursion. */
typedef struct dom_frame {
	const obj_t *kids;
	size_t n, at, total;
} dom_frame;

static int dom_row_open(page *p, obj_t x, size_t nkids, int chain)
{
	obj_info o;
	retention_input *in = p->in;
	if (in->v->ops->describe(in->v, x, &o) != 0)
		return error("%s", in->v->err[0] ? in->v->err : "an object the results name is missing");
	FILE *fp = p->fp;
	fprintf(fp, "<li><details class=\"dom-row\" data-idx=\"%d\"><summary><span class=\"size\" title=\"%llu bytes\">%s"
		    "</span><span class=\"name\">#%d ", x, (unsigned long long)in->d.retained[x],
		size_text(in->d.retained[x]), x);
	esc(p, object_text(in->v, &o));
	fprintf(fp, "</span> <span class=\"note\">(shallow %s, %.1f%%, dominates %s directly)</span></summary>",
		size_text(o.size), share(in->d.retained[x], in->d.reached_bytes), count_text(nkids));
	obj_info_free(&o);
	if (chain)
		chain_block(p, x);
	return 0;
}

static int write_dominators(page *p)
{
	retention_input *in = p->in;
	const dom_result *d = &in->d;
	FILE *fp = p->fp;
	topn best;
	size_t cap = p->limit;
	if (topn_init(&best, cap < d->slots ? cap : d->slots))
		return error("out of memory");
	size_t total = 0;
	/* on a V8 heap the pool below first-gc-index (the tool's /V8 and
	 * constructor objects, 0 bytes each) is no retainer */
	uint32_t from = p->v8 && in->v->first_gc_index > 0 ? (uint32_t)in->v->first_gc_index : 0;
	for (uint32_t i = from; i < d->slots; i++)
		if (d->idom[i] == DOM_TOP) {
			topn_offer(&best, d->retained[i], i);
			total++;
		}
	topn_sort(&best);
	obj_t *top = malloc((best.n + 1) * sizeof *top);
	dom_frame *stack = calloc((size_t)p->depth + 2, sizeof *stack);
	if (!top || !stack) {
		topn_free(&best);
		free(top);
		free(stack);
		return error("out of memory");
	}
	for (size_t k = 0; k < best.n; k++)
		top[k] = (obj_t)best.v[k].idx;
	size_t ntop = best.n;
	topn_free(&best);
	fprintf(fp, "<section id=\"dominators\"><h2>Largest retainers: the dominator tree's top</h2>\n"
		    "<p class=\"note\">Each object keeps alive what it dominates: the bytes the heap would lose if every "
		    "reference into it were cut (policy %s). Click a row for what it dominates directly, largest first, "
		    "and its shortest retention chain.</p>\n<ul class=\"dom top\">", dom_policy_names[d->policy]);
	int rc = 0;
	size_t sp = 0;
	stack[sp++] = (dom_frame){top, ntop, 0, total};
	while (sp > 0 && rc == 0) {
		dom_frame *f = &stack[sp - 1];
		if (f->at == f->n) {
			fprintf(fp, "</ul>");
			if (f->n < f->total)
				fprintf(fp, "<p class=\"shown\">showing %s of %s objects (--limit 0 shows all)</p>",
					count_text(f->n), count_text(f->total));
			sp--;
			if (sp > 0)
				fprintf(fp, "</details></li>\n");
			continue;
		}
		obj_t x = f->kids[f->at++];
		size_t nk = p->tree.start[x + 1] - p->tree.start[x];
		rc = dom_row_open(p, x, nk, sp <= 2);
		if (rc)
			break;
		if ((long long)sp <= p->depth - 1 && nk > 0) {
			fprintf(fp, "<ul class=\"dom\">");
			stack[sp++] = (dom_frame){p->tree.kids + p->tree.start[x], nk < p->limit ? nk : p->limit, 0, nk};
		} else {
			fprintf(fp, "</details></li>\n");
		}
	}
	fprintf(fp, "</section>\n");
	free(top);
	free(stack);
	return rc;
}

/* ---- findings ---- */

/* What to look at first: 0 use-after-free and crashes, 1 leaked worlds,
 * 2 garbage kept alive, 3 the rest of what is wrong, 4 what the engine
 * does by design (references it nulls, weak references it leaves). */
static int finding_rank(const finding_row *f)
{
	if (strstr(f->detail, "use-after-free") || strcmp(f->kind, "rooted-cluster-dissolved") == 0 ||
	    strcmp(f->kind, "dangling-ref") == 0)
		return 0;
	if (strcmp(f->kind, "world-leak") == 0)
		return 1;
	if (strcmp(f->kind, "garbage-survives") == 0 || strcmp(f->kind, "garbage-cluster-member") == 0 ||
	    strcmp(f->kind, "rootset-garbage") == 0)
		return 2;
	if (strcmp(f->kind, "eliminated-ref") == 0 || strcmp(f->kind, "uncleared-weak-ref") == 0)
		return 4;
	return 3;
}

static const char *const rank_names[] = {"use-after-free or crash", "leaked world", "garbage kept alive",
					 "inconsistency", "the engine's design"};

static finding_row *rank_rows;
static int cmp_finding(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int rx = finding_rank(&rank_rows[x]), ry = finding_rank(&rank_rows[y]);
	if (rx != ry)
		return rx - ry;
	return (x > y) - (x < y);
}

static int write_findings(page *p, const finding_rows *fs)
{
	FILE *fp = p->fp;
	fprintf(fp, "<section id=\"findings\"><h2>Findings, what to look at first</h2>\n");
	if (p->v8) {
		fprintf(fp, "<p>No findings: they are about Unreal Engine's GC, and a V8 heap has none.</p></section>\n");
		return 0;
	}
	if (fs->n == 0) {
		fprintf(fp, "<p>none</p></section>\n");
		return 0;
	}
	size_t *order = malloc(fs->n * sizeof *order);
	if (!order)
		return error("out of memory");
	for (size_t i = 0; i < fs->n; i++)
		order[i] = i;
	rank_rows = fs->v;
	qsort(order, fs->n, sizeof *order, cmp_finding);
	size_t shown = fs->n < p->limit ? fs->n : p->limit;
	fprintf(fp, "<table class=\"sortable\"><thead><tr><th class=\"num\">rank</th><th>kind</th><th>object</th>"
		    "<th>detail</th></tr></thead><tbody>\n");
	for (size_t k = 0; k < shown; k++) {
		const finding_row *f = &fs->v[order[k]];
		int rank = finding_rank(f);
		fprintf(fp, "<tr class=\"rank%d\"><td class=\"num\" data-v=\"%d\" title=\"%s\">%d</td><td>%s</td>"
			    "<td class=\"name\">", rank, rank, rank_names[rank], rank + 1, f->kind);
		obj_info o;
		if (f->idx == OBJ_NONE) {
			esc(p, f->referencer);
			fprintf(fp, " (FGCObject)");
		} else if (p->in->v->ops->describe(p->in->v, f->idx, &o) == 0) {
			fprintf(fp, "#%d ", f->idx);
			esc(p, o.path);
			obj_info_free(&o);
		}
		fprintf(fp, "</td><td>");
		esc(p, f->detail);
		if (f->idx != OBJ_NONE)
			chain_block(p, f->idx);
		fprintf(fp, "</td></tr>\n");
	}
	fprintf(fp, "</tbody></table>");
	shown_line(p, shown, fs->n, "findings");
	fprintf(fp, "</section>\n");
	free(order);
	return 0;
}

/* ---- growth over a baseline ---- */

typedef struct growth_row {
	const char *name;
	uint64_t before, after;
	int64_t change;
} growth_row;

static int cmp_growth(const void *a, const void *b)
{
	const growth_row *x = a, *y = b;
	if (x->change != y->change)
		return x->change < y->change ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* KIND's rows of CUR against BASE (names compared as check compares
 * them), grown first; the first LIMIT in a bar chart and a table. */
static int write_growth_kind(page *p, const measures *cur, const measures *base, int kind, const char *what)
{
	size_t fc, nc = measures_kind(cur, kind, &fc), fb, nb = measures_kind(base, kind, &fb);
	growth_row *v = calloc(nc + nb + 1, sizeof *v);
	if (!v)
		return error("out of memory");
	size_t n = 0, i = 0, j = 0;
	/* both sorted by name: one merge */
	while (i < nc || j < nb) {
		const hist_row *c = i < nc ? &cur->b.rows[fc + i] : NULL, *b = j < nb ? &base->b.rows[fb + j] : NULL;
		int cmp = !c ? 1 : !b ? -1 : strcmp(c->name, b->name);
		growth_row r = {cmp <= 0 ? c->name : b->name, cmp >= 0 ? b->retained : 0, cmp <= 0 ? c->retained : 0, 0};
		/* several rows of one name (classes of one name): summed */
		if (n > 0 && strcmp(v[n - 1].name, r.name) == 0) {
			v[n - 1].before += r.before;
			v[n - 1].after += r.after;
		} else {
			v[n++] = r;
		}
		i += cmp <= 0;
		j += cmp >= 0;
	}
	size_t changed = 0;
	for (size_t k = 0; k < n; k++) {
		/* saturated: a hostile database's sums may not fit a signed change */
		uint64_t up = v[k].after - v[k].before, down = v[k].before - v[k].after;
		v[k].change = v[k].after >= v[k].before ? (up > INT64_MAX ? INT64_MAX : (int64_t)up)
							 : (down > INT64_MAX ? -INT64_MAX : -(int64_t)down);
		if (v[k].change)
			v[changed++] = v[k];
	}
	if (changed > 1)
		qsort(v, changed, sizeof *v, cmp_growth);
	size_t shown = changed < p->limit ? changed : p->limit;
	FILE *fp = p->fp;
	fprintf(fp, "<h3>Retained bytes by %s</h3>\n", what);
	if (!changed) {
		fprintf(fp, "<p>no %s changed its retained bytes</p>\n", what);
		free(v);
		return 0;
	}
	/* the bars, right of the names: grown to the right of the axis in
	 * red, shrunk to its left in green (the axis in the middle when any
	 * shrank) */
	uint64_t max = 1;
	int shrank = 0;
	for (size_t k = 0; k < shown; k++) {
		uint64_t a = v[k].change < 0 ? 0 - (uint64_t)v[k].change : (uint64_t)v[k].change;
		if (a > max)
			max = a;
		shrank |= v[k].change < 0;
	}
	double rowh = 18, h = rowh * (double)shown + 8, mid = shrank ? 705 : 420, half = shrank ? 280 : 565;
	fprintf(fp, "<svg class=\"bars\" viewBox=\"0 0 1000 %.0f\" role=\"img\">", h);
	for (size_t k = 0; k < shown; k++) {
		double y = 4 + rowh * (double)k;
		uint64_t a = v[k].change < 0 ? 0 - (uint64_t)v[k].change : (uint64_t)v[k].change;
		double w = half * (double)a / (double)max;
		if (w < 1)
			w = 1;
		fprintf(fp, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>",
			v[k].change < 0 ? mid - w : mid, y, w, rowh - 4, v[k].change < 0 ? "#6a6" : "#d66");
		esc(p, v[k].name);
		fprintf(fp, ": %s (%lld bytes)</title></rect><text x=\"4\" y=\"%.1f\">", size_diff_text(v[k].change),
			(long long)v[k].change, y + 11);
		html_text_cut(fp, v[k].name, 60);
		fprintf(fp, "</text>");
	}
	fprintf(fp, "<line x1=\"%.0f\" y1=\"0\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"#888\"/></svg>\n", mid, mid, h);
	fprintf(fp, "<table class=\"sortable\"><thead><tr><th>%s</th><th class=\"num\">before</th><th class=\"num\">after"
		    "</th><th class=\"num\">change</th></tr></thead><tbody>\n", what);
	for (size_t k = 0; k < shown; k++) {
		fprintf(fp, "<tr><td class=\"name\">");
		esc(p, v[k].name);
		fprintf(fp, "</td>");
		size_cell(p, v[k].before);
		size_cell(p, v[k].after);
		fprintf(fp, "<td class=\"num\" data-v=\"%lld\" title=\"%lld bytes\">%s</td></tr>\n", (long long)v[k].change,
			(long long)v[k].change, size_diff_text(v[k].change));
	}
	fprintf(fp, "</tbody></table>");
	shown_line(p, shown, changed, what);
	free(v);
	return 0;
}

static int write_growth(page *p, const char *baseline)
{
	measures cur, base;
	if (measures_load(baseline, &base))
		return 1;
	if (measures_load(p->input, &cur)) {
		measures_free(&base);
		return 1;
	}
	FILE *fp = p->fp;
	fprintf(fp, "<section id=\"growth\"><h2>Growth over the baseline</h2>\n<p class=\"note\">");
	esc(p, p->input);
	fprintf(fp, " against ");
	esc(p, baseline);
	size_t f0, f1;
	uint64_t after = measures_kind(&cur, HIST_TOTAL, &f0) ? cur.b.rows[f0].retained : 0;
	uint64_t before = measures_kind(&base, HIST_TOTAL, &f1) ? base.b.rows[f1].retained : 0;
	fprintf(fp, ": %s reached, %s before (%s). The largest changes first, grown or shrunk.</p>\n", size_text(after),
		size_text(before), size_diff_text((long long)(after - before)));
	int rc = write_growth_kind(p, &cur, &base, HIST_CLASS, p->v8 ? "constructor" : "class");
	if (rc == 0 && !p->v8)
		rc = write_growth_kind(p, &cur, &base, HIST_PACKAGE, "package");
	fprintf(fp, "</section>\n");
	measures_free(&cur);
	measures_free(&base);
	return rc;
}

/* ---- leak mode ---- */

static int write_leaks(page *p, const char *pa, const char *pb)
{
	const char *paths[3] = {pa, pb, p->input};
	diff_side s[3] = {{0}};
	char err[SNAP_ERR_MAX];
	for (int k = 0; k < 3; k++)
		if ((k == 2 ? input_leak_side : input_diff_side)(paths[k], 1, &s[k], err, sizeof err)) {
			for (int j = 0; j <= k; j++)
				diff_side_free(&s[j]);
			return error("%s", err);
		}
	diff_result ab = {0}, bc = {0};
	diff_leaks l = {0};
	int rc = 0;
	if (diff_compare(&s[0], &s[1], &ab) || diff_compare(&s[1], &s[2], &bc) ||
	    diff_leak_groups(&s[1], &s[2], &ab, &bc, p->limit, &l)) {
		rc = error("out of memory finding the leaks");
		goto done;
	}
	int v8 = s[1].v8 || s[2].v8;
	FILE *fp = p->fp;
	fprintf(fp, "<section id=\"leaks\"><h2>Leaks</h2>\n<p class=\"note\">Objects new in ");
	esc(p, pb);
	fprintf(fp, " (absent from ");
	esc(p, pa);
	fprintf(fp, ") still alive in ");
	esc(p, p->input);
	fprintf(fp, " after its GC: %s object%s (%s) under %s leak root%s retaining %s, in %s group%s by retention trace, "
		    "the most retained first.</p>\n", count_text(l.candidates), plural_s(l.candidates), size_text(l.bytes),
		count_text(l.roots), plural_s(l.roots), size_text(l.retained), count_text(l.groups), plural_s(l.groups));
	if (l.system)
		fprintf(fp, "<p class=\"note\">left out: %s object%s only roots that hold no program state keep</p>\n",
			count_text(l.system), plural_s(l.system));
	for (size_t g = 0; g < l.n; g++) {
		const diff_leak_group *x = &l.v[g];
		int owned;
		const char *chain = v8_text(x->chain, v8, &owned);
		fprintf(fp, "<details class=\"leak\"%s><summary><span class=\"size\" title=\"%llu bytes\">%s</span>group %zu: "
			    "%s object%s under %s leak root%s (%s shallow)</summary><p class=\"name\">",
			g == 0 ? " open" : "", (unsigned long long)x->retained, size_text(x->retained), g + 1,
			count_text(x->count), plural_s(x->count), count_text(x->roots), plural_s(x->roots),
			size_text(x->bytes));
		esc(p, chain);
		if (owned)
			free((char *)chain);
		fprintf(fp, "</p><p>types:");
		for (size_t t = 0; t < x->ntypes && t < p->limit; t++) {
			fprintf(fp, "%s %s ", t ? "," : "", count_text(x->types[t].count));
			esc(p, disp(x->types[t].name));
		}
		if (x->ntypes > p->limit)
			fprintf(fp, " (showing %s of %s classes, --limit 0 shows all)", count_text(p->limit),
				count_text(x->ntypes));
		fprintf(fp, "</p><table><thead><tr><th class=\"num\">retained</th><th>trace to #%d</th></tr></thead><tbody>",
			x->idx);
		for (size_t h = 0; h < x->ntrace; h++) {
			const diff_leak_hop *hop = &x->trace[h];
			const char *object = v8_text(hop->object, v8, &owned);
			fprintf(fp, "<tr>");
			size_cell(p, hop->retained);
			fprintf(fp, "<td class=\"name\">");
			if (hop->edge) {
				fprintf(fp, "&#8594; ");
				esc(p, disp(hop->edge));
				fprintf(fp, " = ");
			}
			fprintf(fp, "#%d ", hop->idx);
			esc(p, object);
			if (!hop->edge)
				fprintf(fp, " (%s)", v8 ? "the root" : root_kind_names[hop->root_kind < RK_COUNT ? hop->root_kind : 0]);
			fprintf(fp, "</td></tr>");
			if (owned)
				free((char *)object);
		}
		fprintf(fp, "</tbody></table></details>\n");
	}
	shown_line(p, l.n, l.groups, "groups");
	fprintf(fp, "</section>\n");
done:
	diff_leaks_free(&l);
	diff_result_free(&ab);
	diff_result_free(&bc);
	for (int k = 0; k < 3; k++)
		diff_side_free(&s[k]);
	return rc;
}

/* ---- the page ---- */

/* The page's figures as JSON, for a program that reads the report: exact
 * integers, snake_case keys (the same as top --format json's). */
static int write_data(page *p)
{
	retention_input *in = p->in;
	const dom_result *d = &in->d;
	const dom_group *g = p->v8 ? d->classes : d->packages;
	size_t ng = p->v8 ? d->nclasses : d->npackages, n = ng < p->limit ? ng : p->limit;
	FILE *fp = p->fp;
	fprintf(fp, "<script type=\"application/json\" id=\"report-data\">{\"format_version\":%d,\"command\":\"report\","
		    "\"input\":", JSON_FORMAT_VERSION);
	html_json_str(fp, disp(p->input));
	fprintf(fp, ",\"v8\":%s,\"policy\":\"%s\",\"reached\":%u,\"reached_bytes\":%llu,\"%s\":{\"total\":%zu,"
		    "\"shown\":%zu,\"items\":[", p->v8 ? "true" : "false", dom_policy_names[d->policy], d->reached,
		(unsigned long long)d->reached_bytes, p->v8 ? "constructors" : "packages", ng, n);
	for (size_t k = 0; k < n; k++) {
		obj_info o;
		if (in->v->ops->describe(in->v, g[k].key, &o) != 0)
			return error("%s", in->v->err[0] ? in->v->err : "an object the results name is missing");
		fprintf(fp, "%s{\"idx\":%d,\"name\":", k ? "," : "", g[k].key);
		html_json_str(fp, p->v8 ? o.name : o.path);
		fprintf(fp, ",\"objects\":%u,\"shallow\":%llu,\"retained\":%llu}", g[k].count,
			(unsigned long long)g[k].shallow, (unsigned long long)g[k].retained);
		obj_info_free(&o);
	}
	fprintf(fp, "]}}</script>\n");
	return 0;
}

static int write_page(page *p, const struct report_opts *o, const report_summary *s)
{
	FILE *fp = p->fp;
	finding_rows fs = {0};
	int rc = 1;
	if (!p->v8 && p->in->v->ops->findings(p->in->v, OBJ_NONE, &fs)) {
		error("%s", p->in->v->err);
		goto out;
	}
	fprintf(fp, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
		    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		    "<meta name=\"generator\" content=\"ugc-analyze %s\">\n<title>ugc-analyze report: ", UGC_VERSION);
	esc(p, p->input);
	fprintf(fp, "</title>\n<style>\n%s</style></head>\n<body>\n", report_css);
	write_header(p, s, &fs);
	if (write_treemap(p) || write_dominators(p) || write_findings(p, &fs))
		goto out;
	if (o->baseline && write_growth(p, o->baseline))
		goto out;
	if (o->target && write_leaks(p, o->baseline, o->target))
		goto out;
	if (write_data(p))
		goto out;
	fprintf(fp, "<footer class=\"note\"><p>Written by ugc-analyze %s report; every number is what the other commands "
		    "print (top, dominators, findings, diff, check).</p></footer>\n<script>\n%s</script>\n</body></html>\n",
		UGC_VERSION, report_js);
	rc = 0;
out:
	free(fs.v);
	return rc;
}

#define R struct report_opts
static const option options[] = {
	OPT_STRING('o', "output", R, out, "REPORT.html", "the page to write (required)"),
	OPT_FLAG(0, "force", R, force, "overwrite REPORT.html if it exists"),
	OPT_STRING(0, "baseline", R, baseline, "A", "growth by class and package over A (a snapshot or database)"),
	OPT_STRING(0, "target", R, target, "B", "with --baseline: leak mode's groups, objects new in B (absent from A)\n"
		   "still alive in INPUT"),
	OPT_LIMIT_RANGE(R, limit, 0, 1000000, "rows of each list and table, and children of each dominator\n"
			"row (default 20, 0: all); the totals are always said"),
	OPT_INT(0, "depth", R, depth, 1, 10, "N", "levels of the dominator tree written (default 2; 3 on a V8\n"
		"heap, whose one root is the first)"),
	OPT_END(),
};
#undef R

const command command_report = {
	"report", cmd_report, "one self-contained HTML page: GC summary, treemap, dominators, findings, growth",
	"usage: ugc-analyze report INPUT -o REPORT.html [--force] [--limit N] [--depth N]\n"
	"                          [--baseline A [--target B]]\n",
	"Writes one HTML file that opens offline in any browser (style, script and charts\n"
	"inline, no network): the snapshot's identity and the GC's summary (roots by kind,\n"
	"reachable and purged, purged by class, clusters, findings by kind), a treemap of\n"
	"retained bytes by package and class (by constructor on a V8 heap; click a package\n"
	"for its classes), the dominator tree's top levels with each row's shortest chain,\n"
	"and the findings ranked by what to look at first.  --baseline adds the growth of\n"
	"retained bytes by class and package over A; --target B also leak mode's groups,\n"
	"as diff --baseline A --target B --final INPUT finds them.  INPUT is a snapshot\n"
	"(analysed in memory) or a database written by analyze.\n",
	options, 1, NULL,
};

/* A database's summary, read beside the retention results. */
struct summary_job {
	const char *path;
	size_t top;
	report_summary s;
	report_columns c;
	int rc;
};

static void *summary_thread(void *arg)
{
	struct summary_job *j = arg;
	j->rc = report_summary_db(j->path, j->top, &j->s, &j->c);
	return NULL;
}

int cmd_report(int argc, char **argv)
{
	struct report_opts o = {NULL, NULL, NULL, 0, 20, 0}; /* depth 0: the default, by heap */
	const char *input = NULL;
	int parsed = parse_options(&command_report, argc, argv, &o, &input);
	if (parsed < 0)
		return OPT_EXIT_STATUS(parsed);
	if (!input)
		return usage_error("report", "needs an INPUT (snapshot or database)");
	if (!o.out)
		return usage_error("report", "needs -o REPORT.html");
	if (o.target && !o.baseline)
		return usage_error("report", "--target B needs --baseline A (leak mode compares three snapshots)");
	char err[SNAP_ERR_MAX];
	if (check_output(o.out, o.force))
		return 1;
	const char *ins[3] = {input, o.baseline, o.target};
	for (int k = 0; k < 3; k++)
		if (ins[k] && outfile_check_input(o.out, ins[k], err, sizeof err))
			return error("%s", err);
	size_t limit = o.limit == 0 ? SIZE_MAX : (size_t)o.limit;
	struct summary_job sj = {.path = input, .top = limit};
	job summary = {0};
	int db = is_sqlite_file(input);
	if (db && report_db_check(input))
		return 1;
	if (db)
		job_start(&summary, summary_thread, &sj);
	retention_input in;
	int opened = retention_open(input, -1, 1, 1, &in) == 0;
	if (db)
		job_wait(&summary);
	else if (opened)
		sj.rc = report_summary_heap(&in, limit, &sj.s);
	if (!opened || sj.rc) {
		if (opened)
			retention_close(&in);
		if (sj.rc == 0) {
			report_summary_free(&sj.s);
			report_columns_free(&sj.c);
		}
		return 1;
	}
	page p = {NULL, &in, input, in.v->v8, limit, o.depth ? o.depth : in.v->v8 ? 3 : 2, {0}, sj.c};
	int rc = 1;
	outfile of = {0};
	if (dom_tree_build(&in.d, &p.tree)) {
		error("out of memory");
		goto out;
	}
	if (outfile_open(&of, o.out, o.force, err, sizeof err)) {
		error("%s", err);
		goto out;
	}
	p.fp = of.fp;
	if (write_page(&p, &o, &sj.s)) {
		outfile_abort(&of);
		goto out;
	}
	if (outfile_commit(&of, err, sizeof err)) {
		error("%s", err);
		goto out;
	}
	struct stat st;
	if (!cli_quiet && stat(o.out, &st) == 0)
		printf("wrote %s: %s, one page that opens offline in any browser\n", disp(o.out),
		       size_text((uint64_t)st.st_size));
	rc = 0;
out:
	report_summary_free(&sj.s);
	report_columns_free(&sj.c);
	dom_tree_free(&p.tree);
	retention_close(&in);
	return rc;
}
