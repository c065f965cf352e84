#pragma once
// Root cause first (issue 26, item 4): the gaps' avoidable idle grouped by the cause the blame
// walk found for each, so a stall and the knock-ons it caused on other stages read as one entry
// instead of five rows that outrank each other. Pure: gaps, ops and transfers in, causes out; what
// removing a cause wins comes from the simulator (whatif/cause_wins.h) and is passed in.
#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "analyzer/result/result.h"

namespace bubblescope::analysis {

// Where each stage's messages went, per step: a comm stall's blame names the producer op, and
// its link is that op's output's way to the receiver.
class Links {
 public:
  // The transfers from `first` on (one step's, as analyzeStep appends them).
  explicit Links(const std::vector<TransferRecord>& transfers, size_t first = 0);
  // The same from `count` transfers, the i-th as `record(i)` gives it, with no list of records
  // made (a summary's analysis keeps none: at 10,000 stages a step's were 7.7 MB, issue 28), and
  // read only once a lookup needs them: the blame walk names the link of most stalls itself
  // (Blame::toStage), and a step's links of 10,000 stages were 3.2 MB under its peak. `record`
  // is called while the Links lives.
  Links(size_t count, std::function<TransferRecord(size_t)> record)
      : count_(count), record_(std::move(record)) {}
  // The stage that received `producer`'s output in `step`; -1 when no transfer of it is recorded.
  // Two chunks of one stage sending the same microbatch's output elsewhere (rare: interleaved
  // orders send both chunks to the next stage) give the first recorded.
  int receiverOf(int step, int fromStage, const Op& producer) const;

 private:
  struct Entry {
    int step, from, pass, mb, to;
    auto operator<=>(const Entry&) const = default;
  };
  void add(const TransferRecord& t) const;
  void makeOnce() const;
  size_t count_ = 0;
  mutable std::function<TransferRecord(size_t)> record_;  // empty once made
  mutable std::vector<Entry> entries_;                    // sorted, once made
};

// The cause a gap's avoidable idle is blamed on (CauseId says what makes two the same); none for
// a gap without avoidable idle. A gap whose walk found no place goes to its largest avoidable
// class: a stall on the gap's own stage (where its evidence is); imbalance on `imbalancedStage`
// (the stage whose means make the stage-mean replay differ from the ideal: scenarios.h,
// mostImbalancedStage), or nowhere when it is -1; jitter nowhere.
std::optional<CauseId> causeOf(const Gap& gap, const Links& links, int imbalancedStage = -1);

// A step's stalls together cost `excess`: its measured time beyond the replay of its measured op
// costs, which has no stalls. Adds to `wins` each stall cause's share of it, in proportion to the
// idle it caused in the step (`idleInStep`, all of the step's causes; the others are skipped).
void addStallWins(TimeNs excess, const std::map<CauseId, TimeNs>& idleInStep,
                  std::map<CauseId, TimeNs>& wins);

// Each stage's ops' measured time against their ideal cost, summed op by op: the ratio an
// imbalance the blame walk found no one op behind is given (its stage's mean, not a 0.0x). An
// analysis that keeps no op record past its step adds each op as it is recorded.
class StageCosts {
 public:
  void add(const OpRecord& op);
  // 0 when the stage ran no op with an ideal cost.
  double ratio(int stage) const;

 private:
  std::vector<std::pair<TimeNs, TimeNs>> ranIdeal_;  // per stage
};

StageCosts stageCostsOf(const std::vector<OpRecord>& ops);

// "F5 on stage 1 started late (stall: other)", "the link stage 2 -> stage 3 (stall: comm)".
std::string causeText(const RootCause& cause);

// Groups gaps by cause (`causes[i]` is causeOf(gaps[i])), each cause's gaps split into its own
// and its knock-ons, largest first; `wins` holds what removing each wins (absent: nothing). Leaves
// out causes with less idle than kLeastListedGap; orders by win, ties by idle, then by id.
std::vector<RootCause> groupRootCauses(const std::vector<Gap>& gaps,
                                       const std::vector<std::optional<CauseId>>& causes,
                                       const std::vector<OpRecord>& ops,
                                       const std::map<CauseId, TimeNs>& wins);

// The same grouping gap by gap, as the steps are classified, for an analysis that holds no gap
// after its step (a summary's, PipelineResult::gapIndex): per cause its idle, steps and counts
// as groupRootCauses gives them, and copies of its `keepOwn` largest own gaps and `keepKnockOns`
// largest knock-ons (largest first, ties in gap order), all a summary report names. Gaps are
// added in order; `index` is each one's among every gap of the pipeline.
class RootCauseTally {
 public:
  RootCauseTally(size_t keepOwn, size_t keepKnockOns);
  // `next`: the op that ended the gap (Gap::nextOp's), null when none did. The gap's copy where
  // it is kept, for now, among its cause's largest (valid until the next add); else null.
  Gap* add(int index, const Gap& gap, const CauseId& id, const Op* next);
  // The gaps kept so far, each cause's own then knock-ons.
  template <typename F>
  void forEachKept(F&& f) const {
    for (const Entry& e : causes_) {
      for (const Kept& k : e.own) f(k.gap);
      for (const Kept& k : e.knockOns) f(k.gap);
    }
  }
  // The causes as groupRootCauses returns them, own and knockOns holding only the kept gaps'
  // indexes; the kept gaps go into `kept`, by index.
  std::vector<RootCause> finish(const StageCosts& costs, const std::map<CauseId, TimeNs>& wins,
                                std::map<int, Gap>& kept);

 private:
  struct Kept {
    int index;
    TimeNs avoidable;
    Gap gap;
  };
  struct Entry {
    RootCause cause;
    std::vector<Kept> own, knockOns;
  };
  static Gap* keepLargest(std::vector<Kept>& kept, size_t most, int index, TimeNs avoidable,
                          const Gap& gap);
  size_t keepOwn_, keepKnockOns_;
  std::map<CauseId, size_t> index_;
  std::vector<Entry> causes_;
};

}  // namespace bubblescope::analysis
