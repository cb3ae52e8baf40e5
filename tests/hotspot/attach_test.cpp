// The attach client's parsers (src/hotspot/attach.hpp), fed with the texts HotSpot and the kernel
// produce; the protocol itself is tested against real JVMs by attach_test.sh.
#include "hotspot/attach.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace jvmkit::hotspot {
namespace {

TEST(AttachNsPid, TakesTheLastNSpidField) {
  EXPECT_EQ(ns_pid_from_status("Name:\tjava\nPid:\t4242\nNSpid:\t4242\t17\nUid:\t0\t0\t0\t0\n"), 17);
  EXPECT_EQ(ns_pid_from_status("Name:\tjava\nPid:\t4242\nNSpid:\t4242\n"), 4242);
}

TEST(AttachNsPid, FallsBackToPidWithoutNSpid) {
  EXPECT_EQ(ns_pid_from_status("Name:\tjava\nPid:\t99\n"), 99);
  EXPECT_EQ(ns_pid_from_status("Name:\tjava\n"), 0);
}

TEST(AttachLoadOutput, ReadsTheAgentsReturnCode) {
  int rc = -1;
  EXPECT_TRUE(agent_result_from_load_output("return code: 0\n", &rc));
  EXPECT_EQ(rc, 0);
  EXPECT_TRUE(agent_result_from_load_output("return code: -7\n", &rc));
  EXPECT_EQ(rc, -7);
  EXPECT_TRUE(agent_result_from_load_output("3\n", &rc));  // older JDKs: the bare number
  EXPECT_EQ(rc, 3);
  EXPECT_FALSE(agent_result_from_load_output("libx.so was not loaded.\n", &rc));
}

// An hsperfdata image with one string entry, laid out as HotSpot's PerfDataPrologue and
// PerfDataEntry (little endian).
std::string perfdata_with(const std::string& name, const std::string& value) {
  auto put32 = [](std::string& b, size_t at, uint32_t v) {
    for (int i = 0; i < 4; i++) b[at + i] = static_cast<char>((v >> (8 * i)) & 0xFF);
  };
  std::string b(32, '\0');
  b[0] = static_cast<char>(0xCA);
  b[1] = static_cast<char>(0xFE);
  b[2] = static_cast<char>(0xC0);
  b[3] = static_cast<char>(0xC0);
  b[4] = 1;          // little endian
  b[5] = 2;          // major version
  put32(b, 24, 32);  // first entry
  put32(b, 28, 1);   // one entry
  const uint32_t name_offset = 20;
  const uint32_t data_offset = static_cast<uint32_t>(name_offset + name.size() + 1);
  const uint32_t length = static_cast<uint32_t>(data_offset + value.size() + 1);
  std::string entry(length, '\0');
  put32(entry, 0, length);
  put32(entry, 4, name_offset);
  put32(entry, 8, static_cast<uint32_t>(value.size() + 1));
  entry[12] = 'B';
  put32(entry, 16, data_offset);
  entry.replace(name_offset, name.size(), name);
  entry.replace(data_offset, value.size(), value);
  return b + entry;
}

TEST(AttachPerfData, FindsTheCapabilities) {
  std::string caps;
  EXPECT_TRUE(jvm_capabilities_from_perfdata(perfdata_with("sun.rt.jvmCapabilities", "1000000000"), &caps));
  EXPECT_EQ(caps, "1000000000");
  EXPECT_TRUE(jvm_capabilities_from_perfdata(perfdata_with("sun.rt.jvmCapabilities", "0000000000"), &caps));
  EXPECT_EQ(caps[0], '0');
}

TEST(AttachPerfData, RejectsOtherEntriesAndBadImages) {
  std::string caps;
  EXPECT_FALSE(jvm_capabilities_from_perfdata(perfdata_with("sun.rt.vmFlags", "1"), &caps));
  EXPECT_FALSE(jvm_capabilities_from_perfdata("not perf data at all, but long enough to look at", &caps));
  std::string truncated = perfdata_with("sun.rt.jvmCapabilities", "1000");
  truncated.resize(40);
  EXPECT_FALSE(jvm_capabilities_from_perfdata(truncated, &caps));
}

}  // namespace
}  // namespace jvmkit::hotspot
