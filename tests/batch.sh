#!/bin/sh
# batch.sh — tests of tools/batch-analyze.sh (the fleet case): a folder of
# three tiny snapshots, one already analyzed (its database must not be
# touched), one corrupt (FAILED, no database left, exit 1), one analyzed
# (its database answers as one `analyze` run by hand does); then the rerun
# skips what is done (exit 0), a snapshot newer than its database is redone,
# --mem caps the jobs at once, -o puts the databases elsewhere, a usage
# error exits 2, and cross-snapshot SQL with ATTACH (the sqlite3 shell, as
# the README shows it, when it is installed) agrees with the two databases
# queried one at a time.  Fast: 2,000-object heaps.
# Usage: tests/batch.sh UGC_ANALYZE OUTDIR.  Ends with "fleet: N passed, N failed".
ugc=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
out=$2/fleet
rm -rf "$out"
mkdir -p "$out/in"
passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok   $1"; }
bad() { failed=$((failed + 1)); echo "FAIL $1"; [ -n "$2" ] && echo "    $2"; }
# batch NAME ARGS...: run the script, output in $out/NAME.out, status in $rc
batch() {
	name=$1
	shift
	UGC_ANALYZE=$ugc sh tools/batch-analyze.sh "$@" > "$out/$name.out" 2>&1
	rc=$?
}
# has NAME TEXT: a line of NAME's output is TEXT
has() { grep -qxF -- "$2" "$out/$1.out" && ok "$1: '$2'" || bad "$1: '$2'" "$(cat "$out/$1.out")"; }
count() { "$ugc" sql "$1" "SELECT count(*) FROM objects" --format csv | tail -n 1; }
in=$out/in

"$ugc" gen --objects 2000 --seed 1 -o "$in/a.ugcs" > /dev/null || bad "gen a"
"$ugc" gen --objects 2000 --seed 2 -o "$in/b.ugct" > /dev/null || bad "gen b"
"$ugc" analyze "$in/b.ugct" -o "$in/b.db" -q || bad "analyze b"
head -c 3000 "$in/a.ugcs" > "$in/c.ugcs" # cut short: corrupt
printf 'not a snapshot\n' > "$in/notes.txt" # not a snapshot's name: ignored
b_sum=$(cksum < "$in/b.db")
"$ugc" analyze "$in/a.ugcs" -o "$out/a-by-hand.db" -q || bad "analyze a by hand"

batch first "$in" -j 2
[ "$rc" = 1 ] && ok "first: exit 1 (one failed)" || bad "first: exit $rc, want 1" "$(cat "$out/first.out")"
has first "batch: 3 snapshots: 1 analyzed, 1 skipped (already analyzed), 1 failed"
has first "skipped  $in/b.ugct: $in/b.db exists"
grep -q "^analyzed $in/a.ugcs -> $in/a.db: [0-9]* s$" "$out/first.out" && ok "first: a analyzed" ||
	bad "first: a analyzed" "$(cat "$out/first.out")"
grep -q "^FAILED   $in/c.ugcs: ugc-analyze: .*c.ugcs" "$out/first.out" && ok "first: c FAILED with analyze's error" ||
	bad "first: c FAILED with analyze's error" "$(cat "$out/first.out")"
[ "$(cksum < "$in/b.db")" = "$b_sum" ] && ok "first: b.db untouched" || bad "first: b.db untouched"
[ ! -e "$in/c.db" ] && ok "first: no database for the corrupt one" || bad "first: no database for the corrupt one"
[ "$(ls "$in" | grep -cv -e '\.ugc[st]$' -e '\.db$' -e '^notes.txt$')" = 0 ] && ok "first: no temporary files left" ||
	bad "first: no temporary files left" "$(ls "$in")"
[ -n "$(count "$out/a-by-hand.db")" ] && [ "$(count "$in/a.db")" = "$(count "$out/a-by-hand.db")" ] &&
	ok "first: a.db has the objects analyze by hand writes ($(count "$in/a.db"))" || bad "first: a.db's objects"

rm "$in/c.ugcs"
a_sum=$(cksum < "$in/a.db")
batch rerun "$in"
[ "$rc" = 0 ] && ok "rerun: exit 0" || bad "rerun: exit $rc, want 0" "$(cat "$out/rerun.out")"
has rerun "batch: 2 snapshots: 0 analyzed, 2 skipped (already analyzed), 0 failed"
[ "$(cksum < "$in/a.db")" = "$a_sum" ] && ok "rerun: a.db untouched" || bad "rerun: a.db untouched"

# a snapshot rewritten after its database: redone (with --force)
sleep 1
"$ugc" gen --objects 3000 --seed 1 -o "$in/a.ugcs" --force > /dev/null
batch newer "$in" --mem 0.1
[ "$rc" = 0 ] && ok "newer: exit 0" || bad "newer: exit $rc, want 0" "$(cat "$out/newer.out")"
has newer "batch: 2 snapshots: 1 analyzed, 1 skipped (already analyzed), 0 failed"
[ "$(count "$in/a.db")" -gt "$(count "$out/a-by-hand.db")" ] && ok "newer: a.db is the 3,000-object heap's" ||
	bad "newer: a.db is the 3,000-object heap's"
# --mem 0.1 GiB: 102 MiB holds one job of the 64 MiB a tiny input is estimated at
grep -q "^batch: 1 to analyze, 1 at a time (-j [0-9]*, 102 MiB " "$out/newer.out" && ok "newer: --mem caps the jobs" ||
	bad "newer: --mem caps the jobs" "$(cat "$out/newer.out")"

batch outdir "$in" -o "$out/dbs" -j 2 -- --threads 1
has outdir "batch: 2 snapshots: 2 analyzed, 0 skipped (already analyzed), 0 failed"
[ -f "$out/dbs/a.db" ] && [ -f "$out/dbs/b.db" ] && ok "outdir: databases in -o" || bad "outdir: databases in -o" "$(ls "$out/dbs")"

batch usage "$in" -j x
[ "$rc" = 2 ] && ok "usage: -j x exits 2" || bad "usage: -j x exits $rc"
batch usage2 "$out/no-such-dir"
[ "$rc" = 2 ] && ok "usage: a missing folder exits 2" || bad "usage: a missing folder exits $rc"

# cross-snapshot SQL: the README's ATTACH example
if command -v sqlite3 > /dev/null; then
	want=$(($(count "$in/a.db") - $(count "$in/b.db")))
	got=$(sqlite3 -readonly "$in/a.db" "ATTACH '$in/b.db' AS b" \
		"SELECT (SELECT count(*) FROM main.objects) - (SELECT count(*) FROM b.objects)")
	[ "$got" = "$want" ] && ok "ATTACH: a.db minus b.db objects = $want" || bad "ATTACH: got '$got', want $want"
else
	echo "skip ATTACH: no sqlite3 shell"
fi

echo "fleet: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
