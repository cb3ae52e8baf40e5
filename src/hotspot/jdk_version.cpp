#include "hotspot/jdk_version.hpp"

#include <charconv>

namespace jvmkit {
namespace {

// Reads a decimal number at the front of TEXT and advances past it.
std::optional<int> take_number(std::string_view& text) {
  int value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end == text.data()) return std::nullopt;
  text.remove_prefix(static_cast<size_t>(end - text.data()));
  return value;
}

// The first update of each supported LTS line that carries both fixes. JDK-8268364 is in 18+ and
// was backported to 17.0.14; JDK-8339725 is in 24+, backported to 21.0.6 and 17.0.17.
struct Fixed {
  int feature;
  int first_good_update;
  const char* missing_fix;
};
constexpr Fixed kFixedIn[] = {
    {17, 14, "JDK-8268364 and JDK-8339725"},
    {17, 17, "JDK-8339725"},
    {21, 6, "JDK-8339725"},
};

}  // namespace

std::optional<JdkVersion> parse_jdk_version(std::string_view text) {
  JdkVersion version;
  version.text = std::string(text);
  std::string_view rest = text;
  int* parts[] = {&version.feature, &version.interim, &version.update, &version.patch};
  for (size_t i = 0; i < std::size(parts); ++i) {
    std::optional<int> number = take_number(rest);
    if (!number) {
      if (i == 0) return std::nullopt;
      break;
    }
    *parts[i] = *number;
    if (rest.empty() || rest.front() != '.') break;
    rest.remove_prefix(1);
  }
  if (version.feature < 9) return std::nullopt;  // "1.8.0_x": the old scheme, not supported
  return version;
}

std::string jmethodid_safety_warning(const JdkVersion& version) {
  const std::string prefix = "JDK " + version.text + ": ";
  if (version.feature < 17) {
    return prefix + "not supported by jvmkit (JDK 17, 21 and 25 are)";
  }
  for (const Fixed& fixed : kFixedIn) {
    if (version.feature == fixed.feature && version.update < fixed.first_good_update) {
      return prefix + "lacks " + fixed.missing_fix + "; jmethodIDs of unloading classes may crash the JVM; update to " +
             std::to_string(fixed.feature) + ".0." + std::to_string(fixed.first_good_update) + " or later";
    }
  }
  if (version.feature > 17 && version.feature < 24 && version.feature != 21) {
    return prefix + "a non-LTS release without JDK-8339725; use 21.0.6+ or 24+";
  }
  return "";
}

}  // namespace jvmkit
