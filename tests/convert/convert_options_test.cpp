#include "convert/convert_options.hpp"

#include <gtest/gtest.h>

namespace jvmkit::convert {
namespace {

std::string error_of(std::vector<std::string> args) {
  ConvertOptions o;
  Error e = parse_convert_options(args, &o);
  return e ? e.message() : "";
}

ConvertOptions parsed(std::vector<std::string> args) {
  ConvertOptions o;
  Error e = parse_convert_options(args, &o);
  EXPECT_FALSE(e) << e.message();
  return o;
}

TEST(ConvertOptions, FormatFromTheOutputsExtension) {
  EXPECT_EQ(parsed({"in.jfr", "-o", "out.html"}).format, prof::OutputFormat::kHtml);
  EXPECT_EQ(parsed({"in.jfr", "-o", "out.collapsed"}).format, prof::OutputFormat::kCollapsed);
  EXPECT_EQ(parsed({"in.jfr", "-o", "out.pb.gz"}).format, prof::OutputFormat::kPprof);
  EXPECT_EQ(parsed({"in.jfr", "-o", "out.heatmap.html"}).kind, OutputKind::kHeatmap);
  EXPECT_EQ(parsed({"in.jfr", "--output=x.txt", "-f", "heatmap"}).kind, OutputKind::kHeatmap);
  EXPECT_EQ(parsed({"in.jfr", "-o", "x.html", "--format", "pprof"}).format, prof::OutputFormat::kPprof);
}

TEST(ConvertOptions, EveryOption) {
  ConvertOptions o = parsed({"in.jfr", "-o", "out.html", "--from", "2.5s", "--to=11:10:20", "--threads", "worker-.*",
                             "--event", "alloc", "--include", "Foo", "--include=Bar", "--exclude", "Baz", "--reverse",
                             "--total", "--split-threads", "-a"});
  EXPECT_EQ(o.input, "in.jfr");
  ASSERT_TRUE(o.from && o.to);
  EXPECT_TRUE(o.from->relative);
  EXPECT_EQ(o.from->ns, 2'500'000'000);
  EXPECT_FALSE(o.to->relative);
  EXPECT_TRUE(o.to->time_of_day);
  EXPECT_EQ(o.threads, "worker-.*");
  EXPECT_EQ(o.event, "alloc");
  EXPECT_EQ(o.include, (std::vector<std::string>{"Foo", "Bar"}));
  EXPECT_EQ(o.exclude, (std::vector<std::string>{"Baz"}));
  EXPECT_TRUE(o.reverse && o.total && o.threads_split && o.annotate);
}

TEST(ConvertOptions, ErrorsNameTheOption) {
  EXPECT_EQ(error_of({"in.jfr"}), "convert: needs -o OUTPUT");
  EXPECT_EQ(error_of({"-o", "x.html"}), "convert: needs an input file (a .jfr recording or collapsed stacks)");
  EXPECT_EQ(error_of({"a", "b", "-o", "x.html"}), "convert: one input file, not 2");
  EXPECT_EQ(error_of({"in", "-o", "x.html", "--from", "soon"}),
            "--from=soon: not a time (seconds from the recording's first event: 10, 2.5s, 500ms, 1m; or a UTC "
            "time: 11:10:20, 2026-12-05T11:10:20Z)");
  EXPECT_EQ(error_of({"in", "-o", "x.html", "--to"}), "--to: needs a value");
  EXPECT_EQ(error_of({"in", "-o", "x.html", "--include", "("}).rfind("--include=(: not a regular expression", 0), 0u);
  EXPECT_EQ(error_of({"in", "-o", "x.html", "--threads=[a"}).rfind("--threads=[a: not a regular expression", 0), 0u);
  EXPECT_EQ(error_of({"in", "-o", "x.html", "-f", "svg"}),
            "-f=svg: unknown format (use collapsed, html, pprof or heatmap)");
  EXPECT_EQ(error_of({"in", "-o", "x.html", "--bogus"}), "--bogus: unknown option of convert (see jvmkit --help)");
  EXPECT_EQ(error_of({"in", "-o", "x.html", "--reverse=yes"}), "--reverse=yes: takes no value");
  EXPECT_EQ(error_of({"in", "-o", "x.jfr"}), "-o x.jfr: convert writes collapsed, html, pprof or a heatmap, not jfr");
  EXPECT_EQ(error_of({"in", "-o", "x.html", "--from", "10", "--to", "5"}),
            "--from/--to: the range is empty (--from is not before --to)");
}

TEST(ConvertOptions, TimePoints) {
  TimePoint t;
  ASSERT_FALSE(parse_time_point("10", &t));
  EXPECT_EQ(t.resolve(1'000), 10'000'001'000);
  ASSERT_FALSE(parse_time_point("500ms", &t));
  EXPECT_EQ(t.ns, 500'000'000);
  ASSERT_FALSE(parse_time_point("1m", &t));
  EXPECT_EQ(t.ns, 60'000'000'000);
  ASSERT_FALSE(parse_time_point("2026-12-05T11:10:20.25Z", &t));
  EXPECT_FALSE(t.relative);
  EXPECT_EQ(t.resolve(0), 1'796'469'020'250'000'000);
  // A time of day is on the date of the first sample (UTC).
  ASSERT_FALSE(parse_time_point("11:10:20", &t));
  EXPECT_EQ(t.resolve(1'796'469'000'000'000'000), 1'796'469'020'000'000'000);
  EXPECT_TRUE(parse_time_point("25:00:00", &t));
  EXPECT_TRUE(parse_time_point("-5", &t));
}

}  // namespace
}  // namespace jvmkit::convert
