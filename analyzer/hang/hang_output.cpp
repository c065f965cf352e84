#include "analyzer/hang/hang_output.h"

#include <cstdio>

#include "analyzer/hang/diagnose.h"

namespace bubblescope::analysis::hang {
namespace {

std::string pad(std::string s, size_t width) {
  if (s.size() < width) s.resize(width, ' ');
  return s;
}

}  // namespace

void printHangReport(const HangReport& rep, std::ostream& out) {
  out << rep.diagnosis << "\n";
  for (const std::string& d : rep.details) out << "  also: " << d << "\n";
  out << "\n"
      << pad("rank", 10) << pad("ended", 9) << pad("last seen", 14) << pad("step", 9)
      << pad("next op", 9) << "waits in\n";
  for (const RankStop& r : rep.ranks) {
    std::string waits = "-";
    if (!r.waits.empty()) {
      const Wait& w = r.waits.front();
      waits = w.what + " since " + clockTime(w.since);
      if (w.kernelLaunch != 0) {
        waits = w.what + ": its kernel never finished, stuck on the device since " +
                clockTime(w.kernelLaunch);
      }
      if (w.unwoundAt != 0) waits += ", unwound at " + clockTime(w.unwoundAt);
      if (!w.on.empty()) {
        waits += " (on";
        for (int to : w.on) waits += " " + rep.ranks[static_cast<size_t>(to)].label;
        waits += ")";
      } else if (w.missingStage >= 0) {
        waits += " (on stage " + std::to_string(w.missingStage) + ", not in the run)";
      }
    }
    out << pad(r.label, 10) << pad(rankEndName(r.end), 9) << pad(clockTime(r.aliveNs), 14)
        << pad(r.step.empty() ? "-" : r.step, 9)
        << pad(r.step.empty() || r.opsInStep < 0 ? "-" : "#" + std::to_string(r.opsInStep), 9)
        << waits << "\n";
  }
  if (!rep.edges.empty()) {
    out << "\nwait-for graph:\n";
    for (const WaitEdge& e : rep.edges) {
      out << "  " << rep.ranks[static_cast<size_t>(e.from)].label << " -> "
          << rep.ranks[static_cast<size_t>(e.to)].label << "  " << e.what << "\n";
    }
  }
}

nlohmann::json hangReportJson(const HangReport& rep) {
  using nlohmann::json;
  auto rankOf = [&](int i) { return rep.ranks[static_cast<size_t>(i)].rank; };
  json j = {{"tool", "bubblescope"}, {"report", "hang"},
            {"schema_version", 1},   {"verdict", verdictName(rep.verdict)},
            {"found", rep.found()},  {"diagnosis", rep.diagnosis},
            {"details", rep.details}};
  j["culprits"] = json::array();
  for (int c : rep.culprits) j["culprits"].push_back(rankOf(c));
  j["ranks"] = json::array();
  for (const RankStop& r : rep.ranks) {
    json waits = json::array();
    for (const Wait& w : r.waits) {
      json on = json::array();
      for (int to : w.on) on.push_back(rankOf(to));
      waits.push_back({{"what", w.what},
                       {"since_ns", w.since},
                       {"on", on},
                       {"nccl", w.nccl},
                       {"unwound_ns", w.unwoundAt},
                       {"kernel_never_finished", w.kernelLaunch != 0},
                       {"kernel_launch_ns", w.kernelLaunch},
                       {"partner_posted", w.partnerPosted},
                       {"missing_stage", w.missingStage}});
    }
    j["ranks"].push_back({{"rank", r.rank},
                          {"stage", r.stage},
                          {"label", r.label},
                          {"file", r.file},
                          {"ended", rankEndName(r.end)},
                          {"alive_ns", r.aliveNs},
                          {"step", r.step},
                          {"next_op_index", r.opsInStep},
                          {"last_op", r.lastOp},
                          {"last_op_end_ns", r.lastOpEnd},
                          {"open", r.open},
                          {"waits", waits}});
  }
  j["edges"] = json::array();
  for (const WaitEdge& e : rep.edges) {
    j["edges"].push_back({{"from", rankOf(e.from)}, {"to", rankOf(e.to)}, {"what", e.what}});
  }
  return j;
}

}  // namespace bubblescope::analysis::hang
