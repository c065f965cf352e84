#include "analyzer/check/report_figures.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "traces/errors.h"
#include "traces/files/input_path.h"

namespace bubblescope::analysis {
namespace {

using nlohmann::json;

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

  int64_t integer(const json& obj, const char* key, const std::string& path) const {
    const json& v = field(obj, key, path);
    if (!v.is_number_integer())
      fail("not a valid bubblescope report (" + path + "." + key + " is not an integer)");
    return v.get<int64_t>();
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
  f.dpRank = static_cast<int>(r.integer(pl, "dp_rank", path));
  const json& schedule = r.field(pl, "schedule", path);
  if (schedule.is_object()) {
    f.schedule = schedule.value("name", "");
    f.m = schedule.value("m", 0);
  }
  const json& total = r.field(pl, "total", path);
  f.span = r.integer(total, "span_ns", path + ".total");
  f.idle = r.integer(total, "idle_ns", path + ".total");
  const json& classes = r.field(total, "idle_by_class_ns", path + ".total");
  for (int c = 0; c < kIdleClasses; ++c) {
    const char* key = idleClassKey(idleClassAt(c));
    // Classes are all written; a missing one reads as zero (it never occurred).
    if (classes.is_object() && classes.contains(key)) {
      f.idleByClass[c] = r.integer(classes, key, path + ".total.idle_by_class_ns");
    }
  }
  f.slowdown = r.number(pl, "slowdown", path);
  const json& step = r.field(pl, "step_time_ns", path);
  f.stepTime = r.integer(step, "measured", path + ".step_time_ns");
  f.idealStepTime = r.integer(step, "ideal", path + ".step_time_ns");
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
  f.span = static_cast<TimeNs>(r.number(total, "span_ns", "utilization.total"));
  f.idle = static_cast<TimeNs>(r.number(total, "idle_ns", "utilization.total"));
  f.stepTime = static_cast<TimeNs>(r.number(u, "mean_step_time_ns", "utilization"));
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
  if (!version.is_number_integer() || version.get<int64_t>() < 1) {
    r.fail("not a bubblescope report (schema_version is not a positive integer)");
  }
  out.schemaVersion = static_cast<int>(version.get<int64_t>());
  if (out.schemaVersion > AnalysisResult::kSchemaVersion) {
    r.fail("written by a newer bubblescope (report schema_version " +
           std::to_string(out.schemaVersion) + "; this one reads up to " +
           std::to_string(AnalysisResult::kSchemaVersion) + "): upgrade bubblescope");
  }
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

ReportFigures readReportFile(const std::filesystem::path& file) {
  const std::string name = file.string();
  traces::InputKind kind;
  try {
    kind = traces::checkInputPath(file);
  } catch (const traces::TraceError& e) {
    throw CheckInputError(e.what());
  }
  if (kind == traces::InputKind::Directory) {
    throw CheckInputError(name +
                          ": is a directory, not a JSON report (write one with 'bubblescope "
                          "analyze RUN --format json -o FILE')");
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) throw CheckInputError(name + ": cannot be read (" + std::strerror(errno) + ")");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw CheckInputError(name + ": cannot be read (" + std::strerror(errno) + ")");
  json doc;
  try {
    doc = json::parse(text.str());
  } catch (const json::parse_error& e) {
    throw CheckInputError(name + ": not JSON (syntax error at byte " + std::to_string(e.byte) +
                          ")");
  }
  return figuresFromJson(doc, name);
}

}  // namespace bubblescope::analysis
