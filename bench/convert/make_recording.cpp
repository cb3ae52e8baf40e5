// Writes a large recording for the conversion benchmark (convert_1gb.sh): chunks of one second
// of a busy service as jvmkit records it, until the file reaches the size asked for.
//   bench_make_recording FILE SIZE_MB [SEED]
// Each chunk: 64 threads sampled by cpu at 1 ms (64,000 jdk.ExecutionSample), plus allocation and
// lock samples (2,000 each), their stacks drawn from 4,000 distinct ones of depth 20 to 80 over
// 1,500 methods of 200 classes; the pools and metadata restated per chunk, as the profiler writes
// them. Deterministic for a seed.
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "jfr/chunk_writer.hpp"

namespace {

using jvmkit::jfr::ChunkWriter;
using jvmkit::jfr::FrameKind;

struct MethodSpec {
  std::string klass, name;
  int line;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s FILE SIZE_MB [SEED]\n", argv[0]);
    return 2;
  }
  const std::string path = argv[1];
  const int64_t limit = std::atoll(argv[2]) * 1024 * 1024;
  std::mt19937_64 rng(argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 1);
  std::vector<MethodSpec> methods;
  for (int i = 0; i < 1500; i++) {
    methods.push_back({"com.example.service.module" + std::to_string(i % 17) + ".Class" + std::to_string(i % 200),
                       "method" + std::to_string(i), 10 + static_cast<int>(rng() % 900)});
  }
  // Stacks as method indices, root first; they share their roots like a real program's.
  std::vector<std::vector<int>> stacks;
  for (int s = 0; s < 4000; s++) {
    const int depth = 20 + static_cast<int>(rng() % 61);
    std::vector<int> frames;
    for (int d = 0; d < depth; d++) frames.push_back(d < 8 ? d * 7 % 1500 : static_cast<int>(rng() % 1500));
    stacks.push_back(frames);
  }
  const char* classes[] = {"byte[]", "java.lang.String", "java.util.HashMap$Node", "java.lang.Object"};
  FILE* out = std::fopen(path.c_str(), "wb");
  if (out == nullptr) {
    std::perror(path.c_str());
    return 1;
  }
  const int64_t wall = 1'796'469'000'000'000'000;
  int64_t ticks = 1'000'000'000, written = 0;
  uint64_t next_key = 1;
  std::vector<jvmkit::jfr::StackFrame> frames;
  for (int chunk = 0; written < limit; chunk++) {
    ChunkWriter w(wall + ticks, ticks, next_key);
    std::vector<uint64_t> threads, stack_keys(stacks.size(), 0), method_keys(methods.size(), 0);
    for (int t = 0; t < 64; t++) {
      const std::string name = "worker-" + std::to_string(t);
      threads.push_back(w.add_thread({1000 + t, name, 100 + t, name, false}));
    }
    auto stack = [&](size_t s) {
      if (stack_keys[s] != 0) return stack_keys[s];
      frames.clear();
      for (auto it = stacks[s].rbegin(); it != stacks[s].rend(); ++it) {
        const MethodSpec& m = methods[static_cast<size_t>(*it)];
        if (method_keys[static_cast<size_t>(*it)] == 0) {
          method_keys[static_cast<size_t>(*it)] = w.add_method(w.add_class(m.klass), m.name, "(I)V");
        }
        frames.push_back({method_keys[static_cast<size_t>(*it)], m.line, 7, FrameKind::kJit});
      }
      return stack_keys[s] = w.add_stack(frames, false);
    };
    for (int i = 0; i < 64'000; i++) {
      // A skewed choice of stack: a few are hot, as in a real profile.
      const size_t s = static_cast<size_t>(std::min<uint64_t>(rng() % 4000, rng() % 4000));
      w.execution_sample(ticks + i * 15'625, threads[static_cast<size_t>(i) % 64], stack(s));
    }
    for (int i = 0; i < 2'000; i++) {
      w.allocation_sample(ticks + i * 500'000, threads[rng() % 64], stack(rng() % 4000),
                          w.add_class(classes[rng() % 4]), static_cast<int64_t>(rng() % 1'000'000));
      w.monitor_enter(ticks + i * 500'000, static_cast<int64_t>(rng() % 5'000'000), threads[rng() % 64],
                      stack(rng() % 4000), w.add_class(classes[3]));
    }
    const std::string bytes = w.finish(ticks + 1'000'000'000, false);
    next_key = w.next_key();
    std::fwrite(bytes.data(), 1, bytes.size(), out);
    written += static_cast<int64_t>(bytes.size());
    ticks += 1'000'000'000;
  }
  std::fclose(out);
  std::printf("%s: %.1f MB\n", path.c_str(), static_cast<double>(written) / 1048576.0);
  return 0;
}
