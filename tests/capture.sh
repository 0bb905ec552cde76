#!/bin/sh
# capture.sh — the capture library end to end: the reference dumper
# (capture/refdump.c) builds an engine-like heap, captures it through
# libugccapture, and ugc-analyze analyses the file.  Every expected value is
# derived by hand from the heap refdump.c builds (see the comment there):
#   13 natives (indexes 0-12, the disregard pool, first-gc-index 13);
#   12 more objects (13 /Engine/Transient, 14 GameEngine_0, 17 the World
#   Arena, 18 PersistentLevel, 20 SM_Rock ... 24 M_Unused); N enemies, each an
#   actor 25+2i and its component 26+2i; every fourth enemy (i % 4 == 3) and
#   its component are Garbage, so G = N/4 of each; then, at B = 25+2N:
#   B GameViewportClient_0, held only by GameEngine_0's skip-serialization
#   member GameViewport; B+1 PSCPool_Component0, held only by the World's
#   struct AddStructReferencedObjects (aro, no member); B+2 BP_Enemy_C_Loading
#   (AsyncLoadingPhase1) and B+3 BP_Enemy_C_New (PendingConstruction, Async),
#   whose members are set but whose references and sizes are not written;
#   B+4 InstanceData_0, held by the FGCObject referencer's own
#   AddReferencedObjects ("g Unknown").  30 + 2N objects in all.
# Each enemy's LastAttacker (a TWeakObjectPtr: "soft") is the enemy before it;
# its Skin (a TSoftObjectPtr, M_Unused) and Cached (a skip-serialization
# TWeakObjectPtr) are not captured; its AddReferencedObjects registers Target,
# the next enemy, for clearing ("weak", no member name).
# The GC then purges the G destroyed enemies, their G components, M_Unused
# and its package (referenced by nothing captured): 2G + 2 objects, of
# 2000 G + 5100 bytes; it eliminates G references Level.Actors and clears
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
	b=$((25 + 2 * n))
	f="$out/refdump-$n.ugct"
	[ $n -gt 8 ] && f="$f.zst"
	zstd=""
	[ $n -gt 8 ] && zstd="--zstd 3"
	msg=$("$refdump" --enemies $n $zstd "$f" 2>&1)
	case "$msg" in
	"ugc-refdump: $f: $((30 + 2 * n)) objects, "*" bytes"*) ok "refdump $n: captured $((30 + 2 * n)) objects" ;;
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
	expect "refdump $n: engine, garbage elimination and mode" "$(sql "$db" "SELECT value FROM snapshot WHERE key IN ('engine','mode','first_gc_index','garbage_elimination') ORDER BY key" | tr '\n' '|')" \
		'"5.5.1 (reference dumper; Development, game)"|13|on|game|'
	expect "refdump $n: objects, disregard pool" "$(sql "$db" "SELECT count(*), sum(idx < 13) FROM objects")" "$((30 + 2 * n)),13"
	expect "refdump $n: purged objects and bytes" "$(sql "$db" "SELECT count(*), sum(size) FROM purge")" \
		"$((2 * g + 2)),$((2000 * g + 5100))"
	expect "refdump $n: purged are the destroyed enemies, their components, M_Unused and its package" \
		"$(sql "$db" "SELECT count(*) FROM purge p JOIN objects o USING (idx) WHERE
			(o.idx >= 25 AND ((o.idx - 25) / 2) % 4 = 3) OR o.idx IN (23, 24)")" "$((2 * g + 2))"
	expect "refdump $n: eliminated references" "$(sql "$db" "SELECT count(*), sum(property = 'Actors'), sum(src = 18), sum((dst - 25) / 2 % 4 = 3) FROM eliminated_refs")" \
		"$g,$g,$g,$g"
	expect "refdump $n: cleared weak references (registered by AddReferencedObjects, unnamed)" \
		"$(sql "$db" "SELECT count(*), sum((src - 25) / 2 % 4 = 2), sum(dst = src + 2), count(property) FROM cleared_weak_refs")" \
		"$g,$g,$g,0"
	expect "refdump $n: the cluster stays alive" "$(sql "$db" "SELECT root, members, mutable, referenced, state FROM clusters")" \
		"20,1,2,0,alive"
	expect "refdump $n: root kinds" "$(sql "$db" "SELECT root_kind FROM objects WHERE idx IN (5, 13, 14, 20, 22, 25) ORDER BY idx" | tr '\n' ' ')" \
		"disregard rootset rootset gcobject cluster referenced "
	# BP_Enemy_C_Loading (a root: AsyncLoadingPhase1) -Outer-> PersistentLevel
	# -Actors-> BP_Enemy_C_0, shorter than GameEngine_0 -aro-> Arena -> PersistentLevel
	expect "refdump $n: retention path of the first enemy" \
		"$(sql "$db" "SELECT distance, parent, parent_property FROM objects WHERE idx = 25")" "2,18,Actors"
	expect "refdump $n: retention path of the level" \
		"$(sql "$db" "SELECT distance, parent, parent_property FROM objects WHERE idx = 18")" "1,$((b + 2)),Outer"
	# enemy 0's LastAttacker is enemy N-1 (index 25 + 2(N-1) = B - 2), the others' the enemy before
	expect "refdump $n: TWeakObjectPtr members are soft references" \
		"$(sql "$db" "SELECT count(*), sum(property = 'LastAttacker'), sum(dst = src - 2 OR (src = 25 AND dst = $b - 2)) FROM refs WHERE kind = 'soft'")" \
		"$n,$n,$n"
	expect "refdump $n: TSoftObjectPtr and skip-serialization TWeakObjectPtr members are not captured" \
		"$(sql "$db" "SELECT count(*) FROM refs WHERE property IN ('Skin', 'Cached') OR (dst = 24 AND kind <> 'outer')")" "0"
	expect "refdump $n: a skip-serialization member the GC walks is captured" \
		"$(sql "$db" "SELECT r.src, r.kind, o.reachable, o.distance, o.parent FROM refs r JOIN objects o ON o.idx = r.dst WHERE r.property = 'GameViewport'")" \
		"14,strong,1,1,14"
	expect "refdump $n: a struct's AddStructReferencedObjects is captured (aro, no member)" \
		"$(sql "$db" "SELECT r.src, r.kind, coalesce(r.property, '-'), o.reachable FROM refs r JOIN objects o ON o.idx = r.dst WHERE r.dst = $b + 1 AND r.kind NOT IN ('class', 'outer')")" \
		"17,aro,-,1"
	expect "refdump $n: objects being loaded or constructed: records, roots, no references, no size" \
		"$(sql "$db" "SELECT o.idx, o.size, o.root_kind, (SELECT count(*) FROM refs r WHERE r.src = o.idx AND r.kind NOT IN ('class', 'outer')) FROM objects o WHERE o.idx IN ($b + 2, $b + 3) ORDER BY o.idx" | tr '\n' ' ')" \
		"$((b + 2)),0,internal-keep,0 $((b + 3)),0,internal-keep,0 "
	expect "refdump $n: FGCObject references, the referencer's own named Unknown" \
		"$(sql "$db" "SELECT referencer, dst, coalesce(property, '-') FROM gc_object_refs ORDER BY dst" | tr '\n' ' ')" \
		"FStreamableManager,20,ManagedHandles[0] Unknown,$((b + 4)),- "
	expect "refdump $n: the referencer's own reference is a root" \
		"$(sql "$db" "SELECT root_kind FROM objects WHERE idx = $b + 4")" "gcobject"
	expect "refdump $n: no finding but the eliminated references" "$(sql "$db" "SELECT count(*) FROM findings WHERE kind <> 'eliminated-ref'")" "0"
done

# --- garbage elimination off: recorded, and analyze warns
f="$out/refdump-noelim.ugct"
"$refdump" --enemies 8 --no-garbage-elimination --force "$f" >/dev/null 2>&1
grep -qx "garbage-elimination off" "$f" && ok "refdump --no-garbage-elimination writes the record" ||
	bad "refdump --no-garbage-elimination writes the record"
"$ugc" analyze "$f" -o "$out/refdump-noelim.db" --force >/dev/null 2>"$out/noelim.err"
expect "garbage elimination off: analyze warns once" "$(grep -c 'did not eliminate references to garbage objects' "$out/noelim.err")" "1"
expect "garbage elimination off: in the database" \
	"$(sql "$out/refdump-noelim.db" "SELECT value FROM snapshot WHERE key = 'garbage_elimination'")" "off"
expect "garbage elimination off: info on the snapshot and the database" \
	"$("$ugc" info "$f" | grep -c '^garbage-elim\.  *off$') $("$ugc" info "$out/refdump-noelim.db" | grep -c '^garbage-elim\.  *off$')" "1 1"
"$ugc" analyze "$out/refdump-8.ugct" -o "$out/refdump-8b.db" --force >/dev/null 2>"$out/elim.err"
expect "garbage elimination on: no warning" "$(grep -c 'did not eliminate' "$out/elim.err")" "0"

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
