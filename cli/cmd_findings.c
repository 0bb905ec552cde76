/* cmd_findings.c — `ugc-analyze findings INPUT [--kind K]`: what the
 * analysis found (ugc-gc(7) §6), grouped by kind, with counts; --limit of each
 * kind shown, objects named by path, an FGCObject by its name. */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "analysis/analysis.h"

struct findings_opts {
	int format, kind; /* kind -1: all */
	long long limit;
};

#define F struct findings_opts
static const option options[] = {
	OPT_CHOICE(0, "kind", F, kind, finding_kind_names, FK_COUNT, "K", "only findings of kind K"),
	OPT_LIMIT(F, limit, "findings of each kind shown (text: default 20; json, csv: all\n"
		  "unless given; 0: all); each kind's count is always said"),
	OPT_FORMAT(F, format, "text (default), json or csv"),
	OPT_END(),
};
#undef F

const command command_findings = {
	"findings", cmd_findings, "what the analysis found, grouped by kind, with counts",
	"usage: ugc-analyze findings INPUT [--kind K] [--limit N] [--format text|json|csv]\n",
	"Kinds: eliminated-ref, garbage-survives, dangling-ref, cluster-missing-mutable,\n"
	"cluster-missing-cluster, cluster-keeps-alive, rootset-garbage, uncleared-weak-ref,\n"
	"rooted-member-destroyed, keepflags-cluster-root, garbage-flag-mismatch,\n"
	"rooted-cluster-dissolved, garbage-cluster-member, editor-mode-mismatch, world-leak.\nObjects "
	"are named by path; a reference an FGCObject holds by 'NAME (FGCObject)'.\n",
	options, 1, NULL,
};

int cmd_findings(int argc, char **argv)
{
	struct findings_opts opts = {FMT_TEXT, -1, LIMIT_UNSET};
	const char *input = NULL;
	int parsed = parse_options(&command_findings, argc, argv, &opts, &input);
	if (parsed < 0)
		return OPT_EXIT_STATUS(parsed);
	const char *kind = opts.kind >= 0 ? finding_kind_names[opts.kind] : NULL;
	enum out_format fmt = opts.format;
	if (!input)
		return usage_error("findings", "needs INPUT");
	view *v = open_input(input);
	if (!v)
		return 1;
	if (v->v8 && fmt == FMT_TEXT) { /* (JSON and CSV keep their shape: every kind 0) */
		printf("%s: no findings: they are about Unreal Engine's GC (garbage flags, clusters, FGCObjects), which a "
		       "V8 heap does not have\n", disp(input));
		close_input(v);
		return 0;
	}
	finding_rows fs = {0};
	if (v->ops->findings(v, OBJ_NONE, &fs)) {
		int rc = error("%s", v->err);
		free(fs.v);
		close_input(v);
		return rc;
	}
	size_t cap = listing_limit(opts.limit, fmt, 20);
	if (fmt == FMT_CSV)
		printf("kind,idx,other,detail,path,referencer\n");
	if (fmt == FMT_JSON) {
		size_t all = 0;
		for (size_t i = 0; i < fs.n; i++)
			all += !kind || strcmp(fs.v[i].kind, kind) == 0;
		json_begin("findings");
		printf(",\"total\":%zu,\"kinds\":[", all);
	}
	int first_group = 1;
	for (int k = 0; k < FK_COUNT; k++) {
		const char *name = finding_kind_names[k];
		if (kind && strcmp(kind, name) != 0)
			continue;
		size_t count = 0, shown = 0;
		for (size_t i = 0; i < fs.n; i++)
			count += strcmp(fs.v[i].kind, name) == 0;
		if (fmt == FMT_TEXT)
			printf("%s: %s\n", name, count_text(count));
		if (fmt == FMT_JSON) {
			printf("%s{\"kind\":\"%s\",\"total\":%zu,\"shown\":%zu,\"items\":[", first_group ? "" : ",\n", name,
			       count, count < cap ? count : cap);
			first_group = 0;
		}
		for (size_t i = 0; i < fs.n; i++) {
			const finding_row *f = &fs.v[i];
			if (strcmp(f->kind, name) != 0 || shown >= cap)
				continue;
			obj_info o;
			int have = f->idx != OBJ_NONE && v->ops->object(v, f->idx, &o) == 0;
			const char *path = have ? o.path : "";
			if (fmt == FMT_TEXT && f->idx == OBJ_NONE) {
				printf("  %s (FGCObject): %s\n", f->referencer, f->detail);
			} else if (fmt == FMT_TEXT) {
				printf("  #%d %s: %s\n", f->idx, have ? path : "?", f->detail);
			} else if (fmt == FMT_CSV) {
				printf("%s,", name);
				if (f->idx != OBJ_NONE) printf("%d", f->idx);
				putchar(',');
				if (f->other != OBJ_NONE) printf("%d", f->other);
				putchar(',');
				csv_str(stdout, f->detail);
				putchar(',');
				csv_str(stdout, path);
				putchar(',');
				csv_str(stdout, f->referencer);
				putchar('\n');
			} else {
				printf("%s{\"idx\":", shown ? "," : "");
				if (f->idx == OBJ_NONE) printf("null"); else printf("%d", f->idx);
				printf(",\"other\":");
				if (f->other == OBJ_NONE) printf("null"); else printf("%d", f->other);
				printf(",\"other_path\":");
				obj_info ot;
				if (f->other != OBJ_NONE && v->ops->describe(v, f->other, &ot) == 0) {
					json_str(stdout, ot.path);
					obj_info_free(&ot);
				} else {
					printf("null");
				}
				printf(",\"detail\":");
				json_str(stdout, f->detail);
				printf(",\"path\":");
				if (have) json_str(stdout, path); else printf("null");
				json_node_id(stdout, have ? &o : NULL);
				printf(",\"referencer\":");
				if (f->referencer[0]) json_str(stdout, f->referencer); else printf("null");
				printf("}");
			}
			if (have)
				obj_info_free(&o);
			shown++;
		}
		if (fmt == FMT_TEXT) {
			char what[64];
			snprintf(what, sizeof what, "%s findings", name);
			print_shown(shown, count, what);
		}
		if (fmt == FMT_JSON)
			printf("]}");
	}
	if (fmt == FMT_JSON) {
		printf("]");
		json_end();
	}
	free(fs.v);
	close_input(v);
	return 0;
}
