// The interpreter's method entries: their shape read from code as HotSpot generates it (the first
// bytes of the "zerolocals" and "native" entries of OpenJDK 17 and Temurin 25, as
// -XX:+PrintInterpreter shows them), and the caller found at each point of an entry.
#include "stack_walk/signal/x64/interpreter_entry.hpp"

#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

namespace jvmkit::walk {
namespace {

std::vector<uint8_t> hex(const std::string& text) {
  std::vector<uint8_t> out;
  for (size_t i = 0; i + 1 < text.size(); i += 2)
    out.push_back(static_cast<uint8_t>(std::stoul(text.substr(i, 2), nullptr, 16)));
  return out;
}

// Stack check, "pop rax; lea r14", the locals' zeroing loop, "push rax; push rbp; mov rbp, rsp",
// the fixed frame, "mov byte [r15 + 0x369], 1".
const std::string kZerolocals17 =
    "488b53080fb74a2c0fb7522a2bd181faf50100000f8625000000488bc248c1e0"
    "034883c058490387b0030000483be00f870a00000058498be550e901c0ffff58"
    "4c8d74ccf885d20f8e090000006800000000ffca7ff75055488bec4155680000"
    "00004c8b6b084d8d6d3053488b5308488b5208488b5218488b5270488b125248"
    "8b53104885d20f84070000004881c23001000052488b5308488b5208488b5210"
    "524156415568000000004889242441c6876903000001488b";
const std::string kZerolocals25 =
    "488b53080fb74a2e0fb7522c2bd181faf50100000f8625000000488bc248c1e0"
    "034883c058490387b0050000483be00f870a00000058498be550e901a6ffff58"
    "4c8d74ccf885d27e096800000000ffca7ff75055488bec4155488b43084c8d68"
    "38488b4008680000000053488b5018488b5270488b1252488b53104885d27407"
    "4881c2d000000052488b501052498bc6482bc548c1e80350415568f7ffffff41"
    "c6874905000001488b45d84885c00f848d0000008b48f885";
// ZGC (JDK 25): the load barrier of the mirror, its slow path inline, lies inside the fixed frame.
const std::string kZerolocals25Zgc =
    "488b53080fb74a2e0fb7522c2bd181faf50100000f8625000000488bc248c1e0"
    "034883c058490387b0050000483be00f870a00000058498be550e901a9ffff58"
    "4c8d74ccf885d27e096800000000ffca7ff75055488bec4155488b43084c8d68"
    "38488b4008680000000053488b5018488b52704c8d1a498b13498557400f84b5"
    "000000505152575641504151415241534881ec80000000c5fa7f7c2470c5fa7f"
    "742460c5fa7f6c2450c5fa7f642440c5fa7f5c2430c5fa7f542420c5fa7f4c24"
    "10c5fa7f0424488bfa498bf340f6c40f0f84120000004883ec08e8b1d2791648"
    "83c408e905000000e8a3d27916c5fa6f0424c5fa6f4c2410c5fa6f542420c5fa"
    "6f5c2430c5fa6f642440c5fa6f6c2450c5fa6f742460c5fa6f7c24704881c480"
    "000000415b415a415941585e5f5a59488bd058e9100000004c8bd9488b0ddeb4"
    "cc1648d3ea498bcb52488b53104885d274074881c2d000000052488b50105249"
    "8bc6482bc548c1e80350415568f7ffffff41c6874905000001488b45d84885c0";
// No stack check before the pop; two slots for the native call before the return address.
const std::string kNative17 =
    "488b4b080fb7492c584c8d74ccf8680000000068000000005055488bec415568"
    "000000004c8b6b084d8d6d3053488b5308488b5208488b5218488b5270488b12"
    "52488b53104885d20f84070000004881c23001000052488b5308488b5208488b"
    "5210524156680000000068000000004889242441c6876903000001488b431048";
const std::string kNative25 =
    "488b4b080fb7492e584c8d74ccf8680000000068000000005055488bec415548"
    "8b43084c8d6838488b4008680000000053488b5018488b5270488b1252488b53"
    "104885d274074881c2d000000052488b501052498bc6482bc548c1e803506800"
    "00000068f7ffffff41c6874905000001488b43104885c074";

struct Shape {
  const std::string* code;
  uintptr_t pop, overflow, push_return, fixed_end;
  bool native_call;
};

class EntryShapes : public ::testing::TestWithParam<Shape> {};

TEST_P(EntryShapes, AreReadFromTheCode) {
  const Shape& s = GetParam();
  const std::vector<uint8_t> code = hex(*s.code);
  constexpr uintptr_t kAt = 0x7f0000001000;
  const std::optional<InterpreterEntry> e = scan_interpreter_entry(code.data(), code.size(), kAt);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->begin, kAt);
  EXPECT_EQ(e->pop, kAt + s.pop);
  EXPECT_EQ(e->overflow_begin, s.overflow ? kAt + s.overflow : 0);
  EXPECT_EQ(e->push_return, kAt + s.push_return);
  EXPECT_EQ(e->frame_made, kAt + s.push_return + 5);
  EXPECT_EQ(e->fixed_end, kAt + s.fixed_end);
  EXPECT_EQ(e->native_call, s.native_call);
}

INSTANTIATE_TEST_SUITE_P(Jdk17And25, EntryShapes,
                         ::testing::Values(Shape{&kZerolocals17, 0x3f, 0x35, 0x56, 0xae, false},
                                           Shape{&kZerolocals25, 0x3f, 0x35, 0x52, 0x9f, false},
                                           Shape{&kZerolocals25Zgc, 0x3f, 0x35, 0x52, 0x171, false},
                                           Shape{&kNative17, 0x08, 0, 0x18, 0x73, true},
                                           Shape{&kNative25, 0x08, 0, 0x18, 0x68, true}));

TEST(InterpreterEntryShape, OtherCodeIsNotAnEntry) {
  // An intrinsic entry (Math.sin: "movsd xmm0, [rsp + 8]; ...; ret") and a truncated normal entry.
  const std::vector<uint8_t> sin = hex("f20f104424084883ec08e800000000c3");
  EXPECT_FALSE(scan_interpreter_entry(sin.data(), sin.size(), 0x1000).has_value());
  const std::vector<uint8_t> cut = hex(kZerolocals17.substr(0, 2 * 0x60));  // no fixed frame end
  EXPECT_FALSE(scan_interpreter_entry(cut.data(), cut.size(), 0x1000).has_value());
  const std::vector<uint8_t> no_frame = hex(kZerolocals17.substr(0, 2 * 0x56));  // no "push rax; push rbp"
  EXPECT_FALSE(scan_interpreter_entry(no_frame.data(), no_frame.size(), 0x1000).has_value());
}

// A thread's stack in the middle of an entry of kZerolocals17 at kCode. The caller's frame lies at
// the top: its SP kSender (r13), its rbp kCallerFp; kReturn is its return address.
class EntryCallers : public ::testing::Test {
 protected:
  static constexpr uintptr_t kCode = 0x7f0000001000;
  static constexpr uintptr_t kReturn = 0x7f0000009999, kMethod = 0x800001234;
  void SetUp() override {
    const std::vector<uint8_t> code = hex(kZerolocals17);
    entries_.entries[0] = *scan_interpreter_entry(code.data(), code.size(), kCode);
    entries_.count = 1;
    sender_ = addr(40);
    caller_fp_ = addr(60);
  }
  uintptr_t addr(size_t word) { return reinterpret_cast<uintptr_t>(&stack_[word]); }
  StackBounds bounds() { return StackBounds{addr(0), addr(stack_.size())}; }
  std::optional<EntryCaller> caller_at(uintptr_t offset, uintptr_t sp, uintptr_t fp, uintptr_t rax = 0) {
    EntryCaller out{};
    const EntryRegs regs{kCode + offset, sp, fp, rax, kMethod, sender_};
    if (!interpreter_entry_caller(entries_, regs, bounds(), &out)) return std::nullopt;
    return out;
  }

  std::array<uintptr_t, 64> stack_{};
  InterpreterEntries entries_;
  uintptr_t sender_ = 0, caller_fp_ = 0;
};

TEST_F(EntryCallers, BeforeThePopTheReturnAddressIsOnTheStack) {
  stack_[39] = kReturn;  // pushed by the call, just below the caller's SP
  for (uintptr_t offset : {0x00, 0x04, 0x08, 0x2f, 0x3f}) {
    const std::optional<EntryCaller> c = caller_at(offset, addr(39), caller_fp_);
    ASSERT_TRUE(c.has_value()) << offset;
    EXPECT_EQ(c->caller.pc, kReturn);
    EXPECT_EQ(c->caller.sp, sender_);
    EXPECT_EQ(c->caller.fp, caller_fp_);
    EXPECT_EQ(c->method, kMethod);
    EXPECT_FALSE(c->native);
  }
  // The stack-overflow exit is not an entry in progress.
  EXPECT_FALSE(caller_at(0x36, addr(40), caller_fp_).has_value());
}

TEST_F(EntryCallers, AfterThePopItIsInRaxThenPushedAgain) {
  // Popped, two locals zeroed: the return address lives in rax.
  const std::optional<EntryCaller> in_rax = caller_at(0x52, addr(38), caller_fp_, kReturn);
  ASSERT_TRUE(in_rax.has_value());
  EXPECT_EQ(in_rax->caller.pc, kReturn);
  EXPECT_EQ(in_rax->caller.sp, sender_);
  // "push rax" done: at [rsp]; "push rbp" done: at [rsp + 8], the caller's rbp at [rsp].
  stack_[37] = kReturn;
  EXPECT_EQ(caller_at(0x57, addr(37), caller_fp_)->caller.pc, kReturn);
  stack_[36] = caller_fp_;
  const std::optional<EntryCaller> pushed = caller_at(0x58, addr(36), 0x1234);
  ASSERT_TRUE(pushed.has_value());
  EXPECT_EQ(pushed->caller.pc, kReturn);
  EXPECT_EQ(pushed->caller.fp, caller_fp_);
  // Inside "mov rbp, rsp" is no instruction boundary.
  EXPECT_FALSE(caller_at(0x59, addr(36), 0x1234).has_value());
}

TEST_F(EntryCallers, InTheFixedFrameItIsAboveRbp) {
  stack_[37] = kReturn;
  stack_[36] = caller_fp_;
  const uintptr_t fp = addr(36);
  // Right after "mov rbp, rsp": the sender SP is still only in r13.
  const std::optional<EntryCaller> made = caller_at(0x5b, fp, fp);
  ASSERT_TRUE(made.has_value());
  EXPECT_EQ(made->caller.pc, kReturn);
  EXPECT_EQ(made->caller.sp, sender_);
  EXPECT_EQ(made->caller.fp, caller_fp_);
  // Later r13 holds the bytecode pointer; the sender SP is read from [rbp - 8].
  stack_[35] = sender_;
  const std::optional<EntryCaller> later = caller_at(0x7b, addr(32), fp);
  ASSERT_TRUE(later.has_value());
  EXPECT_EQ(later->caller.sp, sender_);
  EXPECT_EQ(later->caller.pc, kReturn);
  // From the fixed frame's end on, ASGCT's own answer stands.
  EXPECT_FALSE(caller_at(0xae, addr(27), fp).has_value());
  // An rbp below SP is not this entry's frame.
  EXPECT_FALSE(caller_at(0x7b, addr(37), fp).has_value());
}

TEST_F(EntryCallers, ACallerSpBelowTheEntrysStackIsRefused) {
  stack_[39] = kReturn;
  sender_ = addr(30);  // below the interrupted SP: not a sender
  EXPECT_FALSE(caller_at(0x08, addr(39), caller_fp_).has_value());
  EXPECT_FALSE(caller_at(0x2000, addr(39), caller_fp_).has_value());  // outside the entry
}

}  // namespace
}  // namespace jvmkit::walk
