#!/bin/sh
# batch-analyze.sh — the fleet case (issue 28, item 4): `analyze` every
# snapshot of a folder that has no database yet, several at a time, bounded
# by the cores and by memory.  A snapshot is a file ending .ugcs, .ugct,
# .heapsnapshot, or one of them .zst; its database is its name with that
# ending replaced by .db, beside it or in the -o folder.  One whose database
# exists and is not older than it is skipped: `analyze` writes to a
# temporary file and renames it when done, so a database that exists is
# whole, and a rerun after a crash or an interrupt redoes only what was not
# finished.
#
# Memory: each job's peak is estimated from its input's size (bytes of peak
# per byte of file, measured on generated heaps, BENCHMARKS.md: about 7x a
# .ugcs, 2x a .ugct, 2.5x a .heapsnapshot, 30x a .zst, plus 64 MiB), and as
# many jobs run at once as the largest estimate fits in --mem (default: 80%
# of MemAvailable), never more than -j (default: the cores).
#
# Prints one line a snapshot (analyzed, with its seconds; skipped; FAILED,
# with analyze's last line) and a total; exits 1 if any failed, 2 on a usage
# error.  The binary is $UGC_ANALYZE, else ugc-analyze on PATH, else the
# repository's own.  POSIX sh with xargs -P (GNU or BSD xargs).
# Usage: tools/batch-analyze.sh DIR [-j N] [--mem GiB] [-o OUTDIR] [-- ANALYZE OPTIONS...]
set -u
me=$0

if [ "${1:-}" = --one ]; then # internal: one job, run by xargs
	shift
	in=$1 db=$2 force=$3 log=$4
	start=$(date +%s)
	# shellcheck disable=SC2086 # the options, split into words
	if "$UGC_ANALYZE" analyze "$in" -o "$db" $force --quiet $BATCH_OPTS > "$log" 2>&1; then
		echo "analyzed $in -> $db: $(($(date +%s) - start)) s"
		rm -f "$log"
	else
		echo "FAILED   $in: $(grep -v '^$' "$log" | tail -n 1)"
		rm -f "$log"
	fi
	exit 0
fi

usage() { echo "usage: tools/batch-analyze.sh DIR [-j N] [--mem GiB] [-o OUTDIR] [-- ANALYZE OPTIONS...]" >&2; exit 2; }
dir='' jobs='' mem='' outdir=''
while [ $# -gt 0 ]; do
	case $1 in
	-j) [ $# -ge 2 ] || usage; jobs=$2; shift 2 ;;
	-j*) jobs=${1#-j}; shift ;;
	--mem) [ $# -ge 2 ] || usage; mem=$2; shift 2 ;;
	-o) [ $# -ge 2 ] || usage; outdir=$2; shift 2 ;;
	--) shift; break ;;
	-*) usage ;;
	*) [ -z "$dir" ] || usage; dir=$1; shift ;;
	esac
done
[ -n "$dir" ] && [ -d "$dir" ] || usage
case $jobs in '' | *[!0-9]* | 0) [ -z "$jobs" ] || usage ;; esac
case $mem in '' ) ;; *[!0-9.]* | . ) usage ;; esac
[ -z "$outdir" ] || mkdir -p "$outdir" || exit 2
BATCH_OPTS="$*" # analyze's options (words without spaces: --mode editor, --threads 1)
export BATCH_OPTS

if [ -z "${UGC_ANALYZE:-}" ]; then
	if command -v ugc-analyze >/dev/null 2>&1; then UGC_ANALYZE=ugc-analyze
	else UGC_ANALYZE=$(cd "$(dirname "$me")/.." && pwd)/ugc-analyze; fi
fi
export UGC_ANALYZE
cores=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
[ -n "$jobs" ] || jobs=$cores
if [ -n "$mem" ]; then
	mem_mib=$(echo "$mem" | awk '{printf "%d", $1 * 1024}')
else
	mem_mib=$(awk '/^MemAvailable:/ {printf "%d", $2 / 1024 * 0.8}' /proc/meminfo 2>/dev/null)
	[ -n "$mem_mib" ] || mem_mib=4096
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/batch-analyze.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
total=0 skipped=0 todo=0 peak=0
# the work list: IN, DB and --force or - (a database older than its
# snapshot is redone), NUL-separated for xargs -0
: > "$tmp/list"
for in in "$dir"/*; do
	[ -f "$in" ] || continue
	base=$(basename "$in")
	case $base in
	*.ugcs.zst | *.ugct.zst) stem=${base%.*.zst} ratio=30 ;;
	*.heapsnapshot.zst) stem=${base%.heapsnapshot.zst} ratio=30 ;;
	*.ugcs) stem=${base%.ugcs} ratio=7 ;;
	*.ugct) stem=${base%.ugct} ratio=2 ;;
	*.heapsnapshot) stem=${base%.heapsnapshot} ratio=3 ;;
	*) continue ;;
	esac
	total=$((total + 1))
	db=${outdir:-$dir}/$stem.db
	force=-
	if [ -f "$db" ]; then
		if [ -n "$(find "$in" -newer "$db")" ]; then force=--force; else
			echo "skipped  $in: $db exists"
			skipped=$((skipped + 1))
			continue
		fi
	fi
	size_mib=$(($(wc -c < "$in") / 1048576))
	est=$((size_mib * ratio + 64))
	[ "$est" -gt "$peak" ] && peak=$est
	todo=$((todo + 1))
	printf '%s\0%s\0%s\0%s\0' "$in" "$db" "$force" "$tmp/log-$todo" >> "$tmp/list"
done

par=$jobs
[ "$peak" -gt 0 ] && [ $((mem_mib / peak)) -lt "$par" ] && par=$((mem_mib / peak))
[ "$par" -ge 1 ] || par=1
if [ "$todo" -gt 0 ]; then
	echo "batch: $todo to analyze, $par at a time (-j $jobs, $mem_mib MiB for jobs estimated at up to $peak MiB each)"
	xargs -0 -n 4 -P "$par" sh -c 'f=$3; [ "$f" = - ] && f=; exec sh "$0" --one "$1" "$2" "$f" "$4"' "$me" \
		< "$tmp/list" | tee "$tmp/results"
fi
failed=$(grep -c '^FAILED' "$tmp/results" 2>/dev/null) || true
analyzed=$(grep -c '^analyzed' "$tmp/results" 2>/dev/null) || true
echo "batch: $total snapshots: ${analyzed:-0} analyzed, $skipped skipped (already analyzed), ${failed:-0} failed"
[ "${failed:-0}" -eq 0 ]
