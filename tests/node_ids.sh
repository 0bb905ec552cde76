#!/bin/sh
# node_ids.sh — DevTools' node ids on V8 heaps (issue #25): @ID selects a
# node in every query command, from a snapshot and from its database with
# the same answer; a bare number that is an index and another node's id is
# refused naming both; objects.node_id holds the id each name ends in (NULL
# for the pool and on any other heap); JSON carries node_id on a V8 heap
# only.  The expected values come from testdata/v8-ids.ugct's comment
# (worked out by hand), from SQL's own string functions over the names, and
# from the id checksum tools/v8-testdata.js computed with node from the
# snapshot's JSON (testdata/v8/node-small.expect).
# Usage: tests/node_ids.sh UGC_ANALYZE OUTDIR.  Prints "ok  NAME" or
# "FAIL NAME" per test and ends with "node-ids: N passed, N failed".
ugc=$1
out=$2/node-ids
mkdir -p "$out"
passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok   $1"; }
bad() { failed=$((failed + 1)); echo "FAIL $1"; [ -n "$2" ] && echo "    $2"; }
# expect NAME WANT COMMAND...: the command's output (stdout and stderr) is WANT
expect() {
	name=$1 want=$2
	shift 2
	got=$("$@" 2>&1)
	[ "$got" = "$want" ] && ok "$name" || bad "$name" "want: $want
    got:  $got"
}
sql() { "$ugc" sql "$@" --format csv | tail -n +2; }

# --- the hand-made heap: its comment says what each number selects ---------
ids=testdata/v8-ids.ugct
"$ugc" analyze "$ids" -o "$out/ids.db" --force -q >/dev/null 2>&1 || bad "analyze $ids"
expect "objects.node_id: NULL for the pool, then each name's id" "0,
1,
2,
3,
4,
5,1
6,5
7,7
8,100
9,6" sql "$out/ids.db" "SELECT idx, node_id FROM objects ORDER BY idx"
for f in "$ids" "$out/ids.db"; do
	n=$(basename "$f")
	expect "$n: a bare 5, index 5 and node @5, is refused naming both" \
		"ugc-analyze: #5 is (synthetic) /V8.@1 and @5 is Foo /V8.Foo@5: write #5 or @5" "$ugc" refs "$f" 5
	expect "$n: a bare 6 too (#6 is Foo@5, @6 is #9)" \
		"ugc-analyze: #6 is Foo /V8.Foo@5 and @6 is Foo /V8.Foo@6: write #6 or @6" "$ugc" why "$f" 6
	"$ugc" refs "$f" 5 >/dev/null 2>&1
	[ $? -eq 1 ] && ok "$n: the refusal exits 1" || bad "$n: the refusal exits 1"
	expect "$n: #5 is the index" "retainers of #5 (synthetic) @1" sh -c "'$ugc' refs '$f' '#5' | head -n 1"
	expect "$n: @5 is the node" "retainers of #6 Foo @5" sh -c "'$ugc' refs '$f' @5 | head -n 1"
	expect "$n: a bare 7, index and id of one object, is that object" "retainers of #7 Foo @7" \
		sh -c "'$ugc' refs '$f' 7 | head -n 1"
	expect "$n: a bare 100, no index but a node id, is the node" "retainers of #8 Foo @100" \
		sh -c "'$ugc' refs '$f' 100 | head -n 1"
	expect "$n: a bare 3, an index and no node id, is the index" "retainers of #3 Class (synthetic)" \
		sh -c "'$ugc' refs '$f' 3 | head -n 1"
	expect "$n: a number that is neither says both" "ugc-analyze: no object has index 11, and no node id 11" \
		"$ugc" refs "$f" 11
	expect "$n: an unknown @ID" "ugc-analyze: no object has node id @3 (a V8 heap's objects are named NAME@3)" \
		"$ugc" refs "$f" @3
	# JSON: the node's id after its path, null for the pool
	expect "$n: JSON node_id of a node and of what references it" \
		'{"format_version":1,"command":"refs","objects":[{"object":{"idx":8,"class":"Foo","path":"/V8.Foo@100","node_id":100},"direction":"in","references":{"items":[{"kind":"strong","property":"c","idx":6,"class":"Foo","path":"/V8.Foo@5","node_id":5,"fate":"survives"},{"kind":"weak","property":"e","idx":9,"class":"Foo","path":"/V8.Foo@6","node_id":6,"fate":"survives"}],"total":2,"shown":2},"counts":{"total":2,"strong":1,"aro":0,"immutable":0,"weak":1,"soft":0,"class":0,"outer":0,"gcobject":0,"survives":2,"garbage":0,"purged":0}}]}' \
		"$ugc" refs "$f" @100 --format json
	expect "$n: JSON node_id null for the pool" '"node_id":null' \
		sh -c "'$ugc' refs '$f' '#4' --format json | grep -o '\"node_id\":null' | head -n 1"
done

# --- a UE heap: no ids, no key, @ID selects nothing --------------------------
ue=testdata/chains.ugct
"$ugc" analyze "$ue" -o "$out/ue.db" --force -q >/dev/null 2>&1
expect "objects.node_id is NULL on every object of a UE heap" "0,$(sql "$out/ue.db" "SELECT count(*) FROM objects")" \
	sql "$out/ue.db" "SELECT count(node_id), count(*) FROM objects"
keys=0
for f in "$ue" "$out/ue.db"; do
	for c in "refs X 15 --format json" "path X 15 --format json" "why X 15 --format json" \
		 "dominators X 15 --format json" "top X --format json" "suspects X --format json --threshold 1" \
		 "whatif X --cut 13 --format json"; do
		set -- $c
		cmd=$1
		shift 2
		"$ugc" "$cmd" "$f" "$@" > "$out/ue.json" 2>&1 || keys=$((keys + 100))
		grep -q node_id "$out/ue.json" && keys=$((keys + 1))
	done
done
[ $keys = 0 ] && ok "no JSON output on a UE heap (snapshot or database) carries node_id" ||
	bad "no JSON output on a UE heap (snapshot or database) carries node_id" "$keys"
expect "@ID on a UE heap says it is no V8 heap" \
	"ugc-analyze: no object has node id @15: not a V8 heap (@ID selects a V8 node)" "$ugc" refs "$ue" @15
expect "a bare number on a UE heap is an index only" "referencers of #15 Actor /Game/Chains.Target" \
	sh -c "'$ugc' refs '$ue' 15 | head -n 1"

# --- node-small, written by node: every node's id, by two definitions -------
v8=testdata/v8/node-small.heapsnapshot.zst
fig() { awk -v k="$1" '$1 == k { print $2 }' testdata/v8/node-small.expect; }
"$ugc" analyze "$v8" -o "$out/v8.db" --force -q >/dev/null 2>&1 || bad "analyze $v8"
# the id each name ends in, cut out with SQL's string functions (the digits
# after the last '@'), for the nodes from first_gc_index on; NULL before
fgi=$(sql "$out/v8.db" "SELECT value FROM snapshot WHERE key = 'first_gc_index'")
ends="CASE WHEN idx >= $fgi AND substr(name, length(rtrim(name, '0123456789')), 1) = '@'
	THEN CAST(substr(name, length(rtrim(name, '0123456789')) + 1) AS INTEGER) END"
for f in "$out/v8.db" "$v8"; do
	expect "$(basename "$f"): node_id is the id each name ends in, on every node and no other object" \
		"$(fig nodes),0,0" sql "$f" "SELECT count(node_id), sum(node_id IS NOT ($ends)), sum(idx < $fgi AND node_id IS NOT NULL) FROM objects"
	expect "$(basename "$f"): the ids in node order are the ones node wrote (id_checksum)" "$(fig id_checksum)" \
		sql "$f" "SELECT sum(node_id * ((idx - $fgi) % 1000 + 1)) % 4294967296 FROM objects WHERE idx >= $fgi"
done
expect "a lookup by node_id uses the index" "SEARCH object_table USING COVERING INDEX objects_node_id (node_id=?)" \
	sh -c "'$ugc' sql '$out/v8.db' 'EXPLAIN QUERY PLAN SELECT idx FROM object_table WHERE node_id = 84295' --format csv | tail -n 1 | cut -d, -f4"
# the node DevTools shows as @84295 (Player@84295, tools/v8-testdata.js's first Player)
pid=$(sql "$out/v8.db" "SELECT idx FROM objects WHERE name = 'Player@84295'")
[ -n "$pid" ] && ok "node-small has Player@84295 (#$pid)" || bad "node-small has Player@84295"
same=1 why=
for c in "refs X OBJ" "refs X OBJ --out --format json" "path X OBJ" "path X OBJ --roots --format json" \
	 "why X OBJ" "why X OBJ --format json" "dominators X OBJ --format json" "whatif X --cut OBJ --format json" \
	 "clusters X OBJ"; do
	for f in "$v8" "$out/v8.db"; do
		for sel in @84295 "#$pid"; do
			line=$(printf '%s\n' "$c" | sed "s|X|$f|; s|OBJ|$sel|")
			# shellcheck disable=SC2086
			"$ugc" $line > "$out/got" 2>&1
			echo "rc $?" >> "$out/got"
			if [ "$f$sel" = "$v8@84295" ]; then
				cp "$out/got" "$out/want"
			elif ! cmp -s "$out/got" "$out/want"; then
				same=0 why="$why [$line]"
			fi
		done
	done
	# the answer names the node (clusters: V8 has none, and says so of it)
	grep -q "Player @84295\|Player@84295" "$out/want" || { same=0 why="$why [$c: no Player@84295]"; }
done
[ $same = 1 ] && ok "@84295 and #$pid give the same answer in every query command, from the snapshot and its database" ||
	bad "@84295 and #$pid give the same answer in every query command, from the snapshot and its database" "$why"
expect "JSON: the node's node_id, after its path" '"path":"/V8.Player@84295","node_id":84295' \
	sh -c "'$ugc' why '$out/v8.db' @84295 --format json | grep -o '\"path\":\"/V8.Player@84295\",\"node_id\":[0-9]*' | head -n 1"
# a bare number that is an index and another node's id: #6165 and @6165
a=$(sql "$out/v8.db" "SELECT class_name || ' ' || path FROM objects WHERE idx = 6165")
b=$(sql "$out/v8.db" "SELECT class_name || ' ' || path FROM objects WHERE node_id = 6165")
for f in "$v8" "$out/v8.db"; do
	expect "$(basename "$f"): a bare 6165 names both candidates" \
		"ugc-analyze: #6165 is $a and @6165 is $b: write #6165 or @6165" "$ugc" path "$f" 6165
done
# every object of every JSON output of a V8 heap carries node_id: count the
# objects (each has a "path") and the keys (on the snapshot: suspects takes
# seconds from a database, and the loop above showed both give one answer)
miss=
for c in "top X --limit 5 --format json" "suspects X --format json" "dominators X @84295 --format json" \
	 "path X @84295 --format json" "refs X @84295 --format json" "whatif X --cut @84295 --format json"; do
	set -- $c
	cmd=$1
	shift 2
	"$ugc" "$cmd" "$v8" "$@" > "$out/v8.json" 2>/dev/null
	paths=$(grep -o '"path":' "$out/v8.json" | wc -l)
	keys=$(grep -o '"path":"[^"]*","node_id":' "$out/v8.json" | wc -l)
	[ "$paths" -gt 0 ] && [ "$paths" = "$keys" ] || miss="$miss [$cmd: $keys of $paths]"
done
[ -z "$miss" ] && ok "every object in the JSON of top, suspects, dominators, path, refs and whatif carries node_id" ||
	bad "every object in the JSON of top, suspects, dominators, path, refs and whatif carries node_id" "$miss"

# (a database whose node_id says something else than the name: tests/test_db.c)
echo "node-ids: $passed passed, $failed failed"
[ $failed -eq 0 ]
