/* cmd_info.c — `ugc-analyze info SNAPSHOT`: header, counts, roots by kind,
 * top classes by count and by bytes.  No GC is run.  An analysis database
 * is summarised by cmd_info_db.c. */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "base/base.h"
#include "analysis/analysis.h"
#include "snapshot/snapshot.h"
#include "sql/sql.h"

typedef struct info {
	uint32_t packages, garbage, gc_referencers, cluster_members;
	uint32_t refs_by_kind[REF_KIND_COUNT];
	uint32_t roots_by_kind[RK_COUNT];
	uint64_t bytes;
	class_hist classes; /* the classes in use, the top by count and by bytes */
} info;

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int gather(const heap *h, size_t top, info *in)
{
	memset(in, 0, sizeof *in);
	uint8_t *target = calloc(h->slots ? h->slots : 1, 1);
	char **names = malloc(((size_t)h->ngcrefs + 1) * sizeof *names);
	if (!target || !names || class_hist_all(h, top, &in->classes)) {
		free(target);
		free(names);
		return -1;
	}
	for (uint32_t g = 0; g < h->ngcrefs; g++) {
		names[g] = (char *)heap_str(h, h->gcrefs[g].referencer);
		if (heap_exists(h, h->gcrefs[g].dst))
			target[h->gcrefs[g].dst] = 1;
	}
	if (h->ngcrefs > 1)
		qsort(names, h->ngcrefs, sizeof *names, cmp_name);
	for (uint32_t g = 0; g < h->ngcrefs; g++)
		in->gc_referencers += g == 0 || strcmp(names[g], names[g - 1]) != 0;
	uint32_t keep = gc_default_keep_flags(h->mode);
	for (uint32_t i = 0; i < h->slots; i++) {
		if (h->cls[i] == OBJ_FREE)
			continue;
		in->bytes += h->size[i];
		in->packages += heap_is_package(h, (obj_t)i);
		in->garbage += heap_is_garbage(h, (obj_t)i);
		int k = root_kind_static(h, (obj_t)i, keep, target[i]);
		if (k != RK_NONE)
			in->roots_by_kind[k]++;
	}
	for (uint32_t k = 0; k < h->nrefs; k++)
		in->refs_by_kind[h->ref_kind[k]]++;
	for (uint32_t c = 0; c < h->nclusters; c++)
		in->cluster_members += h->clusters[c].n_members;
	free(target);
	free(names);
	return 0;
}

/* The top classes (constructors) by count and by bytes, in text. */
static void print_top_classes(const heap *h, const info *in, const char *words)
{
	char name[HEAP_NAME_MAX];
	for (int by = CLASS_BY_COUNT; by <= CLASS_BY_BYTES; by++) {
		printf("top %s by %s:\n", words, by == CLASS_BY_BYTES ? "bytes" : "count");
		for (size_t t = 0; t < in->classes.n; t++) {
			const class_row *c = &in->classes.top[by][t];
			heap_name(h, c->cls, name, sizeof name);
			printf("  %-40s %10s %-7s %14s\n", disp(name), count_text(c->count), plural(c->count, "object", "objects"),
			       size_text(c->bytes));
		}
		if (in->classes.n < in->classes.classes) {
			printf("  ");
			print_shown(in->classes.n, in->classes.classes, words);
		}
	}
}

/* A V8 heap's summary in V8's words: nodes, edges, constructors (no
 * clusters, garbage, packages or Unreal root kinds). */
static void print_text_v8(const char *path, const heap *h, const info *in)
{
	uint32_t pool = (uint32_t)(h->first_gc_index < 0 ? 0 : h->first_gc_index);
	printf("snapshot        %s (a V8 heap snapshot)\n", disp(path));
	printf("engine          %s\n", h->engine ? disp(heap_str(h, h->engine)) : "v8");
	printf("nodes           %s (and %s object%s the tool adds below them: /V8 and the constructors)\n",
	       count_text(h->objects - pool), count_text(pool), plural_s(pool));
	printf("constructors    %s in use\n", count_text(in->classes.classes));
	printf("self size       %s\n", size_text(in->bytes));
	printf("edges           %s: %s retaining, %s weak, %s shortcut\n", count_text(h->nrefs),
	       count_text(in->refs_by_kind[REF_STRONG]), count_text(in->refs_by_kind[REF_WEAK]),
	       count_text(in->refs_by_kind[REF_SOFT]));
	printf("memory          %s resident in the loaded model\n", size_text(heap_memory(h)));
	print_top_classes(h, in, "constructors");
}

static void print_text(const char *path, const heap *h, const info *in)
{
	printf("snapshot        %s\n", disp(path));
	printf("engine          %s\n", h->engine ? disp(heap_str(h, h->engine)) : "-");
	printf("mode            %s\n", h->mode == MODE_EDITOR ? "editor" : "game");
	printf("first-gc-index  %d\n", h->first_gc_index);
	printf("garbage-elim.   %s\n", h->no_garbage_elimination ? "off" : "on");
	printf("label           %s\n", h->label ? disp(heap_str(h, h->label)) : "-");
	printf("objects         %s (%s slot%s)\n", count_text(h->objects), count_text(h->slots), plural_s(h->slots));
	printf("classes         %s in use\n", count_text(in->classes.classes));
	printf("packages        %s\n", count_text(in->packages));
	printf("bytes           %s\n", size_text(in->bytes));
	printf("garbage         %s\n", count_text(in->garbage));
	printf("references      %s:", count_text(h->nrefs));
	for (int k = 0; k < REF_KIND_COUNT; k++)
		printf(" %s %s", ref_kind_names[k], count_text(in->refs_by_kind[k]));
	printf(", %s dangling\n", count_text(h->ndangling));
	printf("gc-object refs  %s record%s from %s FGCObject referencer%s\n", count_text(h->ngcrefs),
	       plural_s(h->ngcrefs), count_text(in->gc_referencers), plural_s(in->gc_referencers));
	printf("clusters        %s (%s member%s)\n", count_text(h->nclusters), count_text(in->cluster_members),
	       plural_s(in->cluster_members));
	printf("memory          %s resident in the loaded model\n", size_text(heap_memory(h)));
	uint32_t roots = 0;
	for (int k = 0; k <= RK_GCOBJECT; k++)
		roots += in->roots_by_kind[k];
	printf("roots           %s:", count_text(roots));
	for (int k = 0; k <= RK_GCOBJECT; k++)
		printf(" %s %s", root_kind_names[k], count_text(in->roots_by_kind[k]));
	printf("\n");
	print_top_classes(h, in, "classes");
}

static void print_json(const char *path, const heap *h, const info *in)
{
	json_begin("info");
	printf(",\"snapshot\":");
	json_str(stdout, path);
	printf(",\"engine\":");
	if (h->engine)
		json_str(stdout, heap_str(h, h->engine));
	else
		printf("null");
	printf(",\"mode\":\"%s\",\"first_gc_index\":%d,\"garbage_elimination\":\"%s\",\"label\":",
	       h->mode == MODE_EDITOR ? "editor" : "game", h->first_gc_index, h->no_garbage_elimination ? "off" : "on");
	if (h->label)
		json_str(stdout, heap_str(h, h->label));
	else
		printf("null");
	printf(",\"objects\":%u,\"slots\":%u,\"classes\":%u,\"packages\":%u,\"bytes\":%llu,\"garbage\":%u,",
	       h->objects, h->slots, in->classes.classes, in->packages, (unsigned long long)in->bytes, in->garbage);
	printf("\"references\":{\"total\":%u", h->nrefs);
	for (int k = 0; k < REF_KIND_COUNT; k++)
		printf(",\"%s\":%u", ref_kind_names[k], in->refs_by_kind[k]);
	printf(",\"dangling\":%u},\"gc_object_refs\":%u,\"gc_object_referencers\":%u,", h->ndangling, h->ngcrefs,
	       in->gc_referencers);
	printf("\"clusters\":%u,\"cluster_members\":%u,\"memory_bytes\":%llu,\"roots\":{", h->nclusters,
	       in->cluster_members, (unsigned long long)heap_memory(h));
	uint32_t roots = 0;
	for (int k = 0; k <= RK_GCOBJECT; k++) {
		json_key(root_kind_names[k]);
		printf("%u,", in->roots_by_kind[k]);
		roots += in->roots_by_kind[k];
	}
	printf("\"total\":%u}", roots);
	char name[HEAP_NAME_MAX];
	for (int by = CLASS_BY_COUNT; by <= CLASS_BY_BYTES; by++) {
		json_list_begin(by == CLASS_BY_BYTES ? "top_classes_by_bytes" : "top_classes_by_count", in->classes.classes,
				in->classes.n);
		for (size_t t = 0; t < in->classes.n; t++) {
			const class_row *c = &in->classes.top[by][t];
			heap_name(h, c->cls, name, sizeof name);
			printf("%s{\"class\":", t ? "," : "");
			json_str(stdout, name);
			printf(",\"objects\":%u,\"bytes\":%llu}", c->count, (unsigned long long)c->bytes);
		}
		printf("]}");
	}
	json_end();
}

struct info_opts {
	int format;
	long long top;
};

static const option options[] = {
	OPT_CHOICE(0, "format", struct info_opts, format, format_choices, 2, "F", "text (default) or json"),
	OPT_LIMIT_RANGE(struct info_opts, top, 0, 1000000000,
			"how many classes in each top list (default 10 in text; 0: all)"),
	OPT_TOP_ALIAS(struct info_opts, top, 0, 1000000000),
	OPT_END(),
};

const command command_info = {
	"info", cmd_info, "summarise a snapshot (header, counts, roots, top classes) or a database",
	"usage: ugc-analyze info SNAPSHOT|DB [--format text|json] [--limit N]\n",
	"Prints the header fields and counts of objects, classes, packages, references by\n"
	"kind, FGCObject referencers, clusters, roots by kind (as the GC would count them\n"
	"before it runs), garbage objects and bytes, and the top classes by count and by\n"
	"bytes.  Given a database written by analyze, says so and what it holds: its\n"
	"schema version, source and mode, objects, references, roots by kind (as the\n"
	"roots view), clusters and findings.\n",
	options, 1, NULL,
};

int cmd_info(int argc, char **argv)
{
	struct info_opts opts = {FMT_TEXT, LIMIT_UNSET};
	const char *path = NULL;
	int parsed = parse_options(&command_info, argc, argv, &opts, &path);
	if (parsed < 0)
		return OPT_EXIT_STATUS(parsed);
	enum out_format fmt = opts.format;
	size_t top = listing_limit(opts.top, fmt, 10);
	if (!path)
		return usage_error("info", "needs a SNAPSHOT");
	if (is_sqlite_file(path))
		return info_database(path, fmt);
	heap h;
	if (load_or_die(path, &h))
		return 1;
	progress_phase(NULL);
	info in;
	int rc = 0;
	if (gather(&h, top, &in))
		rc = error("out of memory");
	else if (fmt == FMT_JSON)
		print_json(path, &h, &in);
	else
		(heap_is_v8(&h) ? print_text_v8 : print_text)(path, &h, &in);
	class_hist_free(&in.classes);
	heap_free(&h);
	return rc;
}
