#!/bin/sh
# v8-bench.sh — ugc-analyze beside memlab on real V8 heap snapshots of
# several shapes (issues 10 and 25).  Writes each snapshot with node
# (tools/v8-heap.js: "app:N", about N nodes of npm's Arborist loading
# package trees; "props:N", one object with N distinct property names;
# "chain:N", a linked list N long; "maps:N", N WeakMap keys and Map
# values), installs memlab 2.x in WORKDIR (outside the repository), then
# for each snapshot runs REPEAT rounds, interleaved in each round: memlab's
# getFullHeapFromFile (parse, shortest paths, dominators, retained sizes;
# its own clock around that call, and the process's peak RSS),
# `ugc-analyze top` (load, dominators, retained sizes, the answer: the
# whole process), `ugc-analyze analyze` (all that, the GC and the whole
# database written), and `ugc-analyze info` (the load alone), wall time
# and peak RSS from GNU time.  It prints the median of the rounds for each,
# the ratios (memlab's time over ours; our peak over memlab's) and the load
# average when the snapshot's rounds began.  Then it counts the nodes on
# which the two agree: immediate dominator and retained size
# (tools/v8-compare.js, from memlab's dump and the database `analyze`
# wrote).  A benchmark, never a build or test dependency: needs node, npm
# and the network once.
# Usage: sh tools/v8-bench.sh ./ugc-analyze [WORKDIR]
#   V8_SHAPES="app:100000 app:1000000 app:4000000 props:1000000 chain:1000000 maps:330000"
#   REPEAT=3  (V8_SIZES="N ..." still means app:N ...)
set -e
ugc=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
work=${2:-/tmp/ugc-v8-bench}
tools=$(cd "$(dirname "$0")" && pwd)
shapes=${V8_SHAPES:-}
if [ -z "$shapes" ]; then
	for n in ${V8_SIZES:-100000 1000000 4000000}; do shapes="$shapes app:$n"; done
fi
repeat=${REPEAT:-3}
mkdir -p "$work"
work=$(cd "$work" && pwd)
if [ ! -d "$work/node_modules/@memlab/heap-analysis" ]; then
	echo "installing memlab 2.x into $work"
	(cd "$work" && PUPPETEER_SKIP_DOWNLOAD=1 npm install --no-audit --no-fund memlab@2 >/dev/null 2>&1)
fi
arborist="$(npm root -g 2>/dev/null)/npm/node_modules/@npmcli/arborist"
node=node
memlab_version=$(node -p "require('$work/node_modules/memlab/package.json').version")

# the median of the numbers on standard input (the middle one, or the
# lower middle of an even count)
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# run "$@" under GNU time, appending "WALL KB" to the file $out
timed() {
	out=$1
	shift
	/usr/bin/time -f "%e %M" -o "$work/time.txt" "$@" >/dev/null 2>"$work/run.err"
	cat "$work/time.txt" >> "$out"
}
col() { cut -d' ' -f"$1" "$2" | median; }
ratio() { awk -v a="$1" -v b="$2" -v f="$3" 'BEGIN { printf f, a / b }'; }

echo "machine: $(nproc) cores, $(free -g | awk '/^Mem/ {print $2}') GiB, $(uname -m); $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "node $(node --version), memlab $memlab_version, ugc-analyze $("$ugc" --version | cut -d' ' -f2); medians of $repeat rounds"
printf '%-14s %-9s %-9s %-7s %-14s %-14s %-14s %-14s %-6s %-6s %-6s %-5s %s\n' shape nodes edges MB "memlab s/MiB" \
	"top s/MiB" "analyze s/MiB" "info s/MiB" "top" "mem" "anlz" load agreement
for shape in $shapes; do
	kind=${shape%%:*} n=${shape#*:}
	snap="$work/$kind-$n.heapsnapshot"
	if [ ! -s "$snap" ]; then
		if [ "$kind" = app ]; then
			$node --max-old-space-size=16000 "$tools/v8-heap.js" "$arborist" "$work" "$n" "$snap" >/dev/null
		else
			$node --max-old-space-size=16000 "$tools/v8-heap.js" "$kind" "$n" "$snap" >/dev/null
		fi
	fi
	counts=$(head -c 4096 "$snap" | sed -n 's/.*"node_count":\([0-9]*\),"edge_count":\([0-9]*\).*/\1 \2/p')
	mb=$(($(wc -c < "$snap") / 1000000))
	load=$(cut -d' ' -f1 /proc/loadavg)
	rm -f "$work"/t-*.txt
	r=0
	while [ $r -lt "$repeat" ]; do
		timed "$work/t-mem.txt" $node --max-old-space-size=16000 "$tools/v8-memlab.js" \
			"$work/node_modules" "$snap" "$work/memlab-$kind-$n.txt"
		sed -n 's/.*getFullHeapFromFile: \([0-9.]*\) s.*/\1/p' "$work/run.err" >> "$work/t-memclock.txt"
		timed "$work/t-top.txt" "$ugc" top "$snap" --limit 1
		timed "$work/t-analyze.txt" "$ugc" analyze "$snap" -o "$work/heap.db" --force --quiet
		timed "$work/t-info.txt" "$ugc" info "$snap"
		r=$((r + 1))
	done
	m=$(median < "$work/t-memclock.txt") mk=$(col 2 "$work/t-mem.txt")
	t=$(col 1 "$work/t-top.txt") tk=$(col 2 "$work/t-top.txt")
	a=$(col 1 "$work/t-analyze.txt") ak=$(col 2 "$work/t-analyze.txt")
	l=$(col 1 "$work/t-info.txt") lk=$(col 2 "$work/t-info.txt")
	fgi=$("$ugc" sql "$work/heap.db" "SELECT value FROM snapshot WHERE key = 'first_gc_index'" --format csv | tail -1)
	"$ugc" sql "$work/heap.db" "SELECT idx, idom, retained FROM objects WHERE idx >= $fgi ORDER BY idx" \
		--format csv | tail -n +2 > "$work/ugc.csv"
	agree=$($node --max-old-space-size=16000 "$tools/v8-compare.js" "$work/memlab-$kind-$n.txt" "$work/ugc.csv" "$fgi" \
		2> "$work/compare.err")
	printf '%-14s %-9s %-9s %-7s %-14s %-14s %-14s %-14s %-6s %-6s %-6s %-5s %s\n' "$shape" $counts "$mb" \
		"$m/$((mk / 1024))" "$t/$((tk / 1024))" "$a/$((ak / 1024))" "$l/$((lk / 1024))" \
		"$(ratio "$m" "$t" '%.1fx')" "$(ratio "$tk" "$mk" '%.3f')" "$(ratio "$m" "$a" '%.1fx')" "$load" "$agree"
	sed 's/^/    /' "$work/compare.err"
	echo "    rounds (s): memlab $(tr '\n' ' ' < "$work/t-memclock.txt")| top $(cut -d' ' -f1 "$work/t-top.txt" | tr '\n' ' ')| analyze $(cut -d' ' -f1 "$work/t-analyze.txt" | tr '\n' ' ')"
	rm -f "$work/heap.db" "$work/ugc.csv"
done
