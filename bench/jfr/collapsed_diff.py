#!/usr/bin/env python3
"""Compares two collapsed-stack files (jvmkit convert's and async-profiler's converter's) after
normalising what the two name differently, and prints one line:
  <stacks A> <total A> <stacks B> <total B> <stacks that differ> <weight that differs>
Exit status 0 when they are the same after normalising, 1 when not.

Normalising (applied to both files, then lines with the same stack are added up):
  - frame-type suffixes are dropped: _[j] _[i] _[0] _[1] _[k] (both), _[n] _[K] (jvmkit's);
  - '/' in names becomes '.';
  - jvmkit's marker frames "[truncated]" (a stack cut at depth=) and "[no blocker]" (a park
    without a blocker object) are dropped: the converter writes no frame for either;
  - a Java native method (jvmkit's _[n] frames, given with --annotated A) is compared by its method
    name only: in a chunk that lists Kernel frames the converter takes Native for C code and
    drops the class, as in async-profiler's own recordings.
Usage: collapsed_diff.py JVMKIT_ANNOTATED CONVERTER
"""
import re
import sys

SUFFIX = re.compile(r"_\[(j|i|0|1|k|n|K)\]$")
MARKERS = {"[truncated]", "[no blocker]"}


def read(path):
    lines = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            stack, _, count = line.rpartition(" ")
            lines.append((stack.split(";"), int(count)))
    return lines


def native_methods(lines):
    return {frame[: -len("_[n]")].replace("/", ".") for frames, _ in lines for frame in frames if frame.endswith("_[n]")}


def normalise(lines, natives):
    out = {}
    for frames, count in lines:
        names = []
        for frame in frames:
            name = SUFFIX.sub("", frame).replace("/", ".")
            if name in MARKERS:
                continue
            if name in natives:
                name = name.rsplit(".", 1)[-1]
            names.append(name)
        key = ";".join(names)
        out[key] = out.get(key, 0) + count
    return out


def main():
    jvmkit, converter = read(sys.argv[1]), read(sys.argv[2])
    natives = native_methods(jvmkit)
    a, b = normalise(jvmkit, natives), normalise(converter, natives)
    differ = [k for k in set(a) | set(b) if a.get(k, 0) != b.get(k, 0)]
    weight = sum(abs(a.get(k, 0) - b.get(k, 0)) for k in differ)
    print(len(a), sum(a.values()), len(b), sum(b.values()), len(differ), weight)
    for k in sorted(differ)[:3]:
        print("  differs: %s jvmkit=%d converter=%d" % (k[-160:], a.get(k, 0), b.get(k, 0)), file=sys.stderr)
    return 0 if not differ else 1


if __name__ == "__main__":
    sys.exit(main())
