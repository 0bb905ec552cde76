#!/bin/sh
# v8-bench.sh — ugc-analyze beside memlab on real V8 heap snapshots (issue 10).
# Writes three snapshots with node (about 100k, 1M and 4M nodes: npm's
# Arborist loading package trees, tools/v8-heap.js), installs memlab 2.x in
# WORKDIR (outside the repository), then for each snapshot runs, alternately,
# REPEAT times: memlab's getFullHeapFromFile (parse, paths, dominators,
# retained sizes; its own timing) and `ugc-analyze top` (load, GC,
# dominators, retained sizes), and `ugc-analyze info` (the load alone), with
# wall time and peak RSS from GNU time, keeping the best run of each.  Then
# it counts the nodes on which the two agree: immediate dominator and
# retained size (tools/v8-compare.js, from memlab's dump and the database
# `analyze` writes).  A benchmark, never a build or test dependency: needs
# node, npm and the network once.
# Usage: sh tools/v8-bench.sh ./ugc-analyze [WORKDIR]
#   V8_SIZES="100000 1000000 4000000"  REPEAT=2
set -e
ugc=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
work=${2:-/tmp/ugc-v8-bench}
tools=$(cd "$(dirname "$0")" && pwd)
sizes=${V8_SIZES:-100000 1000000 4000000}
repeat=${REPEAT:-2}
mkdir -p "$work"
work=$(cd "$work" && pwd)
if [ ! -d "$work/node_modules/@memlab/heap-analysis" ]; then
	echo "installing memlab 2.x into $work"
	(cd "$work" && PUPPETEER_SKIP_DOWNLOAD=1 npm install --no-audit --no-fund memlab@2 >/dev/null 2>&1)
fi
arborist="$(npm root -g 2>/dev/null)/npm/node_modules/@npmcli/arborist"
node=node
memlab_version=$(node -p "require('$work/node_modules/memlab/package.json').version")

# best WALL KB: keep the smaller wall time, and the peak RSS of that run
best() { awk -v w="$1" -v k="$2" -v bw="$3" -v bk="$4" 'BEGIN { if (bw == "" || w + 0 < bw + 0) print w, k; else print bw, bk }'; }

echo "machine: $(nproc) cores, $(free -g | awk '/^Mem/ {print $2}') GiB, $(uname -m), load $(cut -d' ' -f1-3 /proc/loadavg); $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "node $(node --version), memlab $memlab_version, ugc-analyze $("$ugc" --version | cut -d' ' -f2)"
printf '%-9s %-9s %-18s %-18s %-18s %-7s %s\n' nodes edges "memlab s/MiB" "ugc top s/MiB" "ugc load s/MiB" "speed" "agreement"
for n in $sizes; do
	snap="$work/heap-$n.heapsnapshot"
	[ -s "$snap" ] || $node --max-old-space-size=16000 "$tools/v8-heap.js" "$arborist" "$work" "$n" "$snap" >/dev/null
	counts=$(head -c 4096 "$snap" | sed -n 's/.*"node_count":\([0-9]*\),"edge_count":\([0-9]*\).*/\1 \2/p')
	m="" mk="" t="" tk="" l="" lk=""
	r=0
	while [ $r -lt "$repeat" ]; do
		/usr/bin/time -f "%e %M" -o "$work/time.txt" $node --max-old-space-size=16000 "$tools/v8-memlab.js" \
			"$work/node_modules" "$snap" "$work/memlab-$n.txt" 2> "$work/memlab.err" >/dev/null
		secs=$(sed -n 's/.*getFullHeapFromFile: \([0-9.]*\) s.*/\1/p' "$work/memlab.err")
		set -- $(best "$secs" "$(cut -d' ' -f2 "$work/time.txt")" "$m" "$mk"); m=$1 mk=$2
		/usr/bin/time -f "%e %M" -o "$work/time.txt" "$ugc" top "$snap" --limit 1 >/dev/null
		set -- $(best $(cat "$work/time.txt") "$t" "$tk"); t=$1 tk=$2
		/usr/bin/time -f "%e %M" -o "$work/time.txt" "$ugc" info "$snap" >/dev/null
		set -- $(best $(cat "$work/time.txt") "$l" "$lk"); l=$1 lk=$2
		r=$((r + 1))
	done
	"$ugc" analyze "$snap" -o "$work/heap-$n.db" --force --quiet
	fgi=$("$ugc" sql "$work/heap-$n.db" "SELECT value FROM snapshot WHERE key = 'first_gc_index'" --format csv | tail -1)
	"$ugc" sql "$work/heap-$n.db" "SELECT idx, idom, retained FROM objects WHERE idx >= $fgi ORDER BY idx" \
		--format csv | tail -n +2 > "$work/ugc-$n.csv"
	agree=$($node --max-old-space-size=16000 "$tools/v8-compare.js" "$work/memlab-$n.txt" "$work/ugc-$n.csv" "$fgi" \
		2> "$work/compare-$n.err")
	printf '%-9s %-9s %-18s %-18s %-18s %-7s %s\n' $counts "$m / $((mk / 1024))" "$t / $((tk / 1024))" \
		"$l / $((lk / 1024))" "$(awk -v a="$m" -v b="$t" 'BEGIN { printf "%.1fx", a / b }')" "$agree"
	sed 's/^/    /' "$work/compare-$n.err"
done
