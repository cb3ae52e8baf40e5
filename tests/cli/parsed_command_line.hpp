// The command line of ARGS, parsed, for the cli unit tests: a parse error fails the test.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli/command_line.hpp"

namespace jvmkit::cli {

inline CommandLine parsed(std::vector<std::string> args) {
  CommandLine cl;
  Error e = parse_command_line(args, &cl);
  EXPECT_FALSE(e) << e.message();
  return cl;
}

}  // namespace jvmkit::cli
