/* dominators.c — the immediate dominators and retained sizes of one
 * policy's retention graph (see dominators.h): the predecessor rows, the
 * depth-first walk, semi-NCA and the results.  The graph's edges are
 * retention_graph.c's; the class and package sums, dom_groups.c's.
 *
 * A first pass, in slot order and on two threads, counts every node's
 * incoming edges (an upper bound: it counts the edges of nodes the walk
 * may not reach), which sizes the predecessor rows; the counts a loader
 * made of its links (in_links) spare it.  Then one depth-first walk from ⊤
 * numbers the reached nodes in preorder, keeping only the rows of the
 * nodes on its current path, sets each reached node's predecessor row out
 * after the last (so the rows lie in preorder, and semi-NCA reads them in
 * one sweep), and places each edge it follows, as its source's number, in
 * its target's row, all but the tree edges (a node's first, which its DFS
 * parent stands for), a second thread making the stores on large heaps (as
 * number + 1: the places the walk leaves unused hold 0).
 * So no copy of the forward graph is held beside the predecessor rows: the
 * successors are listed twice instead (rgraph_succ_row), in slot order to
 * count (unless the loader counted the links), and by the walk.  Semi-NCA
 * (Georgiadis, "Finding dominators in practice") then needs only those
 * rows and arrays indexed by preorder number.  Every loop is iterative:
 * heaps can hold chains millions long. */
#include "analysis/dominators.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/dom_groups.h"
#include "analysis/retention_graph.h"
#include "base/base.h"

const char *const dom_policy_names[POLICY_COUNT] = {"gc", "refs", "refs+weak", "refs+weak+soft"};

int dom_policy_parse(const char *s)
{
	for (int p = 0; s && p < POLICY_COUNT; p++)
		if (strcmp(s, dom_policy_names[p]) == 0)
			return p;
	return -1;
}

#define NONE UINT32_MAX /* no number: ⊤'s DFS parent */

/* Work arrays of one computation (preorder numbers unless said). */
typedef struct work {
	uint32_t n;          /* reached nodes, ⊤ included (number 0) */
	uint32_t *vertex;    /* per number: the node (slot, or ⊤) */
	uint32_t *parent;    /* per number: DFS parent's number */
	/* the predecessor rows, by number, laid out in preorder: number v's
	 * predecessors are pred[pstart[v] .. pstart[v+1]-1], as their numbers
	 * plus one, with 0 in the places the walk left unused (edges of nodes
	 * it did not reach, or not the policy's); the tree edge into v is in
	 * no row: parent[] holds it.  Before the walk PSTART holds each node's count (by node), which the
	 * walk reads as it sets the rows out; semi-NCA leaves number v's
	 * parent in pstart[v+1] once it is done with row v+1 */
	uint32_t *pstart, *pred;
	/* WIDE, 8 bytes a node, passed on from phase to phase so that its pages
	 * are touched once: the walk's counts, then row cursors (by node);
	 * then semi-NCA's links and best, side by side (see compress); then
	 * the retained sums */
	uint32_t *wide;
	uint32_t *idom;      /* per number (in PARENT: semi-NCA's semidominators first) */
	uint64_t *ret;       /* per number: retained bytes (in WIDE) */
} work;

static void work_free(work *w)
{
	free(w->vertex); free(w->parent); free(w->pstart); free(w->pred); free(w->wide);
}

/* Room in *BUF (capacity *CAP) for N more values after USED; 0 or -1. */
static int reserve(uint32_t **buf, size_t *cap, size_t used, uint64_t n)
{
	if (used + n <= *cap)
		return 0;
	size_t c = *cap ? *cap : 1024;
	while (c < used + n)
		c *= 2;
	uint32_t *p = realloc(*buf, c * sizeof *p);
	if (!p)
		return -1;
	*buf = p;
	*cap = c;
	return 0;
}

/* Nodes from which a step is split over two threads (the count, the
 * walk's stores, the results): below, a thread costs more than it saves. */
#define TWO_THREADS_MIN 1024

/* The successors of nodes [FROM, TO), each counted into COUNT at its
 * target (a bound on that target's incoming edges); TOTAL: how many. */
typedef struct count_job {
	const rgraph *g;
	uint32_t from, to;
	uint32_t *count;
	uint64_t total;
	int rc;
} count_job;

static void *count_edges(void *arg)
{
	count_job *j = arg;
	uint32_t *buf = NULL;
	size_t cap = 0;
	j->rc = -1;
	for (uint32_t x = j->from; x < j->to; x++) {
		if (reserve(&buf, &cap, 0, rgraph_succ_bound(j->g, x)))
			goto out;
		uint32_t k = rgraph_succ_row(j->g, x, buf);
		for (uint32_t i = 0; i < k; i++)
			j->count[buf[i]]++;
		j->total += k;
	}
	j->rc = 0;
out:
	free(buf);
	return NULL;
}

/* Count every node's incoming edges into w->pstart (by node) from every
 * node's successors: the reached nodes' and the others', which only makes
 * rows longer than needed.  Large heaps are counted on two threads, each
 * over half the references, the second into its own counts.  Returns how
 * many, ⊤'s successors not yet counted, or UINT64_MAX. */
static uint64_t count_predecessors(const rgraph *g, work *w)
{
	const heap *h = g->h;
	uint32_t nodes = g->top + 1;
	uint32_t *ps = w->pstart = calloc((size_t)nodes + 1, sizeof *ps);
	if (!ps)
		return UINT64_MAX;
	uint32_t mid = h->slots;
	if (h->slots >= TWO_THREADS_MIN) /* the slot that halves the references */
		for (uint32_t lo = 0, hi = h->slots; lo < hi;) {
			mid = lo + (hi - lo) / 2;
			if (h->ref_start[mid] < h->nrefs / 2)
				lo = mid + 1;
			else
				hi = mid;
			mid = lo;
		}
	/* the second half into counts of its own (an empty range when small) */
	count_job jobs[2] = {{g, 0, mid, ps, 0, -1}, {g, mid, h->slots, calloc(mid < h->slots ? nodes : 1, sizeof *ps), 0, -1}};
	if (!jobs[1].count)
		return UINT64_MAX;
	jobs_two(count_edges, &jobs[0], &jobs[1], mid < h->slots);
	uint64_t total = jobs[0].total + jobs[1].total;
	if (jobs[0].rc || jobs[1].rc)
		total = UINT64_MAX;
	else if (mid < h->slots && total <= UINT32_MAX) /* no sum can wrap: each is at most TOTAL */
		for (uint32_t x = 0; x < nodes; x++)
			ps[x] += jobs[1].count[x];
	free(jobs[1].count);
	return total;
}

/* The heap's link counts (taken over, LINKS) as w->pstart: a bound on
 * every node's incoming edges where there is no cluster, since each edge
 * is then a link (a reference, a Class or an Outer).  Returns their sum,
 * or UINT64_MAX. */
static uint64_t given_predecessors(const rgraph *g, work *w, uint32_t *links)
{
	uint32_t nodes = g->top + 1;
	uint32_t *ps = w->pstart = realloc(links, ((size_t)nodes + 1) * sizeof *ps);
	if (!ps) {
		free(links);
		return UINT64_MAX;
	}
	ps[g->top] = 0;
	uint64_t total = 0;
	for (uint32_t x = 0; x < g->top; x++)
		total += ps[x] = rgraph_enters(g->h, (obj_t)x) ? ps[x] : 0; /* no edge enters the pool
									    * (nor its rows' places) */
	return total;
}

/* Size the predecessor rows: each node's count (w->pstart, by node) and
 * the rows' places (w->pred, zeroes), from LINKS when given
 * (taken over), else counted. */
static int size_predecessors(const rgraph *g, work *w, uint32_t *links)
{
	uint32_t nodes = g->top + 1, *ps, sum = 0;
	uint64_t total = links ? given_predecessors(g, w, links) : count_predecessors(g, w);
	if (total == UINT64_MAX || total + g->top_succ.n > UINT32_MAX - 1)
		return -1;
	ps = w->pstart;
	/* no count can have wrapped: each is at most the total */
	for (size_t k = 0; k < g->top_succ.n; k++)
		ps[g->top_succ.v[k]]++;
	/* a row holds one place less than its count: the edge the walk
	 * reaches a node by is its tree edge, which semi-NCA reads off the
	 * parent instead (a node no edge enters, but ⊤, is never reached,
	 * and has no row) */
	for (uint32_t x = 0; x < nodes; x++)
		sum += ps[x] ? ps[x] - 1 : 0;
	/* calloc's pages are faulted in by the walk's stores, on the filler's
	 * thread; the places it leaves unused stay 0 */
	return (w->pred = calloc((size_t)sum + 1, sizeof *w->pred)) ? 0 : -1;
}

/* The walk's predecessor places, filled in on a second thread on heaps of
 * TWO_THREADS_MIN nodes or more: the walk appends (target, source) pairs to
 * a batch and hands each full batch over to the filler, which takes the
 * next place in the target's row (its cursor) and stores the source there.
 * Those cursors and places are all over memory, two cache misses an edge,
 * which the walk no longer waits for; its appends are sequential.  A ring
 * of FILL_BATCHES batches (512 KiB) bounds how far the filler may lag: the
 * walk waits for a free batch. */
#define FILL_BATCH 16384
#define FILL_BATCHES 4
typedef struct filler {
	uint32_t *pred, *cur; /* the rows, and the cursors by node (the walk sets
			       * a node's before it hands over any edge to it) */
	uint64_t *ring;        /* the batches: target << 32 | source's number + 1 */
	uint32_t len[FILL_BATCHES];
	unsigned full, taken;  /* batches handed over, and emptied (counts) */
	int done;              /* no batch will follow */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t th;
} filler;

static void *fill_places(void *arg)
{
	filler *f = arg;
	for (;;) {
		pthread_mutex_lock(&f->mu);
		while (f->taken == f->full && !f->done)
			pthread_cond_wait(&f->cv, &f->mu);
		if (f->taken == f->full) {
			pthread_mutex_unlock(&f->mu);
			return NULL;
		}
		unsigned b = f->taken % FILL_BATCHES;
		pthread_mutex_unlock(&f->mu);
		const uint64_t *p = f->ring + (size_t)b * FILL_BATCH;
		for (uint32_t k = 0; k < f->len[b]; k++)
			f->pred[f->cur[p[k] >> 32]++] = (uint32_t)p[k];
		pthread_mutex_lock(&f->mu);
		f->taken++;
		pthread_cond_broadcast(&f->cv);
		pthread_mutex_unlock(&f->mu);
	}
}

/* Start the filler of PRED through the cursors CUR; 0, or -1 when the walk
 * must fill them itself. */
static int fill_start(filler *f, uint32_t *pred, uint32_t *cur, uint32_t nodes)
{
	if (nodes < TWO_THREADS_MIN || cpu_cores() < 2 || !(f->ring = malloc(sizeof *f->ring * FILL_BATCH * FILL_BATCHES)))
		return -1;
	f->pred = pred;
	f->cur = cur;
	pthread_mutex_init(&f->mu, NULL);
	pthread_cond_init(&f->cv, NULL);
	if (pthread_create(&f->th, NULL, fill_places, f) == 0)
		return 0;
	pthread_mutex_destroy(&f->mu);
	pthread_cond_destroy(&f->cv);
	free(f->ring);
	f->ring = NULL;
	return -1;
}

/* Hand over the batch being filled (LEN pairs); returns the next one. */
static uint64_t *fill_hand_over(filler *f, uint32_t len)
{
	pthread_mutex_lock(&f->mu);
	f->len[f->full % FILL_BATCHES] = len;
	f->full++;
	pthread_cond_broadcast(&f->cv);
	while (f->full - f->taken == FILL_BATCHES)
		pthread_cond_wait(&f->cv, &f->mu);
	pthread_mutex_unlock(&f->mu);
	return f->ring + (size_t)(f->full % FILL_BATCHES) * FILL_BATCH;
}

/* The last batch (LEN pairs) handed over, the filler done. */
static void fill_end(filler *f, uint32_t len)
{
	fill_hand_over(f, len);
	pthread_mutex_lock(&f->mu);
	f->done = 1;
	pthread_cond_broadcast(&f->cv);
	pthread_mutex_unlock(&f->mu);
	pthread_join(f->th, NULL);
	pthread_mutex_destroy(&f->mu);
	pthread_cond_destroy(&f->cv);
	free(f->ring);
}

#ifndef NDEBUG
/* Did every edge the walk placed stay within its target's row?  (CUR: the
 * rows' cursors by node once the walk is done; for assert.) */
static int rows_ok(const work *w, const uint32_t *cur)
{
	for (uint32_t v = 1; v < w->n; v++)
		if (cur[w->vertex[v]] < w->pstart[v] || cur[w->vertex[v]] > w->pstart[v + 1])
			return 0;
	return 1;
}
#endif

/* The depth-first walk from ⊤: numbers the reached nodes in preorder
 * (w->vertex, w->parent), sets their predecessor rows out in that order
 * (w->pstart, by number from now on), and places every edge it follows in
 * its target's row, but the tree edges.  A node's successors are listed
 * when the walk reaches it, onto a stack of rows that holds only the rows
 * of the nodes on the current path, so the walk's memory is its arrays
 * plus that path's edges, not every edge.  On large heaps a filler thread
 * stores the edges in their places (fill_start). */
static int walk(const rgraph *g, work *w)
{
	uint32_t nodes = g->top + 1;
	/* per node (in WIDE's first half): its count until it is reached,
	 * the next free place in its predecessor row after; and a bit a node,
	 * set once it is reached, which an edge to a reached node is all the
	 * walk reads (512 KiB for 4M nodes: it stays in the cache; the filler,
	 * when there is one, takes the place) */
	uint32_t *cur = w->wide = malloc((size_t)nodes * 2 * sizeof *cur);
	uint64_t *seen = calloc(((size_t)nodes + 63) / 64, sizeof *seen);
	uint32_t *cursor = malloc((size_t)nodes * sizeof *cursor), *end = malloc((size_t)nodes * sizeof *end);
	w->vertex = malloc((size_t)nodes * sizeof *w->vertex);
	w->parent = malloc((size_t)nodes * sizeof *w->parent);
	uint32_t *rows = NULL; /* the rows of the nodes on the path, back to back */
	size_t cap = 0;
	int rc = -1;
	filler f = {0};
	int beside = 0;
	uint32_t blen = 0;
	if (!cur || !seen || !cursor || !end || !w->vertex || !w->parent || reserve(&rows, &cap, 0, g->top_succ.n + 1))
		goto out;
	memcpy(cur, w->pstart, (size_t)nodes * sizeof *cur);
	/* the counts are read: PSTART holds the rows' starts by number now,
	 * each row placed when its node is reached (⊤'s is empty) */
	uint32_t *rstart = w->pstart, rowpos = 0;
	rstart[0] = 0;
	if (g->top_succ.n) /* ⊤ may have no successors at all */
		memcpy(rows, g->top_succ.v, g->top_succ.n * sizeof *rows);
	uint32_t *pred = w->pred, *vertex = w->vertex, *parent = w->parent;
	uint32_t n = 1, sp = 0, u = 0; /* U: the number of the node on top */
	beside = fill_start(&f, pred, cur, nodes) == 0;
	uint64_t *batch = f.ring;
	seen[g->top >> 6] |= 1ull << (g->top & 63);
	vertex[0] = g->top;
	parent[0] = NONE;
	cursor[sp] = 0;
	end[sp++] = (uint32_t)g->top_succ.n;
	while (sp) {
		if (cursor[sp - 1] == end[sp - 1]) {
			sp--;
			u = parent[u];
			continue;
		}
		uint32_t t = rows[cursor[sp - 1]++];
		uint64_t *word = seen + (t >> 6), bit = 1ull << (t & 63);
		if (*word & bit) {
			/* within t's row: its count (size_predecessors', or the
			 * loader's) took in this edge, and t's tree edge, which
			 * takes no place, before it */
			if (beside) { /* the filler finds its place */
				batch[blen++] = (uint64_t)t << 32 | (u + 1);
				if (blen == FILL_BATCH) {
					batch = fill_hand_over(&f, blen);
					blen = 0;
				}
			} else
				pred[cur[t]++] = u + 1;
			continue;
		}
		*word |= bit;
		assert(u < n); /* a parent is numbered before its children */
		rstart[n] = rowpos;
		rowpos += cur[t] ? cur[t] - 1 : 0; /* its count, its tree edge taking no place */
		cur[t] = rstart[n];
		vertex[n] = t;
		parent[n] = u;
		uint32_t at = end[sp - 1]; /* rows never outgrow the counted edges, < UINT32_MAX */
		if (reserve(&rows, &cap, at, rgraph_succ_bound(g, t)))
			goto out;
		uint32_t k = rgraph_succ_row(g, t, rows + at);
		/* its successors come next: the unreached among them are listed
		 * soon, and what that reads first is on its way */
		for (uint32_t j = 0; j < k; j++)
			if (rows[at + j] != g->top)
				heap_prefetch_slot(g->h, (obj_t)rows[at + j]);
		cursor[sp] = at;
		end[sp++] = at + k;
		u = n++;
	}
	w->n = n;
	rstart[n] = rowpos;
	rc = 0;
out:
	if (beside) /* the rows are whole once it is done */
		fill_end(&f, blen);
	assert(rc || (w->vertex[0] == g->top && rows_ok(w, cur))); /* ⊤ is number 0 */
	free(seen);
	free(cursor);
	free(end);
	free(rows);
	return rc;
}

/* Semi-NCA's path compression from V, without recursion, while numbers
 * above CUR are the linked ones.  AB holds a number x's link at AB[2x] and
 * BEST[x] at AB[2x+1], in one cache line: the semidominator of x's label,
 * the value the algorithm reads the label for (kept instead of the label,
 * it spares a second lookup each time). */
static void compress(uint32_t v, uint32_t cur, uint32_t *ab, uint32_t *stack)
{
	uint32_t sp = 0, x = v;
	while (ab[2 * (size_t)x] > cur) { /* x's link is linked too */
		stack[sp++] = x;
		x = ab[2 * (size_t)x];
	}
	while (sp) {
		x = stack[--sp];
		uint32_t a = ab[2 * (size_t)x];
		if (ab[2 * (size_t)a + 1] < ab[2 * (size_t)x + 1])
			ab[2 * (size_t)x + 1] = ab[2 * (size_t)a + 1];
		ab[2 * (size_t)x] = ab[2 * (size_t)a];
	}
}

/* Semi-NCA: immediate dominators, as preorder numbers.  Numbers are done
 * from the last down, and a number is linked to its parent once done, so
 * the linked ones are those above the current one: the links start as the
 * parents (copied beside BEST into WIDE, where one miss fetches both), and
 * the semidominators then take PARENT's place, number by number, and the
 * immediate dominators theirs. */
#define SEMI_AHEAD 32
static int semi_nca(work *w)
{
	uint32_t n = w->n;
	uint32_t *ab = w->wide, *semi = w->parent, *rstart = w->pstart; /* 2n <= 2 * nodes */
	uint32_t *stack = malloc((size_t)n * sizeof *stack);
	if (!stack)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		ab[2 * (size_t)i] = w->parent[i];
		ab[2 * (size_t)i + 1] = i; /* a number not done yet is its own semidominator */
	}
	/* the predecessors' links and bests are asked for SEMI_AHEAD places
	 * before the sweep comes to them (it reads the rows from the last
	 * place down, a row at a time, each from its first): each is a miss
	 * on a large heap, and they do not depend on one another */
	uint32_t ahead = rstart[n];
	for (uint32_t v = n - 1; v >= 1; v--) {
		for (uint32_t to = rstart[v] > SEMI_AHEAD ? rstart[v] - SEMI_AHEAD : 0; ahead > to;)
			if (w->pred[--ahead])
				__builtin_prefetch(ab + 2 * (size_t)(w->pred[ahead] - 1));
		/* the tree edge, kept in no row: its source, the parent, is not
		 * done yet, so it offers its own number */
		uint32_t s = ab[2 * (size_t)v];
		for (uint32_t k = rstart[v]; k < rstart[v + 1]; k++) {
			uint32_t u = w->pred[k];
			if (u-- == 0)
				continue; /* a place the walk left unused */
			assert(u < n);
			if (u > v) /* done, so linked */
				compress(u, v, ab, stack);
			if (ab[2 * (size_t)u + 1] < s)
				s = ab[2 * (size_t)u + 1];
		}
		assert(s < v); /* at most the parent's number: a proper ancestor */
		rstart[v + 1] = ab[2 * (size_t)v]; /* row v+1 is read: it keeps v's parent (compress
						    * changes only links above V) */
		semi[v] = ab[2 * (size_t)v + 1] = s;
	}
	uint32_t *idom = semi; /* each in its semidominator's place, once read */
	idom[0] = 0;
	for (uint32_t v = 1; v < n; v++) {
		uint32_t d = rstart[v + 1]; /* the parent */
		while (d > semi[v])
			d = idom[d];
		assert(d <= semi[v] && semi[v] < v); /* an ancestor of the semidominator or itself */
		idom[v] = d;
	}
	w->idom = idom;
	free(stack);
	return 0;
}

/* The results from semi-NCA's, in two parts that share no array, the
 * second beside the first on large heaps: 0, the retained sums by number
 * (in w->ret); 1, by slot, every immediate dominator (OBJ_NONE where
 * unreached) and the retained sums zeroed for the first's to be copied in. */
typedef struct result_job {
	const heap *h;
	work *w;
	dom_result *d;
	int part;
} result_job;

static void *results_part(void *arg)
{
	result_job *j = arg;
	work *w = j->w;
	dom_result *d = j->d;
	if (j->part == 0) {
		w->ret[0] = 0;
		for (uint32_t v = 1; v < w->n; v++)
			w->ret[v] = j->h->size[w->vertex[v]];
		for (uint32_t v = w->n - 1; v >= 1; v--) {
			assert(w->idom[v] < v); /* so each sum is whole before it is added up */
			w->ret[w->idom[v]] += w->ret[v];
		}
		return NULL;
	}
	memset(d->retained, 0, (size_t)j->h->slots * sizeof *d->retained);
	for (uint32_t i = 0; i < j->h->slots; i++)
		d->idom[i] = OBJ_NONE;
	for (uint32_t v = 1; v < w->n; v++)
		d->idom[w->vertex[v]] = w->idom[v] == 0 ? DOM_TOP : (obj_t)w->vertex[w->idom[v]];
	return NULL;
}

/* What a computation is asked for: the graph's inputs and the caller's hook. */
typedef struct request {
	const gc_result *r;  /* NULL: plain (dom_needs_gc) */
	uint32_t keep_flags;
	int policy, groups;
	void (*one_thread)(void *);
	void *arg;
	uint32_t *links; /* the heap's in_links, taken over; NULL: counted */
} request;

/* Number the reached nodes and find their immediate dominators: the
 * predecessor rows sized (from Q's links, else counted), the walk, then
 * semi-NCA.  Q's hook is called once what follows is one thread's work:
 * after the walk (and whether or not the steps before it failed). */
static int dominator_tree(const rgraph *g, const request *q, work *w)
{
	int bad = size_predecessors(g, w, q->links);
	trace_point("dominators: counts");
	bad = bad || walk(g, w);
	trace_point("dominators: walk");
	/* only now: a job beside the walk (the GC's marking) slowed it by a
	 * tenth or more on two cores (BENCHMARKS.md, 20M V8 nodes), the walk's
	 * misses and its filler's sharing the caches and the second core
	 * with it, where semi-NCA, as long as the GC, leaves that core idle */
	if (q->one_thread)
		q->one_thread(q->arg);
	if (bad || (progress_at(1, 3), semi_nca(w)))
		return -1;
	progress_at(2, 3); /* the steps, for the progress line */
	trace_point("dominators: semi-nca");
	return 0;
}

#ifndef NDEBUG
/* D's columns by slot as dom_result promises them: an unreached object
 * retains nothing; a reached one exists, and its immediate dominator is ⊤
 * or a reached object that retains its own bytes and the object's at
 * least; D->reached of them.  (For assert.) */
static int results_ok(const heap *h, const dom_result *d)
{
	uint32_t reached = 0;
	for (uint32_t i = 0; i < h->slots; i++) {
		obj_t x = d->idom[i];
		if (x == OBJ_NONE) {
			if (d->retained[i])
				return 0;
			continue;
		}
		reached++;
		if (h->cls[i] == OBJ_FREE || d->retained[i] < h->size[i])
			return 0;
		if (x != DOM_TOP && (x < 0 || (uint32_t)x >= h->slots || x == (obj_t)i || d->idom[x] == OBJ_NONE ||
				     d->retained[x] < d->retained[i] + h->size[x]))
			return 0;
	}
	return reached == d->reached;
}
#endif

/* D's columns by slot from W's by number: every immediate dominator and
 * retained size, and the reached objects and bytes. */
static int results(const heap *h, work *w, dom_result *d)
{
	size_t s = h->slots ? h->slots : 1;
	/* the results take over the predecessor rows' blocks (memory mostly
	 * touched already; realloc grows the retained sums' when the rows were
	 * shorter), and the retained sums semi's and best's */
	w->ret = (uint64_t *)(void *)w->wide;
	assert(w->vertex[0] == h->slots); /* ⊤, whose number stands for DOM_TOP */
	d->idom = (obj_t *)realloc(w->pstart, s * sizeof *d->idom); /* nodes + 1 > slots entries */
	if (d->idom)
		w->pstart = NULL;
	d->retained = realloc(w->pred, s * sizeof *d->retained);
	if (d->retained)
		w->pred = NULL;
	if (!d->idom || !d->retained)
		return -1;
	result_job jobs[2] = {{h, w, d, 0}, {h, w, d, 1}};
	jobs_two(results_part, &jobs[0], &jobs[1], w->n >= TWO_THREADS_MIN);
	for (uint32_t v = 1; v < w->n; v++)
		d->retained[w->vertex[v]] = w->ret[v];
	d->reached = w->n - 1;
	d->reached_bytes = w->ret[0]; /* ⊤ retains every reached byte */
	assert(results_ok(h, d));
	free(w->wide);
	w->wide = NULL;
	w->ret = NULL;
	return 0;
}

static int compute(const heap *h, const request *q, dom_result *d)
{
	double t0 = now_seconds();
	memset(d, 0, sizeof *d);
	d->policy = q->policy;
	d->slots = h->slots;
	rgraph g;
	if (rgraph_init(&g, h, q->r, q->keep_flags, q->policy)) {
		free(q->links);
		return -1;
	}
	work w = {0};
	int rc = -1;
	if (dominator_tree(&g, q, &w) == 0 && results(h, &w, d) == 0)
		rc = q->groups ? dom_groups(h, &(dom_numbered){w.n, w.vertex, w.idom}, d) : 0;
	work_free(&w);
	rgraph_free(&g);
	if (rc)
		dom_free(d);
	else
		d->seconds = now_seconds() - t0;
	return rc;
}

int dom_compute(const heap *h, const gc_result *r, int policy, dom_result *d)
{
	return compute(h, &(request){.r = r, .keep_flags = r->keep_flags, .policy = policy, .groups = 1}, d);
}

int dom_compute_objects(const heap *h, const gc_result *r, int policy, dom_result *d)
{
	return compute(h, &(request){.r = r, .keep_flags = r->keep_flags, .policy = policy, .groups = 0}, d);
}

int dom_needs_gc(const heap *h)
{
	return h->nclusters > 0 || heap_has_garbage(h);
}

int dom_compute_plain(const heap *h, uint32_t keep_flags, int policy, int groups, uint32_t *links, dom_result *d,
		      void (*one_thread)(void *), void *arg)
{
	if (h->nclusters) { /* a misuse: the cluster edges need the GC's result */
		free(links);
		memset(d, 0, sizeof *d);
		return -1;
	}
	request q = {.keep_flags = keep_flags, .policy = policy, .groups = groups, .one_thread = one_thread, .arg = arg,
		     .links = links};
	return compute(h, &q, d);
}

void dom_free(dom_result *d)
{
	free(d->idom); free(d->retained); free(d->package); free(d->size); free(d->classes); free(d->packages); free(d->pairs);
	memset(d, 0, sizeof *d);
}

int dom_cmp_retained(const void *a, const void *b, void *arg)
{
	const dom_result *d = arg;
	obj_t x = *(const obj_t *)a, y = *(const obj_t *)b;
	if (d->retained[x] != d->retained[y])
		return d->retained[x] < d->retained[y] ? 1 : -1;
	return (x > y) - (x < y);
}

int dom_tree_build(const dom_result *d, dom_tree *t)
{
	t->start = calloc((size_t)d->slots + 1, sizeof *t->start);
	t->kids = malloc(((size_t)d->slots + 1) * sizeof *t->kids);
	uint32_t *at = malloc(((size_t)d->slots + 1) * sizeof *at);
	if (!t->start || !t->kids || !at) {
		free(at);
		dom_tree_free(t);
		return -1;
	}
	for (uint32_t i = 0; i < d->slots; i++)
		if (d->idom[i] >= 0 && (uint32_t)d->idom[i] < d->slots)
			t->start[d->idom[i] + 1]++;
	for (uint32_t i = 0; i < d->slots; i++)
		t->start[i + 1] += t->start[i];
	memcpy(at, t->start, (size_t)d->slots * sizeof *at);
	for (uint32_t i = 0; i < d->slots; i++)
		if (d->idom[i] >= 0 && (uint32_t)d->idom[i] < d->slots)
			t->kids[at[d->idom[i]]++] = (obj_t)i;
	free(at);
	for (uint32_t i = 0; i < d->slots; i++)
		if (t->start[i + 1] - t->start[i] > 1)
			qsort_r(t->kids + t->start[i], t->start[i + 1] - t->start[i], sizeof *t->kids, dom_cmp_retained,
				(void *)d);
	return 0;
}

void dom_tree_free(dom_tree *t)
{
	free(t->start);
	free(t->kids);
	t->start = NULL;
	t->kids = NULL;
}