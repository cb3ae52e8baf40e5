// The jvmkit tool's usage text (jvmkit --help), compiled in from usage.txt. The catalogue test
// (tests/profiler/catalogue_test.cpp) reads usage.txt and holds its flags and event names to the
// agent's option and event tables.
#pragma once

#include <string_view>

namespace jvmkit::cli {

// The whole text, ending with a newline.
std::string_view usage_text();

// The tool's version: the project's (and the agent's) version.
std::string_view tool_version();

}  // namespace jvmkit::cli
