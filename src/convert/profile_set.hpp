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
#include "profiler/profile.hpp"
#include "profiler/writers.hpp"

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
  // The samples added, all events.
  int64_t samples() const;
  int64_t first_ns() const { return first_ns_; }
  int64_t last_ns() const { return last_ns_; }

 private:
  struct Event {
    std::string name;
    prof::Profile profile;
    std::unordered_map<std::string, uint32_t> methods;
    int64_t interval = 0;  // the weight of one sample, when the input says (a recording's period)
    CellCollector cells;
    prof::TimeCells finished;  // cells.finish(), for the writers
  };
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
