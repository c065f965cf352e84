#include "analyzer/report/sections/root_cause_section.h"

#include <algorithm>

#include "analyzer/report/format.h"

namespace bubblescope::analysis {
namespace {

std::string gaps(size_t n) {
  return std::to_string(n) + (n == 1 ? " gap" : " gaps");
}

// "in step 2", "over 3 steps"
std::string stepsOf(const PipelineResult& pl, const RootCause& rc) {
  if (rc.steps.size() == 1) return "in step " + std::to_string(pl.steps[rc.steps[0]].number);
  return "over " + std::to_string(rc.steps.size()) + " steps";
}

}  // namespace

bool listable(const PipelineResult& pl, int gap) {
  return avoidableIdle(pl.gaps[gap]) >= kLeastListedGap;
}

size_t knockOnsListable(const PipelineResult& pl, const RootCause& rc) {
  size_t n = 0;  // largest first: the listable ones lead
  while (n < rc.knockOns.size() && listable(pl, rc.knockOns[n])) ++n;
  return n;
}

std::string rootCauseCost(const PipelineResult& pl, const RootCause& rc) {
  const TimeNs analysed = pl.stepTimeMeasured * static_cast<TimeNs>(pl.steps.size());
  const std::string idle =
      "it cost " + formatMs(rc.idle) + " ms of idle in " + gaps(rc.ownCount + rc.knockOnCount);
  if (rc.win <= 0) {
    return idle + " " + stepsOf(pl, rc) + "; the simulator finds no step it would shorten";
  }
  return "removing it wins " + formatMs(rc.win) + " ms " + stepsOf(pl, rc) + " (" +
         formatPercent(share(rc.win, analysed)) + " of the time analysed); " + idle;
}

std::string gapPlace(const PipelineResult& pl, const Gap& g) {
  return "step " + std::to_string(pl.steps[g.step].number) + ", stage " + std::to_string(g.stage) +
         ", " + formatMs(avoidableIdle(g), 2) + " ms " +
         (g.nextOp >= 0 ? "before " + engine::label(pl.opOf(g.nextOp).op) : "at the end");
}

std::string rootCauseOwn(const PipelineResult& pl, const RootCause& rc) {
  if (rc.own.empty() || !listable(pl, rc.own.front())) return "";
  const Gap& g = pl.gaps[rc.own.front()];
  std::string s = "In step " + std::to_string(pl.steps[g.step].number) + ", " + g.blame.text;
  if (rc.ownCount > 1) s += "; and " + std::to_string(rc.ownCount - 1) + " more like it";
  return s;
}

std::string knockOnSummary(const RootCause& rc) {
  if (rc.knockOnCount == 0) return "";
  const std::vector<int>& stages = rc.knockOnStages;
  std::string s =
      "Knock-ons: " + gaps(rc.knockOnCount) + (stages.size() == 1 ? " on stage " : " on stages ");
  bool first = true;
  for (int st : stages) {
    s += (first ? "" : ", ") + std::to_string(st);
    first = false;
  }
  return s + ", " + formatMs(rc.knockOnIdle) + " ms";
}

std::string knockOnLine(const PipelineResult& pl, const RootCause& rc) {
  if (rc.knockOnCount == 0) return "";
  const size_t named = std::min(kKnockOnsNamed, knockOnsListable(pl, rc));
  if (named == 0) return knockOnSummary(rc);
  std::string s = knockOnSummary(rc) + "; largest ";
  for (size_t i = 0; i < named; ++i) s += (i ? "; " : "") + gapPlace(pl, pl.gaps[rc.knockOns[i]]);
  if (rc.knockOnCount > named) {
    s += "; and " + std::to_string(rc.knockOnCount - named) + " more";
  }
  return s;
}

void writeRootCausesJson(const PipelineResult& pl, bool detail, JsonWriter& out) {
  out.beginArray();
  for (const RootCause& rc : pl.rootCauses) {
    out.beginObject();
    out.field("cause", idleClassKey(rc.id.cause));
    if (rc.costRatio > 0) out.field("cost_ratio", rc.costRatio);
    out.field("gap_count", rc.ownCount);
    if (detail) out.field("gaps", rc.own);
    out.field("idle_ns", rc.idle);
    out.key("knock_ons").beginObject();
    out.field("count", rc.knockOnCount);
    if (detail) out.field("gaps", rc.knockOns);
    out.field("idle_ns", rc.knockOnIdle);
    out.endObject();
    const bool link = rc.id.cause == IdleClass::CommStall;
    if (link) {
      out.key("link").beginObject();
      out.field("from", rc.id.stage >= 0 ? std::optional<int>(rc.id.stage) : std::nullopt);
      out.field("to", rc.id.toStage >= 0 ? std::optional<int>(rc.id.toStage) : std::nullopt);
      out.endObject();
    }
    if (rc.id.hasOp) {
      out.key("op").beginObject();
      out.field("chunk", rc.id.op.chunk);
      out.field("kind", engine::kindName(rc.id.op.kind));
      out.field("mb", rc.id.op.mb);
      out.endObject();
    }
    if (!link && rc.id.stage >= 0) out.field("stage", rc.id.stage);
    out.field("step_count", rc.steps.size());
    if (detail) out.field("steps", rc.steps);
    out.field("text", rc.text);
    out.field("win_ns", rc.win);
    out.endObject();
  }
  out.endArray();
}

}  // namespace bubblescope::analysis
