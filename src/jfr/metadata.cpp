#include "jfr/metadata.hpp"

#include <string>
#include <unordered_map>
#include <vector>

namespace jvmkit::jfr {

namespace {

// --- Annotations, shared by many fields ---
constexpr Annotation kStartTime[] = {{kLabel, "Start Time"}, {kTimestamp, "TICKS"}};
constexpr Annotation kDuration[] = {{kLabel, "Duration"}, {kTimespan, "TICKS"}};
constexpr Annotation kEventThread[] = {{kLabel, "Event Thread"}};
constexpr Annotation kSampledThread[] = {{kLabel, "Thread"}};
constexpr Annotation kStack[] = {{kLabel, "Stack Trace"}};
constexpr Annotation kWeightBytes[] = {{kLabel, "Sample Weight"}, {kDataAmount, "BYTES"}};
constexpr Annotation kValue[] = {{kLabel, "Value"}};

template <size_t N>
constexpr std::span<const Annotation> label(const Annotation (&a)[N]) {
  return std::span<const Annotation>(a, N);
}

// --- Fields ---
constexpr FieldDef kAnnotationValue[] = {{"value", kString}};
constexpr FieldDef kCategoryValue[] = {{"value", kString, false, true}};

constexpr Annotation kLabelOsName[] = {{kLabel, "OS Thread Name"}};
constexpr Annotation kLabelOsId[] = {{kLabel, "OS Thread Id"}};
constexpr Annotation kLabelJavaName[] = {{kLabel, "Java Thread Name"}};
constexpr Annotation kLabelJavaId[] = {{kLabel, "Java Thread Id"}};
constexpr Annotation kLabelVirtual[] = {{kLabel, "Virtual Thread"}};
constexpr Annotation kLabelGroup[] = {{kLabel, "Java Thread Group"}};
constexpr FieldDef kThreadFields[] = {
    {"osName", kString, false, false, kLabelOsName},     {"osThreadId", kLong, false, false, kLabelOsId},
    {"javaName", kString, false, false, kLabelJavaName}, {"javaThreadId", kLong, false, false, kLabelJavaId},
    {"group", kThreadGroup, true, false, kLabelGroup},   {"virtual", kBoolean, false, false, kLabelVirtual},
};

constexpr Annotation kLabelName[] = {{kLabel, "Name"}};
constexpr Annotation kLabelPackage[] = {{kLabel, "Package"}};
constexpr Annotation kLabelModifiers[] = {{kLabel, "Access Modifiers"}};
constexpr Annotation kLabelHidden[] = {{kLabel, "Hidden"}};
constexpr Annotation kLabelClassLoader[] = {{kLabel, "Class Loader"}};
constexpr FieldDef kClassFields[] = {
    {"classLoader", kClassLoader, true, false, kLabelClassLoader},
    {"name", kSymbol, true, false, kLabelName},
    {"package", kPackage, true, false, kLabelPackage},
    {"modifiers", kInt, false, false, kLabelModifiers},
    {"hidden", kBoolean, false, false, kLabelHidden},
};
constexpr Annotation kLabelModule[] = {{kLabel, "Module"}};
constexpr Annotation kLabelExported[] = {{kLabel, "Exported"}};
constexpr FieldDef kPackageFields[] = {
    {"name", kSymbol, true, false, kLabelName},
    {"module", kModule, true, false, kLabelModule},
    {"exported", kBoolean, false, false, kLabelExported},
};
// Declared for the fields above that jvmkit leaves null; never a pool of their own.
constexpr Annotation kLabelParent[] = {{kLabel, "Parent"}};
constexpr Annotation kLabelType[] = {{kLabel, "Type"}};
constexpr FieldDef kThreadGroupFields[] = {
    {"parent", kThreadGroup, true, false, kLabelParent},
    {"name", kString, false, false, kLabelName},
};
constexpr FieldDef kClassLoaderFields[] = {
    {"type", kClass, true, false, kLabelType},
    {"name", kSymbol, true, false, kLabelName},
};
constexpr Annotation kLabelVersion[] = {{kLabel, "Version"}};
constexpr Annotation kLabelLocation[] = {{kLabel, "Location"}};
constexpr FieldDef kModuleFields[] = {
    {"name", kSymbol, true, false, kLabelName},
    {"version", kSymbol, true, false, kLabelVersion},
    {"location", kSymbol, true, false, kLabelLocation},
    {"classLoader", kClassLoader, true, false, kLabelClassLoader},
};
constexpr Annotation kLabelString[] = {{kLabel, "String"}};
constexpr FieldDef kSymbolFields[] = {{"string", kString, false, false, kLabelString}};

constexpr Annotation kLabelDescriptor[] = {{kLabel, "Descriptor"}};
constexpr FieldDef kMethodFields[] = {
    {"type", kClass, true, false, kLabelType},
    {"name", kSymbol, true, false, kLabelName},
    {"descriptor", kSymbol, true, false, kLabelDescriptor},
    {"modifiers", kInt, false, false, kLabelModifiers},
    {"hidden", kBoolean, false, false, kLabelHidden},
};

constexpr Annotation kLabelTruncated[] = {{kLabel, "Truncated"}};
constexpr Annotation kLabelFrames[] = {{kLabel, "Stack Frames"}};
constexpr FieldDef kStackTraceFields[] = {
    {"truncated", kBoolean, false, false, kLabelTruncated},
    {"frames", kStackFrame, false, true, kLabelFrames},
};
constexpr Annotation kLabelMethod[] = {{kLabel, "Java Method"}};
constexpr Annotation kLabelLine[] = {{kLabel, "Line Number"}};
constexpr Annotation kLabelBci[] = {{kLabel, "Bytecode Index"}};
constexpr Annotation kLabelFrameType[] = {{kLabel, "Frame Type"}};
constexpr FieldDef kStackFrameFields[] = {
    {"method", kMethod, true, false, kLabelMethod},
    {"lineNumber", kInt, false, false, kLabelLine},
    {"bytecodeIndex", kInt, false, false, kLabelBci},
    {"type", kFrameType, true, false, kLabelFrameType},
};
constexpr Annotation kLabelDescription[] = {{kLabel, "Description"}};
constexpr FieldDef kFrameTypeFields[] = {{"description", kString, false, false, kLabelDescription}};
constexpr FieldDef kThreadStateFields[] = {{"name", kString, false, false, kLabelName}};

// --- Events: startTime first, then duration when the event has one (the JDK's parser reads
// them by position), then the event thread and stack, then the event's own fields. The sample
// events have exactly the JDK's fields (async-profiler's for profiler.WallClockSample), in their
// order, also those jvmkit leaves null or 0: async-profiler's converter reads these events by
// position and goes on where their fields end, not where their size says. ---
constexpr Annotation kLabelState[] = {{kLabel, "Thread State"}};
constexpr FieldDef kExecutionSampleFields[] = {
    {"startTime", kLong, false, false, label(kStartTime)},
    {"sampledThread", kThread, true, false, label(kSampledThread)},
    {"stackTrace", kStackTrace, true, false, label(kStack)},
    {"state", kThreadState, true, false, kLabelState},
};
constexpr Annotation kLabelObjectClass[] = {{kLabel, "Object Class"}};
constexpr FieldDef kAllocationFields[] = {
    {"startTime", kLong, false, false, label(kStartTime)},   {"eventThread", kThread, true, false, label(kEventThread)},
    {"stackTrace", kStackTrace, true, false, label(kStack)}, {"objectClass", kClass, true, false, kLabelObjectClass},
    {"weight", kLong, false, false, label(kWeightBytes)},
};
constexpr Annotation kLabelMonitorClass[] = {{kLabel, "Monitor Class"}};
constexpr Annotation kLabelPreviousOwner[] = {{kLabel, "Previous Monitor Owner"}};
constexpr Annotation kLabelMonitorAddress[] = {{kLabel, "Monitor Address"}};
constexpr FieldDef kMonitorEnterFields[] = {
    {"startTime", kLong, false, false, label(kStartTime)},
    {"duration", kLong, false, false, label(kDuration)},
    {"eventThread", kThread, true, false, label(kEventThread)},
    {"stackTrace", kStackTrace, true, false, label(kStack)},
    {"monitorClass", kClass, true, false, kLabelMonitorClass},
    {"previousOwner", kThread, true, false, kLabelPreviousOwner},
    {"address", kLong, false, false, kLabelMonitorAddress},
};
constexpr Annotation kLabelParkedClass[] = {{kLabel, "Class Parked On"}};
constexpr Annotation kLabelParkTimeout[] = {{kLabel, "Park Timeout"}, {kTimespan, "NANOSECONDS"}};
constexpr Annotation kLabelParkUntil[] = {{kLabel, "Park Until"}, {kTimestamp, "MILLISECONDS_SINCE_EPOCH"}};
constexpr Annotation kLabelParkAddress[] = {{kLabel, "Address of Object Parked"}};
constexpr FieldDef kThreadParkFields[] = {
    {"startTime", kLong, false, false, label(kStartTime)},
    {"duration", kLong, false, false, label(kDuration)},
    {"eventThread", kThread, true, false, label(kEventThread)},
    {"stackTrace", kStackTrace, true, false, label(kStack)},
    {"parkedClass", kClass, true, false, kLabelParkedClass},
    {"timeout", kLong, false, false, label(kLabelParkTimeout)},
    {"until", kLong, false, false, label(kLabelParkUntil)},
    {"address", kLong, false, false, kLabelParkAddress},
};
constexpr Annotation kLabelId[] = {{kLabel, "Id"}};
constexpr Annotation kLabelDestination[] = {{kLabel, "Destination"}};
constexpr Annotation kLabelMaxAge[] = {{kLabel, "Max Age"}, {kTimespan, "MILLISECONDS"}};
constexpr Annotation kLabelFlush[] = {{kLabel, "Flush Interval"}, {kTimespan, "MILLISECONDS"}};
constexpr Annotation kLabelMaxSize[] = {{kLabel, "Max Size"}, {kDataAmount, "BYTES"}};
constexpr Annotation kLabelRecordingStart[] = {{kLabel, "Start Time"}, {kTimestamp, "MILLISECONDS_SINCE_EPOCH"}};
constexpr Annotation kLabelRecordingDuration[] = {{kLabel, "Recording Duration"}, {kTimespan, "MILLISECONDS"}};
constexpr FieldDef kActiveRecordingFields[] = {
    {"startTime", kLong, false, false, label(kStartTime)},
    {"duration", kLong, false, false, label(kDuration)},
    {"eventThread", kThread, true, false, label(kEventThread)},
    {"stackTrace", kStackTrace, true, false, label(kStack)},
    {"id", kLong, false, false, kLabelId},
    {"name", kString, false, false, kLabelName},
    {"destination", kString, false, false, kLabelDestination},
    {"maxAge", kLong, false, false, kLabelMaxAge},
    {"flushInterval", kLong, false, false, kLabelFlush},
    {"maxSize", kLong, false, false, kLabelMaxSize},
    {"recordingStart", kLong, false, false, kLabelRecordingStart},
    {"recordingDuration", kLong, false, false, kLabelRecordingDuration},
};
constexpr Annotation kLabelEventId[] = {{kLabel, "Event Id"}};
constexpr Annotation kLabelSettingName[] = {{kLabel, "Setting Name"}};
constexpr Annotation kLabelSettingValue[] = {{kLabel, "Setting Value"}};
constexpr FieldDef kActiveSettingFields[] = {
    {"startTime", kLong, false, false, label(kStartTime)},
    {"duration", kLong, false, false, label(kDuration)},
    {"eventThread", kThread, true, false, label(kEventThread)},
    {"stackTrace", kStackTrace, true, false, label(kStack)},
    {"id", kLong, false, false, kLabelEventId},
    {"name", kString, false, false, kLabelSettingName},
    {"value", kString, false, false, kLabelSettingValue},
};
// async-profiler's wall-clock sample, whose readers (its converter's --wall) know it: SAMPLES is
// the ticks a sample stands for, 1 in jvmkit's.
constexpr Annotation kLabelSamples[] = {{kLabel, "Samples"}};
constexpr FieldDef kWallClockFields[] = {
    {"startTime", kLong, false, false, label(kStartTime)},
    {"sampledThread", kThread, true, false, label(kSampledThread)},
    {"stackTrace", kStackTrace, true, false, label(kStack)},
    {"state", kThreadState, true, false, kLabelState},
    {"samples", kInt, false, false, kLabelSamples},
};
constexpr Annotation kLabelEvent[] = {{kLabel, "Event"}};
constexpr FieldDef kPerfEventFields[] = {
    {"startTime", kLong, false, false, label(kStartTime)},
    {"sampledThread", kThread, true, false, label(kSampledThread)},
    {"stackTrace", kStackTrace, true, false, label(kStack)},
    {"event", kString, false, false, kLabelEvent},
    {"weight", kLong, false, false, label(kValue)},
};
// The request context of a sample (org.jvmkit.JvmkitContext), an event of its own right after the
// sample, of its time and thread: a field of the sample event would end it where readers that go
// by position do not look. Written only for a sample whose thread had a context; a field is null
// when that part of the context is unset (ChunkWriter's EventContext).
constexpr Annotation kLabelSampleType[] = {{kLabel, "Sample Event"}};
constexpr Annotation kLabelContext[] = {{kLabel, "Context Labels"}};
constexpr Annotation kLabelTraceId[] = {{kLabel, "Trace Id"}};
constexpr Annotation kLabelSpanId[] = {{kLabel, "Span Id"}};
constexpr FieldDef kSampleContextFields[] = {
    {"startTime", kLong, false, false, label(kStartTime)},   {"eventThread", kThread, true, false, label(kEventThread)},
    {"sampleType", kString, false, false, kLabelSampleType}, {"contextLabels", kString, false, false, kLabelContext},
    {"traceId", kString, false, false, kLabelTraceId},       {"spanId", kString, false, false, kLabelSpanId},
};

// --- Types ---
constexpr std::string_view kEvent = "jdk.jfr.Event";
constexpr std::string_view kAnnotationBase = "java.lang.annotation.Annotation";

constexpr Annotation kTypeThread[] = {{kLabel, "Thread"}};
constexpr Annotation kTypeClass[] = {{kLabel, "Java Class"}};
constexpr Annotation kTypePackage[] = {{kLabel, "Package"}};
constexpr Annotation kTypeThreadGroup[] = {{kLabel, "Thread Group"}};
constexpr Annotation kTypeClassLoader[] = {{kLabel, "Java Class Loader"}};
constexpr Annotation kTypeModule[] = {{kLabel, "Module"}};
constexpr Annotation kTypeSymbol[] = {{kLabel, "Symbol"}};
constexpr Annotation kTypeMethod[] = {{kLabel, "Java Method"}};
constexpr Annotation kTypeStackTrace[] = {{kLabel, "Stacktrace"}};
constexpr Annotation kTypeStackFrame[] = {{kLabel, "Stack Frame"}};
constexpr Annotation kTypeFrameType[] = {{kLabel, "Frame type"}};
constexpr Annotation kTypeThreadState[] = {{kLabel, "Java Thread State"}};
constexpr Annotation kTypeExecutionSample[] = {{kLabel, "Method Profiling Sample"},
                                               {kCategory, "Java Virtual Machine/Profiling"}};
constexpr Annotation kTypeAllocation[] = {{kLabel, "Object Allocation Sample"}, {kCategory, "Java Application"}};
constexpr Annotation kTypeMonitorEnter[] = {{kLabel, "Java Monitor Blocked"}, {kCategory, "Java Application"}};
constexpr Annotation kTypeThreadPark[] = {{kLabel, "Java Thread Park"}, {kCategory, "Java Application"}};
constexpr Annotation kTypeActiveRecording[] = {{kLabel, "Flight Recording"}, {kCategory, "Flight Recorder"}};
constexpr Annotation kTypeActiveSetting[] = {{kLabel, "Recording Setting"}, {kCategory, "Flight Recorder"}};
constexpr Annotation kTypeWallClock[] = {
    {kLabel, "Wall Clock Sample"},
    {kCategory, "jvmkit/Profiling"},
    {kDescription, "A thread's stack at a tick of the wall clock, whether the thread ran or waited"}};
constexpr Annotation kTypePerfEvent[] = {
    {kLabel, "Perf Event Sample"},
    {kCategory, "jvmkit/Profiling"},
    {kDescription, "A thread's stack when a Linux perf event counted a period of WEIGHT events"}};
constexpr Annotation kTypeSampleContext[] = {
    {kLabel, "Sample Context"},
    {kCategory, "jvmkit/Profiling"},
    {kDescription,
     "The request context (labels, trace and span) of the sample of the same time and thread "
     "that comes right before it"}};

constexpr TypeDef kTypes[] = {
    {kBoolean, "boolean", "", false, {}, {}},
    {kInt, "int", "", false, {}, {}},
    {kLong, "long", "", false, {}, {}},
    {kString, "java.lang.String", "", false, {}, {}},
    {kLabel, "jdk.jfr.Label", kAnnotationBase, false, {}, kAnnotationValue},
    {kDescription, "jdk.jfr.Description", kAnnotationBase, false, {}, kAnnotationValue},
    {kCategory, "jdk.jfr.Category", kAnnotationBase, false, {}, kCategoryValue},
    {kTimestamp, "jdk.jfr.Timestamp", kAnnotationBase, false, {}, kAnnotationValue},
    {kTimespan, "jdk.jfr.Timespan", kAnnotationBase, false, {}, kAnnotationValue},
    {kDataAmount, "jdk.jfr.DataAmount", kAnnotationBase, false, {}, kAnnotationValue},
    {kThread, "java.lang.Thread", "", false, kTypeThread, kThreadFields},
    {kClass, "java.lang.Class", "", false, kTypeClass, kClassFields},
    {kPackage, "jdk.types.Package", "", false, kTypePackage, kPackageFields},
    {kThreadGroup, "jdk.types.ThreadGroup", "", false, kTypeThreadGroup, kThreadGroupFields},
    {kClassLoader, "jdk.types.ClassLoader", "", false, kTypeClassLoader, kClassLoaderFields},
    {kModule, "jdk.types.Module", "", false, kTypeModule, kModuleFields},
    {kSymbol, "jdk.types.Symbol", "", true, kTypeSymbol, kSymbolFields},
    {kMethod, "jdk.types.Method", "", false, kTypeMethod, kMethodFields},
    {kStackTrace, "jdk.types.StackTrace", "", false, kTypeStackTrace, kStackTraceFields},
    {kStackFrame, "jdk.types.StackFrame", "", false, kTypeStackFrame, kStackFrameFields},
    {kFrameType, "jdk.types.FrameType", "", true, kTypeFrameType, kFrameTypeFields},
    {kThreadState, "jdk.types.ThreadState", "", true, kTypeThreadState, kThreadStateFields},
    {kExecutionSample, "jdk.ExecutionSample", kEvent, false, kTypeExecutionSample, kExecutionSampleFields},
    {kObjectAllocationSample, "jdk.ObjectAllocationSample", kEvent, false, kTypeAllocation, kAllocationFields},
    {kJavaMonitorEnter, "jdk.JavaMonitorEnter", kEvent, false, kTypeMonitorEnter, kMonitorEnterFields},
    {kThreadPark, "jdk.ThreadPark", kEvent, false, kTypeThreadPark, kThreadParkFields},
    {kActiveRecording, "jdk.ActiveRecording", kEvent, false, kTypeActiveRecording, kActiveRecordingFields},
    {kActiveSetting, "jdk.ActiveSetting", kEvent, false, kTypeActiveSetting, kActiveSettingFields},
    {kWallClockSample, "profiler.WallClockSample", kEvent, false, kTypeWallClock, kWallClockFields},
    {kPerfEventSample, "jvmkit.PerfEventSample", kEvent, false, kTypePerfEvent, kPerfEventFields},
    {kSampleContext, "jvmkit.SampleContext", kEvent, false, kTypeSampleContext, kSampleContextFields},
};

// The element tree of the metadata event, its strings replaced by indices into one table.
using Attributes = std::vector<std::pair<std::string, std::string>>;

class ElementWriter {
 public:
  explicit ElementWriter(Buffer& tree) : tree_(tree) {}

  // An element with ATTRIBUTES; CHILDREN elements follow it.
  void element(std::string_view name, const Attributes& attributes, size_t children) {
    tree_.varint(index(name));
    tree_.varint(attributes.size());
    for (const auto& [key, value] : attributes) {
      tree_.varint(index(key));
      tree_.varint(index(value));
    }
    tree_.varint(children);
  }

  void annotations(std::span<const Annotation> list) {
    for (const Annotation& a : list) {
      Attributes attributes = {{"class", std::to_string(a.type)}};
      if (a.type != kCategory) {
        attributes.emplace_back("value", std::string(a.value));
      } else {
        // An array value: one attribute per element, "value-0", "value-1"...
        std::string_view rest = a.value;
        for (size_t i = 0; !rest.empty(); i++) {
          const size_t slash = rest.find('/');
          attributes.emplace_back("value-" + std::to_string(i), std::string(rest.substr(0, slash)));
          rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
        }
      }
      element("annotation", attributes, 0);
    }
  }

  void strings(Buffer& out) const {
    out.varint(strings_.size());
    for (const std::string& s : strings_) out.string(s);
  }

 private:
  size_t index(std::string_view s) {
    auto [it, added] = ids_.try_emplace(std::string(s), strings_.size());
    if (added) strings_.emplace_back(s);
    return it->second;
  }

  Buffer& tree_;
  std::vector<std::string> strings_;
  std::unordered_map<std::string, size_t> ids_;
};

void write_type(ElementWriter& w, const TypeDef& type) {
  Attributes attributes = {{"name", std::string(type.name)}, {"id", std::to_string(type.id)}};
  if (!type.super_type.empty()) attributes.emplace_back("superType", std::string(type.super_type));
  if (type.simple) attributes.emplace_back("simpleType", "true");
  w.element("class", attributes, type.annotations.size() + type.fields.size());
  w.annotations(type.annotations);
  for (const FieldDef& f : type.fields) {
    Attributes field = {{"name", std::string(f.name)}, {"class", std::to_string(f.type)}};
    if (f.pool) field.emplace_back("constantPool", "true");
    if (f.array) field.emplace_back("dimension", "1");
    w.element("field", field, f.annotations.size());
    w.annotations(f.annotations);
  }
}

}  // namespace

std::span<const TypeDef> metadata_types() { return kTypes; }

const TypeDef* find_type(uint64_t id) {
  for (const TypeDef& t : kTypes)
    if (t.id == id) return &t;
  return nullptr;
}

void write_metadata_event(Buffer& out, int64_t ticks) {
  Buffer tree;
  ElementWriter w(tree);
  w.element("root", {}, 2);
  w.element("metadata", {}, std::size(kTypes));
  for (const TypeDef& type : kTypes) write_type(w, type);
  // The region: times are shown in UTC, the locale's conventions are English.
  w.element("region", {{"locale", "en_US"}, {"gmtOffset", "0"}}, 0);

  Buffer body;
  body.varint(kMetadataEvent);
  body.varint_signed(ticks);
  body.varint(0);  // duration
  body.varint(1);  // metadata id: every chunk declares the same types, readers may keep the first
  w.strings(body);
  body.append(tree.bytes());
  out.sized(body.bytes());
}

}  // namespace jvmkit::jfr
