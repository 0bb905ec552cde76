#!/bin/sh
# capture.sh — the capture library end to end: the reference dumper
# (capture/refdump.c) builds an engine-like heap, captures it through
# libugccapture, and ugc-analyze analyses the file.  Every expected value is
# derived by hand from the heap refdump.c builds (see the comment there):
#   13 natives (indexes 0-12, the disregard pool, first-gc-index 13);
#   12 more objects (13 /Engine/Transient ... 24 M_Unused); N enemies, each an
#   actor 25+2i and its component 26+2i; every fourth enemy (i % 4 == 3) and
#   its component are Garbage, so G = N/4 of each.
# The GC then purges the G destroyed enemies, their G components, M_Unused
# and its package (referenced only softly): 2G + 2 objects, of
# 2000 G + 5100 bytes; it eliminates G references Level.Actors[i] and clears
# G weak references Target (held by the enemies i % 4 == 2, traced).
# Usage: tests/capture.sh UGC_ANALYZE UGC_REFDUMP OUTDIR.  Prints "ok  NAME"
# or "FAIL NAME" per test and ends with "capture: N passed, N failed".
ugc=$1
refdump=$2
out=$3
passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok   $1"; }
bad() { failed=$((failed + 1)); echo "FAIL $1"; [ -n "$2" ] && echo "    $2"; }
sql() { "$ugc" sql "$@" --format csv | tail -n +2; }
# expect NAME GOT WANT
expect() { if [ "$2" = "$3" ]; then ok "$1"; else bad "$1" "got '$2', want '$3'"; fi; }

"$refdump" --help | grep -q '^usage: ugc-refdump' && ok "refdump --help" || bad "refdump --help"
"$refdump" --enemies 5 "$out/x.ugct" >/dev/null 2>&1; [ $? -eq 2 ] && ok "refdump refuses N not a multiple of 4" ||
	bad "refdump refuses N not a multiple of 4"

for n in 8 4000; do
	g=$((n / 4))
	f="$out/refdump-$n.ugct"
	[ $n -gt 8 ] && f="$f.zst"
	zstd=""
	[ $n -gt 8 ] && zstd="--zstd 3"
	msg=$("$refdump" --enemies $n $zstd "$f" 2>&1)
	case "$msg" in
	"ugc-refdump: $f: $((25 + 2 * n)) objects, "*" bytes"*) ok "refdump $n: captured $((25 + 2 * n)) objects" ;;
	*) bad "refdump $n: captured" "$msg"; continue ;;
	esac
	# an existing file is not overwritten without --force
	"$refdump" --enemies $n $zstd "$f" >/dev/null 2>&1 && bad "refdump $n: refuses to overwrite" ||
		ok "refdump $n: refuses to overwrite"
	db="$out/refdump-$n.db"
	if ! "$ugc" analyze "$f" -o "$db" > "$out/refdump-$n.log" 2>&1; then
		bad "refdump $n: analyze" "$(head -3 "$out/refdump-$n.log")"
		continue
	fi
	ok "refdump $n: analyze reads the captured file"
	expect "refdump $n: engine and mode" "$(sql "$db" "SELECT value FROM snapshot WHERE key IN ('engine','mode','first_gc_index') ORDER BY key" | tr '\n' '|')" \
		"5.5.0 (reference dumper)|13|game|"
	expect "refdump $n: objects, disregard pool" "$(sql "$db" "SELECT count(*), sum(idx < 13) FROM objects")" "$((25 + 2 * n)),13"
	expect "refdump $n: purged objects and bytes" "$(sql "$db" "SELECT count(*), sum(size) FROM purge")" \
		"$((2 * g + 2)),$((2000 * g + 5100))"
	expect "refdump $n: purged are the destroyed enemies, their components, M_Unused and its package" \
		"$(sql "$db" "SELECT count(*) FROM purge p JOIN objects o USING (idx) WHERE
			(o.idx >= 25 AND ((o.idx - 25) / 2) % 4 = 3) OR o.idx IN (23, 24)")" "$((2 * g + 2))"
	expect "refdump $n: eliminated references" "$(sql "$db" "SELECT count(*), sum(property = 'Actors[' || ((dst - 25) / 2) || ']'), sum(src = 18), sum((dst - 25) / 2 % 4 = 3) FROM eliminated_refs")" \
		"$g,$g,$g,$g"
	expect "refdump $n: cleared weak references" "$(sql "$db" "SELECT count(*), sum((src - 25) / 2 % 4 = 2), min(property), max(property) FROM cleared_weak_refs")" \
		"$g,$g,Target,Target"
	expect "refdump $n: the cluster stays alive" "$(sql "$db" "SELECT root, members, mutable, referenced, state FROM clusters")" \
		"20,1,2,0,alive"
	expect "refdump $n: root kinds" "$(sql "$db" "SELECT root_kind FROM objects WHERE idx IN (5, 13, 14, 20, 22, 25) ORDER BY idx" | tr '\n' ' ')" \
		"disregard rootset rootset gcobject cluster referenced "
	# GameEngine_0 -aro-> Arena -> PersistentLevel -Actors[0]-> BP_Enemy_C_0
	expect "refdump $n: retention path of the first enemy" \
		"$(sql "$db" "SELECT distance, parent, parent_property FROM objects WHERE idx = 25")" "3,18,Actors[0]"
	expect "refdump $n: soft references keep nothing" \
		"$(sql "$db" "SELECT count(*), sum(dst = 24) FROM refs WHERE kind = 'soft'")" "$n,$n"
	expect "refdump $n: FGCObject reference" "$(sql "$db" "SELECT referencer, dst, property FROM gc_object_refs")" \
		"FStreamableManager,20,ManagedHandles[0]"
	expect "refdump $n: no finding but the eliminated references" "$(sql "$db" "SELECT count(*) FROM findings WHERE kind <> 'eliminated-ref'")" "0"
done

# --- the plugin's copy of the library: install.sh, and the library built as
# the plugin builds it (C99, UGC_CAPTURE_NO_ZSTD) under the reference dumper
proj="$out/UeProject"
rm -rf "$proj"
mkdir -p "$proj"
priv="$proj/Plugins/UgcCapture/Source/UgcCapture/Private"
if sh engine/UE5/install.sh "$proj" >/dev/null && [ -f "$proj/Plugins/UgcCapture/UgcCapture.uplugin" ] &&
	[ -f "$priv/ugc_capture.h" ] && [ -f "$priv/ugc_writer.c" ] && [ -f "$priv/UgcHeapCapture.cpp" ] && [ ! -e "$priv/refdump.c" ]; then
	ok "install.sh puts the plugin and the library sources in a project"
else
	bad "install.sh puts the plugin and the library sources in a project"
fi
if ${CC:-cc} -std=c99 -pedantic-errors -Wall -Wextra -Werror -DUGC_CAPTURE_NO_ZSTD -I"$priv" -o "$out/refdump-nozstd" \
	capture/refdump.c "$priv"/ugc_*.c 2>"$out/nozstd.log"; then
	ok "library builds as the plugin builds it (C99, no zstd)"
	"$out/refdump-nozstd" --enemies 8 "$out/nozstd.ugct" >/dev/null && cmp -s "$out/nozstd.ugct" "$out/refdump-8.ugct" &&
		ok "without zstd: the same file" || bad "without zstd: the same file"
	msg=$("$out/refdump-nozstd" --enemies 8 --zstd 3 "$out/nozstd.ugct.zst" 2>&1)
	if [ -n "${msg##*has no zstd*}" ] || [ -e "$out/nozstd.ugct.zst" ]; then
		bad "without zstd: compression refused" "$msg"
	else
		ok "without zstd: compression refused"
	fi
else
	bad "library builds as the plugin builds it (C99, no zstd)" "$(head -3 "$out/nozstd.log")"
fi
# the header is what the plugin's C++ includes
if command -v ${CXX:-c++} >/dev/null 2>&1; then
	printf '#include "ugc_capture.h"\nint main() { ugc_options o = UGC_OPTIONS_INIT; ugc_object x = {}; return o.compress + (int)x.size; }\n' > "$out/cxx.cpp"
	${CXX:-c++} -std=c++17 -Wall -Wextra -Werror -Icapture -c -o "$out/cxx.o" "$out/cxx.cpp" 2>"$out/cxx.log" &&
		ok "ugc_capture.h compiles as C++" || bad "ugc_capture.h compiles as C++" "$(head -3 "$out/cxx.log")"
fi

echo "capture: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
