#include "cli/live_answers.h"

#include <unistd.h>

#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "traces/errors.h"
#include "traces/files/input_path.h"
#include "traces/json/json_writer.h"

namespace bubblescope::cli {
namespace {

constexpr size_t kMaxBytes = size_t{256} << 20;  // 4096 processes' full replies, with room

}  // namespace

std::string hostName() {
  char name[256] = {};
  return ::gethostname(name, sizeof name - 1) == 0 ? std::string(name) : std::string();
}

void writeAnswersJson(const std::vector<control::Reply>& replies, const std::string& host,
                      double minWaitSeconds, std::ostream& stream) {
  // The members in the order the file always had them (nlohmann::ordered_json's), each answer's
  // fields sorted by name (its std::map).
  traces::JsonWriter out(stream, 1);
  out.beginObject();
  out.field("tool", "bubblescope");
  out.field("kind", kAnswersKind);
  out.field("host", host);
  out.field("min_wait_s", minWaitSeconds);
  out.key("answers").beginArray();
  for (const control::Reply& r : replies) {
    out.beginObject();
    for (const auto& [name, value] : r.fields) out.field(name, value);
    out.endObject();
  }
  out.endArray();
  out.endObject();
  out.flush();
  stream << "\n";
}

SavedAnswers readAnswers(const std::filesystem::path& path) {
  traces::checkInputFile(path);
  std::ifstream in(path, std::ios::binary);
  std::string text;
  text.assign(std::istreambuf_iterator<char>(in), {});
  if (!in.eof() && in.fail()) throw traces::TraceError(path, "cannot be read");
  return parseAnswers(text, path);
}

SavedAnswers parseAnswers(std::string_view text, const std::filesystem::path& path) {
  if (text.size() > kMaxBytes) throw traces::TraceError(path, "is too large for saved answers");
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  // "kind" compared as JSON: value("kind", "") threw on a number, in a file hang took for
  // answers by an earlier "kind" (cli/input_kind.h reads the first, the parser keeps the last).
  if (j.is_discarded() || !j.is_object() || j.value("kind", nlohmann::json()) != kAnswersKind ||
      !j.contains("answers") || !j["answers"].is_array()) {
    throw traces::TraceError(path, "is not a file of answers saved by 'bubblescope hang --save'");
  }
  SavedAnswers out;
  if (j.contains("min_wait_s")) {
    const nlohmann::json& w = j["min_wait_s"];
    if (!w.is_number() || !(w.get<double>() >= 0) || w.get<double>() > 365.0 * 86400) {
      throw traces::TraceError(path, "min_wait_s is not a number of seconds, 0 or more");
    }
    out.minWaitSeconds = w.get<double>();
  }
  if (j.contains("host") && j["host"].is_string()) out.host = j["host"].get<std::string>();
  for (const nlohmann::json& a : j["answers"]) {
    if (!a.is_object()) throw traces::TraceError(path, "holds an answer that is not an object");
    control::Reply r;
    r.ok = true;
    for (const auto& [key, value] : a.items()) {
      if (!value.is_string()) {
        throw traces::TraceError(path, "answer field '" + key + "' is not a string");
      }
      r.fields[key] = value.get<std::string>();
    }
    out.replies.push_back(std::move(r));
  }
  return out;
}

}  // namespace bubblescope::cli
