// The constant-pool entries an event refers to, resolved once per chunk: strings, threads,
// classes, methods and stacks (reader_chunk.hpp).
#include <algorithm>
#include <cstring>

#include "jfr/reader_chunk.hpp"

namespace jvmkit::jfr::reader {

std::string_view Reader::text_field(const Field& f, Cursor& c, Arena& arena, int depth) {
  if (f.array) {
    reader::skip_field(md_, f, c, depth);
    return {};
  }
  if (f.pool) return pooled_text(f.type, c.varint(), arena, depth);
  return text_value(f.type, c, arena, depth);
}

// A string, or a type that wraps one (Symbol, FrameType, ThreadState): its one field.
std::string_view Reader::text_value(uint32_t type, Cursor& c, Arena& arena, int depth) {
  if (depth > reader::kMaxDepth) {
    c.fail("values nested too deep");
    return {};
  }
  const Type& t = md_.type(type);
  if (t.kind == Kind::kString) {
    std::string_view text;
    uint64_t key = 0;
    if (reader::read_string(c, arena, &text, &key) == StringRead::kPoolKey)
      return pooled_text(type, key, arena, depth + 1);
    return text;
  }
  if (t.kind == Kind::kComposite && t.field_count == 1) return text_field(md_.fields(t)[0], c, arena, depth + 1);
  reader::skip_value(md_, type, c, depth);
  return {};
}

std::string_view Reader::pooled_text(uint32_t type, uint64_t key, Arena& arena, int depth) {
  const size_t at = pools_.find(type, key);
  if (at == PoolIndex::kNotFound) return {};
  Cursor c(data_, at, size_);
  const std::string_view text = text_value(type, c, arena, depth + 1);
  note(c);
  return text;
}

size_t Reader::thread(uint32_t type, uint64_t key) {
  if (const uint64_t* i = thread_keys_.find(type, key)) return *i;
  Cursor c(data_, 0, 0);
  if (!entry(type, key, &c)) return kNone;
  ReadThread t;
  std::string_view os_name, java_name;
  for (const Field& f : md_.fields(md_.type(type))) {
    switch (f.role) {
      case Role::kOsName:
        os_name = text_field(f, c, strings_, 0);
        break;
      case Role::kJavaName:
        java_name = text_field(f, c, strings_, 0);
        break;
      case Role::kOsThreadId:
        t.os_tid = int_field(f, c);
        break;
      case Role::kJavaThreadId:
        t.java_tid = int_field(f, c);
        break;
      default:
        reader::skip_field(md_, f, c, 0);
    }
  }
  note(c);
  t.name = java_name.empty() ? os_name : java_name;
  thread_keys_.put(type, key, threads_.size());
  threads_.push_back(t);
  return threads_.size() - 1;
}

std::string_view Reader::class_name(uint32_t type, uint64_t key) {
  if (const uint64_t* i = class_keys_.find(type, key)) return classes_[*i];
  Cursor c(data_, 0, 0);
  if (!entry(type, key, &c)) return {};
  std::string_view name;
  for (const Field& f : md_.fields(md_.type(type))) {
    if (f.role == Role::kName) {
      name = text_field(f, c, strings_, 0);
    } else {
      reader::skip_field(md_, f, c, 0);
    }
  }
  note(c);
  // The JVM names classes as its class files do, "java/lang/String"; Java names them with dots.
  if (name.find('/') != std::string_view::npos) {
    char* dotted = strings_.alloc(name.size());
    std::replace_copy(name.begin(), name.end(), dotted, '/', '.');
    name = {dotted, name.size()};
  }
  class_keys_.put(type, key, classes_.size());
  classes_.push_back(name);
  return name;
}

const Method* Reader::method(uint32_t type, uint64_t key) {
  if (const uint64_t* i = method_keys_.find(type, key)) return &methods_[*i];
  Cursor c(data_, 0, 0);
  if (!entry(type, key, &c)) return nullptr;
  Method m;
  for (const Field& f : md_.fields(md_.type(type))) {
    switch (f.role) {
      case Role::kType:
        if (f.pool && !f.array) {
          m.class_name = class_name(f.type, c.varint());
        } else {
          reader::skip_field(md_, f, c, 0);
        }
        break;
      case Role::kName:
        m.name = text_field(f, c, strings_, 0);
        break;
      case Role::kDescriptor:
        m.descriptor = text_field(f, c, strings_, 0);
        break;
      default:
        reader::skip_field(md_, f, c, 0);
    }
  }
  note(c);
  method_keys_.put(type, key, methods_.size());
  methods_.push_back(m);
  return &methods_.back();
}

void Reader::frame(uint32_t type, Cursor& c) {
  if (md_.type(type).kind != Kind::kComposite) {
    reader::skip_value(md_, type, c, 1);
    return;
  }
  ReadFrame fr;
  for (const Field& f : md_.fields(md_.type(type))) {
    switch (f.role) {
      case Role::kMethod:
        if (f.pool && !f.array) {
          if (const Method* m = method(f.type, c.varint())) {
            fr.class_name = m->class_name;
            fr.method = m->name;
            fr.descriptor = m->descriptor;
          }
        } else {
          reader::skip_field(md_, f, c, 1);
        }
        break;
      case Role::kLineNumber:
        fr.line = static_cast<int32_t>(int_field(f, c));
        break;
      case Role::kBytecodeIndex:
        fr.bci = static_cast<int32_t>(int_field(f, c));
        break;
      case Role::kType:
        fr.type = text_field(f, c, strings_, 1);
        break;
      default:
        reader::skip_field(md_, f, c, 1);
    }
  }
  frames_.push_back(fr);
}

size_t Reader::stack(uint32_t type, uint64_t key) {
  if (const uint64_t* i = stack_keys_.find(type, key)) return *i;
  Cursor c(data_, 0, 0);
  if (!entry(type, key, &c)) return kNone;
  Stack s{static_cast<uint32_t>(frames_.size()), 0, false};
  for (const Field& f : md_.fields(md_.type(type))) {
    if (f.role == Role::kTruncated) {
      s.truncated = int_field(f, c) != 0;
    } else if (f.role == Role::kFrames && f.array) {
      const uint64_t n = c.count();
      for (uint64_t i = 0; i < n && !c.failed(); i++) {
        Cursor pooled(data_, 0, 0);
        if (!f.pool) {
          frame(f.type, c);
        } else if (entry(f.type, c.varint(), &pooled)) {
          frame(f.type, pooled);
          note(pooled);
        }
      }
    } else {
      reader::skip_field(md_, f, c, 0);
    }
  }
  note(c);
  s.frame_count = static_cast<uint32_t>(frames_.size() - s.first_frame);
  stack_keys_.put(type, key, stacks_.size());
  stacks_.push_back(s);
  return stacks_.size() - 1;
}

}  // namespace jvmkit::jfr::reader
