/* cut_net.h — the flow network of cut (private to analysis/cut.c and
 * analysis/cut_net.c, which builds it from the GC's causal model).
 *
 * Node 0 is ⊤ (the source), node 1 the sink, nodes 2.. the objects of the
 * ancestor superset (NODE maps a slot to its node, OBJ back), then virtual
 * nodes, each standing for an object (OBJ) so that a chain reads as
 * objects.  Edge E runs EU[E] -> EV[E] with capacity CAP[E] (INF:
 * uncuttable) and the label LAB[E] (RGRAPH_LABEL: what the edge is, for a
 * cut reference or a chain); it is two arcs, 2E forward and 2E+1 backward,
 * whose residual capacities are RES[arc].  ADJ lists the arcs leaving each
 * node (ADJ_START, compressed rows); IS_TARGET marks the target nodes (the
 * ones with an edge to the sink). */
#ifndef UGC_CUT_NET_H
#define UGC_CUT_NET_H

#include <stdint.h>

#include "analysis/cut.h"
#include "analysis/retention_graph.h"

#define INF ((int64_t)1 << 60)
#define NO UINT32_MAX
#define SRC 0u
#define SINK 1u

typedef struct net {
	uint32_t n, m, mcap;
	obj_t *obj;
	uint32_t *node;
	uint32_t *eu, *ev;
	int64_t *cap, *res;
	uint64_t *lab;
	uint32_t *adj_start, *adj;
	uint8_t *is_target; /* per node */
} net;

static inline uint32_t arc_tail(const net *g, uint32_t a) { return a & 1 ? g->ev[a >> 1] : g->eu[a >> 1]; }
static inline uint32_t arc_head(const net *g, uint32_t a) { return a & 1 ? g->eu[a >> 1] : g->ev[a >> 1]; }

void net_free(net *g);
/* Edge U -> V of capacity CAP and label LAB: 0, or -1 when out of memory. */
int net_add_edge(net *g, uint32_t u, uint32_t v, int64_t cap, uint64_t lab);

enum { NET_GUARDED = 1 }; /* cut_net_build's flags */

/* The network over the ancestor superset already in G (nodes 2.., its NT
 * targets first; NODE filled): the causal model's nodes and edges (UNDER:
 * the lower bound's, without the effects that hang on the GC's order), the
 * arcs by tail.  *FLAGS: NET_GUARDED when the network has such an effect
 * (then the lower bound is worth computing).  0, or -1 when out of memory. */
int cut_net_build(const heap *h, const gc_result *r, const cut_options *opt, net *g, uint32_t nt, int under,
		  int *flags);

#endif
