#include "traces/import/chrome_json/kineto/distributed_info.h"

#include <simdjson.h>

#include <charconv>
#include <cstdint>
#include <string>

#include "traces/errors.h"
#include "traces/format/field_range.h"
#include "traces/import/chrome_json/kineto/kineto_comms.h"

namespace bubblescope::traces::import {
namespace {

using simdjson::ondemand::json_type;
using simdjson::ondemand::value;

// Any scalar as text: numbers as written, strings unquoted; arrays as their JSON.
std::string text(value v) {
  json_type t = json_type::null;
  if (v.type().get(t)) return {};
  if (t == json_type::string) return std::string(std::string_view(v.get_string()));
  if (t == json_type::array) {
    simdjson::ondemand::array array = v.get_array();
    return std::string(std::string_view(array.raw_json()));
  }
  if (t == json_type::object) {
    simdjson::ondemand::object object = v.get_object();
    return std::string(std::string_view(object.raw_json()));
  }
  std::string_view raw = v.raw_json_token();
  while (!raw.empty() && (raw.back() == ' ' || raw.back() == '\n' || raw.back() == '\r')) {
    raw.remove_suffix(1);
  }
  return std::string(raw);
}

std::string joined(const std::vector<int>& ranks) {
  std::string out;
  for (int r : ranks) out += (out.empty() ? "" : ",") + std::to_string(r);
  return out;
}

// A rank-like number, or `fallback` when the text is no integer; an integer outside [lo,
// INT32_MAX] is a TraceError naming the field.
int rankLike(const std::string& s, int fallback, int64_t lo, const std::filesystem::path& file,
             const char* field) {
  int64_t v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ptr != s.data() + s.size()) return fallback;
  if (ec == std::errc::result_out_of_range) {
    throw TraceError(file, std::string(field) + " = " + s.substr(0, 40) + " is out of range (" +
                               std::to_string(lo) + " to " + std::to_string(INT32_MAX) + ")");
  }
  if (ec != std::errc()) return fallback;
  return fieldInRange<int>(file, field, v, lo, INT32_MAX);
}

}  // namespace

bool applyDistributedInfo(std::string_view json, size_t capacity, RankMeta& meta,
                          const std::filesystem::path& file) {
  simdjson::ondemand::parser parser;
  try {
    auto doc = parser.iterate(json.data(), json.size(), capacity);
    int groups = 0;
    for (auto field : doc.get_object()) {
      const std::string key(std::string_view(field.unescaped_key()));
      value v = field.value();
      if (key == "rank") {
        meta.rank = rankLike(text(v), meta.rank, 0, file, "distributedInfo.rank");
      } else if (key == "world_size") {
        meta.worldSize = rankLike(text(v), meta.worldSize, 1, file, "distributedInfo.world_size");
      } else if (key == "backend" || key == "nccl_version" || key == "pg_count") {
        meta.extra["kineto." + key] = text(v);
      } else if (key == "pg_config") {
        json_type t = json_type::null;
        if (v.type().get(t) || t != json_type::array) continue;
        for (auto element : v.get_array()) {
          simdjson::ondemand::object pg;
          if (element.get_object().get(pg)) continue;
          const std::string prefix = "kineto.pg." + std::to_string(groups++) + ".";
          for (auto f : pg) {
            const std::string k(std::string_view(f.unescaped_key()));
            value pv = f.value();
            if (k == "pg_name")
              meta.extra[prefix + "name"] = text(pv);
            else if (k == "pg_desc" || (k == "uid" && !meta.extra.count(prefix + "desc")))
              meta.extra[prefix + "desc"] = text(pv);
            else if (k == "pg_size")
              meta.extra[prefix + "size"] = text(pv);
            else if (k == "ranks")
              meta.extra[prefix + "ranks"] = joined(parseRankList(text(pv)));
            else if (k == "backend_config")
              meta.extra[prefix + "backend"] = text(pv);
          }
        }
      }
    }
    if (groups > 0) meta.extra["kineto.pg_count"] = std::to_string(groups);
    return true;
  } catch (const simdjson::simdjson_error&) {
    return false;
  }
}

}  // namespace bubblescope::traces::import
