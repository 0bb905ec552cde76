#!/bin/sh
# attacks.sh — the structured attacks of the hostile-input issue, each built
# here in its output folder, and the answer each must get: the right result,
# or one line naming the file and exit status 1 (2 for a usage error), in
# bounded time (every run under `timeout 20`), with no signal, no sanitizer
# report and no temporary output left (no OUT.tmp.PID).
# Usage: tests/attacks.sh UGC_ANALYZE OUTDIR ATTACK_DB, where ATTACK_DB is
# tests/attack_db.c built (the Makefile's $(BUILD)/attack-db): it writes the
# hostile databases, which the tool's own sql command (read-only) cannot.
# Prints "ok   NAME" or "FAIL NAME" per test and ends with
# "attacks: N passed, N failed".
ugc=$1
out=$2/attacks
adb=$3
rm -rf "$out"
mkdir -p "$out"
passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok   $1"; }
bad() { failed=$((failed + 1)); echo "FAIL $1"; [ -n "$2" ] && echo "    $2"; }
# check NAME CONDITION...: ok when the test command CONDITION succeeds
check() {
	name=$1
	shift
	if "$@"; then ok "$name"; else bad "$name" "rc=$rc: $(head -3 "$out/stderr")"; fi
}
# verdict NAME STATUS: ok when STATUS (of a compound condition) is 0
verdict() {
	if [ "$2" -eq 0 ]; then ok "$1"; else bad "$1" "rc=$rc: $(head -3 "$out/stderr")"; fi
}

# run COMMAND...: run it under timeout 20; status in $rc, output in
# $out/stdout and $out/stderr
run() {
	timeout 20 "$@" > "$out/stdout" 2> "$out/stderr"
	rc=$?
}

# one_line WANT: stderr is exactly one line, and it holds WANT
one_line() {
	[ "$(wc -l < "$out/stderr")" -eq 1 ] && grep -qF -- "$1" "$out/stderr"
}

# refused NAME WANT COMMAND...: COMMAND exits 1 with one line holding WANT
refused() {
	name=$1 want=$2
	shift 2
	run "$@"
	if [ $rc -eq 1 ] && one_line "$want"; then
		ok "$name"
	else
		bad "$name" "rc=$rc (want 1 and one line with '$want'): $(head -3 "$out/stderr")"
	fi
}

# no_tmp DIR: no temporary output (NAME.tmp.PID) is left in DIR
no_tmp() {
	[ -z "$(ls "$1" | grep '\.tmp\.[0-9]*$')" ]
}

if [ ! -x "$adb" ]; then
	bad "the database builder $adb is there (make builds it)"
	echo "attacks: $passed passed, $failed failed"
	exit 1
fi
"$ugc" analyze testdata/chains.ugct -o "$out/base.db" -q || bad "analyze testdata/chains.ugct"

# --- item 1: a database's FTS3 table and fts3_tokenizer ---------------------
# Anyone may add an FTS3 table to a .db; fts3_tokenizer with a pointer, then a
# MATCH, jumped to 0x4141414141414141; with one argument it printed a code
# address.  Only the tool's chosen functions run: one line, exit 1.
cp "$out/base.db" "$out/fts.db"
"$adb" "$out/fts.db" "CREATE VIRTUAL TABLE ft USING fts3(body); INSERT INTO ft VALUES('hello world')" ||
	bad "building fts.db"
refused "sql: fts3_tokenizer with a pointer, then MATCH: refused, no crash" "fts.db: not authorized to use function: fts3_tokenizer" \
	"$ugc" sql "$out/fts.db" "select fts3_tokenizer('simple', x'4141414141414141'); select * from ft where ft match 'hello'"
refused "sql: fts3_tokenizer('simple') is refused" "fts3_tokenizer" "$ugc" sql "$out/fts.db" "select fts3_tokenizer('simple')"
check "sql: ... and prints no code address" [ ! -s "$out/stdout" ]
refused "sql: load_extension stays refused" "fts.db: not authorized" \
	"$ugc" sql "$out/fts.db" "select load_extension('libc.so.6')"
refused "sql: ATTACH of another file is refused" "fts.db: not authorized" \
	"$ugc" sql "$out/fts.db" "attach '$out/base.db' as other; select count(*) from other.object_table"
# sql on a snapshot: its in-memory database allows what a file's does
refused "sql on a snapshot: fts3_tokenizer('simple') is refused" "chains.ugct: not authorized to use function: fts3_tokenizer" \
	"$ugc" sql testdata/chains.ugct "select fts3_tokenizer('simple')"
check "sql on a snapshot: ... and prints no code address" [ ! -s "$out/stdout" ]
refused "sql on a snapshot: ATTACH is refused" "chains.ugct: not authorized" \
	"$ugc" sql testdata/chains.ugct "attach '$out/base.db' as other"
run "$ugc" sql "$out/fts.db" "select body from ft where ft match 'hello'; select count(*) from objects"
check "sql: the FTS table still answers MATCH, the objects view still counts 13" \
	[ $rc -eq 0 -a "$(sed -n 3p "$out/stdout")" = "hello world" -a "$(sed -n 6p "$out/stdout")" = 13 ]

# --- item 7: a database's own view text ---------------------------------------
# An objects view redefined as an endless recursive CTE ran until
# interrupted (its ORDER BY growing a temporary file); a table replaced by
# such a view likewise.  The tool's schema text is the only one run.
cp "$out/base.db" "$out/view.db"
"$adb" "$out/view.db" "DROP VIEW objects; CREATE VIEW objects AS WITH RECURSIVE r(idx, name) AS
	(SELECT 0, 'a' UNION ALL SELECT idx + 1, name FROM r) SELECT idx, name FROM r" || bad "building view.db"
refused "sql: an objects view the file redefined is refused, not run" "view.db: view objects: its definition in the file is not the one ugc-analyze writes" \
	"$ugc" sql "$out/view.db" "select idx from objects order by name limit 1"
cp "$out/base.db" "$out/table.db"
"$adb" "$out/table.db" "ALTER TABLE object_table RENAME TO old; CREATE VIEW object_table AS WITH RECURSIVE r(idx) AS
	(SELECT 0 UNION ALL SELECT idx + 1 FROM r) SELECT idx, 0 AS serial, 0 AS class, NULL AS outer, 'x' AS name,
	'y' AS class_name, 1 AS size, '' AS flags, NULL AS cluster, 0 AS garbage, 1 AS reachable, NULL AS root_kind,
	0 AS distance, NULL AS parent, NULL AS parent_property, 0 AS path_hash, NULL AS idom, 0 AS retained FROM r" ||
	bad "building table.db"
refused "sql: object_table replaced by an endless view is refused" "table.db: table object_table: its definition" \
	"$ugc" sql "$out/table.db" "select count(*) from objects"
refused "whatif: object_table replaced by an endless view is refused" "table.db: table object_table: its definition" \
	"$ugc" whatif "$out/table.db" --cut 11
refused "info: object_table replaced by an endless view is refused" "table.db: table object_table: its definition" \
	"$ugc" info "$out/table.db"
refused "refs: object_table replaced by an endless view is refused" "table.db: table object_table: its definition" \
	"$ugc" refs "$out/table.db" 1
# the same views in a file that renamed its snapshot table, or made it a
# view, so as to pass for a foreign database (found by fuzz_db): a file that
# uses any of the tool's names is held to the tool's schema, and a snapshot
# that is not a table is never read
cp "$out/base.db" "$out/renamed.db"
"$adb" "$out/renamed.db" "ALTER TABLE snapshot RENAME TO s; DROP VIEW objects; CREATE VIEW objects AS WITH RECURSIVE
	r(idx, name) AS (SELECT 0, 'a' UNION ALL SELECT idx + 1, name FROM r) SELECT idx, name FROM r" ||
	bad "building renamed.db"
refused "sql: a file that renamed its snapshot table has its own objects view refused, not run" \
	"renamed.db: an SQLite database without the table snapshot" \
	"$ugc" sql "$out/renamed.db" "select idx from objects order by name limit 40"
cp "$out/base.db" "$out/snapview.db"
"$adb" "$out/snapview.db" "ALTER TABLE snapshot RENAME TO s; CREATE VIEW snapshot(key, value) AS WITH RECURSIVE
	r(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM r) SELECT 'schema_version', k FROM r WHERE k < 0" ||
	bad "building snapview.db"
for cmd in sql refs; do
	if [ $cmd = sql ]; then set -- "$ugc" sql "$out/snapview.db" "select * from snapshot"; else set -- "$ugc" refs "$out/snapview.db" 1; fi
	refused "$cmd: a snapshot that is a view is refused, never read" "snapview.db: snapshot is not a table" "$@"
done
# the mark's stored work (gc_cost tables): damaged rows are named, never printed
for edit in "UPDATE gc_cost SET visits = -5" "UPDATE gc_cost SET list_visits = list_visits + 1" \
	    "INSERT INTO gc_cost SELECT * FROM gc_cost" "UPDATE gc_cost_by_class SET traced = 'many'" \
	    "UPDATE gc_cost_by_package SET package = -package - 1" "UPDATE gc_cost_candidates SET as_cluster = visits + 1" \
	    "UPDATE gc_cost SET visits = 0, trace_visits = 9223372036854775807, list_visits = 9223372036854775807, record_visits = 2" \
	    "UPDATE gc_cost_by_class SET visits = 9223372036854775807"; do
	cp "$out/base.db" "$out/gccost.db"
	"$adb" "$out/gccost.db" "$edit" || bad "building gccost.db: $edit"
	run "$ugc" gccost "$out/gccost.db"
	[ $rc -eq 1 ] && one_line "gccost.db: table gc_cost"
	verdict "gccost: a database whose stored work is damaged ($edit) is refused in one line" $?
done
# report on a database whose one index lies far past its objects: refused
# at once, as every reader refuses it (it sized its columns by the index:
# 16 GB and a minute before the error)
cp "$out/base.db" "$out/far.db"
"$adb" "$out/far.db" "UPDATE object_table SET idx = 2147483000 WHERE idx = 15" || bad "building far.db"
run "$ugc" report "$out/far.db" -o "$out/far.html"
[ $rc -eq 1 ] && one_line "far.db" && [ ! -e "$out/far.html" ]
verdict "report: a database with an index far past its objects is refused in one line, nothing written" $?
# leak mode over one database thrice: no new object, so no group (its empty
# list was sorted at a null pointer, which clang's UBSan reports)
run "$ugc" diff --baseline "$out/base.db" --target "$out/base.db" --final "$out/base.db"
[ $rc -eq 0 ] && ! grep -q 'runtime error' "$out/stderr"
verdict "diff leak mode with nothing new answers, no undefined behaviour" $?
run "$ugc" sql "$out/base.db" "select count(*) from objects where reachable = 1"
check "sql: the database as analyze wrote it still answers" [ $rc -eq 0 -a "$(sed -n 3p "$out/stdout")" = 13 ]

# --- a hot journal: a writer that died mid-write ----------------------------
# It said "attempt to write a readonly database: not an analysis database".
cp "$out/base.db" "$out/hot.db"
"$adb" --crash "$out/hot.db" "PRAGMA cache_size=1; BEGIN; UPDATE object_table SET name = name || 'x';
	UPDATE strings SET text = text || 'y'"
if [ -s "$out/hot.db-journal" ]; then
	want="hot.db: a write to it was left unfinished"
	refused "sql on a database left mid-write says so" "$want" "$ugc" sql "$out/hot.db" "select count(*) from objects"
	refused "refs on a database left mid-write says so" "$want" "$ugc" refs "$out/hot.db" 11
	refused "whatif on a database left mid-write says so" "$want" "$ugc" whatif "$out/hot.db" --cut 11
	check "... and leaves the journal as it was" [ -s "$out/hot.db-journal" ]
else
	bad "building hot.db: no hot journal"
fi

# --- item 4: a FIFO -------------------------------------------------------------
# Every command hung in open(2), info in its test for a database.
mkfifo "$out/fifo.ugct"
fifo="fifo.ugct: not a regular file (a FIFO)"
refused "info on a FIFO" "$fifo" "$ugc" info "$out/fifo.ugct"
refused "analyze on a FIFO" "$fifo" "$ugc" analyze "$out/fifo.ugct"
refused "sql on a FIFO" "$fifo" "$ugc" sql "$out/fifo.ugct" "select 1"
for cmd in refs path why dominators; do
	refused "$cmd on a FIFO" "$fifo" "$ugc" $cmd "$out/fifo.ugct" 1
done
for cmd in clusters findings top suspects; do
	refused "$cmd on a FIFO" "$fifo" "$ugc" $cmd "$out/fifo.ugct"
done
refused "whatif on a FIFO" "$fifo" "$ugc" whatif "$out/fifo.ugct" --cut 1
refused "convert from a FIFO" "$fifo" "$ugc" convert "$out/fifo.ugct" "$out/fifo-out.ugcs"
refused "diff with a FIFO first" "$fifo" "$ugc" diff "$out/fifo.ugct" testdata/chains.ugct
refused "diff with a FIFO second" "$fifo" "$ugc" diff testdata/chains.ugct "$out/fifo.ugct"
check "no output is left by analyze on a FIFO" [ ! -e "$out/fifo.db" ]

# --- item 6: a file-size limit (ulimit -f) ------------------------------------
# The writers died of SIGXFSZ (exit 153, no message) and left OUT.tmp.PID.
# 64 blocks (32 or 64 KiB, as the shell counts them) is less than any of
# these outputs.
mkdir -p "$out/fsize"
f=$out/fsize
"$ugc" gen --objects 5000 --seed 3 -o "$f/in.ugcs" >/dev/null 2>&1 || bad "gen in.ugcs"
# the limit is set in a shell of its own that becomes the command
limited="ulimit -f 64 && exec \"\$@\""
for ext in ugct ugcs ugct.zst; do
	refused "gen -o .$ext over a file-size limit: one line naming the file" "gen.$ext: file too large (a file-size limit)" \
		sh -c "$limited" limited "$ugc" gen --objects 5000 -o "$f/gen.$ext"
done
refused "convert over a file-size limit" "conv.ugct: file too large (a file-size limit)" \
	sh -c "$limited" limited "$ugc" convert "$f/in.ugcs" "$f/conv.ugct"
# the database is begun as soon as the heap is loaded (its schema, then the
# references beside the analysis): over the limit it is the first output
# stopped; through SQL (UGC_STORE=sql) it is begun after --after's file
refused "analyze --after over a file-size limit" "after.ugct: file too large (a file-size limit)" \
	sh -c "UGC_STORE=sql; export UGC_STORE; $limited" limited "$ugc" analyze "$f/in.ugcs" -o "$f/an.db" --after "$f/after.ugct" -q
refused "analyze --after over a file-size limit: the database begun first is named" "an.db: " \
	sh -c "$limited" limited "$ugc" analyze "$f/in.ugcs" -o "$f/an.db" --after "$f/after.ugct" -q
# SQLite's own error names no file: the store names it (with the cause
# when SQLite kept the errno, which a short write does not)
refused "analyze -o over a file-size limit: one line naming the database" "an.db: " \
	sh -c "$limited" limited "$ugc" analyze "$f/in.ugcs" -o "$f/an.db" -q
refused "analyze -o (sql) over a file-size limit names the file and the limit" "an.db: file too large (a file-size limit)" \
	sh -c "UGC_STORE=sql; export UGC_STORE; $limited" limited "$ugc" analyze "$f/in.ugcs" -o "$f/an.db" -q
refused "diff -o over a file-size limit" "diff.db: " \
	sh -c "$limited" limited "$ugc" diff testdata/evolve-0.ugcs testdata/evolve-1.ugcs -o "$f/diff.db"
check "no output and no temporary file left over the file-size limit" \
	[ -z "$(ls "$f" | grep -v '^in\.ugcs$')" ]

# --- item 8: a dangling symbolic link as output -------------------------------
# It passed the up-front check, and the finished run failed with "appeared
# while it was being written (another run?)".  Without --force it is refused
# before the work; with --force the link itself is replaced, never written
# through (its target is not created).
mkdir -p "$out/link"
ln -s nowhere/x.db "$out/link/dangling.db"
refused "analyze -o DANGLING-LINK is refused before the work" "dangling.db: already exists (a symbolic link to nowhere/x.db, which does not exist" \
	"$ugc" analyze testdata/chains.ugct -o "$out/link/dangling.db" -q
check "... and the link is left as it was" [ -L "$out/link/dangling.db" -a ! -e "$out/link/nowhere" ]
run "$ugc" analyze testdata/chains.ugct -o "$out/link/dangling.db" -q --force
check "analyze -o DANGLING-LINK --force replaces the link, not its target" \
	[ $rc -eq 0 -a -f "$out/link/dangling.db" -a ! -L "$out/link/dangling.db" -a ! -e "$out/link/nowhere" ]
cp testdata/chains.ugct "$out/link/target.ugct"
ln -s target.ugct "$out/link/alias.ugct"
refused "convert to a link to a file is refused without --force" "alias.ugct: already exists (a symbolic link to target.ugct;" \
	"$ugc" convert testdata/spec-example.ugct "$out/link/alias.ugct"
run "$ugc" convert testdata/spec-example.ugct "$out/link/alias.ugct" --force
[ $rc -eq 0 -a ! -L "$out/link/alias.ugct" ] && cmp -s "$out/link/target.ugct" testdata/chains.ugct
verdict "convert --force onto a link replaces the link; the file it pointed to is unchanged" $?
check "no temporary file left beside the links" no_tmp "$out/link"

# --- item 9: a zstd file that starts with a skippable frame -------------------
# zstd -d skips such a frame; the tool read the file as text ("NUL byte in
# text").  Built from a .ugct.zst the tool wrote, with a skippable frame of
# magic 0x184D2A50 (then 0x184D2A5F) and 4 bytes in front.
"$ugc" convert testdata/chains.ugct "$out/plain.ugct.zst" || bad "convert to plain.ugct.zst"
"$ugc" convert testdata/chains.ugct "$out/canonical.ugct" || bad "convert to canonical.ugct"
for magic in 50 5F; do
	case $magic in 50) first='\120' ;; 5F) first='\137' ;; esac
	{ printf "$first"'\052\115\030\004\000\000\000ABCD'; cat "$out/plain.ugct.zst"; } > "$out/skip.ugct.zst"
	rm -f "$out/skip.ugct"
	run "$ugc" convert "$out/skip.ugct.zst" "$out/skip.ugct"
	[ $rc -eq 0 ] && cmp -s "$out/skip.ugct" "$out/canonical.ugct"
	verdict "a .zst starting with a skippable frame (magic 0x184D2A$magic) reads as the text it holds" $?
done
run "$ugc" analyze "$out/skip.ugct.zst" -o "$out/skip.db" -q
check "analyze reads it too" [ $rc -eq 0 -a -s "$out/skip.db" ]

# --- item 11: whatif --null with an empty property ----------------------------
# It printed "--null 0.: " and no reason.
run "$ugc" whatif testdata/chains.ugct --null '0.'
[ $rc -eq 2 ] && one_line "not '0.': no PROPERTY after the '.'"
verdict "whatif --null '0.' gives the reason (usage error, exit 2)" $?

# --- an output that is its own input ------------------------------------------
# analyze x.ugct -o x.ugct --force overwrote its input.
mkdir -p "$out/same"
cp testdata/chains.ugct "$out/same/x.ugct"
refused "analyze -o INPUT --force is refused" "x.ugct: is the input" \
	"$ugc" analyze "$out/same/x.ugct" -o "$out/same/x.ugct" --force -q
refused "analyze --after INPUT --force is refused" "x.ugct: is the input" \
	"$ugc" analyze "$out/same/x.ugct" -o "$out/same/x.db" --after "$out/same/x.ugct" --force -q
refused "convert IN IN --force is refused" "x.ugct: is the input" \
	"$ugc" convert "$out/same/x.ugct" "$out/same/x.ugct" --force
ln "$out/same/x.ugct" "$out/same/hard.ugct"
refused "convert IN HARD-LINK-TO-IN --force is refused" "hard.ugct: is the input" \
	"$ugc" convert "$out/same/x.ugct" "$out/same/hard.ugct" --force
cmp -s "$out/same/x.ugct" testdata/chains.ugct && [ "$(ls "$out/same" | tr '\n' ' ')" = "hard.ugct x.ugct " ]
verdict "the input is unchanged and nothing else was written" $?
"$ugc" analyze "$out/same/x.ugct" -o "$out/same/a.db" -q && cp "$out/same/a.db" "$out/same/a0.db"
refused "diff A B -o B --force is refused" "a.db: is the input" \
	"$ugc" diff "$out/same/x.ugct" "$out/same/a.db" -o "$out/same/a.db" --force
cmp -s "$out/same/a.db" "$out/same/a0.db"
verdict "diff's side is unchanged" $?

# --- item 5: the tool's own database with a dangling reference past the end --
# A snapshot whose reference names slot 5 of 2 analyses fine; the queries
# on its database failed ("other is 5, not an object index (slots 2)").
mkdir -p "$out/own"
printf 'ugc-text 1\no 0 1 0 - /Script/CoreUObject 100 RF_Public\no 1 2 0 0 Class 100 RF_Public\nr 1 5 strong Stale\n' \
	> "$out/own/dang.ugct"
"$ugc" analyze "$out/own/dang.ugct" -o "$out/own/dang.db" -q >/dev/null 2>&1 || bad "analyze dang.ugct"
for q in "findings --format json" "why --format json 1" "suspects --format json" "clusters --check --format json"; do
	# shellcheck disable=SC2086
	run "$ugc" ${q%% *} "$out/own/dang.db" ${q#* }
	cp "$out/stdout" "$out/own/db.out"
	rcdb=$rc
	# shellcheck disable=SC2086
	run "$ugc" ${q%% *} "$out/own/dang.ugct" ${q#* }
	[ $rcdb -eq 0 ] && [ $rc -eq 0 ] && cmp -s "$out/stdout" "$out/own/db.out"
	verdict "${q%% *} on the database of a snapshot with a dangling reference past the end answers as on the snapshot" $?
done

# --- item 12: control bytes of file names and option values -----------------
# info's snapshot line, analyze's first and last lines, diff's header and
# the usage errors printed them raw: an ESC reached the terminal.
mkdir -p "$out/ctl"
esc=$(printf '\033')
cp testdata/chains.ugct "$out/ctl/a${esc}[31m.ugct"
raw() { cat "$out/stdout" "$out/stderr" | grep -q "$esc"; }
run "$ugc" info "$out/ctl/a${esc}[31m.ugct"
[ $rc -eq 0 ] && ! raw && grep -qF 'a\x1b[31m.ugct' "$out/stdout"
verdict "info: a file name's ESC is shown as \\x1b, not sent" $?
run "$ugc" analyze "$out/ctl/a${esc}[31m.ugct" -o "$out/ctl/b${esc}[2J.db"
[ $rc -eq 0 ] && ! raw && grep -qF 'a\x1b[31m.ugct' "$out/stdout" && grep -qF 'b\x1b[2J.db' "$out/stdout"
verdict "analyze: the snapshot's and the database's names shown, not sent" $?
run "$ugc" diff "$out/ctl/a${esc}[31m.ugct" testdata/chains.ugct
[ $rc -eq 0 ] && ! raw && grep -qF 'a\x1b[31m.ugct' "$out/stdout"
verdict "diff: the header's names shown, not sent" $?
run "$ugc" top testdata/chains.ugct --limit "${esc}[2J"
[ $rc -eq 2 ] && ! raw && grep -qF '\x1b[2J' "$out/stderr"
verdict "a usage error quoting an option value shows it, not sends it" $?
run "$ugc" "x${esc}[2J"
[ $rc -ne 0 ] && ! raw && grep -qF 'x\x1b[2J' "$out/stderr"
verdict "an unknown command's name is shown, not sent" $?

# --- round two, item 2: memory driven by a number in the database ------------
# A 3-object database stating 10^9 slots took 3.9 GB for top, 11.7 GB for
# suspects and dominators, and 24 GB for whatif (killed); stating 16,777,216,
# whatif still took 1.2 GB.  Arrays are sized from the indexes present; a
# count beyond what a snapshot of 3 objects can have (3 * 16 + 2^24 slots)
# is refused.  Every run is capped at 300 MB of address space (not under
# the sanitizers, whose shadow memory alone is more): exit 0 with the
# answer of the database as written, or 1 with one line, never a kill.
mkdir -p "$out/slots"
s=$out/slots
printf 'ugc-text 1\no 0 1 0 - /Script/CoreUObject 100 RF_Public\no 1 2 0 0 Class 100 RF_Public\no 2 3 1 0 Thing 50 RootSet\n' \
	> "$s/three.ugct"
"$ugc" analyze "$s/three.ugct" -o "$s/three.db" -q || bad "analyze three.ugct"
case $ugc in *-san) cap=unlimited ;; *) cap=300000 ;; esac
# capped COMMAND...: run() under a 300 MB address-space limit
capped() {
	run sh -c "ulimit -v $cap && exec \"\$@\"" capped "$@"
}
for n in 16777216 1000000000; do
	cp "$s/three.db" "$s/s$n.db"
	"$adb" "$s/s$n.db" "UPDATE snapshot SET value = $n WHERE key = 'slots'" || bad "building s$n.db"
done
for q in "top" "suspects" "findings" "clusters" "dominators 2" "why 2" "refs 2" "whatif --cut 2"; do
	# shellcheck disable=SC2086
	capped "$ugc" ${q%% *} "$s/three.db" $(echo "$q" | cut -s -d' ' -f2-)
	cp "$out/stdout" "$s/want.out"
	# shellcheck disable=SC2086
	capped "$ugc" ${q%% *} "$s/s16777216.db" $(echo "$q" | cut -s -d' ' -f2-)
	[ $rc -eq 0 ] && [ -s "$s/want.out" ] && cmp -s "$out/stdout" "$s/want.out"
	verdict "${q%% *} on 3 objects stating 16,777,216 slots: the answer of the database as written, in 300 MB" $?
	# shellcheck disable=SC2086
	refused "${q%% *} on 3 objects stating 10^9 slots: refused in 300 MB" \
		"s1000000000.db: table snapshot: slots is 1000000000, more than a snapshot of the 3 objects of table object_table can have (at most 16777264)" \
		sh -c "ulimit -v $cap && exec \"\$@\"" capped "$ugc" ${q%% *} "$s/s1000000000.db" $(echo "$q" | cut -s -d' ' -f2-)
done
capped "$ugc" diff "$s/s16777216.db" "$s/three.db"
[ $rc -eq 0 ] && grep -q '^objects: A 3 (250 B), B 3 (250 B): 3 kept, 0 added, 0 removed' "$out/stdout"
verdict "diff of 3 objects stating 16,777,216 slots with the same 3: all kept, in 300 MB" $?
refused "diff on 3 objects stating 10^9 slots: refused in 300 MB" "s1000000000.db: table snapshot: slots is 1000000000" \
	sh -c "ulimit -v $cap && exec \"\$@\"" capped "$ugc" diff "$s/three.db" "$s/s1000000000.db"
for n in 16777216 1000000000; do
	# info and sql show the tables as they are: the count stated, 3 objects
	capped "$ugc" info "$s/s$n.db" --bytes
	[ $rc -eq 0 ] && grep -q "^objects  *3 ($n slots" "$out/stdout"
	verdict "info on 3 objects stating $n slots shows it, in 300 MB" $?
	capped "$ugc" sql "$s/s$n.db" "select count(*), max(idx) from objects"
	[ $rc -eq 0 ] && [ "$(sed -n 3p "$out/stdout" | tr -s ' ')" = "3 2" ]
	verdict "sql on 3 objects stating $n slots counts 3, in 300 MB" $?
done
# a first-gc-index past the last object is the text format's to state; the
# database of such a snapshot was refused ("first_gc_index ... beyond slots")
printf 'ugc-text 1\nfirst-gc-index 100\no 0 1 0 - /Script/CoreUObject 100 RF_Public\no 1 2 0 0 Class 100 RF_Public\no 2 3 1 0 Thing 50 -\nr 0 2 strong Held\n' \
	> "$s/pool.ugct"
"$ugc" analyze "$s/pool.ugct" -o "$s/pool.db" -q || bad "analyze pool.ugct"
for q in "top" "why 2" "whatif --cut 0"; do
	# shellcheck disable=SC2086
	run "$ugc" ${q%% *} "$s/pool.ugct" $(echo "$q" | cut -s -d' ' -f2-)
	cp "$out/stdout" "$s/want.out"
	rcs=$rc
	# shellcheck disable=SC2086
	run "$ugc" ${q%% *} "$s/pool.db" $(echo "$q" | cut -s -d' ' -f2-)
	[ $rcs -eq 0 ] && [ $rc -eq 0 ] && cmp -s "$out/stdout" "$s/want.out"
	verdict "${q%% *} on the database of a snapshot whose first-gc-index is past its objects answers as on the snapshot" $?
done

# --- round two, item 3: diff of a deep Outer chain ----------------------------
# The outer groups were named, and sorted by name, for every object: an
# N-deep chain's paths hold N^2/2 names (N = 20,000: 13 s, 1.2 GB; 100,000:
# killed at 24 GB).  Now they are ordered by rank and only the rows shown
# are named.  Root (class Class, so no package) holds Class, which holds
# N2, N2 holds N3, ...: 100,002 objects, none matched in the 3-object heap.
n=100000
awk -v n=$n 'BEGIN { print "ugc-text 1"; print "o 0 1 1 - Root 10 RootSet"; print "o 1 2 1 0 Class 10 -";
	for (i = 2; i < n + 2; i++) printf "o %d %d 1 %d N%d 10 -\n", i, i + 1, i - 1, i }' > "$s/chain.ugct"
"$ugc" analyze "$s/chain.ugct" -o "$s/chain.db" -q || bad "analyze chain.ugct"
for side in ugct db; do
	capped "$ugc" diff "$s/three.$side" "$s/chain.$side" --bytes
	[ $rc -eq 0 ] &&
		grep -q "^objects: A 3 (250 B), B $((n + 2)) ($(((n + 2) * 10)) B): 0 kept, $((n + 2)) added, 3 removed" \
			"$out/stdout" &&
		grep -q '^  Root\.Class\.N2\.N3  ' "$out/stdout" &&
		[ "$(sed -n '/^added and removed by outer:/,/^garbage/p' "$out/stdout" | grep -c '^  Root')" -eq 18 ]
	verdict "diff of 3 objects and a $n-deep Outer chain (.$side): all $((n + 2)) added, the outers named, in 300 MB and seconds" $?
done
# The same chain held by references, each link also holding G (Garbage):
# the GC nulls 20,000 references whose holders are 2 to 20,001 deep, and
# each fact was a text of two full names (10,000: 0.6 GB).  Now facts are
# compared part by part and only the rows shown are written out.
n=20000
awk -v n=$n 'BEGIN { print "ugc-text 1"; print "o 0 1 1 - Root 10 RootSet"; print "o 1 2 1 0 Class 10 -";
	printf "o %d %d 1 0 G 10 Garbage\n", n + 2, n + 3;
	for (i = 2; i < n + 2; i++) printf "o %d %d 1 %d N%d 10 -\nr %d %d strong Next\nr %d %d strong Stale\n", i, i + 1, i - 1, i, i - 1, i, i, n + 2 }' \
	> "$s/stale.ugct"
capped "$ugc" diff "$s/three.ugct" "$s/stale.ugct" --bytes
[ $rc -eq 0 ] && grep -q "^new eliminated references: $n\$" "$out/stdout" &&
	[ "$(grep -A2 '^new eliminated references' "$out/stdout" | tail -2 | tr '\n' ' ')" = \
		"  Class Root.Class.N2|Stale|Class Root.G   Class Root.Class.N2.N3|Stale|Class Root.G " ]
verdict "diff with $n new eliminated references held $n deep: counted, the first shown, in 300 MB and seconds" $?

# --- leak mode over a deep Outer chain ----------------------------------------
# diff --baseline A --target B --final C wrote the generic chain of every
# candidate as text: on an N-deep chain each of N chains holds up to N full
# names each up to N names long (N = 600: 4.6 s, 170 MB).  Now each chain
# key is interned from its parent's, and an element is written from at most
# its path's first 8200 bytes.  A is Root and Class; B and C add N_2 ..
# N_{n+1}, each the Outer of the next.
n=100000
printf 'ugc-text 1\no 0 1 1 - Root 10 RootSet\no 1 2 1 0 Class 10 -\n' > "$s/leak-a.ugct"
# Held link by link (Next): each N_i dominates the next, so N_2 is the one
# leak root and all n objects are its group (the dominator climb to it is n
# deep, iterative); its chain and trace are three long.
awk -v n=$n 'BEGIN { print "ugc-text 1"; print "o 0 1 1 - Root 10 RootSet"; print "o 1 2 1 0 Class 10 -";
	for (i = 2; i < n + 2; i++) printf "o %d %d 1 %d N_%d 10 -\nr %d %d strong Next\n", i, i + 1, i - 1, i, i - 1, i }' \
	> "$s/leak-next.ugct"
capped "$ugc" diff --baseline "$s/leak-a.ugct" --target "$s/leak-next.ugct" --final "$s/leak-next.ugct" --bytes
[ $rc -eq 0 ] && grep -q "^$n objects ($((n * 10)) B) under 1 leak root retaining $((n * 10)) B, in 1 group by retention trace" "$out/stdout" &&
	grep -q "^group 1: $n objects under 1 leak root, $((n * 10)) B retained ($((n * 10)) B shallow)\$" "$out/stdout" &&
	[ "$(grep '^  chain:' "$out/stdout")" = "  chain: Class Root -> Class = Class Root.Class -> Next = Class Root.Class.N_*" ] &&
	[ "$(grep -c '^ *[0-9]* B  \(-> .* = \)\?#[0-9]' "$out/stdout")" -eq 3 ]
verdict "leak mode over a $n-deep Outer chain held link by link: one leak root dominating all $n, one group, in 300 MB and seconds" $?
# Held by Root (Items[i] -> N_{i+2}): Root holds each N_i directly (and
# N_{i+1} holds its Outer N_i), so Root is every one's immediate dominator
# and each is a leak root.  Every chain is "Class Root -> Items[*] = " and
# the candidate's generic full name, "Class Root.Class" then ".N_*"
# per level, 16 + 4d bytes at depth d.  generic_name() stops at the first
# token boundary at or past byte 8189 (16 + 4 * 2043 + 1, after a '.'), so
# depths 1 .. 2043 are 2043 groups of one and every deeper object (n - 2043)
# is one group, the largest, first.
awk -v n=$n 'BEGIN { print "ugc-text 1"; print "o 0 1 1 - Root 10 RootSet"; print "o 1 2 1 0 Class 10 -";
	for (i = 2; i < n + 2; i++) printf "o %d %d 1 %d N_%d 10 -\nr 0 %d strong Items[%d]\n", i, i + 1, i - 1, i, i, i - 2 }' \
	> "$s/leak-items.ugct"
"$ugc" analyze "$s/leak-items.ugct" -o "$s/leak-items.db" -q || bad "analyze leak-items.ugct"
"$ugc" analyze "$s/leak-a.ugct" -o "$s/leak-a.db" -q || bad "analyze leak-a.ugct"
for side in ugct db; do
	capped "$ugc" diff --baseline "$s/leak-a.$side" --target "$s/leak-items.$side" --final "$s/leak-items.$side" --bytes
	big=$((n - 2043))
	[ $rc -eq 0 ] && grep -q "^$n objects ($((n * 10)) B) under $n leak roots retaining $((n * 10)) B, in 2044 groups by retention trace" "$out/stdout" &&
		grep -q "^group 1: $big objects under $big leak roots, $((big * 10)) B retained ($((big * 10)) B shallow)\$" "$out/stdout" &&
		[ "$(grep -m1 '^  chain:' "$out/stdout" | wc -c)" -eq $((34 + 8189 + 1)) ] &&
		[ "$(grep -m2 '^  chain:' "$out/stdout" | tail -1)" = "  chain: Class Root -> Items[*] = Class Root.Class.N_*" ]
	verdict "leak mode over a $n-deep Outer chain held by its root (.$side): 2044 groups, the deepest $big objects one, in 300 MB and seconds" $?
done

# --- round two, also seen: the V8 reader's JSON -----------------------------
# It took numbers with leading zeros and raw control bytes in strings
# (JSON.parse refuses both; V8 writes neither), and refused a run of blanks
# over 4 KiB inside nodes or edges, and a file whose first 64 KiB were
# blanks was not recognised as V8 at all.  Blanks of any length are JSON.
mkdir -p "$out/v8"
v=$out/v8
v8doc() { # v8doc NODE_COUNT STRINGS: two nodes, Root holding Foo
	printf '{"snapshot":{"meta":{"node_fields":["type","name","id","self_size","edge_count"],'
	printf '"node_types":[["hidden","object"],"string","number","number","number"],'
	printf '"edge_fields":["type","name_or_index","to_node"],"edge_types":[["property"],"string_or_number","node"]},'
	printf '"node_count":%s,"edge_count":1},"nodes":[0,0,1,0,1,1,1,3,10,0],"edges":[0,1,5],"strings":[%s]}\n' "$1" "$2"
}
{ head -c 100000 /dev/zero | tr '\0' ' '; v8doc 2 '"","Foo"'; } > "$v/blanks.heapsnapshot"
run "$ugc" info "$v/blanks.heapsnapshot"
[ $rc -eq 0 ] && grep -q '^engine  *v8' "$out/stdout"
verdict "a V8 snapshot after 100,000 blanks is read as one" $?
v8doc 2 '"","Foo"' | sed 's/"nodes":\[0,0,1,0,1,/"nodes":[0,0,1,0,1,'"$(head -c 6000 /dev/zero | tr '\0' ' ')"'/' \
	> "$v/inner.heapsnapshot"
run "$ugc" info "$v/inner.heapsnapshot"
check "a V8 snapshot with 6,000 blanks inside its nodes array is read" [ $rc -eq 0 ]
v8doc 02 '"","Foo"' > "$v/zero.heapsnapshot"
off=$(grep -bo '"node_count":02' "$v/zero.heapsnapshot" | cut -d: -f1)
refused "a V8 number with a leading zero is refused at its offset" \
	"zero.heapsnapshot: offset $((off + 13)): snapshot.node_count: a number with a leading zero" \
	"$ugc" info "$v/zero.heapsnapshot"
v8doc 2 '"","F	o"' > "$v/ctl.heapsnapshot"
off=$(grep -bo '"F' "$v/ctl.heapsnapshot" | cut -d: -f1)
refused "a raw control byte in a V8 string is refused at its offset" \
	"ctl.heapsnapshot: offset $((off + 2)): a raw control byte (0x09) in a string" "$ugc" info "$v/ctl.heapsnapshot"

echo "attacks: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
