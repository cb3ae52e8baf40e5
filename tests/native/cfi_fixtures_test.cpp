// The rows of tests/native/cfi_fixtures.S, whose CFI was written by hand for one kind of row per
// function: each label's row is exactly the one the directives describe. The same source with its
// CFI in .debug_frame gives the same rows, and both agree with libdw PC by PC.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "cfi_agreement.hpp"
#include "native/cfi_rows.hpp"
#include "native/loaded_objects.hpp"
#include "native/unwind_table.hpp"

namespace jvmkit::native {
namespace {

// A fixture library, loaded, and its rows compiled from its file.
struct Fixture {
  void* handle = nullptr;
  std::string path;
  uintptr_t bias = 0;
  std::vector<uint8_t> build_id;
  CompiledCfi cfi;

  explicit Fixture(const char* library) : path(library) {
    handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) return;
    for (const LoadedObject& object : loaded_objects()) {
      if (object.path != path) continue;
      bias = object.bias;
      build_id = object.build_id;
    }
    cfi = compile_cfi_file(path, build_id);
  }
  ~Fixture() {
    if (handle != nullptr) dlclose(handle);
  }

  uintptr_t address(const char* symbol) const {
    void* at = dlsym(handle, symbol);
    EXPECT_NE(at, nullptr) << symbol;
    return reinterpret_cast<uintptr_t>(at);
  }
  UnwindRow row(const char* symbol) const {
    const UnwindRow* row = find_row(cfi.rows.data(), static_cast<uint32_t>(cfi.rows.size()),
                                    static_cast<uint32_t>(address(symbol) - bias));
    return row != nullptr ? *row : make_row(0, CfaKind::kNoInfo, 0, RbpRule::kSame, 0);
  }
};

const Fixture& eh_frame_fixture() {
  static const Fixture fixture(JVMKIT_NATIVE_CFI_FIXTURES);
  return fixture;
}

const Fixture& debug_frame_fixture() {
  static const Fixture fixture(JVMKIT_NATIVE_CFI_FIXTURES_DEBUG_FRAME);
  return fixture;
}

void expect_row(const char* symbol, CfaKind kind, int cfa_offset, RbpRule rbp, int operand) {
  const Fixture& fixture = eh_frame_fixture();
  ASSERT_NE(fixture.handle, nullptr) << dlerror();
  ASSERT_EQ(fixture.cfi.error, CfiError::kNone) << fixture.cfi.detail;
  const UnwindRow row = fixture.row(symbol);
  EXPECT_EQ(row.cfa_kind(), kind) << symbol;
  EXPECT_EQ(row.cfa_offset, cfa_offset) << symbol;
  EXPECT_EQ(row.rbp_rule(), rbp) << symbol;
  EXPECT_EQ(row.operand, operand) << symbol;
}

void expect_unsupported(const char* symbol, UnsupportedReason reason) {
  expect_row(symbol, CfaKind::kUnsupported, 0, RbpRule::kUnknown, static_cast<int>(reason));
}

// Memory of a few words; any other address is refused, as outside a thread's stack.
using Words = std::map<uintptr_t, uintptr_t>;
bool read_words(const void* context, uintptr_t address, uintptr_t* value) noexcept {
  const auto& words = *static_cast<const Words*>(context);
  const auto it = words.find(address);
  if (it == words.end()) return false;
  *value = it->second;
  return true;
}

CallerLocation evaluate_at(const UnwindRow& row, FrameRegs regs, const Words& words) {
  return evaluate(row, regs, WordReader{read_words, &words});
}

TEST(CfiFixtures, RspBasedFrames) {
  expect_row("jvmkit_cfi_rsp", CfaKind::kRsp, 8, RbpRule::kSame, 0);
  expect_row("jvmkit_cfi_rsp_pushed", CfaKind::kRsp, 16, RbpRule::kSame, 0);
  expect_row("jvmkit_cfi_rsp_body", CfaKind::kRsp, 40, RbpRule::kSame, 0);
}

TEST(CfiFixtures, RbpBasedFrame) {
  expect_row("jvmkit_cfi_rbp_body", CfaKind::kRbp, 16, RbpRule::kSaved, -2);
  expect_row("jvmkit_cfi_rbp_popped", CfaKind::kRsp, 8, RbpRule::kSame, 0);
  const Words words = {{0x7010 - 16, 0x1234}};
  const CallerLocation caller = evaluate_at(eh_frame_fixture().row("jvmkit_cfi_rbp_body"), {0, 0x6000, 0x7000}, words);
  ASSERT_EQ(caller.result, StepResult::kOk);
  EXPECT_EQ(caller.cfa, 0x7010u);
  EXPECT_EQ(caller.ra_slot, 0x7008u);
  EXPECT_TRUE(caller.caller_fp_known);
  EXPECT_EQ(caller.caller_fp, 0x1234u);
}

TEST(CfiFixtures, DrapFrameThroughR10ThenThroughRbp) {
  expect_row("jvmkit_cfi_drap_r10", CfaKind::kRegister, 0, RbpRule::kSame, 10);
  expect_row("jvmkit_cfi_drap_rbp_saved", CfaKind::kRegister, 0, RbpRule::kAtRbp, 10);
  expect_row("jvmkit_cfi_drap_body", CfaKind::kRbpDeref, -8, RbpRule::kAtRbp, 0);

  const UnwindRow in_r10 = eh_frame_fixture().row("jvmkit_cfi_drap_r10");
  EXPECT_EQ(evaluate_at(in_r10, {0, 0x6000, 0x7000}, {}).result, StepResult::kNeedsRegisters)
      << "a register CFA needs the interrupted frame's registers";
  uint64_t gprs[kDwarfGprCount] = {};
  gprs[10] = 0x9000;
  FrameRegs interrupted{0, 0x6000, 0x7000};
  interrupted.gprs = gprs;
  const CallerLocation from_r10 = evaluate_at(in_r10, interrupted, {});
  ASSERT_EQ(from_r10.result, StepResult::kOk);
  EXPECT_EQ(from_r10.cfa, 0x9000u);

  const Words words = {{0x7000 - 8, 0x9000}, {0x7000, 0x1234}};
  const CallerLocation caller = evaluate_at(eh_frame_fixture().row("jvmkit_cfi_drap_body"), {0, 0x6000, 0x7000}, words);
  ASSERT_EQ(caller.result, StepResult::kOk);
  EXPECT_EQ(caller.cfa, 0x9000u);
  EXPECT_EQ(caller.ra_slot, 0x8ff8u);
  EXPECT_EQ(caller.caller_fp, 0x1234u);
}

TEST(CfiFixtures, PltExpressionAddsEightFromItsThreshold) {
  expect_row("jvmkit_cfi_plt", CfaKind::kPlt, 8, RbpRule::kSame, 11);
  expect_row("jvmkit_cfi_plt10", CfaKind::kPlt, 8, RbpRule::kSame, 10);
  const uintptr_t entry = eh_frame_fixture().address("jvmkit_cfi_plt");  // 16-byte aligned
  const UnwindRow row = eh_frame_fixture().row("jvmkit_cfi_plt");
  EXPECT_EQ(evaluate_at(row, {entry + 10, 0x6000, 0}, {}).cfa, 0x6008u);
  EXPECT_EQ(evaluate_at(row, {entry + 11, 0x6000, 0}, {}).cfa, 0x6010u);
  EXPECT_EQ(evaluate_at(row, {entry + 16, 0x6000, 0}, {}).cfa, 0x6008u);
  const UnwindRow row10 = eh_frame_fixture().row("jvmkit_cfi_plt10");
  EXPECT_EQ(evaluate_at(row10, {entry + 10, 0x6000, 0}, {}).cfa, 0x6010u);
}

TEST(CfiFixtures, SignalTrampolineReadsTheUcontextAtRsp) {
  expect_row("jvmkit_cfi_sigreturn", CfaKind::kSignalFrame, 0, RbpRule::kSame, 0);
  const uintptr_t sp = 0x6000;
  const Words words = {{sp + ucontext_greg_offset(REG_RSP), 0x8000}, {sp + ucontext_greg_offset(REG_RBP), 0x1234}};
  const CallerLocation caller = evaluate_at(eh_frame_fixture().row("jvmkit_cfi_sigreturn"), {0, sp, 0}, words);
  ASSERT_EQ(caller.result, StepResult::kOk);
  EXPECT_TRUE(caller.signal_frame);
  EXPECT_EQ(caller.cfa, 0x8000u);
  EXPECT_EQ(caller.ra_slot, sp + 168) << "uc_mcontext.gregs[REG_RIP]";
  EXPECT_EQ(caller.caller_fp, 0x1234u);
  expect_unsupported("jvmkit_cfi_signal_plain", UnsupportedReason::kSignalFrameShape);
}

TEST(CfiFixtures, UndefinedReturnAddressIsOutermost) {
  expect_row("jvmkit_cfi_outermost", CfaKind::kOutermost, 0, RbpRule::kUnknown, 0);
  EXPECT_EQ(evaluate_at(eh_frame_fixture().row("jvmkit_cfi_outermost"), {}, {}).result, StepResult::kOutermost);
}

TEST(CfiFixtures, RestoreStateBringsTheFrameBackAfterAnEarlyReturn) {
  expect_row("jvmkit_cfi_remember", CfaKind::kRsp, 8, RbpRule::kSame, 0);
  expect_row("jvmkit_cfi_remember_early_return", CfaKind::kRsp, 8, RbpRule::kSame, 0);
  expect_row("jvmkit_cfi_remember_restored", CfaKind::kRbp, 16, RbpRule::kSaved, -2);
}

TEST(CfiFixtures, CodeBetweenTwoFdesHasNoInfo) {
  expect_row("jvmkit_cfi_before_gap", CfaKind::kRsp, 8, RbpRule::kSame, 0);
  expect_row("jvmkit_cfi_gap", CfaKind::kNoInfo, 0, RbpRule::kSame, 0);
  expect_row("jvmkit_cfi_after_gap", CfaKind::kRsp, 8, RbpRule::kSame, 0);
  const Fixture& fixture = eh_frame_fixture();
  const UnwindRow* gap = find_row(fixture.cfi.rows.data(), static_cast<uint32_t>(fixture.cfi.rows.size()),
                                  static_cast<uint32_t>(fixture.address("jvmkit_cfi_gap") - fixture.bias));
  ASSERT_NE(gap, nullptr) << "an explicit row, not the end of the table";
  EXPECT_LT(gap->start, fixture.address("jvmkit_cfi_gap") - fixture.bias) << "the gap begins at the FDE's end";
}

TEST(CfiFixtures, AnFdeProgramThatRunsPastItsEndStillEndsAtTheFde) {
  expect_row("jvmkit_cfi_runaway", CfaKind::kRsp, 8, RbpRule::kSame, 0);
  expect_row("jvmkit_cfi_after_runaway", CfaKind::kNoInfo, 0, RbpRule::kSame, 0);
}

TEST(CfiFixtures, RulesTheTableDoesNotHoldAreUnsupported) {
  expect_unsupported("jvmkit_cfi_big_frame_body", UnsupportedReason::kCfaOffsetRange);
  expect_unsupported("jvmkit_cfi_ra_in_register_body", UnsupportedReason::kReturnAddressRule);
  const CfiStats& stats = eh_frame_fixture().cfi.stats;
  EXPECT_EQ(stats.unsupported[static_cast<int>(UnsupportedReason::kCfaOffsetRange)], 1u);
  EXPECT_EQ(stats.unsupported[static_cast<int>(UnsupportedReason::kReturnAddressRule)], 1u);
  EXPECT_EQ(stats.unsupported[static_cast<int>(UnsupportedReason::kSignalFrameShape)], 1u);
}

TEST(CfiFixtures, DebugFrameOnlyGivesTheSameRows) {
  const Fixture& eh = eh_frame_fixture();
  const Fixture& debug = debug_frame_fixture();
  ASSERT_NE(debug.handle, nullptr) << dlerror();
  ASSERT_EQ(debug.cfi.error, CfiError::kNone) << to_string(debug.cfi.error) << ": " << debug.cfi.detail;
  EXPECT_FALSE(eh.cfi.stats.debug_frame);
  EXPECT_TRUE(debug.cfi.stats.debug_frame);
  for (const char* symbol :
       {"jvmkit_cfi_rsp_body", "jvmkit_cfi_rbp_body", "jvmkit_cfi_drap_r10", "jvmkit_cfi_drap_body", "jvmkit_cfi_plt",
        "jvmkit_cfi_sigreturn", "jvmkit_cfi_signal_plain", "jvmkit_cfi_outermost", "jvmkit_cfi_remember_restored",
        "jvmkit_cfi_gap", "jvmkit_cfi_after_gap", "jvmkit_cfi_big_frame_body", "jvmkit_cfi_ra_in_register_body"}) {
    const UnwindRow a = eh.row(symbol), b = debug.row(symbol);
    EXPECT_TRUE(a.same_rule(b)) << symbol;
  }
}

TEST(CfiFixtures, AgreeWithLibdwAtEveryRowAndRandomPcs) {
  for (const Fixture* fixture : {&eh_frame_fixture(), &debug_frame_fixture()}) {
    ASSERT_EQ(fixture->cfi.error, CfiError::kNone) << fixture->path;
    std::string why;
    ElfImage image = ElfImage::open_file(fixture->path, &why);
    ASSERT_NE(image.elf(), nullptr) << why;
    const oracle::Agreement agreement =
        oracle::compare_with_libdw(fixture->cfi.rows, image.elf(), fixture->cfi.stats.debug_frame, 10'000, 7);
    EXPECT_EQ(agreement.disagreements, 0u) << fixture->path;
    for (const std::string& example : agreement.examples) ADD_FAILURE() << fixture->path << ": " << example;
    EXPECT_GT(agreement.unsupported, 0u) << "the fixtures' unsupported rows were sampled";
  }
}

TEST(CfiFixtures, AFileOfAnotherBuildIsRefused) {
  const Fixture& fixture = eh_frame_fixture();
  ASSERT_FALSE(fixture.build_id.empty());
  std::vector<uint8_t> other = fixture.build_id;
  other[0] ^= 0xff;
  const CompiledCfi refused = compile_cfi_file(fixture.path, other);
  EXPECT_EQ(refused.error, CfiError::kBuildIdMismatch);
  EXPECT_TRUE(refused.rows.empty());
  EXPECT_EQ(compile_cfi_file(fixture.path, {}).error, CfiError::kNoBuildId);
  EXPECT_EQ(compile_cfi_file("/nonexistent/libnothing.so", other).error, CfiError::kOpen);
}

}  // namespace
}  // namespace jvmkit::native
