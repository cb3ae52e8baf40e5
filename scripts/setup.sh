#!/usr/bin/env bash
# Installs what jvmkit needs on Debian 12, with apt-get. Idempotent: when everything is present and
# current it only checks (about a second). Uses sudo when not run as root.
#
# Packages: the build (cmake, g++, pkg-config), the tests (GoogleTest, Google Benchmark, zlib) and
# Debian's current JDK 17 update (the JVM tests' reference JDK; the version matters, see
# docs/jdk-versions.md). Later components add theirs to PACKAGES below.
set -euo pipefail

PACKAGES=(
  cmake g++ make pkg-config git
  ccache  # a second build of the same sources (another clone, the test command's other trees) reuses the first
  libgtest-dev libgmock-dev googletest libbenchmark-dev zlib1g-dev
  openjdk-17-jdk-headless
  libelf-dev libdw-dev  # native frames: ELF headers and DWARF call-frame information (elfutils)
  elfutils  # native-frame tests: eu-stack and eu-readelf as references
  chromium golang-go  # profiler tests: the HTML flame graph in headless Chromium, pprof with go tool pprof
  golang-google-protobuf-dev  # profiler tests: the pprof output decoded by protobuf-go (strict UTF-8)
  clang-format python3-clang-14  # house rules: the formatting check and the signal-safety check
)
# Packages that must be at the newest version the archive offers, not merely present.
KEEP_CURRENT=(openjdk-17-jdk-headless)

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

installed_version() { dpkg-query -W -f='${Status} ${Version}' "$1" 2>/dev/null | awk '$3 == "installed" {print $4}'; }
candidate_version() { apt-cache policy "$1" 2>/dev/null | awk '/Candidate:/ {print $2}'; }

missing=()
for p in "${PACKAGES[@]}"; do
  [ -n "$(installed_version "$p")" ] || missing+=("$p")
done

# Refresh the package lists when they are missing or older than a day, so that "current" means
# current; otherwise trust them (keeps the no-op run fast and offline-friendly).
if [ ${#missing[@]} -gt 0 ] || [ -z "$(find /var/lib/apt/lists -maxdepth 1 -name '*Packages*' -mmin -1440 2>/dev/null | head -1)" ]; then
  echo "setup: refreshing package lists (apt-get update)"
  as_root apt-get update -qq
fi

outdated=()
for p in "${KEEP_CURRENT[@]}"; do
  have=$(installed_version "$p")
  want=$(candidate_version "$p")
  if [ -n "$have" ] && [ -n "$want" ] && [ "$want" != "(none)" ] && [ "$have" != "$want" ]; then
    outdated+=("$p")
  fi
done

# Node.js and npm drive the browser tests (Puppeteer). A host may have them from elsewhere
# (NodeSource's nodejs bundles npm, and Debian's npm package conflicts with it): only a missing
# command is installed, from Debian.
for tool in node:nodejs npm:npm; do
  command -v "${tool%%:*}" >/dev/null 2>&1 || missing+=("${tool##*:}")
done

if [ ${#missing[@]} -eq 0 ] && [ ${#outdated[@]} -eq 0 ]; then
  echo "setup: all ${#PACKAGES[@]} packages present and current"
else
  echo "setup: installing ${missing[*]} ${outdated[*]}"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" "${outdated[@]}"
  echo "setup: done"
fi

# The browser tests' npm packages (tests/browser/package-lock.json: Puppeteer, driving Debian's
# Chromium), installed when missing or when the lock file changed since.
browser=$(cd "$(dirname "$0")/../tests/browser" && pwd)
if [ ! -f "$browser/node_modules/.package-lock.json" ] || [ "$browser/package-lock.json" -nt "$browser/node_modules/.package-lock.json" ]; then
  echo "setup: npm ci in tests/browser (Puppeteer)"
  (cd "$browser" && npm ci --no-audit --no-fund --loglevel=error) || { echo "setup: npm ci failed"; exit 1; }
fi
