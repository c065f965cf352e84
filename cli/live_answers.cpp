#include "cli/live_answers.h"

#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "traces/errors.h"
#include "traces/files/input_path.h"

namespace bubblescope::cli {
namespace {

constexpr const char* kKind = "hang-answers";
constexpr size_t kMaxBytes = size_t{256} << 20;  // 4096 processes' full replies, with room

}  // namespace

std::string answersJson(const std::vector<control::Reply>& replies, const std::string& host) {
  nlohmann::json answers = nlohmann::json::array();
  for (const control::Reply& r : replies) answers.push_back(r.fields);
  // In this order: isAnswersFile() looks for the kind in the first bytes.
  nlohmann::ordered_json file;
  file["tool"] = "bubblescope";
  file["kind"] = kKind;
  file["host"] = host;
  file["answers"] = answers;
  return file.dump(1) + "\n";
}

bool isAnswersFile(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return false;
  std::ifstream in(path, std::ios::binary);
  std::string head(256, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<size_t>(in.gcount()));
  return head.find(std::string("\"kind\": \"") + kKind + "\"") != std::string::npos;
}

std::vector<control::Reply> readAnswers(const std::filesystem::path& path) {
  traces::checkInputFile(path);
  std::ifstream in(path, std::ios::binary);
  std::string text;
  text.assign(std::istreambuf_iterator<char>(in), {});
  if (!in.eof() && in.fail()) throw traces::TraceError(path, "cannot be read");
  if (text.size() > kMaxBytes) throw traces::TraceError(path, "is too large for saved answers");
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object() || j.value("kind", "") != kKind ||
      !j.contains("answers") || !j["answers"].is_array()) {
    throw traces::TraceError(path, "is not a file of answers saved by 'bubblescope hang --save'");
  }
  std::vector<control::Reply> out;
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
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace bubblescope::cli
