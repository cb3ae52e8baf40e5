#include "profiler/context/label_sets.hpp"

namespace jvmkit::prof {

std::string labels_text(const std::vector<Label>& labels) {
  std::string out;
  for (const Label& l : labels) {
    if (!out.empty()) out += ',';
    out += l.key;
    out += '=';
    out += l.value;
  }
  return out;
}

LabelSets::LabelSets() = default;

uint32_t LabelSets::intern_label(std::string_view key, std::string_view value) {
  std::string id_key;
  id_key.reserve(key.size() + value.size() + 1);
  id_key.append(key).push_back('\0');
  id_key.append(value);
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = label_ids_.find(id_key); it != label_ids_.end()) return it->second;
  if (labels_.size() > kMaxLabels || bytes_ + id_key.size() > kMaxBytes) {
    refused_++;
    return 0;
  }
  const auto id = static_cast<uint32_t>(labels_.size());
  labels_.push_back(Label{std::string(key), std::string(value)});
  bytes_ += id_key.size();
  label_ids_.emplace(std::move(id_key), id);
  return id;
}

uint32_t LabelSets::intern_set(uint32_t parent, uint32_t label) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (parent >= sets_.size() || label == 0 || label >= labels_.size()) {
    refused_++;
    return 0;
  }
  if (auto it = set_ids_.find({parent, label}); it != set_ids_.end()) return it->second;
  // The new set's content: PARENT's labels, LABEL replacing the one of the same key.
  std::vector<uint32_t> content = sets_[parent];
  bool replaced = false;
  for (uint32_t& l : content) {
    if (labels_[l].key == labels_[label].key) {
      l = label;
      replaced = true;
    }
  }
  if (!replaced) content.push_back(label);
  // Two paths to the same content (a then b, or b replacing a's value) give the same set.
  const std::string bytes(reinterpret_cast<const char*>(content.data()), content.size() * sizeof(uint32_t));
  uint32_t id = 0;
  if (auto it = set_by_content_.find(bytes); it != set_by_content_.end()) {
    id = it->second;
  } else {
    if (sets_.size() > kMaxSets || bytes_ + bytes.size() > kMaxBytes) {
      refused_++;
      return 0;
    }
    id = static_cast<uint32_t>(sets_.size());
    sets_.push_back(std::move(content));
    bytes_ += bytes.size();
    set_by_content_.emplace(bytes, id);
  }
  set_ids_.emplace(std::make_pair(parent, label), id);
  return id;
}

std::vector<Label> LabelSets::labels_of(uint32_t set) const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<Label> out;
  if (set >= sets_.size()) return out;
  for (uint32_t l : sets_[set]) out.push_back(labels_[l]);
  return out;
}

LabelSets::Counts LabelSets::counts() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return Counts{labels_.size() - 1, sets_.size() - 1, bytes_, refused_};
}

LabelSets& process_label_sets() {
  static LabelSets* sets = new LabelSets();  // never destroyed: JVMTI callbacks may run at exit
  return *sets;
}

}  // namespace jvmkit::prof
