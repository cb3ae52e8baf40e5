#include "native/demangle.hpp"

#include <cxxabi.h>

#include <array>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <memory>

namespace jvmkit::native {
namespace {

constexpr size_t kNone = std::string_view::npos;

struct FreeDeleter {
  void operator()(char* text) const noexcept { std::free(text); }
};

bool is_identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '$'; }

// What may follow "operator" to name an operator, longest first, so that "operator<<=" is not read
// as "operator<" and a stray "<=". Conversion operators and "operator new" are followed by a space.
constexpr std::array<std::string_view, 40> kOperatorTokens = {
    "->*", "<=>", "<<=", ">>=", "()", "[]", "->", "<<", ">>", "<=", ">=", "==",  "!=", "&&",
    "||",  "++",  "--",  "+=",  "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<",   ">",  "+",
    "-",   "*",   "/",   "%",   "^",  "&",  "|",  "~",  "!",  "=",  ",",  "\"\""};

// The length of "operator" plus the operator's punctuation when TEXT has them at AT, else 0. Their
// brackets ("operator()", "operator<") open nothing.
size_t operator_token_length(std::string_view text, size_t at) {
  constexpr std::string_view kOperator = "operator";
  if (text.substr(at, kOperator.size()) != kOperator) return 0;
  if (at > 0 && is_identifier_char(text[at - 1])) return 0;
  const size_t after = at + kOperator.size();
  for (std::string_view token : kOperatorTokens) {
    if (text.substr(after, token.size()) == token) return kOperator.size() + token.size();
  }
  return 0;
}

char closing_of(char open) { return open == '(' ? ')' : open == '[' ? ']' : '}'; }

// One past the bracket that closes the '(', '[' or '{' at AT, counting only that kind: what lies
// inside (template arguments, expressions) may hold unpaired '<' or '>'. kNone if it never closes.
size_t skip_balanced(std::string_view text, size_t at) {
  const char open = text[at], close = closing_of(open);
  int depth = 0;
  for (size_t i = at; i < text.size(); i++) {
    if (text[i] == open) depth++;
    if (text[i] == close && --depth == 0) return i + 1;
  }
  return kNone;
}

// One past the '>' that closes the template argument list at AT, or kNone. Operator names and
// bracketed expressions inside do not count.
size_t skip_template_arguments(std::string_view text, size_t at) {
  int depth = 0;
  for (size_t i = at; i < text.size();) {
    if (const size_t length = operator_token_length(text, i)) {
      i += length;
      continue;
    }
    const char c = text[i];
    if (c == '(' || c == '[' || c == '{') {
      i = skip_balanced(text, i);
      if (i == kNone) return kNone;
      continue;
    }
    if (c == '<') depth++;
    if (c == '>' && --depth == 0) return i + 1;
    i++;
  }
  return kNone;
}

// Past the qualifiers of a member function (" const", " &&", ...) that may follow its parameters.
size_t skip_qualifiers(std::string_view text, size_t at) {
  constexpr std::array<std::string_view, 7> kQualifiers = {" const",    " volatile", " restrict",        " &&",
                                                           " noexcept", " &",        " transaction_safe"};
  bool more = true;
  while (more) {
    more = false;
    for (std::string_view qualifier : kQualifiers) {
      const size_t end = at + qualifier.size();
      if (text.substr(at, qualifier.size()) != qualifier) continue;
      if (end < text.size() && is_identifier_char(text[end])) continue;
      at = end;
      more = true;
      break;
    }
  }
  return at;
}

// "(*name(params))" or "(&name(params))" after a return type: the declarator of a function
// returning a pointer to a function or an array, with the function's name inside.
bool is_declarator(std::string_view text, size_t at) {
  return at + 1 < text.size() && (text[at + 1] == '*' || text[at + 1] == '&') && (at == 0 || text[at - 1] == ' ');
}

bool ends_with_decltype(const std::string& text) {
  const std::string_view view(text);
  return view.ends_with("decltype") || view.ends_with("decltype ");
}

// Appends the top-level '(' group at AT to OUT as strip_parameters() would, and returns where
// the text continues, or kNone when the group never closes.
size_t strip_group(std::string_view text, size_t at, std::string* out) {
  constexpr std::string_view kAnonymous = "(anonymous namespace)";
  const size_t end = skip_balanced(text, at);
  if (end == kNone) return kNone;
  if (text.substr(at, kAnonymous.size()) == kAnonymous || ends_with_decltype(*out)) {
    out->append(text.substr(at, end - at));  // part of a name or a type, not parameters
    return end;
  }
  if (is_declarator(text, at)) {
    out->append(strip_parameters(text.substr(at + 2, end - 1 - (at + 2))));
    return end;
  }
  return skip_qualifiers(text, end);  // a parameter list: dropped with its qualifiers
}

}  // namespace

std::optional<std::string> demangle(const char* mangled) {
  // __cxa_demangle also reads type encodings ("i" -> "int"): only "_Z" starts a mangled name.
  if (mangled == nullptr || std::strncmp(mangled, "_Z", 2) != 0) return std::nullopt;
  int status = 0;
  std::unique_ptr<char, FreeDeleter> text(abi::__cxa_demangle(mangled, nullptr, nullptr, &status));
  if (status != 0 || text == nullptr) return std::nullopt;
  return std::string(text.get());
}

std::string strip_parameters(std::string_view demangled) {
  std::string out;
  out.reserve(demangled.size());
  size_t at = 0;
  while (at < demangled.size()) {
    if (const size_t length = operator_token_length(demangled, at)) {
      out.append(demangled.substr(at, length));
      at += length;
      continue;
    }
    const char c = demangled[at];
    size_t next = at + 1;
    if (c == '(') {
      next = strip_group(demangled, at, &out);
    } else if (c == '<' || c == '[' || c == '{') {
      next = c == '<' ? skip_template_arguments(demangled, at) : skip_balanced(demangled, at);
      if (next != kNone) out.append(demangled.substr(at, next - at));
    } else {
      out.push_back(c);
    }
    if (next == kNone) return std::string(demangled);
    at = next;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

DemangleCache::Entry& DemangleCache::entry_for(uint32_t key, const char* mangled) {
  Entry& entry = entries_[key];
  if (!entry.demangled) {
    entry.demangled = demangle(mangled).value_or(std::string());
    bytes_ += sizeof(std::pair<const uint32_t, Entry>) + entry.demangled->capacity();
  }
  return entry;
}

const char* DemangleCache::demangled(uint32_t key, const char* mangled) {
  std::lock_guard<std::mutex> lock(mutex_);
  const Entry& entry = entry_for(key, mangled);
  return entry.demangled->empty() ? mangled : entry.demangled->c_str();
}

const char* DemangleCache::without_parameters(uint32_t key, const char* mangled) {
  std::lock_guard<std::mutex> lock(mutex_);
  Entry& entry = entry_for(key, mangled);
  const char* full = entry.demangled->empty() ? mangled : entry.demangled->c_str();
  if (!entry.stripped) {
    std::string stripped = strip_parameters(full);
    entry.stripped = stripped == full ? std::string() : std::move(stripped);
    bytes_ += entry.stripped->capacity();
  }
  return entry.stripped->empty() ? full : entry.stripped->c_str();
}

size_t DemangleCache::bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return bytes_;
}

}  // namespace jvmkit::native
