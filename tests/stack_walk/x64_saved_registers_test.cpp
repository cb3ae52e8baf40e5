// Frameless stubs that save registers, fed the code HotSpot generates for C1's slow_subtype_check
// stub (OpenJDK 17 and Temurin 25, as -XX:+PrintStubCode shows it): the depth at each point of
// its saving, at its exits, and the candidates the recovery tries in its body.
#include "stack_walk/signal/x64/saved_registers.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "stack_walk/code_map.hpp"
#include "stack_walk/signal/x64/instructions.hpp"
#include "stack_walk/signal/x64/recovery_candidates.hpp"

namespace jvmkit::walk {
namespace {

std::vector<uint8_t> hex(const std::string& text) {
  std::vector<uint8_t> out;
  for (size_t i = 0; i + 1 < text.size(); i += 2) {
    out.push_back(static_cast<uint8_t>(std::stoul(text.substr(i, 2), nullptr, 16)));
  }
  return out;
}

// push rdi, rsi, rcx, rax; two loads of the arguments; the body; two exits "pop x4; ret".
const std::vector<uint8_t> kSlowSubtype17 =
    hex("57565150488b742430488b442428488b7e288b0f4883c7084885c0f248af0f85"
        "120000004889462048c74424300100000058595e5fc348c74424300000000058"
        "595e5fc30f1f4000");
// The same, then "sub rsp, 0x20" and three stores below; "lea rsp, [rsp + 0x20]" before the exits.
const std::vector<uint8_t> kSlowSubtype25 =
    hex("57565150488b742430488b4424284883ec20488914244c894424084c894c2410"
        "488bbea8000000488bd78a88b000000083f13f48d3e24885d20f8969000000f3"
        "480fb8d24c8b4e28493b04d174638a88b000000048d3cf480fbae701734a458b"
        "014983c1084183f83e0f8f2500000033c9413bd00f4dd1493b04d10f84300000"
        "00480fbae7020f831c00000048d1cf83c201ebdd33d2493b04d10f8411000000"
        "83c201413bd07cee49c7c001000000eb034d33c04983f8004c8b4c24104c8b44"
        "2408488b1424488d64242048c7c7010000000f850e00000048c7442430010000"
        "0058595e5fc348c74424300000000058595e5fc30f1f4000");

SavedRegisters read(const std::vector<uint8_t>& code, size_t upto) {
  SavedRegisters out{};
  EXPECT_TRUE(read_saved_registers(code.data(), code.size(), upto, &out));
  return out;
}

TEST(SavedRegisters, TheSavingIsReadToTheBody) {
  const SavedRegisters s17 = read(kSlowSubtype17, kSlowSubtype17.size());
  EXPECT_EQ(s17.end, 0x0eu);
  EXPECT_EQ(s17.pushes, 4u);
  EXPECT_EQ(s17.depth, 32u);
  const SavedRegisters s25 = read(kSlowSubtype25, kSlowSubtype25.size());
  EXPECT_EQ(s25.end, 0x20u);
  EXPECT_EQ(s25.pushes, 4u);
  EXPECT_EQ(s25.depth, 64u);
}

TEST(SavedRegisters, TheDepthAtEachPointOfTheSaving) {
  EXPECT_EQ(read(kSlowSubtype25, 0).depth, 0u);
  EXPECT_EQ(read(kSlowSubtype25, 1).depth, 8u);
  EXPECT_EQ(read(kSlowSubtype25, 3).depth, 24u);
  EXPECT_EQ(read(kSlowSubtype25, 0x0e).depth, 32u);  // the loads change nothing
  EXPECT_EQ(read(kSlowSubtype25, 0x12).depth, 64u);  // after "sub rsp, 0x20"
}

TEST(SavedRegisters, OtherStubsAreNotSavingOnes) {
  // HotSpot's safepoint handler blob: "push rbx; push rbp; mov rbp, rsp": one register, then a frame.
  const std::vector<uint8_t> safepoint = hex("5355488bec9c4883ec08");
  SavedRegisters out{};
  ASSERT_TRUE(read_saved_registers(safepoint.data(), safepoint.size(), safepoint.size(), &out));
  EXPECT_EQ(out.pushes, 1u);
  const std::vector<uint8_t> framed = hex("55488bec4883ec10");
  EXPECT_FALSE(read_saved_registers(framed.data(), framed.size(), framed.size(), &out));
}

TEST(SavedRegisters, TheExitsCountTheirPops) {
  const auto at = [&](size_t offset) { return reinterpret_cast<uintptr_t>(kSlowSubtype17.data()) + offset; };
  const uintptr_t end = at(kSlowSubtype17.size());
  EXPECT_EQ(pops_before_ret(end, at(0x31)), 4);  // 58 59 5e 5f c3
  EXPECT_EQ(pops_before_ret(end, at(0x33)), 2);
  EXPECT_EQ(pops_before_ret(end, at(0x35)), 0);  // at "ret"
  EXPECT_EQ(pops_before_ret(end, at(0x10)), -1);
}

CodeRange stub_over(const std::vector<uint8_t>& code) {
  CodeRange r{};
  r.start = reinterpret_cast<uintptr_t>(code.data());
  r.end = r.start + code.size();
  r.kind = CodeKind::kStub;
  SavedRegisters s{};
  read_saved_registers(code.data(), code.size(), code.size(), &s);
  r.saved_end = s.end;
  r.saved_pushes = s.pushes;
  r.saved_depth = s.depth;
  return r;
}

TEST(SavedRegisters, CandidatesFollowTheDepth) {
  const CodeRange r = stub_over(kSlowSubtype25);
  Candidate c[4];
  // In the body (where samples were measured, 2026-12-05): the whole depth, then the pushes alone.
  ASSERT_EQ(candidates_for(&r, Regs{r.start + 0x4c, 0, 0}, true, c), 2);
  EXPECT_EQ(c[0].kind, CandidateKind::kSubbed);
  EXPECT_EQ(c[0].frame_size, 64u);
  EXPECT_EQ(c[1].frame_size, 32u);
  // In the saving, and at the first instruction.
  ASSERT_EQ(candidates_for(&r, Regs{r.start + 2, 0, 0}, true, c), 1);
  EXPECT_EQ(c[0].frame_size, 16u);
  ASSERT_EQ(candidates_for(&r, Regs{r.start, 0, 0}, true, c), 1);
  EXPECT_EQ(c[0].kind, CandidateKind::kEntry);
  // At an exit: "pop rcx" next, three pops left.
  ASSERT_EQ(candidates_for(&r, Regs{r.start + 0xe2, 0, 0}, true, c), 1);
  EXPECT_EQ(c[0].frame_size, 24u);
  EXPECT_EQ(kind_of(&r, c[0]), JVMKIT_RECOVERY_STUB_SAVED_REGISTERS);
}

// C2's runtime stub for "new array" (JDK 25): "sub rsp, 8; mov [rsp], rbp", the thread's anchor,
// a call into the VM, then "pop rbp; ret" or "pop rbp; jmp" to the exception forwarder.
const std::vector<uint8_t> kNewArray25 =
    hex("4881ec0800000048892c244989a780040000488bfe8bf2498bd749baf0faf29c"
        "427f000041ffd20f1f8400000000004d89a7800400004d89a788040000498b87"
        "d80400004d89a7d80400004d3b670875025dc35de92786ecfff4f4f4f4f4f4f4");

TEST(StubFrames, AStubBuiltLikeC2CodeHasItsFrameSize) {
  CodeRange r{};
  r.start = reinterpret_cast<uintptr_t>(kNewArray25.data());
  r.end = r.start + kNewArray25.size();
  r.kind = CodeKind::kStub;
  scan_stub_frame(kNewArray25.data(), kNewArray25.size(), &r);
  EXPECT_EQ(r.frame_size, 8u);
  EXPECT_EQ(r.prologue_end, 11u);
  Candidate c[4];
  const auto first = [&](uintptr_t offset) {
    EXPECT_EQ(candidates_for(&r, Regs{r.start + offset, 0, 0}, true, c), 1);
    return c[0];
  };
  EXPECT_EQ(first(0).kind, CandidateKind::kEntry);
  EXPECT_EQ(first(7).kind, CandidateKind::kSubbed);  // "sub rsp, 8" done, rbp not stored yet
  EXPECT_EQ(first(7).frame_size, 8u);
  EXPECT_EQ(first(0x2f).kind, CandidateKind::kComplete);  // back from the VM
  EXPECT_EQ(first(0x51).kind, CandidateKind::kComplete);  // at "pop rbp": [sp + 8]
  EXPECT_EQ(first(0x52).kind, CandidateKind::kEntry);     // at "ret"
  EXPECT_EQ(first(0x54).kind, CandidateKind::kEntry);     // "pop rbp" done, before the jmp
  // A stub that does not start so has no frame size: the generic stub rows apply.
  CodeRange other{};
  scan_stub_frame(kSlowSubtype25.data(), kSlowSubtype25.size(), &other);
  EXPECT_EQ(other.frame_size, 0u);
}

// HotSpot's nmethod entry barrier stub pushes a cookie word before its rbp frame ("push -1",
// either encoding, then "push rbp; mov rbp, rsp"): its return address is at [rbp + 16].
TEST(StubFrames, AStubThatPushesACookieBeforeItsFrameReturnsFromRbpPlus16) {
  const std::vector<uint8_t> imm32 = {0x68, 0xFF, 0xFF, 0xFF, 0xFF, 0x55, 0x48, 0x8B, 0xEC, 0x57};
  const std::vector<uint8_t> imm8 = {0x6A, 0xFF, 0x55, 0x48, 0x89, 0xE5, 0x57};
  const std::vector<uint8_t> plain = {0x55, 0x48, 0x89, 0xE5, 0x57};
  const std::vector<uint8_t> other_word = {0x6A, 0x01, 0x55, 0x48, 0x89, 0xE5};
  EXPECT_EQ(cookie_frame_made_at(imm32.data(), imm32.size()), 9u);
  EXPECT_EQ(cookie_frame_made_at(imm8.data(), imm8.size()), 6u);
  EXPECT_EQ(cookie_frame_made_at(plain.data(), plain.size()), 0u);
  EXPECT_EQ(cookie_frame_made_at(other_word.data(), other_word.size()), 0u);
  EXPECT_EQ(cookie_frame_made_at(imm8.data(), 5), 0u);  // cut short

  CodeRange stub{};
  stub.start = reinterpret_cast<uintptr_t>(imm32.data());
  stub.end = stub.start + imm32.size();
  stub.kind = CodeKind::kStub;
  stub.cookie_frame_at = 9;
  uintptr_t stack[8] = {};
  const auto at = [&](int i) { return reinterpret_cast<uintptr_t>(&stack[i]); };
  stack[2] = 0x1111;                      // the saved rbp
  stack[3] = static_cast<uintptr_t>(-1);  // the cookie
  stack[4] = 0x2222;                      // the return address
  const StackBounds bounds{at(0), at(8)};
  Candidate c[4];
  // Having called further down, and interrupted with its frame made: [rbp + 16].
  for (const bool first : {false, true}) {
    ASSERT_EQ(candidates_for(&stub, Regs{stub.start + 9, at(0), at(2)}, first, c), 1);
    Regs caller{};
    ASSERT_TRUE(caller_regs(bounds, Regs{stub.start + 9, at(0), at(2)}, c[0], &caller));
    EXPECT_EQ(caller.pc, 0x2222u);
    EXPECT_EQ(caller.sp, at(5));
    EXPECT_EQ(caller.fp, 0x1111u);
  }
}

}  // namespace
}  // namespace jvmkit::walk
