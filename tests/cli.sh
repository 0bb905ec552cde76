#!/bin/sh
# cli.sh — command-line tests: every command on the bundled snapshots, the
# malformed-input corpus, safe output writing, determinism, round trips.
# Usage: tests/cli.sh UGC_ANALYZE OUTDIR.  Prints "ok  NAME" or "FAIL NAME"
# per test and ends with "cli: N passed, N failed".
ugc=$1
out=$2
passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok   $1"; }
bad() { failed=$((failed + 1)); echo "FAIL $1"; [ -n "$2" ] && echo "    $2"; }
check() { name=$1; shift; if "$@" >/dev/null 2>&1; then ok "$name"; else bad "$name" "command failed: $*"; fi; }
sql() { "$ugc" sql "$@" --format csv | tail -n +2; }

# --- help and usage -------------------------------------------------------
check "--version" sh -c "'$ugc' --version | grep -q '^ugc-analyze [0-9]'"
check "--help lists commands" sh -c "'$ugc' --help | grep -q 'analyze' && '$ugc' --help | grep -q 'convert'"
# every command: --help exits 0 with its usage and options (tests/test_options.c
# checks they are all of its table), each option it lists is in the man page;
# an unknown option is a one-line usage error, exit 2
commands=$("$ugc" --help | sed -n '/^commands:/,/^$/s/^  \([a-z]*\) .*/\1/p')
[ "$(echo $commands | wc -w)" -ge 15 ] && ok "--help lists 15 commands" || bad "--help lists 15 commands" "$commands"
for c in $commands; do
	help=$("$ugc" $c --help 2>&1); rc=$?
	case "$help" in "usage: ugc-analyze $c "*) [ $rc -eq 0 ] && ok "$c --help" || bad "$c --help" "rc=$rc" ;; *) bad "$c --help" "$help" ;; esac
	missing=""
	for o in $(printf '%s\n' "$help" | sed -n 's/^  \(-[a-z], \)\{0,1\}\(-[-a-z]*\).*/\1\2/p' | tr -d ','); do
		# as the man page writes it (\-\-keep\-flags), a whole word
		grep -qE -- "(^|[^-])$(printf '%s' "$o" | sed 's/-/\\\\-/g')([^-a-z]|\$)" man/ugc-analyze.1 ||
			missing="$missing $o"
	done
	[ -z "$missing" ] && ok "$c: every option in --help is in ugc-analyze(1)" || bad "$c: every option in --help is in ugc-analyze(1)" "missing:$missing"
	msg=$("$ugc" $c --no-such-option 2>&1 >/dev/null); rc=$?
	case "$msg" in "ugc-analyze $c: unknown option '--no-such-option' (see 'ugc-analyze $c --help')")
		[ $rc -eq 2 ] && ok "$c: an unknown option exits 2" || bad "$c: an unknown option exits 2" "rc=$rc" ;;
	*) bad "$c: an unknown option exits 2" "$msg" ;; esac
done
check "help COMMAND is COMMAND --help" sh -c "[ \"\$('$ugc' help path)\" = \"\$('$ugc' path --help)\" ]"
"$ugc" frobnicate >/dev/null 2>&1; [ $? -eq 2 ] && ok "unknown command exits 2" || bad "unknown command exits 2"
"$ugc" info >/dev/null 2>&1; [ $? -eq 2 ] && ok "missing argument exits 2" || bad "missing argument exits 2"
"$ugc" analyze testdata/spec-example.ugct --threads 0 >/dev/null 2>&1; [ $? -eq 2 ] && ok "bad --threads exits 2" || bad "bad --threads exits 2"

# --- malformed inputs: one line naming file and line, non-zero, no output --
for f in testdata/bad/*.ugct; do
	name=$(basename "$f")
	want=$(head -1 "$f" | sed 's/^# expect: //')
	msg=$("$ugc" analyze "$f" -o "$out/bad.db" 2>&1 >/dev/null)
	rc=$?
	lines=$(printf '%s\n' "$msg" | wc -l)
	case "$msg" in
	"ugc-analyze: $f$want"*) [ $rc -ne 0 ] && [ "$lines" -eq 1 ] && [ ! -e "$out/bad.db" ] && ok "bad input $name" && continue ;;
	esac
	bad "bad input $name" "rc=$rc, got: $msg | want: $f$want"
done
ls "$out" | grep -q '\.tmp\.' && bad "no temporary files left behind" || ok "no temporary files left behind"

# --- binary corruption through the command line -----------------------------
"$ugc" convert testdata/spec-example.ugct "$out/spec.ugcs" >/dev/null 2>&1
# convert says what it wrote (the counts: the text's own o and r lines), --quiet nothing
no=$(grep -c '^o ' testdata/spec-example.ugct) nr=$(grep -c '^r ' testdata/spec-example.ugct)
said=$("$ugc" convert testdata/spec-example.ugct "$out/spec-said.ugcs" 2>&1)
case "$said" in
"wrote $out/spec-said.ugcs: $no objects, $nr references, "*" B"|"wrote $out/spec-said.ugcs: $no objects, $nr references, "*" KiB")
	[ -z "$("$ugc" --quiet convert testdata/spec-example.ugct "$out/spec-quiet.ugcs" 2>&1)" ] && [ -s "$out/spec-quiet.ugcs" ] &&
	ok "convert says what it wrote ($no objects, $nr references), --quiet nothing" || bad "convert --quiet prints nothing" ;;
*) bad "convert says what it wrote" "$said" ;;
esac
size=$(wc -c < "$out/spec.ugcs")
head -c $((size - 7)) "$out/spec.ugcs" > "$out/truncated.ugcs"
msg=$("$ugc" info "$out/truncated.ugcs" 2>&1)
case "$msg" in "ugc-analyze: $out/truncated.ugcs: offset "*) ok "truncated binary names an offset" ;; *) bad "truncated binary names an offset" "$msg" ;; esac
cp "$out/spec.ugcs" "$out/flipped.ugcs"
printf '\377' | dd of="$out/flipped.ugcs" bs=1 seek=$((size - 20)) conv=notrunc 2>/dev/null
msg=$("$ugc" info "$out/flipped.ugcs" 2>&1)
case "$msg" in "ugc-analyze: $out/flipped.ugcs: offset "*"corrupt"*) ok "flipped byte is detected" ;; *) bad "flipped byte is detected" "$msg" ;; esac

# --- info and convert on every good snapshot --------------------------------
for f in testdata/*.ugct testdata/*.ugcs testdata/*.zst; do
	name=$(basename "$f")
	if ! "$ugc" info "$f" --bytes > "$out/info.txt" 2>&1 || ! grep -q '^objects \|^nodes ' "$out/info.txt"; then
		bad "info $name" "$(head -3 "$out/info.txt")"
		continue
	fi
	objects=$(sed -n 's/^objects  *\([0-9]*\).*/\1/p' "$out/info.txt")
	# a V8 heap counts nodes, and the objects the tool adds beside them
	[ -z "$objects" ] && objects=$(sed -n 's/^nodes  *\([0-9]*\) (and \([0-9]*\) object.*/\1 \2/p' "$out/info.txt" | awk '{ print $1 + $2 }')
	"$ugc" info "$f" --format json > "$out/info.json" 2>&1
	grep -q "\"objects\":$objects," "$out/info.json" && ok "info $name (text and json agree: $objects objects)" || bad "info json $name"
	# text -> binary -> text and text -> zstd text -> text give the canonical text
	base="$out/rt-$name"
	"$ugc" convert "$f" "$base.canon.ugct" && "$ugc" convert "$f" "$base.ugcs" && "$ugc" convert "$base.ugcs" "$base.back.ugct" &&
		"$ugc" convert "$base.canon.ugct" "$base.ugct.zst" && "$ugc" convert "$base.ugct.zst" "$base.zback.ugct"
	if cmp -s "$base.canon.ugct" "$base.back.ugct" && cmp -s "$base.canon.ugct" "$base.zback.ugct"; then
		ok "round trip $name"
	else
		bad "round trip $name"
	fi
done
# zstd is detected by content, not by name
cp "$out/rt-spec-example.ugct.ugct.zst" "$out/disguised.ugct"
check "zstd detected by magic, not extension" "$ugc" info "$out/disguised.ugct"

# --- existing outputs are not overwritten without --force -------------------
echo keep > "$out/exists.ugcs"
"$ugc" convert testdata/spec-example.ugct "$out/exists.ugcs" >/dev/null 2>&1
rc=$?
[ $rc -ne 0 ] && [ "$(cat "$out/exists.ugcs")" = keep ] && ok "convert refuses to overwrite" || bad "convert refuses to overwrite"
check "convert --force overwrites" sh -c "'$ugc' convert testdata/spec-example.ugct '$out/exists.ugcs' --force && '$ugc' info '$out/exists.ugcs'"
echo keep > "$out/exists.db"
"$ugc" analyze testdata/spec-example.ugct -o "$out/exists.db" -q >/dev/null 2>&1
[ $? -ne 0 ] && [ "$(cat "$out/exists.db")" = keep ] && ok "analyze refuses to overwrite" || bad "analyze refuses to overwrite"
# an output through a symlinked directory (macOS's /tmp, a linked home) is written there
mkdir -p "$out/real-dir" && rm -f "$out/linked-dir" "$out/real-dir/"*.db && ln -s real-dir "$out/linked-dir"
"$ugc" analyze testdata/spec-example.ugct -o "$out/linked-dir/a.db" -q >/dev/null 2>&1 &&
	"$ugc" diff testdata/spec-example.ugct testdata/spec-example.ugct -o "$out/linked-dir/d.db" >/dev/null 2>&1 &&
	[ -s "$out/real-dir/a.db" ] && [ -s "$out/real-dir/d.db" ] &&
	ok "analyze and diff write through a symlinked directory" || bad "analyze and diff write through a symlinked directory"

# --- analyze: the example of ugc-snapshot(5) §1.12, stored under the contract
cp testdata/spec-example.ugct "$out/arena.ugct"
"$ugc" analyze "$out/arena.ugct" -q --after "$out/arena-after.ugct" >/dev/null 2>&1
[ -f "$out/arena.db" ] && ok "default database name beside the snapshot" || bad "default database name beside the snapshot"
db="$out/arena.db"
[ "$(sql "$db" "SELECT src, dst, property FROM eliminated_refs")" = "13,12,TargetPickup" ] && ok "eliminated TargetPickup" || bad "eliminated TargetPickup"
[ "$(sql "$db" "SELECT src, dst, property FROM cleared_weak_refs")" = "13,14,LastSeen" ] && ok "cleared LastSeen" || bad "cleared LastSeen"
[ "$(sql "$db" "SELECT group_concat(idx, ' ') FROM purge")" = "12 14" ] && ok "purged Pickup_1 and Enemy_2" || bad "purged Pickup_1 and Enemy_2"
[ "$(sql "$db" "SELECT state, reason FROM clusters")" = "dissolved,garbage-mutable" ] && ok "cluster dissolved for its garbage mutable" || bad "cluster reason"
[ "$(sql "$db" "SELECT path, root_kind, distance FROM objects WHERE idx = 13")" = "/Game/Maps/Arena.Arena:Enemy_1,gcobject,0" ] && ok "Enemy_1 path and root kind" || bad "Enemy_1 path and root kind"
[ "$(sql "$db" "SELECT kind, property FROM refs WHERE dst = 14")" = "weak,LastSeen" ] && ok "refs view" || bad "refs view"
[ "$(sql "$db" "SELECT referencer, dst FROM gc_object_refs")" = "FStreamableManager,13" ] && ok "gc_object_refs" || bad "gc_object_refs"
[ "$(sql "$db" "SELECT value FROM snapshot WHERE key = 'engine'")" = "5.5.4" ] && ok "snapshot header stored" || bad "snapshot header stored"
plan=$("$ugc" sql "$db" "EXPLAIN QUERY PLAN SELECT * FROM refs WHERE dst = 5" 2>&1)
case "$plan" in *"USING INDEX ref_table_dst"*) ok "refs by dst uses an index" ;; *) bad "refs by dst uses an index" "$plan" ;; esac
check "after-GC heap has no purged objects" sh -c "'$ugc' info '$out/arena-after.ugct' | grep -q '^objects  *8 '"
"$ugc" sql "$db" "DELETE FROM objects" >/dev/null 2>&1
[ $? -ne 0 ] && [ "$(sql "$db" "SELECT count(*) FROM objects")" = 10 ] && ok "sql is read-only" || bad "sql is read-only"
json=$("$ugc" sql "$db" "SELECT idx, name FROM objects WHERE idx IN (12, 13) ORDER BY idx" --format json)
[ "$json" = '[{"idx":12,"name":"Pickup_1"},
{"idx":13,"name":"Enemy_1"}]' ] && ok "sql --format json" || bad "sql --format json" "$json"
[ "$(echo "SELECT count(*) FROM purge;" | "$ugc" sql "$db" --format csv | tail -1)" = 2 ] && ok "sql reads stdin" || bad "sql reads stdin"

msg=$("$ugc" analyze testdata/stale-outer.ugct -o "$out/stale.db" --after "$out/stale-after.ugct" -q 2>&1); rc=$?
case "$msg" in *"21 Actor /Game/Stale.Owner:Member survives this GC but its Outer is purged"*)
	[ $rc -ne 0 ] && [ ! -e "$out/stale.db" ] && [ ! -e "$out/stale-after.ugct" ] && ok "--after refuses a heap with a dangling Outer, and nothing is written" ||
		bad "--after refuses a heap with a dangling Outer, and nothing is written" "rc=$rc" ;;
*) bad "--after refuses a heap with a dangling Outer, and nothing is written" "$msg" ;; esac
"$ugc" analyze testdata/stale-outer.ugct -o "$out/stale.db" -q >/dev/null 2>&1
[ "$(sql "$out/stale.db" "SELECT idx, other FROM findings WHERE kind = 'cluster-missing-mutable'")" = "21,22" ] &&
	ok "the dangling Outer is a use-after-free finding" || bad "the dangling Outer is a use-after-free finding"

# --- modes and keep flags from the command line -----------------------------
"$ugc" analyze testdata/gen-1000-editor.ugct -o "$out/ed.db" -q >/dev/null 2>&1
"$ugc" analyze testdata/gen-1000-editor.ugct -o "$out/game.db" --mode game -q >/dev/null 2>&1
e=$(sql "$out/ed.db" "SELECT count(*) FROM purge")
g=$(sql "$out/game.db" "SELECT count(*) FROM purge")
[ -n "$e" ] && [ -n "$g" ] && [ "$e" -lt "$g" ] && ok "editor mode keeps RF_Standalone ($e < $g purged)" || bad "editor mode keeps RF_Standalone" "$e vs $g"
"$ugc" analyze testdata/gen-1000-editor.ugct -o "$out/kf.db" --keep-flags - -q >/dev/null 2>&1
[ "$(sql "$out/kf.db" "SELECT count(*) FROM purge")" = "$g" ] && ok "--keep-flags - overrides the mode" || bad "--keep-flags - overrides the mode"

# --- threads do not change the answer ----------------------------------------
for t in 1 2; do
	"$ugc" analyze testdata/arena.ugcs -o "$out/t$t.db" --threads $t -q >/dev/null 2>&1
	"$ugc" sql "$out/t$t.db" "SELECT * FROM purge; SELECT * FROM eliminated_refs; SELECT * FROM cleared_weak_refs;
		SELECT * FROM clusters; SELECT idx, reachable, root_kind, distance, parent FROM objects; SELECT * FROM findings" > "$out/t$t.txt"
done
[ -s "$out/t1.txt" ] && cmp -s "$out/t1.txt" "$out/t2.txt" && ok "--threads 1 and 2 store the same results" || bad "--threads 1 and 2 store the same results"

# --- the store: big tables written as SQLite pages or through SQL (UGC_STORE) ---
for m in sql pages; do
	UGC_STORE=$m "$ugc" analyze testdata/arena.ugcs -o "$out/store-$m.db" -q >/dev/null 2>&1
	"$ugc" sql "$out/store-$m.db" "PRAGMA integrity_check; SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY name;
		SELECT * FROM object_table; SELECT * FROM ref_table; SELECT dst, src, pos FROM ref_table INDEXED BY ref_table_dst;
		SELECT idx, class FROM object_table INDEXED BY objects_class; SELECT * FROM strings; SELECT * FROM cluster_members;
		SELECT * FROM purge; SELECT * FROM retained_by_package; SELECT * FROM gc_cost_by_package;
		SELECT * FROM gc_cost_candidates;
		SELECT * FROM snapshot WHERE key <> 'analysed_at'" --format csv > "$out/store-$m.txt" 2>&1
done
[ "$(sed -n 2p "$out/store-pages.txt")" = ok ] && [ "$(wc -l < "$out/store-pages.txt")" -gt 100000 ] &&
	cmp -s "$out/store-sql.txt" "$out/store-pages.txt" && ok "UGC_STORE=pages and sql write the same database" ||
	bad "UGC_STORE=pages and sql write the same database"
msg=$(UGC_STORE=rows "$ugc" analyze testdata/arena.ugcs -o "$out/store-bad.db" -q 2>&1)
[ $? -eq 1 ] && [ ! -e "$out/store-bad.db" ] && [ "$msg" = "ugc-analyze: UGC_STORE is auto, sql or pages, not 'rows'" ] &&
	ok "UGC_STORE with an unknown value is an error" || bad "UGC_STORE with an unknown value is an error" "$msg"

# --- the generator is deterministic ------------------------------------------
"$ugc" gen --objects 2000 --seed 7 --broken-clusters 20 -o "$out/g1.ugct" >/dev/null 2>&1
"$ugc" convert testdata/gen-2000-broken.ugct.zst "$out/g0.ugct" >/dev/null 2>&1
cmp -s "$out/g1.ugct" "$out/g0.ugct" && ok "gen reproduces the bundled heap byte for byte" || bad "gen reproduces the bundled heap"
"$ugc" gen --objects 2000 --seed 8 --broken-clusters 20 -o "$out/g2.ugct" >/dev/null 2>&1
cmp -s "$out/g1.ugct" "$out/g2.ugct" && bad "another seed gives another heap" || ok "another seed gives another heap"
"$ugc" gen --objects 5 -o "$out/x.txt" >/dev/null 2>&1; [ $? -eq 2 ] && ok "gen refuses an unknown format" || bad "gen refuses an unknown format"
said=$("$ugc" gen --objects 2000 --seed 9 -o "$out/said.ugcs" 2>&1)
"$ugc" info "$out/said.ugcs" > "$out/said.txt"
no=$(sed -n 's/^objects  *\([0-9,]*\) .*/\1/p' "$out/said.txt"); nr=$(sed -n 's/^references  *\([0-9,]*\):.*/\1/p' "$out/said.txt")
nc=$(sed -n 's/^clusters  *\([0-9,]*\) .*/\1/p' "$out/said.txt"); ng=$(sed -n 's/^gc-object refs  *\([0-9,]*\) .*/\1/p' "$out/said.txt")
[ "$said" = "wrote $out/said.ugcs: $no objects, $nr references, $nc clusters, $ng FGCObject references" ] &&
	ok "gen says what it wrote, as info counts it" || bad "gen says what it wrote, as info counts it" "$said"
said=$("$ugc" gen --objects 2000 --seed 9 --evolve -o "$out/saids.ugcs" --force 2>&1 | sed 's/:.*//')
[ "$said" = "$(printf 'wrote %s\nwrote %s\nwrote %s\nwrote %s' "$out/saids-0.ugcs" "$out/saids-1.ugcs" "$out/saids-2.ugcs" "$out/saids.plan")" ] &&
	ok "gen --evolve names the four files it wrote" || bad "gen --evolve names the four files it wrote" "$said"

# --- queries: known answers on a hand-made heap ------------------------------
q=testdata/chains.ugct
"$ugc" analyze $q -o "$out/chains.db" -q >/dev/null 2>&1
expect() { # NAME WANT COMMAND...: the command's stdout must equal WANT
	name=$1; want=$2; shift 2
	got=$("$@" 2>&1)
	[ "$got" = "$want" ] && ok "$name" || bad "$name" "got: $got"
}
expect "a global option after -- is an operand" "ugc-analyze: no object is '--quiet'" sh -c "'$ugc' refs testdata/spec-example.ugct -- --quiet 2>&1"
expect "path: the true shortest chain" "#15 Actor /Game/Chains.Target: 1 chain
 (root)  Actor /Game/Other.Outsider
 -> UObject* Actor::External =  Actor /Game/Chains.Target
  " "$ugc" path $q 15
# path --direct takes --limit, says how many it left out, and counts them all
"$ugc" analyze testdata/arena.ugcs -o "$out/arena20k.db" -q --force >/dev/null 2>&1
nref=$(sql "$out/arena20k.db" "SELECT count(DISTINCT src) FROM refs WHERE dst = 3588")
expect "path --direct --limit: the list cut and said, the header counting all ($nref)" \
	"#3588 StaticMesh /Game/Meshes/SM_Prop_0.SM_Prop_0: $nref direct referencers|2|showing 2 of $nref direct referencers (--limit 0 shows all)" \
	sh -c "'$ugc' path '$out/arena20k.db' 3588 --direct --limit 2 > '$out/direct.txt'; { head -n 1 '$out/direct.txt'; grep -c '^ -> ' '$out/direct.txt'; tail -n 1 '$out/direct.txt'; } | paste -sd'|'"
expect "path --direct in JSON: limited when --limit cut it, all and not limited by default" "true|false|$nref" \
	sh -c "{ '$ugc' path '$out/arena20k.db' 3588 --direct --limit 2 --format json | grep -o '\"limited\":[a-z]*' | cut -d: -f2; '$ugc' path '$out/arena20k.db' 3588 --direct --format json > '$out/direct.json'; grep -o '\"limited\":[a-z]*' '$out/direct.json' | cut -d: -f2; grep -o '\"length\":' '$out/direct.json' | wc -l | tr -d ' '; } | paste -sd'|'"
expect "path --roots: one shortest chain a root" "3" sh -c "'$ugc' path $q 15 --roots --format csv | tail -n +2 | cut -d, -f1 | sort -u | wc -l"
expect "path --all: all four chains, shortest first" "1,1,17,strong,External,15,/Game/Chains.Target
2,1,11,strong,ToMid1,13,/Game/Chains.Mid1
2,2,13,strong,Hit,15,/Game/Chains.Target
3,1,12,strong,ToMid2,14,/Game/Chains.Mid2
3,2,14,aro,Also,15,/Game/Chains.Target
4,1,12,strong,ToMid2,14,/Game/Chains.Mid2
4,2,14,strong,Via,13,/Game/Chains.Mid1
4,3,13,strong,Hit,15,/Game/Chains.Target" sh -c "'$ugc' path $q 15 --all --format csv | tail -n +2"
expect "path --all --max 2" "2" sh -c "'$ugc' path $q 15 --all --max 2 --format csv | tail -n +2 | cut -d, -f1 | sort -u | wc -l"
expect "path --external keeps roots outside the package" "1,1,17,strong,External,15,/Game/Chains.Target" sh -c "'$ugc' path $q 15 --roots --external --format csv | tail -n +2"
expect "path --direct" "#15 Actor /Game/Chains.Target: 3 direct referencers" sh -c "'$ugc' path $q 15 --direct | head -1"
expect "path of a root gives its reason" "#11 Actor /Game/Chains.RootA: a root: in the RootSet (AddToRoot)" sh -c "'$ugc' path $q 11 | head -1"
expect "path --format dot" "digraph retention {" sh -c "'$ugc' path $q 15 --roots --format dot | head -1"
expect "refs: referencers with counts and fates" "referencers of #15 Actor /Game/Chains.Target
  strong    Hit      survives #13 Actor /Game/Chains.Mid1
  aro       Also     survives #14 Actor /Game/Chains.Mid2
  strong    External survives #17 Actor /Game/Other.Outsider
3 referencers: 2 strong, 1 aro; 3 survives" "$ugc" refs $q 15
expect "refs --out, class and outer included" "3 references: 1 weak, 1 class, 1 outer; 3 survives" sh -c "'$ugc' refs $q 15 --out | tail -1"
expect "refs --kind" "1 referencer: 1 aro; 1 survives" sh -c "'$ugc' refs $q 15 --kind aro | tail -1"
"$ugc" refs $q 15 --kind "" >/dev/null 2>&1; [ $? -eq 2 ] && ok "refs --kind with no kind is a usage error" || bad "refs --kind with no kind is a usage error"
for c in refs path why; do
	msg=$("$ugc" $c $q 15 --name 'Mid*' 2>&1); rc=$?
	[ $rc -eq 2 ] && case "$msg" in *"exclude each other"*) true ;; *) false ;; esac &&
		ok "$c: OBJ with --name is a usage error" || bad "$c: OBJ with --name is a usage error" "$rc $msg"
done
"$ugc" refs $q 15 --kind ",," >/dev/null 2>&1; [ $? -eq 2 ] && ok "refs --kind of commas alone is a usage error" || bad "refs --kind of commas alone is a usage error"
expect "refs --limit: the rows capped, the total said" "  strong    Hit      survives #13 Actor /Game/Chains.Mid1
showing 1 of 3 referencers (--limit 0 shows all)
3 referencers: 2 strong, 1 aro; 3 survives" sh -c "'$ugc' refs $q 15 --limit 1 | tail -n +2"
expect "select by path name" "referencers of #15 Actor /Game/Chains.Target" sh -c "'$ugc' refs $q /Game/Chains.Target | head -1"
expect "select by full name" "referencers of #13 Actor /Game/Chains.Mid1" sh -c "'$ugc' refs $q 'Actor /Game/Chains.Mid1' | head -1"
expect "select many by --name and --class" "referencers of #13 Actor /Game/Chains.Mid1
referencers of #14 Actor /Game/Chains.Mid2" sh -c "'$ugc' refs $q --name 'Mi*' --class Actor | grep '^referencers'"
msg=$("$ugc" why $q /Game/Chains.Targt 2>&1); rc=$?
case "$msg" in *"no object is '/Game/Chains.Targt'"*) [ $rc -ne 0 ] && ok "unknown selector fails and says so" || bad "unknown selector exit" ;; *) bad "unknown selector message" "$msg" ;; esac
msg=$("$ugc" why $q Target 2>&1); rc=$?
case "$msg" in *"did you mean #15 Actor /Game/Chains.Target"*) [ $rc -ne 0 ] && ok "a bare name lists the candidates" || bad "bare name exit" ;; *) bad "bare name candidates" "$msg" ;; esac
# cluster-quirks: the disagreements and the objects they doom
"$ugc" analyze testdata/cluster-quirks.ugct -o "$out/quirks.db" -q >/dev/null 2>&1
expect "clusters --check finds both use-after-frees" "2 disagreements between cluster lists and references, 2 of them use-after-free" sh -c "'$ugc' clusters '$out/quirks.db' --check | tail -1"
expect "clusters --check names member, property and target" "USE-AFTER-FREE #20 /Game/Quirks.Level: Unlisted -> /Game/Quirks.Orphan of cluster /Game/Quirks.Level is missing from its MutableObjects; use-after-free: the GC collects it while it is still referenced" sh -c "'$ugc' clusters '$out/quirks.db' --check | head -1"
expect "why: the cluster is what keeps Chest" "  cluster:   member of cluster #30, alive; the cluster is what keeps it alive" sh -c "'$ugc' why testdata/cluster-quirks.ugct 31 | grep '^  cluster:'"
expect "why: Loot dies under Chest's reference" "  #31 Actor /Game/Quirks.Chest Contents (strong): the referencer is in cluster #30: the GC does not trace cluster members, and no cluster list it acted on names this object" sh -c "'$ugc' why '$out/quirks.db' 32 | grep Chest"
expect "clusters: the garbage-mutable dissolution" "50,2,1,0,0,1400,dissolved,garbage-mutable,/Game/Quirks.Squad" sh -c "'$ugc' clusters testdata/cluster-quirks.ugct --format csv | grep '^50,'"
# one cluster in detail: CSV is one row a list entry under its header; JSON
# one document (c 50 51,52 53 -: members 51 and 52, mutable 53, garbage,
# which dissolves it)
expect "clusters ROOT --format csv: a header, then the lists" "root,list,idx,path,reachable,garbage
50,dissolved_by,53,/Game/Quirks.DeadTarget,0,1
50,members,51,/Game/Quirks.Soldier_1,1,0
50,members,52,/Game/Quirks.Soldier_2,1,0
50,mutable,53,/Game/Quirks.DeadTarget,0,1" "$ugc" clusters testdata/cluster-quirks.ugct 50 --format csv
expect "clusters ROOT --format json: one document, each list a listing" '{"format_version":1,"command":"clusters","cluster":{"root":50,"members":2,"mutable":1,"referenced":0,"referenced_by":0,"bytes":1400,"state":"dissolved","reason":"garbage-mutable","path":"/Game/Quirks.Squad"},"dissolved_by":{"total":1,"shown":1,"items":[{"idx":53,"path":"/Game/Quirks.DeadTarget","reachable":false,"garbage":true}]},"members":{"total":2,"shown":2,"items":[{"idx":51,"path":"/Game/Quirks.Soldier_1","reachable":true,"garbage":false},{"idx":52,"path":"/Game/Quirks.Soldier_2","reachable":true,"garbage":false}]},"mutable":{"total":1,"shown":1,"items":[{"idx":53,"path":"/Game/Quirks.DeadTarget","reachable":false,"garbage":true}]},"referenced":{"total":0,"shown":0,"items":[]},"referenced_by":{"total":0,"shown":0,"items":[]}}' "$ugc" clusters testdata/cluster-quirks.ugct 50 --format json
expect "clusters --check with ROOT: a usage error before any load" "2" sh -c "'$ugc' clusters /nonexistent 50 --check >/dev/null 2>&1; echo \$?"
expect "findings grouped with counts" "eliminated-ref: 1" sh -c "'$ugc' findings '$out/quirks.db' | head -1"
expect "why: a rooted member dies with its never-reached cluster" "  cluster #60 was never reached (no reference to its root or a member): the GC dissolves it and destroys every member; a member's root flag makes the cluster walk its lists but does not keep it" sh -c "'$ugc' why '$out/quirks.db' 61 | grep '^  cluster #60'"
expect "findings: the rooted member destroyed" "  #61 /Game/Quirks.HeldLid: has a root flag, but nothing reached its cluster's root /Game/Quirks.Crate or another member: the GC dissolves the cluster and destroys it with the other members" sh -c "'$ugc' findings '$out/quirks.db' --kind rooted-member-destroyed | sed -n 2p"
expect "findings: the member's weak reference is left dangling" "uncleared-weak-ref: 1" sh -c "'$ugc' findings testdata/cluster-quirks.ugct --kind uncleared-weak-ref | head -1"
w=$("$ugc" findings testdata/cluster-quirks.ugct --kind uncleared-weak-ref | sed -n 2p)
case "$w" in *"Door_1: weak reference LastOpener to /Game/Quirks.Ghost "*"this is the engine's behaviour"*"a real hazard"*)
	ok "uncleared-weak-ref names its target and says it is the engine's behaviour and a real hazard" ;;
*) bad "uncleared-weak-ref names its target and says it is the engine's behaviour and a real hazard" "$w" ;; esac

# --- issue 13.4-8: one edge set, the cause first, one --limit, names --------
# Level (cluster A) dissolves for its garbage mutable Bomb; Other (B) lists A
# in ReferencedClusters and goes with it; DeadRoot (C) is garbage; Fan (D)
# references C and dissolves in the pre-pass; Hub (E) stays alive, and its
# member Spoke holds Lost, which no list names.  Target is held by a purged
# DeadMember, a garbage Husk an immutable reference keeps, a surviving
# Keeper and an FGCObject, which also holds the garbage Husk.
cat > "$out/causes.ugct" <<'EOF'
ugc-text 1
engine 5.5.4
mode game
first-gc-index 5
o 0 1 2 - /Script/CoreUObject 64 Native
o 1 2 2 0 Object 256 Native
o 2 3 2 0 Class 512 Native
o 3 4 2 0 Package 256 Native
o 4 5 2 0 Actor 900 Native
o 10 11 3 - /Game/Causes 128 -
o 11 12 4 10 Level 1000 RootSet
o 12 13 4 10 Bomb 100 Garbage,RF_MirroredGarbage
o 13 14 4 10 Member 100 -
o 14 15 4 10 Other 100 RootSet
o 15 16 4 10 OtherMember 100 -
o 16 17 4 10 DeadRoot 100 Garbage,RF_MirroredGarbage
o 17 18 4 10 DeadMember 100 -
o 18 19 4 10 Fan 100 RootSet
o 19 20 4 10 FanMember 100 -
o 20 21 4 10 Husk 100 Garbage,RF_MirroredGarbage
o 21 22 4 10 Target 100 -
o 22 23 4 10 Keeper 100 RootSet
o 23 24 4 10 Lost 100 -
o 24 25 4 10 Hub 100 RootSet
o 25 26 4 10 Spoke 100 -
r 17 21 strong Old
r 20 21 strong Ptr
r 22 20 immutable Archetype
r 22 21 strong Live
r 25 23 strong Lost
g FStreamableManager 20 Handles[0]
g FStreamableManager 21 Cache
c 11 13 12 -
c 14 15 - 11
c 16 17 - -
c 18 19 - 16
c 24 25 - -
EOF
cdb="$out/causes.db"
summary=$("$ugc" analyze "$out/causes.ugct" -o "$cdb" --force | sed -n 2p)
# who references the package /Game/Maps/Arena (10 in spec-example): only Arena, as its Outer
expect "README's 'who references' query returns the Outer referencer" "11,/Game/Maps/Arena.Arena,outer,Outer" \
	sql "$db" "SELECT r.src, coalesce(o.path, r.referencer), r.kind, r.property
	FROM refs r LEFT JOIN objects o ON o.idx = r.src WHERE r.dst = 10"
expect "refs view: Class edges of every instance" "11 12 13 14" \
	sql "$db" "SELECT group_concat(src, ' ') FROM (SELECT src FROM refs WHERE dst = 4 AND kind = 'class' ORDER BY src)"
expect "refs view: an FGCObject's record, its name in referencer" "NULL|gcobject|Handles[0]|FStreamableManager" \
	sql "$db" "SELECT coalesce(src, 'NULL') || '|' || kind || '|' || property || '|' || referencer FROM refs WHERE dst = 13 AND kind = 'gcobject'"
agree=1
for d in "$db" "$cdb"; do
	for x in $(sql "$d" "SELECT idx FROM object_table"); do
		a=$("$ugc" refs "$d" "$x" --limit 1 --bytes | tail -1 | cut -d' ' -f1)
		b=$(sql "$d" "SELECT count(*) FROM refs WHERE dst = $x")
		c=$("$ugc" refs "$d" "$x" --out --limit 1 --bytes | tail -1 | cut -d' ' -f1)
		e=$(sql "$d" "SELECT count(*) FROM refs WHERE src = $x")
		[ "$a" = "$b" ] && [ "$c" = "$e" ] || { agree=0; echo "    object $x of $d: refs $a/$c, SQL $b/$e"; }
	done
done
[ $agree = 1 ] && ok "the refs view and refs (in and --out) count the same edges for every object" ||
	bad "the refs view and refs (in and --out) count the same edges for every object"
expect "refs marks each referencer's fate; an FGCObject by name" "  strong    Old      purged   #17 Actor /Game/Causes.DeadMember
  strong    Ptr      garbage  #20 Actor /Game/Causes.Husk
  strong    Live     survives #22 Actor /Game/Causes.Keeper
  gcobject  Cache    -        FStreamableManager (FGCObject)
4 referencers: 3 strong, 1 gcobject; 1 survives, 1 garbage, 1 purged, 1 FGCObject" sh -c "'$ugc' refs '$cdb' 21 | tail -n +2"
expect "refs: an FGCObject in CSV, named in the referencer column" "in,21,gcobject,Cache,,,,-,FStreamableManager" \
	sh -c "'$ugc' refs '$out/causes.ugct' 21 --format csv | tail -1"
expect "clusters: what dissolved each, in the database" "11,garbage-mutable,12
14,references-dissolved,11
16,garbage-root,16
18,references-dissolved,16
24,," sql "$cdb" "SELECT root, reason, dissolved_by FROM clusters ORDER BY root"
expect "clusters ROOT: the cause first" "dissolved (garbage-mutable) by these garbage list entries:
  #12 Actor /Game/Causes.Bomb  (purged)" sh -c "'$ugc' clusters '$cdb' 11 | sed -n 3,4p"
for x in "$out/causes.ugct" "$cdb"; do
	expect "clusters ROOT: a cluster dissolved with the one it references names it ($(basename "$x"))" \
		"dissolved (references-dissolved) by these referenced clusters, themselves dissolved:
  #11 Actor /Game/Causes.Level" sh -c "'$ugc' clusters '$x' 14 | sed -n 3,4p"
	expect "clusters ROOT: a pre-pass dissolution names the garbage root ($(basename "$x"))" \
		"  #16 Actor /Game/Causes.DeadRoot  (purged)" sh -c "'$ugc' clusters '$x' 18 | sed -n 4p"
done
expect "clusters ROOT --limit: each list capped, the total said" "members (2):
  #51 Actor /Game/Quirks.Soldier_1
showing 1 of 2 entries (--limit 0 shows all)" sh -c "'$ugc' clusters '$out/quirks.db' 50 --limit 1 | grep -A2 '^members'"
first=$(sql "$cdb" "SELECT detail LIKE '%use-after-free%' FROM findings WHERE kind LIKE 'cluster-missing%' LIMIT 1")
risks=$("$ugc" clusters "$cdb" --check | head -2 | cut -c1-15 | sort -u)
[ "$first" = 0 ] && [ "$risks" = "USE-AFTER-FREE " ] && ok "clusters --check: the use-after-free risks first" ||
	bad "clusters --check: the use-after-free risks first" "first=$first risks=$risks"
expect "clusters --risks: only the risks, the totals said" "2 8 2" \
	sh -c "'$ugc' clusters '$cdb' --risks | awk '/^USE-AFTER-FREE/ { n++ } END { print n, \$1, \$(NF - 3) }'"
expect "clusters --check --limit 1" "showing 1 of 8 disagreements (--limit 0 shows all)" sh -c "'$ugc' clusters '$cdb' --check --limit 1 | sed -n 2p"
expect "clusters --limit: the list capped, the total said" "showing 2 of 5 clusters (--limit 0 shows all)" sh -c "'$ugc' clusters '$cdb' --limit 2 | sed -n 4p"
expect "findings name their targets by path" "  #13 /Game/Maps/Arena.Arena:Enemy_1: strong reference TargetPickup to garbage object /Game/Maps/Arena.Arena:Pickup_1 is nulled" \
	sh -c "'$ugc' findings '$db' --kind eliminated-ref | sed -n 2p"
expect "findings: an FGCObject holder by name in text" "  FStreamableManager (FGCObject): reference Handles[0] of FGCObject FStreamableManager to garbage object /Game/Causes.Husk is nulled" \
	sh -c "'$ugc' findings '$cdb' --kind eliminated-ref | sed -n 2p"
for x in "$out/causes.ugct" "$cdb"; do
	expect "findings: an FGCObject holder in JSON ($(basename "$x"))" '"idx":null,"other":20,|"referencer":"FStreamableManager"' \
		sh -c "'$ugc' findings '$x' --kind eliminated-ref --format json | grep -o -e '\"idx\":null,\"other\":20,' -e '\"referencer\":\"[A-Za-z]*\"' | paste -sd'|'"
done
expect "why: an FGCObject holder's finding by name, as findings says it" "    eliminated-ref, FStreamableManager (FGCObject): reference Handles[0] of FGCObject FStreamableManager to garbage object /Game/Causes.Husk is nulled" \
	sh -c "'$ugc' why '$cdb' 20 | grep 'eliminated-ref'"
expect "why: a heading with a list under it ends at its colon" "  references to it the GC nulls:|  findings:" \
	sh -c "'$ugc' why '$cdb' 20 | grep -e '^  references to it the GC nulls' -e '^  findings' | paste -sd'|'"
expect "why: an FGCObject holder in JSON" '"idx":null,"other":20,' sh -c "'$ugc' why '$cdb' 20 --format json | grep -o '\"idx\":null,\"other\":20,'"
expect "findings: an FGCObject holder in CSV" "eliminated-ref,,20,reference Handles[0] of FGCObject FStreamableManager to garbage object /Game/Causes.Husk is nulled,,FStreamableManager" \
	sh -c "'$ugc' findings '$cdb' --kind eliminated-ref --format csv | tail -1"
expect "findings and eliminated_refs: an FGCObject holder in SQL" "NULL,FStreamableManager,NULL,FStreamableManager" \
	sql "$cdb" "SELECT coalesce(f.idx, 'NULL'), f.referencer, coalesce(e.src, 'NULL'), e.referencer FROM findings f, eliminated_refs e WHERE f.kind = 'eliminated-ref'"
expect "findings --limit: each kind capped, its total said" "showing 1 of 2 cluster-missing-mutable findings (--limit 0 shows all)" \
	sh -c "'$ugc' findings testdata/cluster-quirks.ugct --kind cluster-missing-mutable --limit 1 | sed -n 3p"
# the roots by hand: disregard 0-4; RootSet Level, Other, Fan, Keeper, Hub; Target held by an FGCObject
r11="roots           11: disregard 5 rootset 5 refcounted 0 internal-keep 0 keepflags 0 gcobject 1"
got=$({ echo "$summary" | grep -o '11 roots ([^)]*)'; "$ugc" info "$out/causes.ugct" | grep '^roots'
	"$ugc" info "$cdb" | grep '^roots'; sql "$cdb" "SELECT count(*) FROM roots"; } | paste -sd'|')
[ "$got" = "11 roots (5 disregard, 5 rootset, 1 gcobject)|$r11|$r11|11" ] &&
	ok "roots: the analyze summary, info on the snapshot and on the database, and the roots view agree" ||
	bad "roots: the analyze summary, info on the snapshot and on the database, and the roots view agree" "$got"
expect "info on a database says what it is" "database        $cdb: an analysis database (schema version 6) written by analyze, not a snapshot" sh -c "'$ugc' info '$cdb' | head -1"
check "info on a database in JSON" sh -c "'$ugc' info '$cdb' --format json | grep -q '\"schema_version\":6,'"
check "diff --limit" sh -c "'$ugc' diff testdata/spec-example.ugct '$out/causes.ugct' --limit 1 >/dev/null"
# the GC contract ships with the tool: nothing links the project's private specs
check "README and ugc-analyze(1) point to ugc-gc(7)" sh -c "grep -q 'man/ugc-gc.7' README.md && grep -q 'BR ugc-gc (7)' man/ugc-analyze.1 && [ -f man/ugc-gc.7 ]"
check "no document links ../shared" sh -c "! grep -rn '\.\./shared' README.md BENCHMARKS.md man engine/UE5/README.md"


# --- queries: a snapshot and its database give the same answers -------------
for f in testdata/spec-example.ugct testdata/chains.ugct testdata/cluster-quirks.ugct testdata/gen-2000-broken.ugct.zst testdata/arena.ugcs; do
	name=$(basename "$f")
	"$ugc" analyze "$f" -o "$out/same.db" --force -q >/dev/null 2>&1
	objs=$("$ugc" sql "$out/same.db" "SELECT idx FROM objects WHERE idx % 97 = 13 OR idx IN (SELECT root FROM clusters LIMIT 2)
		OR idx IN (SELECT dst FROM eliminated_refs LIMIT 2) OR idx IN (SELECT idx FROM purge LIMIT 2) LIMIT 25" --format csv | tail -n +2)
	differ=""
	for o in $objs; do
		for cmd in "refs" "refs --out --format json" "path" "path --roots --format json" "path --all --max 5 --format csv" \
			   "path --external" "path --direct --format dot" "why" "why --format json" "why --format csv"; do
			"$ugc" $cmd "$f" "$o" > "$out/a.txt" 2>&1
			"$ugc" $cmd "$out/same.db" "$o" > "$out/b.txt" 2>&1
			cmp -s "$out/a.txt" "$out/b.txt" || differ="$differ [$cmd $o]"
		done
	done
	for cmd in "clusters" "clusters --check" "clusters --sort bytes --format json" "findings --format csv" "findings"; do
		"$ugc" $cmd "$f" > "$out/a.txt" 2>&1
		"$ugc" $cmd "$out/same.db" > "$out/b.txt" 2>&1
		cmp -s "$out/a.txt" "$out/b.txt" || differ="$differ [$cmd]"
	done
	[ -z "$differ" ] && [ -n "$objs" ] && ok "same answers from $name and its database ($(echo $objs | wc -w) objects)" || bad "same answers from $name and its database" "$differ"
done

# --- whatif: counterfactuals with answers worked out by hand ------------------
# 10 (rooted package) holds Parent 11, its inner Child 12 and Lonely 13
wi="$out/whatif.ugct"
printf '%s\n' 'ugc-text 1' 'first-gc-index 5' 'o 0 1 2 - /Script/CoreUObject 64 Native' 'o 1 2 2 0 Object 256 Native' \
	'o 2 3 2 0 Class 512 Native' 'o 3 4 2 0 Package 256 Native' 'o 4 5 2 0 Actor 900 Native' \
	'o 10 11 3 - /Game/Test 128 RootSet' 'o 11 1 4 10 Parent 10 -' 'o 12 1 4 11 Child 20 -' 'o 13 1 4 10 Lonely 40 -' \
	'r 10 11 strong P' 'r 10 12 strong C' 'r 10 13 strong L' 'g FKeeper 13 Held' > "$wi"
check "whatif --help" sh -c "'$ugc' whatif --help | grep -q '^usage: ugc-analyze whatif'"
expect "whatif --garbage: the inner's Outer still keeps it, and the chain says so" "what if:
  --garbage #11 Actor /Game/Test.Parent: 0 references removed
before  9 objects reachable (2.1 KiB)
after   9 objects reachable (2.1 KiB)
freed: 0 objects, 0 B
aimed at (each freed, or the chain that still keeps it after the change):
#11 Actor /Game/Test.Parent: 1 chain
 (root)  Package /Game/Test
 -> UObject* Package::C =  Actor /Game/Test.Parent:Child
  -> UObject* UObject::Outer = (Garbage)  Actor /Game/Test.Parent
  " "$ugc" whatif "$wi" --garbage 11
expect "whatif --cut frees the object and not its referenced inner" "freed: 1 object, 10 B, 1 class" \
	sh -c "'$ugc' whatif '$wi' --cut /Game/Test.Parent | grep '^freed'"
expect "whatif: two cuts at once" '"freed":{"objects":2,"bytes":30,"by_class":{"total":1,"shown":1,"items":[{"class_idx":4,"class":"Actor","objects":2,"bytes":30}]}' \
	sh -c "'$ugc' whatif '$wi' --cut 11 --cut 'Actor /Game/Test.Parent:Child' --format json | grep -o '\"freed\":{[^}]*{[^}]*}]}'"
expect "whatif: a nulled reference leaves what an FGCObject holds" "#13 Actor /Game/Test.Lonely: a root: referenced by an FGCObject" \
	sh -c "'$ugc' whatif '$wi' --null /Game/Test.L | grep '^#13'"
expect "whatif: null and drop the referencer: freed, csv" "freed,,,1,40,
freed_class,4,Actor,1,40,
target,13,/Game/Test.Lonely,1,40,freed" sh -c "'$ugc' whatif '$wi' --null 10:2 --drop-referencer FKeeper --format csv | grep -E '^(freed|target)'"
for bad in "--null 11" "--cut" "--frob 1" ""; do
	"$ugc" whatif "$wi" $bad >/dev/null 2>&1; [ $? -eq 2 ] && ok "whatif usage error exits 2: '$bad'" || bad "whatif usage error exits 2: '$bad'"
done
for bad in "--cut 99" "--null 11.Nope" "--null 10:3" "--drop-referencer FNobody" "--garbage /Game/Nope"; do
	msg=$("$ugc" whatif "$wi" $bad 2>&1 >/dev/null); rc=$?
	[ $rc -eq 1 ] && [ "$(printf '%s\n' "$msg" | wc -l)" -eq 1 ] && ok "whatif: '$bad' is a one-line error" || bad "whatif: '$bad' is a one-line error" "rc=$rc $msg"
done
"$ugc" whatif testdata/arena.ugcs --cut /Game/Maps/Arena_1.Arena_1 --threads 1 > "$out/wi1.txt" 2>&1
"$ugc" whatif testdata/arena.ugcs --cut /Game/Maps/Arena_1.Arena_1 --threads 2 > "$out/wi2.txt" 2>&1
cmp -s "$out/wi1.txt" "$out/wi2.txt" && grep -q '^freed: [1-9]' "$out/wi1.txt" && ok "whatif: same answer on 1 and 2 threads" || bad "whatif threads"
# a database holds the whole heap: the same bytes from it as from its snapshot
for f in "$wi" testdata/cluster-quirks.ugct testdata/gen-1000-editor.ugct testdata/arena.ugcs; do
	"$ugc" analyze "$f" -o "$out/wi.db" --force -q >/dev/null 2>&1
	differ=""
	for c in "--cut 11" "--garbage 12 --format json" "--unroot 10 --cut 13 --format csv" "--null 10:0 --limit 0" "--cut 4504"; do
		"$ugc" whatif "$f" $c > "$out/a.txt" 2>&1
		"$ugc" whatif "$out/wi.db" $c > "$out/b.txt" 2>&1
		cmp -s "$out/a.txt" "$out/b.txt" || differ="$differ [$c]"
	done
	[ -z "$differ" ] && ok "whatif: the same answers from $(basename "$f") and its database" || bad "whatif from a database: $(basename "$f")" "$differ"
done

# --- diff: the generated series finds exactly what was planted --------------
"$ugc" gen --objects 3000 --seed 5 --evolve -o "$out/ev.ugcs" >/dev/null 2>&1
cmp -s "$out/ev.plan" testdata/evolve.plan && cmp -s "$out/ev-1.ugcs" testdata/evolve-1.ugcs &&
	ok "gen --evolve is deterministic (matches the bundled series)" || bad "gen --evolve is deterministic"
for k in 0 1 2; do "$ugc" analyze "$out/ev-$k.ugcs" -o "$out/ev-$k.db" -q >/dev/null 2>&1; done
grep -v '^leaked ' "$out/ev.plan" | sort > "$out/plan.txt"
for kind in snapshots databases; do
	if [ $kind = snapshots ]; then a="$out/ev-0.ugcs"; b="$out/ev-1.ugcs"; c="$out/ev-2.ugcs"; else a="$out/ev-0.db"; b="$out/ev-1.db"; c="$out/ev-2.db"; fi
	"$ugc" diff "$a" "$b" -o "$out/diff-$kind.db" --force > "$out/diff-$kind.txt" 2>&1
	"$ugc" sql "$out/diff-$kind.db" "SELECT DISTINCT status || ' ' || name FROM diff_objects WHERE status != 'kept'" --format csv |
		tail -n +2 | sort > "$out/found-$kind.txt"
	cmp -s "$out/plan.txt" "$out/found-$kind.txt" && ok "diff of $kind finds exactly the planted changes ($(wc -l < "$out/plan.txt") objects)" ||
		bad "diff of $kind finds exactly the planted changes" "$(diff "$out/plan.txt" "$out/found-$kind.txt" | head -5)"
	grep -q "one process" "$out/diff-$kind.txt" && grep -q ", 2 replaced;" "$out/diff-$kind.txt" &&
		ok "diff of $kind tells re-created objects and reused slots from the same ones" || bad "diff of $kind: replaced" "$(sed -n 2p "$out/diff-$kind.txt")"
	"$ugc" diff --baseline "$a" --target "$b" --final "$c" --format csv > "$out/leaks-$kind.csv" 2>&1
	leaked=$(grep -c '^leaked ' "$out/ev.plan")
	found=$(tail -n +2 "$out/leaks-$kind.csv" | awk -F, '{ n += $2 } END { print n + 0 }')
	bytes=$(tail -n +2 "$out/leaks-$kind.csv" | awk -F, '{ n += $5 } END { print n + 0 }')
	[ "$found" = "$leaked" ] && [ "$bytes" = $(( leaked / 2 * (4096 + 512) )) ] &&
		ok "leak mode on $kind finds exactly the $leaked planted leaks" || bad "leak mode on $kind" "found $found of $leaked, $bytes bytes"
	# one group a planted leak (the plan: MaterialInstanceDynamic_N an
	# FGCObject cache keeps, 4 KiB each; HUDWidget_N the GameInstance keeps,
	# 512 B each), every object its own leak root, the most retained first
	mids=$(grep -c '^leaked .*\.MaterialInstanceDynamic_[0-9]*$' "$out/ev.plan")
	widgets=$(grep -c '^leaked .*\.HUDWidget_[0-9]*$' "$out/ev.plan")
	[ "$(tail -n +2 "$out/leaks-$kind.csv" | cut -d, -f1-5 | tr '\n' ' ')" = \
		"1,$mids,$mids,$((mids * 4096)),$((mids * 4096)) 2,$widgets,$widgets,$((widgets * 512)),$((widgets * 512)) " ] &&
		ok "leak mode on $kind: one group a planted leak, ranked by retained bytes" ||
		bad "leak mode on $kind: one group a planted leak" "$(cut -c1-100 "$out/leaks-$kind.csv")"
done
cmp -s "$out/leaks-snapshots.csv" "$out/leaks-databases.csv" && ok "leak mode: snapshots and databases agree" || bad "leak mode: snapshots and databases agree"
# the FGCObject that holds the cache's leak is named in its trace (the
# holder the final heap's own "g" records give, by SQL)
holder=$(sql "$out/ev-2.db" "SELECT referencer FROM gc_object_refs WHERE dst = (SELECT idx FROM objects
	WHERE path LIKE '%.MaterialInstanceDynamic_%' AND root_kind = 'gcobject' ORDER BY idx LIMIT 1) ORDER BY rowid LIMIT 1")
for ext in ugcs db; do
	e0=$out/ev-0.$ext e1=$out/ev-1.$ext e2=$out/ev-2.$ext
	expect "leak mode: an FGCObject's leak names its holder (.$ext)" "(gcobject: held by FGCObject $holder)|\"holder\":\"$holder\"" \
		sh -c "{ '$ugc' diff --baseline '$e0' --target '$e1' --final '$e2' --limit 1 | grep -o '(gcobject.*'; '$ugc' diff --baseline '$e0' --target '$e1' --final '$e2' --limit 1 --format json | grep -o '\"holder\":\"[^\"]*\"'; } | paste -sd'|'"
done
[ -n "$holder" ] && ok "leak mode: the evolve series has an FGCObject holder ($holder)" || bad "leak mode: the evolve series has an FGCObject holder"
# a final database stored under another policy: its heap is analysed again
# (leak roots are the gc policy's), the same answers
"$ugc" analyze "$out/ev-2.ugcs" -o "$out/ev-2-refs.db" --policy refs -q >/dev/null 2>&1
"$ugc" diff --baseline "$out/ev-0.db" --target "$out/ev-1.db" --final "$out/ev-2-refs.db" --format csv > "$out/leaks-refs.csv" 2>&1
cmp -s "$out/leaks-snapshots.csv" "$out/leaks-refs.csv" && ok "leak mode: a final database of another policy gives the same groups" ||
	bad "leak mode: a final database of another policy" "$(head -3 "$out/leaks-refs.csv")"
tail -n +2 "$out/diff-snapshots.txt" > "$out/d1.txt"; tail -n +2 "$out/diff-databases.txt" > "$out/d2.txt"
cmp -s "$out/d1.txt" "$out/d2.txt" && ok "diff: snapshots and databases agree" || bad "diff: snapshots and databases agree"
expect "leak groups are named by generic chains" "  chain: MaterialInstanceDynamic /Engine/Transient.MaterialInstanceDynamic_*" sh -c "'$ugc' diff --baseline '$out/ev-0.db' --target '$out/ev-1.db' --final '$out/ev-2.db' | grep -m1 '  chain:'"
# Kept only through a cluster (no reference reaches the members): the chain
# is the object's generic full name after "(kept only through cluster
# lists) ", cut at 1023 bytes as its definition cuts it; the two long
# members (names of 990 bytes + "_3", "_4") are one group.  The cluster
# root is A's, so each new member is a leak root of its own (its dominator,
# the cluster root, is not leaked) retaining its own bytes.
long=$(awk 'BEGIN { for (i = 0; i < 90; i++) printf "LongCluster" }')
printf 'ugc-text 1\no 0 1 1 - Root 10 RootSet\no 1 2 1 0 Class 10 -\no 2 3 1 0 CRoot_1 10 -\nr 0 2 strong Held\n' > "$out/kept-a.ugct"
{ cat "$out/kept-a.ugct"; printf 'o 3 4 1 2 Member_5 20 -\no 4 5 1 2 Member_7 20 -\n'
  printf 'o 5 6 1 2 %s_3 30 -\no 6 7 1 2 %s_4 30 -\nc 2 3,4,5,6 - -\n' "$long" "$long"; } > "$out/kept-b.ugct"
"$ugc" diff --baseline "$out/kept-a.ugct" --target "$out/kept-b.ugct" --final "$out/kept-b.ugct" --format csv > "$out/kept.csv" 2>&1
[ "$(sed -n 2p "$out/kept.csv" | cut -d, -f1-6)" = "1,2,2,60,60,5" ] &&
	[ "$(sed -n 2p "$out/kept.csv" | cut -d, -f7 | wc -c)" -eq 1024 ] &&
	[ "$(sed -n 3p "$out/kept.csv")" = "2,2,2,40,40,3,(kept only through cluster lists) Class Root.CRoot_*.Member_*" ] &&
	[ "$(wc -l < "$out/kept.csv")" -eq 3 ] &&
	ok "leak mode: objects kept only through cluster lists are grouped by their generic names, cut at 1023 bytes" ||
	bad "leak mode: objects kept only through cluster lists" "$(cut -c1-120 "$out/kept.csv")"
# A new cluster root dominates its new members: one leak root, one group
# of five objects, retaining 10 + 2 x 20 + 2 x 30 bytes.
printf 'ugc-text 1\no 0 1 1 - Root 10 RootSet\no 1 2 1 0 Class 10 -\n' > "$out/kept-a2.ugct"
"$ugc" diff --baseline "$out/kept-a2.ugct" --target "$out/kept-b.ugct" --final "$out/kept-b.ugct" --format csv > "$out/kept2.csv" 2>&1
[ "$(tail -n +2 "$out/kept2.csv")" = "1,5,1,110,110,2,Class Root -> Held = Class Root.CRoot_*" ] &&
	ok "leak mode: a new cluster root and its members are one leak" || bad "leak mode: a new cluster root and its members" "$(cat "$out/kept2.csv")"
# The V8 leak series (tools/v8-leak-series.js, testdata/v8/leak.plan): a
# node program whose every request between baseline and target left a
# 'config-reload' listener (a closure over its RequestContext) and a memo
# Map entry (a MemoEntry).  Each planted leak is one group, the top two by
# retained bytes; the listener group has one leak root per leaked request
# and one object of each planted class per request, all in that group;
# numbered edges (a Map table's, a handle scope's) are generic; nothing
# kept only by the string tables or code is a leak.
v8s="--baseline testdata/v8/leak-0.heapsnapshot.zst --target testdata/v8/leak-1.heapsnapshot.zst --final testdata/v8/leak-2.heapsnapshot.zst"
"$ugc" diff $v8s --limit 0 --format csv > "$out/v8leak.csv" 2>&1
"$ugc" diff $v8s --limit 0 --format json > "$out/v8leak.json" 2>&1
"$ugc" diff $v8s --limit 2 > "$out/v8leak.txt" 2>&1
plan=testdata/v8/leak.plan
lreq=$(awk '$1 == "leak" && $2 == "listener" { print $3 }' $plan)
mreq=$(awk '$1 == "leak" && $2 == "memo" { print $3 }' $plan)
top2=$(sed -n '2,3p' "$out/v8leak.csv" | cut -d, -f7 | sed 's/.* -> //' | tr '\n' '|')
[ "$top2" = "[*] = (closure) /V8.onReload@*|table = (array) /V8.@*|" ] &&
	[ "$(sed -n 2p "$out/v8leak.csv" | cut -d, -f3)" = "$lreq" ] &&
	grep -q 'config-reload = Array /V8.Array@\* -> \[\*\] = (closure) /V8.onReload@\*$' "$out/v8leak.csv" &&
	ok "leak mode on the V8 series: the listener leak and the memo leak are the top two groups" ||
	bad "leak mode on the V8 series: the planted leaks on top" "$(head -3 "$out/v8leak.csv" | cut -c1-300)"
# each planted class in one group only, with one object a leaked request
want=""; got=""
for t in $(awk '$1 == "leak" { for (i = 4; i <= NF; i++) printf "%s:%s\n", $i, $3 }' $plan); do
	cls=${t%:*}; n=${t#*:}
	want="$want{\"class\":\"$cls\",\"objects\":$n} "
	got="$got$(grep -o "{\"class\":\"$cls\",\"objects\":[0-9]*}" "$out/v8leak.json" | tr '\n' ' ')"
done
[ "$got" = "$want" ] && ok "leak mode on the V8 series: each planted class in one group, one object a leaked request ($lreq, $mreq)" ||
	bad "leak mode on the V8 series: planted classes" "want $want, got $got"
[ "$(tail -n +2 "$out/v8leak.csv" | cut -d, -f7 | grep -c -E -e '-> [0-9]+ =|Internalized strings|\(compiled code\)')" -eq 0 ] &&
	[ "$(tail -n +2 "$out/v8leak.csv" | awk -F, 'NR > 1 && $4 > last { bad = 1 } { last = $4 } END { print bad + 0 }')" -eq 0 ] &&
	grep -q '^left out: [1-9][0-9,]* objects only roots that hold no program state keep' "$out/v8leak.txt" &&
	ok "leak mode on the V8 series: numbered edges generic, no string-table or code traces, the most retained first" ||
	bad "leak mode on the V8 series: generic edges, no system roots, order" "$(grep -m3 -E -e '-> [0-9]+ =|Internalized' "$out/v8leak.csv" | cut -c1-200)"
# JSON: the same groups, the listener leak first with its leak roots, the
# most retained first, and the document's totals
[ "$(grep -o '"leak_roots":[0-9]*,"retained":[0-9]*' "$out/v8leak.json" | head -1)" = \
	"\"leak_roots\":$lreq,\"retained\":$(sed -n 2p "$out/v8leak.csv" | cut -d, -f4)" ] &&
	[ "$(grep -o '"leak_roots":[0-9]*,"retained":[0-9]*' "$out/v8leak.json" | sed 's/.*://' |
		awk 'NR > 1 && $1 > last { bad = 1 } { last = $1 } END { print NR, bad + 0 }')" = "$(($(wc -l < "$out/v8leak.csv") - 1)) 0" ] &&
	grep -q '^{"format_version":1,"command":"diff","mode":"leaks","baseline":"testdata/v8/leak-0.heapsnapshot.zst",.*"total_objects":[0-9]*,' "$out/v8leak.json" &&
	grep -q '"trace":\[{"edge":null,"idx":[0-9]*,"object":"(synthetic) /V8.@1","retained":[0-9]*,"root_kind":"rootset"},{"edge":"\[1\]"' "$out/v8leak.json" &&
	ok "leak mode JSON on the V8 series: the same groups, the listener leak first, traces with retained bytes" ||
	bad "leak mode JSON on the V8 series" "$(cut -c1-300 "$out/v8leak.json")"
# the same answers from the three databases (C's heap is analysed again)
for k in 0 1 2; do "$ugc" analyze testdata/v8/leak-$k.heapsnapshot.zst -o "$out/v8leak-$k.db" -q --force > /dev/null 2>&1; done
"$ugc" diff --baseline "$out/v8leak-0.db" --target "$out/v8leak-1.db" --final "$out/v8leak-2.db" --limit 0 --format csv > "$out/v8leak-db.csv" 2>&1
cmp -s "$out/v8leak.csv" "$out/v8leak-db.csv" && ok "leak mode on the V8 series: snapshots and databases agree" ||
	bad "leak mode on the V8 series: snapshots and databases agree" "$(head -3 "$out/v8leak-db.csv" | cut -c1-200)"
# text: each group with its objects, leak roots, retained bytes, types and
# the retained size at every hop of its trace
grep -q "^group 1: [0-9,]* objects under $lreq leak roots, [0-9.]* [KM]iB retained" "$out/v8leak.txt" &&
	grep -q "^  types: $lreq (closure), " "$out/v8leak.txt" &&
	[ "$(sed -n '/^group 1:/,/^$/p' "$out/v8leak.txt" | grep -c -E '^ +[0-9.]+ [KMG]?i?B  (-> .* = )?#[0-9]+ ')" -ge 5 ] &&
	grep -q "^showing 2 of [0-9,]* groups (--limit 0 shows all)$" "$out/v8leak.txt" &&
	ok "leak mode text: groups with leak roots, retained bytes, types and a trace with retained bytes at each hop" ||
	bad "leak mode text" "$(head -12 "$out/v8leak.txt" | cut -c1-150)"
na=$("$ugc" info testdata/arena.ugcs --bytes | sed -n 's/^objects  *\([0-9]*\).*/\1/p')
ba=$("$ugc" info testdata/arena.ugcs --bytes | sed -n "s/^bytes  *\([0-9]*\).*/\1/p")
expect "a snapshot against itself: nothing changed" "objects: A $na ($ba B), B $na ($ba B): $na kept, 0 added, 0 removed, 0 replaced; 0 slots reused" sh -c "'$ugc' diff testdata/arena.ugcs testdata/arena.ugcs --bytes | sed -n 2p"
# the counts, from the plan: kept = objects before - removed - replaced
n0=$("$ugc" info "$out/ev-0.ugcs" --bytes | sed -n 's/^objects  *\([0-9]*\).*/\1/p')
n_add=$(grep -c '^added ' "$out/ev.plan"); n_rem=$(grep -c '^removed ' "$out/ev.plan"); n_rep=$(grep -c '^replaced ' "$out/ev.plan")
expect "diff --format json counts" "\"kept\":$((n0 - n_rem - n_rep)),\"added\":$n_add,\"removed\":$n_rem,\"replaced\":$n_rep" sh -c "'$ugc' diff '$out/ev-0.db' '$out/ev-1.db' --format json | grep -o '\"kept\":[0-9]*,\"added\":[0-9]*,\"removed\":[0-9]*,\"replaced\":[0-9]*'"
"$ugc" diff "$out/ev-0.db" "$out/ev-1.db" -o "$out/diff-snapshots.db" >/dev/null 2>&1
[ $? -ne 0 ] && ok "diff -o refuses to overwrite" || bad "diff -o refuses to overwrite"

# --- safe output: a name can hold ESC and bytes that are not UTF-8 (#8.8) ---
{ printf 'ugc-text 1\nfirst-gc-index 5\n'
  printf 'o 0 1 2 - /Script/CoreUObject 64 Native\no 1 2 2 0 Object 256 Native\no 2 3 2 0 Class 512 Native\n'
  printf 'o 3 4 2 0 Package 256 Native\no 4 5 2 0 Actor 900 Native\no 10 11 3 - /Game/Evil 128 RootSet\n'
  printf 'o 11 12 4 10 Red%%1b[31m%%ff 100 -\nr 10 11 strong Bad%%1b]0;pwned%%07\n'; } > "$out/evil.ugct"
"$ugc" analyze "$out/evil.ugct" -o "$out/evil.db" -q >/dev/null 2>&1
esc=$(printf '\033'); ff=$(printf '\377'); bel=$(printf '\007')
raw=""
for cmd in "refs $out/evil.ugct 11" "refs $out/evil.db 11 --format json" "path $out/evil.db 11" "why $out/evil.ugct 11 --format json" \
	   "path $out/evil.db 11 --format csv" "info $out/evil.ugct" "sql $out/evil.db SELECT*FROM.objects" ; do
	set -- $cmd
	if [ "$1" = sql ]; then "$ugc" sql "$out/evil.db" "SELECT name, path FROM objects WHERE idx = 11" > "$out/evil.txt" 2>&1
	else "$ugc" "$@" > "$out/evil.txt" 2>&1; fi
	LC_ALL=C grep -q "[$esc$ff$bel]" "$out/evil.txt" && raw="$raw [$cmd]"
done
[ -z "$raw" ] && ok "no raw control or non-UTF-8 byte reaches the output" || bad "no raw control or non-UTF-8 byte reaches the output" "$raw"
expect "names show control bytes as \\xHH" "referencers of #11 Actor /Game/Evil.Red\\x1b[31m\\xff" sh -c "'$ugc' refs '$out/evil.db' 11 | head -1"
expect "JSON carries them as escaped text" '"property":"Bad\\x1b]0;pwned\\x07"' sh -c "'$ugc' refs '$out/evil.db' 11 --format json | grep -o '\"property\":\"[^,]*\"' | head -1"
expect "sql text output escapes cells" "Red\\x1b[31m\\xff" sh -c "'$ugc' sql '$out/evil.db' 'SELECT name FROM objects WHERE idx = 11' --format csv | tail -1"
expect "sql JSON output is valid UTF-8" '[{"n":"Red\u001b[31m\\xff"}]' sh -c "'$ugc' sql '$out/evil.db' 'SELECT name AS n FROM objects WHERE idx = 11' --format json"

# --- sql streams: an endless query prints rows at once (#8.11; buffered, it
# would print nothing until memory ran out) ---
limit=""; command -v timeout >/dev/null 2>&1 && limit="timeout 120"
for f in text csv json; do
	n=$($limit "$ugc" sql "$out/evil.db" "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x, 'row' FROM c" --format $f 2>/dev/null | head -n 300000 | wc -l)
	[ "$n" -eq 300000 ] && ok "sql --format $f streams an endless result" || bad "sql --format $f streams an endless result" "$n lines"
done

# --- two runs writing one output: one wins, the other says so; nothing lost (#8.9) ---
rm -f "$out/race.db"
"$ugc" analyze testdata/arena.ugcs -o "$out/race.db" -q > "$out/race1.txt" 2>&1 & p1=$!
"$ugc" analyze testdata/arena.ugcs -o "$out/race.db" -q > "$out/race2.txt" 2>&1 & p2=$!
wait $p1; r1=$?; wait $p2; r2=$?
if [ $((r1 + r2)) -eq 1 ] && grep -q "race.db: \(already exists\|appeared while it was being written\)" "$out/race1.txt" "$out/race2.txt" &&
	"$ugc" sql "$out/race.db" "SELECT count(*) FROM objects" >/dev/null 2>&1; then
	ok "two analyze runs to one -o: exactly one writes it"
else
	bad "two analyze runs to one -o: exactly one writes it" "rc $r1 and $r2"
fi
ls "$out" | grep -q 'race.db.tmp' && bad "the losing run leaves no temporary file" || ok "the losing run leaves no temporary file"

# --- a command's outputs are all or nothing: gen --evolve's four files (#8.9) ---
rm -f "$out"/aon*; echo keep > "$out/aon-2.ugcs"
"$ugc" gen --objects 500 --evolve -o "$out/aon.ugcs" >/dev/null 2>&1; rc=$?
[ $rc -ne 0 ] && [ "$(ls "$out" | grep -c '^aon')" -eq 1 ] && [ "$(cat "$out/aon-2.ugcs")" = keep ] &&
	ok "gen --evolve writes none of its files when one exists" || bad "gen --evolve writes none of its files when one exists" "$(ls "$out" | grep '^aon')"

# --- a database is input too: damaged ones from the fuzz corpus fail with one line naming it (#8) ---
for c in "clusters fuzz/corpus/db/regress-leak-partial-findings.db --check" "findings fuzz/corpus/db/regress-leak-partial-findings.db" \
	 "why fuzz/corpus/db/regress-reachable-without-root-kind.db 13" "path fuzz/corpus/db/regress-reachable-without-root-kind.db 13 --format json"; do
	set -- $c
	msg=$("$ugc" "$@" 2>&1 >/dev/null); rc=$?
	case "$msg" in "ugc-analyze: $2: "*) [ $rc -eq 1 ] && [ "$(printf '%s\n' "$msg" | wc -l)" -eq 1 ] && ok "damaged database: $1 says what is wrong" && continue ;; esac
	bad "damaged database: $1 says what is wrong" "rc=$rc: $msg"
done
# (of the current schema, or they would only meet the version check: after a
# schema change run tools/fuzz-db-seeds.sh and move the regressions over)
old=
for f in fuzz/corpus/db/*.db; do
	"$ugc" info "$f" --format json 2>/dev/null | grep -q "\"schema_version\":$("$ugc" info "$cdb" --format json | sed 's/.*"schema_version":\([0-9]*\).*/\1/')," || old="$old $f"
done
[ -z "$old" ] && ok "the fuzz corpus databases are of the schema this build writes" ||
	bad "the fuzz corpus databases are of the schema this build writes" "$old"

# --- retention: top and dominators on a heap worked out by hand -------------
# (testdata/retention.ugct says why each number is what it is)
ret=testdata/retention.ugct
"$ugc" analyze "$ret" -o "$out/ret.db" -q >/dev/null 2>&1
expect "top: objects by retained bytes" "object,class,path,retained,shallow,objects
11,Actor,/Game/UI.Widget,6950,1000,1
21,Actor,/Game/Maps/Level1.World,5950,5000,1
4,Class,/Script/CoreUObject.Actor,900,900,1" "$ugc" top "$ret" --limit 3 --format csv
expect "top: classes count each byte once" "class,name,retained,shallow,objects
4,Actor,6950,6750,5
2,Class,1988,1988,5
3,Package,300,300,2" "$ugc" top "$ret" --by class --format csv
expect "top: packages" "package,name,retained,shallow,objects
10,/Game/UI,7050,1100,2
20,/Game/Maps/Level1,5950,5950,5
0,/Script/CoreUObject,1988,1988,5" "$ugc" top "$ret" --by package --format csv
expect "top --vs: what a weak reference would keep" "object,class,path,retained,retained_refs+weak,shallow,objects
11,Actor,/Game/UI.Widget,6950,7020,1000,1
21,Actor,/Game/Maps/Level1.World,5950,5750,5000,1" "$ugc" top "$ret" --vs refs+weak --limit 2 --format csv
# --vs by class is the join of the two policies' own lists, whatever their order
for by in class package; do
	"$ugc" top "$ret" --by $by --format csv --limit 1000 | tail -n +2 | cut -d, -f1,3 | sort > "$out/vs-a.csv"
	"$ugc" top "$ret" --by $by --policy refs+weak --format csv --limit 1000 | tail -n +2 | cut -d, -f1,3 | sort > "$out/vs-b.csv"
	want=$(join -t, -a1 -a2 -e 0 -o 0,1.2,2.2 "$out/vs-a.csv" "$out/vs-b.csv" | sort)
	got=$("$ugc" top "$ret" --by $by --vs refs+weak --format csv --limit 1000 | tail -n +2 | cut -d, -f1,3,4 | sort)
	[ -n "$want" ] && [ "$got" = "$want" ] && ok "top --by $by --vs: the join of the two policies' lists" ||
		bad "top --by $by --vs: the join of the two policies' lists" "got: $got want: $want"
done
expect "dominators: chain and dominated objects" "relation,depth,idx,class,path,shallow,retained
chain,0,11,Actor,/Game/UI.Widget,1000,6950
child,1,23,Actor,/Game/Maps/Level1.World:Actor_B,400,400
child,1,22,Actor,/Game/Maps/Level1.World:Actor_A,300,300
child,1,20,Package,/Game/Maps/Level1,200,200
child,1,24,Actor,/Game/Maps/Level1.World:Shared,50,50" "$ugc" dominators "$ret" 21 --format csv
expect "database: idom and retained columns, NULL for the top and the unreached" "11,,6950
21,11,5950
25,,," sh -c "'$ugc' sql '$out/ret.db' \"SELECT idx, idom, retained FROM objects WHERE idx IN (21, 11, 25) ORDER BY retained DESC\" --format csv | tail -n +2 | sed 's/^25,,\$/25,,,/'"
expect "database: cross-package retention" "10,20,1,5950" sh -c "'$ugc' sql '$out/ret.db' 'SELECT * FROM package_retention' --format csv | tail -n +2"
expect "database: a dominator subtree as a recursive query" "5950" sh -c "'$ugc' sql '$out/ret.db' 'WITH RECURSIVE sub(i) AS (SELECT 21 UNION ALL SELECT o.idx FROM objects o JOIN sub ON o.idom = sub.i) SELECT sum(size) FROM objects WHERE idx IN (SELECT i FROM sub)' --format csv | tail -1"
for f in "$ret" testdata/arena.ugcs testdata/cluster-quirks.ugct; do
	name=$(basename "$f")
	"$ugc" analyze "$f" -o "$out/top.db" -q --force >/dev/null 2>&1
	differ=""
	for cmd in "top" "top --by class --format json" "top --by package --sort shallow --format csv" "top --by class --sort count"; do
		"$ugc" $cmd "$f" > "$out/a.txt" 2>&1; "$ugc" $cmd "$out/top.db" > "$out/b.txt" 2>&1
		cmp -s "$out/a.txt" "$out/b.txt" || differ="$differ [$cmd]"
	done
	x=$("$ugc" top "$f" --limit 1 --format csv | sed -n '2s/,.*//p')
	"$ugc" dominators "$f" "$x" --depth 2 --format json > "$out/a.txt" 2>&1; "$ugc" dominators "$out/top.db" "$x" --depth 2 --format json > "$out/b.txt" 2>&1
	cmp -s "$out/a.txt" "$out/b.txt" || differ="$differ [dominators $x]"
	[ -z "$differ" ] && ok "top and dominators: same answers from $name and its database" || bad "top and dominators: same answers from $name and its database" "$differ"
done
expect "why: what an object retains, and its immediate dominator" "  retains:   5950 B (itself and what it dominates); immediate dominator #11 Actor /Game/UI.Widget" sh -c "'$ugc' why '$out/ret.db' 21 --bytes | grep '^  retains:'"
expect "why: a root's dominator is the top" "  retains:   6950 B (itself and what it dominates); immediate dominator the top (no single object keeps it)" sh -c "'$ugc' why '$ret' 11 --bytes | grep '^  retains:'"
# the same in binary units: 5950 / 1024 = 5.81, 6950 / 1024 = 6.79
expect "why: what it retains as people read it" "  retains:   5.8 KiB (itself and what it dominates); immediate dominator #11 Actor /Game/UI.Widget" sh -c "'$ugc' why '$out/ret.db' 21 | grep '^  retains:'"
expect "why: a root's retained size as people read it" "  retains:   6.8 KiB (itself and what it dominates); immediate dominator the top (no single object keeps it)" sh -c "'$ugc' why '$ret' 11 | grep '^  retains:'"
expect "clusters: what the root dominates (Squad 600 + two soldiers 400 each)" "retained: the root dominates 1400 B (itself included; a member referenced from outside is not dominated by it)" sh -c "'$ugc' clusters testdata/cluster-quirks.ugct 50 --bytes | grep '^retained:'"
grep -v PreviewWorld "$ret" > "$out/ret-cut.ugct"   # the widget lets go of the map
"$ugc" analyze "$out/ret-cut.ugct" -o "$out/ret-cut.db" -q >/dev/null 2>&1
expect "diff: retained bytes by class (Actor 6950 -> the widget's own 1000; Package 300 -> 100)" "retained by class (policy gc): 2 of 3 classes changed
  class                                            A retained     B retained          change
  Actor                                                6950 B         1000 B         -5950 B
  Package                                               300 B          100 B          -200 B" sh -c "'$ugc' diff '$ret' '$out/ret-cut.ugct' --bytes | sed -n '/^retained by class/,/^  Package/p'"
# the same in binary units, right-aligned: 6950 B = 6.79 KiB, 5950 B = 5.81 KiB; below 1 KiB exact
expect "diff: retained bytes by class as people read them" "retained by class (policy gc): 2 of 3 classes changed
  class                                            A retained     B retained          change
  Actor                                               6.8 KiB         1000 B        -5.8 KiB
  Package                                               300 B          100 B          -200 B" sh -c "'$ugc' diff '$ret' '$out/ret-cut.ugct' | sed -n '/^retained by class/,/^  Package/p'"
"$ugc" diff "$ret" "$out/ret-cut.ugct" --format json | sed 's/"a":"[^"]*","b":"[^"]*",//' > "$out/a.txt" 2>&1
"$ugc" diff "$out/ret.db" "$out/ret-cut.db" --format json | sed 's/"a":"[^"]*","b":"[^"]*",//' > "$out/b.txt" 2>&1
expect "diff: a cut retained-by-class list says what it left out" "showing 1 of 2 classes that changed (--limit 0 shows all)" \
	sh -c "'$ugc' diff '$ret' '$out/ret-cut.ugct' --limit 1 | sed -n '/^retained by class/,/^showing/p' | tail -n 1"
grep -q '"retained_by_class":{"total":2,' "$out/a.txt" && cmp -s "$out/a.txt" "$out/b.txt" && ok "diff: retained by class the same from snapshots and databases" || bad "diff: retained by class the same from snapshots and databases" "$(diff "$out/a.txt" "$out/b.txt" | head -3)"
for srt in retained shallow; do
	"$ugc" top testdata/arena.ugcs --sort $srt --limit 100000 --format csv | sed -n 2,8p > "$out/all.txt"
	"$ugc" top testdata/arena.ugcs --sort $srt --limit 7 --format csv | tail -n +2 > "$out/few.txt"
	[ "$(wc -l < "$out/few.txt")" -eq 7 ] && cmp -s "$out/all.txt" "$out/few.txt" && ok "top --limit keeps the same best rows as the full list (--sort $srt)" || bad "top --limit keeps the same best rows as the full list (--sort $srt)"
done
"$ugc" top "$ret" --policy everything >/dev/null 2>&1; [ $? -eq 2 ] && ok "top: an unknown policy is a usage error" || bad "top: an unknown policy is a usage error"
"$ugc" top "$ret" --sort count >/dev/null 2>&1; [ $? -eq 2 ] && ok "top: --sort count needs classes or packages" || bad "top: --sort count needs classes or packages"
msg=$("$ugc" top "$out/ret.db" --vs refs 2>&1); rc=$?
[ $rc -eq 1 ] && [ "$(printf '%s\n' "$msg" | wc -l)" -eq 1 ] && case "$msg" in *"holds one policy (gc)"*) true ;; *) false ;; esac && ok "top --vs on a database: one line saying why" || bad "top --vs on a database: one line saying why" "$msg"
"$ugc" analyze "$ret" -o "$out/ret-refs.db" --policy refs+weak -q >/dev/null 2>&1
expect "analyze --policy stores that policy" "7020" sh -c "'$ugc' top '$out/ret-refs.db' --limit 1 --format csv | tail -1 | cut -d, -f4"
"$ugc" top "$out/ret-refs.db" --policy gc >/dev/null 2>&1; [ $? -eq 1 ] && ok "top: a database answers only its own policy" || bad "top: a database answers only its own policy"

# --- suspects: a heap worked out by hand -------------------------------------
# Disregard pool 0-7: 64+256+512+256+900+100+100+100 = 2288 bytes.  Roots
# /Game/Leak 10 (100), Holder 11, Keeper 17, LeakedTex 18 (RootSet and
# garbage, 10).  Dominator tree: 11 -> 12 Cache -> {13 Bucket -> 14 Blob, 15
# Small}; 17 -> 16 OldMap (a garbage World kept by an immutable reference).
# Retained: 14 5000, 13 5100, 15 1200, 12 6400, 11 6500, 16 50, 17 60.
# Reached: 2288 + 100 + 6500 + 60 + 10 = 8958; 20% is 1791.6, so 1792 bytes.
# From 11: 12 keeps 6400 >= 80% of 6500, so step; 13 keeps 5100 < 80% of
# 6400 (5120): the accumulation point is 12, one level down.  12 is on that
# way, so not listed again; 13 is: its 14 keeps 5000 >= 4080, point 14.
# Under 12: Texture2D 14+15 = 6200 (2), Actor 100, Buffer 100 (lower index first).
# Classes: Actor 11+17 = 6560 (12 is under 11), Texture2D 5000+1200+10 =
# 6210, Buffer 5100, Class (objects 1-7) 2224: four, two shown.
sus=$out/suspects.ugct
cat > "$sus" <<'EOF'
ugc-text 1
mode game
first-gc-index 8
o 0 1 3 - /Script/CoreUObject 64 Native
o 1 2 2 0 Object 256 Native
o 2 3 2 0 Class 512 Native
o 3 4 2 0 Package 256 Native
o 4 5 2 0 Actor 900 Native
o 5 6 2 0 Texture2D 100 Native
o 6 7 2 0 Buffer 100 Native
o 7 8 2 0 World 100 Native
o 10 11 3 - /Game/Leak 100 RootSet
o 11 12 4 10 Holder 100 RootSet
o 12 13 4 10 Cache 100 -
o 13 14 6 10 Bucket 100 -
o 14 15 5 10 Blob 5000 -
o 15 16 5 10 Small 1200 -
o 16 17 7 10 OldMap 50 Garbage
o 17 18 4 10 Keeper 10 RootSet
o 18 19 5 10 LeakedTex 10 RootSet,Garbage
r 11 12 strong Cache
r 12 13 strong Bucket
r 12 15 strong Small
r 13 14 strong Blob
r 17 16 immutable OldMap
EOF
expect "suspects: signals (World first), accumulation points, classes under them" "section,rank,idx,class,path,bytes,objects,accum_idx,accum_path,accum_bytes,steps,detail
signal,1,16,World,/Game/Leak.OldMap,50,1,,,,,kept by immutable reference OldMap of /Game/Leak.Keeper
signal,2,18,Texture2D,/Game/Leak.LeakedTex,10,1,,,,,kept as a root by its internal flags
object,1,11,Actor,/Game/Leak.Holder,6500,1,12,/Game/Leak.Cache,6400,1,
object-under,1,5,Texture2D,,6200,2,,,,,
object-under,1,4,Actor,,100,1,,,,,
object-under,1,6,Buffer,,100,1,,,,,
object,2,13,Buffer,/Game/Leak.Bucket,5100,1,14,/Game/Leak.Blob,5000,1,
object-under,2,5,Texture2D,,5000,1,,,,,
class,1,11,Actor,/Game/Leak.Holder,6560,3,12,/Game/Leak.Cache,6400,1,
class-under,1,5,Texture2D,,6200,2,,,,,
class-under,1,4,Actor,,100,1,,,,,
class-under,1,6,Buffer,,100,1,,,,,
class,2,14,Texture2D,/Game/Leak.Blob,6210,3,14,/Game/Leak.Blob,5000,0,
class-under,2,5,Texture2D,,5000,1,,,,," "$ugc" suspects "$sus" --threshold 20 --limit 2 --format csv
expect "suspects: the threshold in bytes and the shares" "leak suspects (policy gc): at least 20% of the 8958 B reached, 1792 B
1. #11 Actor /Game/Leak.Holder
   retained 6500 B (72.6% of reached), shallow 100 B
   accumulation point: #12 Actor /Game/Leak.Cache, 1 level down, retained 6400 B (71.4%)
class suspects: 4
showing 2 of 4 class suspects (--limit 0 shows all)" sh -c "'$ugc' suspects '$sus' --threshold 20 --limit 2 --bytes | awk '/^1\\. #11/ { n = 3 } /^leak|^class sus|^showing/ || n-- > 0'"
# in binary units: 8958 B = 8.75 KiB; 1792 B = 1.75 KiB and 6400 B = 6.25 KiB, halves rounded up; 6500 B = 6.35 KiB
expect "suspects: sizes as people read them" "leak suspects (policy gc): at least 20% of the 8.7 KiB reached, 1.8 KiB
1. #11 Actor /Game/Leak.Holder
   retained 6.3 KiB (72.6% of reached), shallow 100 B
   accumulation point: #12 Actor /Game/Leak.Cache, 1 level down, retained 6.3 KiB (71.4%)" sh -c "'$ugc' suspects '$sus' --threshold 20 --limit 2 | awk '/^1\\. #11/ { n = 3 } /^leak/ || n-- > 0'"
expect "suspects --format json: an object suspect, a class suspect through its largest instance" '"objects":{"total":2,"shown":2,"items":[{"idx":11,"class":"Actor","path":"/Game/Leak.Holder","shallow":100,"retained":6500,"accumulation":{"idx":12,
"classes":{"total":4,"shown":4,"items":[{"class_idx":4,"class":"Actor","class_path":"/Script/CoreUObject.Actor","objects":3,"retained":6560,"largest":{"idx":11,' sh -c "'$ugc' suspects '$sus' --threshold 20 --format json | grep -o -e '\"objects\":{\"total\":2,\"shown\":2,\"items\":\[{[^{]*{\"idx\":12,' -e '\"classes\":{\"total\":4,\"shown\":4,\"items\":\[{[^{]*{\"idx\":11,'"
# at 75% (6718.5, so 6719 bytes) nothing qualifies, not even Actor (6560)
expect "suspects: nothing at or above 75%" "0,0" sh -c "'$ugc' suspects '$sus' --threshold 75 --format json | sed 's/.*\"objects\":{\"total\":\([0-9]*\).*\"classes\":{\"total\":\([0-9]*\).*/\1,\2/'"
expect "suspects: at 72% (6450 bytes) Holder alone, and the class Actor (6560)" "1,1" sh -c "'$ugc' suspects '$sus' --threshold 72 --format json | sed 's/.*\"objects\":{\"total\":\([0-9]*\).*\"classes\":{\"total\":\([0-9]*\).*/\1,\2/'"
"$ugc" analyze testdata/arena.ugcs -o "$out/sus.db" -q --force >/dev/null 2>&1
differ=""
for fmt in text json csv; do
	"$ugc" suspects testdata/arena.ugcs --threshold 5 --format $fmt > "$out/a.txt" 2>&1; "$ugc" suspects "$out/sus.db" --threshold 5 --format $fmt > "$out/b.txt" 2>&1
	cmp -s "$out/a.txt" "$out/b.txt" || differ="$differ [$fmt]"
done
[ -z "$differ" ] && ok "suspects: same answers from arena.ugcs and its database" || bad "suspects: same answers from arena.ugcs and its database" "$differ"
differ=""
for t in 0 101 abc -5 10x nan ""; do
	"$ugc" suspects "$sus" --threshold "$t" >/dev/null 2>&1; rc=$?
	[ $rc -eq 2 ] || differ="$differ ['$t': $rc]"
done
[ -z "$differ" ] && ok "suspects: a bad --threshold is a usage error (exit 2)" || bad "suspects: a bad --threshold is a usage error (exit 2)" "$differ"
check "suspects --help" sh -c "'$ugc' suspects --help | grep -q '^usage: ugc-analyze suspects'"
msg=$("$ugc" suspects "$out/sus.db" --policy refs 2>&1); rc=$?
[ $rc -eq 1 ] && [ "$(printf '%s\n' "$msg" | wc -l)" -eq 1 ] && ok "suspects: another policy than a database holds: one line" || bad "suspects: another policy than a database holds: one line" "rc=$rc $msg"

# --- V8 heap snapshots (testdata/v8: figures computed by the script that wrote it) ---
v8=testdata/v8/node-small.heapsnapshot.zst
fig() { awk -v k="$1" '$1 == k { print $2 }' testdata/v8/node-small.expect; }
"$ugc" analyze "$v8" -o "$out/v8.db" --quiet >/dev/null 2>&1; rc=$?
got=$(sql "$out/v8.db" "SELECT count(*), sum(size), sum(retained IS NOT NULL) FROM objects
	WHERE idx >= (SELECT value FROM snapshot WHERE key = 'first_gc_index')")
[ $rc -eq 0 ] && [ "$got" = "$(fig nodes),$(fig bytes),$(fig reachable)" ] &&
	ok "analyze a .heapsnapshot: every node an object, bytes summed, reachable ones retained" ||
	bad "analyze a .heapsnapshot: every node an object, bytes summed, reachable ones retained" "rc=$rc got=$got"
# every count of nodes says the snapshot's (node's own figures), never the
# tool's objects beside them: analyze's summary, info of the database, the report
commas() { echo "$1" | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta'; } # 42,297
n=$(commas "$(fig nodes)") r=$(commas "$(fig reachable)")
expect "V8 node counts agree: analyze, info of its database, the report" \
	"v8: $r nodes retained from the root|v8: retention|$r nodes reached|nodes           $n (and|$r retained from the root|3.0 MiB reached under policy gc ($r nodes)" \
	sh -c "{ '$ugc' analyze '$v8' -o '$out/v8n.db' --force | grep -o -e '^v8: [0-9,]* nodes retained from the root' -e '^v8: retention' -e '[0-9,]* nodes reached'; '$ugc' info '$out/v8.db' | grep '^nodes' | grep -o -e '^nodes *[0-9,]* (and' -e '[0-9,]* retained from the root'; '$ugc' report '$out/v8.db' -o '$out/v8n.html' --force >/dev/null && grep -o '[^>]*reached under policy[^<]*' '$out/v8n.html'; } | paste -sd'|'"
# top on a V8 heap ranks the program's nodes: not the (synthetic) root and
# groups, which hold everything, nor the tool's objects below the nodes
syn=$(sql "$out/v8.db" "SELECT count(*) FROM objects WHERE class_name = '(synthetic)'
	AND idx >= (SELECT value FROM snapshot WHERE key = 'first_gc_index')")
for f in "$v8" "$out/v8.db"; do
	expect "top on a V8 heap ($(basename "$f")): every node ranked but the $syn synthetic ones, none of them shown" \
		"$(commas $(( $(fig reachable) - syn )))|0|left out: the (synthetic) root, (GC roots) and its groups, which hold everything, and the tool's /V8 and constructor objects" \
		sh -c "'$ugc' top '$f' --limit 0 > '$out/v8top0.txt'; { sed -n 1p '$out/v8top0.txt' | sed 's/.* of \([0-9,]*\) shown.*/\1/'; grep -c -e '#[0-9]*  (synthetic) ' -e '#[0-9]*  Package /V8\$' -e '#[0-9]*  Class ' '$out/v8top0.txt'; tail -n 1 '$out/v8top0.txt'; } | paste -sd'|'"
done
for f in "$v8" "$out/v8.db"; do
	expect "top --by class|package on a V8 heap ($(basename "$f")): the $(fig classes) constructors but (synthetic); /V8 holding the nodes" \
		"$(( $(fig classes) - 1 ))|$(commas "$(fig nodes)")" \
		sh -c "{ '$ugc' top '$f' --by class --format json | grep -o '\"rows\":{\"total\":[0-9]*' | grep -o '[0-9]*\$'; '$ugc' top '$f' --by package | sed -n 3p | awk '{ print \$(NF - 1) }'; } | paste -sd'|'"
done
expect "analyze of a V8 heap: the largest by constructor leave out (synthetic), which holds everything" "0" \
	sh -c "'$ugc' analyze '$v8' -o '$out/v8n.db' --force | grep '^v8: retention' | grep -c 'synthetic'"
[ "$(sql "$out/v8.db" "SELECT value FROM snapshot WHERE key = 'engine'")" = v8 ] &&
	[ "$(sql "$out/v8.db" "SELECT count(*) FROM refs WHERE kind NOT IN ('class', 'outer', 'gcobject')")" = "$(fig edges)" ] &&
	ok "a .heapsnapshot's engine and references stored" || bad "a .heapsnapshot's engine and references stored"
# top on the snapshot computes the dominators without the GC (a V8 heap's
# need no GC result, and top reads none), during the load; suspects, which
# reads it, runs the GC beside them; analyze ran them after the GC
same=1
for by in object class package; do
	"$ugc" top "$v8" --by $by --limit 40 > "$out/v8top-snap.txt" 2>&1 &&
		"$ugc" top "$out/v8.db" --by $by --limit 40 > "$out/v8top-db.txt" 2>&1 &&
		[ "$(wc -l < "$out/v8top-snap.txt")" -ge 3 ] && cmp -s "$out/v8top-snap.txt" "$out/v8top-db.txt" || same=0
done
UGC_TRACE=1 "$ugc" top "$v8" --limit 1 2>&1 >/dev/null | grep -q '^trace: gc' && same=0
# and they run during the load, beside the loader's names: the trace's
# dominators line comes before its load line
UGC_TRACE=1 "$ugc" top "$v8" --limit 1 2>&1 >/dev/null | grep -E '^trace: (dominators|load) at' |
	cut -d' ' -f2 | tr '\n' ' ' | grep -qx 'dominators load ' || same=0
UGC_TRACE=1 "$ugc" suspects "$v8" --limit 1 2>&1 >/dev/null | grep -q '^trace: gc (beside the dominators)' || same=0
[ $same = 1 ] && ok "top on a .heapsnapshot (no GC run) lists what top on its database does" ||
	bad "top on a .heapsnapshot (no GC run) lists what top on its database does"
"$ugc" convert "$v8" "$out/v8.ugcs" --force >/dev/null 2>&1 &&
	"$ugc" info "$v8" --format json > "$out/v8a.json" 2>/dev/null &&
	"$ugc" info "$out/v8.ugcs" --format json > "$out/v8b.json" 2>/dev/null &&
	[ "$(sed 's/"snapshot":"[^"]*",//' "$out/v8a.json")" = "$(sed 's/"snapshot":"[^"]*",//' "$out/v8b.json")" ] &&
	ok "convert a .heapsnapshot to .ugcs: same info" || bad "convert a .heapsnapshot to .ugcs: same info"
# a file that lists a string twice (V8 never does; a cut to 4096 bytes can
# make two equal): one string in the database, which a command that reads
# the heap back from it accepts; the root's two properties are both "Foo"
printf '%s' '{"snapshot":{"meta":{"node_fields":["type","name","id","self_size","edge_count"],"node_types":[["object","synthetic"]],
"edge_fields":["type","name_or_index","to_node"],"edge_types":[["property"]]},"node_count":3,"edge_count":2},
"nodes":[1,0,1,0,2, 0,1,3,10,0, 0,2,5,8,0],"edges":[0,0,5, 0,1,10],"strings":["Foo","Foo","bar"]}' > "$out/twice.heapsnapshot"
"$ugc" analyze "$out/twice.heapsnapshot" -o "$out/twice.db" --force -q >/dev/null 2>&1 &&
	[ "$(sql "$out/twice.db" "SELECT count(*) FROM strings WHERE text = 'Foo'")" = 1 ] &&
	[ "$(sql "$out/twice.db" "SELECT group_concat(property, ' ') FROM refs WHERE src = (SELECT idx FROM objects WHERE node_id = 1) AND kind = 'strong'")" = "Foo Foo" ] &&
	"$ugc" whatif "$out/twice.db" --cut @3 >/dev/null 2>&1 &&
	ok "a string listed twice in a .heapsnapshot is one string in its database, which reads back" ||
	bad "a string listed twice in a .heapsnapshot is one string in its database, which reads back"
printf '%s' '{"snapshot":{"meta":{"node_fields":["type","name","id","self_size","edge_count"],"node_types":[["synthetic"]],
"edge_fields":["type","name_or_index","to_node"],"edge_types":[["property"]]},"node_count":1,"edge_count":0},
"nodes":[0,0,1,0,0],"edges":[],"strings":["(root' > "$out/cut.heapsnapshot"
cut=$(wc -c < "$out/cut.heapsnapshot")
msg=$("$ugc" analyze "$out/cut.heapsnapshot" -o "$out/cut.db" 2>&1 >/dev/null); rc=$?
case "$msg" in
"ugc-analyze: $out/cut.heapsnapshot: offset $cut: unexpected end of the file"*)
	[ $rc -eq 1 ] && [ "$(printf '%s\n' "$msg" | wc -l)" -eq 1 ] && [ ! -e "$out/cut.db" ] &&
		ok "truncated .heapsnapshot: one line naming the offset, exit 1, nothing written" ||
		bad "truncated .heapsnapshot: one line naming the offset, exit 1, nothing written" "rc=$rc" ;;
*) bad "truncated .heapsnapshot: one line naming the offset, exit 1, nothing written" "$msg" ;;
esac

# --- one listing convention: --limit 0 is all, a cut list says so -----------
g=testdata/arena.ugcs
total=$("$ugc" top $g --limit 1 --bytes | sed -n '1s/.*: 1 of \([0-9]*\) shown.*/\1/p')
rows=$("$ugc" top $g --limit 0 | grep -c ' #[0-9]')
last=$("$ugc" top $g --limit 3 --bytes | tail -n 1)
[ -n "$total" ] && [ "$rows" = "$total" ] && [ "$last" = "showing 3 of $total objects (--limit 0 shows all)" ] &&
	ok "top: --limit 0 lists all $total objects, a cut list says what it left out" ||
	bad "top: --limit 0 lists all, a cut list says what it left out" "total=$total rows=$rows last=$last"
n=$("$ugc" suspects $g --threshold 1 --limit 0 --bytes | sed -n 's/^class suspects: //p')
listed=$("$ugc" suspects $g --threshold 1 --limit 0 | grep -c '^[0-9]*\. class ')
m=$("$ugc" suspects $g --threshold 1 --limit 1 --bytes | grep -c "^showing 1 of $n class suspects (--limit 0 shows all)")
[ -n "$n" ] && [ "$n" -gt 1 ] && [ "$listed" = "$n" ] && [ "$m" = 1 ] &&
	ok "suspects: --limit 0 lists all $n class suspects, a cut list says so" ||
	bad "suspects: --limit 0 lists all, a cut list says so" "n=$n listed=$listed m=$m"
# the object that dominates the most objects directly, by the sql view
root=$("$ugc" sql $g "SELECT idom FROM objects WHERE idom IS NOT NULL GROUP BY idom ORDER BY count(*) DESC LIMIT 1" --format csv | tail -n 1)
kids=$("$ugc" dominators $g "$root" --depth 1 --limit 0 --bytes | sed -n 's/^dominated directly: \([0-9]*\) object.*/\1/p')
shown=$("$ugc" dominators $g "$root" --depth 1 --limit 0 --bytes | grep -c '(shallow [0-9]* B, dominates')
cut=$("$ugc" dominators $g "$root" --depth 1 --limit 1 --bytes | grep -c "^  showing 1 of $kids objects (--limit 0 shows all)")
[ -n "$kids" ] && [ "$kids" -gt 1 ] && [ "$shown" -eq "$kids" ] && [ "$cut" -eq 1 ] &&
	ok "dominators: --limit 0 lists every child, a cut level says what it left out" ||
	bad "dominators: --limit 0 lists every child, a cut level says what it left out" "kids=$kids shown=$shown cut=$cut"
"$ugc" path $g "$root" --roots --limit 0 >/dev/null 2>&1 && ok "path --roots --limit 0 is accepted (all)" ||
	bad "path --roots --limit 0 is accepted (all)"

# --- a file of the wrong kind is named for what it is -----------------------
msg=$("$ugc" analyze "$out/arena.db" -o "$out/wrong.db" 2>&1); rc=$?
[ $rc = 1 ] && [ "$msg" = "ugc-analyze: $out/arena.db: an SQLite database, not a snapshot: analyze and convert read snapshots (.ugct, .ugcs, .heapsnapshot); a database written by analyze goes to the query commands (refs, why, top, sql, ...)" ] &&
	[ ! -e "$out/wrong.db" ] && ok "analyze of a database says it is a database, not a snapshot" ||
	bad "analyze of a database says it is a database, not a snapshot" "rc=$rc $msg"
msg=$("$ugc" convert "$out/arena.db" "$out/wrong.ugcs" 2>&1); rc=$?
[ $rc = 1 ] && case "$msg" in *"arena.db: an SQLite database, not a snapshot"*) true ;; *) false ;; esac &&
	ok "convert of a database says it is a database" || bad "convert of a database says it is a database" "rc=$rc $msg"
"$ugc" diff testdata/spec-example.ugct "$out/arena.ugct" -o "$out/kind-diff.db" --force >/dev/null 2>&1
msg=$("$ugc" refs "$out/kind-diff.db" 1 2>&1); rc=$?
[ $rc = 1 ] && case "$msg" in *"kind-diff.db: a diff database (written by diff -o), not an analysis database: query it with sql"*) true ;; *) false ;; esac &&
	ok "refs on a diff database says it is a diff database and what reads it" ||
	bad "refs on a diff database says it is a diff database and what reads it" "rc=$rc $msg"

# --- did you mean ---------------------------------------------------------------
expect "a misspelled command: did you mean" "ugc-analyze: 'analyse' is not a command; did you mean 'analyze'? (see 'ugc-analyze --help')" "$ugc" analyse x
expect "a misspelled option: did you mean" "ugc-analyze top: unknown option '--limt=3'; did you mean '--limit'? (see 'ugc-analyze top --help')" "$ugc" top x --limt=3
expect "a far-off option: no guess" "ugc-analyze top: unknown option '--zzzzzz' (see 'ugc-analyze top --help')" "$ugc" top x --zzzzzz
msg=$("$ugc" why testdata/arena.ugcs '/Game/Maps/Arena_1.Arena_1x' 2>&1)
expect "a misspelled object path: its near miss" "ugc-analyze: no object is '/Game/Maps/Arena_1.Arena_1x'; did you mean #$("$ugc" sql testdata/arena.ugcs "SELECT idx FROM objects WHERE path = '/Game/Maps/Arena_1.Arena_1'" --format csv | tail -n 1) World /Game/Maps/Arena_1.Arena_1" printf '%s\n' "$msg"

# --- analyze warns of the engine's crash on a rooted cluster step 2 dissolves --
# (B is RootSet and lists A, whose root is garbage: ugc-gc(7) §1.2)
printf '%s\n' 'ugc-text 1' 'o 0 1 0 - Class 10 Native' 'o 1 2 0 - Pkg 10 RootSet' 'o 2 3 0 1 A 10 Garbage,RF_MirroredGarbage' \
	'o 3 4 0 1 A1 10 -' 'o 4 5 0 1 B 10 RootSet' 'o 5 6 0 1 B1 10 -' 'c 2 3 - -' 'c 4 5 - 2' > "$out/crash.ugct"
expect "analyze warns when step 2 dissolves a rooted cluster" "LogGarbage: warning: step 2 dissolves 1 rooted cluster that the engine then walks at cluster index -1, a crash (finding rooted-cluster-dissolved)" \
	sh -c "'$ugc' analyze '$out/crash.ugct' -o '$out/crash.db' --force | grep warning"

# --- a V8 node id as DevTools writes it selects its object ---------------------
v8=testdata/v8/node-small.heapsnapshot.zst
pid=$("$ugc" sql "$v8" "SELECT idx FROM objects WHERE path = '/V8.Player@84295'" --format csv | tail -n 1)
"$ugc" analyze "$v8" -o "$out/ids.db" -q --force >/dev/null 2>&1
for f in "$v8" "$out/ids.db"; do
	expect "why @ID on $(basename "$f") selects the node" "#$pid Player @84295" sh -c "'$ugc' why '$f' @84295 | head -n 1"
done
expect "an unknown @ID says it is a node id" "ugc-analyze: no object has node id @99999999 (a V8 heap's objects are named NAME@99999999)" "$ugc" why "$out/ids.db" @99999999
for f in "$v8" "$out/ids.db"; do
	expect "gccost on a V8 heap ($(basename "$f")) says there is no UObject mark to cost" \
		"$f: a V8 heap's GC is not Unreal Engine's: there is no UObject mark to cost, and no cluster to form" "$ugc" gccost "$f"
done
# cut on a V8 heap: the synthetic nodes' edges are not cut.  The root ->
# (GC roots) -> Global; Global .a -> Target, Global .mid -> Mid .b ->
# Target: the one edge (GC roots) -> Global would do, but no program removes
# it; the cheapest a program can make is 2, and nearest the target: .a, .b
printf '%s' '{"snapshot":{"meta":{"node_fields":["type","name","id","self_size","edge_count"],"node_types":[["object","synthetic"]],
"edge_fields":["type","name_or_index","to_node"],"edge_types":[["element","property"]]},"node_count":5,"edge_count":5},
"nodes":[1,0,1,0,1, 1,1,3,0,1, 0,2,5,10,2, 0,3,7,10,1, 0,4,9,100,0],"edges":[0,1,5, 0,1,10, 1,5,20, 1,7,15, 1,6,20],
"strings":["","(GC roots)","Global","Mid","Target","a","b","mid"]}' > "$out/vcut.heapsnapshot"
expect "cut on a V8 heap: no edge of a synthetic node, the two program edges nearest the target" \
	"minimum cut: 2 references, cost 2|     .a -> #11 Target @9|     .b -> #11 Target @9" \
	sh -c "'$ugc' cut '$out/vcut.heapsnapshot' @9 | grep -e '^minimum cut' -e '^     \.' | sed 's/ (flow network.*//' | paste -sd'|'"
# (GC roots) holds Held itself: no cut, the chain said (the root's reason is not cut either)
printf '%s' '{"snapshot":{"meta":{"node_fields":["type","name","id","self_size","edge_count"],"node_types":[["object","synthetic"]],
"edge_fields":["type","name_or_index","to_node"],"edge_types":[["element","property"]]},"node_count":3,"edge_count":2},
"nodes":[1,0,1,0,1, 1,1,3,0,1, 0,2,5,10,0],"edges":[0,1,5, 0,2,10],"strings":["","(GC roots)","Held"]}' > "$out/vcut2.heapsnapshot"
expect "cut on a V8 heap: a node only synthetic edges hold has no cut" \
	"no cut frees them: only references that cannot be removed by editing a property hold them." \
	sh -c "'$ugc' cut '$out/vcut2.heapsnapshot' @5 | sed -n 2p"
# a long string's name in text: cut at 100 bytes, at a character's start,
# with "..." (as DevTools cuts it); JSON carries it whole
lsn=testdata/v8/leak-2.heapsnapshot.zst
shown=$("$ugc" why "$lsn" @6205 | head -n 1 | sed 's/^#[0-9]* (string) //; s/ @6205$//')
whole=$("$ugc" why "$lsn" @6205 --format json | grep -o '"path":"/V8\.[^"]*@6205"' | head -n 1)
n_shown=$(printf '%s' "$shown" | LC_ALL=C wc -c) n_whole=$(printf '%s' "$whole" | LC_ALL=C wc -c)
case "$shown" in
*...) [ "$n_shown" -le 100 ] && [ "$n_shown" -ge 97 ] && [ "$n_whole" -gt 1000 ] &&
	[ "$(printf '%s' "$shown" | cut -c1-20)" = "$(printf '%s' "$whole" | sed 's/^"path":"\/V8\.//' | cut -c1-20)" ] &&
	ok "a V8 string's long name: text cut at 100 bytes with ..., JSON whole ($n_shown, $n_whole bytes)" ||
	bad "a V8 string's long name" "$n_shown bytes shown, $n_whole in JSON: $shown" ;;
*) bad "a V8 string's long name: text cut with ..." "$shown" ;;
esac
# a V8 leak series made by hand: B and C add Global.s -> a 300-byte string
# (a new type, so the tool adds its constructor object): one leak, the
# string; the constructor object (the disregard pool) is none, and the
# trace cuts the string's 390-byte name as text does
long=$(printf 'x%.0s' $(seq 150))$(printf '\303\251%.0s' $(seq 40))$(printf 'y%.0s' $(seq 100))
for k in a b c; do
	if [ $k = a ]; then nodes='1,0,1,0,1, 1,1,3,0,1, 0,2,5,10,0' edges='0,1,5, 0,1,10'
	else nodes='1,0,1,0,1, 1,1,3,0,1, 0,2,5,10,1, 2,3,7,300,0' edges='0,1,5, 0,1,10, 1,4,15'; fi
	printf '%s' '{"snapshot":{"meta":{"node_fields":["type","name","id","self_size","edge_count"],"node_types":[["object","synthetic","string"]],
"edge_fields":["type","name_or_index","to_node"],"edge_types":[["element","property"]]},"node_count":'"$(echo "$nodes" | tr ',' '\n' | wc -l | awk '{ print $1 / 5 }')"',"edge_count":'"$(echo "$edges" | tr ',' '\n' | wc -l | awk '{ print $1 / 3 }')"'},
"nodes":['"$nodes"'],"edges":['"$edges"'],"strings":["","(GC roots)","Global","'"$long"'","s"]}' > "$out/ls-$k.heapsnapshot"
done
"$ugc" diff --baseline "$out/ls-a.heapsnapshot" --target "$out/ls-b.heapsnapshot" --final "$out/ls-c.heapsnapshot" > "$out/ls.txt" 2>&1
last=$(grep -- '-> s = #' "$out/ls.txt" | sed 's/.*-> s = #[0-9]* (string) //; s/ @7$//')
[ "$(sed -n 2p "$out/ls.txt")" = "1 object (300 B) under 1 leak root retaining 300 B, in 1 group by retention trace (the most retained first)" ] &&
	case "$last" in xxxxxxxxxx*...) [ "$(printf '%s' "$last" | LC_ALL=C wc -c)" -le 100 ] ;; *) false ;; esac &&
	ok "leak mode on a hand-made V8 series: the string is the one leak (not the tool's constructor object), its name cut" ||
	bad "leak mode on a hand-made V8 series" "$(cut -c1-160 "$out/ls.txt")"
# diff of two V8 heaps: constructors, no slots (V8 keeps a node's id, not
# an index and a serial)
expect "diff of V8 heaps: counts without slots, a constructor histogram" "objects: A|constructor histogram:|  constructor|retained by constructor|0" \
	sh -c "'$ugc' diff testdata/v8/leak-0.heapsnapshot.zst testdata/v8/leak-1.heapsnapshot.zst --limit 1 > '$out/v8diff.txt'; { sed -n 2p '$out/v8diff.txt' | cut -c1-10; sed -n '3p;4p' '$out/v8diff.txt' | sed 's/ *A count.*//'; grep -o '^retained by constructor' '$out/v8diff.txt'; grep -c -e 'replaced' -e 'slots' -e '[Cc]lass' '$out/v8diff.txt'; } | paste -sd'|'"
# no line of V8 text ends in a space: the two spaces that end a chain in the
# engine's log (kept on UE heaps, as "path: the true shortest chain" shows)
# are not a V8 tool's, and a heading with a list under it ends at its colon
for c in "suspects $out/ids.db" "why $out/ids.db @84295" "path $out/ids.db @84295 --all" "dominators $out/ids.db @84295"; do
	expect "V8 text ends no line in a space: ${c%% *}" "0" sh -c "'$ugc' $c | grep -c ' \$'"
done
# --- sizes and counts as people read them; --bytes for the exact integers ----
# human() and sep() work the text form out here, apart from the tool: binary
# units, the unit that keeps the number below 1024 once rounded to a tenth
# (halves up), below 1 KiB the exact bytes; a comma between groups of three
hum='function human(n,   k, u, t) {
	if (n < 1024) return n " B"
	split("KiB MiB GiB TiB PiB EiB", u, " ")
	for (k = 1; k < 6; k++) { t = int((n * 10 + 2 ^ (10 * k - 1)) / 2 ^ (10 * k)); if (t < 10240) break }
	return int(t / 10) "." (t % 10) " " u[k]
}
function sep(n,   s) { s = ""; while (n >= 1000) { s = sprintf(",%03d", n % 1000) s; n = int(n / 1000) } return n s }'
g=testdata/arena.ugcs
"$ugc" info $g --format json > "$out/hinfo.json"
jb=$(grep -o '"bytes":[0-9]*' "$out/hinfo.json" | head -1 | cut -d: -f2)
jo=$(grep -o '"objects":[0-9]*' "$out/hinfo.json" | head -1 | cut -d: -f2)
want=$(awk -v b="$jb" -v o="$jo" "$hum"' BEGIN { printf "objects         %s (\nbytes           %s\n", sep(o), human(b) }')
got=$("$ugc" info $g | sed -n -e 's/^\(objects  *[0-9,]* (\).*/\1/p' -e '/^bytes /p')
[ -n "$jb" ] && [ "$got" = "$want" ] && ok "info: the size and count as people read them, from the JSON's ($jb bytes: $(echo "$want" | sed -n 's/^bytes  *//p'))" ||
	bad "info: the size and count as people read them, from the JSON's" "got: $got | want: $want"
got=$("$ugc" info $g --bytes | sed -n -e 's/^\(objects  *[0-9,]* (\).*/\1/p' -e '/^bytes /p')
[ "$got" = "$(printf 'objects         %s (\nbytes           %s B' "$jo" "$jb")" ] && ok "info --bytes: the JSON's exact integers" ||
	bad "info --bytes: the JSON's exact integers" "$got"
[ "$("$ugc" --bytes info $g)" = "$("$ugc" info $g --bytes)" ] && ok "--bytes before the command as after it" || bad "--bytes before the command as after it"
# top's table, row by row: --bytes has CSV's integers; the default shows them
# as human() does, right-aligned in the same columns, the rest of the row alike
for by in object class; do
	"$ugc" top $g --by $by --limit 30 --format csv | tail -n +2 | awk -F, '{ print $(NF-2), $(NF-1), $NF }' > "$out/hcsv.txt"
	# (a size under --bytes is "N B": the unit made two spaces, the columns kept)
	"$ugc" top $g --by $by --limit 30 --bytes | sed -n '3,32p' | sed 's/\([0-9]\) B\( \|$\)/\1  \2/g' > "$out/hexact.txt"
	"$ugc" top $g --by $by --limit 30 | sed -n '3,32p' > "$out/htext.txt"
	exact=$(awk -v by=$by '{ print $1, $2, (by == "class" ? $3 : "") }' "$out/hexact.txt" | sed 's/ $//')
	[ "$(wc -l < "$out/hcsv.txt")" -eq 30 ] && [ "$exact" = "$(awk -v by=$by '{ print $1, $2, (by == "class" ? $3 : "") }' "$out/hcsv.txt" | sed 's/ $//')" ] &&
		ok "top --by $by --bytes: the CSV's exact integers" || bad "top --by $by --bytes: the CSV's exact integers" "$(echo "$exact" | head -2)"
	# (columns: retained 1-14, shallow 16-29, idx or objects 31-38, then the name)
	mism=$(paste -d'\n' "$out/hexact.txt" "$out/htext.txt" | awk -v by=$by "$hum"'
		NR % 2 { split($0, x, " "); rest = substr($0, 39); next }
		{ want = sprintf("%14s %14s %8s", human(x[1]), human(x[2]), by == "class" ? sep(x[3]) : x[3])
		  if (substr($0, 1, 38) != want || substr($0, 39) != rest) print NR / 2 ": " $0 " | want " want }')
	[ -z "$mism" ] && [ -s "$out/htext.txt" ] && ok "top --by $by: sizes as people read them, right-aligned" || bad "top --by $by: sizes as people read them, right-aligned" "$mism"
done
"$ugc" analyze $g -o "$out/hsep.db" -q --force >/dev/null 2>&1
want=$("$ugc" info "$out/hsep.db" --bytes | grep '^objects ' | awk "$hum"'{ for (i = 1; i <= NF; i++) if ($i ~ /^\(?[0-9]+$/) { p = substr($i, 1, 1) == "(" ? "(" : ""; $i = p sep(substr($i, length(p) + 1)) } print }')
got=$("$ugc" info "$out/hsep.db" | grep '^objects ' | tr -s ' ')
case "$want" in *[0-9],[0-9]*) [ "$got" = "$want" ] ;; *) false ;; esac && ok "info on a database: counts with separators, from --bytes's ($want)" ||
	bad "info on a database: counts with separators, from --bytes's" "got: $got | want: $want"
expect "clusters: one cluster, one member (root and member 100 bytes each)" "1 cluster (1 alive, 0 dissolved), 1 member, 200 B" \
	sh -c "'$ugc' clusters testdata/stale-outer.ugct | tail -1"
"$ugc" --help | grep -q -- '--bytes' && sed -n '/^\.SH GLOBAL OPTIONS/,/^\.SH COMMANDS/p' man/ugc-analyze.1 | grep -qx '\.B \\-\\-bytes' &&
	ok "--bytes is in --help and among the global options of ugc-analyze(1)" || bad "--bytes is in --help and among the global options of ugc-analyze(1)"

# refs: a property longer than the old 32 columns widens the column for every
# row shown, so the fates stay in one column (the object with the longest
# outgoing property, found by SQL)
lp=$("$ugc" sql testdata/arena.ugcs "SELECT src FROM refs WHERE length(property) > 32 ORDER BY length(property) DESC, src LIMIT 1" --format csv | tail -1)
cols=$("$ugc" refs testdata/arena.ugcs "$lp" --out --limit 0 | awk 'NR > 1 && /^  [a-z]/ { match($0, / (survives|garbage|purged|-)  *#/); print RSTART }' | sort -u | wc -l)
[ -n "$lp" ] && [ "$cols" -eq 1 ] && ok "refs --out: the fate column aligned under a long property (#$lp)" ||
	bad "refs --out: the fate column aligned under a long property" "lp=$lp cols=$cols"

# A V8 heap speaks V8's words: no Unreal word in the text of any command,
# from the snapshot and from its database (clusters and findings say, in
# one line, that a V8 heap has none, and are checked for that)
v8=testdata/v8/node-small.heapsnapshot.zst
"$ugc" analyze $v8 -o "$out/v8words.db" -q --force > /dev/null 2>&1
deep=$("$ugc" sql "$out/v8words.db" "SELECT path FROM objects WHERE class_name = 'Object' AND distance IS NOT NULL ORDER BY distance DESC, idx LIMIT 1" --format csv | tail -1)
holder=$("$ugc" sql "$out/v8words.db" "SELECT o.path FROM objects o JOIN refs r ON r.src = o.idx WHERE o.class_name = '(closure)' AND o.reachable GROUP BY o.idx ORDER BY count(*) DESC, o.idx LIMIT 1" --format csv | tail -1)
unreal='UObject|RootSet|AddToRoot|FGCObject|BeginDestroy|FinishDestroy|GameThreadDestroy|World or Level|mode game|[Cc]luster|[Gg]arbage|disregard|Outer|LogGarbage| serial|Package|purge|/V8\.'
words=""
for input in $v8 "$out/v8words.db"; do
	for c in "analyze|-o $out/v8words-again.db --force" "info|" "top|" "top|--by class" "refs|$deep" "refs|$deep --out" \
		"path|$deep" "path|$deep --roots" "why|$deep" "dominators|$holder" "suspects|" "whatif|--cut $holder" \
		"cut|$deep" "cut|$holder --limit 0" "cut|$deep --root-cost never"; do
		cmd=${c%%|*}
		args=${c#*|}
		[ "$cmd" = analyze ] && [ "$input" != "$v8" ] && continue
		# shellcheck disable=SC2086
		"$ugc" $cmd "$input" $args > "$out/v8words.txt" 2>&1
		hit=$(grep -o -E "$unreal" "$out/v8words.txt" | sort -u | tr '\n' ' ')
		[ -n "$hit" ] && words="$words [$cmd $args: $hit]"
	done
done
[ -n "$deep" ] && [ -n "$holder" ] && [ -z "$words" ] && ok "V8 text output has no Unreal word (13 commands, snapshot and database)" ||
	bad "V8 text output has no Unreal word" "deep=$deep holder=$holder:$words"
v=testdata/v8/leak
"$ugc" diff --baseline $v-0.heapsnapshot.zst --target $v-1.heapsnapshot.zst --final $v-2.heapsnapshot.zst > "$out/v8words.txt" 2>&1
"$ugc" diff $v-0.heapsnapshot.zst $v-1.heapsnapshot.zst --limit 3 >> "$out/v8words.txt" 2>&1
hit=$(grep -o -E "$unreal" "$out/v8words.txt" | sort -u | tr '\n' ' ')
[ -s "$out/v8words.txt" ] && [ -z "$hit" ] && ok "V8 text of leak mode and of a two-way diff has no /V8. path or Unreal root word" ||
	bad "V8 text of leak mode and of a two-way diff" "$hit"
expect "V8: clusters says a V8 heap has none" "$out/v8words.db: a V8 heap has no GC clusters (they are Unreal Engine's)" "$ugc" clusters "$out/v8words.db"
expect "V8: a retainer path names edges as DevTools does, objects as Constructor name @id" " -> [1] = (synthetic) (GC roots) @3" sh -c "'$ugc' why '$out/v8words.db' '$deep' | sed -n '/shortest retainer path/{n;n;p}'"
"$ugc" suspects "$out/v8words.db" --limit 0 --format csv > "$out/v8sus.csv"
[ -s "$out/v8sus.csv" ] && ! grep -q '(synthetic)' "$out/v8sus.csv" && ok "V8: the synthetic root and its groups are never suspects" ||
	bad "V8: the synthetic root and its groups are never suspects" "$(grep -m2 '(synthetic)' "$out/v8sus.csv")"

# gccost: the mark's work counted by hand.  Package /Game/P (root) holds A;
# A, B, C, D (class Thing, Outer P) reference each other and E of /Game/Q.
# A read a visit: Class, Outer when there is one, each record.  P 1+0+1 = 2,
# A 1+1+2 = 4, B 1+1+3 = 5, C 1+1+2 = 4, D 1+1+1 = 3, Q 1, E 1+1 = 2: 21.
# By package P 2+4+5+4+3 = 18, Q 3; by class Thing 4+5+4+3+2 = 18, Package 3.
# As a cluster, P's five objects would list one object outside P (E; the
# classes are in the disregard pool, the Outer is P's own): 18 -> 1.
gc1=$out/gccost1.ugct
cat > "$gc1" <<'EOF'
ugc-text 1
mode game
first-gc-index 5
o 0 1 3 - /Script/CoreUObject 0 Native
o 1 2 2 0 Object 0 Native
o 2 3 2 0 Class 0 Native
o 3 4 2 0 Package 0 Native
o 4 5 2 0 Thing 0 Native
o 5 6 3 - /Game/P 10 RootSet
o 6 7 4 5 A 10 -
o 7 8 4 5 B 10 -
o 8 9 4 5 C 10 -
o 9 10 4 5 D 10 -
o 10 11 3 - /Game/Q 10 RootSet
o 11 12 4 10 E 10 -
r 5 6 strong Held
r 6 7 strong B
r 6 8 strong C
r 7 8 strong C
r 7 9 strong D
r 7 11 strong E
r 8 9 strong D
r 8 11 strong E
r 9 11 strong E
EOF
expect "gccost: the mark's reads by class and package, and P as a cluster (18 reads -> 1)" "section,idx,name,visits,traced,clusters,as_cluster,saved
class,4,Thing,18,5,0,,
class,3,Package,3,2,0,,
package,5,/Game/P,18,5,0,,
package,10,/Game/Q,3,2,0,,
candidate,5,/Game/P,18,5,,1,17
candidate,10,/Game/Q,3,2,,0,3" "$ugc" gccost "$gc1" --format csv
# the same heap with A a cluster root (members B, C, D; MutableObjects E):
# the GC walks the cluster's one list entry instead of tracing A..D, so P's
# work is P's own 2 reads and the walk's 1: 3 (one object traced, one
# cluster walked); E is traced through the list (2), Q 1: 6 in all
{ cat "$gc1"; echo "c 6 7,8,9 11 -"; } > "$out/gccost2.ugct"
expect "gccost: clustered, P's work falls from 18 reads to 3" "class,3,Package,3,2,0,,
class,4,Thing,3,1,1,,
package,5,/Game/P,3,1,1,,
package,10,/Game/Q,3,2,0,,
candidate,10,/Game/Q,3,2,,0,3" sh -c "'$ugc' gccost '$out/gccost2.ugct' --format csv | tail -n +2"
expect "gccost: the total, split into tracing and list walks" "mark work of $out/gccost2.ugct: 6 reads: 5 tracing 3 objects, 1 walking 1 cluster' lists, 0 FGCObject records; 0 references of the disregard pool never read" sh -c "'$ugc' gccost '$out/gccost2.ugct' | head -1"
"$ugc" analyze testdata/arena.ugcs -o "$out/gccost.db" -q --force > /dev/null 2>&1
"$ugc" gccost testdata/arena.ugcs --format json > "$out/gca.json"
"$ugc" gccost "$out/gccost.db" --format json > "$out/gcb.json"
cmp -s "$out/gca.json" "$out/gcb.json" && ok "gccost: a snapshot and its database give the same counts" ||
	bad "gccost: a snapshot and its database give the same counts" "$(cmp "$out/gca.json" "$out/gcb.json")"
# the arena heap: the reads by class add up to the total, every one of them
sum=$("$ugc" gccost testdata/arena.ugcs --format csv --limit 0 | awk -F, '$1 == "class" { s += $4 } END { print s }')
# (the FGCObject records are read as roots, no class's work)
doc=$("$ugc" gccost testdata/arena.ugcs --format json)
tot=$(echo "$doc" | grep -o '"visits":[0-9]*' | head -1 | cut -d: -f2)
grec=$(echo "$doc" | grep -o '"gc_record_visits":[0-9]*' | cut -d: -f2)
[ -n "$tot" ] && [ "$sum" -eq $((tot - grec)) ] && ok "gccost: the classes' reads add up to the mark's ($tot, $grec of them FGCObject records)" ||
	bad "gccost: the classes' reads add up to the mark's" "$sum vs $tot - $grec"

# world-leak: testdata/worlds.ugct says how each World is held; by hand,
# two leaks: B (kept from root Holder) and H (its level held by an actor of
# World A, kept from root GameEngine_0); A, C and E held by the engine's
# side, F and G as streamed sublevels of A, D dead, OverWorld's object none.
wl=testdata/worlds.ugct
expect "world-leak: the Worlds nothing using worlds holds, none other" "world-leak: 2
  #14 /Game/B.B: a World the GC keeps that nothing using worlds holds (the GameEngine or GameInstance, or a streaming level of a world in use): a world leak, kept from root /Engine/Transient.Holder (ugc-analyze worlds shows its chain and its cut)
  #36 /Game/H.H: a World the GC keeps that nothing using worlds holds (the GameEngine or GameInstance, or a streaming level of a world in use): a world leak, kept from root /Engine/Transient.GameEngine_0 (ugc-analyze worlds shows its chain and its cut)" sh -c "'$ugc' findings '$wl' --kind world-leak"
"$ugc" analyze "$wl" -o "$out/worldleak.db" -q --force > /dev/null 2>&1
expect "world-leak: the same from the database" "world-leak: 2" sh -c "'$ugc' findings '$out/worldleak.db' --kind world-leak | head -1"
# worlds: the same heap, every World with how it is held; each leak's one
# reference to cut (by hand: Holder.Cached for B; Actor_0.Target, the actor
# of World A holding H's level, for H) and what the rerun frees: B's package
# (/Game/B 10 B, B 10 B) and H's (/Game/H 1000 B, H 2000 B, its level 4000 B)
"$ugc" worlds "$wl" > "$out/worlds.txt" 2>&1
expect "worlds: five in use, two leaked" "worlds of testdata/worlds.ugct: 7 kept by the GC, 5 in use, 2 leaked" head -1 "$out/worlds.txt"
expect "worlds: each leak's cut and proof" "leaked: #14 World /Game/B.B
      1. #21 Class /Engine/Transient.Holder .Cached (strong) -> #14 World /Game/B.B
    proof: the GC rerun without it frees 2 objects (20 B), every one of the package's
leaked: #36 World /Game/H.H
      1. #38 Actor /Game/A.A:PersistentLevel.Actor_0 .Target (strong) -> #37 Level /Game/H.H:PersistentLevel
    proof: the GC rerun without it frees 3 objects (6.8 KiB), every one of the package's" grep -E '^leaked|^      1\.|proof' "$out/worlds.txt"
expect "worlds: streamed sublevels are in use, held by their persistent world or a LevelStreaming" "in use: #29 World /Game/F.F, held by #12 World /Game/A.A .Levels[1] (strong)
in use: #32 World /Game/G.G, held by #34 LevelStreamingDynamic /Game/A.A:PersistentLevel.LevelStreamingDynamic_0 .LoadedLevel (strong)" grep -E '#(29|32) World' "$out/worlds.txt"
"$ugc" worlds "$wl" --format json > "$out/worlds-a.json"
"$ugc" worlds "$out/worldleak.db" --format json > "$out/worlds-b.json"
cmp -s "$out/worlds-a.json" "$out/worlds-b.json" && grep -q '"freed_bytes":7000' "$out/worlds-a.json" &&
	ok "worlds: a snapshot and its database give the same JSON (H's cut frees 7000 bytes)" ||
	bad "worlds: a snapshot and its database give the same JSON" "$(cmp "$out/worlds-a.json" "$out/worlds-b.json")"
# worlds: a leaked World in the package of a World in use: its cut frees it
# alone (the World in use and the package stay), by hand one reference,
# Holder.Cached, freeing A2's 10 bytes; the review found the cut cutting
# the engine's reference to A instead
cat > "$out/worlds-shared.ugct" <<'EOF'
ugc-text 1
mode game
first-gc-index 8
o 0 1 3 - /Script/CoreUObject 0 Native
o 1 2 2 0 Object 0 Native
o 2 3 2 0 Class 0 Native
o 3 4 2 0 Package 0 Native
o 4 5 2 0 World 0 Native
o 5 6 2 0 GameEngine 0 Native
o 6 7 2 0 Level 0 Native
o 7 8 2 0 Actor 0 Native
o 8 9 3 - /Engine/Transient 10 RootSet
o 9 10 5 8 GameEngine_0 10 RootSet
o 10 11 3 - /Game/A 10 -
o 11 12 4 10 A 10 -
o 12 13 4 10 A2 10 -
o 13 14 2 8 Holder 10 RootSet
r 9 11 strong World
r 13 12 strong Cached
EOF
expect "worlds: a leak sharing a package with a World in use is cut from its holder, not from the engine" "      1. #13 Class /Engine/Transient.Holder .Cached (strong) -> #12 World /Game/A.A2
    proof: the GC rerun without it frees 1 object (10 B), every one of the package's" sh -c "'$ugc' worlds '$out/worlds-shared.ugct' | grep -E '^      1\\.|proof'"
# cut of a class default object in the disregard pool: never collected, so
# no cut frees it (it answered an empty cut whose proof failed)
expect "cut: a target in the disregard pool is held uncuttably, exit 0" "0
no cut frees them: only references that cannot be removed by editing a property hold them." sh -c "'$ugc' cut testdata/worlds.ugct '#7' > '$out/cutpool.txt'; echo \$?; sed -n 2p '$out/cutpool.txt'"
expect "world-leak: the arena heap's one World its GameInstance does not hold (Arena_99), and no other" "#4495 /Game/Maps/Arena_99.Arena_99" sh -c "'$ugc' findings testdata/arena.ugcs --kind world-leak | sed -n 's/^  \\(#[0-9]* [^:]*\\):.*/\\1/p'"

echo "cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
