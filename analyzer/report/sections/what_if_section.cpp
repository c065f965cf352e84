#include "analyzer/report/sections/what_if_section.h"

#include <algorithm>

#include "analyzer/report/format.h"

namespace bubblescope::analysis {
namespace {


// The stage holding the most (the first on a tie), in bytes where known, else in microbatches.
size_t busiestStage(const WhatIf& w) {
  size_t best = 0;
  for (size_t s = 1; s < w.activations.size(); ++s) {
    const bool more = w.activationBytes.size() == w.activations.size()
                          ? w.activationBytes[s] > w.activationBytes[best]
                          : w.activations[s] > w.activations[best];
    if (more) best = s;
  }
  return best;
}

bool bytesKnown(const WhatIf& w) {
  return !w.activations.empty() && w.activationBytes.size() == w.activations.size();
}

// "7 microbatches' activations", "1 microbatch's", "1.2 GiB of activations"
std::string amount(const WhatIf& w, size_t s) {
  if (bytesKnown(w)) return formatBytes(w.activationBytes[s]) + " of activations";
  const double n = w.activations[s];
  return formatCount(n) + (n == 1 ? " microbatch's" : " microbatches'") + " activations";
}

// "every stage", "stage 0"
std::string where(const WhatIf& w, size_t s) {
  const bool same = std::all_of(w.activations.begin(), w.activations.end(),
                                [&](double a) { return a == w.activations[s]; });
  return same && w.activations.size() > 1 ? "every stage" : "stage " + std::to_string(s);
}

const WhatIf* measuredRow(const PipelineResult& pl) {
  for (const WhatIf& w : pl.whatIf) {
    if (w.scenario == "measured") return &w;
  }
  return nullptr;
}

}  // namespace

const WhatIf* bestWhatIf(const PipelineResult& pl) {
  const WhatIf* best = nullptr;
  for (const auto& w : pl.whatIf) {
    if (w.available && w.scenario != "measured" && (!best || w.speedup > best->speedup)) best = &w;
  }
  return best;
}

std::string activationCell(const WhatIf& w) {
  if (w.activations.empty()) return "";
  const double most = *std::max_element(w.activations.begin(), w.activations.end());
  if (!bytesKnown(w)) return formatCount(most);
  const int64_t bytes = *std::max_element(w.activationBytes.begin(), w.activationBytes.end());
  return formatCount(most) + " (" + formatBytes(bytes) + ")";
}

std::string activationColumnNote(const PipelineResult& pl) {
  std::string note =
      "Activations: the most a stage holds at once, in microbatches of the measured job (each "
      "from its forward until its W or BW ends; twice the microbatches are half the size)";
  const std::vector<int64_t>& perMb = pl.activationSize.perMicrobatch;
  if (!perMb.empty()) {
    const auto [least, most] = std::minmax_element(perMb.begin(), perMb.end());
    note += ", and in bytes from the trace's live-tensor samples: a microbatch's take " +
            (*least == *most ? formatBytes(*most) + " on every stage"
                             : formatBytes(*least) + " to " + formatBytes(*most) + " by stage");
  } else {
    note += "; bytes unknown (" +
            (pl.activationSize.unknown.empty() ? std::string("not measured")
                                               : pl.activationSize.unknown) +
            ")";
  }
  return note;
}

std::string whatIfAssumptions(const PipelineResult& pl, const WhatIf& w) {
  std::string out = w.note;
  if (w.activations.empty()) return out;
  const size_t s = busiestStage(w);
  std::string held = "holds up to " + amount(w, s) + " on " + where(w, s);
  const WhatIf* measured = measuredRow(pl);
  if (measured && measured != &w && !measured->activations.empty() &&
      bytesKnown(*measured) == bytesKnown(w)) {
    const size_t m = busiestStage(*measured);
    const double ratio = bytesKnown(w) ? static_cast<double>(w.activationBytes[s]) /
                                             static_cast<double>(measured->activationBytes[m])
                                       : w.activations[s] / measured->activations[m];
    const std::string what = bytesKnown(w) ? formatBytes(measured->activationBytes[m])
                                           : formatCount(measured->activations[m]);
    const std::string order = pl.schedule.name == "custom" ? "order" : pl.schedule.name;
    held += ", " + formatRatio(ratio) + " the measured " + order + "'s " + what + " (" +
            where(*measured, m) + ")";
    // A stage that holds little today may hold much more: the last ones, under ZB-H1 or ZB-V.
    size_t most = 0;
    double mostRatio = 0;
    for (size_t k = 0; k < w.activations.size() && k < measured->activations.size(); ++k) {
      if (measured->activations[k] <= 0) continue;
      const double r = w.activations[k] / measured->activations[k];
      if (r > mostRatio) most = k, mostRatio = r;
    }
    if (mostRatio > ratio + 0.005) {
      held += "; stage " + std::to_string(most) + " holds " + formatRatio(mostRatio) +
              " what it holds now";
    }
  }
  return out.empty() ? held : out + "; " + held;
}

void writeActivationMemoryJson(const WhatIf& w, JsonWriter& out) {
  if (w.activations.empty()) return out.null();
  const bool bytes = bytesKnown(w);
  out.beginObject();
  out.key("bytes");
  bytes ? out.value(w.activationBytes) : out.null();
  out.field("microbatches", w.activations);
  out.key("most_bytes");
  bytes ? out.value(*std::max_element(w.activationBytes.begin(), w.activationBytes.end()))
        : out.null();
  out.field("most_microbatches", *std::max_element(w.activations.begin(), w.activations.end()));
  out.endObject();
}

}  // namespace bubblescope::analysis
