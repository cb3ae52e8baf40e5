// profiler/utf8.hpp: JVMTI's modified UTF-8 and other byte strings into standard UTF-8.
#include "profiler/utf8.hpp"

#include <gtest/gtest.h>

namespace {

using jvmkit::prof::utf8_from_modified;
using jvmkit::prof::valid_utf8;

const std::string kReplacement = "\xEF\xBF\xBD";

TEST(Utf8FromModified, AsciiAndBmpPassUnchanged) {
  EXPECT_EQ(utf8_from_modified("java.lang.String"), "java.lang.String");
  EXPECT_EQ(utf8_from_modified("caf\xC3\xA9 \xE2\x82\xAC \xE4\xB8\xAD"), "caf\xC3\xA9 \xE2\x82\xAC \xE4\xB8\xAD");
  EXPECT_EQ(utf8_from_modified(""), "");
}

TEST(Utf8FromModified, SurrogatePairsBecomeFourByteSequences) {
  // U+1D465 MATHEMATICAL ITALIC SMALL X: D835 DC65.
  EXPECT_EQ(utf8_from_modified("x\xED\xA0\xB5\xED\xB1\xA5y"), "x\xF0\x9D\x91\xA5y");
  // U+1F600 (an emoji): D83D DE00; U+10000 and U+10FFFF, the ends of the range.
  EXPECT_EQ(utf8_from_modified("\xED\xA0\xBD\xED\xB8\x80"), "\xF0\x9F\x98\x80");
  EXPECT_EQ(utf8_from_modified("\xED\xA0\x80\xED\xB0\x80"), "\xF0\x90\x80\x80");
  EXPECT_EQ(utf8_from_modified("\xED\xAF\xBF\xED\xBF\xBF"), "\xF4\x8F\xBF\xBF");
}

TEST(Utf8FromModified, TwoByteNulBecomesNul) {
  EXPECT_EQ(utf8_from_modified("a\xC0\x80"
                               "b"),
            std::string("a\0b", 3));
}

TEST(Utf8FromModified, LoneSurrogatesAndBadBytesBecomeReplacementCharacters) {
  EXPECT_EQ(utf8_from_modified("\xED\xA0\xB5"
                               "a"),
            kReplacement + "a");                                       // high, no low
  EXPECT_EQ(utf8_from_modified("a\xED\xB1\xA5"), "a" + kReplacement);  // low alone
  EXPECT_EQ(utf8_from_modified("\xED\xA0\xB5"), kReplacement);         // high at the end
  EXPECT_EQ(utf8_from_modified("\xFF"
                               "a"),
            kReplacement + "a");
  EXPECT_EQ(utf8_from_modified("\xE4\xB8"), kReplacement + kReplacement);  // cut short
  EXPECT_EQ(utf8_from_modified("\xC1\x81"), kReplacement + kReplacement);  // overlong 'A'
}

TEST(Utf8FromModified, StandardFourByteSequencesAreKept) {
  EXPECT_EQ(utf8_from_modified("\xF0\x9D\x91\xA5"), "\xF0\x9D\x91\xA5");
}

TEST(ValidUtf8, KeepsWellFormedTextAndReplacesTheRest) {
  EXPECT_EQ(valid_utf8("worker-\xF0\x9F\x98\x80"), "worker-\xF0\x9F\x98\x80");
  // A thread name cut inside a 4-byte character by the kernel's 15-byte limit.
  EXPECT_EQ(valid_utf8("worker-\xF0\x9F\x98"), "worker-" + kReplacement + kReplacement + kReplacement);
  // Surrogates are not UTF-8.
  EXPECT_EQ(valid_utf8("\xED\xA0\xB5"), kReplacement + kReplacement + kReplacement);
}

// Every output of a conversion is well-formed: a byte-by-byte check of all two-byte inputs.
TEST(Utf8FromModified, OutputIsAlwaysWellFormed) {
  for (int a = 0; a < 256; a++) {
    for (int b = 0; b < 256; b++) {
      const char in[3] = {static_cast<char>(a), static_cast<char>(b), '\xED'};
      for (const std::string& out : {utf8_from_modified(std::string(in, 3)), valid_utf8(std::string(in, 3))}) {
        EXPECT_EQ(valid_utf8(out), out) << a << " " << b;
      }
    }
  }
}

}  // namespace
