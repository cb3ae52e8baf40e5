// Flight Recorder chunks made by hand, for tests of what reads them (src/jfr's layout check,
// src/convert's reading of recordings): a metadata event of any types, and a chunk of given events
// and pools around it. What jvmkit's ChunkWriter cannot write: other writers' types (async-profiler's,
// jvmkit's of earlier versions) and broken layouts.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "jfr/buffer.hpp"
#include "jfr/metadata.hpp"

namespace jvmkit::test {

constexpr int64_t kChunkStartNanos = 1'764'000'000'000'000'000;
constexpr int64_t kChunkStartTicks = 1'000'000;

// A type to declare: its fields (name, type id, a pool key or not, an array or not), no annotations.
struct DeclaredField {
  std::string name;
  uint64_t type;
  bool pool = false;
  bool array = false;
};
struct DeclaredType {
  uint64_t id;
  std::string name;
  std::string super_type;  // "jdk.jfr.Event" for an event type
  std::vector<DeclaredField> fields;
};

// A metadata event that declares TYPES.
inline std::string metadata_of(const std::vector<DeclaredType>& types) {
  std::vector<std::string> strings;
  auto index = [&](const std::string& s) {
    for (size_t i = 0; i < strings.size(); i++)
      if (strings[i] == s) return i;
    strings.push_back(s);
    return strings.size() - 1;
  };
  using Attributes = std::vector<std::pair<std::string, std::string>>;
  jfr::Buffer tree;
  auto element = [&](const std::string& name, const Attributes& attributes, size_t children) {
    tree.varint(index(name));
    tree.varint(attributes.size());
    for (const auto& [k, v] : attributes) {
      tree.varint(index(k));
      tree.varint(index(v));
    }
    tree.varint(children);
  };
  element("root", {}, 1);
  element("metadata", {}, types.size());
  for (const DeclaredType& t : types) {
    Attributes a = {{"name", t.name}, {"id", std::to_string(t.id)}};
    if (!t.super_type.empty()) a.emplace_back("superType", t.super_type);
    element("class", a, t.fields.size());
    for (const DeclaredField& f : t.fields) {
      Attributes fa = {{"name", f.name}, {"class", std::to_string(f.type)}};
      if (f.pool) fa.emplace_back("constantPool", "true");
      if (f.array) fa.emplace_back("dimension", "1");
      element("field", fa, 0);
    }
  }
  jfr::Buffer body;
  body.varint(jfr::kMetadataEvent);
  body.varint(kChunkStartTicks);
  body.varint(0);  // duration
  body.varint(1);  // metadata id
  body.varint(strings.size());
  for (const std::string& s : strings) body.string(s);
  body.append(tree.bytes());
  jfr::Buffer out;
  out.sized(body.bytes());
  return out.take();
}

// jvmkit's own types (metadata.hpp), without their annotations.
inline std::vector<DeclaredType> jvmkit_types() {
  std::vector<DeclaredType> out;
  for (const jfr::TypeDef& t : jfr::metadata_types()) {
    DeclaredType d{t.id, std::string(t.name), std::string(t.super_type), {}};
    for (const jfr::FieldDef& f : t.fields) d.fields.push_back({std::string(f.name), f.type, f.pool, f.array});
    out.push_back(std::move(d));
  }
  return out;
}

// jvmkit's own metadata event.
inline std::string jvmkit_metadata() {
  jfr::Buffer b;
  jfr::write_metadata_event(b, kChunkStartTicks);
  return b.take();
}

// An event of the bytes VALUES (its type id first), with its size before it.
inline jfr::Buffer sized_event(const jfr::Buffer& values) {
  jfr::Buffer out;
  out.sized(values.bytes());
  return out;
}

// A chunk: EVENTS (each sized), one constant-pool event of POOL_COUNT pools whose bytes (type id,
// count, entries...) are POOLS, then METADATA. Its ticks are nanoseconds from kChunkStartTicks.
inline std::string hand_chunk(const jfr::Buffer& events, size_t pool_count, const jfr::Buffer& pools,
                              const std::string& metadata = jvmkit_metadata()) {
  jfr::Buffer out;
  out.append(std::string_view("FLR\0", 4));
  out.raw16(2);
  out.raw16(0);
  for (int i = 0; i < 3; i++) out.raw64(0);  // size, pools, metadata: patched below
  out.raw64(kChunkStartNanos);
  out.raw64(1000);  // duration
  out.raw64(kChunkStartTicks);
  out.raw64(1'000'000'000);
  out.raw32(1);  // flags: compressed integers
  out.append(events.bytes());
  const size_t pools_at = out.size();
  jfr::Buffer cp;
  cp.varint(jfr::kConstantPoolEvent);
  cp.varint(kChunkStartTicks);
  cp.varint(0);
  cp.varint(0);  // no earlier constant-pool event
  cp.boolean(true);
  cp.varint(pool_count);
  cp.append(pools.bytes());
  out.sized(cp.bytes());
  const size_t metadata_at = out.size();
  out.append(metadata);
  out.patch_raw64(8, out.size());
  out.patch_raw64(16, pools_at);
  out.patch_raw64(24, metadata_at);
  return out.take();
}

}  // namespace jvmkit::test
