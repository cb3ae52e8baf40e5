// check_layout: whether a recording keeps the rules of the format that readers other than the JDK's
// take for granted.
//
// The JDK's reader decodes every value by the chunk's metadata and forgives much. Other readers
// do not:
//   - async-profiler's converter (one.jfr.JfrReader) reads the pools of threads, classes, methods,
//     stacks and symbols, and the sample events, by position rather than by the metadata; it
//     decodes int fields with a 32-bit varint reader that knows no ninth byte; it finds a pool's
//     type only among the classes declared without a superType; it takes symbols in UTF-8 only
//     (string encoding 3, also when empty);
//   - JDK Mission Control's parser (org.openjdk.jmc.flightrecorder, parser/v1 TypeManager) refuses a
//     pool of a type the chunk does not declare (or declares as an event), a field of an undeclared
//     type, a numeric field kept in a pool; reads jdk.ActiveSetting's id as an event type that the
//     chunk must declare; and reads the integers as varints only when the chunk header's flags say
//     so (ChunkStructure).
// A reader that loses its place in a pool reads garbage from then on (async-profiler's failed with
// a NullPointerException in readConstants on a bytecode index of -1 written in nine bytes).
//
// The rules, checked in every chunk (the first problems found are listed, each with its byte):
//   header        the flags say the integers are compressed (JMC reads them as fixed-size
//                 numbers otherwise); the chunk has constant pools
//   declarations  every field's type is declared (the metadata parses); no numeric field is pooled;
//                 the types read by position have the fields in the order those readers expect
//   pools         each pool's type is declared without a superType, has fields (or is a string)
//                 and its entries fill the constant-pool event exactly; symbols are UTF-8 strings
//   values        an int (short, char) takes at most five bytes and fits 32 bits; a boolean is 0
//                 or 1; a string has a known encoding; a frame's type key is one byte; every key
//                 a value refers to is in the chunk's pools (or 0, null)
//   events        each event's type is declared as an event and its fields fill its size exactly;
//                 jdk.ActiveSetting's id is an event type of the chunk
//
// It holds the whole file in memory: it is meant for tests and for checking a recording by hand
// (tests/jfr: jfr_layout_check FILE...).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.hpp"

namespace jvmkit::jfr {

struct LayoutReport {
  static constexpr size_t kMaxProblems = 20;  // the rest are counted, not listed

  int64_t chunks = 0;
  int64_t pools = 0;    // constant pools: one type's entries in one constant-pool event
  int64_t entries = 0;  // pool entries
  int64_t events = 0;   // events besides metadata and constant pools
  int64_t problem_count = 0;
  std::vector<std::string> problems;  // "chunk 2 at byte 5120: <what>"

  bool ok() const { return problem_count == 0; }
};

// Checks the chunks of BYTES (a whole recording) into REPORT.
void check_layout(std::string_view bytes, LayoutReport* report);

// Checks the recording at PATH; an Error when it cannot be read at all.
Error check_layout_file(const std::string& path, LayoutReport* report);

}  // namespace jvmkit::jfr
