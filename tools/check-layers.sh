#!/bin/sh
# check-layers.sh — fails on an include that breaks the layering (run by
# `make test`, so by CI).
#
# The layers, bottom up; each may include its own folder's headers and,
# of a layer below it, that layer's one public header:
#   capture    capture/ugc_capture.h (and ugc_internal.h, which it shares
#              with the tool: the flag names)       uses nothing
#   base       base/base.h                          uses nothing
#   snapshot   snapshot/snapshot.h                  base, capture
#   analysis   analysis/analysis.h                  base, snapshot
#   sql        sql/sql.h                            base, snapshot, analysis
#   gen        tools/gen/gen.h                      base, snapshot, analysis
#   cli        (none: the top)                      all of the above
# Every include is written from the repository's root ("snapshot/heap.h",
# compiled with -I.), so an include says where it comes from; capture/ is
# the exception (a standalone C99 library an engine compiles as it is).
# tests/ and fuzz/ are white-box: any header, written from the root.
# Usage: tools/check-layers.sh [ROOT]; prints one line a violation, then
# "layers: N files, N violations"; exits 1 on any.
cd "${1:-.}" || exit 2
files=$(ls base/*.[ch] snapshot/*.[ch] analysis/*.[ch] sql/*.[ch] tools/gen/*.[ch] cli/*.[ch] \
	tests/*.[ch] fuzz/*.[ch] 2>/dev/null)
# shellcheck disable=SC2086
awk '
function layer(path) {
	if (path ~ /^tools\/gen\//) return "gen"
	if (path ~ /^(base|snapshot|analysis|sql|cli|capture|tests|fuzz)\//) { split(path, p, "/"); return p[1] }
	return ""
}
BEGIN {
	public["base/base.h"] = "base"
	public["snapshot/snapshot.h"] = "snapshot"
	public["analysis/analysis.h"] = "analysis"
	public["sql/sql.h"] = "sql"
	public["tools/gen/gen.h"] = "gen"
	public["capture/ugc_capture.h"] = "capture"
	public["capture/ugc_internal.h"] = "capture"
	uses["base"] = ""
	uses["snapshot"] = " base capture "
	uses["analysis"] = " base capture snapshot "
	uses["sql"] = " base capture snapshot analysis "
	uses["gen"] = " base capture snapshot analysis "
	uses["cli"] = " base capture snapshot analysis sql gen "
	bad = 0
}
FNR == 1 { nfiles++; me = layer(FILENAME) }
/^[ \t]*#[ \t]*include[ \t]*"/ {
	inc = $0
	sub(/^[^"]*"/, "", inc)
	sub(/".*/, "", inc)
	them = layer(inc)
	why = ""
	if (them == "")
		why = "is not written from the root (\"layer/file.h\")"
	else if ((getline line < inc) < 0)
		why = "names no file"
	else if (me == "tests" || me == "fuzz" || them == me)
		why = ""
	else if (them == "cli" || them == "tests" || them == "fuzz")
		why = "reaches into " them "/, which no layer may include"
	else if (index(uses[me], " " them " ") == 0)
		why = "climbs: " me " may not use " them
	else if (!(inc in public))
		why = "is private to " them "/: include its public header instead"
	close(inc)
	if (why != "") {
		printf "%s:%d: #include \"%s\" %s\n", FILENAME, FNR, inc, why
		bad++
	}
}
END {
	printf "layers: %d files, %d violations\n", nfiles, bad
	exit bad > 0
}' $files
