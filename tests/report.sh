#!/bin/sh
# report.sh — `ugc-analyze report`: the page's numbers, its escaping and its
# behaviour in a real browser.
#
# Without a browser (every run, the sanitizer's too): on testdata/report.ugct,
# whose package and class retained bytes its header derives by hand, the
# treemap's <title>s hold those bytes; names built to break out of HTML
# (a class named "</script><script>alert(1)</script>", quotes, '&', "<!--")
# start no markup (the page has exactly its own two <script> elements, no
# <b>, <i> or comment); the embedded JSON passes tests/json_check.c; the
# page from the snapshot and from its database are the same but for the
# input's name; cut lists say "showing N of M (--limit 0 shows all)";
# an existing output is kept without --force; growth and leak groups over
# a baseline derived by hand (the heap less one object); a V8 heap's page
# has no Unreal word in its text.
#
# In Chromium (headless; not in the sanitizer run, which the checks above
# cover): the page opened as REPORT.html#selftest runs its own checks and
# writes them into the DOM, read back with --dump-dom: no error caught, a
# rectangle per package with the hand-derived bytes, each package's classes
# shown on a click, the first dominator row's children hidden until it is
# expanded.  Screenshots are kept in OUTDIR/report/.  Where chromium is
# missing it is installed (as root, with apt-get), else the browser part
# says it is skipped and why.
# Usage: tests/report.sh UGC_ANALYZE OUTDIR [JSON_CHECK]
# Ends with "report: N passed, N failed".
ugc=$1
out=$2/report
jc=$3
rm -rf "$out"
mkdir -p "$out"
passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok   $1"; }
bad() { failed=$((failed + 1)); echo "FAIL $1"; [ -n "$2" ] && echo "    $2"; }
# has FILE TEXT WHAT: FILE holds TEXT (fixed string)
has() { grep -qF -- "$2" "$1" && ok "$3" || bad "$3" "no '$2' in $1"; }
# text FILE: the page's text, without its style, script and tags
text() { sed -e '/<script/,/<\/script>/d' -e '/<style>/,/<\/style>/d' -e 's/<[^>]*>/ /g' "$1"; }

heap=testdata/report.ugct
page=$out/heap.html
said=$("$ugc" report "$heap" -o "$page")
[ -s "$page" ] && ok "report writes the page" || bad "report writes the page"
case "$said" in
"wrote $page: "*", one page that opens offline in any browser") ok "report says what it wrote" ;;
*) bad "report says what it wrote" "$said" ;;
esac
[ -z "$("$ugc" report "$heap" -o "$out/quiet.html" --quiet)" ] && [ -s "$out/quiet.html" ] && ok "report --quiet says nothing" ||
	bad "report --quiet says nothing"

# --- the numbers, derived by hand in testdata/report.ugct -------------------
# package rectangles: name (escaped as HTML text), size, exact bytes, share
# of the 3,876 bytes reached (2088 + 1668 + 120)
has "$page" '<title>/Script/CoreUObject: 2.0 KiB (2088 bytes), 53.9%, 6 objects</title>' "treemap: /Script/CoreUObject retains 2088 bytes"
has "$page" '<title>/Game/A&amp;B&quot;Q&#39;: 1.6 KiB (1668 bytes), 43.0%, 5 objects</title>' "treemap: the quoted package retains 1668 bytes"
has "$page" '<title>/Game/Small&lt;!--: 120 B (120 bytes), 3.1%, 2 objects</title>' "treemap: /Game/Small<!-- retains 120 bytes"
# the quoted package's classes: Actor 1240, the script-named class 300, Package 128
has "$page" '<title>Actor: 1.2 KiB (1240 bytes), 74.3% of the package, 1 object</title>' "zoom: Actor keeps 1240 bytes of the package"
has "$page" '<title>&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;: 300 B (300 bytes), 18.0% of the package' "zoom: the script-named class keeps 300 bytes"
has "$page" '<title>Package: 128 B (128 bytes), 7.7% of the package, 1 object</title>' "zoom: the package object keeps its 128 bytes"
# the summary: 14 objects, #15 (10 bytes) purged; roots: 0, 11, 21 RootSet, 1-5 Native
has "$page" '14: 13 reachable, 1 unreachable (1 purged, 10 B)' "summary: reachable, unreachable, purged"
has "$page" '8: disregard 0, rootset 3, refcounted 0, internal-keep 5,' "summary: roots by kind"
has "$page" 'garbage-survives 1,' "summary: findings by kind"
has "$page" '<td class="name">Actor</td><td class="num" data-v="1">1</td><td class="num" data-v="10" title="10 bytes">10 B</td>' "summary: purged by class"
# the dominator tree's top: 10 objects under the top (0-5, 10, 11, 12, 21),
# the largest #11 World (1240), which dominates #13 and #14
has "$page" '1.2 KiB</span><span class="name">#11 Actor /Game/A&amp;B&quot;Q&#39;.World</span>' "dominators: #11 first, 1240 bytes"
has "$page" '(shallow 1000 B, 32.0%, dominates 2 directly)' "dominators: #11 dominates 2 objects"
"$ugc" report "$heap" -o "$out/limit2.html" --limit 2
has "$out/limit2.html" 'showing 2 of 10 objects (--limit 0 shows all)' "--limit 2: the dominator list says what it left out"
grep -q 'of 2 findings' "$out/limit2.html" && bad "--limit 2: the 2 findings are not cut" || ok "--limit 2: the 2 findings are not cut"
"$ugc" report "$heap" -o "$out/limit1.html" --limit 1
has "$out/limit1.html" 'showing 1 of 2 findings (--limit 0 shows all)' "--limit 1: the findings say what they left out"
"$ugc" report "$heap" -o "$out/all.html" --limit 0
grep -q 'showing' "$out/all.html" && bad "--limit 0: nothing cut" "$(grep -o 'showing[^<]*' "$out/all.html")" || ok "--limit 0: nothing cut"
"$ugc" report "$heap" -o "$out/bytes.html" --bytes
has "$out/bytes.html" '<title>/Script/CoreUObject: 2088 B (2088 bytes), 53.9%, 6 objects</title>' "--bytes: exact byte counts in the page's text"
# ranked findings: garbage kept alive (rank 3) before the flag mismatch (rank 4)
[ "$(grep -o '<td>garbage-[a-z-]*</td>' "$page" | tr '\n' ' ')" = "<td>garbage-survives</td> <td>garbage-flag-mismatch</td> " ] &&
	ok "findings: garbage kept alive ranked before a flag mismatch" || bad "findings: ranked" "$(grep -o '<td>garbage-[a-z-]*</td>' "$page")"

# --- escaping: no name starts markup ----------------------------------------
[ "$(grep -o '<script[ >]' "$page" | wc -l)" -eq 2 ] && [ "$(grep -o '</script>' "$page" | wc -l)" -eq 2 ] &&
	ok "escaping: only the page's own two <script> elements" || bad "escaping: <script> elements" "$(grep -o '<script[^>]*>' "$page")"
grep -q '<b>\|<i>\|<!--' "$page" && bad "escaping: no <b>, <i> or <!-- from names" "$(grep -o '.\{20\}\(<b>\|<i>\|<!--\).\{20\}' "$page" | head -3)" ||
	ok "escaping: no <b>, <i> or <!-- from names"
grep -q 'Things&lt;i&gt;\[1\]' "$page" && ok "escaping: a property name in a chain as text" || bad "escaping: a property name in a chain"
sed -n 's/.*<script type="application\/json" id="report-data">\(.*\)<\/script>.*/\1/p' "$page" > "$out/data.json"
grep -q '"name":"/Game/A\\u0026B\\"Q'"'"'","objects":5,"shallow":1668,"retained":1668}' "$out/data.json" &&
	ok "JSON: the package, '&' escaped for a script block" || bad "JSON: the package" "$(cat "$out/data.json")"
grep -q '"name":"/Game/Small\\u003c!--"' "$out/data.json" && ok "JSON: '<' escaped for a script block" || bad "JSON: '<' escaped"
if [ -n "$jc" ]; then
	msg=$("$jc" report < "$out/data.json") && ok "JSON: follows the convention (json_check)" || bad "JSON: follows the convention" "$msg"
fi

# --- a database gives the same page ------------------------------------------
"$ugc" analyze "$heap" -o "$out/heap.db" -q
"$ugc" report "$out/heap.db" -o "$out/heap-db.html"
# the input's name and what it is are the only differences
strip() { sed -e "s|$1||g" -e 's/ (a snapshot, analysed in memory)\| (a database written by analyze)//' "$2"; }
strip "$out/heap.db" "$out/heap-db.html" > "$out/a.html"
strip "$heap" "$page" > "$out/b.html"
cmp -s "$out/a.html" "$out/b.html" && ok "a database gives the snapshot's page" ||
	bad "a database gives the snapshot's page" "$(diff "$out/a.html" "$out/b.html" | head -5 | cut -c1-200)"

# --- the output: complete or nothing, kept without --force -----------------
cp "$page" "$out/before.html"
"$ugc" report "$heap" -o "$page" --limit 1 2> "$out/exists.err"
rc=$?
[ $rc -eq 1 ] && cmp -s "$page" "$out/before.html" && grep -q 'already exists (use --force to overwrite)' "$out/exists.err" &&
	ok "an existing page is kept without --force (exit 1)" || bad "an existing page is kept without --force" "rc=$rc $(cat "$out/exists.err")"
"$ugc" report "$heap" -o "$page" --limit 1 --force && ! cmp -s "$page" "$out/before.html" && ok "--force replaces it" || bad "--force replaces it"
ls "$out"/*.tmp.* > /dev/null 2>&1 && bad "no temporary file left" || ok "no temporary file left"
"$ugc" report "$heap" > /dev/null 2>&1; [ $? -eq 2 ] && ok "no -o: usage error (exit 2)" || bad "no -o: usage error"
"$ugc" report "$heap" -o "$out/t.html" --target "$heap" > /dev/null 2>&1; [ $? -eq 2 ] && ok "--target without --baseline: usage error" || bad "--target without --baseline"
"$ugc" report testdata/no-such.ugct -o "$out/none.html" 2> /dev/null; [ $? -eq 1 ] && [ ! -e "$out/none.html" ] &&
	ok "a missing input: exit 1, no page" || bad "a missing input: exit 1, no page"

# --- growth and leaks over a baseline: the heap less #13 (Thing, 200 bytes) --
grep -v '^o 13 \|^r 11 13 ' "$heap" > "$out/before.ugct"
"$ugc" report "$heap" --baseline "$out/before.ugct" -o "$out/growth.html"
# class Actor: #11 and #21 (#11 dominates #13, #14), 1240 + 120 = 1360 after, 1160 before
has "$out/growth.html" '<tr><td class="name">Actor</td><td class="num" data-v="1160" title="1160 bytes">1.1 KiB</td><td class="num" data-v="1360" title="1360 bytes">1.3 KiB</td><td class="num" data-v="200" title="200 bytes">+200 B</td></tr>' \
	"growth: class Actor +200 bytes"
has "$out/growth.html" '<title>/Game/A&amp;B&quot;Q&#39;: +200 B (200 bytes)</title>' "growth: the package's bar, +200 bytes"
"$ugc" report "$heap" --baseline "$out/before.ugct" --target "$heap" -o "$out/leaks.html"
text "$out/leaks.html" | grep -q '1 object (200 B) under 1 leak root retaining 200 B, in 1 group by retention trace' &&
	ok "leaks: #13 new in the target and alive in the final, 200 bytes" || bad "leaks" "$(text "$out/leaks.html" | grep -i 'leak root')"

# --- a long chain is named, not printed -------------------------------------
# root /Game/Deep #10, then #11..#210 one after the other (distances 1..200),
# and the garbage #211 an immutable reference of #210 keeps: 201 hops
{ printf 'ugc-text 1\nengine 5.5.4\nmode game\no 0 1 2 - /Script/CoreUObject 64 Native,RootSet\n'
  printf 'o 1 2 2 0 Object 256 Native\no 2 3 2 0 Class 512 Native\no 3 4 2 0 Package 256 Native\n'
  printf 'o 10 11 3 - /Game/Deep 10 RootSet\n'
  i=11; while [ $i -le 210 ]; do echo "o $i $((i + 1)) 1 10 N$i 8 -"; i=$((i + 1)); done
  echo "o 211 212 1 10 G 8 Garbage"
  i=10; while [ $i -le 209 ]; do echo "r $i $((i + 1)) strong next"; i=$((i + 1)); done
  echo "r 210 211 immutable keep"; } > "$out/deep.ugct"
"$ugc" report "$out/deep.ugct" -o "$out/deep.html"
has "$out/deep.html" "shortest chain (201 hops)</summary><p class=\"note\">too long to show here: ugc-analyze path $out/deep.ugct '#211' prints it" \
	"a 201-hop chain is named with the command that prints it"

# --- a V8 heap in V8's words --------------------------------------------------
v8=testdata/v8/node-small.heapsnapshot.zst
"$ugc" report $v8 -o "$out/v8.html"
unreal='UObject|RootSet|AddToRoot|FGCObject|BeginDestroy|FinishDestroy|GameThreadDestroy|World or Level|mode game|[Cc]luster|[Gg]arbage|disregard|Outer|LogGarbage| serial|Package|package|purge|/V8\.'
hit=$(text "$out/v8.html" | grep -o -E "$unreal" | sort -u | tr '\n' ' ')
[ -s "$out/v8.html" ] && [ -z "$hit" ] && text "$out/v8.html" | grep -q 'Retained bytes by constructor' &&
	ok "V8: constructors, and no Unreal word in the page's text" || bad "V8: no Unreal word" "$hit"
# the heap's own nodes, not the tool's pool: gen writes exactly N nodes, all
# reached from the root (its shape's rule); the synthetic root's constructor
# retains everything and is not drawn
"$ugc" gen --format v8 --nodes 3000 -o "$out/g3k.heapsnapshot" --force > /dev/null
"$ugc" report "$out/g3k.heapsnapshot" -o "$out/g3k.html" --force
has "$out/g3k.html" '<tr><th>nodes</th><td>3,000: 3,000 reachable, 0 unreachable' "V8: the page counts the heap's nodes, not the tool's"
has "$out/g3k.html" '<tr><th>roots</th><td>1 (' "V8: one root, the snapshot's"
grep -q '(synthetic): ' "$out/g3k.html" && bad "V8: the synthetic root's constructor is not a treemap rectangle" ||
	ok "V8: the synthetic root's constructor is not a treemap rectangle"

# --- in a real browser ----------------------------------------------------------
browser=""
case "$ugc" in
*-san) skip="skipped: the sanitizer run (the page is the same; the browser checks run in the plain build's run)" ;;
*)
	for b in chromium chromium-browser google-chrome; do
		command -v $b > /dev/null 2>&1 && { browser=$b; break; }
	done
	if [ -z "$browser" ] && [ "$(id -u)" -eq 0 ] && command -v apt-get > /dev/null 2>&1; then
		echo "installing chromium (apt-get install chromium)"
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } > "$out/apt.log" 2>&1
		command -v chromium > /dev/null 2>&1 && browser=chromium
	fi
	[ -z "$browser" ] && skip="skipped: no chromium, and it cannot be installed here (not root, or no apt-get)" ;;
esac
# url FILE: FILE's file:// URL
url() { case $1 in /*) echo "file://$1" ;; *) echo "file://$(pwd)/$1" ;; esac; }
# chrome ARGS...: headless, its own profile, its log kept
chrome() {
	timeout 60 $browser --headless --disable-gpu --no-sandbox --no-first-run --user-data-dir="$out/profile" "$@" 2>> "$out/chrome.log"
}
if [ -n "$browser" ]; then
	page=$out/browser.html
	"$ugc" report "$heap" -o "$page"
	chrome --dump-dom "$(url "$page")#selftest" > "$out/heap.dom"
	sed -n '/<pre id="selftest">/,/<\/pre>/p' "$out/heap.dom" | sed 's/<[^>]*>//g' > "$out/selftest.txt"
	grep -q '^errors	0$' "$out/selftest.txt" && ok "browser: no error" || bad "browser: no error" "$(cat "$out/selftest.txt" "$out/chrome.log" | tail -5)"
	# a rectangle per package, in order, with the hand-derived bytes (as the DOM dump escapes text)
	want='rect	/Script/CoreUObject: 2.0 KiB (2088 bytes), 53.9%, 6 objects
rect	/Game/A&amp;B"Q'"'"': 1.6 KiB (1668 bytes), 43.0%, 5 objects
rect	/Game/Small&lt;!--: 120 B (120 bytes), 3.1%, 2 objects'
	[ "$(grep '^rect	' "$out/selftest.txt")" = "$want" ] && ok "browser: a rectangle per package with its bytes" ||
		bad "browser: a rectangle per package" "$(grep '^rect' "$out/selftest.txt")"
	[ "$(grep -c '^zoom	[0-2]	shown$' "$out/selftest.txt")" -eq 3 ] && [ "$(grep -c '^unzoom	[0-2]	ok$' "$out/selftest.txt")" -eq 3 ] &&
		[ "$(grep -c '^class	1	' "$out/selftest.txt")" -eq 3 ] &&
		grep -q '^class	1	Actor: 1.2 KiB (1240 bytes)' "$out/selftest.txt" &&
		ok "browser: a click on a package shows its classes (3 in the quoted package), and back" ||
		bad "browser: zoom" "$(grep 'zoom\|^class' "$out/selftest.txt")"
	grep -q '^dominator	2 children	0 visible before	2 visible after$' "$out/selftest.txt" &&
		ok "browser: expanding #11 shows its 2 children" || bad "browser: expanding a dominator row" "$(grep '^dominator' "$out/selftest.txt")"
	grep -q '^sorted	desc$' "$out/selftest.txt" && ok "browser: a click on a heading sorts the table" || bad "browser: sorting"
	! grep -q 'alert(1)</script><script>\|<script>alert' "$out/heap.dom" && ok "browser: no injected element in the DOM" ||
		bad "browser: no injected element in the DOM"
	chrome --dump-dom "$(url "$out/v8.html")#selftest" > "$out/v8.dom"
	grep -q '^errors	0$' "$out/v8.dom" && [ "$(grep -c '^rect	' "$out/v8.dom")" -ge 10 ] && ok "browser: the V8 page, no error" ||
		bad "browser: the V8 page" "$(grep '^errors' "$out/v8.dom")"
	# screenshots for a person to look at: the hand-made heap, and the
	# evolve series with growth and leaks (README's docs/report.png)
	chrome --screenshot="$out/heap.png" --window-size=1100,1400 "$(url "$page")" > /dev/null
	"$ugc" report testdata/evolve-2.ugcs --baseline testdata/evolve-0.ugcs --target testdata/evolve-1.ugcs -o "$out/evolve.html"
	chrome --screenshot="$out/evolve.png" --window-size=1000,1150 "$(url "$out/evolve.html")" > /dev/null
	[ -s "$out/heap.png" ] && [ -s "$out/evolve.png" ] && [ "$(head -c 4 "$out/evolve.png" | tail -c 3)" = PNG ] &&
		ok "browser: screenshots kept in $out" || bad "browser: screenshots" "$(tail -3 "$out/chrome.log")"
else
	echo "browser: $skip"
fi

echo "report: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
