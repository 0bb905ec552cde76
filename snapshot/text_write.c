/* text_write.c — the canonical .ugct form of a heap.
 *
 * Canonical means: header records in a fixed order (mode and first-gc-index
 * always), objects in index order, the "r" records grouped by source in
 * index order (file order kept within a source), then dangling "r" records,
 * "g" records and "c" records in their original order, and last the end
 * record with the counts.  Text -> binary -> text gives the same bytes. */
#include "snapshot/snapshot.h"
#include "base/base.h"

#include "capture/ugc_capture.h"

#include <stdlib.h>
#include <string.h>

/* The capture library's escaping (capture/ugc_escape.c): engine dumpers and
 * this tool write identical fields. */
size_t text_escape(const char *s, size_t len, char *out)
{
	return ugc_escape(s, len, out);
}

/* Write an escaped string field (with a leading space). */
static void put_field(FILE *fp, const char *s, size_t len)
{
	char stack[256], *buf = len * 3 + 1 <= sizeof stack ? stack : malloc(len * 3 + 1);
	if (!buf) {
		fputs(" ?", fp); /* out of memory: the stream's error flag is set below */
		clearerr(fp);
		return;
	}
	fputc(' ', fp);
	fwrite(buf, 1, text_escape(s, len, buf), fp);
	if (buf != stack)
		free(buf);
}

static void put_str(FILE *fp, const heap *h, uint32_t id)
{
	put_field(fp, heap_str(h, id), strtab_len(&h->strings, id));
}

static void put_list(FILE *fp, const heap *h, uint32_t start, uint32_t n)
{
	if (!n) {
		fputs(" -", fp);
		return;
	}
	for (uint32_t k = 0; k < n; k++)
		fprintf(fp, "%c%d", k ? ',' : ' ', h->cluster_items[start + k]);
}

int text_write(const heap *h, FILE *fp)
{
	if (text_write_records(h, fp))
		return -1;
	/* always last: the counts of the records above, so a reader can tell a whole file */
	fprintf(fp, "end %u %llu %u %u\n", h->objects, (unsigned long long)h->nrefs + h->ndangling, h->ngcrefs,
		h->nclusters);
	return ferror(fp) ? -1 : 0;
}

int text_write_records(const heap *h, FILE *fp)
{
	fputs("ugc-text 1\n", fp);
	if (h->engine) {
		fputs("engine", fp);
		put_str(fp, h, h->engine);
		fputc('\n', fp);
	}
	fprintf(fp, "mode %s\n", h->mode == MODE_EDITOR ? "editor" : "game");
	fprintf(fp, "first-gc-index %d\n", h->first_gc_index);
	if (h->no_garbage_elimination) /* "on", the default, is not written */
		fputs("garbage-elimination off\n", fp);
	if (h->label) {
		fputs("label", fp);
		put_str(fp, h, h->label);
		fputc('\n', fp);
	}
	char flags[FLAGS_MAX], name[HEAP_NAME_MAX];
	uint64_t steps = 2 * (uint64_t)h->slots; /* objects, then references by source */
	for (uint32_t i = 0; i < h->slots; i++) {
		if ((i & 0xffff) == 0)
			progress_at(i, steps);
		if (h->cls[i] == OBJ_FREE)
			continue;
		fprintf(fp, "o %u %u %d ", i, h->serial[i], h->cls[i]);
		if (h->outer[i] == OBJ_NONE)
			fputc('-', fp);
		else
			fprintf(fp, "%d", h->outer[i]);
		size_t nl = heap_name(h, (obj_t)i, name, sizeof name);
		put_field(fp, name, nl);
		flags_format(flags, h->oflags[i], h->iflags[i], h->traits[i]);
		fprintf(fp, " %u %s\n", h->size[i], flags);
	}
	for (uint32_t i = 0; i < h->slots; i++) {
		if ((i & 0xffff) == 0)
			progress_at(h->slots + (uint64_t)i, steps);
		for (uint32_t k = h->ref_start[i]; k < h->ref_start[i + 1]; k++) {
			fprintf(fp, "r %u %d %s", i, h->ref_dst[k], ref_kind_names[h->ref_kind[k]]);
			if (h->ref_prop[k])
				put_str(fp, h, h->ref_prop[k]);
			fputc('\n', fp);
		}
	}
	for (uint32_t k = 0; k < h->ndangling; k++) {
		const dangling_ref *d = &h->dangling[k];
		fprintf(fp, "r %d %d %s", d->src, d->dst, ref_kind_names[d->kind]);
		if (d->prop)
			put_str(fp, h, d->prop);
		fputc('\n', fp);
	}
	for (uint32_t k = 0; k < h->ngcrefs; k++) {
		fputc('g', fp);
		put_str(fp, h, h->gcrefs[k].referencer);
		fprintf(fp, " %d", h->gcrefs[k].dst);
		if (h->gcrefs[k].prop)
			put_str(fp, h, h->gcrefs[k].prop);
		fputc('\n', fp);
	}
	for (uint32_t c = 0; c < h->nclusters; c++) {
		const cluster *cl = &h->clusters[c];
		fprintf(fp, "c %d", cl->root);
		put_list(fp, h, cl->members, cl->n_members);
		put_list(fp, h, cl->mutables, cl->n_mutables);
		put_list(fp, h, cl->refs, cl->n_refs);
		fputc('\n', fp);
	}
	return ferror(fp) ? -1 : 0;
}
