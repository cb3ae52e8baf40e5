// The metadata event of a chunk: its element tree, read into the types and fields the reader
// decodes by (reader_format.hpp, Metadata).
#include <charconv>
#include <cstring>

#include "jfr/reader_format.hpp"

namespace jvmkit::jfr::reader {

namespace {

// A type's encoding when it has no fields: the primitives, by the names the JDK gives them.
Kind primitive_kind(std::string_view name) {
  if (name == "boolean" || name == "byte") return Kind::kByte;
  if (name == "int" || name == "long" || name == "short" || name == "char") return Kind::kVarint;
  if (name == "float") return Kind::kFloat;
  if (name == "double") return Kind::kDouble;
  if (name == "java.lang.String") return Kind::kString;
  return Kind::kNone;
}

Role role_of(std::string_view name) {
  static constexpr std::pair<std::string_view, Role> kRoles[] = {
      {"startTime", Role::kStartTime},
      {"duration", Role::kDuration},
      {"sampledThread", Role::kSampledThread},
      {"eventThread", Role::kEventThread},
      {"stackTrace", Role::kStackTrace},
      {"objectClass", Role::kObjectClass},
      {"monitorClass", Role::kObjectClass},
      {"parkedClass", Role::kObjectClass},
      {"weight", Role::kWeight},
      {"samples", Role::kSamples},
      {"event", Role::kEvent},
      {"id", Role::kId},
      {"name", Role::kName},
      {"value", Role::kValue},
      {"osName", Role::kOsName},
      {"osThreadId", Role::kOsThreadId},
      {"javaName", Role::kJavaName},
      {"javaThreadId", Role::kJavaThreadId},
      {"truncated", Role::kTruncated},
      {"frames", Role::kFrames},
      {"method", Role::kMethod},
      {"lineNumber", Role::kLineNumber},
      {"bytecodeIndex", Role::kBytecodeIndex},
      {"type", Role::kType},
      {"descriptor", Role::kDescriptor},
  };
  for (const auto& [n, role] : kRoles)
    if (n == name) return role;
  return Role::kOther;
}

bool parse_u64(std::string_view s, uint64_t* v) {
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *v);
  return ec == std::errc() && end == s.data() + s.size();
}

}  // namespace

// --- Metadata ---

namespace {

// Where an element of the metadata's tree is, which says what it describes.
enum Place { kTop, kRoot, kMetadataList, kClass, kFieldElement, kElsewhere };

}  // namespace

bool Metadata::element(Cursor& c, std::span<const std::string_view> strings, int depth, int parent) {
  if (depth > 8) {
    c.fail("metadata elements nested too deep");
    return false;
  }
  auto text = [&](uint64_t index) -> std::string_view {
    if (index >= strings.size()) {
      c.fail("a metadata string index outside the string table");
      return {};
    }
    return strings[index];
  };
  const std::string_view name = text(c.varint());
  int place = kElsewhere;
  if (parent == kTop) place = kRoot;
  if (parent == kRoot && name == "metadata") place = kMetadataList;
  if (parent == kMetadataList && name == "class") place = kClass;
  if (parent == kClass && name == "field") place = kFieldElement;

  std::string_view attr_name, attr_id, attr_super, attr_class, attr_dimension;
  // simpleType is not looked at: a simple type's value is its one field's, whose text
  // text_value takes from any single-field type.
  bool pool = false;
  const uint64_t attributes = c.count();
  for (uint64_t i = 0; i < attributes && !c.failed(); i++) {
    const std::string_view key = text(c.varint());
    const std::string_view value = text(c.varint());
    if (key == "name") attr_name = value;
    if (key == "id") attr_id = value;
    if (key == "superType") attr_super = value;
    if (key == "class") attr_class = value;
    if (key == "dimension") attr_dimension = value;
    if (key == "constantPool") pool = true;
  }
  if (c.failed()) return false;

  if (place == kClass) {
    Type t;
    if (!parse_u64(attr_id, &t.id)) {
      c.fail("a metadata class without a numeric id");
      return false;
    }
    t.name = attr_name;
    t.first_field = static_cast<uint32_t>(fields_.size());
    t.event = attr_super == "jdk.jfr.Event";
    t.has_super_type = !attr_super.empty();
    t.setting = attr_name == "jdk.ActiveSetting";
    types_.push_back(t);
  } else if (place == kFieldElement) {
    Field f;
    uint64_t type_id = 0, dimension = 0;
    if (!parse_u64(attr_class, &type_id) || (!attr_dimension.empty() && !parse_u64(attr_dimension, &dimension)) ||
        dimension > 1) {
      c.fail("a metadata field without a type id or of more than one dimension");
      return false;
    }
    f.role = role_of(attr_name);
    f.pool = pool;
    f.array = dimension == 1;
    fields_.push_back(f);
    field_type_ids_.push_back(type_id);
  }

  const uint64_t children = c.count();
  for (uint64_t i = 0; i < children; i++)
    if (!element(c, strings, depth + 1, place)) return false;
  if (place == kClass) {
    Type& t = types_.back();
    t.field_count = static_cast<uint32_t>(fields_.size() - t.first_field);
  }
  return !c.failed();
}

bool Metadata::link(Cursor& c) {
  for (uint32_t i = 0; i < types_.size(); i++) {
    Type& t = types_[i];
    t.kind = t.field_count > 0 ? Kind::kComposite : primitive_kind(t.name);
    if (t.id < 4096) {
      if (small_.size() <= t.id) small_.resize(t.id + 1, kNoType);
      small_[t.id] = i;
    } else {
      large_[t.id] = i;
    }
  }
  for (size_t i = 0; i < fields_.size(); i++) {
    Field& f = fields_[i];
    f.type = find(field_type_ids_[i]);
    if (f.type == kNoType) {
      c.fail("a metadata field of an undeclared type", 0);
      return false;
    }
    f.kind = types_[f.type].kind;
    // As the JDK's reader, refuse a value that could not be read: neither a primitive nor fields.
    if (f.kind == Kind::kNone && !f.pool) {
      c.fail("a metadata field of a type that has no fields and is no primitive", 0);
      return false;
    }
  }
  return true;
}

namespace {

// Where the metadata id is in a metadata event: after its size, type id, start and duration.
size_t metadata_id_at(std::string_view event) {
  Cursor c(reinterpret_cast<const uint8_t*>(event.data()), 0, event.size());
  for (int i = 0; i < 4; i++) c.varint();
  return c.pos();
}

}  // namespace

bool Metadata::parsed_from(std::string_view event) const {
  return !bytes_.empty() && event.substr(metadata_id_at(event)) == std::string_view(bytes_).substr(types_at_);
}

bool Metadata::parse(std::string_view event, size_t* failed_at, const char** what) {
  bytes_.assign(event);
  arena_.clear();
  types_.clear();
  fields_.clear();
  field_type_ids_.clear();
  small_.clear();
  large_.clear();
  Cursor c(reinterpret_cast<const uint8_t*>(bytes_.data()), 0, bytes_.size());
  c.varint();  // size
  if (c.varint() != 0) c.fail("the header's metadata offset names another event", 0);
  c.varint();  // start
  c.varint();  // duration
  types_at_ = c.pos();
  c.varint();  // metadata id: the bytes themselves say whether the types changed
  std::vector<std::string_view> strings(c.count());
  for (std::string_view& s : strings) {
    uint64_t key = 0;
    if (read_string(c, arena_, &s, &key) == StringRead::kPoolKey) c.fail("a constant-pool string in the metadata");
  }
  if (!c.failed() && element(c, strings, 0, kTop)) link(c);
  field_type_ids_.clear();
  if (c.failed()) {
    *failed_at = c.failed_at();
    *what = c.what();
    bytes_.clear();
    return false;
  }
  return true;
}

}  // namespace jvmkit::jfr::reader
