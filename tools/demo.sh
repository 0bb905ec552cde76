#!/bin/sh
# demo.sh — the main job on the bundled example: analyse testdata/arena.ugcs
# (a generated 20,000-object game heap) into demo/arena.db, then the
# workflow: what the GC found, the leaked World with the references to cut
# and the proof, why one object is alive and who holds it, the same answers
# in SQL, the page to look at (demo/demo.html), and last the CI gate: check
# against the rules in testdata/demo.rules (which pass), JUnit XML in
# demo/check.xml.
set -e
ugc=$1
mkdir -p demo
echo "== ugc-analyze info testdata/arena.ugcs"
"$ugc" info testdata/arena.ugcs --top 5
echo
echo "== ugc-analyze analyze testdata/arena.ugcs -o demo/arena.db --force"
"$ugc" analyze testdata/arena.ugcs -o demo/arena.db --force
echo
echo "== ugc-analyze findings demo/arena.db --limit 1: what the GC replay found"
"$ugc" findings demo/arena.db --limit 1
echo
echo "== ugc-analyze worlds demo/arena.db --limit 5: the leaked World, its chain, the references to cut, the proof"
"$ugc" worlds demo/arena.db --limit 5
echo
mesh=$("$ugc" sql demo/arena.db "SELECT idx FROM objects WHERE class_name = 'StaticMesh' AND root_kind = 'referenced' ORDER BY idx LIMIT 1" --format csv | tail -1)
echo "== ugc-analyze path demo/arena.db $mesh: why is this mesh alive?"
"$ugc" path demo/arena.db "$mesh"
echo "== ugc-analyze refs demo/arena.db $mesh --kind strong --limit 3"
"$ugc" refs demo/arena.db "$mesh" --kind strong --limit 3
echo
echo "== ugc-analyze clusters demo/arena.db --top 5"
"$ugc" clusters demo/arena.db --top 5
echo
echo "== ugc-analyze sql demo/arena.db: the same database, for scripts"
"$ugc" sql demo/arena.db "SELECT kind, count(*) AS n FROM findings GROUP BY kind ORDER BY n DESC"
echo
echo "== ugc-analyze report demo/arena.db -o demo/demo.html --force: one page to open in a browser"
"$ugc" report demo/arena.db -o demo/demo.html --force
echo
echo "(try: ./ugc-analyze why demo/arena.db $mesh, or ./ugc-analyze sql demo/arena.db 'SELECT * FROM class_histogram')"
echo
echo "== ugc-analyze check demo/arena.db --rules testdata/demo.rules --junit demo/check.xml --force: the CI gate"
"$ugc" check demo/arena.db --rules testdata/demo.rules --junit demo/check.xml --force
