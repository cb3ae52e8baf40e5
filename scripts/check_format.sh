#!/usr/bin/env bash
# Checks that every C and C++ file in the repository is formatted as .clang-format says (Google
# style, 120 columns). Prints the files that are not and how to fix them; exit status 1 if any.
# Fix: scripts/check_format.sh --fix (runs clang-format -i on the same files).
set -uo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files -- '*.c' '*.h' '*.cpp' '*.hpp' 2>/dev/null || find src include tests bench examples tools \( -name '*.c' -o -name '*.h' -o -name '*.cpp' -o -name '*.hpp' \))
if [ "${1:-}" = "--fix" ]; then
  clang-format -i "${files[@]}"
  exit 0
fi
bad=()
for f in "${files[@]}"; do
  clang-format --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if [ ${#bad[@]} -gt 0 ]; then
  printf 'not formatted: %s\n' "${bad[@]}"
  echo "check_format: ${#bad[@]} of ${#files[@]} files differ from .clang-format; run scripts/check_format.sh --fix"
  exit 1
fi
echo "check_format: ${#files[@]} files formatted"
