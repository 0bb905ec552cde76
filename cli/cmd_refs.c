/* cmd_refs.c — `ugc-analyze refs INPUT OBJ`: every direct referencer of an
 * object (or, with --out, everything it references), with kinds, properties
 * and each one's fate in this GC, the implicit Class and Outer references and
 * FGCObjects; --limit rows, the counts always over all of them. */
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

/* The fates a referencer (or, with --out, a target) can have: fate_name's,
 * and "-" for an FGCObject, which is no UObject. */
#define FATES 4
static const char *const fates[FATES] = {"survives", "garbage", "purged", "-"};

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
			printf("%s%u %s", sep, count[k], names[k]);
			sep = ", ";
		}
}

static void print_refs(view *v, obj_t x, const edges *es, int out, unsigned mask, enum out_format fmt, int first,
		       size_t limit)
{
	obj_info me;
	if (v->object(v, x, &me))
		return;
	unsigned count[KIND_NAMES] = {0}, fate_count[FATES] = {0}, total = 0;
	size_t shown = 0;
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
		total++;
		obj_t other = out ? e->dst : e->src;
		obj_state st; /* the fate of every one, the names of those shown */
		int known = other != OBJ_NONE && v->state(v, other, &st) == 0;
		const char *fate = known ? fate_name(st.reachable, st.garbage) : "-";
		fate_count[fate_index(fate)]++;
		if (shown >= limit)
			continue;
		obj_info o;
		int have = known && v->object(v, other, &o) == 0;
		const char *prop = e->prop[0] ? e->prop : "-";
		if (fmt == FMT_TEXT) {
			if (!have)
				printf("  %-9s %-32s %-8s %s (FGCObject)\n", kinds[kind], prop, fate, e->referencer);
			else
				printf("  %-9s %-32s %-8s #%d %s %s\n", kinds[kind], prop, fate, other, o.class_name, o.path);
		} else if (fmt == FMT_CSV) {
			printf("%s,%d,%s,", out ? "out" : "in", x, kinds[kind]);
			csv_str(stdout, e->prop);
			if (have) {
				printf(",%d,", other);
				csv_str(stdout, o.class_name);
				putchar(',');
				csv_str(stdout, o.path);
				printf(",%s,\n", fate);
			} else {
				printf(",,,,%s,", fate);
				csv_str(stdout, e->referencer);
				putchar('\n');
			}
		} else {
			printf("%s{\"kind\":\"%s\",\"property\":", shown ? "," : "", kinds[kind]);
			json_str(stdout, e->prop);
			if (!have) {
				printf(",\"referencer\":");
				json_str(stdout, e->referencer);
			} else {
				printf(",\"idx\":%d,\"class\":", other);
				json_str(stdout, o.class_name);
				printf(",\"path\":");
				json_str(stdout, o.path);
				printf(",\"fate\":\"%s\"", fate);
			}
			printf("}");
		}
		shown++;
		if (have)
			obj_info_free(&o);
	}
	if (fmt == FMT_TEXT) {
		print_shown(shown, total, out ? "references" : "referencers");
		printf("%u %s", total, out ? "references" : "referencers");
		print_counts(": ", count, kinds, KIND_NAMES);
		print_counts("; ", fate_count, fates, FATES - 1);
		if (fate_count[FATES - 1])
			printf("%s%u FGCObject", total > fate_count[FATES - 1] ? ", " : "; ", fate_count[FATES - 1]);
		printf("\n");
	} else if (fmt == FMT_JSON) {
		printf("],\"shown\":%zu,\"counts\":{\"total\":%u", shown, total);
		for (int k = 0; k < KIND_NAMES; k++)
			printf(",\"%s\":%u", kinds[k], count[k]);
		for (int k = 0; k < FATES - 1; k++)
			printf(",\"%s\":%u", fates[k], fate_count[k]);
		printf("}}");
	}
	obj_info_free(&me);
}

int cmd_refs(int argc, char **argv)
{
	const char *input = NULL, *sel = NULL, *glob = NULL, *cls = NULL;
	enum out_format fmt = FMT_TEXT;
	unsigned mask = (1u << KIND_NAMES) - 1;
	int out = 0;
	long long limit = LIMIT_UNSET;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int more = i + 1 < argc;
		if (strcmp(a, "--format") == 0 && more) {
			if (parse_format(argv[++i], 1, &fmt))
				return usage_error("refs", "--format is text, json or csv");
		} else if (strcmp(a, "--kind") == 0 && more) {
			if (parse_kinds(argv[++i], &mask))
				return usage_error("refs", "--kind takes strong, aro, immutable, weak, soft, class, outer, gcobject");
		} else if (strcmp(a, "--limit") == 0 && more) {
			if (parse_limit(argv[++i], &limit))
				return usage_error("refs", "--limit takes a number (0: all)");
		} else if (strcmp(a, "--out") == 0) {
			out = 1;
		} else if (strcmp(a, "--name") == 0 && more) {
			glob = argv[++i];
		} else if (strcmp(a, "--class") == 0 && more) {
			cls = argv[++i];
		} else if (a[0] == '-' && a[1] == '-') {
			return usage_error("refs", "unknown option '%s' or missing value", a);
		} else if (!input) {
			input = a;
		} else if (!sel) {
			sel = a;
		} else {
			return usage_error("refs", "too many arguments");
		}
	}
	if (!input || (!sel && !glob && !cls))
		return usage_error("refs", "needs INPUT and OBJ (or --name/--class)");
	view *v = open_input(input);
	if (!v)
		return 1;
	obj_t *objs;
	size_t n;
	int rc = select_objects(v, sel, glob, cls, &objs, &n);
	if (fmt == FMT_CSV && rc == 0)
		printf("direction,object,kind,property,idx,class,path,fate,referencer\n");
	if (fmt == FMT_JSON && rc == 0)
		printf("[");
	for (size_t k = 0; k < n && rc == 0; k++) {
		edges es = {0};
		if ((out ? v->outgoing : v->incoming)(v, objs[k], &es)) {
			rc = die("%s", v->err);
			edges_free(&es);
			break;
		}
		print_refs(v, objs[k], &es, out, mask, fmt, k == 0, listing_limit(limit, fmt, 100));
		edges_free(&es);
	}
	if (fmt == FMT_JSON && rc == 0)
		printf("]\n");
	free(objs);
	close_input(v);
	return rc;
}
