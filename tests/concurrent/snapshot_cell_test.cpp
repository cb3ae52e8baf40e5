// SnapshotCell: a reader inside keeps retired snapshots alive; concurrent readers never see a
// freed or half-built snapshot (ASan/TSan builds run the stress test too).
#include "concurrent/snapshot_cell.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace {

struct Payload {
  explicit Payload(long v) : value(v), check(~v) {}
  ~Payload() { check = 0; }
  long value;
  long check;
};

TEST(SnapshotCell, EmptyBeforeFirstPublish) {
  jvmkit::SnapshotCell<Payload> cell;
  jvmkit::SnapshotCell<Payload>::Reader r(cell);
  EXPECT_EQ(r.get(), nullptr);
}

TEST(SnapshotCell, ReaderInsideKeepsRetiredSnapshotAlive) {
  jvmkit::SnapshotCell<Payload> cell;
  cell.publish(std::make_unique<Payload>(1));
  {
    jvmkit::SnapshotCell<Payload>::Reader r(cell);
    const Payload* seen = r.get();
    ASSERT_NE(seen, nullptr);
    cell.publish(std::make_unique<Payload>(2));
    EXPECT_EQ(cell.retired(), 1u);  // the reader may still hold it
    EXPECT_EQ(seen->value, 1);
    EXPECT_EQ(seen->check, ~1L);
    EXPECT_EQ(cell.reclaim(), 1u);
  }
  EXPECT_EQ(cell.reclaim(), 0u);
  jvmkit::SnapshotCell<Payload>::Reader r(cell);
  EXPECT_EQ(r.get()->value, 2);
}

TEST(SnapshotCell, ConcurrentReadersSeeWholeSnapshots) {
  jvmkit::SnapshotCell<Payload> cell;
  cell.publish(std::make_unique<Payload>(0));
  std::atomic<bool> stop{false};
  std::atomic<long> bad{0}, reads{0};
  std::atomic<int> started{0};
  std::vector<std::thread> readers;
  for (int i = 0; i < 3; i++) {
    readers.emplace_back([&] {
      long last = 0;
      bool first = true;
      while (!stop.load(std::memory_order_relaxed)) {
        jvmkit::SnapshotCell<Payload>::Reader r(cell);
        const Payload* p = r.get();
        if (p->check != ~p->value || p->value < last) bad++;
        last = p->value;
        reads++;
        if (first) started++;
        first = false;
      }
    });
  }
  // On a loaded machine the readers may not run before the writer is done: publish only once each
  // has read, so that reads overlap publication.
  while (started.load() < 3) std::this_thread::yield();
  for (long v = 1; v <= 20000; v++) cell.publish(std::make_unique<Payload>(v));
  stop = true;
  for (auto& t : readers) t.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_GT(reads.load(), 0);
  EXPECT_EQ(cell.reclaim(), 0u);
}

}  // namespace
