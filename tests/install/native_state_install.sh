#!/usr/bin/env bash
# Usage: native_state_install.sh BUILD_DIR JAVA CLASSES CONSUMER_C CC
# 1. cmake --install BUILD_DIR into a temporary prefix;
# 2. builds CONSUMER_C (old-style GNU Classpath C: #include "native_state.h") into a JNI library
#    twice against the installed tree: with `pkg-config jvmkit-state`, and with a CMake project
#    that uses find_package(jvmkit) and jvmkit::state;
# 3. checks that both resolve libjvmkit_state.so from the prefix and exports only the API;
# 4. runs the ClasspathPeer Java program with each library (System.loadLibrary), which asserts.
set -euo pipefail
build=$1 java=$2 classes=$3 consumer=$4 cc=$5
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
step() { echo "== install test: $*"; }

step "cmake --install $build --prefix $prefix"
# One install at a time: every cmake --install of a tree writes its install_manifest.txt.
flock "$build/.install.lock" cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" || { cat "$tmp/install.log"; exit 1; }
for f in include/jvmkit/native_state.h include/jvmkit/state_table.hpp lib/libjvmkit_state.so \
         lib/pkgconfig/jvmkit-state.pc lib/cmake/jvmkit/jvmkitConfig.cmake; do
  [ -e "$prefix/$f" ] || { echo "missing after install: $f"; exit 1; }
done

step "exported symbols of the installed library"
exported=$(nm -D --defined-only "$prefix/lib/libjvmkit_state.so" | awk '{print $3}' | sort | tr '\n' ' ')
expected="free_state_table get_state get_state_oid init_state_table init_state_table_with_size remove_state_oid remove_state_slot set_state set_state_oid state_table_size sweep_state_table "
[ "$exported" = "$expected" ] || { echo "unexpected exports: $exported"; exit 1; }

step "pkg-config build"
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
# shellcheck disable=SC2046
"$cc" -std=c99 -pedantic-errors -Wall -Wextra -Werror -shared -fPIC -o "$tmp/libcp_pkgconfig.so" "$consumer" \
  $(pkg-config --cflags --libs jvmkit-state) -Wl,-rpath,"$prefix/lib" -Wl,-z,defs

step "CMake find_package(jvmkit) build"
mkdir -p "$tmp/proj"
cp "$consumer" "$tmp/proj/consumer.c"
cat >"$tmp/proj/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.20)
project(classpath_consumer C)
find_package(jvmkit REQUIRED CONFIG)
add_library(cp_cmake SHARED consumer.c)
set_target_properties(cp_cmake PROPERTIES C_STANDARD 99 C_EXTENSIONS OFF)
target_link_libraries(cp_cmake PRIVATE jvmkit::state)
CMAKE
cmake -S "$tmp/proj" -B "$tmp/proj/build" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$cc" \
  -DCMAKE_BUILD_TYPE=Release >"$tmp/cmake.log" 2>&1 || { cat "$tmp/cmake.log"; exit 1; }
cmake --build "$tmp/proj/build" >>"$tmp/cmake.log" 2>&1 || { cat "$tmp/cmake.log"; exit 1; }

for lib in "$tmp/libcp_pkgconfig.so" "$tmp/proj/build/libcp_cmake.so"; do
  step "run $(basename "$lib") in $("$java" -version 2>&1 | head -1)"
  resolved=$(ldd "$lib" | awk '/libjvmkit_state/ {print $3}')
  [ "$resolved" = "$prefix/lib/libjvmkit_state.so" ] || { echo "libjvmkit_state resolved to '$resolved'"; exit 1; }
  name=$(basename "$lib" .so)
  "$java" -Xcheck:jni -Djava.library.path="$(dirname "$lib")" -cp "$classes" \
    jvmkit.test.nativestate.ClasspathPeer "${name#lib}"  # System.loadLibrary
done
step "passed"
