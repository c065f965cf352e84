#include "traces/import/chrome_json/ndtimeline/ndtimeline_names.h"

#include <charconv>

namespace bubblescope::traces::import::ndtimeline {
namespace {

constexpr std::string_view kNonOverlapping = "-nonoverlapping";

bool consume(std::string_view& s, std::string_view prefix) {
  if (!s.starts_with(prefix)) return false;
  s.remove_prefix(prefix.size());
  return true;
}

// Digits as a number; beyond int64 it reads as INT64_MAX, which no range takes: a rank too large
// is still a rank of that form, refused by its range and not taken for another name.
std::optional<int64_t> consumeInt(std::string_view& s) {
  size_t digits = 0;
  while (digits < s.size() && s[digits] >= '0' && s[digits] <= '9') ++digits;
  if (digits == 0) return std::nullopt;
  int64_t v = 0;
  if (std::from_chars(s.data(), s.data() + digits, v).ec != std::errc()) v = INT64_MAX;
  s.remove_prefix(digits);
  return v;
}

struct Name {
  std::string_view name;
  Meaning meaning;
};

// Megatron-LM's timers (megatron/core/pipeline_parallel/schedules.py, the distributed optimizer
// and DDP) as NDTimeline names them.
constexpr Name kNames[] = {
    {"forward-compute", Meaning::Forward},
    {"backward-compute", Meaning::Backward},
    {"backward-wgrad-compute", Meaning::WeightGrad},
    {"forward-send", Meaning::SendF},
    {"forward-recv", Meaning::RecvF},
    {"backward-send", Meaning::SendB},
    {"backward-recv", Meaning::RecvB},
    {"forward-send-backward-recv", Meaning::SendFRecvB},
    {"backward-send-forward-recv", Meaning::SendBRecvF},
    {"forward-send-forward-recv", Meaning::SendFRecvF},
    {"backward-send-backward-recv", Meaning::SendBRecvB},
    {"forward-backward-send-forward-backward-recv", Meaning::SendFBRecvFB},
    {"tp-allreduce", Meaning::TpCollective},
    {"tp-allgather", Meaning::TpCollective},
    {"tp-reducescatter", Meaning::TpCollective},
    {"grads-reduce-scatter", Meaning::DpCollective},
    {"params-all-gather", Meaning::DpCollective},
    {"separate-grads-all-reduce", Meaning::DpCollective},
    {"embedding-grads-all-reduce", Meaning::DpCollective},
    {"layernorm-grads-all-reduce", Meaning::DpCollective},
    {"optimizer-clip-main-grad", Meaning::Optimizer},
    {"optimizer-inner-step", Meaning::Optimizer},
    {"optimizer", Meaning::Optimizer},
    {"forward-backward", Meaning::HostWork},
    {"data-load", Meaning::HostWork},
    {"data-sync", Meaning::HostWork},
    {"gc", Meaning::HostWork},
};

}  // namespace

const char* categoryName(Category c) {
  switch (c) {
    case Category::Compute:
      return "compute";
    case Category::PpComm:
      return "pp-comm";
    case Category::TpComm:
      return "tp-comm";
    case Category::DpComm:
      return "dp-comm";
    case Category::Misc:
      break;
  }
  return "misc";
}

std::optional<ThreadPlace> parseThreadName(std::string_view s) {
  ThreadPlace out;
  if (!consume(s, "PP rank ")) return std::nullopt;
  auto pp = consumeInt(s);
  if (!pp || !consume(s, ", TP rank ")) return std::nullopt;
  auto tp = consumeInt(s);
  if (!tp) return std::nullopt;
  out.pp = *pp;
  out.tp = *tp;
  if (consume(s, ", ")) {
    for (int c = 0; c < kCategories; ++c) {
      if (s == categoryName(static_cast<Category>(c))) out.category = static_cast<Category>(c);
    }
  }
  return out;
}

std::optional<int64_t> parseProcessName(std::string_view s) {
  if (!consume(s, "DP rank ")) return std::nullopt;
  const bool bracket = consume(s, "[");
  auto d = consumeInt(s);
  if (!d || (bracket && !consume(s, "]")) || !s.empty()) return std::nullopt;
  return d;
}

bool isNonOverlapping(std::string_view name) {
  return name.ends_with(kNonOverlapping);
}

Meaning meaningOf(std::string_view name) {
  if (isNonOverlapping(name)) name.remove_suffix(kNonOverlapping.size());
  for (const Name& n : kNames) {
    if (n.name == name) return n.meaning;
  }
  return Meaning::Unknown;
}

Category categoryOf(Meaning m) {
  switch (m) {
    case Meaning::Forward:
    case Meaning::Backward:
    case Meaning::WeightGrad:
    case Meaning::Optimizer:
    case Meaning::HostWork:
      return Category::Compute;
    case Meaning::SendF:
    case Meaning::RecvF:
    case Meaning::SendB:
    case Meaning::RecvB:
    case Meaning::SendFRecvB:
    case Meaning::SendBRecvF:
    case Meaning::SendFRecvF:
    case Meaning::SendBRecvB:
    case Meaning::SendFBRecvFB:
      return Category::PpComm;
    case Meaning::TpCollective:
      return Category::TpComm;
    case Meaning::DpCollective:
      return Category::DpComm;
    case Meaning::Unknown:
      break;
  }
  return Category::Misc;
}

}  // namespace bubblescope::traces::import::ndtimeline
