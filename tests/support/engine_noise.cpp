#include "tests/support/engine_noise.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <tuple>

#include "tests/support/engine_recording.h"

namespace bubblescope::testing {
namespace {

using nlohmann::json;

long long ns(const json& j, const char* key) {
  return j.at(key).get<long long>();
}

long long median(std::vector<long long> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// The stages whose sends the run delayed on purpose (--comm-delay S:MS, in the truth's faults).
std::set<int> delayedSenders(const json& truth) {
  std::set<int> out;
  const json faults = truth.value("faults", json::object());
  for (const json& d : faults.value("comm_delays", json::array())) {
    out.insert(d.at("stage").get<int>());
  }
  return out;
}

}  // namespace

RunNoise engineRunNoise(const std::filesystem::path& truthJson, int firstStep) {
  std::ifstream in(truthJson);
  const json truth = json::parse(in, nullptr, false);
  if (truth.is_discarded() || !truth.contains("stages")) {
    throw std::runtime_error(truthJson.string() + ": no engine truth to measure");
  }
  std::vector<long long> samples;
  // Each op against its stage's median for its kind and chunk: a slow stage or a costlier kind
  // moves the median, not the overrun. A run with jitter spreads its ops on purpose: there only
  // the transfers say what the machine added.
  const bool jitter = truth.value("faults", json::object()).value("jitter_pct", 0.0) > 0;
  for (const json& st : jitter ? json::array() : truth.at("stages")) {
    std::map<std::pair<std::string, int>, std::vector<long long>> byKind;
    for (const json& o : st.at("ops")) {
      if (o.at("step").get<int>() < firstStep) continue;
      byKind[{o.at("kind").get<std::string>(), o.at("chunk").get<int>()}].push_back(
          ns(o, "end_ns") - ns(o, "start_ns"));
    }
    for (const auto& [kind, durations] : byKind) {
      const long long typical = median(durations);
      for (long long d : durations) samples.push_back(std::max(0LL, d - typical));
    }
  }
  // Each transfer from when both sides had started to its arrival.
  const std::set<int> delayed = delayedSenders(truth);
  std::map<std::tuple<int, std::string, int, int, int>, long long> sendStart;
  for (const json& st : truth.at("stages")) {
    for (const json& x : st.at("sends")) {
      sendStart[{x.at("step").get<int>(), x.at("kind").get<std::string>(), x.at("mb").get<int>(),
                 st.at("stage").get<int>(), x.at("peer").get<int>()}] = ns(x, "start_ns");
    }
  }
  for (const json& st : truth.at("stages")) {
    for (const json& r : st.at("recvs")) {
      const int peer = r.at("peer").get<int>();
      if (r.at("step").get<int>() < firstStep || delayed.count(peer)) continue;
      const auto it = sendStart.find({r.at("step").get<int>(), r.at("kind").get<std::string>(),
                                      r.at("mb").get<int>(), peer, st.at("stage").get<int>()});
      if (it == sendStart.end()) continue;
      samples.push_back(std::max(0LL, ns(r, "end_ns") - std::max(it->second, ns(r, "start_ns"))));
    }
  }
  // The steps' spans, from the earliest start to the latest end over the stages.
  std::map<int, std::pair<long long, long long>> spans;
  for (const json& st : truth.at("stages")) {
    for (const json& step : st.at("steps")) {
      const int n = step.at("step").get<int>();
      if (n < firstStep) continue;
      auto [it, fresh] = spans.try_emplace(n, ns(step, "start_ns"), ns(step, "end_ns"));
      if (!fresh) {
        it->second.first = std::min(it->second.first, ns(step, "start_ns"));
        it->second.second = std::max(it->second.second, ns(step, "end_ns"));
      }
    }
  }
  RunNoise out;
  if (spans.empty()) return out;
  long long added = 0, span = 0;
  for (long long s : samples) added += s;
  for (const auto& [n, se] : spans) span += se.second - se.first;
  const auto steps = static_cast<long long>(spans.size());
  out.perStep = added / steps;
  out.step = span / steps;
  return out;
}

std::string SteadyRecording::tooLoaded() const {
  if (steady) return {};
  char buf[240];
  std::snprintf(buf, sizeof buf,
                "the machine was too loaded to time this run: %d recordings in a row had their "
                "ops and transfers stretched by %.1f ms a step, %.0f%% of the %.0f ms step (a "
                "quiet machine: 2%%)",
                attempts, static_cast<double>(noise.perStep) / 1e6, 100 * noise.share(),
                static_cast<double>(noise.step) / 1e6);
  return buf;
}

SteadyRecording recordSteadyEngineRun(const std::string& outDir, const std::string& truthPath,
                                      const std::vector<std::string>& engineArgs, double bound,
                                      int attempts) {
  SteadyRecording out;
  for (int a = 1; a <= attempts; ++a) {
    std::error_code ec;
    std::filesystem::remove_all(outDir, ec);
    std::filesystem::remove(truthPath, ec);
    out.process = recordEngineRun(outDir, truthPath, engineArgs);
    out.attempts = a;
    if (out.process.exitCode != 0) return out;  // the test says why
    out.noise = engineRunNoise(truthPath);
    out.steady = out.noise.share() <= bound;
    if (out.steady) return out;
  }
  return out;
}

}  // namespace bubblescope::testing
