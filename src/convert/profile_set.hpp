// ProfileSet: the converter's samples, kept apart by event, each event's in a profile (the call
// tree every writer of the profiler reads, bounded as the profiler's is).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "convert/cell_collector.hpp"
#include "convert/samples.hpp"
#include "profiler/outputs/writers.hpp"
#include "profiler/recording/profile.hpp"

namespace jvmkit::convert {

class ProfileSet {
 public:
  // REVERSE: the leaf frames are the roots (a callee-first tree). SPLIT_THREADS: a root frame per
  // thread, "[name tid=N]", as the profiler's threads option makes. CELLS: keep the samples' times
  // for the HTML page's time view (CellCollector).
  ProfileSet(bool reverse, bool split_threads, bool cells = false)
      : reverse_(reverse), split_threads_(split_threads), cells_(cells) {}

  void add(const Sample& sample);

  // The events' profiles, in the order their first samples came, for the writers. TOTAL: weights
  // (ns, bytes) rather than counts. With cells, each points to its event's (valid while this set
  // lives).
  std::vector<prof::EventProfile> event_profiles(bool total);
  // Whether some event has samples in time.
  bool has_cells() const;
  // The samples added, all events (after event_profiles()).
  int64_t samples() const;
  int64_t first_ns() const { return first_ns_; }
  int64_t last_ns() const { return last_ns_; }

 private:
  struct CacheKey {
    uint64_t stack_id;
    int64_t thread;
    const char* leaf_class;
    bool operator==(const CacheKey&) const = default;
  };
  struct CacheKeyHash {
    size_t operator()(const CacheKey& k) const {
      return static_cast<size_t>((k.stack_id * 0x9E3779B97F4A7C15ull) ^ static_cast<uint64_t>(k.thread) * 31 ^
                                 reinterpret_cast<uintptr_t>(k.leaf_class));
    }
  };
  struct Event {
    std::string name;
    prof::Profile profile;
    std::unordered_map<std::string, uint32_t> methods;
    int64_t interval = 0;  // the weight of one sample, when the input says (a recording's period)
    CellCollector cells;
    prof::TimeCells finished;  // cells.finish(), for the writers
    // The node of each (stack id, thread, leaf class) of the current stack epoch: a recording's
    // samples of one stack in one chunk are counted without walking their frames again.
    std::unordered_map<CacheKey, uint32_t, CacheKeyHash> nodes;
    uint64_t epoch = 0;
    // Samples counted at a node but not yet along its path (count, weight), by node: a node's
    // ancestors are walked once per conversion, not once per sample (flush()).
    std::vector<std::pair<int64_t, int64_t>> pending;
    void flush();
  };
  uint32_t node_of(Event& e, const Sample& s, int64_t weight);
  Event& event(std::string_view name);
  uint32_t method(Event& e, std::string_view name);

  const bool reverse_;
  const bool split_threads_;
  const bool cells_;
  std::vector<std::unique_ptr<Event>> events_;
  std::vector<prof::Frame> frames_;
  std::string key_;
  int64_t first_ns_ = 0;
  int64_t last_ns_ = 0;
};

}  // namespace jvmkit::convert
