#!/usr/bin/env bash
# Names outside the Basic Multilingual Plane (UnicodeNames: a class and a method with U+1D465, a
# thread with U+1F600) come out as standard UTF-8 in every output format: each file is checked
# byte by byte (iconv rejects the 6-byte surrogate encoding JVMTI hands out), the names are found
# as their 4-byte UTF-8 sequences, and the pprof file is decoded by protobuf-go (strict about
# UTF-8, as profile ingestion services are) and shows a Mapping that names the program.
# Usage: unicode_names.sh JAVA AGENT CLASSES OUTDIR
set -uo pipefail
java=$1 agent=$2 classes=$3 outdir=$4
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$outdir"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# U+1D465 is F0 9D 91 A5; U+1F600 is F0 9F 98 80.
x=$'\xF0\x9D\x91\xA5'
method="Names${x}.${x}Loop"
thread=$'worker-\xF0\x9F\x98\x80-'"${x}"$'-\xC3\xA9'

for format in collapsed html pprof; do
  case $format in
    collapsed) file=$outdir/names.txt options=threads,ann ;;
    html) file=$outdir/names.html options=threads ;;
    pprof) file=$outdir/names.pb.gz options=threads ;;
  esac
  rm -f "$file"
  before=$failures
  "$java" "-agentpath:$agent=interval=1ms,$options,file=$file" -cp "$classes" jvmkit.test.profiler.UnicodeNames 1.5 \
    >"$outdir/$format.log" 2>&1 || { cat "$outdir/$format.log"; fail "$format: java failed"; continue; }
  text=$file
  if [ "$format" = pprof ]; then
    text=$outdir/names.pb
    gzip -dc "$file" >"$text" || { fail "pprof: not gzip"; continue; }
  else
    # Valid UTF-8 byte by byte (the pprof file is binary: its strings are checked by the decoder).
    iconv -f UTF-8 -t UTF-8 "$file" >/dev/null || fail "$format: not valid UTF-8"
  fi
  grep -qF "$method" "$text" || fail "$format: the method's name is not there in UTF-8"
  grep -qF "$thread" "$text" || fail "$format: the thread's name is not there in UTF-8"
  if grep -qaF $'\xED\xA0\xB5' "$text"; then fail "$format: modified UTF-8 (a surrogate) left"; fi
  [ "$failures" -eq "$before" ] && echo "$format: names in UTF-8"
done

# flamegraph.pl's reader: each line "frames count" (its pattern), frames split at ';'; with
# --color=java a frame ending in _[j] is green (JIT) and _[i] aqua (inlined).
perl -ne '
  chomp;
  if (!/^(.*)\s+?(\d+(?:\.\d*)?)$/) { print "unparsed line: $_\n"; $bad++; next }
  $samples += $2;
  for (split /;/, $1) { $jit++ if /_\[j\]$/; $inl++ if /_\[i\]$/ }
  END {
    printf "flamegraph.pl reader: %d samples, %d JIT and %d inlined frames\n", $samples, $jit, $inl;
    exit($bad || !$samples || !$jit ? 1 : 0);
  }' "$outdir/names.txt" || fail "a flamegraph.pl-style reader does not parse the collapsed output, or finds no JIT frame"

go=${GO:-$(command -v go || echo /usr/bin/go)}
export HOME=${HOME:-$outdir} GOCACHE="$outdir/gocache" GOTOOLCHAIN=local  # never download a toolchain
if [ ! -d /usr/share/gocode/src/google.golang.org/protobuf ]; then
  fail "protobuf-go not found (scripts/setup.sh installs Debian's golang-google-protobuf-dev)"
else
  decoded=$(cd "$here/pprof_strict" && GO111MODULE=off GOPATH=/usr/share/gocode timeout 180 "$go" run main.go "$outdir/names.pb.gz" 2>&1)
  echo "$decoded" | grep -E "^(mapping|decoded)"
  grep -q "^decoded:" <<<"$decoded" || { echo "$decoded"; fail "protobuf-go rejected the pprof file"; }
  grep -qF "mapping 1: jvmkit.test.profiler.UnicodeNames" <<<"$decoded" || fail "no Mapping naming the main class"
  grep -qF "$thread" <<<"$decoded" || fail "protobuf-go does not read the thread's name back"
  top=$(cd "$outdir" && timeout 120 "$go" tool pprof -top "$outdir/names.pb.gz" 2>&1)
  if grep -q "Main binary filename not available" <<<"$top"; then fail "go tool pprof finds no main binary"; fi
  grep -qF "$method" <<<"$top" || { echo "$top" | head; fail "go tool pprof -top does not show the method"; }
fi
[ $failures -eq 0 ] && echo PASS || exit 1
