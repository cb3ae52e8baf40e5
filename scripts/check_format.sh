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
# One clang-format for all files (one per file spent most of its time starting up): each
# violation is a line "FILE:LINE:COL: error: ... [-Wclang-format-violations]".
output=$(clang-format --dry-run --Werror "${files[@]}" 2>&1)
status=$?
mapfile -t bad < <(sed -n -E 's/^(.+):[0-9]+:[0-9]+: (error|warning): .*\[-Wclang-format-violations\]$/\1/p' <<<"$output" | sort -u)
if [ "$status" -ne 0 ] && [ ${#bad[@]} -eq 0 ]; then
  printf '%s\n' "$output" | tail -20
  echo "check_format: clang-format failed (status $status)"
  exit 1
fi
if [ ${#bad[@]} -gt 0 ]; then
  printf 'not formatted: %s\n' "${bad[@]}"
  echo "check_format: ${#bad[@]} of ${#files[@]} files differ from .clang-format; run scripts/check_format.sh --fix"
  exit 1
fi
echo "check_format: ${#files[@]} files formatted"
