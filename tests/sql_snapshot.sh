#!/bin/sh
# sql_snapshot.sh — `sql SNAPSHOT` answers as `sql DB` does (issue 12.2):
# every example query of the documentation (tests/doc-queries.sh extracts
# them from README.md and ugc-analyze(1)) gives the same rows on each test
# heap analysed in memory as on the database `analyze` writes from it (as a
# set where the query has no ORDER BY), and each returns rows on some heap;
# the plan of a lookup uses the virtual table's index; writes are refused;
# the analysis options apply; a statement computes only the parts of the
# analysis it reads (no dominators unless it reads retention data); a bad
# snapshot gets the one-line error.
# Usage: tests/sql_snapshot.sh UGC_ANALYZE OUTDIR.  Prints "ok  NAME" or
# "FAIL NAME" per test and ends with "sql-snapshot: N passed, N failed".
ugc=$1
out=$2/sql-snapshot
mkdir -p "$out"
passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok   $1"; }
bad() { failed=$((failed + 1)); echo "FAIL $1"; [ -n "$2" ] && echo "    $2"; }

sh tests/doc-queries.sh > "$out/queries"
nq=$(wc -l < "$out/queries")
[ "$nq" -ge 10 ] && ok "the documentation gives $nq example queries" || bad "the documentation gives example queries" "$nq"

# the docs' object 1234 becomes, on each heap, its most referenced object
: > "$out/answered"
for f in testdata/spec-example.ugct testdata/cluster-quirks.ugct testdata/retention.ugct testdata/chains.ugct \
	 testdata/stale-outer.ugct testdata/gen-1000-editor.ugct testdata/arena.ugcs \
	 testdata/v8/node-small.heapsnapshot.zst; do
	name=$(basename "$f")
	db=$out/$name.db
	if ! "$ugc" analyze "$f" -o "$db" --force --quiet; then
		bad "analyze $name"
		continue
	fi
	obj=$("$ugc" sql "$db" "SELECT dst FROM ref_table GROUP BY dst ORDER BY count(*) DESC, dst LIMIT 1" --format csv | tail -n +2)
	n=0
	while IFS= read -r q; do
		n=$((n + 1))
		q=$(printf '%s\n' "$q" | sed "s/1234/${obj:-0}/g")
		"$ugc" sql "$f" "$q" --format csv > "$out/snap.csv" 2> "$out/snap.err"
		rs=$?
		"$ugc" sql "$db" "$q" --format csv > "$out/db.csv" 2> "$out/db.err"
		rd=$?
		if printf '%s' "$q" | grep -qi 'order by'; then
			cp "$out/snap.csv" "$out/a"; cp "$out/db.csv" "$out/b"
		else
			sort "$out/snap.csv" > "$out/a"; sort "$out/db.csv" > "$out/b"
		fi
		if [ $rs -eq 0 ] && [ $rd -eq 0 ] && cmp -s "$out/a" "$out/b"; then
			ok "$name: doc query $n, $(($(wc -l < "$out/a") - 1)) rows, as on the database"
			[ "$(wc -l < "$out/a")" -gt 1 ] && echo "$n" >> "$out/answered"
		else
			bad "$name: doc query $n as on the database" "$q: rc $rs/$rd $(head -c 300 "$out/snap.err")
$(diff "$out/a" "$out/b" | head -6)"
		fi
	done < "$out/queries"
done
# every virtual table's rowids are the database's (the key of an INTEGER
# PRIMARY KEY table; a cluster list row's place over all lists, from 1)
f=testdata/gen-1000-editor.ugct db=$out/gen-1000-editor.ugct.db
for q in "SELECT rowid, idx FROM object_table" "SELECT rowid, id FROM strings" "SELECT rowid, * FROM purge" \
	 "SELECT rowid, * FROM cluster_members" "SELECT rowid, * FROM cluster_mutable" \
	 "SELECT rowid, * FROM retained_by_package"; do
	"$ugc" sql "$f" "$q ORDER BY 1" --format csv | tail -n +2 > "$out/a"
	"$ugc" sql "$db" "$q ORDER BY 1" --format csv | tail -n +2 > "$out/b"
	[ -s "$out/a" ] && cmp -s "$out/a" "$out/b" && ok "rowids as on the database: $q" ||
		bad "rowids as on the database: $q" "$(diff "$out/a" "$out/b" | head -4)"
done

n=0
while [ $n -lt "$nq" ]; do
	n=$((n + 1))
	grep -qx "$n" "$out/answered" && ok "doc query $n returns rows on some test heap" ||
		bad "doc query $n returns rows on some test heap" "$(sed -n "${n}p" "$out/queries")"
done

# a lookup's plan uses the virtual table's index (the database's: its index)
snap=testdata/spec-example.ugct
for q in "SELECT * FROM refs WHERE dst = 12|dst=" "SELECT * FROM objects WHERE idx = 13|idx=" \
	 "SELECT idx FROM objects WHERE outer = 11|outer=" "SELECT * FROM ref_table WHERE src = 13|src=" \
	 "SELECT idx, retained FROM objects ORDER BY retained DESC LIMIT 5|order by retained desc"; do
	sql=${q%|*} want=${q#*|}
	plan=$("$ugc" sql "$snap" "EXPLAIN QUERY PLAN $sql" --format csv 2>&1)
	case "$plan" in *"VIRTUAL TABLE INDEX "*":$want"*) ok "plan of '$sql' uses $want" ;;
	*) bad "plan of '$sql' uses $want" "$plan" ;; esac
done

# read-only
for w in "DELETE FROM objects" "INSERT INTO purge VALUES(1,2,3,4)" "UPDATE findings SET kind = 'x'" "DROP TABLE clusters"; do
	msg=$("$ugc" sql "$snap" "$w" 2>&1)
	rc=$?
	case "$rc $msg" in
	"1 ugc-analyze: $snap: "*"read-only"* | "1 ugc-analyze: $snap: "*"may not be modified" | "1 ugc-analyze: $snap: cannot modify"*)
		[ "$(printf '%s\n' "$msg" | wc -l)" -eq 1 ] && ok "refused: $w" && continue ;;
	esac
	bad "refused: $w" "rc=$rc $msg"
done

# the analysis options are analyze's
v=$("$ugc" sql "$snap" "SELECT value FROM snapshot WHERE key = 'policy'" --policy refs --format csv | tail -1)
[ "$v" = refs ] && ok "sql SNAPSHOT --policy" || bad "sql SNAPSHOT --policy" "$v"
a=$("$ugc" sql testdata/gen-1000-editor.ugct "SELECT count(*) FROM purge" --mode game --format csv | tail -1)
b=$("$ugc" sql testdata/gen-1000-editor.ugct "SELECT count(*) FROM purge" --format csv | tail -1)
"$ugc" analyze testdata/gen-1000-editor.ugct -o "$out/game.db" --mode game --force --quiet
c=$("$ugc" sql "$out/game.db" "SELECT count(*) FROM purge" --format csv | tail -1)
[ "$a" = "$c" ] && [ "$a" != "$b" ] && ok "sql SNAPSHOT --mode" || bad "sql SNAPSHOT --mode" "$a $b $c"
"$ugc" sql "$out/game.db" "SELECT 1" --threads 2 > /dev/null 2>&1
[ $? -eq 2 ] && ok "analysis options on a database are a usage error" || bad "analysis options on a database are a usage error"
"$ugc" sql --help | grep -q 'SNAPSHOT' && ok "sql --help names SNAPSHOT" || bad "sql --help names SNAPSHOT"

# only what a statement reads is computed (UGC_TRACE names each part of the
# analysis as it runs), and the answers are the database's
f=testdata/gen-1000-editor.ugct
db=$out/gen-1000-editor.ugct.db
obj=$("$ugc" sql "$db" "SELECT dst FROM ref_table GROUP BY dst ORDER BY count(*) DESC, dst LIMIT 1" --format csv | tail -n +2)
for q in "SELECT 1|" \
	 "SELECT r.src, o.path, r.kind, r.property FROM refs r JOIN objects o ON o.idx = r.src WHERE r.dst = $obj|" \
	 "SELECT idx, path, flags, garbage FROM objects WHERE class = (SELECT class FROM object_table WHERE idx = $obj)|" \
	 "SELECT key, value FROM snapshot WHERE key IN ('policy', 'mode')|" \
	 "SELECT idx, reachable, root_kind FROM objects WHERE idx = $obj|GC" \
	 "SELECT count(*), sum(size) FROM purge|GC" \
	 "SELECT kind, count(*) FROM findings GROUP BY kind; SELECT count(*) FROM findings|GC findings" \
	 "SELECT idx, retained FROM objects ORDER BY retained DESC LIMIT 20|GC dominators" \
	 "SELECT * FROM objects WHERE idx = $obj|GC dominators" \
	 "SELECT * FROM retained_by_class ORDER BY retained DESC LIMIT 5|GC dominators"; do
	sql=${q%|*} want=${q#*|}
	UGC_TRACE=1 "$ugc" sql "$f" "$sql" --format csv > "$out/snap.csv" 2> "$out/trace"
	rs=$?
	got=$(sed -n 's/^trace: \(GC\|findings\|dominators\) at .*/\1/p' "$out/trace" | tr '\n' ' ' | sed 's/ $//')
	"$ugc" sql "$db" "$sql" --format csv > "$out/db.csv" 2>&1
	if [ $rs -eq 0 ] && [ "$got" = "$want" ] && cmp -s "$out/snap.csv" "$out/db.csv" && [ "$(wc -l < "$out/db.csv")" -gt 1 ]; then
		ok "'$sql' computes ${want:-nothing but the load}, as on the database"
	else
		bad "'$sql' computes ${want:-nothing but the load}, as on the database" "rc $rs, computed '$got'; $(diff "$out/snap.csv" "$out/db.csv" | head -4)"
	fi
done

# bad input: one line naming the file and line (text) or offset (binary)
for f in testdata/bad/*.ugct; do
	want=$(head -1 "$f" | sed 's/^# expect: //')
	msg=$("$ugc" sql "$f" "SELECT count(*) FROM objects" 2>&1 >/dev/null)
	rc=$?
	case "$msg" in "ugc-analyze: $f$want"*) [ $rc -eq 1 ] && [ "$(printf '%s\n' "$msg" | wc -l)" -eq 1 ] && continue ;; esac
	bad "sql on bad input $(basename "$f")" "rc=$rc: $msg"
	bad_seen=1
done
[ -z "$bad_seen" ] && ok "sql on every bad snapshot: one line naming file and line"
"$ugc" convert testdata/spec-example.ugct "$out/spec.ugcs" > /dev/null 2>&1
size=$(wc -c < "$out/spec.ugcs")
head -c $((size - 7)) "$out/spec.ugcs" > "$out/truncated.ugcs"
msg=$("$ugc" sql "$out/truncated.ugcs" "SELECT 1" 2>&1)
rc=$?
case "$rc $msg" in "1 ugc-analyze: $out/truncated.ugcs: offset "*) ok "sql on a truncated binary names an offset" ;;
*) bad "sql on a truncated binary names an offset" "rc=$rc: $msg" ;; esac

echo "sql-snapshot: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
