/* cmd_diff.c — `ugc-analyze diff A B`: what grew, what went, what is new
 * between two snapshots or databases; and leak mode, `diff --baseline A
 * --target B --final C`: objects new in B still alive in C, grouped by
 * their retention chain with numbered names made generic. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "base/base.h"
#include "analysis/analysis.h"
#include "sql/sql.h"
#include "snapshot/snapshot.h"

int diff_store(const char *path, int force, const diff_side *a, const diff_side *b, const diff_result *r,
	       char *err, size_t errsize);

/* One marking thread: the sides load in parallel, a core each. */
static int load_side(const char *path, diff_side *s)
{
	char err[SNAP_ERR_MAX];
	if (input_diff_side(path, 1, s, err, sizeof err)) {
		diff_side_free(s);
		return die("%s", err);
	}
	return 0;
}

/* Load several sides at once: each on its own thread (they share nothing). */
struct side_job {
	const char *path;
	diff_side *side;
	int rc;
};

static void *side_thread(void *p)
{
	struct side_job *j = p;
	j->rc = load_side(j->path, j->side);
	return NULL;
}

static int load_sides(const char *const *paths, diff_side *sides, int n)
{
	struct side_job jobs[3];
	pthread_t th[3];
	int started[3] = {0}, rc = 0;
	for (int k = 0; k < n; k++) {
		jobs[k] = (struct side_job){paths[k], &sides[k], 0};
		started[k] = k > 0 && pthread_create(&th[k], NULL, side_thread, &jobs[k]) == 0;
	}
	side_thread(&jobs[0]);
	for (int k = 1; k < n; k++) {
		if (started[k])
			pthread_join(th[k], NULL);
		else
			side_thread(&jobs[k]);
	}
	for (int k = 0; k < n; k++)
		rc |= jobs[k].rc;
	if (rc)
		for (int k = 0; k < n; k++)
			if (jobs[k].rc == 0)
				diff_side_free(&sides[k]);
	return rc;
}

/* Unnamed (unchanged) rows sort last by name. */
static int cmp_names(const group_row *a, const group_row *b)
{
	if (!a->name || !b->name)
		return (a->name == NULL) - (b->name == NULL);
	return strcmp(a->name, b->name);
}

static int cmp_growth(const void *pa, const void *pb)
{
	const group_row *a = pa, *b = pb;
	int64_t x = (int64_t)a->b_bytes - (int64_t)a->a_bytes, y = (int64_t)b->b_bytes - (int64_t)b->a_bytes;
	if (x != y)
		return x < y ? 1 : -1;
	int64_t cx = (int64_t)a->b_count - (int64_t)a->a_count, cy = (int64_t)b->b_count - (int64_t)b->a_count;
	if (cx != cy)
		return cx < cy ? 1 : -1;
	return cmp_names(a, b);
}

static int cmp_churn(const void *pa, const void *pb)
{
	const group_row *a = pa, *b = pb;
	uint64_t x = a->added + a->removed, y = b->added + b->removed;
	if (x != y)
		return x < y ? 1 : -1;
	return cmp_names(a, b);
}

/* A set of strings (facts, keys): open addressing over a power-of-two table. */
typedef struct strset {
	const char **v;
	uint32_t mask;
} strset;

static uint64_t hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h ^ (h >> 31);
}

static int strset_init(strset *s, uint32_t n)
{
	uint32_t size = 16;
	while (size < n * 2 + 2)
		size *= 2;
	s->v = calloc(size, sizeof *s->v);
	s->mask = size - 1;
	return s->v ? 0 : -1;
}

static void strset_add(strset *s, const char *x)
{
	uint32_t at = (uint32_t)hash(x) & s->mask;
	while (s->v[at] && strcmp(s->v[at], x) != 0)
		at = (at + 1) & s->mask;
	s->v[at] = x;
}

static int strset_has(const strset *s, const char *x)
{
	for (uint32_t at = (uint32_t)hash(x) & s->mask; s->v[at]; at = (at + 1) & s->mask)
		if (strcmp(s->v[at], x) == 0)
			return 1;
	return 0;
}

/* Facts of B not in A. */
static void new_facts(const diff_fact *a, uint32_t na, const diff_fact *b, uint32_t nb, const char *title,
		      enum out_format fmt, long top, int *first_section)
{
	strset s;
	if (strset_init(&s, na))
		return;
	for (uint32_t k = 0; k < na; k++)
		strset_add(&s, a[k].text);
	uint32_t count = 0;
	for (uint32_t k = 0; k < nb; k++)
		count += !strset_has(&s, b[k].text);
	if (fmt == FMT_TEXT)
		printf("%s: %u\n", title, count);
	if (fmt == FMT_JSON)
		printf("%s\"%s\":{\"count\":%u,\"items\":[", *first_section ? "" : ",", title, count);
	*first_section = 0;
	long shown = 0;
	for (uint32_t k = 0; k < nb && shown < top; k++) {
		if (strset_has(&s, b[k].text))
			continue;
		if (fmt == FMT_TEXT)
			printf("  %s\n", disp(b[k].text));
		else if (fmt == FMT_CSV) {
			printf("%s,", title);
			csv_str(stdout, disp(b[k].text));
			printf(",,,,,,,\n");
		} else {
			printf("%s", shown ? "," : "");
			json_str(stdout, b[k].text);
		}
		shown++;
	}
	if (fmt == FMT_JSON)
		printf("]}");
	free(s.v);
}

/* Retained bytes by class on each side, the largest changes first. */
typedef struct ret_row {
	const char *name;
	uint64_t a, b;
} ret_row;

static int cmp_ret_change(const void *x, const void *y)
{
	const ret_row *p = x, *q = y;
	uint64_t dp = p->a > p->b ? p->a - p->b : p->b - p->a, dq = q->a > q->b ? q->a - q->b : q->b - q->a;
	if (dp != dq)
		return dp < dq ? 1 : -1;
	return strcmp(p->name, q->name);
}

static void retained_table(const diff_side *a, const diff_side *b, enum out_format fmt, long top, int *first_section)
{
	ret_row *v = calloc((size_t)a->nretained + b->nretained + 1, sizeof *v);
	if (!v)
		return;
	size_t n = 0;
	for (int side = 0; side < 2; side++) {
		const diff_side *d = side ? b : a;
		for (uint32_t k = 0; k < d->nretained; k++) {
			size_t m = 0; /* classes are few: a linear match is enough */
			while (m < n && strcmp(v[m].name, d->retained[k].name) != 0)
				m++;
			if (m == n)
				v[n++].name = d->retained[k].name;
			if (side)
				v[m].b += d->retained[k].bytes;
			else
				v[m].a += d->retained[k].bytes;
		}
	}
	if (n > 1)
		qsort(v, n, sizeof *v, cmp_ret_change);
	size_t changed = 0;
	for (size_t k = 0; k < n; k++)
		changed += v[k].a != v[k].b;
	if (fmt == FMT_TEXT)
		printf("retained by class (policy gc): %zu of %zu classes changed\n  %-44s %14s %14s %15s\n", changed, n,
		       "class", "A retained", "B retained", "change");
	else if (fmt == FMT_JSON)
		printf("%s\"retained by class\":{\"changed\":%zu,\"items\":[", *first_section ? "" : ",", changed);
	*first_section = 0;
	for (size_t k = 0; k < n && (long)k < top && v[k].a != v[k].b; k++) {
		long long change = (long long)v[k].b - (long long)v[k].a;
		if (fmt == FMT_TEXT) {
			printf("  %-44s %14llu %14llu %+15lld\n", disp(v[k].name), (unsigned long long)v[k].a,
			       (unsigned long long)v[k].b, change);
		} else if (fmt == FMT_CSV) {
			printf("retained by class,");
			csv_str(stdout, disp(v[k].name));
			printf(",,,%llu,%llu,,,\n", (unsigned long long)v[k].a, (unsigned long long)v[k].b);
		} else {
			printf("%s{\"class\":", k ? "," : "");
			json_str(stdout, v[k].name);
			printf(",\"a\":%llu,\"b\":%llu}", (unsigned long long)v[k].a, (unsigned long long)v[k].b);
		}
	}
	if (fmt == FMT_JSON)
		printf("]}");
	free(v);
}

static void group_table(const diff_side *a, const diff_side *b, const diff_result *r, enum diff_by by, const char *title,
			enum out_format fmt, long top, int growth, int *first_section)
{
	group_rows g = {0};
	if (diff_groups(a, b, r, by, 0, &g))
		return;
	qsort(g.v, g.n, sizeof *g.v, growth ? cmp_growth : cmp_churn);
	if (fmt == FMT_TEXT) {
		printf("%s:\n  %-44s %9s %9s %9s %14s %14s %14s %8s %8s\n", title, by == DIFF_BY_CLASS ? "class" : by == DIFF_BY_PACKAGE ? "package" : "outer",
		       "A count", "B count", "delta", "A bytes", "B bytes", "delta", "added", "removed");
	}
	if (fmt == FMT_JSON)
		printf("%s\"%s\":[", *first_section ? "" : ",", title);
	*first_section = 0;
	long shown = 0;
	for (size_t k = 0; k < g.n && shown < top; k++) {
		const group_row *x = &g.v[k];
		if (!growth && x->added + x->removed == 0)
			break;
		long long dc = (long long)x->b_count - (long long)x->a_count, db = (long long)x->b_bytes - (long long)x->a_bytes;
		if (fmt == FMT_TEXT)
			printf("  %-44s %9llu %9llu %+9lld %14llu %14llu %+14lld %8llu %8llu\n", disp(x->name),
			       (unsigned long long)x->a_count, (unsigned long long)x->b_count, dc, (unsigned long long)x->a_bytes,
			       (unsigned long long)x->b_bytes, db, (unsigned long long)x->added, (unsigned long long)x->removed);
		else if (fmt == FMT_CSV) {
			printf("%s,", title);
			csv_str(stdout, disp(x->name));
			printf(",%llu,%llu,%llu,%llu,%llu,%llu,%llu\n", (unsigned long long)x->a_count, (unsigned long long)x->b_count,
			       (unsigned long long)x->a_bytes, (unsigned long long)x->b_bytes, (unsigned long long)x->added,
			       (unsigned long long)x->removed, (unsigned long long)x->kept);
		} else {
			printf("%s{\"name\":", shown ? "," : "");
			json_str(stdout, x->name);
			printf(",\"a_count\":%llu,\"b_count\":%llu,\"a_bytes\":%llu,\"b_bytes\":%llu,\"added\":%llu,\"removed\":%llu,"
			       "\"kept\":%llu}", (unsigned long long)x->a_count, (unsigned long long)x->b_count,
			       (unsigned long long)x->a_bytes, (unsigned long long)x->b_bytes, (unsigned long long)x->added,
			       (unsigned long long)x->removed, (unsigned long long)x->kept);
		}
		shown++;
	}
	if (fmt == FMT_JSON)
		printf("]");
	group_rows_free(&g);
}

/* Objects of B that a predicate selects, listed with their count. */
static void object_list(const diff_side *a, const diff_side *b, const diff_result *r, int which, const char *title,
			enum out_format fmt, long top, int *first_section)
{
	uint32_t count = 0;
	for (int pass = 0; pass < 2; pass++) {
		long shown = 0;
		if (pass == 1 && fmt == FMT_TEXT)
			printf("%s: %u\n", title, count);
		if (pass == 1 && fmt == FMT_JSON) {
			printf("%s\"%s\":{\"count\":%u,\"items\":[", *first_section ? "" : ",", title, count);
			*first_section = 0;
		}
		for (uint32_t k = 0; k < b->n; k++) {
			const diff_obj *o = &b->v[k];
			int32_t ak = r->b_match[k];
			int hit;
			if (which == 0) /* garbage in A, still alive in B */
				hit = ak >= 0 && r->b_status[k] == DS_KEPT && a->v[ak].garbage && o->reachable;
			else /* new roots */
				hit = RK_IS_ROOT(o->root_kind) && o->root_kind != RK_DISREGARD &&
				      (ak < 0 || r->b_status[k] != DS_KEPT || !RK_IS_ROOT(a->v[ak].root_kind));
			if (!hit)
				continue;
			if (pass == 0) {
				count++;
				continue;
			}
			if (shown >= top)
				break;
			const char *kind = root_kind_names[o->root_kind < RK_COUNT ? o->root_kind : 0];
			char *full = diff_full_name(b, k);
			const char *key = full ? full : "?";
			if (fmt == FMT_TEXT)
				printf("  #%d %s%s%s\n", o->idx, disp(key), which ? "  " : "", which ? kind : "");
			else if (fmt == FMT_CSV) {
				printf("%s,", title);
				csv_str(stdout, disp(key));
				printf(",%d,%s,,,,,\n", o->idx, which ? kind : "");
			} else {
				printf("%s{\"idx\":%d,\"name\":", shown ? "," : "", o->idx);
				json_str(stdout, key);
				if (which)
					printf(",\"root_kind\":\"%s\"", kind);
				printf("}");
			}
			free(full);
			shown++;
		}
	}
	if (fmt == FMT_JSON)
		printf("]}");
}

static int pairwise(const char *pa, const char *pb, enum out_format fmt, long top, const char *out, int force)
{
	diff_side sides[2];
	const char *paths[2] = {pa, pb};
	int trace = getenv("UGC_TRACE") != NULL;
	if (out && check_output(out, force))
		return 1;
	double t0 = now_seconds();
	if (load_sides(paths, sides, 2))
		return 1;
	diff_side a = sides[0], b = sides[1];
	diff_result r;
	int rc = 0;
	double t1 = now_seconds();
	if (trace)
		fprintf(stderr, "trace: diff: sides loaded in %.3f s\n", t1 - t0);
	progress_phase("compare");
	if (diff_compare(&a, &b, &r)) {
		rc = die("out of memory comparing");
		goto done;
	}
	progress_phase(NULL);
	uint64_t abytes = 0, bbytes = 0;
	for (uint32_t k = 0; k < a.n; k++)
		abytes += a.v[k].size;
	for (uint32_t k = 0; k < b.n; k++)
		bbytes += b.v[k].size;
	int first = 1;
	if (fmt == FMT_TEXT) {
		printf("diff %s -> %s: %s\n", pa, pb, r.same_process ? "one process (objects matched by index and serial as well as by name)"
									: "different processes (objects matched by class and path name)");
		printf("objects: A %u (%llu bytes), B %u (%llu bytes): %u kept, %u added, %u removed, %u replaced; %u slots reused\n",
		       a.n, (unsigned long long)abytes, b.n, (unsigned long long)bbytes, r.kept, r.added, r.removed, r.replaced,
		       r.reused_slots);
	} else if (fmt == FMT_JSON) {
		printf("{\"a\":");
		json_str(stdout, pa);
		printf(",\"b\":");
		json_str(stdout, pb);
		printf(",\"same_process\":%s,\"a_objects\":%u,\"b_objects\":%u,\"a_bytes\":%llu,\"b_bytes\":%llu,\"kept\":%u,"
		       "\"added\":%u,\"removed\":%u,\"replaced\":%u,\"reused_slots\":%u,", r.same_process ? "true" : "false",
		       a.n, b.n, (unsigned long long)abytes, (unsigned long long)bbytes, r.kept, r.added, r.removed, r.replaced,
		       r.reused_slots);
	} else {
		printf("section,key,a_count,b_count,a_bytes,b_bytes,added,removed,kept\n");
		printf("summary,objects,%u,%u,%llu,%llu,%u,%u,%u\n", a.n, b.n, (unsigned long long)abytes,
		       (unsigned long long)bbytes, r.added, r.removed, r.kept);
	}
	group_table(&a, &b, &r, DIFF_BY_CLASS, "class histogram", fmt, top, 1, &first);
	retained_table(&a, &b, fmt, top, &first);
	group_table(&a, &b, &r, DIFF_BY_PACKAGE, "added and removed by package", fmt, top, 0, &first);
	group_table(&a, &b, &r, DIFF_BY_OUTER, "added and removed by outer", fmt, top, 0, &first);
	object_list(&a, &b, &r, 0, "garbage in A still alive in B", fmt, top, &first);
	object_list(&a, &b, &r, 1, "new roots", fmt, top, &first);
	new_facts(a.eliminated, a.neliminated, b.eliminated, b.neliminated, "new eliminated references", fmt, top, &first);
	new_facts(a.disagreements, a.ndisagreements, b.disagreements, b.ndisagreements, "new cluster disagreements", fmt,
		  top, &first);
	if (fmt == FMT_JSON)
		printf("}\n");
	if (trace)
		fprintf(stderr, "trace: diff: compared and reported in %.3f s\n", now_seconds() - t1);
	if (out) {
		char err[SNAP_ERR_MAX];
		fflush(stdout); /* the report is out before the write */
		progress_begin_file("write", out);
		if (diff_store(out, force, &a, &b, &r, err, sizeof err))
			rc = die("%s", err);
	}
	diff_result_free(&r);
done:
	diff_side_free(&a);
	diff_side_free(&b);
	return rc;
}

/* ---- leak mode ---- */

typedef struct leak_group {
	char *key;
	uint32_t count, representative;
	uint64_t bytes;
} leak_group;

static int cmp_leak(const void *pa, const void *pb)
{
	const leak_group *a = pa, *b = pb;
	if (a->bytes != b->bytes)
		return a->bytes < b->bytes ? 1 : -1;
	if (a->count != b->count)
		return a->count < b->count ? 1 : -1;
	return strcmp(a->key, b->key);
}

/* The generic chain of C's object K: root first, numbered names made generic. */
static char *chain_key(const diff_side *c, uint32_t k)
{
	size_t cap = 1024, len = 0;
	char *out = malloc(cap), g[8192];
	if (!out)
		return NULL;
	out[0] = '\0';
	const diff_obj *o = &c->v[k];
	if (o->distance == UINT32_MAX) {
		char *full = diff_full_name(c, k);
		generic_name(full ? full : "?", g, sizeof g);
		free(full);
		snprintf(out, cap, "(kept only through cluster lists) %s", g);
		return out;
	}
	/* walk to the root, then write root first */
	uint32_t *path = NULL, n = 0;
	size_t path_cap = 0;
	for (uint32_t at = k; n <= c->n;) {
		if (grow_array((void **)&path, &path_cap, n, sizeof *path)) {
			free(path);
			free(out);
			return NULL;
		}
		path[n++] = at;
		obj_t p = c->v[at].parent;
		if (diff_find(c, p) < 0)
			break;
		at = (uint32_t)diff_find(c, p);
	}
	for (uint32_t i = n; i-- > 0;) {
		const diff_obj *x = &c->v[path[i]];
		char via[1024];
		char *full = diff_full_name(c, path[i]);
		generic_name(strtab_get(&c->strings, x->via), via, sizeof via);
		generic_name(full ? full : "?", g, sizeof g);
		free(full);
		size_t need = strlen(via) + strlen(g) + 16;
		if (len + need >= cap) {
			char *p = realloc(out, cap = (len + need) * 2);
			if (!p) {
				free(out);
				free(path);
				return NULL;
			}
			out = p;
		}
		len += (size_t)snprintf(out + len, cap - len, i + 1 == n ? "%s" : " -> %s = %s", i + 1 == n ? g : via, g);
	}
	free(path);
	return out;
}

static int leaks(const char *pa, const char *pb, const char *pc, enum out_format fmt, long top)
{
	diff_side sides[3];
	const char *paths[3] = {pa, pb, pc};
	if (load_sides(paths, sides, 3))
		return 1;
	diff_side a = sides[0], b = sides[1], c = sides[2];
	diff_result ab, bc;
	int rc = 0;
	leak_group *groups = NULL;
	size_t ngroups = 0;
	uint32_t candidates = 0;
	uint64_t bytes = 0;
	if (diff_compare(&a, &b, &ab) || diff_compare(&b, &c, &bc)) {
		rc = die("out of memory comparing");
		goto done;
	}
	/* candidates: new in B, the same object alive in C; grouped by generic chain */
	strset seen;
	if (strset_init(&seen, c.n) || !(groups = calloc((size_t)c.n + 1, sizeof *groups))) {
		rc = die("out of memory");
		goto done;
	}
	size_t table_size = (size_t)seen.mask + 1;
	uint32_t *slot_group = calloc(table_size, sizeof *slot_group);
	if (!slot_group) {
		rc = die("out of memory");
		goto done;
	}
	for (uint32_t k = 0; k < b.n; k++) {
		if (ab.b_status[k] != DS_ADDED && ab.b_status[k] != DS_REPLACED)
			continue;
		int32_t ck = bc.a_match[k];
		if (ck < 0 || bc.a_status[k] != DS_KEPT || !c.v[ck].reachable)
			continue;
		char *key = chain_key(&c, (uint32_t)ck);
		if (!key) {
			rc = die("out of memory");
			break;
		}
		uint32_t at = (uint32_t)hash(key) & seen.mask;
		while (seen.v[at] && strcmp(seen.v[at], key) != 0)
			at = (at + 1) & seen.mask;
		if (!seen.v[at]) {
			groups[ngroups] = (leak_group){key, 0, (uint32_t)ck, 0};
			seen.v[at] = key;
			slot_group[at] = (uint32_t)ngroups++;
		} else {
			free(key);
		}
		leak_group *g = &groups[slot_group[at]];
		g->count++;
		g->bytes += c.v[ck].size;
		candidates++;
		bytes += c.v[ck].size;
	}
	free(slot_group);
	free(seen.v);
	qsort(groups, ngroups, sizeof *groups, cmp_leak);
	view *cv = NULL;
	if (fmt == FMT_TEXT) {
		printf("leak candidates: objects new in %s (absent from %s) still alive in %s after its GC\n", pb, pa, pc);
		printf("%u objects, %llu bytes, in %zu groups by retention chain (largest first)\n", candidates,
		       (unsigned long long)bytes, ngroups);
		cv = open_input(pc);
	} else if (fmt == FMT_JSON) {
		printf("{\"candidates\":%u,\"bytes\":%llu,\"groups\":[", candidates, (unsigned long long)bytes);
	} else {
		printf("group,objects,bytes,representative,chain\n");
	}
	for (size_t g = 0; g < ngroups && (long)g < top; g++) {
		const leak_group *x = &groups[g];
		const diff_obj *rep = &c.v[x->representative];
		char *rep_name = diff_full_name(&c, x->representative);
		const char *rep_key = rep_name ? rep_name : "?";
		if (fmt == FMT_TEXT) {
			printf("\ngroup %zu: %u objects, %llu bytes\n  chain: %s\n  representative: #%d %s\n", g + 1, x->count,
			       (unsigned long long)x->bytes, disp(x->key), rep->idx, disp(rep_key));
			chains cs = {0};
			if (cv && query_shortest(cv, rep->idx, &cs) == 0 && cs.n)
				print_chain_text(cv, stdout, &cs.v[0]);
			chains_free(&cs);
		} else if (fmt == FMT_JSON) {
			printf("%s{\"objects\":%u,\"bytes\":%llu,\"representative\":%d,\"name\":", g ? "," : "", x->count,
			       (unsigned long long)x->bytes, rep->idx);
			json_str(stdout, rep_key);
			printf(",\"chain\":");
			json_str(stdout, x->key);
			printf("}");
		} else {
			printf("%zu,%u,%llu,%d,", g + 1, x->count, (unsigned long long)x->bytes, rep->idx);
			csv_str(stdout, disp(x->key));
			putchar('\n');
		}
		free(rep_name);
	}
	if (fmt == FMT_JSON)
		printf("]}\n");
	if (cv)
		cv->ops->close(cv);
	diff_result_free(&bc);
done:
	diff_result_free(&ab);
	for (size_t g = 0; g < ngroups; g++)
		free(groups[g].key);
	free(groups);
	diff_side_free(&a);
	diff_side_free(&b);
	diff_side_free(&c);
	return rc;
}

struct diff_opts {
	const char *baseline, *target, *final, *out;
	int format, force;
	long long top;
};

#define D struct diff_opts
static const option options[] = {
	OPT_STRING('o', NULL, D, out, "DIFF.db", "store the status of every object and the aggregates in SQLite"),
	OPT_FLAG(0, "force", D, force, "overwrite DIFF.db if it exists"),
	OPT_STRING(0, "baseline", D, baseline, "A", "leak mode: the snapshot before"),
	OPT_STRING(0, "target", D, target, "B", "leak mode: the snapshot with the objects to follow"),
	OPT_STRING(0, "final", D, final, "C", "leak mode: the snapshot after, where they should be gone"),
	OPT_LIMIT(D, top, "rows a list (default 20, 0: all); counts are always complete"),
	OPT_TOP_ALIAS(D, top, 0, 1LL << 40),
	OPT_FORMAT(D, format, "text (default), json or csv"),
	OPT_END(),
};
#undef D

const command command_diff = {
	"diff", cmd_diff, "compare two snapshots or databases; or find leaks across three",
	"usage: ugc-analyze diff A B [-o DIFF.db [--force]] [--limit N] [--format text|json|csv]\n"
	"       ugc-analyze diff --baseline A --target B --final C [--limit N] [--format text|json|csv]\n",
	"Two-way: matches the objects of A and B by class and path name (and, when both come\n"
	"from one process, by index and serial too, so that a re-created object or a reused\n"
	"slot is not taken for the same object), then reports the class histogram delta\n"
	"(count and bytes, largest growth first), objects added and removed by package and\n"
	"by outer, objects garbage in A still alive in B, new roots, new eliminated\n"
	"references and new cluster disagreements.  -o stores the status of every object\n"
	"and the aggregates in SQLite.\n"
	"\n"
	"Leak mode: the objects new in B (absent from A) that are still alive in C after its\n"
	"GC, grouped by their shortest retention chain with numbered names made generic\n"
	"(BP_Enemy_C_12 -> BP_Enemy_C_*), largest groups first, one representative chain\n"
	"each in the engine's reference-chain layout.\n"
	"\n"
	"Inputs are snapshots (analysed in memory) or databases written by analyze.\n",
	options, 2, NULL,
};

int cmd_diff(int argc, char **argv)
{
	struct diff_opts opts = {.format = FMT_TEXT, .top = 20};
	const char *in[2] = {NULL, NULL};
	int parsed = parse_options(&command_diff, argc, argv, &opts, in);
	if (parsed < 0)
		return OPT_EXIT_STATUS(parsed);
	const char *baseline = opts.baseline, *target = opts.target, *final = opts.final, *out = opts.out;
	enum out_format fmt = opts.format;
	long long top = opts.top ? opts.top : 1LL << 40; /* 0: all */
	int force = opts.force;
	if (baseline || target || final) {
		if (!baseline || !target || !final || parsed)
			return usage_error("diff", "leak mode needs --baseline A --target B --final C and nothing else");
		if (out)
			return usage_error("diff", "-o is for the two-way diff");
		return leaks(baseline, target, final, fmt, top);
	}
	if (parsed != 2)
		return usage_error("diff", "needs A and B (or --baseline, --target and --final)");
	if (out && !force && access(out, F_OK) == 0)
		return die("%s: already exists (use --force to overwrite)", out);
	return pairwise(in[0], in[1], fmt, top, out, force);
}
