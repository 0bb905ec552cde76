#!/bin/sh
# json.sh — one listing convention for every command (ugc-analyze(1),
# OUTPUT, JSON): each command's JSON is checked by tests/json_check.c, a
# JSON reader of its own (valid JSON, {"format_version":1,"command":NAME
# first, snake_case keys, every listing's shown == its items <= total),
# from a snapshot and from its database; with --limit 1 some listing is
# cut (shown < total) and text says "showing 1 of N ... (--limit 0 shows
# all)"; with --limit 0 nothing is cut and text says no "showing".
# Usage: tests/json.sh UGC_ANALYZE OUTDIR JSON_CHECK
# Prints "ok   NAME" or "FAIL NAME" per test and ends with
# "json: N passed, N failed".
ugc=$1
out=$2/json
jc=$3
rm -rf "$out"
mkdir -p "$out"
passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok   $1"; }
bad() { failed=$((failed + 1)); echo "FAIL $1"; [ -n "$2" ] && echo "    $2"; }

snap=testdata/arena.ugcs
db=$out/arena.db
"$ugc" analyze "$snap" -o "$db" -q
# objects the arena heap has, found by SQL rather than written in: the
# largest retainer, a reachable package with inner objects, an alive
# cluster root
big=$("$ugc" sql "$db" "SELECT idx FROM objects WHERE reachable ORDER BY retained DESC, idx LIMIT 1" --format csv | tail -1)
pkg=$("$ugc" sql "$db" "SELECT p.idx FROM objects p JOIN objects o ON o.outer = p.idx WHERE p.class_name = 'Package' AND p.reachable GROUP BY p.idx HAVING count(*) > 1 ORDER BY p.idx LIMIT 1" --format csv | tail -1)
root=$("$ugc" sql "$db" "SELECT root FROM clusters WHERE state = 'alive' ORDER BY members DESC, root LIMIT 1" --format csv | tail -1)
level=$("$ugc" sql "$db" "SELECT idx FROM objects WHERE name = 'PersistentLevel' AND reachable ORDER BY idx LIMIT 1" --format csv | tail -1)
world=$("$ugc" sql "$db" "SELECT path FROM objects WHERE class_name = 'World' AND reachable AND name NOT LIKE 'Default__%' ORDER BY idx LIMIT 1" --format csv | tail -1)
[ -n "$world" ] && [ -n "$big" ] && [ -n "$pkg" ] && [ -n "$root" ] && [ -n "$level" ] && ok "the arena heap has the objects the checks use" ||
	bad "the arena heap has the objects the checks use" "big=$big pkg=$pkg root=$root level=$level"

# each line: COMMAND|ARGS (after INPUT)|CUT (1: --limit 1 cuts a listing)
cat > "$out/commands" <<EOF
top||1
top|--by class|1
top|--by package --sort count|1
info||1
findings||1
clusters||1
clusters|--check|0
clusters|$root|1
suspects|--threshold 1|1
refs|$pkg|1
refs|$level --out|1
path|$big|0
path|$level --roots|0
why|$big|0
dominators|$level --depth 2|1
whatif|--cut $level|1
gccost||1
cut|--world $world|1
worlds||1
EOF
while IFS='|' read -r cmd args cut; do
	for input in "$snap" "$db"; do
		[ "$cmd" = info ] && [ "$input" = "$db" ] && continue # a database's info lists nothing
		what="$cmd $args on $(basename "$input")"
		# shellcheck disable=SC2086 # ARGS is a list of words
		if "$ugc" $cmd "$input" $args --format json > "$out/doc.json" 2> "$out/err" &&
			msg=$("$jc" "$cmd" < "$out/doc.json"); then
			ok "$what: JSON follows the convention"
		else
			bad "$what: JSON follows the convention" "$msg$(head -2 "$out/err")"
		fi
		[ "$cmd" = path ] || [ "$cmd" = why ] && continue # chains: no --limit listing
		# shellcheck disable=SC2086
		"$ugc" $cmd "$input" $args --format json --limit 0 > "$out/all.json" 2> "$out/err"
		if grep -q '"items"' "$out/all.json" && msg=$("$jc" "$cmd" < "$out/all.json") &&
			! "$jc" "$cmd" --cut < "$out/all.json" > /dev/null; then
			ok "$what: --limit 0 shows every item"
		else
			bad "$what: --limit 0 shows every item" "$msg$(head -2 "$out/err")"
		fi
		[ "$cut" = 1 ] || continue
		# shellcheck disable=SC2086
		"$ugc" $cmd "$input" $args --format json --limit 1 > "$out/one.json" 2> "$out/err"
		if msg=$("$jc" "$cmd" --cut < "$out/one.json"); then
			ok "$what: --limit 1 cuts a listing and says so in total and shown"
		else
			bad "$what: --limit 1 cuts a listing and says so in total and shown" "$msg$(head -2 "$out/err")"
		fi
		# shellcheck disable=SC2086
		"$ugc" $cmd "$input" $args --limit 1 > "$out/one.txt" 2> "$out/err"
		# shellcheck disable=SC2086
		"$ugc" $cmd "$input" $args --limit 0 > "$out/all.txt" 2>> "$out/err"
		if grep -q '^ *(*showing 1 of [0-9,]* .*--limit 0 shows all)' "$out/one.txt" && ! grep -q 'showing' "$out/all.txt"; then
			ok "$what: text says 'showing 1 of N' at --limit 1 and nothing at --limit 0"
		else
			bad "$what: text says 'showing 1 of N' at --limit 1 and nothing at --limit 0" \
				"$(grep -c showing "$out/one.txt") / $(grep -c showing "$out/all.txt") $(head -2 "$out/err")"
		fi
	done
done < "$out/commands"

# diff, two ways, from snapshots and from databases
e0=testdata/evolve-0.ugcs
e1=testdata/evolve-1.ugcs
"$ugc" diff "$e0" "$e1" --format json > "$out/diff.json" &&
	msg=$("$jc" diff < "$out/diff.json") && ok "diff: JSON follows the convention" || bad "diff: JSON follows the convention" "$msg"
"$ugc" diff "$e0" "$e1" --format json --limit 1 > "$out/diff1.json" &&
	msg=$("$jc" diff --cut < "$out/diff1.json") && ok "diff --limit 1: its sections are cut listings" ||
	bad "diff --limit 1: its sections are cut listings" "$msg"
for key in class_histogram retained_by_class by_package by_outer garbage_still_alive new_roots \
	new_eliminated_references new_cluster_disagreements; do
	grep -q "\"$key\":{\"total\":[0-9]*,\"shown\":[0-9]*,\"items\":\[" "$out/diff.json" &&
		ok "diff JSON: section $key is a listing" || bad "diff JSON: section $key is a listing"
done
# the histogram's total is every class that changed: counted here from the CSV of all rows
changed=$("$ugc" diff "$e0" "$e1" --format csv --limit 0 | grep -c '^class histogram,')
grep -q "\"class_histogram\":{\"total\":$changed,\"shown\":1," "$out/diff1.json" &&
	ok "diff JSON: the class histogram's total is every class that changed ($changed)" ||
	bad "diff JSON: the class histogram's total is every class that changed ($changed)" "$(grep -o '"class_histogram":{[^[]*' "$out/diff1.json")"

# leak mode, on the UE series and on the V8 one
"$ugc" diff --baseline "$e0" --target "$e1" --final testdata/evolve-2.ugcs --format json > "$out/leak.json" &&
	msg=$("$jc" diff < "$out/leak.json") && ok "leak mode: JSON follows the convention" || bad "leak mode: JSON follows the convention" "$msg"
v=testdata/v8/leak
"$ugc" diff --baseline $v-0.heapsnapshot.zst --target $v-1.heapsnapshot.zst --final $v-2.heapsnapshot.zst --format json --limit 1 > "$out/leak1.json" &&
	msg=$("$jc" diff --cut < "$out/leak1.json") && ok "leak mode on the V8 series, --limit 1: the groups a cut listing" ||
	bad "leak mode on the V8 series, --limit 1: the groups a cut listing" "$msg"

# the one exception: sql prints the query's rows as an array
[ "$("$ugc" sql "$db" 'SELECT 1 AS one' --format json)" = '[{"one":1}]' ] && ok "sql JSON: the rows as an array (the documented exception)" ||
	bad "sql JSON: the rows as an array (the documented exception)"

# the checker itself refuses what it must (else every ok above means nothing)
for bad_doc in '{"format_version":1,"command":"top","rows":{"total":2,"shown":2,"items":[1]}}' \
	'{"format_version":1,"command":"top","rows":{"total":1,"shown":2,"items":[1,2]}}' \
	'{"format_version":1,"command":"top","Bad-Key":1}' \
	'{"format_version":1,"command":"top","rows":{"items":[]}}' \
	'{"format_version":1,"command":"top",}' \
	'{"format_version":1,"command":"tops"}' \
	'{"format_version":2,"command":"top"}' \
	'{"format_version":1,"command":"top"} x'; do
	if printf '%s' "$bad_doc" | "$jc" top > /dev/null; then bad "json-check refuses $bad_doc"; else ok "json-check refuses $bad_doc"; fi
done
printf '%s' '{"format_version":1,"command":"top","rows":{"total":3,"shown":1,"items":[{"a_b":[1,2.5e3,null,true,"x\"\u00e9"]}]}}' |
	"$jc" top --cut && ok "json-check accepts a valid cut listing" || bad "json-check accepts a valid cut listing"

echo "json: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
