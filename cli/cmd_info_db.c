/* cmd_info_db.c — `ugc-analyze info DB`: what an analysis database is and
 * holds (its schema version, the snapshot it came from, the mode it was
 * analysed in, objects, references, roots by kind as the roots view counts
 * them, clusters, findings), read with a few aggregate queries.  A database
 * of another schema version gets the version check's one-line error. */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "sql/sql.h"
#include "analysis/analysis.h"

/* One figure: a label and the query that counts it. */
typedef struct figure {
	const char *key, *sql;
} figure;

static const figure figures[] = {
	{"objects", "SELECT count(*) FROM object_table"},
	{"reachable", "SELECT count(*) FROM object_table WHERE reachable = 1"},
	{"purged", "SELECT count(*) FROM purge"},
	{"references", REFS_COUNT_SQL},
	{"gc_object_refs", "SELECT count(*) FROM gc_object_refs"},
	{"clusters", "SELECT count(*) FROM clusters"},
	{"dissolved", "SELECT count(*) FROM clusters WHERE state = 'dissolved'"},
	{"findings", "SELECT count(*) FROM findings"},
};
#define NFIGURES (sizeof figures / sizeof figures[0])

/* The header keys shown, in order. */
static const char *const keys[] = {"source_file", "tool_version", "engine", "mode", "snapshot_mode", "keep_flags",
				   "label", "slots", "first_gc_index", "garbage_elimination", "policy"};
#define NKEYS (sizeof keys / sizeof keys[0])

/* One integer from SQL with ?1 bound to ARG (when not NULL): 0, or -1. */
static int one_int(sqlite3 *db, const char *sql, const char *arg, long long *out)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (arg)
		sqlite3_bind_text(st, 1, arg, -1, SQLITE_STATIC);
	int rc = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_INTEGER ? 0 : -1;
	*out = rc ? 0 : sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return rc;
}

/* The value of header KEY as text (NULL when absent), in BUF; *IS_INT
 * says whether it is stored as an integer. */
static const char *header_typed(sqlite3 *db, const char *key, char *buf, size_t cap, int *is_int)
{
	sqlite3_stmt *st;
	const char *v = NULL;
	if (sqlite3_prepare_v2(db, "SELECT value FROM snapshot WHERE key = ?1", -1, &st, NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	*is_int = 0;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
		const unsigned char *text = sqlite3_column_text(st, 0); /* NULL when out of memory */
		snprintf(buf, cap, "%s", text ? (const char *)text : "?");
		*is_int = sqlite3_column_type(st, 0) == SQLITE_INTEGER;
		v = buf;
	}
	sqlite3_finalize(st);
	return v;
}

static const char *header(sqlite3 *db, const char *key, char *buf, size_t cap)
{
	int is_int;
	return header_typed(db, key, buf, cap, &is_int);
}

static int report(const char *path, sqlite3 *db, enum out_format fmt)
{
	long long fig[NFIGURES], roots[RK_COUNT], nroots = 0;
	for (size_t k = 0; k < NFIGURES; k++)
		if (one_int(db, figures[k].sql, NULL, &fig[k]))
			return error("%s: %s: %s", path, figures[k].sql + strlen("SELECT count(*) FROM "), sqlite3_errmsg(db));
	for (int k = 0; k <= RK_GCOBJECT; k++) {
		if (one_int(db, "SELECT count(*) FROM object_table WHERE distance = 0 AND root_kind = ?1", root_kind_names[k],
			    &roots[k]))
			return error("%s: object_table: %s", path, sqlite3_errmsg(db));
		nroots += roots[k];
	}
	char buf[5][1024];
	if (fmt == FMT_JSON) {
		json_begin("info");
		printf(",\"database\":");
		json_str(stdout, path);
		printf(",\"schema_version\":%d", SCHEMA_VERSION);
		for (size_t k = 0; k < NKEYS; k++) {
			int is_int;
			const char *v = header_typed(db, keys[k], buf[0], sizeof buf[0], &is_int);
			printf(",\"%s\":", keys[k]);
			if (v && is_int)
				printf("%s", v);
			else if (v)
				json_str(stdout, v);
			else
				printf("null");
		}
		for (size_t k = 0; k < NFIGURES; k++)
			printf(",\"%s\":%lld", figures[k].key, fig[k]);
		printf(",\"roots\":{");
		for (int k = 0; k <= RK_GCOBJECT; k++)
		{
			json_key(root_kind_names[k]);
			printf("%lld,", roots[k]);
		}
		printf("\"total\":%lld}", nroots);
		json_end();
		return 0;
	}
#define H(k, i) (header(db, k, buf[i], sizeof buf[i]) ? disp(buf[i]) : "-")
	printf("database        %s: an analysis database (schema version %d) written by analyze, not a snapshot\n",
	       disp(path), SCHEMA_VERSION);
	printf("source          %s\n", H("source_file", 0));
	printf("written by      %s\n", H("tool_version", 0));
	printf("engine          %s\n", H("engine", 0));
	if (engine_is_v8(header(db, "engine", buf[3], sizeof buf[3]))) { /* V8's words: no modes, clusters, findings */
		/* the tool's objects, below the first node: always kept (an
		 * untrusted header that does not fit the counts reads as none) */
		const char *fgi = header(db, "first_gc_index", buf[4], sizeof buf[4]);
		long long tool = fgi && strspn(fgi, "0123456789") == strlen(fgi) && strlen(fgi) < 12 ? atoll(fgi) : 0;
		if (tool > fig[0] || tool > fig[1])
			tool = 0;
		printf("nodes           %s (and %s object%s the tool adds below them: /V8 and the constructors): %s "
		       "retained from the root, %s unreachable\n", count_text((unsigned long long)(fig[0] - tool)),
		       count_text((unsigned long long)tool), plural_s((unsigned long long)tool),
		       count_text((unsigned long long)(fig[1] - tool)), count_text((unsigned long long)fig[2]));
		printf("edges           %s (the refs view adds each object's constructor and /V8 edges)\n",
		       count_text((unsigned long long)fig[3]));
		printf("retention       policy %s\n", H("policy", 0));
		return 0;
	}
	printf("mode            %s (the snapshot's: %s), keep flags %s\n", H("mode", 0), H("snapshot_mode", 1),
	       H("keep_flags", 2));
	printf("label           %s\n", H("label", 0));
	printf("garbage-elim.   %s\n", H("garbage_elimination", 0));
	/* (count(*) is never negative) */
#define C(v) count_text((unsigned long long)(v))
	const char *slots = H("slots", 0);
	if (slots[0] && strspn(slots, "0123456789") == strlen(slots) && strlen(slots) < 16) /* (the header is text) */
		slots = C(strtoll(slots, NULL, 10));
	printf("objects         %s (%s slots, first-gc-index %s): %s reachable, %s purged\n", C(fig[0]), slots,
	       H("first_gc_index", 1), C(fig[1]), C(fig[2]));
	printf("references      %s, and %s FGCObject record%s (the refs view adds each object's Class and Outer)\n",
	       C(fig[3]), C(fig[4]), plural_s((unsigned long long)fig[4]));
	printf("roots           %s:", C(nroots));
	for (int k = 0; k <= RK_GCOBJECT; k++)
		printf(" %s %s", root_kind_names[k], C(roots[k]));
	printf("\n");
	printf("clusters        %s (%s dissolved)\n", C(fig[5]), C(fig[6]));
	printf("findings        %s (ugc-analyze findings %s)\n", C(fig[7]), disp(path));
#undef C
	printf("retention       policy %s\n", H("policy", 0));
#undef H
	return 0;
}

int info_database(const char *path, enum out_format fmt)
{
	char err[1024];
	sqlite3 *db = input_open_sql(path, INPUT_SQL_ANALYSIS, err, sizeof err); /* untrusted: checked, nothing of it runs */
	if (!db)
		return error("%s", err);
	int rc = report(path, db, fmt);
	sqlite3_close(db);
	return rc;
}
