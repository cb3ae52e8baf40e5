// The signal-side table on hand-made rows and modules: the searches' edges, the packing of a row,
// each rule's evaluation, and what happens when a register or a word is not available.
#include "native/unwind_table.hpp"

#include <gtest/gtest.h>

#include "native/native_snapshot.hpp"

#include <map>
#include <vector>

namespace jvmkit::native {
namespace {

using Words = std::map<uintptr_t, uintptr_t>;
bool read_words(const void* context, uintptr_t address, uintptr_t* value) noexcept {
  const auto& words = *static_cast<const Words*>(context);
  const auto it = words.find(address);
  if (it == words.end()) return false;
  *value = it->second;
  return true;
}

CallerLocation evaluate_on(const UnwindRow& row, const FrameRegs& regs, const Words& words = {}) {
  return evaluate(row, regs, WordReader{read_words, &words});
}

TEST(UnwindTable, RowPacksKindRuleAndOperandInEightBytes) {
  const UnwindRow row = make_row(0x1234, CfaKind::kRbpDeref, -8, RbpRule::kAtRbp, -3);
  EXPECT_EQ(row.start, 0x1234u);
  EXPECT_EQ(row.cfa_kind(), CfaKind::kRbpDeref);
  EXPECT_EQ(row.rbp_rule(), RbpRule::kAtRbp);
  EXPECT_EQ(row.cfa_offset, -8);
  EXPECT_EQ(row.operand, -3);
  EXPECT_TRUE(row.same_rule(make_row(0x9999, CfaKind::kRbpDeref, -8, RbpRule::kAtRbp, -3)));
  EXPECT_FALSE(row.same_rule(make_row(0x1234, CfaKind::kRbpDeref, -8, RbpRule::kSaved, -3)));
}

TEST(UnwindTable, FindRowTakesTheLastRowStartingAtOrBelow) {
  const std::vector<UnwindRow> rows = {make_row(0x100, CfaKind::kRsp, 8, RbpRule::kSame, 0),
                                       make_row(0x104, CfaKind::kRsp, 16, RbpRule::kSame, 0),
                                       make_row(0x120, CfaKind::kNoInfo, 0, RbpRule::kSame, 0)};
  const auto n = static_cast<uint32_t>(rows.size());
  EXPECT_EQ(find_row(rows.data(), 0, 0x100), nullptr);
  EXPECT_EQ(find_row(rows.data(), n, 0xff), nullptr);
  EXPECT_EQ(find_row(rows.data(), n, 0x100), &rows[0]);
  EXPECT_EQ(find_row(rows.data(), n, 0x103), &rows[0]);
  EXPECT_EQ(find_row(rows.data(), n, 0x104), &rows[1]);
  EXPECT_EQ(find_row(rows.data(), n, 0x11f), &rows[1]);
  EXPECT_EQ(find_row(rows.data(), n, 0x120), &rows[2]);
  EXPECT_EQ(find_row(rows.data(), n, 0xffffffff), &rows[2]);
}

TEST(UnwindTable, TheRowPagesFindWhatTheWholeSearchFinds) {
  // Rows on page boundaries, pages without a row of their own, a run of rows in one page, and a
  // last row far above the others.
  std::vector<UnwindRow> rows;
  for (uint32_t start :
       {0x3ffcu, 0x4000u, 0x4001u, 0x4ff0u, 0x5000u, 0x8123u, 0x8124u, 0x8125u, 0x8fffu, 0x9000u, 0xc000u, 0x40000u}) {
    rows.push_back(make_row(start, CfaKind::kRsp, 8, RbpRule::kSame, 0));
  }
  uint32_t first_page = 0;
  const std::vector<uint32_t> pages = row_pages(rows, &first_page);
  EXPECT_EQ(first_page, 0x3u);
  ASSERT_EQ(pages.size(), 0x40u - 0x3u + 2);
  UnwindModule module{0x1000, 0x50000, 0, rows.data(), static_cast<uint32_t>(rows.size())};
  module.prepared = true;
  module.row_pages = pages.data();
  module.first_row_page = first_page;
  module.row_page_count = static_cast<uint32_t>(pages.size() - 1);
  for (uint32_t offset = 0; offset < 0x42000; offset++) {
    ASSERT_EQ(find_module_row(module, offset), find_row(rows.data(), static_cast<uint32_t>(rows.size()), offset))
        << std::hex << offset;
  }
  ASSERT_EQ(find_module_row(module, 0xffffffff), &rows.back());
  EXPECT_TRUE(row_pages({}, &first_page).empty());
}

TEST(UnwindTable, LookupGivesTheModuleRowOrTheReason) {
  const std::vector<UnwindRow> rows = {make_row(0x1000, CfaKind::kRsp, 8, RbpRule::kSame, 0),
                                       make_row(0x1010, CfaKind::kUnsupported, 0, RbpRule::kUnknown, 0),
                                       make_row(0x1020, CfaKind::kNoInfo, 0, RbpRule::kSame, 0),
                                       make_row(0x1030, CfaKind::kOutermost, 0, RbpRule::kUnknown, 0)};
  UnwindModule prepared{0x7000'1000, 0x7000'2000, 0x7000'0000, rows.data(), static_cast<uint32_t>(rows.size())};
  prepared.prepared = true;
  const UnwindModule unprepared{0x7100'1000, 0x7100'2000, 0x7100'0000};
  const UnwindModule modules[] = {prepared, unprepared};

  EXPECT_EQ(lookup_row(modules, 2, 0x6fff'ffff).status, LookupStatus::kNoModule);
  EXPECT_EQ(lookup_row(modules, 2, 0x7000'2000).status, LookupStatus::kNoModule) << "text_end is exclusive";
  EXPECT_EQ(lookup_row(modules, 2, 0x7100'1800).status, LookupStatus::kUnprepared);
  EXPECT_EQ(lookup_row(modules, 2, 0x7100'2000).status, LookupStatus::kNoModule);
  const RowLookup found = lookup_row(modules, 2, 0x7000'1008);
  EXPECT_EQ(found.status, LookupStatus::kFound);
  EXPECT_EQ(found.module, &modules[0]);
  EXPECT_EQ(found.row, &rows[0]);
  EXPECT_EQ(lookup_row(modules, 2, 0x7000'1010).status, LookupStatus::kUnsupported);
  EXPECT_EQ(lookup_row(modules, 2, 0x7000'1025).status, LookupStatus::kNoInfo);
  EXPECT_EQ(lookup_row(modules, 2, 0x7000'1030).status, LookupStatus::kFound) << "an outermost row unwinds to the end";
  // Text before the first row (in no FDE): no row at all.
  UnwindModule late = prepared;
  late.text_start = 0x7000'0800;
  EXPECT_EQ(lookup_row(&late, 1, 0x7000'0900).status, LookupStatus::kNoInfo);
  EXPECT_EQ(find_module(modules, 0, 0x7000'1008), nullptr);
}

TEST(UnwindTable, RspAndRbpFramesWithTheCallersRbp) {
  const Words words = {{0x5020 - 16, 0xaaaa}};
  CallerLocation caller = evaluate_on(make_row(0, CfaKind::kRsp, 32, RbpRule::kSaved, -2), {0, 0x5000, 0x9999}, words);
  ASSERT_EQ(caller.result, StepResult::kOk);
  EXPECT_EQ(caller.cfa, 0x5020u);
  EXPECT_EQ(caller.ra_slot, 0x5018u);
  EXPECT_EQ(caller.caller_fp, 0xaaaau);

  caller = evaluate_on(make_row(0, CfaKind::kRbp, 16, RbpRule::kSame, 0), {0, 0x5000, 0x6000});
  ASSERT_EQ(caller.result, StepResult::kOk);
  EXPECT_EQ(caller.cfa, 0x6010u);
  EXPECT_TRUE(caller.caller_fp_known);
  EXPECT_EQ(caller.caller_fp, 0x6000u);
}

TEST(UnwindTable, AMissingRegisterOrWordStopsTheStep) {
  FrameRegs no_fp{0, 0x5000, 0};
  no_fp.fp_known = false;
  EXPECT_EQ(evaluate_on(make_row(0, CfaKind::kRbp, 16, RbpRule::kSame, 0), no_fp).result, StepResult::kNeedsRegisters);
  EXPECT_EQ(evaluate_on(make_row(0, CfaKind::kRbpDeref, -8, RbpRule::kAtRbp, 0), no_fp).result,
            StepResult::kNeedsRegisters);
  const CallerLocation same = evaluate_on(make_row(0, CfaKind::kRsp, 8, RbpRule::kSame, 0), no_fp);
  EXPECT_EQ(same.result, StepResult::kOk);
  EXPECT_FALSE(same.caller_fp_known) << "an unknown rbp stays unknown";
  EXPECT_EQ(evaluate_on(make_row(0, CfaKind::kRegister, 0, RbpRule::kSame, 10), {0, 0x5000, 0x6000}).result,
            StepResult::kNeedsRegisters);
  EXPECT_EQ(evaluate_on(make_row(0, CfaKind::kRsp, 16, RbpRule::kSaved, -2), {0, 0x5000, 0x6000}).result,
            StepResult::kUnreadable);
  EXPECT_EQ(evaluate_on(make_row(0, CfaKind::kRbpDeref, -8, RbpRule::kAtRbp, 0), {0, 0x5000, 0x6000}).result,
            StepResult::kUnreadable);
  const CallerLocation unknown = evaluate_on(make_row(0, CfaKind::kRsp, 8, RbpRule::kUnknown, 0), {0, 0x5000, 0x6000});
  EXPECT_EQ(unknown.result, StepResult::kOk);
  EXPECT_FALSE(unknown.caller_fp_known);
}

TEST(UnwindTable, RowsWithoutARuleSayWhich) {
  EXPECT_EQ(evaluate_on(make_row(0, CfaKind::kNoInfo, 0, RbpRule::kSame, 0), {}).result, StepResult::kNoInfo);
  EXPECT_EQ(evaluate_on(make_row(0, CfaKind::kUnsupported, 0, RbpRule::kUnknown, 0), {}).result,
            StepResult::kUnsupported);
  EXPECT_EQ(evaluate_on(make_row(0, CfaKind::kOutermost, 0, RbpRule::kUnknown, 0), {}).result, StepResult::kOutermost);
}

TEST(UnwindTable, DwarfRegisterNumbersOfAUcontext) {
  ucontext_t uc{};
  for (int i = 0; i < NGREG; i++) uc.uc_mcontext.gregs[i] = 1000 + i;
  uint64_t gprs[kDwarfGprCount];
  dwarf_gprs_of(&uc, gprs);
  EXPECT_EQ(gprs[0], 1000u + REG_RAX);
  EXPECT_EQ(gprs[1], 1000u + REG_RDX);
  EXPECT_EQ(gprs[2], 1000u + REG_RCX);
  EXPECT_EQ(gprs[3], 1000u + REG_RBX);
  EXPECT_EQ(gprs[kDwarfRbp], 1000u + REG_RBP);
  EXPECT_EQ(gprs[kDwarfRsp], 1000u + REG_RSP);
  EXPECT_EQ(gprs[10], 1000u + REG_R10);
  EXPECT_EQ(gprs[15], 1000u + REG_R15);
  EXPECT_EQ(ucontext_greg_offset(REG_RSP), 160u) << "glibc's __restore_rt CFI says oRSP = 160";
  EXPECT_EQ(ucontext_greg_offset(REG_RIP), 168u);
  EXPECT_EQ(ucontext_greg_offset(REG_RBP), 120u);
}

// Two FDEs that share a rule at their border (one row), a gap without CFI after the second, an
// empty FDE inside the gap (no row of its own), then a third FDE.
TEST(UnwindTable, AFunctionStartOnlyWhereAnFdeCoversTheOffset) {
  const std::vector<UnwindRow> rows = {
      make_row(0x100, CfaKind::kRsp, 8, RbpRule::kSame, 0), make_row(0x110, CfaKind::kRsp, 16, RbpRule::kSame, 0),
      make_row(0x130, CfaKind::kRsp, 8, RbpRule::kSame, 0), make_row(0x160, CfaKind::kNoInfo, 0, RbpRule::kSame, 0),
      make_row(0x200, CfaKind::kUnsupported, 0, RbpRule::kUnknown, 0)};
  const std::vector<uint32_t> starts = {0x100, 0x140, 0x180, 0x200};
  UnwindModule module{0x1000, 0x2000, 0, rows.data(), static_cast<uint32_t>(rows.size())};
  module.prepared = true;
  module.function_starts = starts.data();
  module.function_start_count = static_cast<uint32_t>(starts.size());

  EXPECT_EQ(covering_function_start(module, 0xff), -1) << "before the first FDE";
  EXPECT_EQ(covering_function_start(module, 0x100), 0x100);
  EXPECT_EQ(covering_function_start(module, 0x13f), 0x100);
  EXPECT_EQ(covering_function_start(module, 0x140), 0x140) << "an FDE whose first row is merged into the last one's";
  EXPECT_EQ(covering_function_start(module, 0x15f), 0x140);
  EXPECT_EQ(covering_function_start(module, 0x160), -1) << "past the FDE's end: not the function before the gap";
  EXPECT_EQ(covering_function_start(module, 0x190), -1) << "past an empty FDE: it covers nothing";
  EXPECT_EQ(covering_function_start(module, 0x200), 0x200) << "an unsupported rule is still covered";
  UnwindModule unprepared = module;
  unprepared.prepared = false;
  EXPECT_EQ(covering_function_start(unprepared, 0x100), -1);

  EXPECT_FALSE(function_start_between(module, 0x160, 0x17f)) << "inside the gap";
  EXPECT_TRUE(function_start_between(module, 0x160, 0x180)) << "(after, up_to]: the end counts";
  EXPECT_FALSE(function_start_between(module, 0x180, 0x1ff)) << "the start itself does not";
  EXPECT_TRUE(function_start_between(module, 0x0, 0x100));
  EXPECT_FALSE(function_start_between(module, 0x0, 0xff));
}

}  // namespace
}  // namespace jvmkit::native
