#!/bin/sh
# run.sh — runs every test: the C unit tests, then the command-line tests.
# Usage: tests/run.sh UGC_ANALYZE_BINARY UNIT_TEST_BINARY
# Ends with the line "N passed, N failed" and exits non-zero on any failure.
bin=$1
unit=$2
out=tests/out
rm -rf "$out"
mkdir -p "$out"
passed=0
failed=0

"$unit" > "$out/unit.log" 2>&1
status=$?
grep -v '^ok  ' "$out/unit.log" | grep -v '^unit: '
line=$(grep '^unit: ' "$out/unit.log")
if [ -z "$line" ] || [ $status -gt 1 ]; then
	echo "unit tests crashed (status $status); see $out/unit.log"
	failed=$((failed + 1))
else
	p=$(echo "$line" | sed 's/unit: \([0-9]*\) passed, \([0-9]*\) failed/\1/')
	f=$(echo "$line" | sed 's/unit: \([0-9]*\) passed, \([0-9]*\) failed/\2/')
	passed=$((passed + p))
	failed=$((failed + f))
fi
echo "$line"

cli_log="$out/cli.log"
sh tests/cli.sh "$bin" "$out" > "$cli_log" 2>&1
status=$?
grep -v '^ok  ' "$cli_log" | grep -v '^cli: '
line=$(grep '^cli: ' "$cli_log")
if [ -z "$line" ] || [ $status -gt 1 ]; then
	echo "command-line tests did not finish (status $status); see $cli_log"
	failed=$((failed + 1))
else
	p=$(echo "$line" | sed 's/cli: \([0-9]*\) passed, \([0-9]*\) failed/\1/')
	f=$(echo "$line" | sed 's/cli: \([0-9]*\) passed, \([0-9]*\) failed/\2/')
	passed=$((passed + p))
	failed=$((failed + f))
fi
echo "$line"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
