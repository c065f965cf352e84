#include "analyzer/recognize/recognizer.h"

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analyzer/recognize/comm_fields.h"
#include "analyzer/recognize/kernel_attribution.h"
#include "analyzer/recognize/steps.h"
#include "analyzer/recognize/work_inside.h"

namespace bubblescope::analysis {
namespace {

using traces::RankTrace;
using traces::StringId;

// A rank matches each of its distinct names once (below); the rule sets' memo adds what other
// ranks and earlier polls matched, unless the rank has more names than the memo can hold.
bool memoHolds(const traces::StringTable& strings) {
  return strings.size() <= RuleSet::kMemoNames;
}

std::optional<Match> matchName(const RuleSet& set, const traces::StringTable& strings,
                               StringId name) {
  const std::string_view label = strings.at(name);
  return memoHolds(strings) ? set.match(label) : set.matchOnce(label);
}

// Matches of one rule set, cached per distinct name (traces repeat a few names millions of times).
class CachedMatcher {
 public:
  CachedMatcher(const RuleSet& set, const traces::StringTable& strings)
      : set_(set), strings_(strings), cache_(strings.size()), done_(strings.size(), false) {}

  const std::optional<Match>& operator()(StringId name) {
    if (!done_[name]) {
      cache_[name] = matchName(set_, strings_, name);
      if (!cache_[name]) cache_[name] = matchName(commonMarkers(), strings_, name);
      done_[name] = true;
    }
    return cache_[name];
  }

 private:
  const RuleSet& set_;
  const traces::StringTable& strings_;
  std::vector<std::optional<Match>> cache_;
  std::vector<bool> done_;
};

// How many of the rank's ranges the set recognises as ops. A rank with more names than the memo
// holds asks of each only whether it is an op.
size_t countOps(const RankTrace& t, const RuleSet& set) {
  std::vector<int8_t> seen(t.strings.size(), -1);
  size_t n = 0;
  for (StringId name : t.ranges->name) {
    if (seen[name] < 0) {
      bool op = false;
      if (memoHolds(t.strings)) {
        auto m = set.match(t.strings.at(name));
        op = m && m->role == Role::Op;
      } else {
        op = set.matchesOp(t.strings.at(name));
      }
      seen[name] = op ? 1 : 0;
    }
    n += static_cast<size_t>(seen[name]);
  }
  return n;
}

// NCCL annotates its own API calls; they are communication, not host work of the job.
bool isNcclDomain(const RankTrace& t, StringId domain) {
  return t.strings.at(domain) == "NCCL";
}

// c10d's ranges around an NCCL call: its collective's CPU op (`c10d::send`, `c10d::allreduce_`),
// the `record_param_comms` that carries its metadata and its `nccl:*` title. They post
// communication, which the trace's NCCL calls already hold (a Kineto trace's importer turns them
// into those calls; an nsys export keeps them as ranges besides NCCL's own). As host activity, a
// receive posted at a step's start opened the step there on stages that wait for their input:
// their steps ran 1.4 ms longer in a generated nsys export than the device's.
bool isCommWrapper(std::string_view name) {
  return name == "record_param_comms" || name.starts_with("nccl:") || name.starts_with("c10d::");
}

// Unrecognised ranges that hold no recognised work of their own thread are evidence that the
// host was busy (data loading, Python, GC); a wrapper around a whole step is not. Work of other
// threads does not count: a comm thread's SEND may well start while the main thread loads data.
template <class IsWork>
void hostActivity(const RankTrace& t, const std::vector<uint32_t>& candidates, IsWork isWork,
                  RankOps& out) {
  const auto& r = *t.ranges;
  const std::vector<bool> holds = candidatesHoldingWork(r, candidates, isWork);
  std::unordered_map<traces::StringId, uint32_t> nameIndex;
  for (size_t k = 0; k < candidates.size(); ++k) {
    if (holds[k]) continue;
    const uint32_t i = candidates[k];
    out.hostActivity.push_back({r.start[i], r.end[i]});
    auto [name, added] =
        nameIndex.try_emplace(r.name[i], static_cast<uint32_t>(out.hostNames.size()));
    if (added) out.hostNames.emplace_back(t.strings.at(r.name[i]));
    out.hostActivityName.push_back(name->second);
  }
}

// Labels that carry stage ids (torch pipelining) name virtual stages: the rank's distinct ids,
// ascending, are its chunks 0, 1, ...
void chunksFromStageIds(const RankTrace& t, RankOps& out,
                        const std::vector<std::optional<int>>& opStage,
                        const std::vector<std::optional<int>>& commStage) {
  std::set<int> ids;
  for (const auto& s : opStage) {
    if (s) ids.insert(*s);
  }
  if (ids.empty()) return;
  out.stageFromLabels = *ids.begin();
  std::map<int, int> chunkOf;
  for (int id : ids) chunkOf.emplace(id, static_cast<int>(chunkOf.size()));
  for (size_t i = 0; i < out.ops.size(); ++i) {
    if (opStage[i]) out.ops[i].op.chunk = opChunk(t, chunkOf[*opStage[i]]);
  }
  for (size_t i = 0; i < out.comms.size(); ++i) {
    if (commStage[i] && chunkOf.count(*commStage[i])) {
      out.comms[i].chunk = commChunk(t, chunkOf[*commStage[i]]);
    }
  }
}

}  // namespace

RankOps recognize(const RankTrace& t, const std::vector<const RuleSet*>& ruleSets) {
  const RuleSet* chosen = nullptr;
  size_t best = 0;
  for (const RuleSet* set : ruleSets) {
    const size_t n = countOps(t, *set);
    if (n > best) {
      best = n;
      chosen = set;
    }
  }
  if (!chosen) return {};
  return recognizeWith(t, *chosen);
}

RankOps recognizeWith(const RankTrace& t, const RuleSet& chosen, bool withKernels) {
  RankOps out;
  out.ruleSet = chosen.name;
  out.mbInferred = chosen.countsMicrobatches;

  CachedMatcher match(chosen, t.strings);
  const auto& r = *t.ranges;
  std::vector<uint32_t> unrecognised;  // not NCCL's own: candidates for host activity
  std::vector<std::optional<int>> opStage, commStage;
  std::vector<traces::ThreadIndex> opThread;  // for kernel attribution alone
  // What only some traces need, gathered only for them: the stage ids of labels that carry one.
  bool labelsNameStages = false;
  {
    // Sized once, from a count by role (each name is matched once, then looked up): an op-level
    // timeline is mostly ops and comms, whose vectors grown by doubling held up to three times
    // their size at the peak of its analysis (issue 28).
    std::array<size_t, 7> byRole{};
    size_t none = 0;
    for (size_t i = 0; i < r.size(); ++i) {
      const auto& m = match(r.name[i]);
      if (m) {
        ++byRole[static_cast<size_t>(m->role)];
        labelsNameStages = labelsNameStages || m->stage.has_value();
      } else {
        ++none;
      }
    }
    auto count = [&](Role role) { return byRole[static_cast<size_t>(role)]; };
    out.ops.reserve(count(Role::Op));
    if (withKernels) opThread.reserve(count(Role::Op));
    if (labelsNameStages) opStage.reserve(count(Role::Op));
    out.comms.reserve(count(Role::Send) + count(Role::Recv));
    if (labelsNameStages) commStage.reserve(count(Role::Send) + count(Role::Recv));
    out.steps.reserve(count(Role::Step));
    // One of each a step on an op-level timeline: kept for the whole analysis, never trimmed.
    out.optimizer.reserve(count(Role::Optimizer));
    out.gradSync.reserve(count(Role::GradSync));
    out.otherBusy.reserve(count(Role::OtherBusy));
    unrecognised.reserve(none);
  }
  std::vector<int8_t> commWrapper(t.strings.size(), -1);  // by name id: -1 not yet known
  for (size_t i = 0; i < r.size(); ++i) {
    const auto& m = match(r.name[i]);
    if (!m) {
      int8_t& wrapper = commWrapper[r.name[i]];
      if (wrapper < 0) wrapper = isCommWrapper(t.strings.at(r.name[i])) ? 1 : 0;
      if (!isNcclDomain(t, r.domain[i]) && wrapper == 0) {
        unrecognised.push_back(static_cast<uint32_t>(i));
      }
      continue;
    }
    switch (m->role) {
      case Role::Op:
        out.ops.push_back(RecognizedOp{.op = Op{m->kind, m->mb.value_or(-1), opChunk(t, m->chunk)},
                                       .start = r.start[i],
                                       .end = r.end[i]});
        if (withKernels) opThread.push_back(r.thread[i]);
        if (labelsNameStages) opStage.push_back(m->stage);
        break;
      case Role::Send:
      case Role::Recv:
        // Named: GCC 12 makes no comm of a bare designated list (its bit-fields' initializers).
        out.comms.push_back(RecognizedComm{.send = m->role == Role::Send,
                                           .pass = m->kind,
                                           .chunk = commChunk(t, m->chunk),
                                           .thread = commThread(t, r.thread[i]),
                                           .mb = m->mb.value_or(-1),
                                           .peer = m->peer.value_or(-1),
                                           .step = -1,
                                           .start = r.start[i],
                                           .end = r.end[i]});
        if (labelsNameStages) commStage.push_back(m->stage);
        break;
      case Role::Step:
        out.steps.push_back(
            {m->step.value_or(static_cast<int64_t>(out.steps.size())), r.start[i], r.end[i]});
        break;
      case Role::Optimizer:
        out.optimizer.push_back({r.start[i], r.end[i]});
        break;
      case Role::GradSync:
        out.gradSync.push_back({r.start[i], r.end[i]});
        break;
      case Role::OtherBusy:
        out.otherBusy.push_back({r.start[i], r.end[i]});
        break;
    }
  }
  chunksFromStageIds(t, out, opStage, commStage);
  // Work is every recognised range but a step's.
  hostActivity(
      t, unrecognised,
      [&](uint32_t i) {
        const auto& m = match(r.name[i]);
        return m && m->role != Role::Step;
      },
      out);
  if (withKernels) attributeKernels(t, out, opThread);
  cutSteps(out);
  if (out.mbInferred) numberMicrobatchesByOrder(out);
  return out;
}

}  // namespace bubblescope::analysis
