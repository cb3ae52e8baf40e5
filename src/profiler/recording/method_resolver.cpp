#include "profiler/recording/method_resolver.hpp"

#include <algorithm>

#include "profiler/utf8.hpp"

namespace jvmkit::prof {

std::string class_name_from_signature(const char* signature) {
  if (signature == nullptr) return "?";
  std::string s(signature);
  int dims = 0;
  while (dims < static_cast<int>(s.size()) && s[dims] == '[') dims++;
  std::string base = s.substr(dims);
  std::string name;
  if (!base.empty() && base[0] == 'L' && base.back() == ';') {
    name = base.substr(1, base.size() - 2);
    std::replace(name.begin(), name.end(), '/', '.');
  } else if (base.size() == 1) {
    switch (base[0]) {
      case 'Z':
        name = "boolean";
        break;
      case 'B':
        name = "byte";
        break;
      case 'C':
        name = "char";
        break;
      case 'S':
        name = "short";
        break;
      case 'I':
        name = "int";
        break;
      case 'J':
        name = "long";
        break;
      case 'F':
        name = "float";
        break;
      case 'D':
        name = "double";
        break;
      default:
        name = base;
    }
  } else {
    name = base;
  }
  for (int i = 0; i < dims; i++) name += "[]";
  return name;
}

void MethodResolver::reset(Profile* profile) {
  profile_ = profile;
  cache_.clear(/*free=*/true);
  entries_ = {};
}

// The cached entry of METHOD, looked up and cached on a miss; null when it is not cached and
// cannot be (the cache or the profile's method table is full).
const MethodResolver::Entry* MethodResolver::lookup(jmethodID method) {
  if (const uint32_t* index = cache_.find(method)) return &entries_[*index];
  if (entries_.size() >= profile_->limits().max_methods || profile_->methods_full()) return nullptr;

  std::string class_name = "?";
  std::string method_name = "?";
  std::string file;
  Entry entry{};
  jclass klass = nullptr;
  if (jvmti_->GetMethodDeclaringClass(method, &klass) == JVMTI_ERROR_NONE && klass != nullptr) {
    char* sig = nullptr;
    if (jvmti_->GetClassSignature(klass, &sig, nullptr) == JVMTI_ERROR_NONE) {
      class_name = class_name_from_signature(utf8_from_modified(sig).c_str());
      jvmti_->Deallocate(reinterpret_cast<unsigned char*>(sig));
    } else {
      errors_++;
    }
    char* source = nullptr;
    if (jvmti_->GetSourceFileName(klass, &source) == JVMTI_ERROR_NONE) {
      file = utf8_from_modified(source);
      jvmti_->Deallocate(reinterpret_cast<unsigned char*>(source));
    }
    JNIEnv* jni = nullptr;
    if (vm_ != nullptr && vm_->GetEnv(reinterpret_cast<void**>(&jni), JNI_VERSION_1_6) == JNI_OK) {
      jni->DeleteLocalRef(klass);
    }
  } else {
    errors_++;
  }
  char* name = nullptr;
  char* signature = nullptr;
  std::string descriptor;
  if (jvmti_->GetMethodName(method, &name, &signature, nullptr) == JVMTI_ERROR_NONE) {
    method_name = utf8_from_modified(name);
    jvmti_->Deallocate(reinterpret_cast<unsigned char*>(name));
    if (signature != nullptr) descriptor = utf8_from_modified(signature);
    jvmti_->Deallocate(reinterpret_cast<unsigned char*>(signature));
  } else {
    errors_++;
  }
  jint count = 0;
  jvmtiLineNumberEntry* table = nullptr;
  if (jvmti_->GetLineNumberTable(method, &count, &table) == JVMTI_ERROR_NONE) {
    entry.lines.reserve(static_cast<size_t>(count));
    for (jint i = 0; i < count; i++) entry.lines.emplace_back(table[i].start_location, table[i].line_number);
    std::sort(entry.lines.begin(), entry.lines.end());
    jvmti_->Deallocate(reinterpret_cast<unsigned char*>(table));
  }
  entry.method = profile_->add_method(class_name + "." + method_name, file, {}, std::move(descriptor));
  if (profile_->is_overflow_method(entry.method)) entry.lines.clear();  // a line of no known method
  cache_.insert(method, static_cast<uint32_t>(entries_.size()));
  entries_.push_back(std::move(entry));
  return &entries_.back();
}

void MethodResolver::resolve(jmethodID method, jlocation bci, uint32_t* method_index, int32_t* line) {
  *line = 0;
  const Entry* e = lookup(method);
  if (e == nullptr) {
    overflowed_++;
    *method_index = profile_->overflow_method();
    return;
  }
  *method_index = e->method;
  if (bci < 0 || e->lines.empty()) return;
  auto it = std::upper_bound(e->lines.begin(), e->lines.end(), std::make_pair(bci, static_cast<jint>(INT32_MAX)));
  if (it != e->lines.begin()) *line = (it - 1)->second;
}

}  // namespace jvmkit::prof
