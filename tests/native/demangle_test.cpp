// native/demangle.hpp: libstdc++'s demangler behind demangle(), the parameter stripper on the
// shapes C++ names take, and both over every function symbol of libjvm 17.
#include "native/demangle.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <string>
#include <vector>

#include "native/symbol_index.hpp"
#include "symbol_test_support.hpp"

namespace jvmkit::native {
namespace {

TEST(Demangle, ItaniumNamesOnly) {
  EXPECT_EQ(demangle("_ZN9JavaCalls11call_helperEP9JavaValueRK12methodHandleP17JavaCallArgumentsP10JavaThread"),
            "JavaCalls::call_helper(JavaValue*, methodHandle const&, JavaCallArguments*, JavaThread*)");
  EXPECT_EQ(demangle("_Z3fooi.cold"), "foo(int) [clone .cold]");
  EXPECT_EQ(demangle("deflate"), std::nullopt);
  EXPECT_EQ(demangle("i"), std::nullopt) << "a type encoding is not a symbol name";
  EXPECT_EQ(demangle("_Z"), std::nullopt);
  EXPECT_EQ(demangle(nullptr), std::nullopt);
}

struct Case {
  const char* demangled;
  const char* stripped;
};

TEST(StripParameters, DropsTheParameterListAndItsQualifiers) {
  const std::vector<Case> cases = {
      {"JavaCalls::call_helper(JavaValue*, methodHandle const&, JavaCallArguments*, JavaThread*)",
       "JavaCalls::call_helper"},
      {"deflate", "deflate"},
      {"Foo::bar() const &", "Foo::bar"},
      {"Foo::bar() &&", "Foo::bar"},
      {"non-virtual thunk to Foo::bar(int)", "non-virtual thunk to Foo::bar"},
      {"qsort_r(void*, unsigned long, unsigned long, int (*)(void const*, void const*, void*), void*)", "qsort_r"},
      {"f(void (*)(int), int (&) [3])", "f"},
  };
  for (const Case& c : cases) EXPECT_EQ(strip_parameters(c.demangled), c.stripped) << c.demangled;
}

TEST(StripParameters, KeepsTemplateArgumentsWhateverTheyHold) {
  const std::vector<Case> cases = {
      {"void foo<int>(int)", "void foo<int>"},
      {"std::vector<int, std::allocator<int> >::push_back(int const&)",
       "std::vector<int, std::allocator<int> >::push_back"},
      {"Foo<(Bar)3>::baz(int)", "Foo<(Bar)3>::baz"},
      {"Foo<&Bar::operator()>::baz()", "Foo<&Bar::operator()>::baz"},
      {"Foo<void (*)(int)>::baz(long)", "Foo<void (*)(int)>::baz"},
      {"std::__cxx11::basic_string<char>::foo[abi:cxx11]() const", "std::__cxx11::basic_string<char>::foo[abi:cxx11]"},
  };
  for (const Case& c : cases) EXPECT_EQ(strip_parameters(c.demangled), c.stripped) << c.demangled;
}

TEST(StripParameters, KeepsOperatorNames) {
  const std::vector<Case> cases = {
      {"Foo::operator()(int) const", "Foo::operator()"},
      {"Foo::operator()()", "Foo::operator()"},
      {"bool operator< <int>(A<int> const&, A<int> const&)", "bool operator< <int>"},
      {"Foo::operator<(Foo const&) const", "Foo::operator<"},
      {"operator<<(std::ostream&, Foo const&)", "operator<<"},
      {"Foo::operator->() const", "Foo::operator->"},
      {"Foo::operator>>=(int)", "Foo::operator>>="},
      {"Foo::operator bool()", "Foo::operator bool"},
      {"operator new(unsigned long)", "operator new"},
      {"operator delete[](void*)", "operator delete[]"},
  };
  for (const Case& c : cases) EXPECT_EQ(strip_parameters(c.demangled), c.stripped) << c.demangled;
}

TEST(StripParameters, KeepsAnonymousNamespacesLambdasAndCloneSuffixes) {
  const std::vector<Case> cases = {
      {"(anonymous namespace)::f(int)", "(anonymous namespace)::f"},
      {"(anonymous namespace)::Foo::operator()(int)", "(anonymous namespace)::Foo::operator()"},
      {"(anonymous namespace)::Foo::bar((anonymous namespace)::Baz*)", "(anonymous namespace)::Foo::bar"},
      {"{lambda(int)#1}::operator()(int) const", "{lambda(int)#1}::operator()"},
      {"foo(int)::{lambda()#1}::operator()() const", "foo::{lambda()#1}::operator()"},
      {"JavaCalls::call_helper(JavaValue*, methodHandle const&, JavaCallArguments*, JavaThread*) [clone .cold]",
       "JavaCalls::call_helper [clone .cold]"},
      {"foo(int) [clone .constprop.0] [clone .isra.0]", "foo [clone .constprop.0] [clone .isra.0]"},
  };
  for (const Case& c : cases) EXPECT_EQ(strip_parameters(c.demangled), c.stripped) << c.demangled;
}

TEST(StripParameters, UnwrapsAFunctionReturningAFunctionPointer) {
  EXPECT_EQ(strip_parameters("void (*h<int>(int))(long)"), "void h<int>");
}

TEST(StripParameters, LeavesUnbalancedTextAsItIs) {
  EXPECT_EQ(strip_parameters("foo(int"), "foo(int");
  EXPECT_EQ(strip_parameters("Foo<int::bar(int)"), "Foo<int::bar(int)");
  EXPECT_EQ(strip_parameters(""), "");
}

TEST(StripParameters, IsIdempotent) {
  for (const char* name : {"Foo::operator()", "(anonymous namespace)::f", "bool operator< <int>",
                           "foo::{lambda()#1}::operator()", "JavaCalls::call_helper [clone .cold]"}) {
    EXPECT_EQ(strip_parameters(name), name);
  }
}

TEST(DemangleCache, PointersStayValidAndPlainNamesAreNotCopied) {
  DemangleCache cache;
  const char* plain = "deflate";
  EXPECT_EQ(cache.demangled(0, plain), plain);
  EXPECT_EQ(cache.without_parameters(0, plain), plain);
  const char* mangled = "_ZN9JavaCalls11call_helperEP9JavaValueRK12methodHandleP17JavaCallArgumentsP10JavaThread";
  const char* stripped = cache.without_parameters(1, mangled);
  EXPECT_STREQ(stripped, "JavaCalls::call_helper");
  std::vector<std::string> names;
  for (uint32_t key = 2; key < 5000; key++) names.push_back("_Z3fooi");
  for (uint32_t key = 2; key < 5000; key++) cache.without_parameters(key, names[key - 2].c_str());
  EXPECT_EQ(cache.without_parameters(1, mangled), stripped) << "rehashing moved nothing";
  EXPECT_STREQ(stripped, "JavaCalls::call_helper");
  EXPECT_GT(cache.bytes(), 0u);
}

// What is wrong with a stripped name, or "": its brackets must balance, and no '(' may be left at
// the top level but those of "(anonymous namespace)" and of operator names.
std::string problem_with(std::string name) {
  for (size_t at; (at = name.find("(anonymous namespace)")) != std::string::npos;) name.erase(at, 21);
  static constexpr std::array<std::string_view, 12> kOperators = {"->*", "<=>", "<<=", ">>=", "()", "->",
                                                                  "<<",  ">>",  "<=",  ">=",  "<",  ">"};
  for (size_t at = 0; (at = name.find("operator", at)) != std::string::npos;) {
    at += 8;
    for (std::string_view op : kOperators) {
      if (std::string_view(name).substr(at, op.size()) == op) {
        name.erase(at, op.size());
        break;
      }
    }
  }
  std::string open;
  for (char c : name) {
    if (c == '(' && open.empty()) return "a '(' at the top level";
    if (c == '(' || c == '[' || c == '{' || c == '<') open.push_back(c);
    if (c == ')' || c == ']' || c == '}' || c == '>') {
      const char expected = c == ')' ? '(' : c == ']' ? '[' : c == '}' ? '{' : '<';
      if (open.empty() || open.back() != expected) return std::string("an unpaired '") + c + "'";
      open.pop_back();
    }
  }
  return open.empty() ? "" : "an unclosed '" + open.substr(open.size() - 1) + "'";
}

TEST(StripParameters, EveryFunctionSymbolOfLibjvm17) {
  if (access(testing::kLibjvm17, R_OK) != 0) GTEST_SKIP() << testing::kLibjvm17 << " is not installed";
  LoadedObject libjvm;
  libjvm.path = testing::kLibjvm17;
  std::string why;
  auto index = SymbolIndex::build(libjvm, SymbolIndexOptions{"/nonexistent-debug-root"}, &why);
  ASSERT_NE(index, nullptr) << why;
  size_t demangled = 0, failures = 0;
  const auto start = std::chrono::steady_clock::now();
  for (const FunctionSymbol& symbol : index->symbols()) {
    const std::optional<std::string> full = demangle(index->name(symbol));
    if (!full) continue;
    demangled++;
    const std::string stripped = strip_parameters(*full);
    std::string problem = stripped.empty() ? "empty" : problem_with(stripped);
    if (problem.empty() && strip_parameters(stripped) != stripped) problem = "not idempotent";
    if (problem.empty()) continue;
    if (++failures <= 20) ADD_FAILURE() << problem << ": " << *full << " -> " << stripped;
  }
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::printf("[ symbols  ] libjvm.so: %zu of %zu function names demangled and stripped in %.0f ms, %zu bad\n",
              demangled, index->symbols().size(), ms, failures);
  EXPECT_GT(demangled, 30000u);
  EXPECT_EQ(failures, 0u);
}

}  // namespace
}  // namespace jvmkit::native
