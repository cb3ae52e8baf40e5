// The x86-64 recognisers of the stack walk, fed byte sequences as HotSpot emits them.
#include "stack_walk/signal/x64/instructions.hpp"

#include <gtest/gtest.h>

#include <initializer_list>
#include <vector>

namespace jvmkit::walk {
namespace {

// A piece of "code": the bytes, and a CodeRange that covers exactly them.
class Code {
 public:
  Code(std::initializer_list<uint8_t> bytes) : bytes_(bytes) {
    range_ = CodeRange{};
    range_.start = reinterpret_cast<uintptr_t>(bytes_.data());
    range_.end = range_.start + bytes_.size();
  }
  const CodeRange& range() const { return range_; }
  uintptr_t at(size_t offset) const { return range_.start + offset; }

 private:
  std::vector<uint8_t> bytes_;
  CodeRange range_;
};

TEST(X64Instructions, FollowsCallKnowsTheCallFormsHotSpotEmits) {
  // nop x6, call rel32, ret address; then call r11 (41 FF D3); call [rax + 0x10] (FF 50 10);
  // call [rip + disp32] (FF 15 ...).
  Code code{0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0xE8, 0x01, 0x02, 0x03, 0x04, 0x41,
            0xFF, 0xD3, 0xFF, 0x50, 0x10, 0xFF, 0x15, 0x00, 0x01, 0x00, 0x00, 0x90};
  EXPECT_TRUE(follows_call(code.range(), code.at(11)));  // after E8 rel32
  EXPECT_TRUE(follows_call(code.range(), code.at(14)));  // after call r11
  EXPECT_TRUE(follows_call(code.range(), code.at(17)));  // after call [rax + 0x10]
  EXPECT_TRUE(follows_call(code.range(), code.at(23)));  // after call [rip + disp32]
  EXPECT_FALSE(follows_call(code.range(), code.at(8)));  // inside the call
  EXPECT_FALSE(follows_call(code.range(), code.at(3)));  // too close to the start to tell
}

TEST(X64Instructions, PrologueFrameSizeReadsTheLastSubRsp) {
  // C1: push rbp; sub rsp, 0x30; then C2's long form: sub rsp, 0x118 (imm32).
  Code c1{0x55, 0x48, 0x83, 0xEC, 0x30, 0x90, 0x90};
  EXPECT_EQ(prologue_frame_size(c1.range(), c1.at(5)), 0x30u);
  EXPECT_EQ(prologue_frame_size(c1.range(), c1.at(3)), 0u);  // the sub has not run yet
  Code c2{0x48, 0x81, 0xEC, 0x18, 0x01, 0x00, 0x00, 0x48, 0x89, 0xAC, 0x24, 0x10, 0x01, 0x00, 0x00};
  EXPECT_EQ(prologue_frame_size(c2.range(), c2.at(7)), 0x118u);
  Code odd{0x48, 0x83, 0xEC, 0x1C, 0x90};  // not 8-aligned: not a HotSpot frame
  EXPECT_EQ(prologue_frame_size(odd.range(), odd.at(4)), 0u);
}

TEST(X64Instructions, EpiloguePopAndReturnPoll) {
  // C2 epilogue: add rsp, 0x10; pop rbp; cmp rsp, [r15 + 0x28]; ja +1; ret.
  Code code{0x48, 0x83, 0xC4, 0x10, 0x5D, 0x49, 0x3B, 0x67, 0x28, 0x0F, 0x87, 0x01, 0x00, 0x00, 0x00, 0xC3};
  EXPECT_TRUE(at_epilogue_pop(code.range(), code.at(4)));  // rbp still to be popped
  EXPECT_FALSE(after_epilogue(code.range(), code.at(4)));
  EXPECT_FALSE(at_epilogue_pop(code.range(), code.at(9)));
  EXPECT_TRUE(after_epilogue(code.range(), code.at(9)));   // the return poll: frame gone
  EXPECT_TRUE(after_epilogue(code.range(), code.at(15)));  // at the ret
  EXPECT_FALSE(after_epilogue(code.range(), code.at(3)));  // still inside the add
  // The long form: add rsp, imm32; pop rbp.
  Code wide{0x48, 0x81, 0xC4, 0x00, 0x02, 0x00, 0x00, 0x5D, 0xC3};
  EXPECT_TRUE(at_epilogue_pop(wide.range(), wide.at(7)));
  EXPECT_TRUE(after_epilogue(wide.range(), wide.at(8)));
  // A pop rbp that no add rsp precedes is not an epilogue.
  Code other{0x90, 0x90, 0x90, 0x90, 0x5D, 0xC3};
  EXPECT_FALSE(at_epilogue_pop(other.range(), other.at(4)));
  EXPECT_FALSE(after_epilogue(other.range(), other.at(5)));
}

// Safepoint polls: "test eax, [reg]" in every encoding HotSpot's handler blob steps over, and
// nothing else (test with another register, a memory operand with an offset, cmp).
TEST(X64Instructions, SafepointPollLengthKnowsThePollEncodings) {
  const std::vector<std::vector<uint8_t>> polls = {{0x85, 0x00},
                                                   {0x85, 0x02},
                                                   {0x85, 0x07},
                                                   {0x41, 0x85, 0x02},
                                                   {0x41, 0x85, 0x07},
                                                   {0x85, 0x04, 0x24},
                                                   {0x41, 0x85, 0x04, 0x24},
                                                   {0x85, 0x45, 0x00},
                                                   {0x41, 0x85, 0x45, 0x00}};
  for (const std::vector<uint8_t>& poll : polls) {
    EXPECT_EQ(safepoint_poll_length(poll.data(), poll.size()), poll.size()) << poll.size() << " bytes";
  }
  const std::vector<std::vector<uint8_t>> others = {{0x85, 0x0A},              // test ecx, [rdx]
                                                    {0x85, 0x42, 0x08},        // test eax, [rdx + 8]
                                                    {0x85, 0x45, 0x08},        // test eax, [rbp + 8]
                                                    {0x85, 0xC0},              // test eax, eax
                                                    {0x41, 0x85, 0x04, 0x25},  // a SIB byte that is not [r12]
                                                    {0x49, 0x3B, 0xA7, 0x40, 0x03, 0x00, 0x00}};
  for (const std::vector<uint8_t>& other : others) EXPECT_EQ(safepoint_poll_length(other.data(), other.size()), 0u);
  const uint8_t truncated[] = {0x41, 0x85};
  EXPECT_EQ(safepoint_poll_length(truncated, 2), 0u);
}

TEST(X64Instructions, PollsAndReturnPollsAreToldApart) {
  // nop; test eax, [r10]; mov; the return poll cmp rsp, [r15 + 0x340] (disp32), and with a disp8.
  const Code code{0x90, 0x41, 0x85, 0x02, 0x48, 0x89, 0xC0, 0x49, 0x3B,
                  0xA7, 0x40, 0x03, 0x00, 0x00, 0x49, 0x3B, 0x67, 0x20};
  EXPECT_TRUE(follows_safepoint_poll(code.range(), code.at(4)));
  EXPECT_FALSE(follows_safepoint_poll(code.range(), code.at(3)));
  EXPECT_FALSE(follows_safepoint_poll(code.range(), code.at(7)));
  const auto* bytes = reinterpret_cast<const uint8_t*>(code.range().start);
  EXPECT_TRUE(is_return_poll(bytes + 7, 7));
  EXPECT_FALSE(is_return_poll(bytes + 7, 6));  // its disp32 cut off
  EXPECT_TRUE(is_return_poll(bytes + 14, 4));
  EXPECT_FALSE(is_return_poll(bytes + 1, 3));
}

TEST(X64Instructions, FrameMadeAtOnlyForStubsThatMakeOne) {
  // HotSpot's enter() (push rbp; mov rbp, rsp: 55 48 8B EC), the other mov encoding, and after
  // endbr64; a stub that pushes other registers first makes no rbp frame.
  Code enter{0x55, 0x48, 0x8B, 0xEC, 0x90, 0x90, 0x90, 0x90};
  Code other_mov{0x55, 0x48, 0x89, 0xE5, 0x90, 0x90, 0x90, 0x90};
  Code endbr{0xF3, 0x0F, 0x1E, 0xFA, 0x55, 0x48, 0x8B, 0xEC, 0x90};
  Code no_frame{0x57, 0x56, 0x51, 0x50, 0x90, 0x90, 0x90, 0x90};  // push rdi, rsi, rcx, rax
  EXPECT_EQ(frame_made_at(enter.range()), 4u);
  EXPECT_EQ(frame_made_at(other_mov.range()), 4u);
  EXPECT_EQ(frame_made_at(endbr.range()), 8u);
  EXPECT_EQ(frame_made_at(no_frame.range()), 0u);
}

TEST(X64Instructions, FrameMadeAtAfterRegisterMoves) {
  // The fill stubs (Arrays.fill; C2 calls them where the CPU has AVX-512) keep the count in r11
  // before enter(): mov r11, rdx (4C 8B DA); the 89 encoding of a move (mov rcx, rax: 48 89 C1).
  Code fill{0x4C, 0x8B, 0xDA, 0x55, 0x48, 0x8B, 0xEC, 0x49, 0x81, 0xFB};
  Code mov89{0x48, 0x89, 0xC1, 0x4C, 0x8B, 0xDA, 0x55, 0x48, 0x89, 0xE5, 0x90};
  EXPECT_EQ(frame_made_at(fill.range()), 7u);
  EXPECT_EQ(frame_made_at(mov89.range()), 10u);
  // A move into rbp or rsp, a load from memory (mod != 11), or an enter cut off by the range's
  // end: no frame.
  Code into_rbp{0x48, 0x8B, 0xEC, 0x55, 0x48, 0x8B, 0xEC, 0x90};     // mov rbp, rsp first
  Code into_rsp_89{0x48, 0x89, 0xC4, 0x55, 0x48, 0x8B, 0xEC, 0x90};  // mov rsp, rax
  Code load{0x4C, 0x8B, 0x1A, 0x55, 0x48, 0x8B, 0xEC, 0x90};         // mov r11, [rdx]
  Code cut{0x4C, 0x8B, 0xDA, 0x55, 0x48, 0x8B};
  EXPECT_EQ(frame_made_at(into_rbp.range()), 0u);
  EXPECT_EQ(frame_made_at(into_rsp_89.range()), 0u);
  EXPECT_EQ(frame_made_at(load.range()), 0u);
  EXPECT_EQ(frame_made_at(cut.range()), 0u);
}

}  // namespace
}  // namespace jvmkit::walk
