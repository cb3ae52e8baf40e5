// Which JDK we run on, and what that means for jvmkit's guarantees.
//
// Used at run time by the libraries (from the java.runtime.version / java.vendor system properties)
// and at test time by tools/jdk_check (from a JDK's `release` file), so the version rules live here
// once.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace jvmkit {

// A parsed JDK version string such as "17.0.21.1+2-1-deb12u1-Debian" or "25.0.3+9-LTS".
struct JdkVersion {
  int feature = 0;  // 17, 21, 25, ...
  int interim = 0;
  int update = 0;  // the "update" the fixes below are measured in: 17.0.21 -> 21
  int patch = 0;
  std::string text;  // the string as given
};

// Parses a java.runtime.version / JAVA_VERSION string. Returns nullopt when the string does not
// start with a feature number ("1.8.0_402" and "" are rejected: they are older than we support).
std::optional<JdkVersion> parse_jdk_version(std::string_view text);

// jmethodIDs of unloaded classes can crash the JVM on updates that lack JDK-8268364 (jmethodID
// clearing during unloading) and JDK-8339725 (GetMethodDeclaringClass under concurrent GC).
// Returns a one-line warning naming the missing fix and the first update that has it, or an empty
// string when the version carries both fixes.
std::string jmethodid_safety_warning(const JdkVersion& version);

}  // namespace jvmkit
