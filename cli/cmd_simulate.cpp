// `bubblescope simulate`: runs the reference simulator on a named schedule and prints its
// timeline and summary (text) or every number of it (JSON), beside what the papers predict.
#include <charconv>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/cmd_simulate.h"
#include "cli/exit_codes.h"
#include "cli/usage_error.h"
#include "reference_engine/schedule/schedule_table.h"
#include "reference_engine/sim/paper_formulas.h"
#include "reference_engine/sim/result_json.h"
#include "reference_engine/sim/simulate.h"
#include "reference_engine/sim/timeline_text.h"

namespace bubblescope::cli {
namespace {

using engine::KindCosts;
using engine::TimeNs;

// Beyond this many ops a step is no longer a schedule anyone runs; refuse rather than exhaust
// memory (p = 64, m = 1024, v = 2 is 0.26 M ops).
constexpr int64_t kMaxOps = 50'000'000;
constexpr double kNsPerMs = 1e6;
constexpr double kBytesPerMiB = 1024.0 * 1024.0;

std::vector<std::string_view> splitCommas(std::string_view text) {
  std::vector<std::string_view> parts;
  size_t begin = 0;
  while (true) {
    const size_t comma = text.find(',', begin);
    parts.push_back(text.substr(begin, comma - begin));
    if (comma == std::string_view::npos) return parts;
    begin = comma + 1;
  }
}

// A cost in ms or a size in MiB, at most a billion: nanoseconds and bytes then fit an int64 (1e300
// wrapped to a negative cost).
constexpr double kMaxAmount = 1e9;

// A non-negative decimal number up to kMaxAmount, or nothing.
std::optional<double> parseAmount(std::string_view text) {
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value) || value < 0 ||
      value > kMaxAmount) {
    return std::nullopt;
  }
  return value;
}

TimeNs msToNs(double ms) {
  return std::llround(ms * kNsPerMs);
}

// "F,B,W" or "F,B,W,BW" in ms.
KindCosts parseKindCosts(std::string_view text, const std::string& option) {
  const auto parts = splitCommas(text);
  std::vector<double> ms;
  for (auto part : parts) {
    const auto value = parseAmount(part);
    if (!value) break;
    ms.push_back(*value);
  }
  if (ms.size() != parts.size() || (ms.size() != 3 && ms.size() != 4)) {
    throw UsageError(option +
                     " expects F,B,W (or F,B,W,BW) in ms, non-negative and at most 1000000000, "
                     "e.g. 2,2,1; got '" +
                     std::string(text) + "'");
  }
  KindCosts k{msToNs(ms[0]), msToNs(ms[1]), msToNs(ms[2]), -1};
  if (ms.size() == 4) k.bw = msToNs(ms[3]);
  return k;
}

engine::SimCosts buildCosts(const SimulateArgs& a, int p) {
  engine::SimCosts costs;
  costs.perKind = parseKindCosts(a.costs, "--costs");
  if (!a.stageCosts.empty()) {
    costs.perStage.assign(p, costs.perKind);
    for (const auto& spec : a.stageCosts) {
      const size_t colon = spec.find(':');
      int stage = -1;
      if (colon != std::string::npos) {
        const auto [end, ec] = std::from_chars(spec.data(), spec.data() + colon, stage);
        if (ec != std::errc() || end != spec.data() + colon) stage = -1;
      }
      if (colon == std::string::npos || stage < 0) {
        throw UsageError("--stage-costs expects STAGE:F,B,W in ms, e.g. 3:2.5,2.5,1; got '" + spec +
                         "'");
      }
      if (stage >= p) {
        throw UsageError("--stage-costs names stage " + std::to_string(stage) + " but p=" +
                         std::to_string(p) + " (stages are 0.." + std::to_string(p - 1) + ")");
      }
      costs.perStage[stage] =
          parseKindCosts(std::string_view(spec).substr(colon + 1), "--stage-costs");
    }
  }
  const auto transfer = std::isfinite(a.transferMs) && a.transferMs >= 0
                            ? std::optional<double>(a.transferMs)
                            : std::nullopt;
  if (!transfer) throw UsageError("--transfer expects a non-negative time in ms");
  costs.transfer = msToNs(*transfer);

  const auto parts = splitCommas(a.memory);
  const auto mB = parseAmount(parts[0]);
  const auto mW = parts.size() == 2 ? parseAmount(parts[1]) : std::optional<double>(0);
  if (parts.size() > 2 || !mB || !mW || *mB <= 0) {
    throw UsageError(
        "--memory expects M_B[,M_W] in MiB with M_B > 0, at most 1000000000, e.g. "
        "1024,128; got '" +
        a.memory + "'");
  }
  costs.memory.mB = std::llround(*mB * kBytesPerMiB);
  costs.memory.mW = std::llround(*mW * kBytesPerMiB);
  return costs;
}

std::string fixed(double value, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  return buf;
}
std::string ms(TimeNs ns) {
  return fixed(static_cast<double>(ns) / kNsPerMs, 3);
}
std::string percent(double fraction) {
  return fixed(100.0 * fraction, 2) + " %";
}

std::string padRight(std::string text, size_t width) {
  if (text.size() < width) text.resize(width, ' ');
  return text;
}
std::string padLeft(const std::string& text, size_t width) {
  return text.size() < width ? std::string(width - text.size(), ' ') + text : text;
}

void printText(const engine::Schedule& s, const engine::SimCosts& costs, const engine::SimResult& r,
               int width) {
  const KindCosts& k = costs.perKind;
  std::cout << engine::scheduleName(s.kind) << ": p=" << s.p << " stages, m=" << s.m
            << " microbatches";
  if (s.v > 1) std::cout << ", v=" << s.v << " chunks per stage";
  std::cout << "\ncosts per stage and microbatch: T_F=" << ms(k.f) << " T_B=" << ms(k.b)
            << " T_W=" << ms(k.w) << " (BW " << ms(k.of(engine::OpKind::BW)) << ") ms";
  if (s.v > 1) std::cout << ", each chunk 1/" << s.v << " of it";
  std::cout << "; transfer " << ms(costs.transfer) << " ms\n";
  for (size_t st = 0; st < costs.perStage.size(); ++st) {
    if (costs.perStage[st] == k) continue;
    const KindCosts& c = costs.perStage[st];
    std::cout << "  stage " << st << ": T_F=" << ms(c.f) << " T_B=" << ms(c.b) << " T_W=" << ms(c.w)
              << " ms\n";
  }
  std::cout << "\n";

  engine::TimelineStyle style;
  style.width = width;
  style.showChunk = s.v > 1;
  std::cout << engine::renderTimeline(engine::timedOps(s, r), style) << "\n";

  const double mB = static_cast<double>(costs.memory.mB);
  std::cout << padRight("stage", 7) << padLeft("busy ms", 12) << padLeft("idle ms", 12)
            << padLeft("idle %", 10) << padLeft("span ms", 12) << padLeft("peak M_B", 10) << "\n";
  for (size_t st = 0; st < r.stages.size(); ++st) {
    const auto& t = r.stages[st];
    const double idleShare =
        r.makespan > 0 ? static_cast<double>(t.idle) / static_cast<double>(r.makespan) : 0.0;
    std::cout << padRight(std::to_string(st), 7) << padLeft(ms(t.busy), 12)
              << padLeft(ms(t.idle), 12) << padLeft(fixed(100.0 * idleShare, 2), 10)
              << padLeft(ms(t.span()), 12)
              << padLeft(fixed(static_cast<double>(t.peakMemory) / mB, 2), 10) << "\n";
  }
  std::cout << "\nmakespan            " << ms(r.makespan) << " ms\n";
  std::cout << "idle (all stages)   " << percent(r.idleFraction) << " of p x makespan\n";
  std::cout << "bubble rate         " << percent(r.bubbleRate) << " = bubble " << ms(r.bubble())
            << " ms / span " << ms(r.stages[r.longestStage].span()) << " ms of the longest stage ("
            << r.longestStage << ")\n";
  std::cout << "peak activations    " << fixed(static_cast<double>(r.peakMemory) / mB, 2)
            << " M_B (" << fixed(static_cast<double>(r.peakMemory) / kBytesPerMiB, 1) << " MiB)\n";

  const auto paper = engine::paperPrediction(s, k);
  if (!paper) return;
  std::cout << "\npaper formula       bubble " << paper->bubbleFormula << " = " << ms(paper->bubble)
            << " ms (simulated " << ms(r.bubble()) << " ms)";
  const TimeNs ideal = s.m * k.perMicrobatch();
  if (paper->bubble + ideal > 0) {
    std::cout << ", bubble rate "
              << percent(static_cast<double>(paper->bubble) /
                         static_cast<double>(paper->bubble + ideal));
  }
  std::cout << "\n                    peak activations " << paper->memoryFormula << " = "
            << fixed(paper->peakActivations, 2) << " M_B (simulated "
            << fixed(static_cast<double>(r.peakMemory) / mB, 2) << " M_B)\n";
  std::vector<std::string> caveats;
  if (!paper->conditionsHold) caveats.push_back("holds when " + paper->conditions);
  if (!costs.perStage.empty()) caveats.push_back("assumes equal stages");
  if (costs.transfer > 0) caveats.push_back("ignores transfer time");
  if (costs.memory.mW > 0) caveats.push_back("memory formula ignores M_W");
  if (!caveats.empty()) {
    std::cout << "                    (the formula ";
    for (size_t i = 0; i < caveats.size(); ++i) std::cout << (i ? "; " : "") << caveats[i];
    std::cout << ")\n";
  }
}

void printJson(const engine::Schedule& s, const engine::SimCosts& costs,
               const engine::SimResult& r) {
  engine::writeSimulationJson(s, costs, r, std::cout);
  std::cout << "\n";
}

// The --schedule keys --v applies to ("interleaved").
std::string keysTakingChunks() {
  std::string keys;
  for (const engine::NamedSchedule& named : engine::kSchedules) {
    if (named.takesChunks) keys += (keys.empty() ? "" : " and ") + std::string(named.key);
  }
  return keys;
}

}  // namespace

int runSimulate(const SimulateArgs& a) {
  if (a.format != "text" && a.format != "json") {
    throw UsageError("--format must be text or json (got '" + a.format + "')");
  }
  if (a.width < 20) throw UsageError("--width must be at least 20 columns");
  const engine::NamedSchedule* named = engine::scheduleByKey(a.schedule);
  if (a.vGiven && !(named && named->takesChunks)) {
    throw UsageError("--v applies to the " + keysTakingChunks() + " schedule only ('" + a.schedule +
                     "' has a fixed number of chunks)");
  }
  if (a.p >= 1 && a.m >= 1 && static_cast<int64_t>(a.p) * a.m * std::max(a.v, 2) * 3 > kMaxOps) {
    throw UsageError("p=" + std::to_string(a.p) + ", m=" + std::to_string(a.m) +
                     " is too large to simulate (limit " + std::to_string(kMaxOps) + " ops)");
  }
  const engine::Schedule s = engine::Schedule::byName(a.schedule, a.p, a.m, a.v);
  const engine::SimCosts costs = buildCosts(a, s.p);
  const engine::SimResult r = engine::simulate(s, costs);
  if (a.format == "json") {
    printJson(s, costs, r);
  } else {
    printText(s, costs, r, a.width);
  }
  return kOk;
}

}  // namespace bubblescope::cli
