/* schema.h — the database schema, as SQL.  Tables first (filled by
 * store.c), then the indexes and views created once the rows are in. */
#ifndef UGC_SCHEMA_H
#define UGC_SCHEMA_H

/* snapshot.schema_version: 2 since objects became a view over object_table,
 * 3 since objects carry idom and retained and the retention tables exist,
 * 4 since the refs view holds every edge (Class, Outer and FGCObject ones
 * too), clusters say what dissolved them and findings name their FGCObject,
 * 5 since objects carry node_id (a V8 node's id, NULL on other heaps),
 * 6 since the mark phase's work is stored (gc_cost, gc_cost_by_class,
 * gc_cost_by_package, gc_cost_candidates).
 * A reader takes this version only (db_version.h). */
#define SCHEMA_VERSION 6

/* The number of references (ref_table's rows): the count analyze stored in
 * snapshot (key references), else counted (a database written before the
 * key was; counting 20M rows takes a second or more). */
#define REFS_COUNT_SQL \
"SELECT coalesce((SELECT value FROM snapshot WHERE key = 'references' AND typeof(value) = 'integer' " \
"AND value >= 0), (SELECT count(*) FROM ref_table))"

#define SCHEMA_TABLES \
"CREATE TABLE snapshot(key TEXT PRIMARY KEY, value);\n" \
"CREATE TABLE object_table(idx INTEGER PRIMARY KEY, serial INTEGER, class INTEGER, outer INTEGER,\n" \
"  name TEXT, class_name TEXT, size INTEGER, flags TEXT, cluster INTEGER,\n" \
"  garbage INTEGER, reachable INTEGER, root_kind TEXT, distance INTEGER,\n" \
"  parent INTEGER, parent_property TEXT, path_hash INTEGER, idom INTEGER, retained INTEGER,\n" \
"  node_id INTEGER);\n" \
"CREATE TABLE strings(id INTEGER PRIMARY KEY, text TEXT);\n" \
"CREATE TABLE ref_table(src INTEGER NOT NULL, pos INTEGER NOT NULL, dst INTEGER NOT NULL,\n" \
"  kind INTEGER NOT NULL, prop INTEGER, PRIMARY KEY(src, pos)) WITHOUT ROWID;\n" \
"CREATE TABLE dangling_refs(src INTEGER, dst INTEGER, kind TEXT, property TEXT);\n" \
"CREATE TABLE gc_object_refs(referencer TEXT, dst INTEGER, property TEXT);\n" \
"CREATE TABLE clusters(root INTEGER PRIMARY KEY, members INTEGER, mutable INTEGER,\n" \
"  referenced INTEGER, state TEXT, reason TEXT, position INTEGER, dissolved_by INTEGER);\n" \
"CREATE TABLE cluster_dissolved_by(root INTEGER, idx INTEGER);\n" \
"CREATE TABLE cluster_members(root INTEGER, idx INTEGER);\n" \
"CREATE TABLE cluster_mutable(root INTEGER, idx INTEGER);\n" \
"CREATE TABLE cluster_refs(root INTEGER, referenced_root INTEGER);\n" \
"CREATE TABLE eliminated_refs(src INTEGER, referencer TEXT, dst INTEGER, property TEXT, kind TEXT);\n" \
"CREATE TABLE cleared_weak_refs(src INTEGER, dst INTEGER, property TEXT);\n" \
"CREATE TABLE purge(idx INTEGER PRIMARY KEY, size INTEGER, pending_finish_destroy INTEGER,\n" \
"  game_thread INTEGER);\n" \
"CREATE TABLE findings(kind TEXT, idx INTEGER, other INTEGER, detail TEXT, referencer TEXT);\n" \
"CREATE TABLE retained_by_class(class INTEGER PRIMARY KEY, class_name TEXT, objects INTEGER,\n" \
"  shallow INTEGER, retained INTEGER);\n" \
"CREATE TABLE retained_by_package(package INTEGER PRIMARY KEY, name TEXT, objects INTEGER,\n" \
"  shallow INTEGER, retained INTEGER);\n" \
"CREATE TABLE package_retention(from_package INTEGER, to_package INTEGER, objects INTEGER,\n" \
"  bytes INTEGER, PRIMARY KEY(from_package, to_package));\n" \
"CREATE TABLE gc_cost(visits INTEGER, trace_visits INTEGER, list_visits INTEGER,\n" \
"  record_visits INTEGER, traced INTEGER, walked INTEGER, disregard_skipped INTEGER);\n" \
"CREATE TABLE gc_cost_by_class(class INTEGER PRIMARY KEY, class_name TEXT, path TEXT,\n" \
"  traced INTEGER, clusters INTEGER, visits INTEGER);\n" \
"CREATE TABLE gc_cost_by_package(package INTEGER PRIMARY KEY, name TEXT, traced INTEGER,\n" \
"  clusters INTEGER, visits INTEGER);\n" \
"CREATE TABLE gc_cost_candidates(package INTEGER PRIMARY KEY, name TEXT, objects INTEGER,\n" \
"  visits INTEGER, as_cluster INTEGER, saved INTEGER);\n"

/* The objects as documented: object_table with each path built from the
 * Outer chain (stored whole, paths would make the database quadratic in the
 * Outer depth).  A segment is preceded by ':' when its Outer is not a
 * package but the Outer's Outer is, else by '.' (path_separator in
 * snapshot/heap.h, the rule in C; tests/test_paths.c checks that this
 * view and the C paths agree on every case); the climb stops after as
 * many steps as there can be objects, so a damaged database cannot loop. */
#define OBJECTS_VIEW \
"CREATE VIEW objects AS SELECT o.idx AS idx, o.serial AS serial, o.class AS class, o.outer AS outer,\n" \
"  o.name AS name, (WITH RECURSIVE up(i, s, d) AS (SELECT o.outer, o.name, 0\n" \
"    UNION ALL SELECT t.outer, t.name || CASE WHEN t.class_name IS NOT 'Package' AND\n" \
"      (SELECT p.class_name FROM object_table p WHERE p.idx = t.outer) IS 'Package' THEN ':' ELSE '.' END\n" \
"      || up.s, up.d + 1 FROM up JOIN object_table t ON t.idx = up.i\n" \
"      WHERE up.d <= (SELECT count(*) FROM object_table))\n" \
"    SELECT s FROM up WHERE i IS NULL) AS path,\n" \
"  o.class_name AS class_name, o.size AS size, o.flags AS flags, o.cluster AS cluster,\n" \
"  o.garbage AS garbage, o.reachable AS reachable, o.root_kind AS root_kind, o.distance AS distance,\n" \
"  o.parent AS parent, o.parent_property AS parent_property, o.idom AS idom, o.retained AS retained,\n" \
"  o.node_id AS node_id\n" \
"  FROM object_table o;\n"

/* Every edge the GC follows, as `refs` and `path` show them: the "r"
 * records, each object's implicit Class and Outer references (kind class
 * and outer, property Class and Outer), and the FGCObject "g" records to
 * objects that exist (kind gcobject, SRC NULL, REFERENCER the FGCObject's
 * name; NULL for the others).  Each branch has an index on dst and on src,
 * and SQLite pushes a WHERE on either into the branches. */
#define REFS_VIEW \
"CREATE VIEW refs AS SELECT r.src AS src, r.dst AS dst,\n" \
"  CASE r.kind WHEN 0 THEN 'strong' WHEN 1 THEN 'aro' WHEN 2 THEN 'immutable'\n" \
"    WHEN 3 THEN 'weak' ELSE 'soft' END AS kind, s.text AS property, NULL AS referencer\n" \
"  FROM ref_table r LEFT JOIN strings s ON s.id = r.prop\n" \
"UNION ALL SELECT idx, class, 'class', 'Class', NULL FROM object_table\n" \
"UNION ALL SELECT idx, outer, 'outer', 'Outer', NULL FROM object_table WHERE outer IS NOT NULL\n" \
"UNION ALL SELECT NULL, g.dst, 'gcobject', g.property, g.referencer FROM gc_object_refs g\n" \
"  WHERE EXISTS (SELECT 1 FROM object_table o WHERE o.idx = g.dst);\n"

#define SCHEMA_INDEXES \
"CREATE INDEX ref_table_dst ON ref_table(dst);\n" \
"CREATE INDEX objects_path_hash ON object_table(path_hash);\n" \
"CREATE INDEX objects_class ON object_table(class);\n" \
"CREATE INDEX objects_outer ON object_table(outer);\n" \
"CREATE INDEX objects_idom ON object_table(idom);\n" \
"CREATE INDEX objects_retained ON object_table(retained);\n" \
"CREATE INDEX objects_node_id ON object_table(node_id);\n" \
"CREATE INDEX gc_object_refs_dst ON gc_object_refs(dst);\n" \
"CREATE INDEX cluster_members_idx ON cluster_members(idx);\n" \
"CREATE INDEX cluster_members_root ON cluster_members(root);\n" \
"CREATE INDEX cluster_mutable_root ON cluster_mutable(root);\n" \
"CREATE INDEX cluster_refs_root ON cluster_refs(root);\n" \
"CREATE INDEX cluster_refs_referenced ON cluster_refs(referenced_root);\n" \
"CREATE INDEX cluster_dissolved_by_root ON cluster_dissolved_by(root);\n" \
"CREATE INDEX eliminated_refs_dst ON eliminated_refs(dst);\n" \
"CREATE INDEX findings_idx ON findings(idx);\n" \
"CREATE INDEX findings_other ON findings(other);\n" \
"CREATE INDEX cleared_weak_refs_dst ON cleared_weak_refs(dst);\n" \
OBJECTS_VIEW \
REFS_VIEW \
"CREATE VIEW class_histogram AS SELECT class_name, count(*) AS objects, sum(size) AS bytes,\n" \
"  sum(reachable = 0) AS purged, sum(CASE WHEN reachable = 0 THEN size ELSE 0 END) AS purged_bytes\n" \
"  FROM objects GROUP BY class ORDER BY bytes DESC;\n" \
"CREATE VIEW purged_by_class AS SELECT o.class_name, count(*) AS objects, sum(p.size) AS bytes\n" \
"  FROM purge p JOIN objects o ON o.idx = p.idx GROUP BY o.class ORDER BY bytes DESC;\n" \
"CREATE VIEW roots AS SELECT idx, path, class_name, root_kind FROM objects WHERE distance = 0;\n" \
"CREATE VIEW garbage_alive AS SELECT idx, path, class_name, root_kind FROM objects\n" \
"  WHERE garbage = 1 AND reachable = 1;\n"

#endif
