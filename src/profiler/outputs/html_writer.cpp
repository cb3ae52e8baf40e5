// html: one self-contained page (flame_graph.html, compiled in as a string): the tree is embedded
// as JSON, the page draws it with plain DOM elements (so a headless browser's DOM dump shows every
// drawn frame), and needs no network.
#include <algorithm>
#include <cstdio>
#include <map>

#include "profiler/outputs/writers.hpp"

namespace jvmkit::prof {

extern const char kFlameGraphTemplate[];  // flame_graph.html, generated into flame_graph_html.cpp

namespace {

// The tree merged by (name, type): what the page draws.
struct MergedNode {
  uint32_t name;
  int type;
  int64_t total = 0;
  int64_t self = 0;
  std::map<std::pair<uint32_t, int>, MergedNode> kids;
  uint32_t id = 0;  // its index in the preorder the page numbers nodes in (set by emit)
};

void json_string(std::string* out, const std::string& s) {
  *out += '"';
  for (size_t i = 0; i < s.size(); i++) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '"' || c == '\\') {
      *out += '\\';
      *out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", c);
      *out += buf;
    } else if (c == '<' || c == '>' || c == '&') {
      char buf[8];  // never let the data end the <script> element
      std::snprintf(buf, sizeof(buf), "\\u%04x", c);
      *out += buf;
    } else {
      *out += static_cast<char>(c);
    }
  }
  *out += '"';
}

std::string html_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// Children are drawn in name order (as flamegraph.pl does), so that two profiles of the same
// program look alike. NEXT_ID numbers the nodes in the order written, as the page does.
void emit(MergedNode& n, const std::vector<std::string>& names, std::string* out, uint32_t* next_id) {
  n.id = (*next_id)++;
  *out += '[' + std::to_string(n.name) + ',' + std::to_string(n.type) + ',' + std::to_string(n.total) + ',' +
          std::to_string(n.self) + ",[";
  std::vector<MergedNode*> kids;
  for (auto& [key, kid] : n.kids) kids.push_back(&kid);
  std::sort(kids.begin(), kids.end(), [&](const MergedNode* a, const MergedNode* b) {
    return names[a->name] != names[b->name] ? names[a->name] < names[b->name] : a->type < b->type;
  });
  for (size_t i = 0; i < kids.size(); i++) {
    if (i > 0) *out += ',';
    emit(*kids[i], names, out, next_id);
  }
  *out += "]]";
}

void replace_all(std::string* s, const std::string& from, const std::string& to) {
  for (size_t pos = s->find(from); pos != std::string::npos; pos = s->find(from, pos + to.size())) {
    s->replace(pos, from.size(), to);
  }
}

}  // namespace

namespace {

// Names are interned by string so that methods with equal names merge, across the events too.
class NameTable {
 public:
  uint32_t id(const std::string& s) {
    auto [it, inserted] = ids_.try_emplace(s, static_cast<uint32_t>(names_.size()));
    if (inserted) names_.push_back(s);
    return it->second;
  }
  const std::vector<std::string>& names() const { return names_; }

 private:
  std::map<std::string, uint32_t> ids_;
  std::vector<std::string> names_;
};

// PROFILE's tree merged by (name, type), with the values the page shows (EVENT's counts or
// weights). MERGED_OF (may be null) receives the drawn node of each profile node.
MergedNode merged_tree(const Profile& profile, const EventProfile& event, NameTable* names,
                       std::vector<MergedNode*>* merged_of) {
  const auto& nodes = profile.nodes();
  const auto& methods = profile.methods();
  MergedNode root{names->id("all"), 5};
  root.total = event.shown(nodes[Profile::kRoot].total, nodes[Profile::kRoot].total_weight);
  if (merged_of != nullptr) merged_of->assign(nodes.size(), &root);
  // Walk the tree, merging children with the same (name, type) into one drawn node.
  struct Item {
    uint32_t node;
    MergedNode* into;
  };
  std::vector<Item> stack;
  stack.push_back({Profile::kRoot, &root});
  while (!stack.empty()) {
    Item item = stack.back();
    stack.pop_back();
    for (uint32_t c : nodes[item.node].children) {
      const Profile::Node& child = nodes[c];
      if (child.total == 0) continue;  // all its samples taken back (alloc's live option)
      uint32_t id = names->id(methods[child.frame.method].name);
      int type = static_cast<int>(child.frame.type);
      auto [it, inserted] = item.into->kids.try_emplace({id, type});
      MergedNode& m = it->second;
      if (inserted) {
        m.name = id;
        m.type = type;
      }
      m.total += event.shown(child.total, child.total_weight);
      m.self += event.shown(child.self, child.self_weight);
      if (merged_of != nullptr) (*merged_of)[c] = &m;
      stack.push_back({c, &m});
    }
  }
  return root;
}

// Native frames' types (cstack=native): their colours, legend and names. A page of Java frames
// only gets none of it, so that it stays the page it always was, byte for byte (the placeholders
// are dropped).
struct NativeTypesText {
  const char* placeholder;
  const char* text;
};
constexpr NativeTypesText kNativeTypes[] = {
    {"/*NATIVE_STYLE*/",
     "\n  .t7 { background: #e06666; }  /* native code: C/C++ */"
     "\n  .t8 { background: #d9a441; }  /* JVM: libjvm, HotSpot's stubs */"
     "\n  .t9 { background: #7f9cc9; }  /* kernel */"},
    {"/*NATIVE_LEGEND*/",
     "<span class=\"t7\">native code</span><span class=\"t8\">JVM</span><span class=\"t9\">kernel</span>"},
    {"/*NATIVE_TYPES*/", ", \"native code\", \"JVM\", \"kernel\""},
};

// The time cells of an event as the page reads them: {start_ms, cell_ms, per_column, cells, group,
// group_offset, totals, t, n, v}: the samples per cell, and one entry per (group of cells, drawn
// node), in group order.
void append_cells(const TimeCells& cells, const EventProfile& e, const std::vector<MergedNode*>& merged_of,
                  std::string* out) {
  std::map<std::pair<uint32_t, uint32_t>, int64_t> values;
  for (const TimeCells::Entry& entry : cells.entries) {
    if (entry.node >= merged_of.size()) continue;
    values[{entry.cell, merged_of[entry.node]->id}] += e.shown(entry.count, entry.weight);
  }
  *out += ",\"cells\":{\"start_ms\":" + std::to_string(cells.start_ns / 1'000'000) +
          ",\"cell_ms\":" + std::to_string(cells.cell_ns / 1'000'000) +
          ",\"per_column\":" + std::to_string(cells.per_column) + ",\"cells\":" + std::to_string(cells.cells) +
          ",\"group\":" + std::to_string(cells.group) + ",\"group_offset\":" + std::to_string(cells.group_offset) +
          ",\"totals\":[";
  for (size_t i = 0; i < cells.totals.size(); i++) {
    if (i > 0) *out += ',';
    *out += std::to_string(e.shown(cells.totals[i].first, cells.totals[i].second));
  }
  *out += ']';
  for (const char* field : {"t", "n", "v"}) {
    *out += ",\"" + std::string(field) + "\":[";
    bool first = true;
    for (const auto& [key, value] : values) {
      if (!first) *out += ',';
      first = false;
      const int64_t x = field[0] == 't' ? key.first : field[0] == 'n' ? key.second : value;
      *out += std::to_string(x);
    }
    *out += ']';
  }
  *out += '}';
}

// Request-context labels (FrameType::kLabels, the outermost frame of a labelled stack): a selector
// that shows one label's samples, all samples with the label frames merged away (the default), or
// the label sets as root frames. Like the native types, only on a page whose profiles have labels.
constexpr NativeTypesText kLabelsText[] = {
    {"/*LABELS_STYLE*/", "\n  .t10 { background: #f0b0c8; }  /* request-context labels */"},
    {"/*LABELS_SELECT*/", "\n  <select id=\"labels\" title=\"Request-context labels\"></select>"},
    {"/*LABELS_CHOOSE*/", "\n  setUpLabels();"},
    {"/*LABELS_VIEW*/", "\n  v = withLabels(v);"},
    {"/*LABELS_SCRIPT*/",
     "// Request-context labels: the label frames (type 10) below the root, \"[k1=v1,k2=v2]\"; DATA.labels[name]\n"
     "// is such a frame's labels, [\"k1=v1\", \"k2=v2\"] (its name cannot tell: a value may hold a comma).\n"
     "// labelChoice is \"\" (every sample, label frames merged away), \"*\" (label sets as root frames) or one "
     "\"k=v\".\n"
     "var labelChoice = \"\";\n"
     "function labelsOf(name) { return DATA.labels[name] || []; }\n"
     "function setUpLabels() {\n"
     "  var select = document.getElementById(\"labels\"), seen = {}, list = [];\n"
     "  full.kids.forEach(function (k) {\n"
     "    if (k.type === 10) labelsOf(k.name).forEach(function (l) { if (!seen[l]) { seen[l] = true; list.push(l); } "
     "});\n"
     "  });\n"
     "  list.sort();\n"
     "  select.innerHTML = \"\";\n"
     "  [[\"\", \"all labels\"], [\"*\", \"by label set\"]].concat(list.map(function (l) { return [l, l]; }))\n"
     "    .forEach(function (o) { var e = document.createElement(\"option\"); e.value = o[0]; e.textContent = o[1]; "
     "select.appendChild(e); });\n"
     "  if (list.indexOf(labelChoice) < 0 && labelChoice !== \"*\") labelChoice = \"\";\n"
     "  select.value = labelChoice;\n"
     "  select.hidden = list.length === 0;\n"
     "  select.onchange = function () { labelChoice = this.value; refresh(); };\n"
     "  document.body.setAttribute(\"data-labels\", list.join(\"|\"));\n"
     "}\n"
     "// Adds FROM's subtree into TO (a node of the same name and type).\n"
     "function mergeInto(from, to) {\n"
     "  to.self += from.self;\n"
     "  to.total += from.total;\n"
     "  from.kids.forEach(function (k) { mergeInto(k, kid(to, k.name, k.type)); });\n"
     "}\n"
     "// T as labelChoice wants it.\n"
     "function withLabels(t) {\n"
     "  document.body.setAttribute(\"data-label\", labelChoice);\n"
     "  if (labelChoice === \"*\") return t;\n"
     "  var out = node(t.name, t.type, null);\n"
     "  t.kids.forEach(function (k) {\n"
     "    var labelled = k.type === 10;\n"
     "    if (labelChoice === \"\" && !labelled) { mergeInto(k, kid(out, k.name, k.type)); out.total += k.total; "
     "return; }\n"
     "    if (!labelled || (labelChoice !== \"\" && labelsOf(k.name).indexOf(labelChoice) < 0)) return;\n"
     "    out.self += k.self;\n"
     "    out.total += k.total;\n"
     "    k.kids.forEach(function (kk) { mergeInto(kk, kid(out, kk.name, kk.type)); });\n"
     "  });\n"
     "  return out;\n"
     "}\n\n"},
};

// The label frames of PROFILE that have samples, name -> their labels as "k=v", added to LABELS.
void add_label_frames(const Profile& profile, std::map<std::string, std::vector<std::string>>* labels) {
  for (const Profile::Node& n : profile.nodes()) {
    if (n.total <= 0 || n.frame.type != FrameType::kLabels) continue;
    std::vector<std::string>& texts = (*labels)[profile.methods()[n.frame.method].name];
    if (!texts.empty()) continue;
    if (const std::vector<Label>* of = profile.labels_of(n.frame.method)) {
      for (const Label& l : *of) texts.push_back(l.key + "=" + l.value);
    }
  }
}

bool has_native_frames(const Profile& profile) {
  for (const Profile::Node& n : profile.nodes()) {
    if (n.total > 0 && is_native_frame_type(n.frame.type)) return true;
  }
  return false;
}

}  // namespace

std::string html_text(std::span<const EventProfile> events, const RunInfo& info) {
  NameTable names;
  std::vector<MergedNode> roots, bases;
  std::vector<std::vector<MergedNode*>> merged_of(events.size());
  for (size_t i = 0; i < events.size(); i++) {
    const EventProfile& e = events[i];
    roots.push_back(merged_tree(*e.profile, e, &names, e.cells != nullptr ? &merged_of[i] : nullptr));
    bases.push_back(e.base != nullptr ? merged_tree(*e.base, e, &names, nullptr) : MergedNode{0, 5});
  }
  // A label frame's name joins its labels with commas, which a value may hold too: the page takes
  // them from here. Only a page with labels has the field, so that others stay as they were.
  // A diff's base is filtered by the same choice, so its label frames are there too; the selector
  // itself is for a page whose profiles have labels.
  std::map<std::string, std::vector<std::string>> label_frames;
  for (const EventProfile& e : events) add_label_frames(*e.profile, &label_frames);
  const bool labels = !label_frames.empty();
  for (const EventProfile& e : events) {
    if (labels && e.base != nullptr) add_label_frames(*e.base, &label_frames);
  }
  std::string data = "{\"names\":[";
  for (size_t i = 0; i < names.names().size(); i++) {
    if (i > 0) data += ',';
    json_string(&data, names.names()[i]);
  }
  data += ']';
  if (labels) {
    data += ",\"labels\":{";
    bool first = true;
    for (const auto& [name, texts] : label_frames) {
      if (!first) data += ',';
      first = false;
      json_string(&data, name);
      data += ":[";
      for (size_t i = 0; i < texts.size(); i++) {
        if (i > 0) data += ',';
        json_string(&data, texts[i]);
      }
      data += ']';
    }
    data += '}';
  }
  data += ",\"events\":[";
  for (size_t i = 0; i < events.size(); i++) {
    const EventProfile& e = events[i];
    std::string text = e.description + ", " + std::to_string(e.profile->total_samples()) + " samples";
    if (e.weighted) text += ", " + std::to_string(e.profile->total_weight()) + " " + e.shown_unit();
    if (info.start_time_ns > 0) text += ", from " + window_text(info);
    if (i > 0) data += ',';
    data += "{\"name\":";
    json_string(&data, e.event);
    data += ",\"info\":";
    json_string(&data, text);
    data += ",\"unit\":";
    json_string(&data, e.shown_unit());
    data += ",\"root\":";
    uint32_t next_id = 0;
    emit(roots[i], names.names(), &data, &next_id);
    if (e.base != nullptr) {
      data += ",\"base\":";
      uint32_t base_ids = 0;
      emit(bases[i], names.names(), &data, &base_ids);
    }
    if (e.cells != nullptr) append_cells(*e.cells, e, merged_of[i], &data);
    data += '}';
  }
  data += "]}";

  std::string page(kFlameGraphTemplate);
  bool native = false;
  for (const EventProfile& e : events) native = native || has_native_frames(*e.profile);
  for (const NativeTypesText& t : kNativeTypes) replace_all(&page, t.placeholder, native ? t.text : "");
  for (const NativeTypesText& t : kLabelsText) replace_all(&page, t.placeholder, labels ? t.text : "");
  replace_all(&page, "/*TITLE*/", html_escape(info.title));
  size_t pos = page.find("/*DATA*/");
  if (pos != std::string::npos) page.replace(pos, 8, data);
  return page;
}

std::string html_text(const Profile& profile, const RunInfo& info) {
  const EventProfile single = event_profile(profile, info);
  return html_text(std::span<const EventProfile>(&single, 1), info);
}

}  // namespace jvmkit::prof
