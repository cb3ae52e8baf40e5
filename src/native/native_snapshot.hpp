// The process's unwind tables as one immutable snapshot: every loaded object with executable code,
// its rows (or why it has none), and a sorted array of its executable segments that a signal
// handler searches by PC. A NativePreparer builds snapshots off the signal path and publishes them
// through a SnapshotCell; readers (signal handlers included) take the current one without a lock.
//
// Signal context: NativeSnapshot::lookup and the Reader of NativeSnapshotCell only. Everything
// else allocates and calls libelf/libdw.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/signal_safe.hpp"
#include "concurrent/snapshot_cell.hpp"
#include "native/cfi_rows.hpp"
#include "native/loaded_objects.hpp"
#include "native/unwind_table.hpp"

namespace jvmkit::native {

// One loaded object and its compiled table. Immutable once built; snapshots share it, so a
// preparation reuses it for as long as the same build stays loaded at the same place.
struct PreparedObject {
  std::string path;  // as loaded_objects() names it ("[vdso]" for the vDSO)
  uintptr_t bias = 0;
  std::vector<uint8_t> build_id;  // of the image in memory
  std::vector<AddressRange> text;
  bool is_vdso = false;
  // Never unloaded while the process runs: the program, the vDSO, the C and C++ runtimes, libjvm
  // and the JDK's own libraries (its boot loader never unloads them). Code bytes of any other
  // object may be unmapped by dlclose before a newer snapshot drops it, so the signal side checks
  // that their pages are mapped before it reads them.
  bool stays_mapped = false;
  CfiError error = CfiError::kNone;  // kNone: the rows are the object's table
  std::string detail;                // with an error: what failed
  std::vector<UnwindRow> rows;
  std::vector<uint32_t> function_starts;  // the FDEs' starts (CompiledCfi::function_starts)
  std::vector<uint32_t> row_pages;        // the rows by page (UnwindModule::row_pages)
  uint32_t first_row_page = 0;
  CfiStats stats;

  bool prepared() const noexcept { return error == CfiError::kNone; }
};

class NativeSnapshot {
 public:
  // The modules are the executable segments of OBJECTS, sorted by address. An unprepared object's
  // segments are kept (so that its PCs read "unprepared", not "no module").
  explicit NativeSnapshot(std::vector<std::shared_ptr<const PreparedObject>> objects);

  // The row that holds PC, or why there is none. For a return address pass pc - 1.
  JVMKIT_SIGNAL_SAFE RowLookup lookup(uintptr_t pc) const noexcept {
    return lookup_row(modules_.data(), static_cast<uint32_t>(modules_.size()), pc);
  }

  JVMKIT_SIGNAL_SAFE const std::vector<UnwindModule>& modules() const noexcept { return modules_; }
  const std::vector<std::shared_ptr<const PreparedObject>>& objects() const noexcept { return objects_; }
  const PreparedObject& object_of(const UnwindModule& module) const noexcept { return *objects_[module.object]; }
  // The same, shared: for a cache that must tell whether the object it saw is still this one.
  std::shared_ptr<const PreparedObject> object_pointer(const UnwindModule& module) const {
    return objects_[module.object];
  }

 private:
  std::vector<std::shared_ptr<const PreparedObject>> objects_;
  std::vector<UnwindModule> modules_;  // sorted by text_start, not overlapping
};

// Where signal code reads the current snapshot (SnapshotCell's Reader: no lock, no allocation).
using NativeSnapshotCell = SnapshotCell<NativeSnapshot>;

// What one NativePreparer::update did.
struct PrepareSummary {
  uint32_t objects = 0;   // in the published snapshot
  uint32_t reused = 0;    // taken over from the previous snapshot
  uint32_t prepared = 0;  // compiled now, with a table
  uint32_t failed = 0;    // compiled now, without a table (see PreparedObject::error)
  uint32_t dropped = 0;   // in the previous snapshot but no longer loaded
  uint64_t ns = 0;        // the update's time
};

// Builds and publishes snapshots. One thread drives it (a watcher that calls update when
// load_generation() changes): libelf and libdw handles are not thread-safe, and the cell has one
// writer. Readers of cell() may be on any thread, in signal handlers too.
class NativePreparer {
 public:
  NativePreparer() = default;
  NativePreparer(const NativePreparer&) = delete;
  NativePreparer& operator=(const NativePreparer&) = delete;

  // Makes OBJECTS (loaded_objects()'s answer) the current snapshot: reuses the tables of objects
  // already prepared (same path, bias and build-id, whether they succeeded or failed), compiles
  // the new ones, leaves out those no longer listed, then publishes.
  PrepareSummary update(const std::vector<LoadedObject>& objects);

  const NativeSnapshotCell& cell() const noexcept { return cell_; }
  // The current snapshot, for the preparing thread (others read through a Reader).
  const NativeSnapshot* current() const noexcept { return cell_.current(); }
  // Frees retired snapshots no reader holds; returns how many still wait.
  size_t reclaim() { return cell_.reclaim(); }

 private:
  NativeSnapshotCell cell_;
};

// The page index of ROWS (sorted by start; UnwindModule::row_pages), and its first page in
// *FIRST_PAGE; empty for no rows.
std::vector<uint32_t> row_pages(std::span<const UnwindRow> rows, uint32_t* first_page);

// Compiles the table of one loaded object: its file (checked against the build-id in memory),
// or, for the vDSO, its image in memory. Never fails by exception; see PreparedObject::error.
std::shared_ptr<const PreparedObject> prepare_object(const LoadedObject& object, bool stays_mapped = false);

// Whether OBJECT is never unloaded (PreparedObject::stays_mapped); JDK_LIB is the JDK's lib/
// directory with links resolved ("/usr/lib/jvm/java-17-openjdk-amd64/lib/"), or empty when libjvm
// is not loaded.
bool stays_mapped(const LoadedObject& object, const std::string& jdk_lib);
// stays_mapped for each of OBJECTS, and also true for every object one of those needs (DT_NEEDED,
// by soname or file name), and so on.
std::vector<bool> stays_mapped_closure(const std::vector<LoadedObject>& objects, const std::string& jdk_lib);

// The vDSO's image in memory (its ELF header, program and section headers and everything they
// cover), or an empty span when the kernel maps none.
std::span<const uint8_t> vdso_image();

}  // namespace jvmkit::native
