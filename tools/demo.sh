#!/bin/sh
# demo.sh — the main job on the bundled example: analyse testdata/arena.ugcs
# (a generated 20,000-object game heap) into demo/arena.db, then ask it a few
# of the questions the database answers.
set -e
ugc=$1
mkdir -p demo
echo "== ugc-analyze info testdata/arena.ugcs"
"$ugc" info testdata/arena.ugcs --top 5
echo
echo "== ugc-analyze analyze testdata/arena.ugcs -o demo/arena.db --force"
"$ugc" analyze testdata/arena.ugcs -o demo/arena.db --force
echo
echo "== what the purge frees, by class"
"$ugc" sql demo/arena.db "SELECT * FROM purged_by_class LIMIT 5"
echo
echo "== references the GC nulls (destroyed actors still pointed at)"
"$ugc" sql demo/arena.db "SELECT e.src, s.path AS holder, e.property, d.path AS garbage_target
  FROM eliminated_refs e LEFT JOIN objects s ON s.idx = e.src JOIN objects d ON d.idx = e.dst LIMIT 5"
echo
echo "== findings by kind"
"$ugc" sql demo/arena.db "SELECT kind, count(*) AS n FROM findings GROUP BY kind ORDER BY n DESC"
echo
echo "== why is the first StaticMesh alive? its retention path, root first"
"$ugc" sql demo/arena.db "WITH RECURSIVE chain(idx, hop) AS (
    SELECT (SELECT idx FROM objects WHERE class_name = 'StaticMesh' AND root_kind = 'referenced' ORDER BY idx LIMIT 1), 0
    UNION ALL SELECT o.parent, hop + 1 FROM chain c JOIN objects o ON o.idx = c.idx WHERE o.parent IS NOT NULL)
  SELECT o.distance, o.path, o.root_kind, o.parent_property AS via FROM chain c JOIN objects o ON o.idx = c.idx
  ORDER BY o.distance"
echo
echo "demo database: demo/arena.db (try: ./ugc-analyze sql demo/arena.db 'SELECT * FROM class_histogram')"
