// A folder of the unit tests' own under /tmp, made for one test and removed with what it holds when
// the test ends (the tests that write files, read them back and list what is left).
#pragma once

#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>
#include <system_error>

namespace jvmkit::testing {

class TempFolder {
 public:
  // WHAT names the folder: /tmp/jvmkit-WHAT-XXXXXX. path() is empty when it could not be made.
  explicit TempFolder(const std::string& what) {
    std::string name = "/tmp/jvmkit-" + what + "-XXXXXX";
    if (mkdtemp(name.data()) != nullptr) path_ = name;
  }
  ~TempFolder() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;

  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

  // The names of the entries in the folder (not "." and "..").
  std::set<std::string> names() const {
    std::set<std::string> out;
    std::error_code error;
    for (const auto& entry : std::filesystem::directory_iterator(path_, error)) {
      out.insert(entry.path().filename().string());
    }
    return out;
  }

 private:
  std::string path_;
};

}  // namespace jvmkit::testing
