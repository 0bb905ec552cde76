#!/bin/sh
# check.sh — command-line tests of `check --rules` and `history`: the rules
# file parsed strictly (each fault named with its line, exit 2, nothing
# checked), budgets whose limits come from independent SQL over the
# database (a class's retained bytes as the sum over its topmost objects in
# the dominator tree, a recursive query over idom), each limit passed and
# failed by one unit, the same verdicts from a snapshot and its database,
# growth over the evolve series (counts from SQL), forbidden finding kinds,
# JUnit XML (testcases and failures counted, hostile names escaped) and a
# history of three builds whose growing series breaks a trend rule.
# Usage: tests/check.sh UGC_ANALYZE OUTDIR [JSON_CHECK] (tests/json_check.c:
# the JSON of check and history checked too).  Ends with "check: N passed, N failed".
ugc=$1
out=$2/check
jc=$3
rm -rf "$out"
mkdir -p "$out"
passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok   $1"; }
bad() { failed=$((failed + 1)); echo "FAIL $1"; [ -n "$2" ] && echo "    $2"; }
commas() { echo "$1" | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta'; } # 2,726
sql() { "$ugc" sql "$1" "$2" --format csv | tail -1; }
# run NAME WANT_STATUS RULES INPUT [OPTIONS...]: check with RULES (text),
# output in $out/NAME.out, errors in $out/NAME.err
run() {
	name=$1; want=$2; printf '%s\n' "$3" > "$out/$name.rules"; shift 3
	"$ugc" check "$@" --rules "$out/$name.rules" > "$out/$name.out" 2> "$out/$name.err"
	rc=$?
	[ "$rc" = "$want" ] && ok "$name: exit $want" || bad "$name: exit $rc, want $want" "$(cat "$out/$name.out" "$out/$name.err")"
}
# has NAME TEXT: the output of run NAME holds TEXT
has() { grep -qF -- "$2" "$out/$1.out" "$out/$1.err" && ok "$1: says '$2'" || bad "$1: says '$2'" "$(cat "$out/$1.out" "$out/$1.err")"; }

snap=testdata/arena.ugcs
db=$out/arena.db
"$ugc" analyze "$snap" -o "$db" -q || bad "analyze $snap"

# --- the rules file, strictly ----------------------------------------------
# each case: a rules file whose line 3 is wrong, the message that must name it
n=0
while IFS='|' read -r line msg; do
	n=$((n + 1))
	run "parse-$n" 2 "# a comment
budget total count <= 1000000
$line
budget total retained <= 1GiB" "$db"
	has "parse-$n" "$out/parse-$n.rules:3: $msg"
	[ -s "$out/parse-$n.out" ] && bad "parse-$n: nothing checked" "$(cat "$out/parse-$n.out")" || ok "parse-$n: nothing checked"
done <<'CASES'
budgte total count <= 5|unknown rule 'budgte'
budget total retained <= 1.5GB|malformed size '1.5GB'
budget total retained <= 1.5.2MiB|malformed size '1.5.2MiB'
budget total retained <= 0.5B|malformed size '0.5B'
budget total count <= 5k|malformed count '5k'
budget total count <= 1.5|malformed count '1.5'
budget total retained <=|missing the limit after '<='
budget total retained < 5|expected '<=' and a limit, not <
budget total retained <= 5 MiB|unexpected 'MiB' after the limit
budget class|class needs a name
budget class Texture2D|missing the measure
budget class Texture2D bytes <= 5|unknown measure 'bytes'
budget module X count <= 5|unknown subject 'module'
budget finding eliminated-ref retained <= 5|findings have a count, not retained bytes
forbid finding no-such-kind|unknown finding kind 'no-such-kind'
forbid class X|forbid takes 'finding KIND'
forbid finding dangling-ref now|unexpected 'now' after the finding kind
growth total retained <= 5%%|malformed percent '5%%'
trend total count grows < 1 builds|a trend needs a number of builds from 2
trend total count grows 5 builds|expected '<' after grows
trend total count grows < 5|expected 'builds' after the number
budget class 'Texture2D retained <= 5|a quote (') that is not closed
budget total retained <= 99999999999TiB|malformed size '99999999999TiB'
CASES
printf 'budget total count <= 1\000\n' > "$out/nul.rules"
"$ugc" check "$db" --rules "$out/nul.rules" > /dev/null 2> "$out/nul.err"
[ $? = 2 ] && grep -q 'nul.rules:1: a NUL byte' "$out/nul.err" && ok "a NUL byte: line 1, exit 2" || bad "a NUL byte" "$(cat "$out/nul.err")"
run empty 0 "# nothing but a comment" "$db"
has empty "0 rules, 0 passed, 0 failed"
"$ugc" check "$db" > /dev/null 2>&1; [ $? = 2 ] && ok "no --rules: exit 2" || bad "no --rules: exit 2"
"$ugc" check "$db" --rules "$out/missing.rules" > /dev/null 2>&1; [ $? = 2 ] && ok "a missing rules file: exit 2" || bad "a missing rules file: exit 2"

# --- budgets, from independent SQL ------------------------------------------
# a class's retained bytes: the sum over its objects that no object of the
# class dominates (each byte once), walked up idom by a recursive query
mesh=$(sql "$db" "WITH RECURSIVE up(start, cur) AS (SELECT idx, idom FROM objects WHERE class_name = 'StaticMesh' AND retained IS NOT NULL UNION ALL SELECT up.start, o.idom FROM up JOIN objects o ON o.idx = up.cur) SELECT sum(retained) FROM objects WHERE class_name = 'StaticMesh' AND retained IS NOT NULL AND idx NOT IN (SELECT up.start FROM up JOIN objects o ON o.idx = up.cur WHERE o.class_name = 'StaticMesh')")
reached=$(sql "$db" "SELECT count(*) FROM objects WHERE retained IS NOT NULL")
bytes=$(sql "$db" "SELECT sum(size) FROM objects WHERE retained IS NOT NULL")
arena0=$(sql "$db" "SELECT count(*) FROM objects WHERE retained IS NOT NULL AND (path = '/Game/Maps/Arena_0' OR substr(path, 1, 19) IN ('/Game/Maps/Arena_0.', '/Game/Maps/Arena_0:'))")
[ "$mesh" -gt 0 ] && [ "$reached" -gt 0 ] && [ "$arena0" -gt 0 ] && ok "SQL measures: $mesh $reached $bytes $arena0" || bad "SQL measures" "$mesh $reached $bytes $arena0"
kib=$(( (bytes + 1023) / 1024 )) # the least KiB at or above the bytes reached
rules_pass="budget class StaticMesh retained <= $mesh
budget total count <= $reached
budget total retained <= $bytes
budget total retained <= ${kib}KiB
budget package /Game/Maps/Arena_0 count <= $arena0
budget class NoSuchClass count <= 0"
rules_fail="budget class StaticMesh retained <= $((mesh - 1))
budget total count <= $((reached - 1))
budget total retained <= $((bytes - 1))
budget total retained <= $((kib - 1))KiB
budget package /Game/Maps/Arena_0 count <= $((arena0 - 1))"
for in in "$snap" "$db"; do
	k=$(basename "$in")
	run "budget-pass-$k" 0 "$rules_pass" "$in"
	[ "$(grep -c '^PASS' "$out/budget-pass-$k.out")" = 6 ] && ok "budget-pass-$k: 6 PASS" || bad "budget-pass-$k: 6 PASS" "$(cat "$out/budget-pass-$k.out")"
	run "budget-fail-$k" 1 "$rules_fail" "$in"
	[ "$(grep -c '^FAIL' "$out/budget-fail-$k.out")" = 5 ] && ok "budget-fail-$k: 5 FAIL" || bad "budget-fail-$k: 5 FAIL" "$(cat "$out/budget-fail-$k.out")"
done
# the same verdicts and measures from the snapshot and its database
for w in pass fail; do
	# (all but the last line, which names the input)
	sed '$d' "$out/budget-$w-arena.ugcs.out" | sed 's|^\([A-Z]*  \)[^ ]*rules:|\1RULES:|' > "$out/$w.snap"
	sed '$d' "$out/budget-$w-arena.db.out" | sed 's|^\([A-Z]*  \)[^ ]*rules:|\1RULES:|' > "$out/$w.db"
	[ "$(wc -l < "$out/$w.snap")" -ge 5 ] || bad "budget-$w: verdict lines" "$(cat "$out/$w.snap")"
	cmp -s "$out/$w.snap" "$out/$w.db" && ok "budget-$w: snapshot and database agree" || bad "budget-$w: snapshot and database agree" "$(diff "$out/$w.snap" "$out/$w.db")"
done
"$ugc" --bytes check "$db" --rules "$out/budget-fail-arena.db.rules" > "$out/bytes.out"
grep -qF "budget class StaticMesh retained <= $((mesh - 1)): $mesh B, limit $((mesh - 1)) B" "$out/bytes.out" && ok "--bytes: exact measure and limit" || bad "--bytes: exact measure and limit" "$(cat "$out/bytes.out")"
# a name the input lacks passes at 0, and says so (a typo is seen)
has budget-pass-arena.db "budget class NoSuchClass count <= 0: no class 'NoSuchClass' in the input: 0, limit 0"
# every package: the largest count is the one SQL finds for the largest package
run each-pass 0 "budget package * count <= $arena0" "$db"
has each-pass "/Game/Maps/Arena_0: "

# --- forbidden findings ------------------------------------------------------
q=testdata/cluster-quirks.ugct
nq=$("$ugc" findings "$q" --kind cluster-missing-mutable --format csv | tail -n +2 | wc -l)
[ "$nq" -gt 0 ] && ok "cluster-quirks has cluster-missing-mutable findings ($nq)" || bad "cluster-quirks has findings"
run forbid-quirks 1 "forbid finding cluster-missing-mutable
forbid finding uncleared-weak-ref
budget finding cluster-missing-mutable count <= $nq" "$q"
has forbid-quirks "FAIL  $out/forbid-quirks.rules:1: forbid finding cluster-missing-mutable: $nq cluster-missing-mutable finding"
has forbid-quirks "PASS  $out/forbid-quirks.rules:3:"
dangling=$(sql "$db" "SELECT count(*) FROM findings WHERE kind = 'dangling-ref'")
run forbid-arena 1 "forbid finding cluster-missing-mutable
forbid finding dangling-ref" "$snap"
has forbid-arena "PASS  $out/forbid-arena.rules:1:"
has forbid-arena "FAIL  $out/forbid-arena.rules:2: forbid finding dangling-ref: $dangling dangling-ref findings"

# --- growth over a baseline: the evolve series (evolve.plan: objects removed) --
e0=testdata/evolve-0.ugcs e1=testdata/evolve-1.ugcs e2=testdata/evolve-2.ugcs
for k in 0 1 2; do "$ugc" analyze testdata/evolve-$k.ugcs -o "$out/evolve-$k.db" -q; done
c0=$(sql "$out/evolve-0.db" "SELECT count(*) FROM objects WHERE retained IS NOT NULL")
c1=$(sql "$out/evolve-1.db" "SELECT count(*) FROM objects WHERE retained IS NOT NULL")
c2=$(sql "$out/evolve-2.db" "SELECT count(*) FROM objects WHERE retained IS NOT NULL")
[ "$c0" -gt "$c1" ] && [ "$c1" -gt "$c2" ] && ok "the evolve series shrinks: $c0 $c1 $c2" || bad "the evolve series shrinks" "$c0 $c1 $c2"
run growth-shrink 0 "growth total count <= 0
growth total retained <= 0%" "$e1" --baseline "$e0"
d=$((c0 - c1))
# backwards (evolve-0 over evolve-1's baseline) the count grows by d: d
# passes, d - 1 fails; in percent 100 d / c1, passes a limit one hundredth
# above and fails one below
pct=$(awk -v d=$d -v b=$c1 'BEGIN { printf "%d", 10000 * d / b }') # hundredths, rounded down
up=$(awk -v p=$pct 'BEGIN { printf "%.2f", (p + 1) / 100 }')
down=$(awk -v p=$pct 'BEGIN { printf "%.2f", (p - 1) / 100 }')
run growth-pass 0 "growth total count <= $d
growth total count <= $up%" "$out/evolve-0.db" --baseline "$e1"
run growth-fail 1 "growth total count <= $((d - 1))
growth total count <= $down%" "$e0" --baseline "$out/evolve-1.db"
[ "$(grep -c '^FAIL' "$out/growth-fail.out")" = 2 ] && ok "growth-fail: both FAIL" || bad "growth-fail: both FAIL" "$(cat "$out/growth-fail.out")"
has growth-fail "growth total count <= $((d - 1)): +$(commas $d), from $(commas $c1) to $(commas $c0), limit $(commas $((d - 1)))"
has growth-fail ": +$(awk -v p=$pct 'BEGIN { printf "%.2f", p / 100 }')% (+$(commas $d)), from"
run growth-no-baseline 2 "growth total count <= 5" "$db"
has growth-no-baseline "growth rules need --baseline"
# a --baseline or --history that no rule reads is still read: a misspelled
# path fails the gate (exit 1, the path named) instead of passing forever
run unread-baseline-missing 1 "budget total count <= 100000" "$db" --baseline "$out/no-such.db"
has unread-baseline-missing "$out/no-such.db: No such file or directory"
run unread-history-missing 1 "budget total count <= 100000" "$db" --history "$out/no-such-history.db"
has unread-history-missing "$out/no-such-history.db: No such file or directory"
run unread-baseline-present 0 "budget total count <= 100000" "$db" --baseline "$db"
run unread-baseline-directory 1 "budget total count <= 100000" "$db" --baseline "$out"
has unread-baseline-directory "$out: not a regular file"
run unread-history-not-history 1 "budget total count <= 100000" "$db" --history "$db"
has unread-history-not-history "not a history database"

# --- JUnit XML ---------------------------------------------------------------
printf 'budget class "<Evil>&\047\033" count <= 0\nforbid finding dangling-ref\nbudget total count <= 1\nbudget total count <= 1000000000\n' > "$out/junit.rules"
"$ugc" check "$db" --rules "$out/junit.rules" --junit "$out/junit.xml" > "$out/junit.out"
[ $? = 1 ] && ok "junit: exit 1" || bad "junit: exit 1"
x=$out/junit.xml
fails=$(grep -c '^FAIL' "$out/junit.out")
[ "$(grep -c '<testcase ' "$x")" = 4 ] && ok "junit: 4 testcases" || bad "junit: 4 testcases" "$(cat "$x")"
[ "$(grep -c '<failure ' "$x")" = "$fails" ] && [ "$fails" = 2 ] && ok "junit: failures = FAIL lines (2)" || bad "junit: failures = FAIL lines" "$fails; $(cat "$x")"
grep -q "<testsuite [^>]*tests=\"4\" failures=\"$fails\"" "$x" && ok "junit: the suite's counts" || bad "junit: the suite's counts"
grep -qF 'name="line 1: budget class &lt;Evil&gt;&amp;&apos;\x1b count &lt;= 0"' "$x" && ok "junit: a hostile name escaped" || bad "junit: a hostile name escaped" "$(grep Evil "$x")"
if LC_ALL=C grep -q "$(printf '\033')" "$x"; then bad "junit: no raw control byte"; else ok "junit: no raw control byte"; fi
if command -v xmllint > /dev/null; then
	xmllint --noout "$x" && ok "junit: xmllint reads it" || bad "junit: xmllint reads it"
fi
"$ugc" check "$db" --rules "$out/junit.rules" --junit "$x" > /dev/null 2>&1
"$ugc" check "$db" --rules "$out/junit.rules" --junit "$x" 2>&1 >/dev/null | grep -q "exists" && ok "junit: an existing file needs --force" || bad "junit: an existing file needs --force"
"$ugc" check "$db" --rules "$out/junit.rules" --junit "$x" --force > /dev/null; [ $? = 1 ] && ok "junit: --force overwrites" || bad "junit: --force overwrites"
cp "$db" "$out/keep.db"
"$ugc" check "$out/keep.db" --rules "$out/junit.rules" --junit "$out/keep.db" --force > /dev/null 2> "$out/keep.err"
[ $? = 1 ] && cmp -s "$db" "$out/keep.db" && grep -q "is the input" "$out/keep.err" && ok "junit: --force never overwrites the input" || bad "junit: --force never overwrites the input" "$(cat "$out/keep.err")"
"$ugc" check "$db" --rules "$out/junit.rules" --format json > "$out/check.json"
grep -q '^{"format_version":1,"command":"check",.*"passed":2,"failed":2,"rules":{"total":4,"shown":4,"items":\[' "$out/check.json" && ok "json: document and listing" || bad "json: document and listing" "$(head -c 300 "$out/check.json")"

# --- history -----------------------------------------------------------------
h=$out/history.db
# a made-up growing series: the evolve snapshots newest first, so the
# objects reached grow build after build (c2 < c1 < c0)
"$ugc" history add "$e2" "$h" --label b1 --time 1000 > /dev/null &&
"$ugc" history add "$out/evolve-1.db" "$h" --label b2 --time 2000 > /dev/null &&
"$ugc" history add "$e0" "$h" --label b3 --time 3000 > /dev/null && ok "history add three builds" || bad "history add three builds"
"$ugc" history "$h" --total --format csv > "$out/series.csv"
want="build,time,label,objects,retained
1,1000,b1,$c2,$(sql "$out/evolve-2.db" "SELECT sum(size) FROM objects WHERE retained IS NOT NULL")
2,2000,b2,$c1,$(sql "$out/evolve-1.db" "SELECT sum(size) FROM objects WHERE retained IS NOT NULL")
3,3000,b3,$c0,$(sql "$out/evolve-0.db" "SELECT sum(size) FROM objects WHERE retained IS NOT NULL")"
[ "$(cat "$out/series.csv")" = "$want" ] && ok "history: the total series, each build" || bad "history: the total series" "$(cat "$out/series.csv")"
"$ugc" history "$h" --total > "$out/series.txt"
"$ugc" history "$h" --package '/Game/Maps/Arena_0' --format json > "$out/history.json"
grep -q "^total over 3 builds" "$out/series.txt" && grep -q "+$(commas $((c1 - c2))) .* b2$" "$out/series.txt" && ok "history: text with changes" || bad "history: text with changes" "$(cat "$out/series.txt")"
# two increases in a row: a run of 2 breaks "< 2", passes "< 3"
run trend 1 "trend total count grows < 2 builds
trend total count grows < 3 builds
trend total retained grows < 3 builds" "$db" --history "$h"
has trend "FAIL  $out/trend.rules:1: trend total count grows < 2 builds: longest run: total grew 2 builds in a row"
has trend "PASS  $out/trend.rules:2:"
run trend-no-history 2 "trend total count grows < 2 builds" "$db"
# a database that is no history is never written
cp "$db" "$out/not-history.db"
"$ugc" history add "$e0" "$out/not-history.db" > "$out/nh.out" 2>&1
[ $? = 1 ] && grep -q "not a history database" "$out/nh.out" && cmp -s "$db" "$out/not-history.db" && ok "history add refuses another database, unchanged" || bad "history add refuses another database" "$(cat "$out/nh.out")"
"$ugc" history "$db" > "$out/nh2.out" 2>&1
[ $? = 1 ] && grep -q "not a history database" "$out/nh2.out" && ok "history refuses to read another database" || bad "history refuses another database" "$(cat "$out/nh2.out")"
# the arguments swapped: the history named, and left as it was
cp "$h" "$out/h-copy.db"
"$ugc" history add "$h" "$e0" > "$out/swap.out" 2>&1
[ $? = 1 ] && grep -qF "$h: a history database, not a snapshot or an analysis database: history add takes INPUT first, then HISTORY" "$out/swap.out" &&
	cmp -s "$h" "$out/h-copy.db" && ok "history add with its arguments swapped says so, nothing written" ||
	bad "history add with its arguments swapped" "$(cat "$out/swap.out")"
# a class or package no build has is an error, not a series of zeros
"$ugc" history "$h" --class Texture2DTypo > "$out/typo.out" 2>&1
[ $? = 1 ] && grep -qF "$h: no build has class 'Texture2DTypo'" "$out/typo.out" && ok "history of a class no build has: an error" ||
	bad "history of a class no build has" "$(cat "$out/typo.out")"
"$ugc" history "$h" --class Texture2D > "$out/tex.out" 2>&1 && ok "history of a class the builds have: exit 0" ||
	bad "history of a class the builds have" "$(cat "$out/tex.out")"

# --- the documented rules ----------------------------------------------------
# make demo's rules pass on the arena heap (the demo must succeed), from the
# snapshot and the database alike
for in in "$snap" "$db"; do
	"$ugc" check "$in" --rules testdata/demo.rules > "$out/demo.out" 2>&1 && grep -q ", 0 failed$" "$out/demo.out" &&
		ok "testdata/demo.rules passes on $(basename "$in")" || bad "testdata/demo.rules passes on $in" "$(cat "$out/demo.out")"
done
# the rules in ugc-rules(5)'s synopsis parse (a trend needs --history, a growth --baseline)
sed -n '/^\.SH SYNOPSIS/,/^\.fi/p' man/ugc-rules.5 | grep -v '^\.' > "$out/synopsis.rules"
n=$(grep -c '^[a-z]' "$out/synopsis.rules")
"$ugc" check "$db" --rules "$out/synopsis.rules" --baseline "$db" --history "$h" > "$out/synopsis.out" 2>&1
[ $? -le 1 ] && [ "$(grep -c '^PASS\|^FAIL' "$out/synopsis.out")" = "$n" ] && [ "$n" -ge 8 ] &&
	ok "ugc-rules(5)'s synopsis: $n rules parse and are checked" || bad "ugc-rules(5)'s synopsis parses" "$(cat "$out/synopsis.out")"

# --- leak-group budgets: leak mode's largest group -----------------------------
# evolve.plan plants 38 leaked MaterialInstanceDynamic objects; the budget
# measures the largest group as `diff --baseline --target --final` reports it
# (its JSON, read here with sed), passes at that value and fails one below
e0=testdata/evolve-0.ugcs; e1=testdata/evolve-1.ugcs; e2=testdata/evolve-2.ugcs
planted=$(grep -c '^leaked MaterialInstanceDynamic ' testdata/evolve.plan)
"$ugc" diff --baseline "$e0" --target "$e1" --final "$e2" --format json > "$out/leaks.json"
top=$(sed 's/.*"groups":{[^[]*\[{"objects":\([0-9]*\),"leak_roots":[0-9]*,"retained":\([0-9]*\).*/\1 \2/' "$out/leaks.json")
objs=${top% *}; ret=${top#* }
[ -n "$objs" ] && [ "$objs" -le "$planted" ] && [ "$objs" -gt 0 ] && ok "leak mode's largest group: $objs of the $planted planted leaks, $ret bytes" ||
	bad "leak mode's largest group" "$top"
run leak-pass 0 "budget leak-group retained <= $ret
budget leak-group count <= $objs" "$e2" --leak-baseline "$e0" --leak-target "$e1"
has leak-pass "MaterialInstanceDynamic"
run leak-fail 1 "budget leak-group retained <= $((ret - 1))" "$e2" --leak-baseline "$e0" --leak-target "$e1"
has leak-fail "FAIL"
run leak-count-fail 1 "budget leak-group count <= $((objs - 1))" "$e2" --leak-baseline "$e0" --leak-target "$e1"
run leak-needs-series 2 "budget leak-group retained <= 1MiB" "$e2"
has leak-needs-series "--leak-baseline A --leak-target B"
run leak-budget-only 2 "growth leak-group retained <= 1MiB" "$e2"
has leak-budget-only "leak-group takes a budget only"

# --- JSON, by the project's reader (tests/json_check.c) ------------------------
if [ -n "$jc" ]; then
	for doc in "check:$out/check.json" "history:$out/history.json"; do
		cmd=${doc%%:*}
		msg=$("$jc" "$cmd" < "${doc#*:}") && ok "$cmd: JSON follows the convention" || bad "$cmd: JSON follows the convention" "$msg"
	done
fi

echo "check: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
