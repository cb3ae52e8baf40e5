// The chunk of the JDK's layout that jdk_like_chunk.hpp declares, written out byte by byte so that
// each byte's meaning can be read next to it.
#include "jdk_like_chunk.hpp"

#include <utility>

#include "reader_test_support.hpp"

namespace jvmkit::jfr::test {
namespace {

std::u16string ascii16(std::string_view s) { return std::u16string(s.begin(), s.end()); }

}  // namespace

std::string metadata_event(const std::vector<MType>& types) {
  std::vector<std::string> strings;
  auto index = [&](const std::string& s) {
    for (size_t i = 0; i < strings.size(); i++)
      if (strings[i] == s) return i;
    strings.push_back(s);
    return strings.size() - 1;
  };
  Buffer tree;
  using Attributes = std::vector<std::pair<std::string, std::string>>;
  auto element = [&](const std::string& name, const Attributes& attributes, size_t children) {
    tree.varint(index(name));
    tree.varint(attributes.size());
    for (const auto& [k, v] : attributes) {
      tree.varint(index(k));
      tree.varint(index(v));
    }
    tree.varint(children);
  };
  element("root", {}, 2);
  element("metadata", {}, types.size());
  for (const MType& t : types) {
    Attributes a = {{"name", t.name}, {"id", std::to_string(t.id)}};
    if (!t.super_type.empty()) a.emplace_back("superType", t.super_type);
    if (t.simple) a.emplace_back("simpleType", "true");
    element("class", a, t.fields.size() + 1);
    element("annotation", {{"class", "13"}, {"value", "a label"}}, 0);
    for (const MField& f : t.fields) {
      Attributes fa = {{"name", f.name}, {"class", std::to_string(f.type)}};
      if (f.pool) fa.emplace_back("constantPool", "true");
      if (f.array) fa.emplace_back("dimension", "1");
      element("field", fa, 1);
      element("annotation", {{"class", "13"}, {"value", "Label"}}, 0);
    }
  }
  element("region", {{"locale", "en_US"}, {"gmtOffset", "0"}}, 0);
  Buffer body;
  body.varint(0);
  body.varint(0);
  body.varint(0);
  body.varint(7);
  body.varint(strings.size());
  for (const std::string& s : strings) utf16_string(body, ascii16(s));
  body.append(tree.bytes());
  Buffer out;
  out.sized(body.bytes());
  return out.take();
}

void RawChunk::pools(size_t pools, const Buffer& entries) {
  const uint64_t at = 68 + body_.size();
  Buffer b;
  b.varint(1);
  b.varint(0);
  b.varint(0);
  b.varint_signed(last_pools_ == 0 ? 0 : static_cast<int64_t>(last_pools_) - static_cast<int64_t>(at));
  b.u8(0);
  b.varint(pools);
  b.append(entries.bytes());
  body_.sized(b.bytes());
  last_pools_ = at;
}

std::string RawChunk::finish(const std::string& metadata, int64_t start_ticks, int64_t ticks_per_second) {
  Buffer out;
  out.append(std::string_view("FLR\0", 4));
  out.raw16(2);
  out.raw16(1);
  out.raw64(68 + body_.size() + metadata.size());
  out.raw64(last_pools_);
  out.raw64(68 + body_.size());
  out.raw64(kStartNanos);
  out.raw64(0);
  out.raw64(static_cast<uint64_t>(start_ticks));
  out.raw64(static_cast<uint64_t>(ticks_per_second));
  out.raw32(0);
  out.append(body_.bytes());
  out.append(metadata);
  return out.take();
}

std::vector<MType> jdk_like_types() {
  return {
      {tBoolean, "boolean"},
      {tChar, "char"},
      {tFloat, "float"},
      {tDouble, "double"},
      {tByte, "byte"},
      {tShort, "short"},
      {tInt, "int"},
      {tLong, "long"},
      {tString, "java.lang.String"},
      {tGroup, "java.lang.ThreadGroup", "", false, {{"parent", tGroup, true}, {"name", tString}}},
      {tThread,
       "java.lang.Thread",
       "",
       false,
       {{"osName", tString},
        {"osThreadId", tLong},
        {"javaName", tString},
        {"javaThreadId", tLong},
        {"group", tGroup, true},
        {"virtual", tBoolean}}},
      {tSymbol, "jdk.types.Symbol", "", true, {{"string", tString}}},
      {tLoader, "jdk.types.ClassLoader", "", false, {{"type", tClass, true}, {"name", tSymbol, true}}},
      {tClass,
       "java.lang.Class",
       "",
       false,
       {{"classLoader", tLoader, true},
        {"name", tSymbol, true},
        {"package", tPackage, true},
        {"modifiers", tInt},
        {"hidden", tBoolean}}},
      {tPackage, "jdk.types.Package", "", false, {{"name", tSymbol, true}}},
      {tMethod,
       "jdk.types.Method",
       "",
       false,
       {{"type", tClass, true},
        {"name", tSymbol, true},
        {"descriptor", tSymbol, true},
        {"modifiers", tInt},
        {"hidden", tBoolean}}},
      {tFrameType, "jdk.types.FrameType", "", true, {{"description", tString}}},
      {tFrame,
       "jdk.types.StackFrame",
       "",
       false,
       {{"method", tMethod, true}, {"lineNumber", tInt}, {"bytecodeIndex", tInt}, {"type", tFrameType, true}}},
      {tStack, "jdk.types.StackTrace", "", false, {{"truncated", tBoolean}, {"frames", tFrame, false, true}}},
      {tChunkHeader, "jdk.types.ChunkHeader", "", false, {{"payload", tByte, false, true}}},
      {tPair, "test.Pair", "", false, {{"a", tFloat}, {"b", tDouble}}},
      {tEverything,
       "test.Everything",
       "jdk.jfr.Event",
       false,
       {{"startTime", tLong},
        {"duration", tLong},
        {"eventThread", tThread, true},
        {"stackTrace", tStack, true},
        {"b", tByte},
        {"s", tShort},
        {"c", tChar},
        {"f", tFloat},
        {"d", tDouble},
        {"flags", tBoolean, false, true},
        {"pair", tPair},
        {"pairs", tPair, false, true},
        {"objectClass", tClass, true},
        {"text", tString},
        {"weight", tLong},
        {"tail", tString}}},
      {tSample,
       "jdk.ExecutionSample",
       "jdk.jfr.Event",
       false,
       {{"startTime", tLong}, {"sampledThread", tThread, true}, {"stackTrace", tStack, true}}},
      {tSetting,
       "jdk.ActiveSetting",
       "jdk.jfr.Event",
       false,
       {{"startTime", tLong},
        {"duration", tLong},
        {"eventThread", tThread, true},
        {"stackTrace", tStack, true},
        {"id", tLong},
        {"name", tString},
        {"value", tString}}},
      {tNotAnEvent, "test.NotAnEvent", "", false, {{"x", tInt}}},
  };
}

constexpr int64_t kTicks = 1'000'000;

std::string jdk_like_chunk() {
  RawChunk chunk;
  // Events before the pools they refer to, between them and after them.
  Buffer e;
  e.varint(tSample);
  e.varint(kTicks + 10);
  e.varint(501);  // sampledThread
  e.varint(601);  // stackTrace
  chunk.event(e);

  // The older pools: symbols (Latin-1, UTF-16, UTF-8), packages, class loaders.
  Buffer older;
  older.varint(tSymbol);
  older.varint(6);
  older.varint(1001);
  older.string("java/lang/String");
  older.varint(1002);
  latin1_string(older, "caf\xe9");
  older.varint(1003);
  utf16_string(older, u"(Ljava/lang/Object;)I");
  older.varint(1004);
  older.string("demo/Main");
  older.varint(1005);
  older.string("main");
  older.varint(1006);
  older.string("java/lang");
  older.varint(tPackage);
  older.varint(1);
  older.varint(1101);
  older.varint(1006);
  older.varint(tLoader);
  older.varint(1);
  older.varint(1201);
  older.varint(0);
  older.varint(1005);
  chunk.pools(3, older);

  e = Buffer();
  e.varint(tNotAnEvent);  // a declared type that is no event: skipped
  e.varint(5);
  chunk.event(e);
  e = Buffer();
  e.varint(999);  // an undeclared type: skipped
  e.varint(1);
  e.varint(2);
  chunk.event(e);
  e = Buffer();
  e.varint(tEverything);
  e.varint(kTicks + 20);
  e.varint(5);
  e.varint(502);
  e.varint(602);
  e.u8(0xfe);                   // b
  e.varint_signed(-3);          // s
  e.varint(u'é');               // c
  e.raw32(0x3f800000);          // f
  e.raw64(0x4000000000000000);  // d
  e.varint(3);                  // flags
  e.append(std::string_view("\x01\x00\x01", 3));
  e.raw32(0);  // pair
  e.raw64(0);
  e.varint(2);  // pairs
  e.append(std::string(24, '\x80'));
  e.varint(301);  // objectClass
  e.u8(2);        // text: from the pool of strings
  e.varint(2001);
  e.varint(123456789);  // weight
  e.string("the end");
  chunk.event(e);

  // The newer pools: threads (names in three encodings), classes, methods, stacks, strings.
  Buffer newer;
  newer.varint(tThread);
  newer.varint(2);
  newer.varint(501);
  latin1_string(newer, "caf\xe9 thread");
  newer.varint(77);
  utf16_string(newer, u"worker \U0001F600");
  newer.varint(12);
  newer.varint(0);
  newer.u8(0);
  newer.varint(502);
  newer.null_string();
  newer.varint(78);
  newer.u8(2);
  newer.varint(2002);
  newer.varint(13);
  newer.varint(401);
  newer.u8(1);
  newer.varint(tGroup);
  newer.varint(1);
  newer.varint(401);
  newer.varint(0);
  newer.string("main");
  newer.varint(tClass);
  newer.varint(2);
  newer.varint(301);
  newer.varint(1201);
  newer.varint(1001);
  newer.varint(1101);
  newer.varint(17);
  newer.u8(0);
  newer.varint(302);
  newer.varint(0);
  newer.varint(1004);
  newer.varint(0);
  newer.varint(1);
  newer.u8(0);
  newer.varint(tMethod);
  newer.varint(2);
  newer.varint(701);
  newer.varint(301);
  newer.varint(1002);
  newer.varint(1003);
  newer.varint(1);
  newer.u8(0);
  newer.varint(702);
  newer.varint(302);
  newer.varint(1005);
  newer.varint(0);  // no descriptor
  newer.varint(9);
  newer.u8(1);
  newer.varint(tFrameType);
  newer.varint(2);
  newer.varint(1);
  newer.string("JIT compiled");
  newer.varint(2);
  latin1_string(newer, "Interpreted");
  newer.varint(tStack);
  newer.varint(2);
  newer.varint(601);
  newer.u8(1);
  newer.varint(2);
  newer.varint(701);
  newer.varint(42);
  newer.varint(7);
  newer.varint(1);
  newer.varint(702);
  newer.varint(3);
  newer.varint(0);
  newer.varint(2);
  newer.varint(602);
  newer.u8(0);
  newer.varint(0);
  newer.varint(tChunkHeader);
  newer.varint(1);
  newer.varint(1);
  newer.varint(5);
  newer.append("abcde");
  newer.varint(tString);
  newer.varint(2);
  newer.varint(2001);
  newer.string("pooled text");
  newer.varint(2002);
  utf16_string(newer, u"pooled name");
  chunk.pools(8, newer);

  e = Buffer();
  e.varint(tSetting);
  e.varint(kTicks);
  e.varint(0);
  e.varint(0);
  e.varint(0);
  e.varint(tSample);
  e.string("period");
  latin1_string(e, "20 ms");
  chunk.event(e);

  return chunk.finish(metadata_event(jdk_like_types()), kTicks, 1'000'000'000);
}

}  // namespace jvmkit::jfr::test
