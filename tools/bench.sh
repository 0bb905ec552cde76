#!/bin/sh
# bench.sh — `make bench`: times and peak memory of the main jobs on a
# generated 2M-object heap (about 20M references), and the GC with one and
# two threads.  A benchmark, not a test: it prints figures for BENCHMARKS.md.
# BENCH_OBJECTS overrides the size.
set -e
ugc=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
n=${BENCH_OBJECTS:-2000000}
dir=build/bench
mkdir -p "$dir"
if [ ! -x /usr/bin/time ]; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		apt-get install -y -qq time >/dev/null 2>&1 || true
	fi
fi
[ -x /usr/bin/time ] || { echo "bench: needs GNU time (apt-get install time)" >&2; exit 1; }
run() { # LABEL COMMAND...: prints "LABEL  seconds  peak RSS"
	label=$1
	shift
	/usr/bin/time -f "%e %M" -o "$dir/time.txt" "$@" > "$dir/out.txt" 2>&1 || { cat "$dir/out.txt"; exit 1; }
	read -r secs kb < "$dir/time.txt"
	printf '%-34s %8.2f s %8d MiB\n' "$label" "$secs" $((kb / 1024))
}
# dominators FILE: dominators + retained sizes + class/package aggregates,
# timed by analyze's own clock (its "retention" line; analyze is stopped once
# the summary is out, before its database), the time beyond load of `top` and
# `refs`, and peak RSS of `info` (load), `refs` (load, GC, query view and
# its rows by target, 8 bytes a reference) and `top` (load, GC, dominators,
# view): top's RSS over info's is what the GC and the dominators add to
# the loaded heap.
dominators() {
	f=$1
	: > "$dir/an.txt" # empty before the start, so that no older line is read
	"$ugc" analyze "$f" -o "$dir/dom.db" --force > "$dir/an.txt" 2>&1 &
	pid=$!
	while kill -0 "$pid" 2>/dev/null && ! grep -q 'retention (policy' "$dir/an.txt"; do sleep 0.1; done
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	rm -f "$dir"/dom.db*
	grep -E 'retention \(policy|time: load' "$dir/an.txt" | sed 's/^LogGarbage: /  /'
	run "info (load)" "$ugc" info "$f"
	objs=$(sed -n 's/^objects *\([0-9,]*\).*/\1/p' "$dir/out.txt" | tr -d ,)
	info_kb=$kb
	run "refs (load, GC, view)" env UGC_TRACE=1 "$ugc" refs "$f" 1
	grep '^trace:' "$dir/out.txt" | sed 's/^/  /'
	run "top (load, GC, dominators, view)" env UGC_TRACE=1 "$ugc" top "$f"
	grep '^trace:' "$dir/out.txt" | sed 's/^/  /'
	echo "  top over info: $(((kb - info_kb) * 1024 / objs)) B an object ($objs objects)"
	# whatif: cut the first generated level; "answered" is the changed GC and report
	lvl=/Game/Maps/Arena_0.Arena_0:PersistentLevel
	run "whatif --cut $lvl" env UGC_TRACE=1 "$ugc" whatif "$f" --cut "$lvl"
	grep -E '^(trace|freed):' "$dir/out.txt" | sed 's/^/  /'
}
if [ -n "$BENCH_DOMINATORS" ]; then # sizes, e.g. "200000 2000000": this step alone
	echo "machine: $(nproc) cores, $(free -g | awk '/^Mem/ {print $2}') GiB, $(uname -m); load $(cut -d' ' -f1-3 /proc/loadavg)"
	for n in $BENCH_DOMINATORS; do
		echo "dominators: gen --objects $n --seed 1"
		run "gen (binary out)" "$ugc" gen --objects "$n" --seed 1 -o "$dir/dom.ugcs" --force
		dominators "$dir/dom.ugcs"
	done
	exit 0
fi
echo "machine: $(nproc) cores, $(free -g | awk '/^Mem/ {print $2}') GiB, $(uname -m); $(date -u +%Y-%m-%d)"
echo "heap: gen --objects $n --seed 1"
run "gen (binary out)" "$ugc" gen --objects "$n" --seed 1 -o "$dir/heap.ugcs" --force
run "convert binary -> text" "$ugc" convert "$dir/heap.ugcs" "$dir/heap.ugct" --force
run "convert text -> binary" "$ugc" convert "$dir/heap.ugct" "$dir/heap2.ugcs" --force
run "text load (info)" "$ugc" info "$dir/heap.ugct"
run "binary load (info)" "$ugc" info "$dir/heap.ugcs"
grep -E '^(objects|references|memory) ' "$dir/out.txt"
ls -l "$dir/heap.ugcs" "$dir/heap.ugct" | awk '{printf "file %s: %d bytes\n", $9, $5}'
for t in 1 2; do
	run "analyze --threads $t (all)" env UGC_TRACE=1 "$ugc" analyze "$dir/heap.ugcs" -o "$dir/heap.db" --threads $t --force
	grep -E 'time:|wrote' "$dir/out.txt" | sed 's/^LogGarbage: /  /'
	grep -E '^trace: store:' "$dir/out.txt" | sed 's/^trace: /  /' | tr '\n' ' ' | sed 's/  */ /g'
	echo
done
ls -l "$dir/heap.db" | awk '{printf "database: %d bytes\n", $5}'
# queries: the answer alone (UGC_TRACE separates loading from answering)
echo "queries (input ready / answered), on objects spread over the heap:"
for obj in 1000 700000 1500000 1999000; do
	for cmd in refs path why; do
		for in in "$dir/heap.db" "$dir/heap.ugcs"; do
			t=$(UGC_TRACE=1 "$ugc" $cmd "$in" "$obj" 2>&1 >/dev/null | sed -n 's/^trace: input ready in \([0-9.]*\) s, answered in \([0-9.]*\) s/\1 \2/p')
			printf '  %-5s #%-8s %-5s ready %6s s  answered %6s s\n' "$cmd" "$obj" "${in##*.}" ${t:-? ?}
		done
	done
done
for cmd in "path --roots" "path --all --max 20" "clusters" "clusters --check" "findings"; do
	for in in "$dir/heap.db" "$dir/heap.ugcs"; do
		t=$(UGC_TRACE=1 "$ugc" $cmd "$in" $(case "$cmd" in path*) echo 1500000;; esac) 2>&1 >/dev/null | sed -n 's/^trace: input ready in \([0-9.]*\) s, answered in \([0-9.]*\) s/\1 \2/p')
		printf '  %-20s %-5s ready %6s s  answered %6s s\n' "$cmd" "${in##*.}" ${t:-? ?}
	done
done
# diff: the heap against its converted copy, and a generated series with churn
run "diff (2M vs 2M, snapshots)" "$ugc" diff "$dir/heap.ugcs" "$dir/heap2.ugcs"
run "diff (2M vs 2M, databases)" "$ugc" diff "$dir/heap.db" "$dir/heap.db"
run "gen --evolve (series of 3)" "$ugc" gen --objects "$n" --seed 1 --evolve -o "$dir/ev.ugcs" --force
run "diff ev-0 ev-1 (snapshots)" "$ugc" diff "$dir/ev-0.ugcs" "$dir/ev-1.ugcs"
sed -n 2p "$dir/out.txt" | sed 's/^/  /'
run "diff leak mode (3 snapshots)" "$ugc" diff --baseline "$dir/ev-0.ugcs" --target "$dir/ev-1.ugcs" --final "$dir/ev-2.ugcs"
sed -n 2p "$dir/out.txt" | sed 's/^/  /'
echo "dominators and retained sizes on the heap:"
dominators "$dir/heap.ugcs"
