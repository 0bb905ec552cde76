#!/bin/sh
# hostile.sh — command-line tests for hostile and degenerate input (issue 8):
# each reproducer is built here, then the tool must answer it cleanly (the
# sanitizer run turns any undefined behaviour on the way into a failure).
# Usage: tests/hostile.sh UGC_ANALYZE OUTDIR.  Prints "ok  NAME" or
# "FAIL NAME" per test and ends with "hostile: N passed, N failed".
ugc=$1
out=$2/hostile
mkdir -p "$out"
passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok   $1"; }
bad() { failed=$((failed + 1)); echo "FAIL $1"; [ -n "$2" ] && echo "    $2"; }
# expect NAME RC COMMAND...: COMMAND exits with RC and prints no sanitizer report
expect() {
	name=$1 want=$2
	shift 2
	"$@" > "$out/stdout" 2> "$out/stderr"
	rc=$?
	if [ $rc -eq "$want" ] && ! grep -q 'runtime error\|Sanitizer' "$out/stderr"; then
		ok "$name"
	else
		bad "$name" "rc=$rc (want $want): $(head -3 "$out/stderr")"
	fi
}

# --- issue 8 item 10: empty heaps and heaps without clusters ------------------
printf 'ugc-text 1\n' > "$out/empty.ugct"
expect "info on an empty heap" 0 "$ugc" info "$out/empty.ugct"
expect "analyze --after on an empty heap" 0 "$ugc" analyze "$out/empty.ugct" -o "$out/empty.db" --after "$out/empty-after.ugct"
expect "the empty after-heap reloads" 0 "$ugc" info "$out/empty-after.ugct"
for input in "$out/empty.ugct" "$out/empty.db" testdata/chains.ugct; do
	for cmd in clusters "clusters --check" findings; do
		expect "$cmd on $(basename "$input") (no clusters)" 0 "$ugc" $cmd "$input"
	done
done
expect "diff of two empty heaps" 0 "$ugc" diff "$out/empty.ugct" "$out/empty.db"

# --- the OOM policy: out of memory is one line and exit 1 ------------------------
# Under an address-space limit each step in turn runs out of memory (load,
# GC, dominators, SQLite); each failure must be one "out of memory" line,
# exit status 1 and no temporary file left behind.  Skipped where such a limit
# cannot be set (the sanitizer build reserves terabytes of address space).
if (ulimit -v 8000 && "$ugc" --version) >/dev/null 2>&1; then
	mkdir -p "$out/oom"
	"$ugc" gen --objects 50000 --seed 1 -o "$out/oom.ugcs" >/dev/null 2>&1
	oom_fail=0 oom_bad=""
	for lim in 8000 12000 16000 20000 24000 32000 40000 48000 56000 64000; do
		(ulimit -v $lim; "$ugc" analyze "$out/oom.ugcs" -o "$out/oom/x.db" --force >/dev/null 2>"$out/oom.err")
		rc=$?
		[ $rc -eq 0 ] && continue
		oom_fail=$((oom_fail + 1))
		if [ $rc -ne 1 ] || [ "$(wc -l < "$out/oom.err")" -ne 1 ] || ! grep -q 'out of memory' "$out/oom.err"; then
			oom_bad="$oom_bad [$lim KiB: rc=$rc $(head -2 "$out/oom.err")]"
		fi
	done
	left=$(ls "$out/oom" | grep '\.tmp\.')
	[ $oom_fail -gt 0 ] && [ -z "$oom_bad" ] && [ -z "$left" ] &&
		ok "out of memory is one line and exit 1 ($oom_fail limits failed)" ||
		bad "out of memory is one line and exit 1" "$oom_fail failed:$oom_bad $left"
fi

echo "hostile: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
