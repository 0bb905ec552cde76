#!/bin/sh
# interrupt.sh — long jobs: SIGINT and SIGTERM in the middle of a database
# write leave nothing behind and exit 130 and 143; a temporary file left by a
# killed run is removed by the next run on the same output (only when its
# process is gone and it is ours); outputs are checked before the work; the
# progress line on standard error (--progress, --quiet, nothing when it is
# not a terminal).
# Usage: tests/interrupt.sh UGC_ANALYZE OUTDIR.  Prints "ok  NAME" or
# "FAIL NAME" per test and ends with "interrupt: N passed, N failed".
ugc=$1
out=$2/interrupt
passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok   $1"; }
bad() { failed=$((failed + 1)); echo "FAIL $1"; [ -n "$2" ] && echo "    $2"; }
rm -rf "$out"
mkdir -p "$out"

# a heap whose database takes a second or more to write (about 0.2 s to
# load and analyse), and a small one
big="$out/big.ugcs"
"$ugc" gen --objects 150000 -o "$big" 2>/dev/null || bad "gen the big heap"
small="$out/small.ugcs"
"$ugc" gen --objects 20000 -o "$small" 2>/dev/null || bad "gen the small heap"

# interrupted SIGNAL STATUS NAME [ARGS...]: analyze the big heap into NAME.db
# (with ARGS), send SIGNAL once the temporary database has data in it, and
# check the exit status and that nothing is left: no NAME.db, no temporary
# file, no NAME.* at all.  A background job of a shell ignores SIGINT, which
# the tool keeps ignored (as it should): env --default-signal gives it back.
interrupted() {
	sig=$1 want=$2 name=$3
	shift 3
	db="$out/$name.db"
	env --default-signal=INT "$ugc" analyze "$big" -o "$db" "$@" > "$out/$name.out" 2> "$out/$name.err" &
	pid=$!
	tmp="$db.tmp.$pid"
	n=0
	# the database is begun beside the analysis: wait for the summary too
	# (early=1: for the database only, the analysis still running)
	while { [ ! -s "$tmp" ] || { [ -z "$early" ] && ! grep -q ' objects reachable' "$out/$name.out"; }; } &&
		[ $n -lt 400 ] && kill -0 $pid 2>/dev/null; do
		sleep 0.01
		n=$((n + 1))
	done
	kill -s "$sig" $pid
	wait $pid
	rc=$?
	left=$(ls "$out" | grep "^$name\." | grep -v '\.out$' | grep -v '\.err$')
	if [ $rc -eq "$want" ] && [ -z "$left" ]; then
		ok "$sig mid-write: exit $want, no database, no temporary file"
	else
		bad "$sig mid-write: exit $want, no database, no temporary file" "exit $rc (0: the write ended before the signal), left: $left"
	fi
}
interrupted INT 130 int
grep -q '^LogGarbage: .* objects reachable' "$out/int.out" &&
	ok "the summary is out before the write begins (stdout a file, run interrupted)" ||
	bad "the summary is out before the write begins (stdout a file, run interrupted)"
[ ! -s "$out/int.err" ] && ok "an interrupt prints nothing (stderr not a terminal)" || bad "an interrupt prints nothing" "$(cat "$out/int.err")"
interrupted TERM 143 term --after "$out/term.after.ugcs"
early=1 interrupted INT 130 early
early=

# --- leftovers of killed runs --------------------------------------------------
sh -c 'exit 0' &
dead=$!
wait $dead
echo junk > "$out/left.db.tmp.$dead"
echo junk > "$out/left.db.tmp.$$"      # a live process (this shell): may still be writing
echo junk > "$out/left.dbx.tmp.$dead"  # another output's
echo junk > "$out/left.db.tmp.${dead}x"
other=""
if [ "$(id -u)" -eq 0 ]; then          # someone else's: not ours to remove
	sh -c 'exit 0' &
	other=$!
	wait $other
	echo junk > "$out/left.db.tmp.$other"
	chown 65534 "$out/left.db.tmp.$other"
fi
msg=$("$ugc" analyze testdata/spec-example.ugct -o "$out/left.db" --quiet 2>&1)
rc=$?
if [ $rc -eq 0 ] && [ ! -e "$out/left.db.tmp.$dead" ] && [ -e "$out/left.db.tmp.$$" ] &&
	[ -e "$out/left.dbx.tmp.$dead" ] && [ -e "$out/left.db.tmp.${dead}x" ] &&
	{ [ -z "$other" ] || [ -e "$out/left.db.tmp.$other" ]; } &&
	[ "$msg" = "ugc-analyze: removed $out/left.db.tmp.$dead, left by an interrupted run (process $dead is gone)" ]; then
	ok "a dead run's temporary file is removed, and said so; a live one's, another user's, another output's kept"
else
	bad "a dead run's temporary file is removed, and said so; a live one's, another user's, another output's kept" "rc=$rc msg=$msg; $(ls "$out" | grep left)"
fi

# --- outputs checked before the work ------------------------------------------
# the input does not exist: an error about the output proves it came first
msg=$("$ugc" analyze "$out/missing.ugcs" -o "$out/no/such/dir/x.db" 2>&1)
rc=$?
case "$msg" in
"ugc-analyze: $out/no/such/dir/x.db: cannot write there: $out/no/such/dir: No such file or directory")
	[ $rc -eq 1 ] && ok "a missing output directory: refused before the input is read" ||
		bad "a missing output directory: refused before the input is read" "rc=$rc" ;;
*) bad "a missing output directory: refused before the input is read" "$msg" ;;
esac
if [ "$(id -u)" -eq 0 ]; then
	ro=/proc  # root may write in any directory with the right mode, but not there
else
	ro="$out/ro"
	mkdir -p "$ro"
	chmod 555 "$ro"
fi
msg=$("$ugc" gen --objects 1000 -o "$ro/x.ugcs" 2>&1)
rc=$?
case "$msg" in
"ugc-analyze: $ro/x.ugcs: cannot write there: "*) [ $rc -eq 1 ] && [ ! -e "$ro/x.ugcs" ] &&
	ok "an unwritable output directory: one line, exit 1" || bad "an unwritable output directory: one line, exit 1" "rc=$rc" ;;
*) bad "an unwritable output directory: one line, exit 1" "$msg" ;;
esac
[ "$(id -u)" -ne 0 ] && chmod 755 "$ro"
echo keep > "$out/exists.ugcs"
msg=$("$ugc" diff "$out/missing.ugcs" "$small" -o "$out/exists.ugcs" 2>&1)
[ "$msg" = "ugc-analyze: $out/exists.ugcs: already exists (use --force to overwrite)" ] &&
	ok "diff -o: an existing output refused before the inputs are read" || bad "diff -o: an existing output refused before the inputs are read" "$msg"

# --- the progress line ---------------------------------------------------------
# progress LABEL ARGS...: the command's stderr, one line a redraw
progress() { "$ugc" "$@" 2>&1 >/dev/null | tr '\r' '\n' | sed 's/\x1b\[K//g' | grep -v '^$'; }
got=$(progress convert "$small" "$out/p1.ugct" --progress)
echo "$got" | grep -q '^load small.ugcs  *[0-9]*%$' && echo "$got" | grep -q '^write p1.ugct  *[0-9]*%' &&
	ok "--progress: each phase with its percentage on stderr" || bad "--progress: each phase with its percentage on stderr" "$got"
# a file name with control bytes is escaped on the progress line
esc=$(printf 'p\033[31mred\nx.ugct')
"$ugc" convert "$small" "$out/$esc" --progress 2> "$out/p-esc.err" >/dev/null
if grep -q 'p\\x1b\[31mred\\x0ax.ugct' "$out/p-esc.err" && ! grep -q "$(printf '\033')\[31m" "$out/p-esc.err"; then
	ok "--progress escapes a file name's control bytes"
else
	bad "--progress escapes a file name's control bytes" "$(cat -v "$out/p-esc.err" | head -3)"
fi
rm -f "$out/$esc"
got=$(progress --progress gen --objects 20000 -o "$out/p2.ugcs")
echo "$got" | grep -q '^generate  *[0-9]*%' && ok "--progress before the command" || bad "--progress before the command" "$got"
got=$(progress convert "$small" "$out/p3.ugct" --progress --quiet)
[ -z "$got" ] && [ -s "$out/p3.ugct" ] && ok "--quiet: no progress" || bad "--quiet: no progress" "$got"
got=$(progress convert "$small" "$out/p4.ugct")
[ -z "$got" ] && [ -s "$out/p4.ugct" ] && ok "stderr not a terminal: no progress" || bad "stderr not a terminal: no progress" "$got"
"$ugc" analyze "$small" -o "$out/p5.db" --progress > "$out/p5.out" 2> "$out/p5.err"
tr '\r' '\n' < "$out/p5.err" | grep -q '^write p5.db  *[0-9]*%' && ! grep -q "$(printf '\r')" "$out/p5.out" &&
	grep -q '^LogGarbage: wrote ' "$out/p5.out" &&
	ok "analyze --progress: the store's progress on stderr, stdout untouched" ||
	bad "analyze --progress: the store's progress on stderr, stdout untouched" "$(cat -v "$out/p5.err" | head -c 300)"

stray=$(ls "$out" | grep '\.tmp\.' | grep -v '^left\.')
[ -z "$stray" ] && ok "no other temporary file anywhere" || bad "no other temporary file anywhere" "$stray"
echo "interrupt: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
