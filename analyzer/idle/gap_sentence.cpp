#include "analyzer/idle/gap_sentence.h"

#include <charconv>
#include <cstdio>

namespace bubblescope::analysis {
namespace {

// "3.1 ms" with `decimals`: the digits printf's "%.*f" gives (std::to_chars is specified as
// printf in the C locale), without its cost, paid for every sentence of a run that keeps them all.
std::string fixedMs(TimeNs t, int decimals) {
  char buf[40];
  const auto r = std::to_chars(buf, buf + sizeof buf - 3, static_cast<double>(t) / 1e6,
                               std::chars_format::fixed, decimals);
  std::string out(buf, r.ptr);
  out += " ms";
  return out;
}

std::string ms(TimeNs t) {
  return fixedMs(t, 1);
}

std::string ratio(double r) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1fx", r);
  return buf;
}

std::string payload(OpKind consumer) {
  return consumer == OpKind::F ? "activations" : "gradients";
}

// "F5 on stage 1"
std::string describe(int stage, const Op& op) {
  return engine::label(op) + " on stage " + std::to_string(stage);
}

std::string link(int from, int to) {
  return "the link stage " + std::to_string(from) + " -> stage " + std::to_string(to);
}

// The name of host range `name` of `stage` ("dataloader"); empty for none.
std::string hostName(const PipelineTrace& pl, int stage, int name) {
  if (name < 0 || stage < 0 || stage >= static_cast<int>(pl.stages.size())) return {};
  const auto& names = pl.stages[stage].ops.hostNames;
  return name < static_cast<int>(names.size()) ? names[name] : std::string();
}

// How a host stall's sentence ends: the host range that covered it, if any (", while it was in
// 'dataloader'"), then " (stall: host)".
std::string hostStallEnding(const PipelineTrace& pl, int stage, int name) {
  const std::string busy = hostName(pl, stage, name);
  return (busy.empty() ? "" : ", while it was in '" + busy + "'") + std::string(" (stall: host)");
}

// What a class's piece of a gap is, when no dependency walk explains it: how the fill levels
// (classify.h) found it.
void appendReason(std::string& out, IdleClass c, const std::string& hostRange) {
  switch (c) {
    case IdleClass::Warmup:
      out += "for the pipeline to fill";
      return;
    case IdleClass::Drain:
      out += "while the pipeline drains, as the schedule itself does";
      return;
    case IdleClass::ScheduleBubble:
      out += "in a gap the schedule itself leaves";
      return;
    case IdleClass::Imbalance:
      out += "because the stages' mean op costs differ (balanced stages would not wait)";
      return;
    case IdleClass::Jitter:
      out += "because ops ran longer than their stage's mean";
      return;
    case IdleClass::CommStall:
      out += "beyond what the op costs explain, in late transfers";
      return;
    case IdleClass::HostStall:
      if (hostRange.empty()) {
        out += "beyond what the op costs explain, while the host was busy";
      } else {
        out += "beyond what the op costs explain, while the host was in '";
        out += hostRange;
        out += '\'';
      }
      return;
    case IdleClass::DpSync:
      out += "at the DP sync, waiting for a replica that arrived later";
      return;
    case IdleClass::OtherStall:
      out += "beyond what the op costs explain, with nothing in the trace to say why";
      return;
  }
}

// The class's piece as the fill levels found it, then its tag: "for the pipeline to fill (warm-up
// bubble)".
void appendPiece(std::string& out, IdleClass c, const std::string& hostRange) {
  appendReason(out, c, hostRange);
  out += " (";
  out += idleClassName(c);
  out += ')';
}

std::string ranLong(const Blame& b) {
  return ", which ran " + ratio(b.costRatio) + " its ideal (" + idleClassName(b.cause) + ")";
}

// The walk's answer without the "stage 2 waited 3.1 ms " that opens the gap's sentence.
std::string walkText(const Blame& b, const BlameWords& w, const PipelineTrace& pl) {
  switch (w.form) {
    case BlameForm::Bubble: {  // a warm-up, drain or steady bubble, as the fill levels say it
      std::string text;
      appendPiece(text, b.cause, {});
      return text;
    }
    case BlameForm::Drained:
      return "for the other stages to drain (drain bubble)";
    case BlameForm::LastOpRanLong:
      return "for " + describe(b.stage, b.op) + " to finish the step" + ranLong(b);
    case BlameForm::RanLong:
      return "behind " + describe(b.stage, b.op) + ranLong(b);
    case BlameForm::ProducerRanLong:
      return "for " + describe(b.stage, b.op) + ranLong(b);
    case BlameForm::ReceivePostedLate:
      return "because the host posted the receive of " + describe(b.stage, b.op) + " " +
             ms(w.took) + " after " +
             (w.afterStageFree ? "the stage was free" : "its input was ready") +
             hostStallEnding(pl, b.stage, w.hostName);
    case BlameForm::SendQueued:
      return "because the " + payload(w.consumer) + " of " + describe(b.stage, b.op) + " waited " +
             ms(w.took) + " behind the transfer before them on " + link(b.stage, b.toStage) +
             " (stall: comm)";
    case BlameForm::SendPostedLate:
      return "because the host of stage " + std::to_string(b.stage) + " posted the send of the " +
             payload(w.consumer) + " of " + describe(b.stage, b.op) + " " + ms(w.took) +
             " after it ended" + hostStallEnding(pl, b.stage, w.hostName);
    case BlameForm::HeldBehind: {
      const std::string behind = w.held.stage < 0 ? "a transfer"
                                                  : "the " + payload(w.held.op.kind) + " of " +
                                                        describe(w.held.stage, w.held.op);
      return "because the " + payload(w.consumer) + " of " +
             describe(w.producer.stage, w.producer.op) + " waited " + ms(w.took) +
             " on their stream behind " + behind +
             (w.slowLink
                  ? ", which took " + ms(w.beyond) + " longer than a healthy link takes, on " +
                        link(b.stage, b.toStage) + " (stall: comm)"
                  : ", " + link(b.stage, b.toStage) +
                        " moving one message at a time (stall: comm)");
    }
    case BlameForm::LaunchedLate:
      return "because the host launched " + describe(b.stage, b.op) + " " + ms(w.took) +
             " after it was ready" + hostStallEnding(pl, b.stage, w.hostName);
    case BlameForm::StartedAfterLaunch:
      return "because " + describe(b.stage, b.op) + " started " + ms(w.took) +
             " after it was ready although the host launched it in time (stall: other)";
    case BlameForm::FirstOpAfterHost: {
      const std::string busy = hostName(pl, b.stage, w.hostName);
      return "because " + describe(b.stage, b.op) + " started " + ms(w.took) +
             " after the step began, " +
             (busy.empty() ? "the host was busy elsewhere"
                           : "the host was busy in '" + busy + "'") +
             " (stall: host)";
    }
    case BlameForm::StartedLate: {
      const std::string busy = hostName(pl, b.stage, w.hostName);
      return "because " + describe(b.stage, b.op) + " started " + ms(w.took) +
             " after it was ready" +
             (b.cause != IdleClass::HostStall
                  ? ", with nothing in the trace to explain it (stall: other)"
              : busy.empty() ? ", the host was busy elsewhere (stall: host)"
                             : ", the host was busy in '" + busy + "' (stall: host)");
    }
    case BlameForm::SlowLink:
      return "because the " + payload(w.consumer) + " of " + describe(b.stage, b.op) + " took " +
             ms(w.took) + " longer than a healthy link takes, on " + link(b.stage, b.toStage) +
             " (stall: comm)";
    case BlameForm::DpSync:
      return "at the DP sync for DP replica " + std::to_string(w.dpReplica) + ", whose stage " +
             std::to_string(b.stage) + " finished its ops " + gapMs(w.took) + " later (" +
             idleClassName(IdleClass::DpSync) + ")";
    case BlameForm::LargestPiece:
      break;
  }
  return {};
}

// With a drain the step's last op held up, the walk's answer is why that op ended late.
std::string walkOf(const Blame& b, const BlameWords& w, const PipelineTrace& pl) {
  if (w.lastOp.stage < 0) return walkText(b, w, pl);
  return "for the step's last op (" + describe(w.lastOp.stage, w.lastOp.op) + "), held up " +
         walkText(b, w, pl);
}

}  // namespace

std::string gapMs(TimeNs t) {
  return fixedMs(t, t < 1'000'000 ? 2 : 1);
}

std::string waitedText(int stage, TimeNs gapIdle) {
  return "stage " + std::to_string(stage) + " waited " + gapMs(gapIdle);
}

std::string walkSentence(int stage, TimeNs gapIdle, const Blamed& walk,
                         const PipelineTrace& pipeline) {
  return waitedText(stage, gapIdle) + " " + walkOf(walk.blame, walk.words, pipeline);
}

std::string gapSentence(const Gap& gap, const BlameWords& words, const PipelineTrace& pipeline) {
  const Blame& b = gap.blame;
  const IdleClass largest = gap.dominant;
  std::string text = waitedText(gap.stage, gap.idle);
  if (words.form != BlameForm::LargestPiece && largest == b.cause) {
    text += ' ';
    text += walkOf(b, words, pipeline);
    return text;
  }
  // Led by the largest class (gap_label.h): what the fill levels found it to be, then the walk's
  // explanation of the piece it covers, if any.
  text += ", ";
  text += gapMs(gap.byClass[static_cast<int>(largest)]);
  text += " of it ";
  appendPiece(text, largest, hostName(pipeline, gap.stage, words.gapHostName));
  const TimeNs walked = gap.byClass[static_cast<int>(b.cause)];
  if (words.form != BlameForm::LargestPiece && walked > 0) {
    text += "; of the rest, ";
    text += gapMs(walked);
    text += ' ';
    text += walkOf(b, words, pipeline);
  }
  return text;
}

}  // namespace bubblescope::analysis
