#!/bin/sh
# bench-scale.sh — `make bench SCALE=1`: how each job's time and peak memory
# grow with the heap (issue 28).  For each UE size of BENCH_SIZES it
# generates a heap (`gen --objects N`) and a second one of the same size
# (seed 2, for diff); for each V8 size of BENCH_V8_SIZES a snapshot (`gen
# --format v8 --nodes N`) and its seed-2 twin.  Then it times, one job at a
# time, with GNU time: load (info), GC + dominators (top), analyze to a
# database, diff against the twin, sql on the snapshot (one aggregate over
# the retained sizes: GC and dominators), path --all (--limit 20) and cut.
# One row a job: size, job, wall seconds, peak RSS, µs and peak bytes an
# object, the load average then.  The files of a size are deleted before
# the next size; the directory at the end.  A benchmark, not a test.
#
#   BENCH_SIZES      UE object counts (default 1000000 2000000 5000000 10000000)
#   BENCH_V8_SIZES   V8 node counts (default 1000000 4000000 10000000); "" skips
#   BENCH_DIR        where the files go (default build/bench-scale)
#   BENCH_MEMLAB=1   also memlab on each V8 snapshot (needs node and npm;
#                    BENCH_MEMLAB_TIMEOUT seconds, default 600)
set -e
ugc=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
sizes=${BENCH_SIZES-1000000 2000000 5000000 10000000}
v8sizes=${BENCH_V8_SIZES-1000000 4000000 10000000}
dir=${BENCH_DIR:-build/bench-scale}
mkdir -p "$dir"
trap 'rm -rf "$dir"' EXIT
trap 'exit 130' INT TERM
if [ ! -x /usr/bin/time ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
	apt-get install -y -qq time >/dev/null 2>&1 || true
fi
[ -x /usr/bin/time ] || { echo "bench-scale: needs GNU time (apt-get install time)" >&2; exit 1; }

load() { cut -d' ' -f1 /proc/loadavg; }
# run KIND N JOB COMMAND...: times COMMAND, prints its row; a failure prints
# the output's tail and a "failed" row, and the run goes on.
run() {
	kind=$1 n=$2 job=$3
	shift 3
	l=$(load)
	if /usr/bin/time -f "%e %M" -o "$dir/time.txt" "$@" > "$dir/out.txt" 2>&1; then
		read -r secs kb < "$dir/time.txt"
		printf '%-3s %10s  %-8s %8.2f %8d %8.2f %8d  %5s\n' "$kind" "$n" "$job" "$secs" $((kb / 1024)) \
			"$(echo "$secs $n" | awk '{printf "%.2f", $1 * 1e6 / $2}')" $((kb * 1024 / n)) "$l"
	else
		tail -3 "$dir/out.txt" | sed 's/^/    /'
		printf '%-3s %10s  %-8s failed (%s)\n' "$kind" "$n" "$job" "$(tail -1 "$dir/time.txt")"
	fi
}
# model FILE N: the loaded model's bytes (info --bytes), a row of its own
model() {
	m=$("$ugc" --bytes info "$1" | sed -n 's/^memory *\([0-9]*\) B.*/\1/p')
	printf '%-3s %10s  %-8s %8s %8d %8s %8d  %5s\n' "$2" "$3" "model" "-" $((m / 1048576)) "-" $((m / $3)) "$(load)"
}

echo "machine: $(nproc) cores, $(free -g | awk '/^Mem/ {print $2}') GiB, $(uname -m); $(date -u '+%Y-%m-%d %H:%M') UTC"
echo "columns: kind, objects (nodes), job, wall s, peak MiB, us/object, peak B/object, load average (1 min) at the start"
echo "model: the loaded model's resident bytes (info --bytes), beside the peaks"
for n in $sizes; do
	h=$dir/ue.ugcs
	run ue "$n" gen "$ugc" gen --objects "$n" --seed 1 -o "$h" --force
	run ue "$n" gen2 "$ugc" gen --objects "$n" --seed 2 -o "$dir/ue2.ugcs" --force
	model "$h" ue "$n"
	run ue "$n" info "$ugc" info "$h"
	run ue "$n" top "$ugc" top "$h"
	run ue "$n" analyze "$ugc" analyze "$h" -o "$dir/ue.db" --force
	run ue "$n" diff "$ugc" diff "$h" "$dir/ue2.ugcs"
	run ue "$n" sql "$ugc" sql "$h" "SELECT count(*), sum(retained) FROM objects WHERE reachable"
	run ue "$n" path "$ugc" path "$h" /Game/Maps/Arena_0.Arena_0:PersistentLevel --all --limit 20
	run ue "$n" cut "$ugc" cut "$h" --world /Game/Maps/Arena_0.Arena_0
	ls -l "$h" "$dir/ue.db" | awk '{printf "    file %s: %.0f bytes\n", $9, $5}'
	rm -f "$dir"/ue*
done
for n in $v8sizes; do
	h=$dir/v8.heapsnapshot
	run v8 "$n" gen "$ugc" gen --format v8 --nodes "$n" --seed 1 -o "$h" --force
	run v8 "$n" gen2 "$ugc" gen --format v8 --nodes "$n" --seed 2 -o "$dir/v8b.heapsnapshot" --force
	model "$h" v8 "$n"
	run v8 "$n" info "$ugc" info "$h"
	run v8 "$n" top "$ugc" top "$h"
	run v8 "$n" analyze "$ugc" analyze "$h" -o "$dir/v8.db" --force
	run v8 "$n" diff "$ugc" diff "$h" "$dir/v8b.heapsnapshot"
	run v8 "$n" sql "$ugc" sql "$h" "SELECT count(*), sum(retained) FROM objects WHERE reachable"
	run v8 "$n" path "$ugc" path "$h" "#$((n / 2))" --all --limit 20
	run v8 "$n" cut "$ugc" cut "$h" "#$((n / 2))"
	if [ -n "$BENCH_MEMLAB" ]; then
		# memlab as tools/v8-bench.sh runs it (tools/v8-memlab.js: parse,
		# shortest paths, dominators, retained sizes), in a time limit
		ml=${MEMLAB_DIR:-/tmp/ugc-memlab}
		if [ ! -d "$ml/node_modules/@memlab/heap-analysis" ]; then
			mkdir -p "$ml" && (cd "$ml" && PUPPETEER_SKIP_DOWNLOAD=1 npm install --no-audit --no-fund memlab@2 \
				>/dev/null 2>&1) || true
		fi
		run v8 "$n" memlab timeout "${BENCH_MEMLAB_TIMEOUT:-600}" \
			node --max-old-space-size=16000 "$(dirname "$0")/v8-memlab.js" "$ml/node_modules" "$h" "$dir/memlab.out"
	fi
	ls -l "$h" "$dir/v8.db" | awk '{printf "    file %s: %.0f bytes\n", $9, $5}'
	rm -f "$dir"/v8* "$dir/memlab.out"
done
