/* cmd_refs.c — `ugc-analyze refs INPUT OBJ`: every direct referencer of an
 * object (or, with --out, everything it references), with kinds, properties
 * and each one's fate in this GC, the implicit Class and Outer references and
 * FGCObjects; --limit rows, the counts always over all of them. */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "analysis/analysis.h"

#define KIND_NAMES 8
static const char *const kinds[KIND_NAMES] = {"strong", "aro", "immutable", "weak", "soft", "class", "outer", "gcobject"};

/* The same kinds and fates as a V8 heap's text names them: an edge that
 * retains, a weak one, a shortcut; the tool's own Class and Outer edges
 * (to the constructor object and to /V8) are left out unless --kind asks. */
static const char *const v8_kinds[KIND_NAMES] = {"retaining", "aro", "immutable", "weak", "shortcut", "class", "outer",
						 "gcobject"};

static int kind_index(const char *name)
{
	for (int k = 0; k < KIND_NAMES; k++)
		if (strcmp(kinds[k], name) == 0)
			return k;
	return -1;
}

/* Parse "--kind a,b" into a bit set; -1 when a name is unknown. */
static int parse_kinds(const char *list, unsigned *mask)
{
	char buf[256];
	if (strlen(list) >= sizeof buf)
		return -1; /* longer than every kind named once */
	snprintf(buf, sizeof buf, "%s", list);
	*mask = 0;
	for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
		int k = kind_index(tok);
		if (k < 0)
			return -1;
		*mask |= 1u << k;
	}
	return *mask ? 0 : -1; /* an empty list would hide every referencer */
}

/* The fates a referencer (or, with --out, a target) can have: fate_name's,
 * and "-" for an FGCObject, which is no UObject. */
#define FATES 4
static const char *const fates[FATES] = {"survives", "garbage", "purged", "-"};
static const char *const v8_fates[FATES] = {"alive", "garbage", "unreachable", "-"};

static int fate_index(const char *name)
{
	for (int k = 0; k < FATES; k++)
		if (strcmp(fates[k], name) == 0)
			return k;
	return FATES - 1;
}

/* "N KIND, N KIND" for the non-zero counts, after SEP. */
static void print_counts(const char *sep, const unsigned *count, const char *const *names, int n)
{
	for (int k = 0; k < n; k++)
		if (count[k]) {
			printf("%s%s %s", sep, count_text(count[k]), names[k]);
			sep = ", ";
		}
}

/* The counts over every reference of the kinds asked for, and the rows shown. */
typedef struct {
	unsigned count[KIND_NAMES], fate_count[FATES], total;
	size_t shown;
	int prop_width; /* text: the property column's width, from the rows shown (prop_column) */
} refs_tally;

/* The property column's width in text: the longest property among the
 * first LIMIT rows MASK lets through, at least 8 and at most 72 columns (a
 * longer one pushes its row's fate right rather than every row's). */
static int prop_column(const edges *es, unsigned mask, size_t limit)
{
	size_t width = 8, rows = 0;
	for (size_t k = 0; k < es->n && rows < limit; k++) {
		if (!(mask & (1u << kind_index(edge_kind_name(&es->v[k])))))
			continue;
		size_t len = es->v[k].prop && es->v[k].prop[0] ? strlen(es->v[k].prop) : 1;
		if (len > width)
			width = len < 72 ? len : 72;
		rows++;
	}
	return (int)width;
}

/* The line or JSON opening that names object X (ME) before its rows. */
static void refs_head(view *v, obj_t x, const obj_info *me, int out, enum out_format fmt, int first)
{
	if (fmt == FMT_TEXT)
		printf("%s #%d %s\n", v->v8 ? (out ? "edges of" : "retainers of") : out ? "references of" : "referencers of", x,
		       object_text(v, me));
	if (fmt == FMT_JSON) {
		printf("%s{\"object\":{\"idx\":%d,\"class\":", first ? "" : ",\n", x);
		json_str(stdout, me->class_name);
		printf(",\"path\":");
		json_str(stdout, me->path);
		json_node_id(stdout, me);
		printf("},\"direction\":\"%s\",\"references\":{\"items\":[", out ? "out" : "in");
	}
}

/* CSV: the row of reference E of X to OTHER (O when KNOWN, else an FGCObject). */
static void refs_row_csv(obj_t x, const edge *e, int kind, int out, obj_t other, int known, const obj_info *o,
			 const char *fate)
{
	printf("%s,%d,%s,", out ? "out" : "in", x, kinds[kind]);
	csv_str(stdout, e->prop);
	if (known) {
		printf(",%d,", other);
		csv_str(stdout, o->class_name);
		putchar(',');
		csv_str(stdout, o->path);
		printf(",%s,\n", fate);
	} else {
		printf(",,,,%s,", fate);
		csv_str(stdout, e->referencer);
		putchar('\n');
	}
}

/* JSON: the element of reference E to OTHER (O when KNOWN); SHOWN: the rows before it. */
static void refs_row_json(const edge *e, int kind, obj_t other, int known, const obj_info *o, const char *fate,
			  size_t shown)
{
	printf("%s{\"kind\":\"%s\",\"property\":", shown ? "," : "", kinds[kind]);
	json_str(stdout, e->prop);
	if (!known) {
		printf(",\"referencer\":");
		json_str(stdout, e->referencer);
	} else {
		printf(",\"idx\":%d,\"class\":", other);
		json_str(stdout, o->class_name);
		printf(",\"path\":");
		json_str(stdout, o->path);
		json_node_id(stdout, o);
		printf(",\"fate\":\"%s\"", fate);
	}
	printf("}");
}

/* Count reference E of X when MASK asks for its kind, and show it while
 * under LIMIT; 0, or 1 after printing the error. */
static int refs_one(view *v, obj_t x, const edge *e, int out, unsigned mask, enum out_format fmt, size_t limit,
		    refs_tally *t)
{
	int kind = kind_index(edge_kind_name(e)), rc;
	if (!(mask & (1u << kind)))
		return 0;
	t->count[kind]++;
	t->total++;
	obj_t other = out ? e->dst : e->src;
	obj_state st; /* the fate of every one, the names of those shown */
	int known = other != OBJ_NONE;
	if (known && (rc = v->ops->state(v, other, &st)) != 0)
		return rc < 0 ? error("%s", v->err) : error("#%d: a reference names no object #%d", x, other);
	const char *fate = known ? fate_name(st.reachable, st.garbage) : "-";
	t->fate_count[fate_index(fate)]++;
	if (t->shown >= limit)
		return 0;
	obj_info o;
	if (known && (rc = v->ops->object(v, other, &o)) != 0)
		return rc < 0 ? error("%s", v->err) : error("#%d: a reference names no object #%d", x, other);
	const char *prop = e->prop[0] ? e->prop : "-";
	if (fmt == FMT_TEXT) {
		const char *const *kn = v->v8 ? v8_kinds : kinds;
		const char *fw = v->v8 ? v8_fates[fate_index(fate)] : fate;
		if (!known)
			printf("  %-9s %-*s %-8s %s (FGCObject)\n", kn[kind], t->prop_width, prop, fw, e->referencer);
		else
			printf("  %-9s %-*s %-8s #%d %s\n", kn[kind], t->prop_width, prop, fw, other, object_text(v, &o));
	} else if (fmt == FMT_CSV) {
		refs_row_csv(x, e, kind, out, other, known, &o, fate);
	} else {
		refs_row_json(e, kind, other, known, &o, fate, t->shown);
	}
	t->shown++;
	if (known)
		obj_info_free(&o);
	return 0;
}

/* The counts after the rows: a text summary line, or the JSON's closing fields. */
static void refs_foot(const view *v, const refs_tally *t, int out, enum out_format fmt)
{
	if (fmt == FMT_TEXT) {
		const char *what = v->v8 ? (out ? "edge" : "retainer") : out ? "reference" : "referencer";
		char whats[32];
		snprintf(whats, sizeof whats, "%ss", what);
		print_shown(t->shown, t->total, whats);
		printf("%s %s%s", count_text(t->total), what, plural_s(t->total));
		print_counts(": ", t->count, v->v8 ? v8_kinds : kinds, KIND_NAMES);
		print_counts("; ", t->fate_count, v->v8 ? v8_fates : fates, FATES - 1);
		if (t->fate_count[FATES - 1])
			printf("%s%s FGCObject", t->total > t->fate_count[FATES - 1] ? ", " : "; ",
			       count_text(t->fate_count[FATES - 1]));
		printf("\n");
	} else if (fmt == FMT_JSON) {
		/* the listing's totals follow its items (they are counted as the rows go) */
		printf("],\"total\":%u,\"shown\":%zu},\"counts\":{\"total\":%u", t->total, t->shown, t->total);
		for (int k = 0; k < KIND_NAMES; k++)
			printf(",\"%s\":%u", kinds[k], t->count[k]);
		for (int k = 0; k < FATES - 1; k++)
			printf(",\"%s\":%u", fates[k], t->fate_count[k]);
		printf("}}");
	}
}

/* 0, or 1 after printing the error (a view that fails, an object a damaged
 * database names but does not have). */
static int print_refs(view *v, obj_t x, const edges *es, int out, unsigned mask, enum out_format fmt, int first,
		      size_t limit)
{
	obj_info me;
	int rc = v->ops->object(v, x, &me);
	if (rc)
		return rc < 0 ? error("%s", v->err) : error("no object #%d", x);
	refs_tally t = {0};
	t.prop_width = prop_column(es, mask, limit);
	refs_head(v, x, &me, out, fmt, first);
	for (size_t k = 0; k < es->n && rc == 0; k++)
		rc = refs_one(v, x, &es->v[k], out, mask, fmt, limit, &t);
	if (rc == 0)
		refs_foot(v, &t, out, fmt);
	obj_info_free(&me);
	return rc;
}

struct refs_opts {
	const char *glob, *cls;
	int format, out;
	unsigned mask;
	long long limit;
};

static const char *kind_list(const option *opt, void *mask, const char *arg)
{
	(void)opt;
	return parse_kinds(arg, mask) ? "takes strong, aro, immutable, weak, soft, class, outer, gcobject" : NULL;
}

#define R struct refs_opts
static const option options[] = {
	OPT_FLAG(0, "out", R, out, "what OBJ references instead (the fate is the target's)"),
	OPT_CALLBACK(0, "kind", R, mask, unsigned, kind_list, 0, "LIST",
		     "only these kinds: strong,aro,immutable,weak,soft,class,outer,gcobject"),
	OPT_LIMIT(R, limit, "rows shown (text: default 100; json, csv: all unless given;\n0: all); the counts are always over all"),
	OPT_NAME_GLOB(R, glob),
	OPT_CLASS_NAME(R, cls),
	OPT_FORMAT(R, format, "text (default), json or csv"),
	OPT_END(),
};
#undef R

const command command_refs = {
	"refs", cmd_refs, "who references an object (or, with --out, what it references)",
	"usage: ugc-analyze refs INPUT OBJ [--out] [--kind K[,K...]] [--limit N] [--format text|json|csv]\n"
	"       ugc-analyze refs INPUT --name GLOB | --class NAME ...\n",
	"Lists every direct referencer of OBJ: the reference kind (strong, aro, immutable,\n"
	"weak, soft), the implicit class and outer references (objects whose Class or Outer\n"
	"OBJ is) and FGCObjects (gcobject, shown as 'NAME (FGCObject)'), the property, the\n"
	"referencer's fate in this GC (survives, garbage: marked garbage but kept, purged)\n"
	"and the referencer, then the counts by kind and by fate over all of them.\n"
	"INPUT is a snapshot (analysed in memory) or a database written by analyze.\n"
	"OBJ is an index (123 or #123), a V8 node id (@123), a path name or a full name\n"
	"('Class /Path').\n",
	options, 2, NULL,
};

int cmd_refs(int argc, char **argv)
{
	struct refs_opts opts = {.format = FMT_TEXT, .mask = 0, .limit = LIMIT_UNSET}; /* mask 0: no --kind */
	const char *operands[2] = {NULL, NULL};
	int parsed = parse_options(&command_refs, argc, argv, &opts, operands);
	if (parsed < 0)
		return OPT_EXIT_STATUS(parsed);
	const char *input = operands[0], *sel = operands[1], *glob = opts.glob, *cls = opts.cls;
	enum out_format fmt = opts.format;
	unsigned mask = opts.mask;
	int out = opts.out;
	if (selection_usage("refs", input, sel, glob, cls))
		return 2;
	view *v = open_input(input);
	if (!v)
		return 1;
	obj_t *objs;
	size_t n;
	if (!mask) /* every kind; on a V8 heap but the tool's own Class and Outer edges */
		mask = ((1u << KIND_NAMES) - 1) & ~(v->v8 ? 1u << kind_index("class") | 1u << kind_index("outer") : 0u);
	int rc = select_objects(v, sel, glob, cls, &objs, &n);
	if (fmt == FMT_CSV && rc == 0)
		printf("direction,object,kind,property,idx,class,path,fate,referencer\n");
	if (fmt == FMT_JSON && rc == 0) {
		json_begin("refs");
		printf(",\"objects\":[");
	}
	for (size_t k = 0; k < n && rc == 0; k++) {
		edges es = {0};
		if ((out ? v->ops->outgoing : v->ops->incoming)(v, objs[k], &es)) {
			rc = error("%s", v->err);
			edges_free(&es);
			break;
		}
		rc = print_refs(v, objs[k], &es, out, mask, fmt, k == 0, listing_limit(opts.limit, fmt, 100));
		edges_free(&es);
	}
	if (fmt == FMT_JSON && rc == 0) {
		printf("]");
		json_end();
	}
	free(objs);
	close_input(v);
	return rc;
}
