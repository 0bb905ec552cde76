#!/bin/sh
# paths.sh — command-line tests of `path` and of object selectors on
# hand-made heaps whose answers are worked out by hand (in the heaps'
# comments): distinct chains with parallel references on one hop, the
# shortest chain a root, exclusive options, Graphviz output parsed, names
# with spaces, quotes and glob characters, and the memory of a search that
# must not grow with the referencers of a popular object.
# Usage: tests/paths.sh UGC_ANALYZE OUTDIR.  Ends with "paths: N passed, N failed".
ugc=$1
out=$2
passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok   $1"; }
bad() { failed=$((failed + 1)); echo "FAIL $1"; [ -n "$2" ] && echo "    $2"; }
expect() { # NAME WANT COMMAND...: the command's stdout (and stderr) must equal WANT
	name=$1; want=$2; shift 2
	got=$("$@" 2>&1)
	[ "$got" = "$want" ] && ok "$name" || bad "$name" "got: $got"
}
status() { # NAME WANT COMMAND...: the command must exit with WANT
	name=$1; want=$2; shift 2
	"$@" >/dev/null 2>&1
	rc=$?
	[ "$rc" = "$want" ] && ok "$name" || bad "$name" "exit $rc, want $want"
}

snap=testdata/chains-parallel.ugct
db=$out/chains-parallel.db
"$ugc" analyze $snap -o "$db" -q --force >/dev/null 2>&1 || bad "analyze $snap"

# The chains of a path --format csv as node lists, one a line: "11 12 14".
nodes() {
	"$ugc" path "$@" --format csv | tail -n +2 | awk -F, '
		$1 != c { if (c != "") print line; c = $1; line = $3; last = "" }
		$2 != last { line = line " " $6; last = $2 }
		END { if (c != "") print line }'
}

# --- distinct chains, parallel references on one hop -------------------------
for in in "$snap" "$db"; do
	kind=${in##*.}
	expect "path --all: the chains of distinct objects, shortest first ($kind)" "11 12 14
17 13 14
11 12 13 14
11 12 15 14" nodes "$in" 14 --all
	expect "path --roots: one shortest chain a root ($kind)" "11 12 14
17 13 14" nodes "$in" 14 --roots
	expect "path --all --limit 3: the three shortest ($kind)" "3" sh -c "'$ugc' path '$in' 14 --all --limit 3 --format csv | tail -n +2 | cut -d, -f1 | sort -u | wc -l | tr -d ' '"
	expect "path --all: two properties of one hop, both named on it ($kind)" "1,1,11,strong,PersistentLevel,12
1,1,11,strong,Levels[0],12" sh -c "'$ugc' path '$in' 14 --all --format csv | grep '^1,1,' | cut -d, -f1-6"
	expect "path --all: a strong and an aro reference on one hop ($kind)" "2,2,13,strong,Target,14
2,2,13,aro,,14" sh -c "'$ugc' path '$in' 14 --all --format csv | grep '^2,2,' | cut -d, -f1-6"
	expect "path text: the parallel reference on an (also ...) line ($kind)" "    (also UObject* World::Levels[0])" sh -c "'$ugc' path '$in' 14 | grep -F '(also'"
	expect "path --all --format json: parallel references under also ($kind)" "3" sh -c "'$ugc' path '$in' 14 --all --format json | grep -oF '\"kind\":\"strong\",\"property\":\"PersistentLevel\",\"also\":[{\"kind\":\"strong\",\"property\":\"Levels[0]\"}]' | wc -l | tr -d ' '"
done
expect "path --direct: one referencer a line, its references together" "#14 Actor /Game/Maps/My Map.My Map:PersistentLevel.Target: 3 direct referencers" sh -c "'$ugc' path '$db' 14 --direct | head -1"
expect "path --all: a limit reached is said" "#14 Actor /Game/Maps/My Map.My Map:PersistentLevel.Target: 2 chains (--limit reached: there may be more)" sh -c "'$ugc' path '$db' 14 --all --limit 2 | head -1"

# --- options that exclude each other are usage errors -------------------------
status "path --roots --all is a usage error" 2 "$ugc" path "$db" 14 --roots --all
status "path --all --direct is a usage error" 2 "$ugc" path "$db" 14 --all --direct
status "path --direct --roots is a usage error" 2 "$ugc" path "$db" 14 --direct --roots
status "path --limit without --roots or --all is a usage error" 2 "$ugc" path "$db" 14 --limit 5
status "path --direct --external is a usage error" 2 "$ugc" path "$db" 14 --direct --external
status "path --all --limit 0 is all (fine)" 0 "$ugc" path "$db" 14 --all --limit 0
status "path --all --all is fine" 0 "$ugc" path "$db" 14 --all --all
status "path --roots --max 5 (the old spelling) is fine" 0 "$ugc" path "$db" 14 --roots --max 5

# --- Graphviz: real line breaks, each edge once --------------------------------
"$ugc" path "$db" 14 --all --format dot > "$out/paths.dot" 2>&1
# edges as "FROM TO", from lines '  nA -> nB [label="..."];'
edges=$(grep -- ' -> ' "$out/paths.dot" | awk '{print $1, $3}')
expect "dot: each pair of objects once" "" sh -c "printf '%s\n' '$edges' | sort | uniq -d"
expect "dot: the seven hops of the four chains" "n11 n12
n12 n13
n12 n14
n12 n15
n13 n14
n15 n14
n17 n13" sh -c "printf '%s\n' '$edges' | sort"
expect "dot: each object once" "6 6" sh -c "grep -c '^  n[0-9]* \[label' '$out/paths.dot' | tr '\n' ' '; grep -o '^  n[0-9]* \[label' '$out/paths.dot' | sort -u | wc -l | tr -d ' '"
# DOT's line break is backslash-n inside the quotes; a doubled backslash would print a literal \n
check_breaks() {
	grep -qF 'n11 [label="World\n/Game/Maps/My Map.My Map"' "$out/paths.dot" &&
	grep -qF 'n11 -> n12 [label="PersistentLevel\nLevels[0]"]' "$out/paths.dot" &&
	! grep -qF '\\n' "$out/paths.dot"
}
check_breaks && ok "dot: labels break lines with DOT's escape, never a literal backslash-n" || bad "dot: labels break lines with DOT's escape, never a literal backslash-n" "$(cat "$out/paths.dot")"
grep -qF 'label="Actor\n/Game/Maps/My Map.My Map:PersistentLevel.Say \"Hi\", Bob'"'"'s [1]*?"' "$out/paths.dot" &&
	ok "dot: quotes in a name escaped" || bad "dot: quotes in a name escaped"
if command -v dot >/dev/null 2>&1; then
	dot -Tplain "$out/paths.dot" > "$out/paths.plain" 2>&1 && ok "dot renders it" || bad "dot renders it" "$(cat "$out/paths.plain")"
fi

# --- selectors: a path name exactly as printed ---------------------------------
for in in "$snap" "$db"; do
	kind=${in##*.}
	expect "select a path with spaces and parentheses ($kind)" "referencers of #13 Actor /Game/Maps/My Map.My Map:Enemy (Copy)" sh -c "'$ugc' refs '$in' '/Game/Maps/My Map.My Map:Enemy (Copy)' | head -1"
	expect "select a full name whose path has spaces ($kind)" "#13 Actor /Game/Maps/My Map.My Map:Enemy (Copy): 1 chain" sh -c "'$ugc' path '$in' 'Actor /Game/Maps/My Map.My Map:Enemy (Copy)' | head -1"
	expect "select a path with quotes, comma, apostrophe and glob characters ($kind)" "referencers of #15 Actor /Game/Maps/My Map.My Map:PersistentLevel.Say \"Hi\", Bob's [1]*?" sh -c "'$ugc' refs '$in' '/Game/Maps/My Map.My Map:PersistentLevel.Say \"Hi\", Bob'\"'\"'s [1]*?' | head -1"
	expect "select a name printed with an xHH escape ($kind)" "referencers of #18 Actor /Game/Other.Tab\\x09Name" sh -c "'$ugc' refs '$in' '/Game/Other.Tab\\x09Name' | head -1"
	expect "select the package whose name has a space ($kind)" "referencers of #10 Package /Game/Maps/My Map" sh -c "'$ugc' refs '$in' '/Game/Maps/My Map' | head -1"
	expect "unknown path: did you mean another object, not the same path ($kind)" "ugc-analyze: no object is '/Game/Maps/My Map.My Map:PersistentLevel.Enemy (Copy)'; did you mean #13 Actor /Game/Maps/My Map.My Map:Enemy (Copy)" "$ugc" refs "$in" "/Game/Maps/My Map.My Map:PersistentLevel.Enemy (Copy)"
	expect "unknown path: glob characters in the name are literal in the hint ($kind)" "ugc-analyze: no object is '/Game/Maps/My Map.My Map:Say \"Hi\", Bob's [1]*?'; did you mean #15 Actor /Game/Maps/My Map.My Map:PersistentLevel.Say \"Hi\", Bob's [1]*?" "$ugc" refs "$in" "/Game/Maps/My Map.My Map:Say \"Hi\", Bob's [1]*?"
done

# --- a popular object's referencers do not make the search grow -----------------
# Root R (11) holds hub H (12); H holds P_1..P_50, each of which holds target
# T; H also holds, and is the Outer of, N children C_i.  Every chain of T is
# R H P_j T (50 of them, length 3): --all --limit 10 needs ten.  The search
# reads H's N referencers once and steps through them one at a time, so its
# memory over refs stays small with N = 40,000; one that queued every
# referencer of H on each of the 50 partial chains through it held 2,000,000.
hub=$out/hub.ugct
awk -v n=40000 -v m=50 'BEGIN {
	print "ugc-text 1"; print "first-gc-index 5"
	print "o 0 1 2 - /Script/CoreUObject 64 Native"; print "o 1 2 2 0 Object 256 Native"
	print "o 2 3 2 0 Class 512 Native"; print "o 3 4 2 0 Package 256 Native"; print "o 4 5 2 0 Actor 900 Native"
	print "o 10 11 3 - /Game/Hub 128 -"; print "o 11 12 4 10 R 100 RootSet"; print "o 12 13 4 10 H 100 -"
	print "o 13 14 4 10 T 100 -"
	for (j = 0; j < m; j++) printf "o %d %d 4 10 P_%d 100 -\n", 100 + j, 101 + j, j
	for (i = 0; i < n; i++) printf "o %d %d 4 12 C_%d 100 -\n", 1000 + i, 1001 + i, i
	print "r 11 12 strong Hub"
	for (j = 0; j < m; j++) { printf "r 12 %d strong P[%d]\n", 100 + j, j; printf "r %d 13 strong T\n", 100 + j }
	for (i = 0; i < n; i++) printf "r 12 %d strong Items[%d]\n", 1000 + i, i
}' > "$hub"
"$ugc" analyze "$hub" -o "$out/hub.db" -q --force >/dev/null 2>&1 || bad "analyze the hub heap"
expect "hub: ten chains R H P_j T" "10 3" sh -c "'$ugc' path '$out/hub.db' 13 --all --limit 10 --format json | grep -o '\"length\":[0-9]*' | sort | uniq -c | awk '{print \$1, substr(\$2, 10)}'"
# (RSS means nothing under AddressSanitizer, whose quarantine keeps what is freed)
if [ -x /usr/bin/time ] && ! grep -qa __asan_init "$ugc"; then
	rss() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }
	base=$(rss "$ugc" refs "$out/hub.db" 12)
	all=$(rss "$ugc" path "$out/hub.db" 13 --all --limit 10)
	roots=$(rss "$ugc" path "$out/hub.db" 13 --roots)
	# generous: 16 MiB over refs of the hub itself (which lists all 40,000 referencers)
	[ "$all" -lt $((base + 16384)) ] && [ "$roots" -lt $((base + 16384)) ] &&
		ok "hub: path --all and --roots within 16 MiB of refs (${all} and ${roots} KiB, refs ${base} KiB)" ||
		bad "hub: path --all and --roots within 16 MiB of refs" "all ${all} KiB, roots ${roots} KiB, refs ${base} KiB"
fi

echo "paths: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
