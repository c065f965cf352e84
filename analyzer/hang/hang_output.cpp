#include "analyzer/hang/hang_output.h"

#include <cstdio>

#include "analyzer/hang/diagnose.h"
#include "traces/json/json_writer.h"

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

void writeHangReportJson(const HangReport& rep, std::ostream& stream) {
  // Members in the byte order of their names, as nlohmann wrote the document (json_writer.h).
  traces::JsonWriter out(stream, 1);
  auto rankOf = [&](int i) { return rep.ranks[static_cast<size_t>(i)].rank; };
  out.beginObject();
  out.key("culprits").beginArray();
  for (int c : rep.culprits) out.value(rankOf(c));
  out.endArray();
  out.field("details", rep.details);
  out.field("diagnosis", rep.diagnosis);
  out.key("edges").beginArray();
  for (const WaitEdge& e : rep.edges) {
    out.beginObject();
    out.field("from", rankOf(e.from));
    out.field("to", rankOf(e.to));
    out.field("what", e.what);
    out.endObject();
  }
  out.endArray();
  out.field("found", rep.found());
  out.key("ranks").beginArray();
  for (const RankStop& r : rep.ranks) {
    out.beginObject();
    out.field("alive_ns", r.aliveNs);
    out.field("ended", rankEndName(r.end));
    out.field("file", r.file);
    out.field("label", r.label);
    out.field("last_op", r.lastOp);
    out.field("last_op_end_ns", r.lastOpEnd);
    out.field("next_op_index", r.opsInStep);
    out.field("open", r.open);
    out.field("rank", r.rank);
    out.field("stage", r.stage);
    out.field("step", r.step);
    out.key("waits").beginArray();
    for (const Wait& w : r.waits) {
      out.beginObject();
      out.field("kernel_launch_ns", w.kernelLaunch);
      out.field("kernel_never_finished", w.kernelLaunch != 0);
      out.field("missing_stage", w.missingStage);
      out.field("nccl", w.nccl);
      out.key("on").beginArray();
      for (int to : w.on) out.value(rankOf(to));
      out.endArray();
      out.field("partner_posted", w.partnerPosted);
      out.field("since_ns", w.since);
      out.field("unwound_ns", w.unwoundAt);
      out.field("what", w.what);
      out.endObject();
    }
    out.endArray();
    out.endObject();
  }
  out.endArray();
  out.field("report", "hang");
  out.field("schema_version", 1);
  out.field("tool", "bubblescope");
  out.field("verdict", verdictName(rep.verdict));
  out.endObject();
}

}  // namespace bubblescope::analysis::hang
