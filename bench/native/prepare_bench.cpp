// What preparing one loaded object for native frames costs, off the signal path: its unwind table
// (prepare_object: the DWARF CFI compiled to rows) and its symbol index (SymbolIndex::build, what
// names a native frame at delivery). libjvm is the object that matters: about 1.8 MB of .eh_frame
// and 70,000 function symbols, against a few hundred KB for every other library of a JVM together.
//
//   bench/native/run.sh [build dir] [results file]   (both JDKs and libc, 7 repetitions each)
//   BUILD/bench/native/native_prepare_bench --jvm /usr/lib/jvm/java-17-openjdk-amd64
//
// --jvm names a JDK whose lib/server/libjvm.so is dlopen'ed (not started); without it the
// benchmark prepares the C library only.
#include <benchmark/benchmark.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "native/loaded_objects.hpp"
#include "native/native_snapshot.hpp"
#include "native/symbol_index.hpp"

namespace {

std::string g_object_suffix = "/libc.so.6";

jvmkit::native::LoadedObject object_to_prepare() {
  for (const auto& object : jvmkit::native::loaded_objects()) {
    if (object.path.size() >= g_object_suffix.size() &&
        object.path.compare(object.path.size() - g_object_suffix.size(), g_object_suffix.size(), g_object_suffix) ==
            0) {
      return object;
    }
  }
  std::fprintf(stderr, "no loaded object ends in %s\n", g_object_suffix.c_str());
  std::exit(2);
}

void BM_UnwindTable(benchmark::State& state) {
  const jvmkit::native::LoadedObject object = object_to_prepare();
  size_t rows = 0;
  for (auto _ : state) {
    auto prepared = jvmkit::native::prepare_object(object, true);
    if (!prepared->prepared()) {
      state.SkipWithError(prepared->detail.c_str());
      return;
    }
    rows = prepared->rows.size();
    benchmark::DoNotOptimize(prepared);
  }
  state.counters["rows"] = static_cast<double>(rows);
  state.counters["ns_per_row"] = benchmark::Counter(static_cast<double>(rows) * static_cast<double>(state.iterations()),
                                                    benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.SetLabel(object.path);
}
BENCHMARK(BM_UnwindTable)->Unit(benchmark::kMillisecond);

void BM_SymbolIndex(benchmark::State& state) {
  const jvmkit::native::LoadedObject object = object_to_prepare();
  size_t symbols = 0;
  for (auto _ : state) {
    std::string why;
    auto index = jvmkit::native::SymbolIndex::build(object, jvmkit::native::SymbolIndexOptions{}, &why);
    if (index == nullptr) {
      state.SkipWithError(why.c_str());
      return;
    }
    symbols = index->symbols_read();
    benchmark::DoNotOptimize(index);
  }
  state.counters["symbols"] = static_cast<double>(symbols);
  state.SetLabel(object.path);
}
BENCHMARK(BM_SymbolIndex)->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; i++) {
    if (std::strcmp(argv[i], "--jvm") == 0 && i + 1 < argc) {
      const std::string libjvm = std::string(argv[i + 1]) + "/lib/server/libjvm.so";
      if (dlopen(libjvm.c_str(), RTLD_NOW | RTLD_LOCAL) == nullptr) {
        std::fprintf(stderr, "cannot load %s: %s\n", libjvm.c_str(), dlerror());
        return 2;
      }
      g_object_suffix = "/libjvm.so";
      for (int j = i; j + 2 <= argc; j++) argv[j] = argv[j + 2];
      argc -= 2;
      break;
    }
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
