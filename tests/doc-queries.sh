#!/bin/sh
# doc-queries.sh — prints every example query the documentation gives, one
# a line: the `ugc-analyze sql DB "..."` commands of README.md and the
# queries of ugc-analyze(1)'s "Example queries" (its .nf blocks and its
# .B SELECT lines).  tests/sql_snapshot.sh runs each, so a new example is
# tested as soon as it is written.
# Usage: tests/doc-queries.sh [README [MANPAGE]]
readme=${1:-README.md}
man=${2:-man/ugc-analyze.1}
# README: the double-quoted argument after `ugc-analyze sql FILE`, which may
# span lines; not the queries over a diff database (changes.db), which has
# other tables: tests/readme.sh runs those as the README does
awk '
	q == "" && /ugc-analyze sql changes\.db / { next }
	q == "" && /ugc-analyze sql [^ ]+ "/ { sub(/.*ugc-analyze sql [^ ]+ "/, ""); q = " "; }
	q != "" {
		line = $0
		if (index(line, "\"")) { q = q " " substr(line, 1, index(line, "\"") - 1); print q; q = ""; next }
		q = q " " line
	}' "$readme"
# the man page: roff escapes undone
awk '
	/^\.SS Example queries/ { on = 1; next }
	/^\.S[HS]/ { on = 0 }
	!on { next }
	/^\.nf/ { block = " "; next }
	/^\.fi/ { print block; block = ""; next }
	block != "" { block = block " " $0; next }
	/^\.B (SELECT|WITH) / { sub(/^\.B /, ""); print " " $0 }' "$man" | sed 's/\\-/-/g; s/\\(aq/'"'"'/g; s/\\e/\\/g'
