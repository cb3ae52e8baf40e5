#include "native/symbol_index.hpp"

#include <elf.h>

#include <algorithm>
#include <bit>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <utility>

#include "native/debuginfo.hpp"

namespace jvmkit::native {
namespace {

// FunctionSymbol::name has 30 bits.
constexpr size_t kMaxNameBytes = size_t{1} << 30;
// Bytes per name reserved up front: C++ libraries' mangled names average 40-60.
constexpr size_t kNameBytesGuess = 48;

struct Candidate {
  uint64_t start;
  uint64_t size;
  uint32_t name;  // in the builder's arena
  uint8_t binding;
  bool old_version;  // named "f@VERSION": a compatibility alias, not the default "f@@VERSION"
  SymbolSource source;
};

int binding_rank(uint8_t binding) {
  switch (binding) {
    case STB_GLOBAL:
      return 0;
    case STB_WEAK:
      return 1;
    case STB_LOCAL:
      return 2;
    default:
      return 3;
  }
}

size_t leading_underscores(const char* name) { return std::strspn(name, "_"); }

// Of two candidates at one start, whether A is the one to keep rather than B (see build()).
class KeepFirst {
 public:
  explicit KeepFirst(const std::vector<char>& names) : names_(names) {}

  bool operator()(const Candidate& a, const Candidate& b) const {
    if (binding_rank(a.binding) != binding_rank(b.binding)) return binding_rank(a.binding) < binding_rank(b.binding);
    if (a.old_version != b.old_version) return b.old_version;
    if (a.size != b.size) return a.size > b.size;
    const char* name_a = names_.data() + a.name;
    const char* name_b = names_.data() + b.name;
    if (leading_underscores(name_a) != leading_underscores(name_b)) {
      return leading_underscores(name_a) < leading_underscores(name_b);
    }
    return std::strcmp(name_a, name_b) < 0;
  }

 private:
  const std::vector<char>& names_;
};

// Sorts KEYS by their bits [LOW, LOW + BITS), keeping the order of keys equal there: a stable
// least-significant-digit radix sort. A comparison sort of libjvm's symbols spent most of its time
// in mispredicted branches.
void radix_sort_above(int low, int bits, std::vector<uint64_t>* keys) {
  constexpr int kDigitBits = 11;
  constexpr size_t kBuckets = size_t{1} << kDigitBits;
  std::vector<uint64_t> scratch(keys->size());
  std::vector<size_t> counts(kBuckets);
  for (int shift = low; shift < low + bits; shift += kDigitBits) {
    std::fill(counts.begin(), counts.end(), 0);
    for (uint64_t key : *keys) counts[(key >> shift) & (kBuckets - 1)]++;
    size_t position = 0;
    for (size_t& count : counts) position += std::exchange(count, position);
    for (uint64_t key : *keys) scratch[counts[(key >> shift) & (kBuckets - 1)]++] = key;
    keys->swap(scratch);
  }
}

// Sorts CANDIDATES by start. Candidates of one start keep no particular order.
void sort_by_start(std::vector<Candidate>* candidates) {
  // 8-byte keys, the start above the candidate's index (in table order, which the radix sort
  // keeps), sorted by start only. Any object's offsets fit.
  constexpr int kIndexBits = 24;
  const size_t n = candidates->size();
  const bool packable = n < (size_t{1} << kIndexBits) &&
                        std::all_of(candidates->begin(), candidates->end(),
                                    [](const Candidate& c) { return c.start < (uint64_t{1} << (64 - kIndexBits)); });
  if (!packable) {
    std::sort(candidates->begin(), candidates->end(),
              [](const Candidate& a, const Candidate& b) { return a.start < b.start; });
    return;
  }
  std::vector<uint64_t> keys(n);
  uint64_t highest = 0;
  for (size_t i = 0; i < n; i++) {
    keys[i] = ((*candidates)[i].start << kIndexBits) | i;
    highest = std::max(highest, (*candidates)[i].start);
  }
  radix_sort_above(kIndexBits, std::bit_width(highest), &keys);
  std::vector<Candidate> sorted(n);
  constexpr uint64_t kIndexMask = (uint64_t{1} << kIndexBits) - 1;
  for (size_t i = 0; i < n; i++) sorted[i] = (*candidates)[keys[i] & kIndexMask];
  candidates->swap(sorted);
}

// Collects the symbols libdwfl reads, each name copied into one arena.
struct Collector {
  std::vector<Candidate> candidates;
  std::vector<char> names;

  void add(const RawFunctionSymbol& raw) {
    // glibc's debug file keeps symbol versions in .symtab names ("pthread_create@@GLIBC_2.34",
    // "cfree@GLIBC_2.2.5"); a frame shows the function's name. No C or mangled name has an '@'.
    const size_t at = raw.name.find('@');
    const std::string_view name = raw.name.substr(0, at);
    const bool old_version = at != std::string_view::npos && raw.name.substr(at, 2) != "@@";
    // A function larger than 4 GiB or names beyond 1 GiB do not occur; such a symbol is dropped.
    if (name.empty() || raw.size > UINT32_MAX || names.size() + name.size() + 1 > kMaxNameBytes) return;
    candidates.push_back(
        Candidate{raw.start, raw.size, static_cast<uint32_t>(names.size()), raw.binding, old_version, raw.source});
    names.insert(names.end(), name.begin(), name.end());
    names.push_back('\0');
  }
};

}  // namespace

std::unique_ptr<SymbolIndex> SymbolIndex::build(const LoadedObject& object, const SymbolIndexOptions& options,
                                                std::string* why) {
  const std::string debuginfo_path =
      options.debuginfo_path.empty() ? debuginfo_path_from_environment() : options.debuginfo_path;
  Collector collector;
  FunctionSymbolsRead read;
  const Error error = read_function_symbols(
      object, debuginfo_path,
      [&collector, &read](const RawFunctionSymbol& raw) {
        // Room for the whole table at once: grown step by step, a large one (libjvm: 70,000
        // symbols) was copied over and over, most of the index's time in page faults and copies.
        if (collector.candidates.empty()) {
          collector.candidates.reserve(read.listed);
          collector.names.reserve(read.listed * kNameBytesGuess);
        }
        collector.add(raw);
      },
      &read);
  if (error) {
    *why = error.message();
    return nullptr;
  }

  std::unique_ptr<SymbolIndex> index(new SymbolIndex());
  index->path_ = object.path;
  index->debug_file_ = read.debug_file;
  index->symbols_read_ = collector.candidates.size();
  // Sorted by start alone, which compares integers only (libjvm: 70,000 symbols; comparing
  // names as well was most of the sort's time); each run of aliases at one start then keeps its
  // best, found by a scan of the run.
  std::vector<Candidate>& candidates = collector.candidates;
  sort_by_start(&candidates);
  const KeepFirst keep_first(collector.names);
  size_t distinct = 0;
  for (size_t i = 0; i < candidates.size(); i++) distinct += i == 0 || candidates[i - 1].start != candidates[i].start;
  index->symbols_.reserve(distinct);
  for (size_t run = 0; run < candidates.size();) {
    size_t best = run;
    size_t next = run + 1;
    for (; next < candidates.size() && candidates[next].start == candidates[run].start; next++) {
      if (keep_first(candidates[next], candidates[best])) best = next;
    }
    run = next;
    const Candidate& kept = candidates[best];
    FunctionSymbol symbol;
    symbol.start = kept.start;
    symbol.size = static_cast<uint32_t>(kept.size);
    symbol.name = kept.name;
    symbol.source = static_cast<uint32_t>(kept.source);
    index->symbols_.push_back(symbol);
    index->counts_[static_cast<size_t>(kept.source)]++;
  }
  // The arena as it is: the aliases' names stay in it unused (a few per cent), and so does the
  // tail of the room reserved up front. Copying it to its size was a second round of page faults
  // for megabytes (libjvm); the tail was never written, so for a large arena (its own mapping)
  // it takes address space, not memory.
  index->names_ = std::move(collector.names);
  return index;
}

const FunctionSymbol* SymbolIndex::find(uint64_t offset) const {
  auto after = std::upper_bound(symbols_.begin(), symbols_.end(), offset,
                                [](uint64_t value, const FunctionSymbol& symbol) { return value < symbol.start; });
  if (after == symbols_.begin()) return nullptr;
  const FunctionSymbol& before = *(after - 1);
  // Without the size check a static function missing from .dynsym would be named after the
  // exported one that precedes it.
  return before.covers(offset) ? &before : nullptr;
}

const char* SymbolIndex::demangled(const FunctionSymbol& symbol) const {
  return demangled_.demangled(key_of(symbol), name(symbol));
}

const char* SymbolIndex::function_name(const FunctionSymbol& symbol) const {
  return demangled_.without_parameters(key_of(symbol), name(symbol));
}

std::string fallback_name(std::string_view path, uint64_t pc_offset, std::optional<uint64_t> function_start) {
  char offset[24];
  std::snprintf(offset, sizeof(offset), "+0x%" PRIx64, function_start.value_or(pc_offset));
  return base_name(std::string(path)) + offset;
}

}  // namespace jvmkit::native
