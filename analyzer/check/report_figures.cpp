#include "analyzer/check/report_figures.h"

#include <cmath>
#include <cstdint>
#include <optional>

namespace bubblescope::analysis {
namespace {

using nlohmann::json;

// An integer of the document as an int64, or none beyond it (nlohmann keeps those unsigned).
std::optional<int64_t> asInt64(const json& v) {
  if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
    return std::nullopt;
  }
  return v.get<int64_t>();
}

class Reader {
 public:
  explicit Reader(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw CheckInputError(source_ + ": " + what);
  }

  const json& field(const json& obj, const char* key, const std::string& path) const {
    if (!obj.is_object() || !obj.contains(key)) {
      fail("not a complete bubblescope report (" + path + "." + key + " is missing)");
    }
    return obj[key];
  }

  // An integer from `lo` to `hi`: a cast would wrap the rest (dp_rank 2^32 was pipeline 0).
  int64_t integer(const json& obj, const char* key, const std::string& path, int64_t lo,
                  int64_t hi) const {
    const json& v = field(obj, key, path);
    if (!v.is_number_integer())
      fail("not a valid bubblescope report (" + path + "." + key + " is not an integer)");
    const std::optional<int64_t> n = asInt64(v);
    if (!n || *n < lo || *n > hi) {
      fail("not a valid bubblescope report (" + path + "." + key + " = " + v.dump() +
           " is out of range " + std::to_string(lo) + " to " + std::to_string(hi) + ")");
    }
    return *n;
  }

  // A duration in nanoseconds, 0 or more.
  TimeNs nanoseconds(const json& obj, const char* key, const std::string& path) const {
    return integer(obj, key, path, 0, INT64_MAX);
  }

  // A duration in nanoseconds written as any JSON number (the utilization's means): a cast of a
  // double beyond int64 is undefined.
  TimeNs roundedNanoseconds(const json& obj, const char* key, const std::string& path) const {
    const double v = number(obj, key, path);
    if (!(v >= 0 && v < 9.2e18)) {
      fail("not a valid bubblescope report (" + path + "." + key + " = " + json(v).dump() +
           " is not a duration in nanoseconds)");
    }
    return std::llround(v);
  }

  std::string text(const json& obj, const char* key, const std::string& path) const {
    const json& v = field(obj, key, path);
    if (!v.is_string())
      fail("not a valid bubblescope report (" + path + "." + key + " is not text)");
    return v.get<std::string>();
  }

  double number(const json& obj, const char* key, const std::string& path) const {
    const json& v = field(obj, key, path);
    if (!v.is_number())
      fail("not a valid bubblescope report (" + path + "." + key + " is not a number)");
    return v.get<double>();
  }

  const std::string& source() const { return source_; }

 private:
  std::string source_;
};

PipelineFigures pipelineFigures(const Reader& r, const json& pl, const std::string& path) {
  PipelineFigures f;
  f.dpRank = static_cast<int>(r.integer(pl, "dp_rank", path, 0, INT32_MAX));
  const json& schedule = r.field(pl, "schedule", path);
  if (schedule.is_object()) {
    if (schedule.contains("name")) f.schedule = r.text(schedule, "name", path + ".schedule");
    if (schedule.contains("m")) {
      f.m = static_cast<int>(r.integer(schedule, "m", path + ".schedule", 0, INT32_MAX));
    }
  }
  const json& total = r.field(pl, "total", path);
  f.span = r.nanoseconds(total, "span_ns", path + ".total");
  f.idle = r.nanoseconds(total, "idle_ns", path + ".total");
  const json& classes = r.field(total, "idle_by_class_ns", path + ".total");
  for (int c = 0; c < kIdleClasses; ++c) {
    const char* key = idleClassKey(idleClassAt(c));
    // Classes are all written; a missing one reads as zero (it never occurred).
    if (classes.is_object() && classes.contains(key)) {
      f.idleByClass[c] = r.nanoseconds(classes, key, path + ".total.idle_by_class_ns");
    }
  }
  f.slowdown = r.number(pl, "slowdown", path);
  const json& step = r.field(pl, "step_time_ns", path);
  f.stepTime = r.nanoseconds(step, "measured", path + ".step_time_ns");
  f.idealStepTime = r.nanoseconds(step, "ideal", path + ".step_time_ns");
  const json& stages = r.field(pl, "stages", path);
  if (!stages.is_array() || stages.empty()) {
    r.fail("not a valid bubblescope report (" + path + ".stages is not a list of stages)");
  }
  f.p = static_cast<int>(stages.size());
  for (size_t s = 0; s < stages.size(); ++s) {
    f.stageSlowdown.push_back(
        r.number(stages[s], "slowdown", path + ".stages[" + std::to_string(s) + "]"));
  }
  return f;
}

}  // namespace

double PipelineFigures::bubbleShare() const {
  return span > 0 ? static_cast<double>(idle) / static_cast<double>(span) : 0.0;
}

double PipelineFigures::classShare(int c) const {
  return span > 0 ? static_cast<double>(idleByClass[c]) / static_cast<double>(span) : 0.0;
}

// A utilization report (analysis.md §7) compared as one "pipeline" of its ranks.
PipelineFigures utilizationFigures(const Reader& r, const json& u) {
  PipelineFigures f;
  f.utilization = true;
  f.schedule = "no pipeline";
  f.p = static_cast<int>(r.field(u, "ranks", "utilization").size());
  const json& total = r.field(u, "total", "utilization");
  f.span = r.roundedNanoseconds(total, "span_ns", "utilization.total");
  f.idle = r.roundedNanoseconds(total, "idle_ns", "utilization.total");
  f.stepTime = r.roundedNanoseconds(u, "mean_step_time_ns", "utilization");
  return f;
}

ReportFigures figuresFromJson(const json& doc, const std::string& source) {
  const Reader r(source);
  if (!doc.is_object() || doc.value("tool", json()) != "bubblescope" ||
      !doc.contains("schema_version")) {
    r.fail(
        "not a bubblescope report (no \"tool\": \"bubblescope\" and \"schema_version\"; "
        "write one with 'bubblescope analyze RUN --format json')");
  }
  ReportFigures out;
  out.source = source;
  const json& version = doc["schema_version"];
  if (!version.is_number_integer() || asInt64(version).value_or(1) < 1) {
    r.fail("not a bubblescope report (schema_version is not a positive integer)");
  }
  // Compared before it is narrowed: 4294967298 cast to int was 2.
  if (asInt64(version).value_or(INT64_MAX) > AnalysisResult::kSchemaVersion) {
    r.fail("written by a newer bubblescope (report schema_version " + version.dump() +
           "; this one reads up to " + std::to_string(AnalysisResult::kSchemaVersion) +
           "): upgrade bubblescope");
  }
  out.schemaVersion = static_cast<int>(version.get<int64_t>());
  const json& pipelines = r.field(doc, "pipelines", "report");
  if (pipelines.is_array() && pipelines.empty() && doc.contains("utilization")) {
    out.pipelines.push_back(utilizationFigures(r, doc["utilization"]));
    return out;
  }
  if (!pipelines.is_array() || pipelines.empty()) {
    r.fail("not a valid bubblescope report (no pipelines)");
  }
  for (size_t i = 0; i < pipelines.size(); ++i) {
    out.pipelines.push_back(
        pipelineFigures(r, pipelines[i], "pipelines[" + std::to_string(i) + "]"));
  }
  return out;
}

ReportFigures figuresFromText(std::string_view text, const std::string& source) {
  json doc;
  std::string key;  // the last key read: a number beyond a double's range is named by it
  try {
    doc = json::parse(text, [&key](int, json::parse_event_t event, json& parsed) {
      if (event == json::parse_event_t::key) key = parsed.get<std::string>();
      return true;
    });
  } catch (const json::parse_error& e) {
    throw CheckInputError(source + ": not JSON (syntax error at byte " + std::to_string(e.byte) +
                          ")");
  } catch (const json::out_of_range&) {
    throw CheckInputError(source + ": not a valid bubblescope report (\"" + key +
                          "\" holds a number beyond a double's range)");
  }
  return figuresFromJson(doc, source);
}

}  // namespace bubblescope::analysis
