#include "hotspot/jdk_version.hpp"

#include <gtest/gtest.h>

namespace jvmkit {
namespace {

TEST(JdkVersion, ParsesDebianRuntimeVersion) {
  auto v = parse_jdk_version("17.0.21.1+2-1-deb12u1-Debian");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->feature, 17);
  EXPECT_EQ(v->interim, 0);
  EXPECT_EQ(v->update, 21);
  EXPECT_EQ(v->patch, 1);
}

TEST(JdkVersion, ParsesTemurinAndEarlyAccessVersions) {
  auto temurin = parse_jdk_version("25.0.3+9-LTS");
  ASSERT_TRUE(temurin);
  EXPECT_EQ(temurin->feature, 25);
  EXPECT_EQ(temurin->update, 3);
  auto ea = parse_jdk_version("26-ea+12");
  ASSERT_TRUE(ea);
  EXPECT_EQ(ea->feature, 26);
  EXPECT_EQ(ea->update, 0);
}

TEST(JdkVersion, RejectsOldSchemeAndGarbage) {
  EXPECT_FALSE(parse_jdk_version("1.8.0_402"));
  EXPECT_FALSE(parse_jdk_version(""));
  EXPECT_FALSE(parse_jdk_version("openjdk"));
}

TEST(JdkVersion, WarnsOnUpdatesWithoutTheJmethodIdFixes) {
  EXPECT_NE(jmethodid_safety_warning(*parse_jdk_version("17.0.10+7")).find("JDK-8268364"), std::string::npos);
  EXPECT_NE(jmethodid_safety_warning(*parse_jdk_version("17.0.15+6")).find("JDK-8339725"), std::string::npos);
  EXPECT_NE(jmethodid_safety_warning(*parse_jdk_version("21.0.5+11")).find("21.0.6"), std::string::npos);
  EXPECT_NE(jmethodid_safety_warning(*parse_jdk_version("22.0.2")).find("non-LTS"), std::string::npos);
}

TEST(JdkVersion, NoWarningOnFixedUpdates) {
  EXPECT_EQ(jmethodid_safety_warning(*parse_jdk_version("17.0.17+10")), "");
  EXPECT_EQ(jmethodid_safety_warning(*parse_jdk_version("21.0.6+7")), "");
  EXPECT_EQ(jmethodid_safety_warning(*parse_jdk_version("25.0.3+9-LTS")), "");
}

}  // namespace
}  // namespace jvmkit
