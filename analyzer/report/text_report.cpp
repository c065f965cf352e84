#include "analyzer/report/text_report.h"

#include <algorithm>
#include <iomanip>
#include <sstream>
#include <string>
#include <vector>

#include "analyzer/report/figures.h"
#include "analyzer/report/format.h"
#include "analyzer/report/ops_source.h"
#include "analyzer/report/sections/gap_list_section.h"
#include "analyzer/report/sections/inventory_section.h"
#include "analyzer/report/sections/job_section.h"
#include "analyzer/report/sections/model_section.h"
#include "analyzer/report/sections/root_cause_section.h"
#include "analyzer/report/sections/what_if_section.h"
#include "analyzer/report/steps_source.h"

namespace bubblescope::analysis {
namespace {

class Writer {
 public:
  Writer(std::ostream& out, bool color) : out_(out), color_(color) {}

  std::string bold(const std::string& s) const { return color_ ? "\033[1m" + s + "\033[0m" : s; }
  std::string colored(IdleClass c, const std::string& s) const {
    return color_ ? std::string(idleClassInfo(c).ansi) + s + "\033[0m" : s;
  }

  void header(const AnalysisResult& r) {
    out_ << bold("bubblescope analysis of " + r.runDir) << "\n";
    // Before anything else: a model that does not reproduce the job makes every figure doubtful.
    for (const auto& d : modelDoubts(r)) out_ << bold("MODEL:    " + d) << "\n";
    if (!r.command.empty()) out_ << "command:  " << r.command << "\n";
    out_ << "ranks:    " << r.ranks << " (PP " << r.pp << " x DP " << r.dp;
    if (r.tp > 1) out_ << " x TP " << r.tp;
    out_ << ", topology from " << r.topologySource << ")\n";
    out_ << "ops:      " << opsSource(r) << "\n";
    if (r.clock.enabled) {
      out_ << "clocks:   "
           << (r.clock.maxCorrection > 0
                   ? "aligned, largest correction " + formatMs(r.clock.maxCorrection, 3) + " ms"
                   : "aligned, no skew found")
           << "\n";
    } else {
      out_ << "clocks:   alignment off\n";
    }
    if (const std::string s = warmupLeftOut(r); !s.empty()) out_ << "steps:    " << s << "\n";
    for (const auto& w : r.warnings) out_ << "warning:  " << w << "\n";
  }

  void pipeline(const PipelineResult& pl, bool several, bool detail) {
    out_ << "\n";
    std::string title = several ? "Pipeline " + std::to_string(pl.dpRank) + ": " : "";
    title += "schedule " + pl.schedule.name + " (p=" + std::to_string(pl.schedule.p) +
             ", m=" + std::to_string(pl.schedule.m) +
             (pl.schedule.v > 1 ? ", v=" + std::to_string(pl.schedule.v) : "") + "), " +
             std::to_string(pl.steps.size()) + " step(s)";
    out_ << bold(title) << "\n";
    if (!pl.culprit.empty()) out_ << "culprit:  " << pl.culprit << "\n";
    out_ << "step time " << formatMs(pl.stepTimeMeasured) << " ms measured, "
         << formatMs(pl.stepTimeIdeal)
         << " ms ideal (balanced stages, no stalls): slowdown S = " << formatRatio(pl.slowdown)
         << "\n";
    out_ << "a healthy link takes " << formatMs(pl.transferMedian, 3)
         << " ms a transfer; gradient sync + optimizer " << formatMs(pl.tailMedian, 2) << " ms\n\n";
    stageTable(pl);
    rootCauses(pl);
    whatIf(pl);
    writeInventoryText(bubbleInventory(pl), out_);
    if (detail) writeGapListText(pl, out_);
  }

  // The pipelines a summary gives by their figures: a line each, in DP order.
  void otherPipelines(const AnalysisResult& r) {
    if (summarisedPipelines(r) == 0) return;
    out_ << "\n" << bold(summarisedPipelinesNote(r) + ":") << "\n";
    out_ << "  " << std::left << std::setw(10) << "pipeline" << std::right << std::setw(8) << "S"
         << std::setw(12) << "step (ms)" << std::setw(12) << "ideal (ms)" << std::setw(8) << "idle"
         << "  culprit\n";
    for (const PipelineResult& pl : r.pipelines) {
      if (!pl.summarised) continue;
      out_ << "  " << std::left << std::setw(10) << pl.dpRank << std::right << std::setw(8)
           << formatRatio(pl.slowdown) << std::setw(12) << formatMs(pl.stepTimeMeasured)
           << std::setw(12) << formatMs(pl.stepTimeIdeal) << std::setw(8)
           << formatPercent(share(pl.total.idle, pl.total.span)) << "  " << pl.culprit << "\n";
    }
  }

 private:
  void cell(const std::string& s, int width) { out_ << std::setw(width) << s; }

  void stageTable(const PipelineResult& pl) {
    // Columns as wide as their widest entry: a long capture sums to millions of ms (10^6 steps of
    // 20 ms, 2.1e7), which ran into the next column; such a table is in seconds.
    std::vector<std::string> names;
    for (const auto& st : pl.stages) {
      names.push_back(std::to_string(st.stage) + " r" + std::to_string(st.rank));
    }
    names.emplace_back("all");
    size_t nameWidth = 8;
    for (const std::string& n : names) nameWidth = std::max(nameWidth, n.size() + 1);
    const bool inSeconds = formatMs(pl.total.span).size() > 8;
    // ns / 1000 written as ms is the time in seconds.
    const auto amount = [&](TimeNs v) { return inSeconds ? formatMs(v / 1000) : formatMs(v); };
    // The "all" row's span, the stages' spans summed, is the table's largest figure.
    const int width = std::max(9, static_cast<int>(amount(pl.total.span).size()) + 1);
    const auto nameCell = [&](const std::string& n) {
      out_ << std::left << std::setw(static_cast<int>(nameWidth)) << n << std::right;
    };
    out_ << "Where the time went, per stage over all steps (" << (inSeconds ? "s" : "ms")
         << "; % of the stage's span):\n";
    nameCell("stage");
    for (const char* h : {"span", "compute", "comm", "other", "idle"}) cell(h, width);
    out_ << " |";
    for (int c = 0; c < kIdleClasses; ++c) cell(kIdleClassTable[c].column, width);
    out_ << " |" << std::setw(6) << "S_s"
         << "\n";
    auto row = [&](const std::string& name, const Split& s, double slowdown) {
      nameCell(name);
      cell(amount(s.span), width);
      cell(amount(s.compute), width);
      cell(amount(s.exposedComm), width);
      cell(amount(s.otherBusy), width);
      cell(amount(s.idle), width);
      out_ << " |";
      for (int c = 0; c < kIdleClasses; ++c) {
        const TimeNs v = s.idleByClass[c];
        std::ostringstream text;
        text << std::setw(width) << (v ? amount(v) : "-");
        out_ << (v ? colored(idleClassAt(c), text.str()) : text.str());
      }
      out_ << " |" << std::setw(6) << (slowdown > 0 ? formatRatio(slowdown) : "") << "\n";
      nameCell("");
      out_ << std::setw(width) << "";
      for (TimeNs v : {s.compute, s.exposedComm, s.otherBusy, s.idle}) {
        cell(formatPercent(share(v, s.span)), width);
      }
      out_ << " |";
      for (int c = 0; c < kIdleClasses; ++c) {
        cell(s.idleByClass[c] ? formatPercent(share(s.idleByClass[c], s.span)) : "", width);
      }
      out_ << " |\n";
    };
    for (size_t i = 0; i < pl.stages.size(); ++i) {
      row(names[i], pl.stages[i].total, pl.stages[i].slowdown);
    }
    row(names.back(), pl.total, 0);
    const auto bounded = std::count_if(pl.stages.begin(), pl.stages.end(),
                                       [](const StageResult& st) { return st.slowdownBounded; });
    if (bounded > 0) {
      out_ << "S_s of " << bounded << " of the " << pl.stages.size()
           << " stages, whose ops moved the step by under 0.1%, is the middle of its bounds, not "
              "a replay (at most 0.05% off).\n";
    }
    out_ << "Each row adds up: compute + comm + other + idle = span, and the classes = idle ("
         << (addsUp(pl) ? "checked" : "NOT EXACT: please report") << ").\n";
  }

  static bool addsUp(const PipelineResult& pl) {
    for (const auto& st : pl.stages) {
      for (const Split& s : st.perStep) {
        if (s.compute + s.exposedComm + s.otherBusy + s.idle != s.span) return false;
        if (s.classSum() != s.idle) return false;
      }
    }
    return true;
  }

  // The gaps grouped by root cause: a stall first and its knock-ons under it, not apart.
  void rootCauses(const PipelineResult& pl) {
    out_ << "\nRoot causes (" << kRootCausesNote << "):\n";
    if (pl.rootCauses.empty()) {
      out_ << "  none: every idle gap is the schedule's own bubble\n";
      return;
    }
    for (size_t i = 0; i < pl.rootCauses.size() && i < kRootCausesShown; ++i) {
      const RootCause& rc = pl.rootCauses[i];
      out_ << "  " << i + 1 << ". " << colored(rc.id.cause, rc.text) << "\n     "
           << rootCauseCost(pl, rc) << "\n";
      for (const std::string& line : {rootCauseOwn(pl, rc), knockOnLine(pl, rc)}) {
        if (!line.empty()) out_ << "     " << line << "\n";
      }
    }
  }

  void whatIf(const PipelineResult& pl) {
    if (!pl.whatIfWithheld.empty()) {
      out_ << "\nWhat if: none, " << pl.whatIfWithheld << "\n";
      return;
    }
    out_ << "\nWhat if (reference simulator, measured op costs)"
         << (pl.model.reproduces ? "" : std::string(": ") + kUntrustedWhatIf) << ":\n";
    out_ << "  " << std::left << std::setw(44) << "scenario" << std::right << std::setw(12)
         << "step (ms)" << std::setw(9) << "bubble" << std::setw(9) << "speedup" << std::setw(16)
         << "activations"
         << "  note\n";
    for (const auto& w : pl.whatIf) {
      out_ << "  " << std::left << std::setw(44) << w.scenario << std::right;
      if (w.available) {
        out_ << std::setw(12) << formatMs(w.stepTime) << std::setw(9) << formatPercent(w.bubbleRate)
             << std::setw(9) << formatRatio(w.speedup) << std::setw(16) << activationCell(w);
      } else {
        out_ << std::setw(12) << "n/a" << std::setw(9) << "" << std::setw(9) << "" << std::setw(16)
             << "";
      }
      out_ << "  " << w.note << "\n";
    }
    out_ << "  " << activationColumnNote(pl) << "\n";
    if (const WhatIf* best = bestWhatIf(pl); best && best->speedup > 1.005) {
      out_ << "  best: " << best->scenario << ", " << formatRatio(best->speedup) << "; "
           << whatIfAssumptions(pl, *best) << "\n";
    }
  }

 private:
  std::ostream& out_;
  bool color_;
};

}  // namespace

void writeTextReport(const AnalysisResult& r, std::ostream& out, const ReportStyle& style) {
  Writer w(out, style.color);
  w.header(r);
  writeJobText(r.job, out);  // several replicas or TP ranks: the culprit first
  for (const auto& pl : r.pipelines) {
    if (!pl.summarised) w.pipeline(pl, r.pipelines.size() > 1, style.detail);
  }
  w.otherPipelines(r);
}

}  // namespace bubblescope::analysis
