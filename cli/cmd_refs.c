/* cmd_refs.c — `ugc-analyze refs INPUT OBJ`: every direct referencer of an
 * object (or, with --out, everything it references), with kinds and
 * properties, the implicit Class and Outer references and FGCObjects. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "query.h"

#define KIND_NAMES 8
static const char *const kinds[KIND_NAMES] = {"strong", "aro", "immutable", "weak", "soft", "class", "outer", "gcobject"};

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
	snprintf(buf, sizeof buf, "%s", list);
	*mask = 0;
	for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
		int k = kind_index(tok);
		if (k < 0)
			return -1;
		*mask |= 1u << k;
	}
	return 0;
}

static void print_refs(view *v, obj_t x, const edges *es, int out, unsigned mask, enum out_format fmt, int first)
{
	obj_info me;
	if (v->object(v, x, &me))
		return;
	unsigned count[KIND_NAMES] = {0}, total = 0;
	if (fmt == FMT_TEXT)
		printf("%s #%d %s %s\n", out ? "references of" : "referencers of", x, me.class_name, me.path);
	if (fmt == FMT_JSON) {
		printf("%s{\"object\":{\"idx\":%d,\"class\":", first ? "" : ",\n", x);
		json_str(stdout, me.class_name);
		printf(",\"path\":");
		json_str(stdout, me.path);
		printf("},\"direction\":\"%s\",\"references\":[", out ? "out" : "in");
	}
	for (size_t k = 0; k < es->n; k++) {
		const edge *e = &es->v[k];
		int kind = kind_index(edge_kind_name(e));
		if (!(mask & (1u << kind)))
			continue;
		count[kind]++;
		obj_t other = out ? e->dst : e->src;
		obj_info o;
		int have = other != OBJ_NONE && v->object(v, other, &o) == 0;
		const char *cls = have ? o.class_name : "FGCObject", *path = have ? o.path : e->referencer;
		if (fmt == FMT_TEXT) {
			if (other == OBJ_NONE)
				printf("  %-9s %-32s FGCObject %s\n", kinds[kind], e->prop[0] ? e->prop : "-", e->referencer);
			else
				printf("  %-9s %-32s #%d %s %s\n", kinds[kind], e->prop[0] ? e->prop : "-", other, cls, path);
		} else if (fmt == FMT_CSV) {
			printf("%s,%d,%s,", out ? "out" : "in", x, kinds[kind]);
			csv_str(stdout, e->prop);
			if (other == OBJ_NONE)
				printf(",,,");
			else
				printf(",%d,", other);
			csv_str(stdout, cls);
			putchar(',');
			csv_str(stdout, path);
			putchar('\n');
		} else {
			printf("%s{\"kind\":\"%s\",\"property\":", total ? "," : "", kinds[kind]);
			json_str(stdout, e->prop);
			if (other == OBJ_NONE) {
				printf(",\"referencer\":");
				json_str(stdout, e->referencer);
			} else {
				printf(",\"idx\":%d,\"class\":", other);
				json_str(stdout, cls);
				printf(",\"path\":");
				json_str(stdout, path);
			}
			printf("}");
		}
		total++;
		if (have)
			obj_info_free(&o);
	}
	if (fmt == FMT_TEXT) {
		printf("%u %s", total, out ? "references" : "referencers");
		for (int k = 0, first_kind = 1; k < KIND_NAMES; k++)
			if (count[k]) {
				printf("%s%u %s", first_kind ? ": " : ", ", count[k], kinds[k]);
				first_kind = 0;
			}
		printf("\n");
	} else if (fmt == FMT_JSON) {
		printf("],\"counts\":{\"total\":%u", total);
		for (int k = 0; k < KIND_NAMES; k++)
			printf(",\"%s\":%u", kinds[k], count[k]);
		printf("}}");
	}
	obj_info_free(&me);
}

struct refs_opts {
	const char *glob, *cls;
	int format, out;
	unsigned mask;
};

static const char *kind_list(const option *opt, void *mask, const char *arg)
{
	(void)opt;
	return parse_kinds(arg, mask) ? "takes strong, aro, immutable, weak, soft, class, outer, gcobject" : NULL;
}

#define R struct refs_opts
static const option options[] = {
	OPT_FLAG(0, "out", R, out, "what OBJ references instead"),
	OPT_CALLBACK(0, "kind", R, mask, unsigned, kind_list, 0, "LIST",
		     "only these kinds: strong,aro,immutable,weak,soft,class,outer,gcobject"),
	OPT_NAME_GLOB(R, glob),
	OPT_CLASS_NAME(R, cls),
	OPT_FORMAT(R, format, "text (default), json or csv"),
	OPT_END(),
};
#undef R

const command command_refs = {
	"refs", cmd_refs, "who references an object (or, with --out, what it references)",
	"usage: ugc-analyze refs INPUT OBJ [--out] [--kind K[,K...]] [--format text|json|csv]\n"
	"       ugc-analyze refs INPUT --name GLOB | --class NAME ...\n",
	"Lists every direct referencer of OBJ: the object, the property and the reference\n"
	"kind (strong, aro, immutable, weak, soft), the implicit class and outer references\n"
	"(objects whose Class or Outer OBJ is) and FGCObjects (gcobject), with counts.\n"
	"INPUT is a snapshot (analysed in memory) or a database written by analyze.\n"
	"OBJ is an index (123 or #123), a path name or a full name ('Class /Path').\n",
	options, 2, NULL,
};

int cmd_refs(int argc, char **argv)
{
	struct refs_opts opts = {.format = FMT_TEXT, .mask = (1u << KIND_NAMES) - 1};
	const char *operands[2] = {NULL, NULL};
	int parsed = parse_options(&command_refs, argc, argv, &opts, operands);
	if (parsed < 0)
		return OPT_EXIT_STATUS(parsed);
	const char *input = operands[0], *sel = operands[1], *glob = opts.glob, *cls = opts.cls;
	enum out_format fmt = opts.format;
	unsigned mask = opts.mask;
	int out = opts.out;
	if (!input || (!sel && !glob && !cls))
		return usage_error("refs", "needs INPUT and OBJ (or --name/--class)");
	view *v = open_input(input);
	if (!v)
		return 1;
	obj_t *objs;
	size_t n;
	int rc = select_objects(v, sel, glob, cls, &objs, &n);
	if (fmt == FMT_CSV && rc == 0)
		printf("direction,object,kind,property,idx,class,path\n");
	if (fmt == FMT_JSON && rc == 0)
		printf("[");
	for (size_t k = 0; k < n && rc == 0; k++) {
		edges es = {0};
		if ((out ? v->outgoing : v->incoming)(v, objs[k], &es)) {
			rc = die("%s", v->err);
			edges_free(&es);
			break;
		}
		print_refs(v, objs[k], &es, out, mask, fmt, k == 0);
		edges_free(&es);
	}
	if (fmt == FMT_JSON && rc == 0)
		printf("]\n");
	free(objs);
	close_input(v);
	return rc;
}
