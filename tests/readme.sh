#!/bin/sh
# readme.sh — the README's tour is a test.  Every command of the indented
# blocks of its "A short tour" section that starts with ./ugc-analyze or
# build/rel/ugc-refdump runs, in the README's order, in a fresh folder where
# those two names are the binaries under test; it must exit 0, and every
# line the README shows after it (up to the next command or comment) must be
# a line of its output — a line ending in "..." the start of one, a line
# "..." nothing.  A command may go on over several lines inside a "..."
# string.  So the README cannot drift from what the tool does.
# Usage: tests/readme.sh UGC_ANALYZE UGC_REFDUMP OUTDIR [README]
# Prints "ok   NAME" or "FAIL NAME" per command and ends with
# "readme: N passed, N failed".
ugc=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
refdump=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
mkdir -p "$3"
out=$(cd "$3" && pwd)/readme
readme=${4:-README.md}
repo=$(pwd)
rm -rf "$out"
mkdir -p "$out/work/build/rel" "$out/steps"
ln -s "$ugc" "$out/work/ugc-analyze"
ln -s "$refdump" "$out/work/build/rel/ugc-refdump"
ln -s "$repo/testdata" "$out/work/testdata"
passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok   $1"; }
bad() { failed=$((failed + 1)); echo "FAIL $1"; [ -n "$2" ] && echo "    $2"; }

# the tour's steps: step-K.sh (the command) and step-K.want (the lines shown)
awk -v dir="$out/steps" '
	/^## / { in_tour = ($0 ~ /^## A short tour/); next }
	!in_tour { next }
	function quotes(s,   t) { t = s; return gsub(/"/, "", t) }
	function flush() { if (k) close(dir "/step-" k ".sh"); }
	{
		if (open_cmd) { # a "..." string goes on
			print substr($0, 5) >> (dir "/step-" k ".sh")
			if (quotes($0) % 2) open_cmd = 0
			next
		}
		if ($0 !~ /^    /) { cmd = 0; next }
		line = substr($0, 5)
		if (line ~ /^\.\/ugc-analyze / || line ~ /^build\/rel\/ugc-refdump /) {
			flush(); k++; cmd = 1
			print line > (dir "/step-" k ".sh")
			printf "" > (dir "/step-" k ".want")
			open_cmd = quotes(line) % 2
			next
		}
		if (line ~ /^#( |$)/) { cmd = 0; next }
		if (cmd && line != "...") print line >> (dir "/step-" k ".want")
	}
	END { flush(); print k > (dir "/count") }
' "$readme"
n=$(cat "$out/steps/count")
[ "${n:-0}" -gt 10 ] && ok "the tour has $n commands" || bad "the tour has commands" "found ${n:-0}"
k=1
while [ "$k" -le "${n:-0}" ]; do
	step="$out/steps/step-$k"
	name="tour $k: $(head -n 1 "$step.sh" | cut -c1-100)"
	(cd "$out/work" && timeout 120 sh "$step.sh") > "$step.out" 2>&1
	rc=$?
	missing=""
	while IFS= read -r want; do
		case "$want" in
		*...) grep -qF -- "${want%...}" "$step.out" || missing="$want" ;;
		*) grep -qxF -- "$want" "$step.out" || missing="$want" ;;
		esac
		[ -n "$missing" ] && break
	done < "$step.want"
	if [ $rc -ne 0 ]; then
		bad "$name" "exit $rc: $(head -n 3 "$step.out")"
	elif [ -n "$missing" ]; then
		bad "$name" "the README shows a line it did not print: $missing"
	else
		ok "$name"
	fi
	k=$((k + 1))
done
echo "readme: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
