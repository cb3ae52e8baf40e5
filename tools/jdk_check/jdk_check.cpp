// jvmkit-jdk-check JAVA_HOME...
//
// Prints, for each JDK home, its vendor and exact version (from the JDK's `release` file) and any
// warning jvmkit has about it. Exits 0 unless a home has no readable `release` file. The test
// command runs it for every JDK the JVM tests use, so the log says what was tested on.
#include <cstdio>
#include <fstream>
#include <map>
#include <string>

#include "hotspot/jdk_version.hpp"

namespace {

// Reads KEY="value" lines of a JDK's `release` file.
std::map<std::string, std::string> read_release_file(const std::string& home) {
  std::map<std::string, std::string> values;
  std::ifstream in(home + "/release");
  std::string line;
  while (std::getline(in, line)) {
    size_t eq = line.find('=');
    if (eq == std::string::npos) continue;
    std::string value = line.substr(eq + 1);
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') value = value.substr(1, value.size() - 2);
    values[line.substr(0, eq)] = value;
  }
  return values;
}

bool report(const std::string& home) {
  auto release = read_release_file(home);
  std::string runtime =
      release.count("JAVA_RUNTIME_VERSION") ? release["JAVA_RUNTIME_VERSION"] : release["JAVA_VERSION"];
  auto version = jvmkit::parse_jdk_version(runtime);
  if (!version) {
    std::printf("%s: no readable JDK version in %s/release\n", home.c_str(), home.c_str());
    return false;
  }
  std::string vendor = release.count("IMPLEMENTOR") ? release["IMPLEMENTOR"] : "unknown vendor";
  std::printf("JDK %d (update %d): %s %s at %s\n", version->feature, version->update, vendor.c_str(), runtime.c_str(),
              home.c_str());
  std::string warning = jvmkit::jmethodid_safety_warning(*version);
  if (!warning.empty()) std::printf("  warning: %s\n", warning.c_str());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: jvmkit-jdk-check JAVA_HOME...\n");
    return 2;
  }
  bool ok = true;
  for (int i = 1; i < argc; ++i) ok = report(argv[i]) && ok;
  return ok ? 0 : 1;
}
