#!/usr/bin/env bash
# The signal-safety check can fail: run on a fixture project whose marked functions call malloc, an
# unmarked project function and a function through a lambda, and whose signal handler is not
# marked, it must name each of them and exit 1; on the fixed fixture it must pass.
# Usage: signal_safety_check_test.sh REPO_ROOT CXX
set -u
repo=$1 cxx=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/src"
cat >"$work/src/fixture.cpp" <<'CPP'
#include <signal.h>
#include <cstdlib>
#include <cstring>
#include "base/signal_safe.hpp"

int unmarked_helper(int x) { return x + 1; }
JVMKIT_SIGNAL_SAFE int marked_helper(int x) { return x * 2; }

JVMKIT_SIGNAL_SAFE void handler_body(int sig) {
  void* p = std::malloc(16);  // not signal-safe
  std::free(p);
  auto twice = [](int v) { return marked_helper(v); };
  (void)twice(sig);
  (void)unmarked_helper(sig);  // not marked
  char buf[8];
  std::memset(buf, 0, sizeof(buf));
}

void on_signal(int sig) { handler_body(sig); }  // a handler, not marked

void install() {
  struct sigaction sa;
  std::memset(&sa, 0, sizeof(sa));
  sa.sa_handler = on_signal;
  sigaction(SIGUSR1, &sa, nullptr);
}
CPP
write_db() {
  printf '[{"directory": "%s", "file": "%s", "command": "%s -std=c++20 -I%s/src -c %s"}]\n' \
    "$work" "$work/src/fixture.cpp" "$cxx" "$repo" "$work/src/fixture.cpp" >"$work/compile_commands.json"
}
write_db
out=$("$repo/tools/signal_safety_check.py" "$work" --project "$work" 2>&1)
rc=$?
echo "$out"
fails=0
expect() { if grep -q -- "$1" <<<"$out"; then echo "ok: $2"; else echo "FAIL: $2"; fails=$((fails + 1)); fi; }
[ "$rc" -eq 1 ] && echo "ok: exit status 1" || { echo "FAIL: exit status $rc, expected 1"; fails=$((fails + 1)); }
expect "calls malloc, which is not on the list" "malloc found"
expect "calls free, which is not on the list" "free found"
expect "calls unmarked_helper, which is not marked" "unmarked project function found"
expect "on_signal is installed as a signal handler but not marked" "unmarked handler found"
if grep -q "calls marked_helper\|calls memset\|calls std::memset" <<<"$out"; then echo "FAIL: a safe call reported"; fails=$((fails + 1)); fi

# The fixed fixture passes.
sed -i 's/^  void\* p = std::malloc(16);.*$//; s/^  std::free(p);$//; s/^  (void)unmarked_helper(sig);.*$//; s/^void on_signal/JVMKIT_SIGNAL_SAFE void on_signal/' "$work/src/fixture.cpp"
out=$("$repo/tools/signal_safety_check.py" "$work" --project "$work" 2>&1)
rc=$?
echo "$out"
[ "$rc" -eq 0 ] && echo "ok: the fixed fixture passes" || { echo "FAIL: the fixed fixture: exit $rc"; fails=$((fails + 1)); }
[ "$fails" -eq 0 ] && echo "signal safety check self-test: PASS" || { echo "signal safety check self-test: $fails FAILED"; exit 1; }
