#!/usr/bin/env bash
# The HTML flame graph renders offline in headless Chromium (Debian's): the expected frames are
# drawn, a search preset in the URL highlights them, a zoom works, and no script error or console
# error occurs. Usage: html_chromium.sh JAVA AGENT DEMO_CLASSES OUTDIR
set -uo pipefail
java=$1 agent=$2 classes=$3 outdir=$4
chromium=${CHROMIUM:-/usr/bin/chromium}
[ -x "$chromium" ] || { echo "FAIL: $chromium not found (scripts/setup.sh installs Debian's chromium)"; exit 1; }
mkdir -p "$outdir"
page="$outdir/flame.html"
rm -f "$page"
"$java" "-agentpath:$agent=interval=1ms,threads,file=$page" -cp "$classes" jvmkit.demo.Demo 2 || exit 1
[ -s "$page" ] || { echo "FAIL: no HTML written"; exit 1; }
grep -q 'src="http\|href="http\|<link ' "$page" && { echo "FAIL: the page loads something from elsewhere"; exit 1; }

profile_dir=$(mktemp -d)
trap 'rm -rf "$profile_dir"' EXIT
render() {  # render FRAGMENT -> DOM on stdout, browser log in $outdir/chromium.log
  timeout 90 "$chromium" --headless --no-sandbox --disable-gpu --disable-background-networking --no-first-run \
    --user-data-dir="$profile_dir" --enable-logging=stderr --v=0 --window-size=1400,900 \
    --dump-dom "file://$page$1" 2>>"$outdir/chromium.log"
}
: >"$outdir/chromium.log"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

dom=$(render "#search=countPrimes")
grep -q 'data-status="ok"' <<<"$dom" || fail "the page did not finish rendering (data-status)"
grep -q '<body[^>]*data-errors' <<<"$dom" && fail "script error: $(grep -o '<body[^>]*>' <<<"$dom")"
for frame in jvmkit.demo.Demo.main jvmkit.demo.Demo.countPrimes jvmkit.demo.Demo.hashStrings \
             jvmkit.demo.Demo.sortArrays '\[main tid='; do
  grep -q ">$frame" <<<"$dom" || fail "frame $frame not drawn"
done
matched=$(grep -o 'data-matched="[0-9]*"' <<<"$dom" | grep -o '[0-9]*')
[ -n "$matched" ] && [ "$matched" -gt 0 ] || fail "search for countPrimes matched nothing"
grep -q 'class="f t[0-4] match"' <<<"$dom" || fail "no frame highlighted by the search"
for t in 1 4; do grep -q "class=\"f t$t" <<<"$dom" || fail "no frame coloured as type $t"; done
frames=$(grep -o 'data-frames="[0-9]*"' <<<"$dom" | grep -o '[0-9]*')

# Zoom: only the zoomed frame's subtree (and its dimmed ancestors) is drawn.
zoomed=$(render "#zoom=jvmkit.demo.Demo.sortArrays")
grep -q 'data-status="ok"' <<<"$zoomed" || fail "zoomed page did not render"
grep -q '>jvmkit.demo.Demo.countPrimes<' <<<"$zoomed" && fail "zoom on sortArrays still draws countPrimes"
grep -q 'class="f t[0-9] dim"[^>]*>jvmkit.demo.Demo.main<' <<<"$zoomed" || fail "zoom does not keep main as a dimmed ancestor"
zframes=$(grep -o 'data-frames="[0-9]*"' <<<"$zoomed" | grep -o '[0-9]*')
[ -n "$zframes" ] && [ -n "$frames" ] && [ "$zframes" -lt "$frames" ] || fail "zoom did not reduce the frames drawn ($zframes vs $frames)"

if grep -iE 'Uncaught|CONSOLE.*(error|exception)|:ERROR:CONSOLE' "$outdir/chromium.log"; then
  fail "console errors (above)"
fi
echo "frames drawn: $frames (zoomed: $zframes), samples matching countPrimes: $matched"
[ $failures -eq 0 ] && echo PASS || exit 1
