#!/bin/sh
# fuzz-db-seeds.sh — rebuilds the seed corpus of fuzz/fuzz_db.c: the
# databases `analyze` writes from five bundled snapshots (v8-ids a V8 heap,
# for objects.node_id), copied to 512-byte pages so the fuzzer mutates data
# rather than empty page space.  Run it
# after a schema change (the seeds must carry the current schema_version).
# Usage: tools/fuzz-db-seeds.sh UGC_ANALYZE_BINARY.  Needs the sqlite3 tool.
set -e
ugc=${1:-./ugc-analyze}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p fuzz/corpus/db
for f in spec-example chains cluster-quirks stale-outer v8-ids; do
	"$ugc" analyze "testdata/$f.ugct" -o "$tmp/$f.db" -q
	rm -f "fuzz/corpus/db/$f.db"
	sqlite3 "$tmp/$f.db" "PRAGMA page_size=512; VACUUM INTO 'fuzz/corpus/db/$f.db'"
done
echo "fuzz/corpus/db: seeds rebuilt"
