#include "gui/model/item_text.h"

#include <cmath>

#include "analyzer/report/format.h"
#include "gui/timeline/ruler.h"

namespace bubblescope::gui {
namespace {

using analysis::formatRatio;

std::string when(TimeNs start, TimeNs end, TimeNs origin) {
  return formatDuration(start - origin) + " to " + formatDuration(end - origin) +
         " from the step start (" + formatDuration(end - start) + ")";
}

const char* rowKindNoun(RowKind k) {
  switch (k) {
    case RowKind::Ops:
      return "ops";
    case RowKind::Ideal:
      return "ideal ops";
    case RowKind::Stream:
      return "GPU activities";
    case RowKind::Nccl:
      return "NCCL calls";
    case RowKind::Api:
      return "CUDA API calls";
    case RowKind::Nvtx:
      return "NVTX ranges";
  }
  return "events";
}

}  // namespace

std::string opName(const analysis::Op& op) {
  std::string s = std::string(engine::kindName(op.kind)) + " mb=" + std::to_string(op.mb);
  if (op.chunk) s += " ch=" + std::to_string(op.chunk);
  return s;
}

std::string opLabel(const analysis::Op& op, double widthPx, double charW) {
  const std::string mb =
      std::to_string(op.mb) + (op.chunk ? "." + std::to_string(op.chunk) : std::string());
  for (const std::string& s : {opName(op), engine::label(op), mb}) {
    if (static_cast<double>(s.size()) * charW <= widthPx) return s;
  }
  return "";
}

std::string fitLabel(std::string_view text, double widthPx, double charW) {
  const double fits = std::floor(widthPx / charW);
  if (fits >= static_cast<double>(text.size())) return std::string(text);
  if (fits < 3) return "";
  return std::string(text.substr(0, static_cast<size_t>(fits) - 2)) + "..";
}

const char* ncclOpName(traces::NcclOp op) {
  return op == traces::NcclOp::Unknown ? "nccl (unknown)" : traces::ncclOpInfo(op).api;
}

const char* memcpyKindName(traces::MemcpyKind k) {
  return traces::memcpyDirection(k, "?");
}

std::string itemName(const TimelineModel& model, const PipelineRows& p, const Row& row,
                     uint32_t item) {
  const auto* pl = p.result;
  switch (row.kind) {
    case RowKind::Ops:
      return opName(pl->ops[item].op);
    case RowKind::Ideal: {
      const size_t n = pl->idealOps.size();
      return n ? opName(pl->idealOps[item % n].op) : "";
    }
    default:
      break;
  }
  const traces::RankTrace& t = model.run->ranks[row.rank];
  switch (row.kind) {
    case RowKind::Stream: {
      const uint32_t i = streamIndexOf(item);
      switch (streamTableOf(item)) {
        case StreamTable::Kernel:
          return std::string(t.strings.at(t.kernels->name[i]));
        case StreamTable::Memcpy:
          return std::string("memcpy ") + memcpyKindName(t.memcpys->copyKind[i]);
        case StreamTable::Memset:
          return "memset";
      }
      return "";
    }
    case RowKind::Nccl:
      return ncclOpName(t.ncclCalls->op[item]);
    case RowKind::Api:
      return std::string(t.strings.at(t.apiCalls->name[item]));
    case RowKind::Nvtx:
      return std::string(t.strings.at(t.ranges->name[item]));
    default:
      return "";
  }
}

std::string gapTooltip(const PipelineRows& p, uint32_t gap, TimeNs origin) {
  const analysis::Gap& g = p.result->gaps[gap];
  std::string s = "idle " + formatDuration(g.idle) + " on stage " + std::to_string(g.stage) +
                  ", mostly " + analysis::idleClassName(g.dominant) + "\n" +
                  when(g.start, g.end, origin);
  for (int c = 0; c < analysis::kIdleClasses; ++c) {
    if (g.byClass[c] <= 0) continue;
    s += "\n  " + formatDuration(g.byClass[c]) + "  " +
         analysis::idleClassName(analysis::idleClassAt(c));
  }
  if (!g.blame.text.empty()) s += "\n" + g.blame.text;
  // The causing op by the name its box carries, so the eye can find it on the timeline.
  if (g.blame.stage >= 0) {
    s += "\ncause: " + opName(g.blame.op) + " on stage " + std::to_string(g.blame.stage);
    if (g.blame.costRatio > 0) s += ", which ran " + formatRatio(g.blame.costRatio) + " its ideal";
  }
  return s;
}

std::string itemTooltip(const TimelineModel& model, const PipelineRows& p, const Row& row,
                        uint32_t item, TimeNs origin) {
  const auto* pl = p.result;
  switch (row.kind) {
    case RowKind::Ops: {
      const analysis::OpRecord& o = pl->ops[item];
      std::string s = opName(o.op) + " on stage " + std::to_string(o.stage) + ", step " +
                      std::to_string(pl->steps[o.step].number) + "\n" +
                      when(o.start, o.end, origin);
      if (o.idealCost > 0) {
        s += "\n" +
             formatRatio(static_cast<double>(o.end - o.start) / static_cast<double>(o.idealCost)) +
             " its ideal cost (" + formatDuration(o.idealCost) + ")";
      }
      return s;
    }
    case RowKind::Ideal: {
      const size_t n = pl->idealOps.size();
      const analysis::OpRecord& o = pl->idealOps[item % n];
      const auto& step = pl->steps[item / n];
      return opName(o.op) + " in the ideal schedule of step " + std::to_string(step.number) +
             " (mean costs everywhere, no stalls)\n" +
             when(step.start + o.start, step.start + o.end, origin);
    }
    default:
      break;
  }
  const traces::RankTrace& t = model.run->ranks[row.rank];
  const TimeNs off = model.clockOffset(row.rank);
  const std::string name = itemName(model, p, row, item);
  switch (row.kind) {
    case RowKind::Stream: {
      const uint32_t i = streamIndexOf(item);
      switch (streamTableOf(item)) {
        case StreamTable::Kernel: {
          std::string s = "kernel " + name + "\n" + row.label + "\n" +
                          when(t.kernels->start[i] + off, t.kernels->end[i] + off, origin);
          if (const analysis::CommWait* w = p.commWaitOf(row.rank, i); w && w->gap >= 0) {
            const auto cls = p.result->gaps[static_cast<size_t>(w->gap)].dominant;
            s += "\nwaited " + formatDuration(w->transferStart - w->start) +
                 " for its peers (idle: " + analysis::idleClassName(cls) +
                 "), then moved data for " + formatDuration(w->end - w->transferStart);
            if (w->members.partial()) s += " (" + analysis::tracedMembersText(w->members) + ")";
          }
          return s;
        }
        case StreamTable::Memcpy:
          return name + ", " + std::to_string(t.memcpys->bytes[i]) + " bytes\n" + row.label + "\n" +
                 when(t.memcpys->start[i] + off, t.memcpys->end[i] + off, origin);
        case StreamTable::Memset:
          return name + ", " + std::to_string(t.memsets->bytes[i]) + " bytes\n" + row.label + "\n" +
                 when(t.memsets->start[i] + off, t.memsets->end[i] + off, origin);
      }
      return name;
    }
    case RowKind::Nccl: {
      std::string s = name;
      if (t.ncclCalls->peer[item] >= 0) s += " peer " + std::to_string(t.ncclCalls->peer[item]);
      s += ", " + std::to_string(t.ncclCalls->bytes[item]) + " bytes\n" + row.label + "\n" +
           when(t.ncclCalls->start[item] + off, t.ncclCalls->end[item] + off, origin);
      return s;
    }
    case RowKind::Api:
      return name + "\n" + row.label + "\n" +
             when(t.apiCalls->start[item] + off, t.apiCalls->end[item] + off, origin);
    case RowKind::Nvtx: {
      std::string s = "NVTX " + name;
      const auto domain = t.strings.at(t.ranges->domain[item]);
      if (!domain.empty()) s += " (domain " + std::string(domain) + ")";
      return s + "\n" + row.label + "\n" +
             when(t.ranges->start[item] + off, t.ranges->end[item] + off, origin);
    }
    default:
      return name;
  }
}

std::string foldedTooltip(const Row& row, size_t count, TimeNs start, TimeNs end, TimeNs origin) {
  return std::to_string(count) + " " + rowKindNoun(row.kind) +
         " too narrow to draw apart (zoom in)\n" + when(start, end, origin);
}

}  // namespace bubblescope::gui
