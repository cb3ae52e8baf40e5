// Native frames (cstack=native) in a profile: their names, their methods, and what each writer
// makes of them (collapsed with and without annotations, pprof's mappings decoded back, the HTML
// page's types and colours), and the report's native section.
#include "profiler/recording/native_frames.hpp"

#include <gtest/gtest.h>

#include <map>

#include "pprof_decode.hpp"
#include "profiler/outputs/writers.hpp"
#include "profiler/recording/native_report.hpp"
#include "profiler/recording/report.hpp"

namespace jvmkit::prof {
namespace {

constexpr const char* kLibz = "/usr/lib/x86_64-linux-gnu/libz.so.1";
constexpr const char* kLibzip = "/usr/lib/jvm/java-17-openjdk-amd64/lib/libzip.so";
constexpr const char* kLibjvm = "/usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so";

NativeFrameInfo code(const char* symbol, const char* library, int64_t offset = 0x4a26,
                     FrameType type = FrameType::kNativeCode) {
  NativeFrameInfo f;
  f.type = type;
  f.symbol = symbol;
  f.library = library;
  f.library_offset = offset;
  f.pc = 0x7f0000000000 + offset;
  return f;
}

NativeFrameInfo marker(size_t reason) {
  NativeFrameInfo f;
  f.type = FrameType::kSynthetic;
  f.marker = reason;
  return f;
}

TEST(NativeFrameNames, SymbolsLoseTheirParameterListsAndFilesAreTheObjectsNames) {
  const NativeFrameInfo call_helper =
      code("JavaCalls::call_helper(JavaValue*, methodHandle const&, JavaCallArguments*, JavaThread*)", kLibjvm,
           0x8a1b20, FrameType::kJvm);
  EXPECT_EQ(native_frame_name(call_helper), "JavaCalls::call_helper");
  EXPECT_EQ(native_frame_file(call_helper), "libjvm.so");
  EXPECT_EQ(native_frame_name(code("deflate", kLibz)), "deflate");
  EXPECT_EQ(native_frame_file(code("deflate", kLibz)), "libz.so.1");
  EXPECT_EQ(native_frame_name(code("std::vector<int, std::allocator<int> >::push_back(int const&)", kLibjvm)),
            "std::vector<int, std::allocator<int> >::push_back");
}

TEST(NativeFrameNames, WithoutASymbolTheObjectAndTheOffset) {
  EXPECT_EQ(native_frame_name(code(nullptr, kLibz, 0x4a26)), "libz.so.1+0x4a26");
  EXPECT_EQ(native_frame_name(code(nullptr, "[vdso]", 0x9d0)), "[vdso]+0x9d0");
  // A stub of HotSpot's without a name, and code of nothing known: no offset would mean anything.
  EXPECT_EQ(native_frame_name(code(nullptr, "[code cache]", 0, FrameType::kJvm)), "[code cache]");
  EXPECT_EQ(native_frame_name(code("StubRoutines::call_stub", "[code cache]", 0, FrameType::kJvm)),
            "StubRoutines::call_stub");
  EXPECT_EQ(native_frame_name(code(nullptr, "[unknown]", 0)), "[unknown]");
  EXPECT_EQ(native_frame_name(code(nullptr, nullptr, 0)), "[unknown]");
}

TEST(NativeFrameNames, KernelFramesByTheirSymbolElseOneName) {
  NativeFrameInfo kernel = code(nullptr, "[kernel.kallsyms]", 0, FrameType::kKernel);
  kernel.pc = static_cast<int64_t>(0xffffffff81a0b3c4ull);
  EXPECT_EQ(native_frame_name(kernel), "[kernel]");
  kernel.symbol = "do_syscall_64";
  EXPECT_EQ(native_frame_name(kernel), "do_syscall_64");
}

TEST(NativeFrameNames, AMarkerNamePerReason) {
  const std::vector<std::string> expected = {
      "[unprepared library]", "[unknown code]",  "[no unwind info]",  "[unsupported rule]", "[bad frame]",
      "[native depth]",       "[join mismatch]", "[no stack bounds]", "[java unwalkable]",  "[not captured]"};
  ASSERT_EQ(expected.size(), kMarkerReasons);
  for (size_t r = 0; r < kMarkerReasons; r++) {
    EXPECT_EQ(native_frame_name(marker(r)), expected[r]);
    EXPECT_EQ(native_frame_file(marker(r)), "");
  }
}

TEST(NativeMethods, OverloadsMergeObjectsStayApartMarkersOnce) {
  Profile p;
  NativeMethods methods(&p);
  // Two symbols (two strings of the library) that print the same without parameters.
  const std::string f_int = "Klass::f(int)", f_long = "Klass::f(long)";
  const uint32_t a = methods.method(code(f_int.c_str(), kLibjvm, 0x10, FrameType::kJvm));
  const uint32_t b = methods.method(code(f_long.c_str(), kLibjvm, 0x20, FrameType::kJvm));
  EXPECT_EQ(a, b);
  EXPECT_EQ(p.methods()[a].name, "Klass::f");
  EXPECT_EQ(p.methods()[a].file, "libjvm.so");
  EXPECT_EQ(p.objects()[p.methods()[a].object], kLibjvm);
  // The same name in another object is another function.
  EXPECT_NE(methods.method(code("deflate", kLibz)), methods.method(code("deflate", kLibzip)));
  // Without a symbol each offset is a name of its own; the same offset the same method.
  const uint32_t x = methods.method(code(nullptr, kLibz, 0x4a26));
  EXPECT_NE(x, methods.method(code(nullptr, kLibz, 0x4a0e)));
  EXPECT_EQ(x, methods.method(code(nullptr, kLibz, 0x4a26)));
  EXPECT_EQ(methods.method(marker(6)), methods.method(marker(6)));
  EXPECT_EQ(p.methods()[methods.method(marker(6))].name, "[join mismatch]");
  EXPECT_EQ(p.methods()[methods.method(marker(6))].object, 0u);
  // A new profile (a new window): the methods are made again, in it.
  Profile next;
  methods.reset(&next);
  EXPECT_EQ(next.methods()[methods.method(code("deflate", kLibz))].name, "deflate");
  EXPECT_EQ(next.objects().size(), 2u);
}

TEST(NativeMethods, AFullMethodTableGivesOverflowAndCachesNothing) {
  ProfileLimits limits;
  limits.max_methods = 1;
  Profile p(limits);
  NativeMethods methods(&p);
  const uint32_t first = methods.method(code("deflate", kLibz));
  EXPECT_FALSE(p.is_overflow_method(first));
  EXPECT_TRUE(p.is_overflow_method(methods.method(code("inflate", kLibz))));
  EXPECT_TRUE(p.is_overflow_method(methods.method(marker(2))));
  EXPECT_EQ(methods.method(code("deflate", kLibz)), first);
}

// Deflater.deflate in zlib, twice with deflate_slow above it (once without a symbol), and a
// compiler thread in the JVM down to its first frame, a kernel frame on top; a run that ended at
// a marker.
Profile native_profile() {
  Profile p;
  NativeMethods n(&p);
  const uint32_t main = p.add_method("app.Main.main", "Main.java");
  const uint32_t deflater = p.add_method("java.util.zip.Deflater.deflateBytesBytes", "Deflater.java");
  const Frame jni{n.method(code("Java_java_util_zip_Deflater_deflateBytesBytes", kLibzip, 0x5010)),
                  FrameType::kNativeCode, 0};
  const Frame deflate{n.method(code("deflate", kLibz, 0x4f00)), FrameType::kNativeCode, 0};
  const Frame slow{n.method(code("deflate_slow", kLibz, 0x5e03)), FrameType::kNativeCode, 0};
  const Frame unnamed{n.method(code(nullptr, kLibz, 0x4a26)), FrameType::kNativeCode, 0};
  const Frame java_main{main, FrameType::kInterpreted, 7};
  const Frame java_deflater{deflater, FrameType::kNative, 0};
  p.add_sample({slow, deflate, jni, java_deflater, java_main});
  p.add_sample({slow, deflate, jni, java_deflater, java_main});
  p.add_sample({unnamed, slow, deflate, jni, java_deflater, java_main});
  NativeFrameInfo syscall = code(nullptr, "[kernel.kallsyms]", 0, FrameType::kKernel);
  syscall.symbol = "do_syscall_64";
  const Frame kernel{n.method(syscall), FrameType::kKernel, 0};
  const Frame compile{n.method(code("C2Compiler::compile_method(ciEnv*, ciMethod*, int, bool, DirectiveSet*)", kLibjvm,
                                    0x6f0000, FrameType::kJvm)),
                      FrameType::kJvm, 0};
  const Frame start{n.method(code("start_thread", "/usr/lib/x86_64-linux-gnu/libc.so.6", 0x89134)),
                    FrameType::kNativeCode, 0};
  const Frame root{p.add_method("[C2 CompilerThre tid=12]", ""), FrameType::kThread, 0};
  p.add_sample({kernel, compile, start, root});
  p.add_sample({Frame{n.method(marker(2)), FrameType::kSynthetic, 0}, jni, java_deflater, java_main});
  return p;
}

TEST(NativeWriters, CollapsedNamesNativeFramesAndSuffixesOnlyTheKernel) {
  const Profile p = native_profile();
  EXPECT_EQ(collapsed_text(p, false),
            "[C2 CompilerThre tid=12];start_thread;C2Compiler::compile_method;do_syscall_64 1\n"
            "app.Main.main;java.util.zip.Deflater.deflateBytesBytes;Java_java_util_zip_Deflater_deflateBytesBytes;"
            "[no unwind info] 1\n"
            "app.Main.main;java.util.zip.Deflater.deflateBytesBytes;Java_java_util_zip_Deflater_deflateBytesBytes;"
            "deflate;deflate_slow 2\n"
            "app.Main.main;java.util.zip.Deflater.deflateBytesBytes;Java_java_util_zip_Deflater_deflateBytesBytes;"
            "deflate;deflate_slow;libz.so.1+0x4a26 1\n");
  // Annotated: C/C++ and JVM frames as they are (flamegraph.pl colours "::" names as C++), the
  // kernel's _[K] (async-profiler's _[k] is the class frames' here), markers as synthetic frames.
  EXPECT_EQ(collapsed_text(p, true),
            "[C2 CompilerThre tid=12];start_thread;C2Compiler::compile_method;do_syscall_64_[K] 1\n"
            "app.Main.main_[0];java.util.zip.Deflater.deflateBytesBytes_[n];"
            "Java_java_util_zip_Deflater_deflateBytesBytes;[no unwind info] 1\n"
            "app.Main.main_[0];java.util.zip.Deflater.deflateBytesBytes_[n];"
            "Java_java_util_zip_Deflater_deflateBytesBytes;deflate;deflate_slow 2\n"
            "app.Main.main_[0];java.util.zip.Deflater.deflateBytesBytes_[n];"
            "Java_java_util_zip_Deflater_deflateBytesBytes;deflate;deflate_slow;libz.so.1+0x4a26 1\n");
}

TEST(NativeWriters, PprofHasAMappingPerObjectAndItsFunctionsInIt) {
  RunInfo info;
  info.program = "app.Main";
  info.interval = 1'000'000;
  const std::vector<pprof_test::Field> fields =
      pprof_test::decode(pprof_test::gunzip(pprof_bytes(native_profile(), info)));
  std::vector<std::string> strings;
  for (const auto& f : fields) {
    if (f.number == 6) strings.push_back(f.bytes);
  }
  std::map<uint64_t, std::string> mappings;                           // id -> file name
  std::map<uint64_t, std::pair<std::string, std::string>> functions;  // id -> (name, file)
  std::map<std::string, uint64_t> mapping_of_function;                // function name -> mapping id
  std::map<uint64_t, uint64_t> function_of_location;
  std::map<uint64_t, uint64_t> mapping_of_location;
  for (const auto& f : fields) {
    if (f.number == 3) {
      uint64_t id = 0, file = 0, has_functions = 0;
      for (const auto& g : pprof_test::decode(f.bytes)) {
        if (g.number == 1) id = g.varint;
        if (g.number == 5) file = g.varint;
        if (g.number == 7) has_functions = g.varint;
      }
      mappings[id] = strings.at(file);
      EXPECT_EQ(has_functions, 1u) << strings.at(file) << ": named already, nothing to symbolize";
    } else if (f.number == 5) {
      uint64_t id = 0, name = 0, file = 0;
      for (const auto& g : pprof_test::decode(f.bytes)) {
        if (g.number == 1) id = g.varint;
        if (g.number == 2) name = g.varint;
        if (g.number == 4) file = g.varint;
      }
      functions[id] = {strings.at(name), strings.at(file)};
    } else if (f.number == 4) {
      uint64_t id = 0, mapping = 0, function = 0;
      for (const auto& g : pprof_test::decode(f.bytes)) {
        if (g.number == 1) id = g.varint;
        if (g.number == 2) mapping = g.varint;
        if (g.number == 4) {
          for (const auto& h : pprof_test::decode(g.bytes)) {
            if (h.number == 1) function = h.varint;
          }
        }
      }
      function_of_location[id] = function;
      mapping_of_location[id] = mapping;
    }
  }
  for (const auto& [location, function] : function_of_location) {
    const std::string& name = functions.at(function).first;
    EXPECT_TRUE(mapping_of_function.try_emplace(name, mapping_of_location[location]).first->second ==
                mapping_of_location[location])
        << name << " in two mappings";
  }
  EXPECT_EQ(mappings.at(1), "app.Main");  // the program first: pprof's tools name the profile after it
  auto mapping_name = [&](const std::string& function) { return mappings.at(mapping_of_function.at(function)); };
  EXPECT_EQ(mapping_name("app.Main.main"), "app.Main");
  EXPECT_EQ(mapping_name("[no unwind info]"), "app.Main");
  EXPECT_EQ(mapping_name("[C2 CompilerThre tid=12]"), "app.Main");
  EXPECT_EQ(mapping_name("deflate"), kLibz);
  EXPECT_EQ(mapping_name("libz.so.1+0x4a26"), kLibz);
  EXPECT_EQ(mapping_name("Java_java_util_zip_Deflater_deflateBytesBytes"), kLibzip);
  EXPECT_EQ(mapping_name("C2Compiler::compile_method"), kLibjvm);
  EXPECT_EQ(mapping_name("do_syscall_64"), "[kernel.kallsyms]");
  EXPECT_EQ(mappings.size(), 6u);  // the program, libz, libzip, libjvm, libc, the kernel
  std::map<std::string, std::string> file_of;
  for (const auto& [id, f] : functions) file_of[f.first] = f.second;
  EXPECT_EQ(file_of["deflate_slow"], "libz.so.1");
  EXPECT_EQ(file_of["C2Compiler::compile_method"], "libjvm.so");
  EXPECT_EQ(file_of["app.Main.main"], "Main.java");
}

TEST(NativeWriters, HtmlColoursAndNamesTheNativeTypes) {
  const std::string page = html_text(native_profile(), RunInfo());
  EXPECT_NE(page.find(".t7 { background: #e06666; }"), std::string::npos);
  EXPECT_NE(page.find(".t8 { background: #d9a441; }"), std::string::npos);
  EXPECT_NE(page.find(".t9 { background: #7f9cc9; }"), std::string::npos);
  EXPECT_NE(page.find("var TYPE_NAMES = [\"interpreted\", \"JIT compiled\", \"inlined\", \"native\", \"thread\", \"\", "
                      "\"class\", \"native code\", \"JVM\", \"kernel\"];"),
            std::string::npos);
  EXPECT_NE(page.find("<span class=\"t7\">native code</span><span class=\"t8\">JVM</span>"
                      "<span class=\"t9\">kernel</span></span>"),
            std::string::npos);
  EXPECT_EQ(page.find("/*NATIVE_"), std::string::npos);
  // The nodes carry their types: deflate (7) under the JNI function (7); the JVM's compile (8)
  // and the kernel (9); the marker grey like every synthetic frame (5).
  auto index_of = [&](const std::string& name) {
    const size_t names = page.find("\"names\":[");
    size_t at = names + 9;
    for (int i = 0;; i++) {
      const size_t end = page.find('"', at + 1);
      if (page.substr(at + 1, end - at - 1) == name) return i;
      at = page.find('"', end + 1);
      if (at == std::string::npos || at > page.find("],\"events\"")) return -1;
    }
  };
  for (auto [name, type] : std::vector<std::pair<std::string, int>>{
           {"deflate", 7}, {"C2Compiler::compile_method", 8}, {"do_syscall_64", 9}, {"[no unwind info]", 5}}) {
    const int id = index_of(name);
    ASSERT_GE(id, 0) << name;
    EXPECT_NE(page.find("[" + std::to_string(id) + "," + std::to_string(type) + ","), std::string::npos) << name;
  }
  // A page of Java frames only has none of it.
  Profile java;
  const uint32_t m = java.add_method("app.Main.main", "Main.java");
  java.add_sample({{m, FrameType::kJit, 1}});
  const std::string plain = html_text(java, RunInfo());
  EXPECT_EQ(plain.find(".t7"), std::string::npos);
  EXPECT_EQ(plain.find("native code"), std::string::npos);
  EXPECT_EQ(plain.find("/*NATIVE_"), std::string::npos);
}

TEST(NativeReport, TracesMarkersThreadKindsAndTables) {
  NativeFigures f;
  f.traces = 2000;
  f.with_native = 1900;
  f.native_only = 100;
  f.markers[6] = 10;  // join_mismatch
  f.markers[0] = 4;   // unprepared_library
  f.samples_by_kind = {1880, 90, 20, 10};
  f.objects_prepared = 27;
  f.unwind_rows = 312045;
  f.prepare_ns = 181'400'000;
  f.enable_ns = 190'000'000;
  std::array<std::string, kMarkerReasons> labels;
  for (size_t r = 0; r < kMarkerReasons; r++) labels[r] = "reason" + std::to_string(r);
  const std::vector<std::string> lines = native_report_lines(f, labels);
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[0], "native: 1900 of 2000 traces (95.0%) with native frames, 100 of them without Java frames");
  EXPECT_EQ(lines[1],
            "native: native parts ended short (markers): reason0 4 (0.2% of traces), reason6 10 (0.5% of traces)");
  EXPECT_EQ(lines[2],
            "native: samples by thread kind: Java threads 1880 (94.0%), compiler threads 90 (4.5%), GC threads 20 "
            "(1.0%), other VM threads 10 (0.5%)");
  EXPECT_EQ(lines[3], "native: no kernel frames: ");
  EXPECT_EQ(lines[4],
            "native: unwind tables of 27 objects (0 failed, 312045 rows), built in 181 ms; the start waited 190 ms");
  ReportInput in;
  in.native = lines;
  in.top = {{"deflate_slow", 700}};
  in.total_samples = 2000;
  const std::string text = report_text(in);
  EXPECT_LT(text.find("deflate_slow"), text.find("jvmkit profiler: native: 1900 of 2000"));
  EXPECT_EQ(native_report_lines(NativeFigures{}, labels)[1], "native: native parts ended short (markers): none");
}

TEST(NativeReport, KernelFramesTheirShareOrWhyNone) {
  std::array<std::string, kMarkerReasons> labels;
  NativeFigures f;
  f.traces = 2000;
  f.kernel_why_not = "perf_event_paranoid is 2: kernel call chains need root, CAP_PERFMON or perf_event_paranoid <= 1";
  EXPECT_EQ(native_report_lines(f, labels)[3], "native: no kernel frames: " + f.kernel_why_not);
  f.kernel_active = true;
  f.with_kernel = 500;
  f.kernel_unmatched = 3;
  EXPECT_EQ(native_report_lines(f, labels)[3],
            "native: kernel frames in 500 (25.0% of traces), from the perf events' call chains; 3 signals found no "
            "sample of their own (no kernel part)");
  f.kernel_threads_without_ring = 2;
  EXPECT_NE(native_report_lines(f, labels)[3].find("; 2 threads without them (no ring buffer could be mapped"),
            std::string::npos);
  f.kernel_unnamed_why = "/proc/kallsyms hides the kernel's addresses (kptr_restrict is 2)";
  EXPECT_EQ(native_report_lines(f, labels)[3].substr(native_report_lines(f, labels)[3].find("; UNNAMED")),
            "; UNNAMED: /proc/kallsyms hides the kernel's addresses (kptr_restrict is 2)");
}

}  // namespace
}  // namespace jvmkit::prof
