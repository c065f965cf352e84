// A user's rule set, from a JSON file:
//   {"name": "my-trainer", "counts_microbatches": false, "rules": [
//     {"match": "fwd mb(\\d+)", "role": "op", "kind": "F", "mb": 1},
//     {"match": "bwd_(in|wt) mb(\\d+)", "role": "op", "kind_group": 1,
//      "kinds": {"in": "B", "wt": "W"}, "mb": 2},
//     {"match": "send act mb(\\d+) to (\\d+)", "role": "send", "kind": "F", "mb": 1, "peer": 2},
//     {"match": "iteration (\\d+)", "role": "step", "step": 1}]}
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "analyzer/recognize/rule_set.h"
#include "traces/errors.h"
#include "traces/files/input_path.h"

namespace bubblescope::analysis {
namespace {

using nlohmann::json;

OpKind parseKind(const std::string& s, const std::string& where) {
  if (s == "F") return OpKind::F;
  if (s == "B") return OpKind::B;
  if (s == "W") return OpKind::W;
  if (s == "BW") return OpKind::BW;
  throw std::invalid_argument(where + ": kind '" + s + "' is not one of F, B, W, BW");
}

Role parseRole(const std::string& s, const std::string& where) {
  static const std::map<std::string, Role> roles = {
      {"op", Role::Op},          {"send", Role::Send},           {"recv", Role::Recv},
      {"step", Role::Step},      {"optimizer", Role::Optimizer}, {"grad_sync", Role::GradSync},
      {"other", Role::OtherBusy}};
  auto it = roles.find(s);
  if (it == roles.end()) {
    throw std::invalid_argument(
        where + ": role '" + s +
        "' is not one of op, send, recv, step, optimizer, grad_sync, other");
  }
  return it->second;
}

// A capture group's number: nlohmann's value<int>() converts 8e74 to int, which is undefined
// behaviour (found by rules_json_fuzz), and -3 or 1.5 are no group either.
int groupNumber(const json& rule, const char* key, const std::string& where) {
  if (!rule.contains(key)) return 0;
  const json& v = rule[key];
  if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > 999) {
    throw std::invalid_argument(where + ": \"" + key + "\" must be a capture group number, not " +
                                v.dump().substr(0, 40));
  }
  return static_cast<int>(v.get<int64_t>());
}

// Refused before the open, which would block on a FIFO.
void checkRulesFile(const std::filesystem::path& file) {
  traces::checkInputFile(file);
}

}  // namespace

RuleSet loadRuleSet(const std::filesystem::path& file) {
  try {
    checkRulesFile(file);
  } catch (const traces::TraceError& e) {
    throw std::invalid_argument(e.what());
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::invalid_argument(file.string() + ": cannot be opened");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw std::invalid_argument(file.string() + ": cannot be read");
  return parseRuleSet(text.str(), file.string(), file.stem().string());
}

RuleSet parseRuleSet(std::string_view text, const std::string& where,
                     const std::string& defaultName) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::exception& e) {
    throw std::invalid_argument(where + ": not valid JSON (" + e.what() + ")");
  }
  RuleSet set;
  set.memo = RuleSet::newMemo();
  try {
    set.name = doc.value("name", defaultName);
    set.countsMicrobatches = doc.value("counts_microbatches", false);
    if (!doc.contains("rules") || !doc["rules"].is_array() || doc["rules"].empty()) {
      throw std::invalid_argument(where + ": needs a non-empty \"rules\" array");
    }
    int index = 0;
    for (const json& j : doc["rules"]) {
      const std::string at = where + ": rule " + std::to_string(index++);
      Rule r;
      r.source = j.at("match").get<std::string>();
      try {
        r.pattern = Pattern(r.source);
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(at + ": bad pattern '" + r.source + "' (" + e.what() + ")");
      }
      r.role = parseRole(j.value("role", "op"), at);
      if (j.contains("kind")) r.kind = parseKind(j["kind"].get<std::string>(), at);
      r.kindGroup = groupNumber(j, "kind_group", at);
      if (j.contains("kinds")) {
        for (const auto& [label, kind] : j["kinds"].items()) {
          r.kinds[label] = parseKind(kind.get<std::string>(), at);
        }
      }
      if (r.kindGroup > 0 && r.kinds.empty()) {
        throw std::invalid_argument(at + ": kind_group needs a \"kinds\" table");
      }
      r.mbGroup = groupNumber(j, "mb", at);
      r.chunkGroup = groupNumber(j, "chunk", at);
      r.peerGroup = groupNumber(j, "peer", at);
      r.stageGroup = groupNumber(j, "stage", at);
      r.stepGroup = groupNumber(j, "step", at);
      const int groups = r.pattern.groups();
      for (int g : {r.kindGroup, r.mbGroup, r.chunkGroup, r.peerGroup, r.stageGroup, r.stepGroup}) {
        if (g < 0 || g > groups) {
          throw std::invalid_argument(at + ": group " + std::to_string(g) +
                                      " but the pattern has " + std::to_string(groups));
        }
      }
      set.rules.push_back(std::move(r));
    }
  } catch (const json::exception& e) {
    throw std::invalid_argument(where + ": " + e.what());
  }
  return set;
}

}  // namespace bubblescope::analysis
