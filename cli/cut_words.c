/* cut_words.c — a cut reference (analysis/cut.h) in words, as `cut` and
 * `worlds` print it: the property and kind of an "r" record (on a V8 heap
 * the edge's name), the FGCObject of a "g" record, the list of a cluster
 * entry, the action a root needs. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "analysis/analysis.h"

void cut_ref_words(const heap *h, int v8, const cut_ref *c, uint32_t keep, char *buf, size_t cap)
{
	if (c->kind == CK_REF && v8) {
		const char *prop = heap_str(h, h->ref_prop[c->id]);
		snprintf(buf, cap, "%s", disp(prop[0] ? prop : "(unnamed)"));
	} else if (c->kind == CK_REF) {
		snprintf(buf, cap, "%s (%s)", disp(heap_str(h, h->ref_prop[c->id])), ref_kind_names[h->ref_kind[c->id]]);
	} else if (c->kind == CK_GCREF) {
		const gc_ref *g = &h->gcrefs[c->id];
		snprintf(buf, cap, "FGCObject %s %s", disp(heap_str(h, g->referencer)), disp(heap_str(h, g->prop)));
	} else if (c->kind == CK_LIST) {
		const cluster *cl = &h->clusters[c->cluster];
		int mut = c->id >= cl->mutables && c->id < cl->mutables + cl->n_mutables;
		snprintf(buf, cap, "its cluster's %s entry", mut ? "MutableObjects" : "ReferencedClusters");
	} else if (v8) {
		snprintf(buf, cap, "no longer the snapshot's root");
	} else {
		uint16_t f = h->iflags[c->holder];
		snprintf(buf, cap, "%s%s%s", f & IF_RootSet ? "remove from the root set; " : "",
			 f & IF_RefCounted ? "release the refcount; " : "",
			 h->oflags[c->holder] & keep ? "clear its KeepFlags; " : "");
		size_t n = strlen(buf);
		if (n >= 2)
			buf[n - 2] = '\0';
	}
}
