#include "analyzer/report/markdown_report.h"

#include "analyzer/report/sections/job_section.h"
#include "analyzer/report/sections/model_section.h"
#include "analyzer/report/sections/root_cause_section.h"
#include "analyzer/report/sections/what_if_section.h"

#include <algorithm>
#include <string>
#include <vector>

#include "analyzer/report/figures.h"
#include "analyzer/report/format.h"
#include "analyzer/report/markup.h"
#include "analyzer/report/ops_source.h"
#include "analyzer/report/steps_source.h"
#include "analyzer/report/sections/inventory_section.h"

namespace bubblescope::analysis {
namespace {

// Stages shown above the collapsed table of a big pipeline: the largest S_s.
constexpr int kWorstStagesShown = 5;

std::string cellMsPct(TimeNs v, TimeNs span) {
  if (v == 0) return "–";
  return formatMs(v) + " (" + formatPercent(share(v, span), 0) + ")";
}

class MarkdownWriter {
 public:
  MarkdownWriter(const AnalysisResult& r, std::ostream& out) : r_(r), out_(out) {}

  void write() {
    headline();
    // Before anything else: a model that does not reproduce the job makes every figure doubtful.
    for (const auto& d : modelDoubts(r_)) out_ << "> ⚠️ **" << escapeMarkdownCell(d) << "**\n\n";
    identity();
    writeJobMarkdown(r_.job, out_);  // several replicas or TP ranks: the culprit first
    for (const auto& pl : r_.pipelines) {
      if (!pl.summarised) pipeline(pl);
    }
    otherPipelines();
    warnings();
  }

 private:
  void headline() {
    const PipelineResult* worst = slowestPipeline(r_);
    out_ << "## bubblescope: ";
    if (!worst) {
      out_ << "no pipeline analysed\n\n";
      return;
    }
    out_ << "step " << formatMs(worst->stepTimeMeasured) << " ms, " << formatRatio(worst->slowdown)
         << " the ideal " << formatMs(worst->stepTimeIdeal) << " ms";
    if (r_.pipelines.size() > 1) out_ << " (slowest pipeline: " << worst->dpRank << ")";
    out_ << "\n\n";
  }

  void identity() {
    out_ << "**Run** " << markdownCode(r_.runDir);
    if (!r_.command.empty()) out_ << " · " << markdownCode(r_.command);
    out_ << " · " << r_.ranks << " ranks (PP " << r_.pp << " × DP " << r_.dp;
    if (r_.tp > 1) out_ << " × TP " << r_.tp;
    out_ << ", topology from " << escapeMarkdownCell(r_.topologySource) << ") · ops "
         << escapeMarkdownCell(opsSource(r_)) << " · clocks ";
    if (!r_.clock.enabled) {
      out_ << "not aligned";
    } else if (r_.clock.maxCorrection > 0) {
      out_ << "aligned (largest correction " << formatMs(r_.clock.maxCorrection, 3) << " ms)";
    } else {
      out_ << "aligned, no skew found";
    }
    if (const std::string s = warmupLeftOut(r_); !s.empty()) {
      out_ << " · " << escapeMarkdownCell(s);
    }
    out_ << "\n";
  }

  // The pipelines a summary gives by their figures: a row each, in DP order.
  void otherPipelines() {
    if (summarisedPipelines(r_) == 0) return;
    out_ << "\n### " << escapeMarkdownCell(summarisedPipelinesNote(r_)) << "\n\n"
         << "| pipeline | S | step | ideal | idle share | culprit |\n"
         << "|---:|---:|---:|---:|---:|---|\n";
    for (const PipelineResult& pl : r_.pipelines) {
      if (!pl.summarised) continue;
      out_ << "| " << pl.dpRank << " | " << formatRatio(pl.slowdown) << " | "
           << formatMs(pl.stepTimeMeasured) << " ms | " << formatMs(pl.stepTimeIdeal) << " ms | "
           << formatPercent(bubbleShare(pl.total)) << " | " << escapeMarkdownCell(pl.culprit)
           << " |\n";
    }
  }

  void pipeline(const PipelineResult& pl) {
    out_ << "\n### ";
    if (r_.pipelines.size() > 1) out_ << "Pipeline " << pl.dpRank << ": ";
    out_ << escapeMarkdownCell(scheduleDescription(pl.schedule)) << ", " << pl.steps.size()
         << (pl.steps.size() == 1 ? " step" : " steps") << "\n\n";
    // First, as the text and HTML reports open a pipeline: what to fix, or that nothing needs it.
    if (!pl.culprit.empty()) out_ << "**Culprit:** " << escapeMarkdownCell(pl.culprit) << "\n\n";
    out_ << "| step time | measured | ideal | slowdown S | idle share |\n"
         << "|---|---:|---:|---:|---:|\n"
         << "| mean per step | **" << formatMs(pl.stepTimeMeasured) << " ms** | "
         << formatMs(pl.stepTimeIdeal) << " ms | **" << formatRatio(pl.slowdown) << "** | "
         << formatPercent(bubbleShare(pl.total)) << " |\n\n";
    out_ << "Ideal = the same schedule with every op at its mean cost (balanced stages) and no "
            "stalls; S = measured / ideal.\n";
    stageTables(pl);
    rootCauses(pl);
    whatIf(pl);
    writeInventoryMarkdown(bubbleInventory(pl), out_);
  }

  void stageTables(const PipelineResult& pl) {
    // Classes that never occur get no column.
    classes_.clear();
    for (int c = 0; c < kIdleClasses; ++c) {
      if (pl.total.idleByClass[c] > 0) classes_.push_back(c);
    }
    const int p = static_cast<int>(pl.stages.size());
    out_ << "\n**Where the time went**, per stage over all steps (ms, % of the span)";
    if (classes_.size() < static_cast<size_t>(kIdleClasses)) {
      out_ << "; idle classes without a column are zero";
    }
    out_ << ":\n\n";
    if (p <= kMarkdownMaxOpenStages) {
      stageTable(pl, allStages(pl), true);
    } else {
      std::vector<int> worst = stagesBySlowdown(pl);
      worst.resize(std::min<size_t>(worst.size(), kWorstStagesShown));
      out_ << "The " << worst.size() << " stages with the largest S_s, and the whole pipeline:\n\n";
      stageTable(pl, worst, true);
      out_ << "\n<details><summary>All " << p << " stages</summary>\n\n";
      stageTable(pl, allStages(pl), false);
      out_ << "\n</details>\n";
    }
    out_ << "\n"
         << (partsAddUp(pl) ? "✅ The parts add up: compute + comm + other + idle = span, and the "
                              "idle classes = idle, on every stage and step (exact, in ns)."
                            : "❌ The parts do NOT add up exactly on some stage or step: please "
                              "report this as a bubblescope bug.")
         << "\n";
  }

  static std::vector<int> allStages(const PipelineResult& pl) {
    std::vector<int> v(pl.stages.size());
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int>(i);
    return v;
  }

  void stageTable(const PipelineResult& pl, const std::vector<int>& stages, bool withTotal) {
    out_ << "| stage | compute | comm | other | idle |";
    for (int c : classes_) out_ << " " << shortIdleClassName(idleClassAt(c)) << " |";
    out_ << " S_s |\n|---|---:|---:|---:|---:|";
    for (size_t i = 0; i < classes_.size(); ++i) out_ << "---:|";
    out_ << "---:|\n";
    auto row = [&](const std::string& name, const Split& s, const std::string& slowdown) {
      out_ << "| " << name << " | " << cellMsPct(s.compute, s.span) << " | "
           << cellMsPct(s.exposedComm, s.span) << " | " << cellMsPct(s.otherBusy, s.span) << " | "
           << cellMsPct(s.idle, s.span) << " |";
      for (int c : classes_) out_ << " " << cellMsPct(s.idleByClass[c], s.span) << " |";
      out_ << " " << slowdown << " |\n";
    };
    for (int i : stages) {
      const StageResult& st = pl.stages[i];
      std::string name = std::to_string(st.stage);
      if (st.rank != st.stage) name += " (rank " + std::to_string(st.rank) + ")";
      row(name, st.total, formatRatio(st.slowdown));
    }
    if (withTotal) row("**all**", pl.total, "**" + formatRatio(pl.slowdown) + "**");
  }

  // One line per root cause, its knock-ons folded into it: a stall and what it caused elsewhere
  // read as one finding.
  void rootCauses(const PipelineResult& pl) {
    out_ << "\n**Root causes** (" << kRootCausesNote << "):\n\n";
    if (pl.rootCauses.empty()) {
      out_ << "None: every idle gap is the schedule's own bubble.\n";
      return;
    }
    for (size_t i = 0; i < pl.rootCauses.size() && i < kRootCausesShown; ++i) {
      const RootCause& rc = pl.rootCauses[i];
      out_ << i + 1 << ". **" << escapeMarkdownCell(rc.text)
           << "**: " << escapeMarkdownCell(rootCauseCost(pl, rc)) << ".";
      if (const std::string own = rootCauseOwn(pl, rc); !own.empty()) {
        out_ << " " << escapeMarkdownCell(own) << ".";
      }
      if (const std::string k = knockOnLine(pl, rc); !k.empty()) {
        out_ << " " << escapeMarkdownCell(k) << ".";
      }
      out_ << "\n";
    }
  }

  void whatIf(const PipelineResult& pl) {
    if (!pl.whatIfWithheld.empty()) {
      out_ << "\n**What if**: none, " << escapeMarkdownCell(pl.whatIfWithheld) << ".\n";
      return;
    }
    if (pl.whatIf.empty()) return;
    out_ << "\n**What if** (reference simulator, measured op costs)"
         << (pl.model.reproduces ? "" : std::string(": **") + kUntrustedWhatIf + "**") << ":\n\n"
         << "| scenario | step (ms) | bubble | speedup | activations | note |\n"
            "|---|---:|---:|---:|---:|---|\n";
    const WhatIf* best = bestWhatIf(pl);
    const bool winner = best && best->speedup > 1.005;
    for (const auto& w : pl.whatIf) {
      out_ << "| " << escapeMarkdownCell(w.scenario) << " | ";
      if (w.available) {
        const bool top = winner && w.speedup == best->speedup;
        out_ << formatMs(w.stepTime) << " | " << formatPercent(w.bubbleRate) << " | "
             << (top ? "**" : "") << formatRatio(w.speedup) << (top ? "**" : "") << " | "
             << activationCell(w);
      } else {
        out_ << "n/a | | | ";
      }
      out_ << " | " << escapeMarkdownCell(w.note) << " |\n";
    }
    out_ << "\n" << escapeMarkdownCell(activationColumnNote(pl)) << ".\n";
    if (winner) {
      out_ << "\n**Best what-if: " << escapeMarkdownCell(best->scenario) << ", "
           << formatRatio(best->speedup) << "**"
           << (best->trusted ? "" : " (the model does not reproduce the job)")
           << ". Assumes: " << escapeMarkdownCell(whatIfAssumptions(pl, *best)) << ".\n";
    }
  }

  void warnings() {
    if (r_.warnings.empty()) return;
    out_ << "\n**Warnings**\n\n";
    for (const auto& w : r_.warnings) out_ << "- ⚠️ " << escapeMarkdownCell(w) << "\n";
  }

  const AnalysisResult& r_;
  std::ostream& out_;
  std::vector<int> classes_;
};

}  // namespace

void writeMarkdownReport(const AnalysisResult& result, std::ostream& out) {
  MarkdownWriter(result, out).write();
}

}  // namespace bubblescope::analysis
