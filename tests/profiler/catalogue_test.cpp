// The names that cross from the agent into the docs and the jvmkit tool (src/cli): every agent
// option in the catalogue (options.cpp) is in docs/profiler/options.md's option table; every one the tool
// sets from a flag has that flag in the tool's usage (src/cli/usage.txt) and reaches the agent when
// the tool is given it; every event is in the docs' event table and the usage; and neither lists
// one that the agent does not know. So the three cannot drift apart.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli/command_line.hpp"
#include "profiler/event_spec.hpp"
#include "profiler/options.hpp"

namespace jvmkit::prof {
namespace {

std::string read_source_file(const std::string& relative) {
  std::ifstream in(std::string(JVMKIT_SOURCE_DIR) + "/" + relative);
  EXPECT_TRUE(in.good()) << "cannot read " << relative;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The lines of TEXT after the first line that starts with HEADING, up to the next blank line
// that follows at least one non-blank line.
std::vector<std::string> section_lines(const std::string& text, const std::string& heading) {
  std::istringstream in(text);
  std::vector<std::string> out;
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    if (!inside) {
      inside = line.rfind(heading, 0) == 0;
      continue;
    }
    if (line.empty()) {
      if (!out.empty()) break;
      continue;
    }
    out.push_back(line);
  }
  return out;
}

// The first cells of a Markdown table's body rows (header and separator rows left out).
std::vector<std::string> first_cells(const std::vector<std::string>& table) {
  std::vector<std::string> cells;
  for (size_t i = 2; i < table.size(); i++) {
    const std::string& row = table[i];
    if (row.rfind("| ", 0) != 0) continue;
    cells.push_back(row.substr(2, row.find(" |", 2) - 2));
  }
  return cells;
}

// Every `quoted` word of TEXT. (Plain string search: std::regex trips g++ 12's
// -Wmaybe-uninitialized in the sanitizer builds.)
std::set<std::string> backquoted(const std::string& text) {
  std::set<std::string> out;
  size_t open = text.find('`');
  while (open != std::string::npos) {
    size_t close = text.find('`', open + 1);
    if (close == std::string::npos) break;
    out.insert(text.substr(open + 1, close - open - 1));
    open = text.find('`', close + 1);
  }
  return out;
}

// Whether TEXT has WORD as a whole word (not as part of a longer name such as cpu in cpu-clock).
bool has_word(const std::string& text, const std::string& word) {
  auto is_name_char = [](char c) { return (c >= 'a' && c <= 'z') || c == '-'; };
  for (size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) {
    size_t end = at + word.size();
    if ((at == 0 || !is_name_char(text[at - 1])) && (end == text.size() || !is_name_char(text[end]))) return true;
  }
  return false;
}

// The first table (its lines, header included) under the Markdown heading HEADING of the doc
// PATH (docs/profiler/options.md, docs/profiler/events.md); the prose before it is skipped.
std::vector<std::string> docs_table(const std::string& path, const std::string& heading) {
  std::vector<std::string> table;
  std::istringstream in(read_source_file(path));
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    if (!inside) {
      inside = line == heading;
      continue;
    }
    if (line.rfind("|", 0) == 0) {
      table.push_back(line);
    } else if (!table.empty()) {
      break;
    }
  }
  return table;
}

// The jvmkit tool's usage text (jvmkit --help), compiled into the tool from this file.
std::string launcher_usage() { return read_source_file("src/cli/usage.txt"); }

// The flags the usage lists for "profile", e.g. "-e, --event" or "--loop": the lines that start
// with "  -x, --name" or "  --name".
std::set<std::string> launcher_flags() {
  std::set<std::string> flags;
  for (const std::string& line : section_lines(launcher_usage(), "Options of \"profile\"")) {
    if (line.rfind("  --", 0) == 0) {
      flags.insert(line.substr(2, line.find(' ', 4) - 2));
    } else if (line.rfind("  -", 0) == 0 && line.compare(4, 4, ", --") == 0) {
      flags.insert(line.substr(2, line.find(' ', 8) - 2));
    }
  }
  return flags;
}

// The flags of LAUNCHER_FLAGS one by one: "-e, --event" -> "-e", "--event".
std::vector<std::string> each_flag(std::string_view launcher_flags) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < launcher_flags.size()) {
    size_t end = launcher_flags.find(", ", start);
    if (end == std::string_view::npos) end = launcher_flags.size();
    out.emplace_back(launcher_flags.substr(start, end - start));
    start = end + 2;
  }
  return out;
}

// A value the tool accepts for the option KEY (the agent checks the rest).
std::string sample_value(std::string_view key) {
  if (key == "event") return "wall";
  if (key == "format") return "pprof";
  if (key == "file") return "out.collapsed";
  if (key == "loop") return "2s";
  if (key == "alloc") return "64k";
  if (key == "lock") return "1ms";
  if (key == "cstack") return "native";
  if (key == "threads") return "carrier";
  return "7";
}

// Whether the comma-separated LIST has ITEM.
bool has_item(const std::string& list, const std::string& item) {
  return ("," + list + ",").find("," + item + ",") != std::string::npos;
}

TEST(Catalogue, EveryOptionIsInTheDocsAndEveryDocumentedOptionExists) {
  std::set<std::string> expected;
  for (const OptionSpec& o : option_specs()) {
    std::string form(o.key);
    if (o.takes_value()) {
      form += o.value_optional ? "[=" + std::string(o.value_name) + "]" : "=" + std::string(o.value_name);
    }
    expected.insert(form);
  }
  // A row may document several options alike: `start`, `stop`, `dump`, `status`.
  std::set<std::string> documented;
  for (const std::string& cell : first_cells(docs_table("docs/profiler/options.md", "# Agent options"))) {
    for (const std::string& form : backquoted(cell)) documented.insert(form);
  }
  EXPECT_EQ(documented, expected) << "docs/profiler/options.md's option table and the option catalogue differ";
}

TEST(Catalogue, EveryOptionHasALauncherFlagAndEveryLauncherFlagAnOption) {
  std::set<std::string> expected = {"-h, --help", "-d, --duration"};  // the tool's own
  for (const OptionSpec& o : option_specs()) {
    // The actions and reply= are set by the tool itself, from its command word.
    if (!o.launcher_flags.empty()) expected.insert(std::string(o.launcher_flags));
  }
  EXPECT_EQ(launcher_flags(), expected) << "the jvmkit tool's usage and the option catalogue differ";
}

// The ways FLAG can give option O on the command line: the arguments after the flag's own, and the
// item the agent's option list then holds. An option whose value is optional may have a flag that
// takes no value, or one written into the same argument (--threads=carrier).
std::vector<std::pair<std::vector<std::string>, std::string>> flag_forms(const OptionSpec& o, const std::string& flag) {
  const std::string key(o.key);
  const std::string value = sample_value(key);
  cli::CommandLine probe;
  const std::vector<std::string> alone{"profile", flag, "--", "java"};
  const bool bare = o.value_optional && !cli::parse_command_line(alone, &probe);
  if (!o.takes_value() || bare) {
    std::vector<std::pair<std::vector<std::string>, std::string>> forms{{{flag}, key}};
    if (bare && flag.rfind("--", 0) == 0) forms.push_back({{flag + "=" + value}, key + "=" + value});
    return forms;
  }
  return {{{flag, value}, key == "file" ? "file=/w/" + value : key + "=" + value}};
}

TEST(Catalogue, TheToolPassesEveryOptionToTheAgent) {
  for (const OptionSpec& o : option_specs()) {
    if (o.launcher_flags.empty()) continue;
    const std::string key(o.key);
    const std::string value = sample_value(key);
    for (const std::string& flag : each_flag(o.launcher_flags)) {
      for (const auto& [given, item] : flag_forms(o, flag)) {
        // Launch mode: -agentpath:...=<list>.
        std::vector<std::string> args{"profile"};
        args.insert(args.end(), given.begin(), given.end());
        args.insert(args.end(), {"--", "java"});
        cli::CommandLine cl;
        Error e = cli::parse_command_line(args, &cl);
        ASSERT_FALSE(e) << "jvmkit profile " << given[0] << ": " << e.message();
        EXPECT_TRUE(has_item(cli::launch_options(cl, "/w"), item))
            << "jvmkit profile " << given[0] << " -- java: the agent's options lack " << item << ": "
            << cli::launch_options(cl, "/w");
        // Attached: start's list (its file= is the tool's choice of path, from -o).
        args = {"start"};
        args.insert(args.end(), given.begin(), given.end());
        args.push_back("4242");
        e = cli::parse_command_line(args, &cl);
        ASSERT_FALSE(e) << "jvmkit start " << given[0] << ": " << e.message();
        const std::string list = cli::join_options(cli::start_options(cl, cl.output));
        EXPECT_TRUE(has_item(list, key == "file" ? "file=" + value : item))
            << "jvmkit start " << given[0] << ": the agent's options lack " << key << ": " << list;
      }
    }
  }
}

TEST(Catalogue, EveryEventIsInTheDocsAndTheLauncherUsage) {
  std::set<std::string> known;
  for (const EventSpec& e : all_events()) known.insert(std::string(e.name));
  std::set<std::string> documented;
  for (const std::string& cell : first_cells(docs_table("docs/profiler/events.md", "# Events"))) {
    for (const std::string& name : backquoted(cell)) documented.insert(name);
  }
  EXPECT_EQ(documented, known) << "docs/profiler/events.md's event table and the event table differ";
  std::string usage = launcher_usage();
  for (const std::string& name : known) {
    EXPECT_TRUE(has_word(usage, name)) << "the launcher's usage does not list event " << name;
  }
}

TEST(Catalogue, MessagesListEveryName) {
  EXPECT_EQ(
      option_names(),
      "event, interval, file, format, threads, ann, labels, signal, loop, keep, chunktime, depth, max_stacks, alloc, "
      "lock, live, "
      "cstack, start, stop, dump, status, reply");
  std::string events;
  for (const EventSpec& e : all_events()) events += (events.empty() ? "" : ", ") + std::string(e.name);
  EXPECT_EQ(event_names(), events);
}

}  // namespace
}  // namespace jvmkit::prof
