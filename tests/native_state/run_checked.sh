#!/usr/bin/env bash
# Runs a JVM test command and fails when it fails, or when -Xcheck:jni reported anything: HotSpot
# only warns (exit status unchanged) about e.g. JNI calls made with an exception pending.
set -uo pipefail
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$@" 2>&1 | tee "$out"
rc=${PIPESTATUS[0]}
if grep -E -q "WARNING in native method|FATAL ERROR in native method|WARNING: JNI" "$out"; then
  echo "run_checked: -Xcheck:jni reported a problem (see above)" >&2
  exit 1
fi
exit "$rc"
