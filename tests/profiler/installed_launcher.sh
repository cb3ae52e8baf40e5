#!/usr/bin/env bash
# `cmake --install` (here: its profiler component) gives bin/jvmkit and lib/libjvmkit_prof.so, and the installed launcher finds the
# installed agent relative to itself. Usage: installed_launcher.sh BUILD_DIR JAVA DEMO_CLASSES OUTDIR
set -uo pipefail
build=$1 java=$2 classes=$3 outdir=$4
prefix="$outdir/prefix"
rm -rf "$prefix"
# One install at a time: every cmake --install of a tree writes its install_manifest files.
flock "$build/.install.lock" cmake --install "$build" --prefix "$prefix" --component profiler >"$outdir.install.log" 2>&1 || { cat "$outdir.install.log"; echo "FAIL: install"; exit 1; }
[ -x "$prefix/bin/jvmkit" ] || { echo "FAIL: no bin/jvmkit"; exit 1; }
[ -f "$prefix/lib/libjvmkit_prof.so" ] || { echo "FAIL: no lib/libjvmkit_prof.so"; exit 1; }
"$prefix/bin/jvmkit" --help | grep "jvmkit profile" >/dev/null || { echo "FAIL: installed --help"; exit 1; }
# Through a symlink elsewhere on the PATH, as package managers do.
mkdir -p "$outdir/path"
ln -sf "$prefix/bin/jvmkit" "$outdir/path/jvmkit"
(cd "$outdir" && env -u JVMKIT_PROF_AGENT PATH="$outdir/path:$PATH" jvmkit profile -o installed.collapsed -- "$java" -cp "$classes" jvmkit.demo.Demo 1) \
  2>"$outdir/installed.stderr" || { cat "$outdir/installed.stderr"; echo "FAIL: installed jvmkit profile"; exit 1; }
grep -q "jvmkit.demo.Demo.countPrimes" "$outdir/installed.collapsed" || { echo "FAIL: profile lacks the demo"; exit 1; }
echo PASS
