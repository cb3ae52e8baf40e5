#!/usr/bin/env bash
# Usage: stack_walk_native_install.sh BUILD_DIR JAVA CLASSES EXAMPLE_C CC
# The example agent examples/native_profiler/native_profiler.c, which opts in to native frames
# (jvmkit/stack_walk_native.h), built against an installed tree with pkg-config jvmkit-walk and
# run on JAVA: Enable with native frames succeeds, every accepted request has one outcome, the
# JVM's own threads come as traces of their native frames, and the leaves name C/C++ functions.
set -euo pipefail
build=$1 java=$2 classes=$3 example=$4 cc=$5
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
step() { echo "== native-frames install test: $*"; }
fail() { echo "FAIL: $*"; exit 1; }

step "cmake --install $build --prefix $prefix"
# One install at a time: every cmake --install of a tree writes its install_manifest.txt.
flock "$build/.install.lock" cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" || { cat "$tmp/install.log"; exit 1; }
[ -e "$prefix/include/jvmkit/stack_walk_native.h" ] || fail "missing after install: include/jvmkit/stack_walk_native.h"

step "build the example linked with libjvmkit_walk (pkg-config jvmkit-walk)"
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
# shellcheck disable=SC2046
"$cc" -std=c99 -pedantic-errors -Wall -Wextra -Werror -shared -fPIC -o "$tmp/libnative_profiler.so" "$example" \
  $(pkg-config --cflags --libs jvmkit-walk) -Wl,-rpath,"$prefix/lib" -Wl,-z,defs

step "profile 1.5 s of CPU time on $("$java" -version 2>&1 | head -1)"
"$java" -Xcheck:jni "-agentpath:$tmp/libnative_profiler.so=top=15" -cp "$classes" jvmkit.test.walk.Workers 1.5 2 cpu \
  >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/out" "$tmp/err"; fail "java failed"; }
cat "$tmp/out"
grep -q "EnableRequestStackTrace with native frames: JVMTI error 0$" "$tmp/out" || fail "Enable with native frames failed"
grep -q "DisableRequestStackTrace: JVMTI error 0$" "$tmp/out" || fail "Disable failed"
line=$(grep "native_profiler: signals" "$tmp/out") || fail "no summary"
field() { sed -E "s/.* $1 ([0-9]+).*/\1/" <<<"$line"; }
accepted=$(field accepted) traces=$(field traces) failures=$(field failures)
native_only=$(sed -E 's/.*native only ([0-9]+).*/\1/' <<<"$line")
[ "$accepted" -eq $((traces + failures)) ] || fail "accepted $accepted != traces $traces + failures $failures"
# A signal per ms of process CPU time: about 1,500 on an idle machine; 100 still shows sampling works.
[ "$traces" -ge 100 ] || fail "only $traces traces"
# The compiler threads compile Work.compute meanwhile: CPU time of threads without Java frames.
[ "$native_only" -gt 0 ] || fail "no trace of a thread without Java frames (compiler, GC)"
grep -q "Ljvmkit/test/walk/Work;.compute$" "$tmp/out" || fail "the hot Java method is not among the top leaves"
if grep -q "WARNING\|FATAL" "$tmp/err"; then cat "$tmp/err"; fail "-Xcheck:jni or the JVM complained"; fi
step "passed"
