/* schema.h — the database schema, as SQL.  Tables first (filled by
 * store.c), then the indexes and views created once the rows are in. */
#ifndef UGC_SCHEMA_H
#define UGC_SCHEMA_H

#define SCHEMA_TABLES \
"CREATE TABLE snapshot(key TEXT PRIMARY KEY, value);\n" \
"CREATE TABLE objects(idx INTEGER PRIMARY KEY, serial INTEGER, class INTEGER, outer INTEGER,\n" \
"  name TEXT, path TEXT, class_name TEXT, size INTEGER, flags TEXT, cluster INTEGER,\n" \
"  garbage INTEGER, reachable INTEGER, root_kind TEXT, distance INTEGER,\n" \
"  parent INTEGER, parent_property TEXT);\n" \
"CREATE TABLE strings(id INTEGER PRIMARY KEY, text TEXT);\n" \
"CREATE TABLE ref_table(src INTEGER NOT NULL, pos INTEGER NOT NULL, dst INTEGER NOT NULL,\n" \
"  kind INTEGER NOT NULL, prop INTEGER, PRIMARY KEY(src, pos)) WITHOUT ROWID;\n" \
"CREATE TABLE dangling_refs(src INTEGER, dst INTEGER, kind TEXT, property TEXT);\n" \
"CREATE TABLE gc_object_refs(referencer TEXT, dst INTEGER, property TEXT);\n" \
"CREATE TABLE clusters(root INTEGER PRIMARY KEY, members INTEGER, mutable INTEGER,\n" \
"  referenced INTEGER, state TEXT, reason TEXT);\n" \
"CREATE TABLE cluster_members(root INTEGER, idx INTEGER);\n" \
"CREATE TABLE cluster_mutable(root INTEGER, idx INTEGER);\n" \
"CREATE TABLE cluster_refs(root INTEGER, referenced_root INTEGER);\n" \
"CREATE TABLE eliminated_refs(src INTEGER, referencer TEXT, dst INTEGER, property TEXT, kind TEXT);\n" \
"CREATE TABLE cleared_weak_refs(src INTEGER, dst INTEGER, property TEXT);\n" \
"CREATE TABLE purge(idx INTEGER PRIMARY KEY, size INTEGER, pending_finish_destroy INTEGER,\n" \
"  game_thread INTEGER);\n" \
"CREATE TABLE findings(kind TEXT, idx INTEGER, other INTEGER, detail TEXT);\n"

#define SCHEMA_INDEXES \
"CREATE INDEX ref_table_dst ON ref_table(dst);\n" \
"CREATE INDEX objects_path ON objects(path);\n" \
"CREATE INDEX objects_class ON objects(class);\n" \
"CREATE INDEX objects_outer ON objects(outer);\n" \
"CREATE INDEX gc_object_refs_dst ON gc_object_refs(dst);\n" \
"CREATE INDEX cluster_members_idx ON cluster_members(idx);\n" \
"CREATE INDEX cluster_members_root ON cluster_members(root);\n" \
"CREATE INDEX cluster_mutable_root ON cluster_mutable(root);\n" \
"CREATE INDEX cluster_refs_root ON cluster_refs(root);\n" \
"CREATE INDEX cluster_refs_referenced ON cluster_refs(referenced_root);\n" \
"CREATE INDEX eliminated_refs_dst ON eliminated_refs(dst);\n" \
"CREATE INDEX findings_idx ON findings(idx);\n" \
"CREATE INDEX findings_other ON findings(other);\n" \
"CREATE INDEX cleared_weak_refs_dst ON cleared_weak_refs(dst);\n" \
"CREATE VIEW refs AS SELECT r.src AS src, r.dst AS dst,\n" \
"  CASE r.kind WHEN 0 THEN 'strong' WHEN 1 THEN 'aro' WHEN 2 THEN 'immutable'\n" \
"    WHEN 3 THEN 'weak' ELSE 'soft' END AS kind, s.text AS property\n" \
"  FROM ref_table r LEFT JOIN strings s ON s.id = r.prop;\n" \
"CREATE VIEW class_histogram AS SELECT class_name, count(*) AS objects, sum(size) AS bytes,\n" \
"  sum(reachable = 0) AS purged, sum(CASE WHEN reachable = 0 THEN size ELSE 0 END) AS purged_bytes\n" \
"  FROM objects GROUP BY class ORDER BY bytes DESC;\n" \
"CREATE VIEW purged_by_class AS SELECT o.class_name, count(*) AS objects, sum(p.size) AS bytes\n" \
"  FROM purge p JOIN objects o ON o.idx = p.idx GROUP BY o.class ORDER BY bytes DESC;\n" \
"CREATE VIEW roots AS SELECT idx, path, class_name, root_kind FROM objects WHERE distance = 0;\n" \
"CREATE VIEW garbage_alive AS SELECT idx, path, class_name, root_kind FROM objects\n" \
"  WHERE garbage = 1 AND reachable = 1;\n"

#endif
