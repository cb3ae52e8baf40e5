// The output formats' names and file extensions (options.hpp).
#include <string>
#include <string_view>

#include "profiler/options.hpp"

namespace jvmkit::prof {

std::string extension_for(OutputFormat f) {
  switch (f) {
    case OutputFormat::kCollapsed:
      return ".collapsed";
    case OutputFormat::kHtml:
      return ".html";
    case OutputFormat::kPprof:
      return ".pb.gz";
    case OutputFormat::kJfr:
      return ".jfr";
  }
  return "";
}

OutputFormat format_from_file(std::string_view file) {
  if (file.ends_with(".html") || file.ends_with(".htm")) return OutputFormat::kHtml;
  if (file.ends_with(".pb.gz") || file.ends_with(".pprof") || file.ends_with(".pb")) return OutputFormat::kPprof;
  if (file.ends_with(".jfr")) return OutputFormat::kJfr;
  return OutputFormat::kCollapsed;
}

const char* format_name(OutputFormat f) {
  switch (f) {
    case OutputFormat::kCollapsed:
      return "collapsed";
    case OutputFormat::kHtml:
      return "html";
    case OutputFormat::kPprof:
      return "pprof";
    case OutputFormat::kJfr:
      return "jfr";
  }
  return "?";
}

}  // namespace jvmkit::prof
