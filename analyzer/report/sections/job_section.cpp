#include "analyzer/report/sections/job_section.h"

#include "analyzer/report/sections/model_section.h"

#include <algorithm>
#include <iomanip>

#include "analyzer/report/format.h"
#include "analyzer/report/markup.h"

namespace bubblescope::analysis {
namespace {

// TP groups listed one by one: those with a slow rank, then the widest spreads, at most this many.
constexpr size_t kTpGroupsListed = 8;
constexpr size_t kDpSyncListed = 5;

std::vector<const TpGroupResult*> groupsToList(const JobResult& job) {
  std::vector<const TpGroupResult*> out;
  for (const auto& g : job.tpGroups) out.push_back(&g);
  std::stable_sort(out.begin(), out.end(), [](auto* a, auto* b) {
    if ((a->slowRank >= 0) != (b->slowRank >= 0)) return a->slowRank >= 0;
    return a->meanSpread > b->meanSpread;
  });
  if (out.size() > kTpGroupsListed) out.resize(kTpGroupsListed);
  return out;
}

std::string groupText(const TpGroupResult& g) {
  std::string s = "DP " + std::to_string(g.dp) + ", stage " + std::to_string(g.stage) + " (" +
                  std::to_string(g.ranks.size()) + " TP ranks): members end " +
                  formatMs(g.meanSpread, 3) + " ms apart on average (at most " +
                  formatMs(g.maxSpread, 3) + " ms)";
  if (g.slowRank >= 0) {
    s += "; rank " + std::to_string(g.slowRank) + " ends last in " + formatPercent(g.slowShare, 0) +
         " of " + std::to_string(g.ops) + " ops, " + formatMs(g.slowLag, 3) +
         " ms after the others";
  }
  return s;
}

std::string syncText(const DpSyncBlame& b, int steps) {
  return "DP replica " + std::to_string(b.dp) + ", stage " + std::to_string(b.stage) + ": " +
         formatMs(b.waitCaused / std::max(1, steps), 2) + " ms per step (last in " +
         std::to_string(b.stepsLast) + " of " + std::to_string(steps) + " steps)";
}

// A what-if table's rows in text and Markdown: every part, or of more than this many the largest
// (10,000 replicas' rows were most of a summary; JSON keeps every one).
constexpr size_t kPartsListed = 16;

// The parts a table lists, in their order: every one, or the kPartsListed largest (the earlier
// on a tie).
std::vector<const PartSlowdown*> partsToList(const std::vector<PartSlowdown>& parts) {
  std::vector<const PartSlowdown*> out;
  for (const auto& p : parts) out.push_back(&p);
  if (out.size() <= kPartsListed) return out;
  std::stable_sort(out.begin(), out.end(),
                   [](auto* a, auto* b) { return a->slowdown > b->slowdown; });
  out.resize(kPartsListed);
  std::sort(out.begin(), out.end());  // back in the parts' order: they are one vector
  return out;
}

// What a table leaves out: "9984 more, S_d 1.00x to 1.01x"; "" when it lists every part.
std::string partsLeftOut(const std::vector<PartSlowdown>& parts, const char* symbol) {
  if (parts.size() <= kPartsListed) return "";
  const std::vector<const PartSlowdown*> listed = partsToList(parts);
  double least = 0, most = 0;
  bool any = false;
  for (const auto& p : parts) {
    if (std::binary_search(listed.begin(), listed.end(), &p)) continue;
    least = any ? std::min(least, p.slowdown) : p.slowdown;
    most = any ? std::max(most, p.slowdown) : p.slowdown;
    any = true;
  }
  return std::to_string(parts.size() - listed.size()) + " more, " + symbol + " " +
         formatRatio(least) + " to " + formatRatio(most) + " (JSON lists every one)";
}

void table(std::ostream& out, const char* title, const char* symbol,
           const std::vector<PartSlowdown>& parts) {
  out << "  " << std::left << std::setw(24) << title << std::right << std::setw(8) << symbol
      << std::setw(12) << "step (ms)"
      << "\n";
  for (const PartSlowdown* p : partsToList(parts)) {
    out << "  " << std::left << std::setw(24) << p->name << std::right << std::setw(8)
        << formatRatio(p->slowdown) << std::setw(12) << formatMs(p->stepTime) << "\n";
  }
  if (const std::string more = partsLeftOut(parts, symbol); !more.empty()) {
    out << "  ... " << more << "\n";
  }
}

void mdTable(std::ostream& out, const char* title, const char* symbol,
             const std::vector<PartSlowdown>& parts) {
  out << "\n| " << title << " | " << symbol << " | step (ms) |\n|---|---:|---:|\n";
  for (const PartSlowdown* p : partsToList(parts)) {
    out << "| " << escapeMarkdownCell(p->name) << " | " << formatRatio(p->slowdown) << " | "
        << formatMs(p->stepTime) << " |\n";
  }
  if (const std::string more = partsLeftOut(parts, symbol); !more.empty()) {
    out << "\n" << escapeMarkdownCell(more) << "\n";
  }
}

void writeParts(const std::vector<PartSlowdown>& ps, std::string_view idKey, JsonWriter& out) {
  const bool idFirst = idKey < "name";  // "dp_rank", "kind" lead; "stage" follows "slowdown"
  out.beginArray();
  for (const auto& p : ps) {
    out.beginObject();
    if (idFirst) out.field(idKey, p.id);
    out.field("name", p.name);
    out.field("slowdown", p.slowdown);
    if (!idFirst) out.field(idKey, p.id);
    out.field("step_ns", p.stepTime);
    out.endObject();
  }
  out.endArray();
}

}  // namespace

void writeJobText(const JobResult& job, std::ostream& out) {
  if (!job.present) return;
  out << "\nThe job (all replicas):\n";
  out << "culprit:  " << job.culprit << "\n";
  out << "step time " << formatMs(job.stepTimeMeasured) << " ms measured, "
      << formatMs(job.stepTimeIdeal) << " ms ideal (every op at the job-wide mean of its kind, "
      << "transfers " << formatMs(job.transfer, 3) << " ms, tail " << formatMs(job.tail, 2)
      << " ms): S = " << formatRatio(job.slowdown) << " over " << job.steps << " step(s)\n";
  out << "What if only this part kept its measured costs (the rest ideal)"
      << (job.model.reproduces ? "" : std::string(": ") + kUntrustedWhatIf) << ":\n";
  table(out, "stage", "S_s", job.stages);
  table(out, "DP replica", "S_d", job.dpRanks);
  table(out, "op type", "S_k", job.opTypes);
  if (!job.dpSync.empty()) {
    out << "DP sync: the replicas wait " << formatMs(job.dpWaitPerStep, 2)
        << " ms per step in the DP collectives for the last to arrive:\n";
    for (size_t i = 0; i < job.dpSync.size() && i < kDpSyncListed; ++i) {
      out << "  " << syncText(job.dpSync[i], job.steps) << "\n";
    }
  }
  if (!job.tpGroups.empty()) {
    out << "TP groups (" << job.tpGroups.size() << "), each folded into its stage:\n";
    for (const TpGroupResult* g : groupsToList(job)) out << "  " << groupText(*g) << "\n";
  }
  for (const auto& s : job.sequenceImbalance) out << "finding:  " << s.text << "\n";
  for (const auto& n : job.notes) out << "note:     " << n << "\n";
}

void writeJobMarkdown(const JobResult& job, std::ostream& out) {
  if (!job.present) return;
  out << "\n## The job (all replicas)\n\n**Culprit:** " << escapeMarkdownCell(job.culprit)
      << "\n\nStep time " << formatMs(job.stepTimeMeasured) << " ms measured, "
      << formatMs(job.stepTimeIdeal) << " ms ideal: **S = " << formatRatio(job.slowdown)
      << "** over " << job.steps << " step(s).\n";
  if (!job.model.reproduces) out << "\nWhat-ifs " << kUntrustedWhatIf << ".\n";
  mdTable(out, "stage", "S_s", job.stages);
  mdTable(out, "DP replica", "S_d", job.dpRanks);
  mdTable(out, "op type", "S_k", job.opTypes);
  if (!job.dpSync.empty()) {
    out << "\nDP sync: the replicas wait " << formatMs(job.dpWaitPerStep, 2)
        << " ms per step for the last to arrive.\n\n";
    for (size_t i = 0; i < job.dpSync.size() && i < kDpSyncListed; ++i) {
      out << "- " << syncText(job.dpSync[i], job.steps) << "\n";
    }
  }
  if (!job.tpGroups.empty()) {
    out << "\nTP groups (" << job.tpGroups.size() << "):\n\n";
    for (const TpGroupResult* g : groupsToList(job)) out << "- " << groupText(*g) << "\n";
  }
  for (const auto& s : job.sequenceImbalance) out << "\n- " << escapeMarkdownCell(s.text) << "\n";
}

void writeJobHtml(const JobResult& job, std::ostream& out) {
  if (!job.present) return;
  out << "<section id=\"job\">\n<h2>The job (all replicas)</h2>\n<p><strong>Culprit:</strong> "
      << escapeXml(job.culprit) << "</p>\n<p>Step time " << formatMs(job.stepTimeMeasured)
      << " ms measured, " << formatMs(job.stepTimeIdeal)
      << " ms ideal: <strong>S = " << formatRatio(job.slowdown) << "</strong> over " << job.steps
      << " step(s).</p>\n";
  if (!job.model.reproduces) {
    out << "<p class=\"note\"><strong>What-ifs " << kUntrustedWhatIf << ".</strong></p>\n";
  }
  auto htmlTable = [&](const char* title, const char* symbol, const std::vector<PartSlowdown>& ps) {
    out << "<table><tr><th class=\"l\">" << title << "</th><th>" << symbol
        << "</th><th>step (ms)</th></tr>\n";
    for (const auto& p : ps) {
      out << "<tr><td class=\"l\">" << escapeXml(p.name) << "</td><td>" << formatRatio(p.slowdown)
          << "</td><td>" << formatMs(p.stepTime) << "</td></tr>\n";
    }
    out << "</table>\n";
  };
  htmlTable("stage", "S_s", job.stages);
  htmlTable("DP replica", "S_d", job.dpRanks);
  htmlTable("op type", "S_k", job.opTypes);
  out << "<ul>";
  if (!job.dpSync.empty()) {
    out << "<li>DP sync: the replicas wait " << formatMs(job.dpWaitPerStep, 2)
        << " ms per step for the last to arrive; most for "
        << escapeXml(syncText(job.dpSync.front(), job.steps)) << "</li>";
  }
  for (const TpGroupResult* g : groupsToList(job)) {
    if (g->slowRank >= 0) out << "<li>" << escapeXml(groupText(*g)) << "</li>";
  }
  for (const auto& q : job.sequenceImbalance) out << "<li>" << escapeXml(q.text) << "</li>";
  out << "</ul>\n</section>\n";
}

void writeJobJson(const JobResult& job, JsonWriter& out) {
  out.beginObject();
  out.field("culprit", job.culprit);
  out.field("culprit_gain_ns", job.culpritGain);
  out.key("dp_ranks");
  writeParts(job.dpRanks, "dp_rank", out);
  out.key("dp_sync").beginObject();
  out.key("last_to_arrive").beginArray();
  for (const auto& b : job.dpSync) {
    out.beginObject();
    out.field("dp_rank", b.dp);
    out.field("stage", b.stage);
    out.field("steps_last", b.stepsLast);
    out.field("wait_caused_ns", b.waitCaused);
    out.endObject();
  }
  out.endArray();
  out.field("wait_per_step_ns", job.dpWaitPerStep);
  out.endObject();
  out.key("model_check");
  writeModelCheckJson(job.model, out);
  out.field("notes", job.notes);
  out.key("op_types");
  writeParts(job.opTypes, "kind", out);
  out.key("sequence_imbalance").beginArray();
  for (const auto& s : job.sequenceImbalance) {
    out.beginObject();
    out.field("correlation", s.correlation);
    out.field("dp_rank", s.dp);
    out.field("longest_factor", s.longestFactor);
    out.field("longest_mb", s.longestMb);
    out.field("spread", s.spread);
    out.field("text", s.text);
    out.endObject();
  }
  out.endArray();
  out.field("slowdown", job.slowdown);
  out.key("stages");
  writeParts(job.stages, "stage", out);
  out.field("step_time_ideal_ns", job.stepTimeIdeal);
  out.field("step_time_measured_ns", job.stepTimeMeasured);
  out.field("step_time_ops_ns", job.stepTimeOps);
  out.field("steps", job.steps);
  out.field("tail_ns", job.tail);
  out.key("tp_groups").beginArray();
  for (const auto& g : job.tpGroups) {
    out.beginObject();
    out.field("dp_rank", g.dp);
    out.field("max_spread_ns", g.maxSpread);
    out.field("mean_spread_ns", g.meanSpread);
    out.field("ops", g.ops);
    out.field("ranks", g.ranks);
    out.field("slow_lag_ns", g.slowLag);
    out.field("slow_rank", g.slowRank);
    out.field("slow_share", g.slowShare);
    out.field("stage", g.stage);
    out.endObject();
  }
  out.endArray();
  out.field("transfer_ns", job.transfer);
  out.endObject();
}

}  // namespace bubblescope::analysis
