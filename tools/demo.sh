#!/bin/sh
# demo.sh — the main job on the bundled example: analyse testdata/arena.ugcs
# (a generated 20,000-object game heap) into demo/arena.db, then ask it a few
# of the questions the database answers, and end with the CI gate: check
# against the rules in testdata/demo.rules (which pass), JUnit XML in
# demo/check.xml, and the page to look at: demo/demo.html (report).
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
mesh=$("$ugc" sql demo/arena.db "SELECT idx FROM objects WHERE class_name = 'StaticMesh' AND root_kind = 'referenced' ORDER BY idx LIMIT 1" --format csv | tail -1)
echo "== ugc-analyze path demo/arena.db $mesh: why is this mesh alive?"
"$ugc" path demo/arena.db "$mesh"
echo "== ugc-analyze refs demo/arena.db $mesh --kind strong"
"$ugc" refs demo/arena.db "$mesh" --kind strong | tail -4
echo
echo "== ugc-analyze clusters demo/arena.db --top 5"
"$ugc" clusters demo/arena.db --top 5
echo
echo "== ugc-analyze check demo/arena.db --rules testdata/demo.rules --junit demo/check.xml --force: the CI gate"
"$ugc" check demo/arena.db --rules testdata/demo.rules --junit demo/check.xml --force
echo
echo "== ugc-analyze report demo/arena.db -o demo/demo.html --force: one page to open in a browser"
"$ugc" report demo/arena.db -o demo/demo.html --force
echo "demo/demo.html: $(wc -c < demo/demo.html) bytes, opens offline in any browser"
echo
echo "demo database: demo/arena.db (try: ./ugc-analyze sql demo/arena.db 'SELECT * FROM class_histogram')"
