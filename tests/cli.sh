#!/bin/sh
# cli.sh — command-line tests: every command on the bundled snapshots, the
# malformed-input corpus, safe output writing, determinism, round trips.
# Usage: tests/cli.sh UGC_ANALYZE OUTDIR.  Prints "ok  NAME" or "FAIL NAME"
# per test and ends with "cli: N passed, N failed".
ugc=$1
out=$2
passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok   $1"; }
bad() { failed=$((failed + 1)); echo "FAIL $1"; [ -n "$2" ] && echo "    $2"; }
check() { name=$1; shift; if "$@" >/dev/null 2>&1; then ok "$name"; else bad "$name" "command failed: $*"; fi; }
sql() { "$ugc" sql "$@" --format csv | tail -n +2; }

# --- help and usage -------------------------------------------------------
check "--version" sh -c "'$ugc' --version | grep -q '^ugc-analyze [0-9]'"
check "--help lists commands" sh -c "'$ugc' --help | grep -q 'analyze' && '$ugc' --help | grep -q 'convert'"
for c in analyze sql info convert gen; do
	check "$c --help" sh -c "'$ugc' $c --help | grep -q '^usage: ugc-analyze $c'"
done
"$ugc" frobnicate >/dev/null 2>&1; [ $? -eq 2 ] && ok "unknown command exits 2" || bad "unknown command exits 2"
"$ugc" info >/dev/null 2>&1; [ $? -eq 2 ] && ok "missing argument exits 2" || bad "missing argument exits 2"
"$ugc" analyze testdata/spec-example.ugct --threads 0 >/dev/null 2>&1; [ $? -eq 2 ] && ok "bad --threads exits 2" || bad "bad --threads exits 2"

# --- malformed inputs: one line naming file and line, non-zero, no output --
for f in testdata/bad/*.ugct; do
	name=$(basename "$f")
	want=$(head -1 "$f" | sed 's/^# expect: //')
	msg=$("$ugc" analyze "$f" -o "$out/bad.db" 2>&1 >/dev/null)
	rc=$?
	lines=$(printf '%s\n' "$msg" | wc -l)
	case "$msg" in
	"ugc-analyze: $f$want"*) [ $rc -ne 0 ] && [ "$lines" -eq 1 ] && [ ! -e "$out/bad.db" ] && ok "bad input $name" && continue ;;
	esac
	bad "bad input $name" "rc=$rc, got: $msg | want: $f$want"
done
ls "$out" | grep -q '\.tmp\.' && bad "no temporary files left behind" || ok "no temporary files left behind"

# --- binary corruption through the command line -----------------------------
"$ugc" convert testdata/spec-example.ugct "$out/spec.ugcs" >/dev/null 2>&1
size=$(wc -c < "$out/spec.ugcs")
head -c $((size - 7)) "$out/spec.ugcs" > "$out/truncated.ugcs"
msg=$("$ugc" info "$out/truncated.ugcs" 2>&1)
case "$msg" in "ugc-analyze: $out/truncated.ugcs: offset "*) ok "truncated binary names an offset" ;; *) bad "truncated binary names an offset" "$msg" ;; esac
cp "$out/spec.ugcs" "$out/flipped.ugcs"
printf '\377' | dd of="$out/flipped.ugcs" bs=1 seek=$((size - 20)) conv=notrunc 2>/dev/null
msg=$("$ugc" info "$out/flipped.ugcs" 2>&1)
case "$msg" in "ugc-analyze: $out/flipped.ugcs: offset "*"corrupt"*) ok "flipped byte is detected" ;; *) bad "flipped byte is detected" "$msg" ;; esac

# --- info and convert on every good snapshot --------------------------------
for f in testdata/*.ugct testdata/*.ugcs testdata/*.zst; do
	name=$(basename "$f")
	if ! "$ugc" info "$f" > "$out/info.txt" 2>&1 || ! grep -q '^objects ' "$out/info.txt"; then
		bad "info $name" "$(head -3 "$out/info.txt")"
		continue
	fi
	objects=$(sed -n 's/^objects  *\([0-9]*\).*/\1/p' "$out/info.txt")
	"$ugc" info "$f" --format json > "$out/info.json" 2>&1
	grep -q "\"objects\":$objects," "$out/info.json" && ok "info $name (text and json agree: $objects objects)" || bad "info json $name"
	# text -> binary -> text and text -> zstd text -> text give the canonical text
	base="$out/rt-$name"
	"$ugc" convert "$f" "$base.canon.ugct" && "$ugc" convert "$f" "$base.ugcs" && "$ugc" convert "$base.ugcs" "$base.back.ugct" &&
		"$ugc" convert "$base.canon.ugct" "$base.ugct.zst" && "$ugc" convert "$base.ugct.zst" "$base.zback.ugct"
	if cmp -s "$base.canon.ugct" "$base.back.ugct" && cmp -s "$base.canon.ugct" "$base.zback.ugct"; then
		ok "round trip $name"
	else
		bad "round trip $name"
	fi
done
# zstd is detected by content, not by name
cp "$out/rt-spec-example.ugct.ugct.zst" "$out/disguised.ugct"
check "zstd detected by magic, not extension" "$ugc" info "$out/disguised.ugct"

# --- existing outputs are not overwritten without --force -------------------
echo keep > "$out/exists.ugcs"
"$ugc" convert testdata/spec-example.ugct "$out/exists.ugcs" >/dev/null 2>&1
rc=$?
[ $rc -ne 0 ] && [ "$(cat "$out/exists.ugcs")" = keep ] && ok "convert refuses to overwrite" || bad "convert refuses to overwrite"
check "convert --force overwrites" sh -c "'$ugc' convert testdata/spec-example.ugct '$out/exists.ugcs' --force && '$ugc' info '$out/exists.ugcs'"
echo keep > "$out/exists.db"
"$ugc" analyze testdata/spec-example.ugct -o "$out/exists.db" -q >/dev/null 2>&1
[ $? -ne 0 ] && [ "$(cat "$out/exists.db")" = keep ] && ok "analyze refuses to overwrite" || bad "analyze refuses to overwrite"

# --- analyze: the spec's example, stored under the contract ----------------
cp testdata/spec-example.ugct "$out/arena.ugct"
"$ugc" analyze "$out/arena.ugct" -q --after "$out/arena-after.ugct" >/dev/null 2>&1
[ -f "$out/arena.db" ] && ok "default database name beside the snapshot" || bad "default database name beside the snapshot"
db="$out/arena.db"
[ "$(sql "$db" "SELECT src, dst, property FROM eliminated_refs")" = "13,12,TargetPickup" ] && ok "eliminated TargetPickup" || bad "eliminated TargetPickup"
[ "$(sql "$db" "SELECT src, dst, property FROM cleared_weak_refs")" = "13,14,LastSeen" ] && ok "cleared LastSeen" || bad "cleared LastSeen"
[ "$(sql "$db" "SELECT group_concat(idx, ' ') FROM purge")" = "12 14" ] && ok "purged Pickup_1 and Enemy_2" || bad "purged Pickup_1 and Enemy_2"
[ "$(sql "$db" "SELECT state, reason FROM clusters")" = "dissolved,garbage-mutable" ] && ok "cluster dissolved for its garbage mutable" || bad "cluster reason"
[ "$(sql "$db" "SELECT path, root_kind, distance FROM objects WHERE idx = 13")" = "/Game/Maps/Arena.Arena:Enemy_1,gcobject,0" ] && ok "Enemy_1 path and root kind" || bad "Enemy_1 path and root kind"
[ "$(sql "$db" "SELECT kind, property FROM refs WHERE dst = 14")" = "weak,LastSeen" ] && ok "refs view" || bad "refs view"
[ "$(sql "$db" "SELECT referencer, dst FROM gc_object_refs")" = "FStreamableManager,13" ] && ok "gc_object_refs" || bad "gc_object_refs"
[ "$(sql "$db" "SELECT value FROM snapshot WHERE key = 'engine'")" = "5.5.4" ] && ok "snapshot header stored" || bad "snapshot header stored"
plan=$("$ugc" sql "$db" "EXPLAIN QUERY PLAN SELECT * FROM refs WHERE dst = 5" 2>&1)
case "$plan" in *"USING INDEX ref_table_dst"*) ok "refs by dst uses an index" ;; *) bad "refs by dst uses an index" "$plan" ;; esac
check "after-GC heap has no purged objects" sh -c "'$ugc' info '$out/arena-after.ugct' | grep -q '^objects  *8 '"
"$ugc" sql "$db" "DELETE FROM objects" >/dev/null 2>&1
[ $? -ne 0 ] && [ "$(sql "$db" "SELECT count(*) FROM objects")" = 10 ] && ok "sql is read-only" || bad "sql is read-only"
json=$("$ugc" sql "$db" "SELECT idx, name FROM objects WHERE idx IN (12, 13) ORDER BY idx" --format json)
[ "$json" = '[{"idx":12,"name":"Pickup_1"},
{"idx":13,"name":"Enemy_1"}]' ] && ok "sql --format json" || bad "sql --format json" "$json"
[ "$(echo "SELECT count(*) FROM purge;" | "$ugc" sql "$db" --format csv | tail -1)" = 2 ] && ok "sql reads stdin" || bad "sql reads stdin"

# --- modes and keep flags from the command line -----------------------------
"$ugc" analyze testdata/gen-1000-editor.ugct -o "$out/ed.db" -q >/dev/null 2>&1
"$ugc" analyze testdata/gen-1000-editor.ugct -o "$out/game.db" --mode game -q >/dev/null 2>&1
e=$(sql "$out/ed.db" "SELECT count(*) FROM purge")
g=$(sql "$out/game.db" "SELECT count(*) FROM purge")
[ -n "$e" ] && [ -n "$g" ] && [ "$e" -lt "$g" ] && ok "editor mode keeps RF_Standalone ($e < $g purged)" || bad "editor mode keeps RF_Standalone" "$e vs $g"
"$ugc" analyze testdata/gen-1000-editor.ugct -o "$out/kf.db" --keep-flags - -q >/dev/null 2>&1
[ "$(sql "$out/kf.db" "SELECT count(*) FROM purge")" = "$g" ] && ok "--keep-flags - overrides the mode" || bad "--keep-flags - overrides the mode"

# --- threads do not change the answer ----------------------------------------
for t in 1 2; do
	"$ugc" analyze testdata/arena.ugcs -o "$out/t$t.db" --threads $t -q >/dev/null 2>&1
	"$ugc" sql "$out/t$t.db" "SELECT * FROM purge; SELECT * FROM eliminated_refs; SELECT * FROM cleared_weak_refs;
		SELECT * FROM clusters; SELECT idx, reachable, root_kind, distance, parent FROM objects; SELECT * FROM findings" > "$out/t$t.txt"
done
[ -s "$out/t1.txt" ] && cmp -s "$out/t1.txt" "$out/t2.txt" && ok "--threads 1 and 2 store the same results" || bad "--threads 1 and 2 store the same results"

# --- the generator is deterministic ------------------------------------------
"$ugc" gen --objects 2000 --seed 7 --broken-clusters 20 -o "$out/g1.ugct" >/dev/null 2>&1
"$ugc" convert testdata/gen-2000-broken.ugct.zst "$out/g0.ugct" >/dev/null 2>&1
cmp -s "$out/g1.ugct" "$out/g0.ugct" && ok "gen reproduces the bundled heap byte for byte" || bad "gen reproduces the bundled heap"
"$ugc" gen --objects 2000 --seed 8 --broken-clusters 20 -o "$out/g2.ugct" >/dev/null 2>&1
cmp -s "$out/g1.ugct" "$out/g2.ugct" && bad "another seed gives another heap" || ok "another seed gives another heap"
"$ugc" gen --objects 5 -o "$out/x.txt" >/dev/null 2>&1; [ $? -eq 2 ] && ok "gen refuses an unknown format" || bad "gen refuses an unknown format"

echo "cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
