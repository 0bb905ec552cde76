#!/bin/sh
# run.sh — runs every test: the C unit tests, then the command-line tests
# (cli.sh, hostile.sh for hostile and degenerate input, interrupt.sh for
# interrupts, leftovers and progress, sql_snapshot.sh: `sql` on snapshots
# against their databases, paths.sh for path and selectors, node_ids.sh for
# V8 node ids (@ID, objects.node_id, JSON node_id), attacks.sh for
# structured attacks, check.sh for check --rules and history, report.sh for
# the HTML report (in headless Chromium too), capture.sh for the capture
# library, batch.sh for tools/batch-analyze.sh (the fleet case) and readme.sh for
# the README's tour, run as written).
# Usage: tests/run.sh UGC_ANALYZE_BINARY UNIT_TEST_BINARY [OUTDIR [UGC_REFDUMP]]
# Ends with the line "N passed, N failed" and exits non-zero on any failure.
bin=$1
unit=$2
out=${3:-tests/out}
refdump=$4
rm -rf "$out"
mkdir -p "$out"
passed=0
failed=0

# suite NAME LOG COMMAND...: run one suite, print its "NAME: N passed, N
# failed" line, and add its counts to the totals.  A passing suite prints
# nothing else: what it printed, the expected errors of its hostile cases
# included, stays in its log.  A failing one prints its log, but for the
# "ok" lines, so that the failure can be read where the run was.
suite() {
	name=$1
	log=$2
	shift 2
	"$@" > "$log" 2>&1
	status=$?
	line=$(grep "^$name: " "$log")
	echo "$line" | grep -q ' 0 failed$' && [ $status -eq 0 ] ||
		grep -v '^ok  ' "$log" | grep -v "^$name: "
	if [ -z "$line" ] || [ $status -gt 1 ]; then
		echo "$name tests did not finish (status $status); see $log"
		failed=$((failed + 1))
		return
	fi
	echo "$line"
	passed=$((passed + $(echo "$line" | sed 's/.*: \([0-9]*\) passed.*/\1/')))
	failed=$((failed + $(echo "$line" | sed 's/.* \([0-9]*\) failed.*/\1/')))
}

suite unit "$out/unit.log" "$unit"
suite cli "$out/cli.log" sh tests/cli.sh "$bin" "$out"
suite hostile "$out/hostile.log" sh tests/hostile.sh "$bin" "$out"
suite interrupt "$out/interrupt.log" sh tests/interrupt.sh "$bin" "$out"
suite sql-snapshot "$out/sql-snapshot.log" sh tests/sql_snapshot.sh "$bin" "$out"
suite paths "$out/paths.log" sh tests/paths.sh "$bin" "$out"
suite cut "$out/cut.log" sh tests/cut.sh "$bin" "$out"
suite node-ids "$out/node-ids.log" sh tests/node_ids.sh "$bin" "$out"
suite attacks "$out/attacks.log" sh tests/attacks.sh "$bin" "$out" "$(dirname "$unit")/attack-db"
suite json "$out/json.log" sh tests/json.sh "$bin" "$out" "$(dirname "$unit")/json-check"
suite check "$out/check.log" sh tests/check.sh "$bin" "$out" "$(dirname "$unit")/json-check"
suite report "$out/report.log" sh tests/report.sh "$bin" "$out" "$(dirname "$unit")/json-check"
suite fleet "$out/fleet.log" sh tests/batch.sh "$bin" "$out"
[ -n "$refdump" ] && suite capture "$out/capture.log" sh tests/capture.sh "$bin" "$refdump" "$out"
[ -n "$refdump" ] && suite readme "$out/readme.log" sh tests/readme.sh "$bin" "$refdump" "$out"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
