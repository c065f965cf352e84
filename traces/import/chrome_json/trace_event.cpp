#include "traces/import/chrome_json/trace_event.h"

#include <simdjson.h>

#include <charconv>
#include <cmath>

#include "traces/import/chrome_json/microseconds.h"

namespace bubblescope::traces::import {

static_assert(kJsonPadding == simdjson::SIMDJSON_PADDING);

namespace {

using simdjson::ondemand::json_type;
using simdjson::ondemand::value;

std::string_view trimmed(std::string_view s) {
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\n' || s.back() == '\r' || s.back() == '\t')) {
    s.remove_suffix(1);
  }
  return s;
}

json_type typeOf(value& v) {
  json_type t = json_type::null;
  if (v.type().get(t)) return json_type::null;
  return t;
}

// Integers as numbers, whole floats (3.0) or numeric strings: tools disagree on which. A number
// that is no integer (1.5, 1e30) sets `*notInteger`: read as 1 or 2 it would be another id.
std::optional<int64_t> toInt(value v, bool* notInteger) {
  switch (typeOf(v)) {
    case json_type::number: {
      int64_t i = 0;
      if (!v.get_int64().get(i)) return i;
      double d = 0;
      if (!v.get_double().get(d) && std::isfinite(d) && std::fabs(d) < 9.2e18 &&
          d == std::floor(d)) {
        return static_cast<int64_t>(d);
      }
      *notInteger = true;
      return std::nullopt;
    }
    case json_type::string: {
      std::string_view s = v.get_string();
      int64_t i = 0;
      auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), i);
      if (ec == std::errc() && ptr == s.data() + s.size()) return i;
      return std::nullopt;
    }
    default:
      return std::nullopt;
  }
}

std::string_view toText(value v) {
  switch (typeOf(v)) {
    case json_type::string:
      return v.get_string();
    case json_type::array: {
      simdjson::ondemand::array array = v.get_array();
      return array.raw_json();
    }
    default:
      return trimmed(v.raw_json_token());
  }
}

}  // namespace

Category categoryOf(std::string_view c) {
  // Most frequent first: a trace is mostly CPU ops, API calls, kernels and their flow arrows.
  if (c == "cpu_op") return Category::CpuOp;
  if (c == "cuda_runtime") return Category::CudaRuntime;
  if (c == "kernel") return Category::Kernel;
  if (c == "ac2g" || c == "fwdbwd" || c == "async_cpu_to_gpu") return Category::Flow;
  if (c == "user_annotation") return Category::UserAnnotation;
  if (c == "gpu_user_annotation") return Category::GpuUserAnnotation;
  if (c == "gpu_memcpy" || c == "Memcpy") return Category::Memcpy;
  if (c == "gpu_memset" || c == "Memset") return Category::Memset;
  if (c == "cuda_driver") return Category::CudaDriver;
  if (c == "cuda_sync") return Category::CudaSync;
  if (c == "python_function") return Category::PythonFunction;
  if (c == "Kernel") return Category::Kernel;
  if (c == "Runtime") return Category::CudaRuntime;
  if (c == "operator" || c == "Operator") return Category::CpuOp;
  return Category::Other;
}

bool isKinetoCategory(Category c) {
  return c != Category::Other;
}

#define BUBBLESCOPE_TEXT(x) #x
#define BUBBLESCOPE_NAME_OF(x) BUBBLESCOPE_TEXT(x)
JsonKernels jsonKernels() {
  return {BUBBLESCOPE_NAME_OF(SIMDJSON_BUILTIN_IMPLEMENTATION),
          simdjson::get_active_implementation()->name()};
}
#undef BUBBLESCOPE_NAME_OF
#undef BUBBLESCOPE_TEXT

struct TraceEventParser::Impl {
  simdjson::ondemand::parser event;
  simdjson::ondemand::parser args;
};

TraceEventParser::TraceEventParser() : impl_(std::make_unique<Impl>()) {}
TraceEventParser::~TraceEventParser() = default;

bool TraceEventParser::parse(std::string_view json, size_t capacity, TraceEvent& out) {
  out = TraceEvent{};
  try {
    auto doc = impl_->event.iterate(json.data(), json.size(), capacity);
    for (auto field : doc.get_object()) {
      const simdjson::ondemand::raw_json_string key = field.key();
      value v = field.value();
      if (key == "ph") {
        const std::string_view ph = v.get_string();
        out.ph = ph.empty() ? 0 : ph[0];
      } else if (key == "cat") {
        out.catName = v.get_string();
        out.cat = categoryOf(out.catName);
      } else if (key == "name") {
        if (typeOf(v) == json_type::string) out.name = v.get_string();
      } else if (key == "ts") {
        out.ts = microsToNs(v.raw_json_token());
      } else if (key == "dur") {
        out.dur = microsToNs(v.raw_json_token());
      } else if (key == "pid" || key == "tid") {
        const bool isPid = key == "pid";
        int64_t& id = isPid ? out.pid : out.tid;
        std::string_view& text = isPid ? out.pidText : out.tidText;
        bool& isText = isPid ? out.pidIsText : out.tidIsText;
        const json_type t = typeOf(v);
        if (t == json_type::number) {
          bool notInteger = false;
          if (auto i = toInt(v, &notInteger)) id = *i;
          if (notInteger) return false;  // a malformed event: pid 1.5 is no process
        } else if (t == json_type::string) {
          text = v.get_string();
          int64_t i = 0;
          auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), i);
          isText = !(ec == std::errc() && ptr == text.data() + text.size() && !text.empty());
          if (!isText) {
            id = i;
            text = {};
          }
        }
      } else if (key == "args") {
        if (typeOf(v) == json_type::object) {
          simdjson::ondemand::object args = v.get_object();
          out.args = args.raw_json();
          out.argsCapacity = capacity - static_cast<size_t>(out.args.data() - json.data());
        }
      }
    }
    return true;
  } catch (const simdjson::simdjson_error&) {
    return false;
  }
}

bool TraceEventParser::parseArgs(const TraceEvent& e, TraceEventArgs& a) {
  a = TraceEventArgs{};
  if (e.args.empty()) return true;
  bool notInteger = false;  // an integer arg given as 1.5: the args are malformed
  try {
    auto doc = impl_->args.iterate(e.args.data(), e.args.size(), e.argsCapacity);
    for (auto field : doc.get_object()) {
      const std::string_view key = field.unescaped_key();
      value v = field.value();
      if (key.empty()) continue;
      switch (key[0]) {
        case 'c':
          if (key == "correlation")
            a.correlation = toInt(v, &notInteger);
          else if (key == "chunk")
            a.chunk = toInt(v, &notInteger);
          break;
        case 'E':
          if (key == "External id") a.externalId = toInt(v, &notInteger);
          break;
        case 'd':
          if (key == "device")
            a.device = toInt(v, &notInteger);
          else if (key == "dtype")
            a.dtype = toText(v);
          else if (key == "dp_rank")
            a.dpRank = toInt(v, &notInteger);
          break;
        case 's':
          if (key == "stream")
            a.stream = toInt(v, &notInteger);
          else if (key == "step")
            a.step = toInt(v, &notInteger);
          else if (key == "stage" || key == "stage_id")
            a.stage = toInt(v, &notInteger);
          break;
        case 'b':
          if (key == "bytes") a.bytes = toInt(v, &notInteger);
          break;
        case 'C':
          if (key == "Collective name") a.collective = toText(v);
          break;
        case 'P':
          if (key == "Process Group Name")
            a.pgName = toText(v);
          else if (key == "Process Group Description")
            a.pgDesc = toText(v);
          else if (key == "Process Group Ranks")
            a.pgRanks = toText(v);
          else if (key == "Process Group ID" && a.pgName.empty())
            a.pgName = toText(v);
          break;
        case 'I':
          if (key == "In msg nelems") a.inNelems = toInt(v, &notInteger);
          break;
        case 'O':
          if (key == "Out msg nelems") a.outNelems = toInt(v, &notInteger);
          break;
        case 'G':
          if (key == "Group size") a.groupSize = toInt(v, &notInteger);
          break;
        case 'S':
          if (key == "Src Rank")
            a.srcRank = toInt(v, &notInteger);
          else if (key == "Seq")
            a.seq = toInt(v, &notInteger);
          break;
        case 'D':
          if (key == "Dst Rank")
            a.dstRank = toInt(v, &notInteger);
          else if (key == "Device Type")
            a.deviceType = toInt(v, &notInteger);
          else if (key == "Device Id")
            a.deviceId = toInt(v, &notInteger);
          break;
        case 'T':
          if (key == "Total Allocated")
            a.totalAllocated = toInt(v, &notInteger);
          else if (key == "Total Reserved")
            a.totalReserved = toInt(v, &notInteger);
          break;
        case 'n':
          if (key == "name") a.name = toText(v);
          break;
        case 'l':
          if (key == "labels") a.labels = toText(v);
          break;
        case 'm':
          if (key == "mb_id" || key == "mb" || key == "microbatch" || key == "micro_batch") {
            a.mb = toInt(v, &notInteger);
          } else if (key == "model_chunk") {
            a.chunk = toInt(v, &notInteger);
          }
          break;
        case 'i':
          if (key == "iteration") a.step = toInt(v, &notInteger);
          break;
        case 'v':
          if (key == "vpp_rank" || key == "virtual_pp_rank") a.chunk = toInt(v, &notInteger);
          break;
        case 'p':
          if (key == "pp_rank" || key == "pp_stage") a.stage = toInt(v, &notInteger);
          break;
        default:
          break;
      }
    }
  } catch (const simdjson::simdjson_error&) {
    return false;
  }
  if (notInteger) a = TraceEventArgs{};
  return !notInteger;
}

}  // namespace bubblescope::traces::import
