#!/bin/sh
# cut.sh — `cut` from the command line: a hand-made heap whose answer is
# worked out by hand (a World held by a GameInstance and by a class that only
# an instance's Class keeps: two references), the same answer from its
# database, the JSON and DOT forms, the infinite answer, an answer not proven
# minimal (the GC's order), and the usage errors.
# Usage: tests/cut.sh UGC_ANALYZE OUTDIR.  Ends with "cut: N passed, N failed".
ugc=$1
out=$2/cut
mkdir -p "$out"
passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok   $1"; }
bad() { failed=$((failed + 1)); echo "FAIL $1"; [ -n "$2" ] && echo "    $2"; }
world() { # KIND of GameInstance_0's World reference
	cat <<END
ugc-text 1
first-gc-index 5
o 0 1 2 - /Script/CoreUObject 64 Native
o 1 2 2 0 Object 256 Native
o 2 3 2 0 Class 512 Native
o 3 4 2 0 Package 256 Native
o 4 5 2 0 Actor 900 Native
o 6 7 2 0 World 512 Native
o 7 8 2 0 Level 512 Native
o 10 11 3 - /Game/Test 128 RootSet
o 20 21 2 10 BP_Thing_C 512 -
o 21 22 20 10 Thing_0 100 RootSet
o 22 23 4 10 GameInstance_0 100 RootSet
o 30 31 3 - /Game/Maps/Map 128 -
o 31 32 6 30 Map 1000 -
o 32 33 7 31 PersistentLevel 500 -
o 33 34 4 32 Enemy_1 300 -
r 22 31 $1 World
r 20 31 strong CachedWorld
r 31 32 strong PersistentLevel
r 32 33 strong Actors
r 33 31 strong OwningWorld
END
}
world strong > "$out/world.ugct"
world immutable > "$out/held.ugct"
"$ugc" --bytes cut "$out/world.ugct" --world /Game/Maps/Map.Map > "$out/text.txt" 2>&1
if grep -q '^minimum cut: 2 references, cost 2' "$out/text.txt" &&
	grep -q '^     .CachedWorld (strong) -> #31 World /Game/Maps/Map.Map' "$out/text.txt" &&
	grep -q '^     .World (strong) -> #31 World /Game/Maps/Map.Map' "$out/text.txt" &&
	grep -q 'frees 4 objects (1928 B); targets still kept: 0 of 3' "$out/text.txt"; then
	ok "world: two references by hand, the proof frees the targets and the package"
else
	bad "world: two references by hand" "$(cat "$out/text.txt")"
fi
"$ugc" analyze "$out/world.ugct" -o "$out/world.db" --force --quiet
"$ugc" cut "$out/world.ugct" --world /Game/Maps/Map.Map --format json > "$out/snap.json" 2>&1
"$ugc" cut "$out/world.db" --world /Game/Maps/Map.Map --format json > "$out/db.json" 2>&1
if cmp -s "$out/snap.json" "$out/db.json" && grep -q '"cost":2,' "$out/snap.json" &&
	grep -q '"targets_surviving":0' "$out/snap.json"; then
	ok "world: the database gives the snapshot's answer"
else
	bad "world: snapshot and database" "$(cat "$out/snap.json" "$out/db.json")"
fi
"$ugc" cut "$out/world.db" 31 --format dot > "$out/cut.dot" 2>&1
if [ "$(grep -c 'color=red' "$out/cut.dot")" = 2 ] && grep -q '^digraph cut {' "$out/cut.dot" &&
	grep -q 'n21 -> n20;' "$out/cut.dot"; then
	ok "dot: the two cut references in red, the Class chain drawn"
else
	bad "dot" "$(cat "$out/cut.dot")"
fi
"$ugc" cut "$out/held.ugct" 31 --root-cost never > "$out/inf.txt" 2>&1
rc=$?
if [ $rc = 0 ] && grep -q '^no cut frees them' "$out/inf.txt" && grep -q 'GameInstance_0' "$out/inf.txt"; then
	ok "infinite: said plainly, with what holds it"
else
	bad "infinite" "rc $rc: $(cat "$out/inf.txt")"
fi
# where the GC's order decides (test_cut.c has the same heap): cluster 70's
# ReferencedClusters entry marks 50 before 45 reaches its member, so 50's
# MutableObjects list is never walked; cut assumes it is and says so
cat > "$out/order.ugct" <<END
ugc-text 1
first-gc-index 5
o 0 1 2 - /Script/CoreUObject 64 Native
o 1 2 2 0 Object 256 Native
o 2 3 2 0 Class 512 Native
o 3 4 2 0 Package 256 Native
o 4 5 2 0 Actor 900 Native
o 10 11 3 - /Game/Test 128 RootSet
o 45 46 4 10 HolderA 1 RootSet
o 46 47 4 10 HolderB 1 RootSet
o 50 51 4 10 RootC0 8 -
o 51 52 4 50 MemberC0 8 -
o 60 61 4 10 Listed 60 -
o 70 71 4 10 RootC1 8 RootSet
o 71 72 4 70 MemberC1 8 -
r 45 51 strong M
r 46 60 strong L
c 50 51 60 -
c 70 71 - 50
END
"$ugc" cut "$out/order.ugct" 60 > "$out/order.txt" 2>&1
rc=$?
"$ugc" cut "$out/order.ugct" 60 --format json > "$out/order.json" 2>&1
if [ $rc = 0 ] && grep -q '^cut: 2 references, cost 2' "$out/order.txt" &&
	grep -q '^not proven minimal: ' "$out/order.txt" && grep -q 'targets still kept: 0 of 1' "$out/order.txt" &&
	grep -q '"proven_minimal":false' "$out/order.json" && grep -q '"proven_minimal":true' "$out/snap.json"; then
	ok "order: a cut the GC's order may make smaller says not proven minimal, and is proven to free"
else
	bad "order" "rc $rc: $(cat "$out/order.txt" "$out/order.json")"
fi
"$ugc" cut "$out/world.ugct" > /dev/null 2>&1
rc1=$?
"$ugc" cut "$out/world.ugct" 31 --root-cost 0 > /dev/null 2>&1
rc2=$?
"$ugc" cut "$out/world.ugct" --world /Game/Test.Thing_0 > /dev/null 2>&1
rc3=$?
if [ $rc1 = 2 ] && [ $rc2 = 2 ] && [ $rc3 = 1 ]; then
	ok "errors: no targets and a bad cost are usage errors, a World that is none an error"
else
	bad "errors" "$rc1 $rc2 $rc3"
fi
echo "cut: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
