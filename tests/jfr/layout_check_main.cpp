// jfr_layout_check FILE...: checks each recording against the layout rules that readers other
// than the JDK's rely on (src/jfr/layout_check.hpp): a line per file with what it checked, then
// its problems. Exit status 0 when every file keeps the rules, 1 when one does not, 2 on a file
// that cannot be read or no file given.
#include <cstdio>
#include <string>

#include "jfr/layout_check.hpp"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE.jfr...\n", argv[0]);
    return 2;
  }
  int status = 0;
  for (int i = 1; i < argc; i++) {
    jvmkit::jfr::LayoutReport r;
    if (const jvmkit::Error e = jvmkit::jfr::check_layout_file(argv[i], &r)) {
      std::fprintf(stderr, "%s\n", e.message().c_str());
      return 2;
    }
    std::printf("%s: %lld chunks, %lld pools (%lld entries), %lld events: %s\n", argv[i],
                static_cast<long long>(r.chunks), static_cast<long long>(r.pools), static_cast<long long>(r.entries),
                static_cast<long long>(r.events),
                r.ok() ? "the layout other readers expect" : (std::to_string(r.problem_count) + " problems").c_str());
    for (const std::string& p : r.problems) std::printf("  %s\n", p.c_str());
    if (!r.ok()) status = 1;
  }
  return status;
}
