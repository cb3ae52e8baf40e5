#!/usr/bin/env bash
# The HTML page's label selector in a real browser (Debian's Chromium driven by Puppeteer,
# tests/browser/views.js labels): LabelShares (endpoint=/a, /b, /c burn 50/30/20 % of the CPU
# under JvmkitContext labels) profiled to an HTML page. The browser checks read their truth from
# the page's own embedded data, the run's exact counts, not from a second run:
#   - the selector offers "all labels", "by label set" and endpoint=/a, /b, /c;
#   - endpoint=/x: the flame graph's total is /x's samples, its frames those of /x's label frame
#     with the label frame merged away, and no label frame of another endpoint is drawn;
#   - "by label set": three root label frames, shares within 0.05 of 0.5/0.3/0.2;
#   - back to "all labels": the whole profile again.
# A page without labels (jvmkit convert of collapsed stacks) has no selector and none of its script.
# Screenshots go to OUTDIR/shots.
# Usage: label_views.sh JAVA AGENT JVMKIT CLASSPATH SOURCE_DIR OUTDIR
set -uo pipefail
java=$1 agent=$2 jvmkit=$3 classpath=$4 src=$5 out=$6
rm -rf "$out" && mkdir -p "$out/shots"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
browser() { CHROMIUM=${CHROMIUM:-/usr/bin/chromium} node "$src/tests/browser/views.js" "$@" || fail "the browser checks above"; }
[ -d "$src/tests/browser/node_modules/puppeteer-core" ] || { echo "FAIL: Puppeteer is missing (scripts/setup.sh installs it)"; exit 1; }

# 3 s on 2 threads: ~6,000 samples idle; CPU-time sampling keeps the shares on a busy machine,
# where the browser checks still want 500 labelled samples.
"$java" "-agentpath:$agent=interval=1ms,file=$out/labels.html" -cp "$classpath" jvmkit.test.context.LabelShares 3 2 \
  >"$out/labels.log" 2>&1 || { cat "$out/labels.log"; fail "the profiled LabelShares run failed"; exit 1; }
grep -q '<select id="labels"' "$out/labels.html" || fail "the labelled page has no label selector in its source"
browser labels "$out/labels.html" "$out/shots"

printf 'main;a;leaf 60\nmain;b;leaf 30\nmain;b;other 10\n' >"$out/plain.collapsed"
"$jvmkit" convert "$out/plain.collapsed" -o "$out/plain.html" 2>"$out/plain.log" || { cat "$out/plain.log"; fail "convert of collapsed stacks failed"; }
! grep -q 'id="labels"\|withLabels\|\.t10' "$out/plain.html" || fail "a page without labels carries the label selector's code"
browser nolabels "$out/plain.html"

[ "$failures" -eq 0 ] && echo PASS
exit $((failures > 0))
