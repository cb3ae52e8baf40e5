// LabelSets: the request-context labels of the program (org.jvmkit.JvmkitContext), interned.
//
// A label is a (key, value) pair of strings ("endpoint", "/checkout"); a label set is what a thread
// carries at one moment: the labels of its open scopes, the outermost first, a key at most once.
// The Java side asks for an id the first time it sees a label or a set (intern_label, intern_set)
// and caches it; from then on a thread publishes only a set's id (context_slots.hpp), and the
// samples carry that id to the writers, which ask for the set's labels (labels_of) off the sample
// path. Ids are never reused, so an id the Java side cached stays valid for the life of the process.
//
// Bounded: past kMaxLabels labels, kMaxSets sets or kMaxBytes of strings, intern_* answer 0
// ("not interned": the thread keeps its enclosing set) and count the refusal.
//
// Thread-safe: one mutex. Interning is off the hot path (once per distinct label and set).
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace jvmkit::prof {

struct Label {
  std::string key;
  std::string value;
  bool operator==(const Label& o) const { return key == o.key && value == o.value; }
};

// "endpoint=/checkout,tenant=acme": a set's labels as one text (the collapsed root frame, JFR's
// contextLabels). Keys and values are written as given.
std::string labels_text(const std::vector<Label>& labels);

class LabelSets {
 public:
  static constexpr uint32_t kEmptySet = 0;  // the set of a thread without labels
  static constexpr size_t kMaxLabels = 1 << 16;
  static constexpr size_t kMaxSets = 1 << 16;
  static constexpr size_t kMaxBytes = size_t{16} << 20;

  LabelSets();

  // The id (>= 1) of the label (KEY, VALUE); 0 when the table is full.
  uint32_t intern_label(std::string_view key, std::string_view value);
  // The id of PARENT's labels with LABEL added, or with LABEL's value in place of the one PARENT
  // has for its key (the key keeps its place); 0 when PARENT or LABEL is unknown or the table is
  // full. PARENT kEmptySet: the set of LABEL alone.
  uint32_t intern_set(uint32_t parent, uint32_t label);

  // The labels of SET, the outermost first; empty for kEmptySet or an unknown id.
  std::vector<Label> labels_of(uint32_t set) const;

  struct Counts {
    size_t labels = 0;
    size_t sets = 0;  // kEmptySet not counted
    size_t bytes = 0;
    int64_t refused = 0;  // intern_* calls answered 0 because a limit was reached
  };
  Counts counts() const;

 private:
  struct PairHash {
    size_t operator()(const std::pair<uint32_t, uint32_t>& p) const {
      return std::hash<uint64_t>()(uint64_t{p.first} << 32 | p.second);
    }
  };

  mutable std::mutex mutex_;
  std::vector<Label> labels_{Label{}};                                             // labels_[0]: unused, ids start at 1
  std::unordered_map<std::string, uint32_t> label_ids_;                            // key '\0' value -> id
  std::vector<std::vector<uint32_t>> sets_{{}};                                    // sets_[0]: the empty set
  std::unordered_map<std::pair<uint32_t, uint32_t>, uint32_t, PairHash> set_ids_;  // (parent, label) -> id
  std::unordered_map<std::string, uint32_t> set_by_content_;                       // the label ids as bytes -> id
  size_t bytes_ = 0;
  int64_t refused_ = 0;
};

// The process's label sets: the agent's natives intern into it, the Recording reads it.
LabelSets& process_label_sets();

}  // namespace jvmkit::prof
