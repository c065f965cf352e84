#include "analyzer/idle/root_causes.h"

#include <algorithm>
#include <climits>

#include "analyzer/result/printed.h"

namespace bubblescope::analysis {
namespace {

// Transfers carry activations (F) or gradients (B); W sends nothing.
int passOf(OpKind producer) {
  return producer == OpKind::F ? static_cast<int>(OpKind::F) : static_cast<int>(OpKind::B);
}

IdleClass largestAvoidable(const IdleByClass& byClass) {
  IdleClass largest = IdleClass::OtherStall;
  TimeNs most = -1;
  for (int c = 0; c < kIdleClasses; ++c) {
    if (!isScheduleOwn(idleClassAt(c)) && byClass[c] > most) {
      most = byClass[c];
      largest = idleClassAt(c);
    }
  }
  return largest;
}

// Whether the gap is where the cause happened rather than a knock-on of it: a stall's gap right
// before the op it delayed, on its stage; a late transfer's gap before the op that consumed it.
// An op that ran long keeps its own stage busy, so every gap it causes is a knock-on.
bool atItsPlace(const CauseId& id, const Gap& g, const Op* next) {
  switch (id.cause) {
    case IdleClass::HostStall:
    case IdleClass::OtherStall:
      return g.stage == id.stage && (!id.hasOp || (next && *next == id.op));
    case IdleClass::CommStall:
      if (g.stage != id.toStage) return false;
      if (id.stage < 0) return true;  // no link found: the late arrival seen on this stage
      return next && next->mb == g.blame.op.mb &&
             (next->kind == OpKind::F) == (g.blame.op.kind == OpKind::F);
    default:
      return false;
  }
}

}  // namespace

Links::Links(const std::vector<TransferRecord>& transfers, size_t first)
    : Links(transfers.size() - std::min(first, transfers.size()),
            [&](size_t i) { return transfers[first + i]; }) {
  makeOnce();  // now: the list need not outlive the links
}

void Links::add(const TransferRecord& t) const {
  entries_.push_back({t.step, t.fromStage, static_cast<int>(t.pass), t.mb, t.toStage});
}

void Links::makeOnce() const {
  if (!record_) return;
  entries_.reserve(count_);
  for (size_t i = 0; i < count_; ++i) add(record_(i));
  std::sort(entries_.begin(), entries_.end());
  record_ = nullptr;
}

int Links::receiverOf(int step, int fromStage, const Op& producer) const {
  makeOnce();
  const Entry key{step, fromStage, passOf(producer.kind), producer.mb, INT_MIN};
  auto it = std::lower_bound(entries_.begin(), entries_.end(), key);
  if (it == entries_.end() || it->step != step || it->from != fromStage || it->pass != key.pass ||
      it->mb != producer.mb) {
    return -1;
  }
  return it->to;
}

std::optional<CauseId> causeOf(const Gap& g, const Links& links, int imbalancedStage) {
  if (avoidableIdle(g) <= 0) return std::nullopt;
  const Blame& b = g.blame;
  CauseId id;
  if (b.stage >= 0 && !isScheduleOwn(b.cause)) {
    id.cause = b.cause;
    id.stage = b.stage;
    if (b.cause == IdleClass::CommStall) {
      // The walk names the link; a blame from elsewhere (a test's, an older one) its producer.
      id.toStage = b.toStage >= 0 ? b.toStage : links.receiverOf(g.step, b.stage, b.op);
    } else if (b.cause != IdleClass::Imbalance && b.cause != IdleClass::DpSync) {
      // Imbalance is the stage's, whichever op bound; a DP wait is the stage's at the sync.
      id.hasOp = true;
      id.op = b.op;
    }
    return id;
  }
  id.cause = largestAvoidable(g.byClass);
  if (id.cause == IdleClass::CommStall) {
    id.toStage = g.stage;
  } else if (isStall(id.cause)) {
    id.stage = g.stage;
  } else if (id.cause == IdleClass::Imbalance) {
    id.stage = imbalancedStage;
  }
  return id;
}

void addStallWins(TimeNs excess, const std::map<CauseId, TimeNs>& idleInStep,
                  std::map<CauseId, TimeNs>& wins) {
  if (excess <= 0) return;
  TimeNs stallIdle = 0;
  for (const auto& [id, idle] : idleInStep) {
    if (isStall(id.cause)) stallIdle += idle;
  }
  if (stallIdle <= 0) return;
  for (const auto& [id, idle] : idleInStep) {
    if (!isStall(id.cause)) continue;
    wins[id] += static_cast<TimeNs>(static_cast<double>(excess) * static_cast<double>(idle) /
                                    static_cast<double>(stallIdle));
  }
}

std::string causeText(const RootCause& rc) {
  const CauseId& id = rc.id;
  const std::string cls = std::string(" (") + idleClassName(id.cause) + ")";
  const std::string stage = "stage " + std::to_string(id.stage);
  const std::string op = id.hasOp ? engine::label(id.op) + " on " + stage : "";
  const std::string upTo = rc.meanRatio ? "on average " : rc.steps.size() > 1 ? "up to " : "";
  switch (id.cause) {
    case IdleClass::HostStall:
      return (id.hasOp ? "the host launched " + op + " late" : "the host was busy on " + stage) +
             cls;
    case IdleClass::OtherStall:
      return (id.hasOp ? op + " started late, with nothing in the trace to say why"
                       : stage + " started ops late, with nothing in the trace to say why") +
             cls;
    case IdleClass::CommStall:
      if (id.stage < 0) return "late transfers into stage " + std::to_string(id.toStage) + cls;
      return (id.toStage >= 0 ? "the link " + stage + " -> stage " + std::to_string(id.toStage)
                              : "the links out of " + stage) +
             cls;
    case IdleClass::Imbalance:
      if (id.stage < 0) return "the stages' mean op costs differ, no one stage found" + cls;
      if (rc.costRatio <= 0) return stage + ": its ops run longer than the other stages'" + cls;
      return stage + ": its ops run " + upTo + printed("%.1fx", rc.costRatio) +
             " their ideal, longer than the other stages'" + cls;
    case IdleClass::DpSync:
      return stage + " waiting at the DP sync for a replica that arrived later" + cls;
    case IdleClass::Jitter:
      if (!id.hasOp) return "ops ran longer than their stage's mean, no one op found" + cls;
      return op + " ran " + upTo + printed("%.1fx", rc.costRatio) + " its ideal" + cls;
    default:
      return idleClassName(id.cause);
  }
}

namespace {

// Each cause's win, its mean cost ratio where no walk named an op, and its text; then the causes
// with too little idle left out and the rest ordered by win, ties by idle, then by id.
std::vector<RootCause> finishCauses(std::vector<RootCause> out, const StageCosts& costs,
                                    const std::map<CauseId, TimeNs>& wins) {
  for (RootCause& rc : out) {
    if (auto w = wins.find(rc.id); w != wins.end()) rc.win = w->second;
    if (rc.id.cause == IdleClass::Imbalance && rc.id.stage >= 0 && rc.costRatio <= 0) {
      rc.costRatio = costs.ratio(rc.id.stage);
      rc.meanRatio = true;
    }
    rc.text = causeText(rc);
  }
  std::erase_if(out, [](const RootCause& rc) { return rc.idle < kLeastListedGap; });
  std::sort(out.begin(), out.end(), [](const RootCause& a, const RootCause& b) {
    if (a.win != b.win) return a.win > b.win;
    if (a.idle != b.idle) return a.idle > b.idle;
    return a.id < b.id;
  });
  return out;
}

void addStage(std::vector<int>& stages, int stage) {
  auto at = std::lower_bound(stages.begin(), stages.end(), stage);
  if (at == stages.end() || *at != stage) stages.insert(at, stage);
}

}  // namespace

std::vector<RootCause> groupRootCauses(const std::vector<Gap>& gaps,
                                       const std::vector<std::optional<CauseId>>& causes,
                                       const std::vector<OpRecord>& ops,
                                       const std::map<CauseId, TimeNs>& wins) {
  std::vector<TimeNs> avoidable(gaps.size());  // once per gap, not once per comparison
  std::map<CauseId, size_t> index;
  std::vector<RootCause> out;
  for (size_t i = 0; i < gaps.size() && i < causes.size(); ++i) {
    if (!causes[i]) continue;
    const Gap& g = gaps[i];
    avoidable[i] = avoidableIdle(g);
    auto [at, added] = index.try_emplace(*causes[i], out.size());
    if (added) out.emplace_back().id = *causes[i];
    RootCause& rc = out[at->second];
    rc.idle += avoidable[i];
    rc.steps.push_back(g.step);
    rc.costRatio = std::max(rc.costRatio, g.blame.costRatio);
    const bool own = atItsPlace(rc.id, g, g.nextOp >= 0 ? &ops[g.nextOp].op : nullptr);
    (own ? rc.own : rc.knockOns).push_back(static_cast<int>(i));
    if (!own) {
      rc.knockOnIdle += avoidable[i];
      addStage(rc.knockOnStages, g.stage);
    }
  }
  const auto largestFirst = [&](int a, int b) { return avoidable[a] > avoidable[b]; };
  for (RootCause& rc : out) {
    std::sort(rc.steps.begin(), rc.steps.end());
    rc.steps.erase(std::unique(rc.steps.begin(), rc.steps.end()), rc.steps.end());
    std::stable_sort(rc.own.begin(), rc.own.end(), largestFirst);
    std::stable_sort(rc.knockOns.begin(), rc.knockOns.end(), largestFirst);
    rc.ownCount = rc.own.size();
    rc.knockOnCount = rc.knockOns.size();
  }
  return finishCauses(std::move(out), stageCostsOf(ops), wins);
}

void StageCosts::add(const OpRecord& o) {
  // Measured over ideal for an imbalance the walk found no one op behind (the fill levels found
  // it).
  if (o.idealCost <= 0 || o.stage < 0) return;
  if (static_cast<size_t>(o.stage) >= ranIdeal_.size()) ranIdeal_.resize(o.stage + 1);
  auto& [ran, ideal] = ranIdeal_[static_cast<size_t>(o.stage)];
  ran += o.end - o.start;
  ideal += o.idealCost;
}

double StageCosts::ratio(int stage) const {
  if (stage < 0 || static_cast<size_t>(stage) >= ranIdeal_.size()) return 0;
  const auto& [ran, ideal] = ranIdeal_[static_cast<size_t>(stage)];
  return ideal > 0 ? static_cast<double>(ran) / static_cast<double>(ideal) : 0;
}

StageCosts stageCostsOf(const std::vector<OpRecord>& ops) {
  StageCosts out;
  for (const OpRecord& o : ops) out.add(o);
  return out;
}

RootCauseTally::RootCauseTally(size_t keepOwn, size_t keepKnockOns)
    : keepOwn_(keepOwn), keepKnockOns_(keepKnockOns) {}

Gap* RootCauseTally::keepLargest(std::vector<Kept>& kept, size_t most, int index, TimeNs avoidable,
                                 const Gap& g) {
  // Largest first, ties in gap order: the order a stable sort of every gap by its avoidable idle
  // gives, of which these are the head.
  auto at = std::upper_bound(kept.begin(), kept.end(), avoidable,
                             [](TimeNs a, const Kept& k) { return a > k.avoidable; });
  if (static_cast<size_t>(at - kept.begin()) >= most) return nullptr;
  at = kept.insert(at, Kept{index, avoidable, g});
  Gap* copy = &at->gap;
  if (kept.size() > most) kept.pop_back();  // never the one just kept: it is within `most`
  return copy;
}

Gap* RootCauseTally::add(int index, const Gap& g, const CauseId& id, const Op* next) {
  auto [at, added] = index_.try_emplace(id, causes_.size());
  if (added) {
    causes_.emplace_back();
    causes_.back().cause.id = id;
  }
  Entry& e = causes_[at->second];
  RootCause& rc = e.cause;
  const TimeNs avoidable = avoidableIdle(g);
  rc.idle += avoidable;
  if (rc.steps.empty() || rc.steps.back() != g.step) rc.steps.push_back(g.step);
  rc.costRatio = std::max(rc.costRatio, g.blame.costRatio);
  if (atItsPlace(rc.id, g, next)) {
    ++rc.ownCount;
    return keepLargest(e.own, keepOwn_, index, avoidable, g);
  }
  ++rc.knockOnCount;
  rc.knockOnIdle += avoidable;
  addStage(rc.knockOnStages, g.stage);
  return keepLargest(e.knockOns, keepKnockOns_, index, avoidable, g);
}

std::vector<RootCause> RootCauseTally::finish(const StageCosts& costs,
                                              const std::map<CauseId, TimeNs>& wins,
                                              std::map<int, Gap>& kept) {
  std::vector<RootCause> out;
  out.reserve(causes_.size());
  for (Entry& e : causes_) {
    for (const Kept& k : e.own) {
      e.cause.own.push_back(k.index);
      kept.emplace(k.index, k.gap);
    }
    for (const Kept& k : e.knockOns) {
      e.cause.knockOns.push_back(k.index);
      kept.emplace(k.index, k.gap);
    }
    out.push_back(std::move(e.cause));
  }
  causes_.clear();
  index_.clear();
  return finishCauses(std::move(out), costs, wins);
}

}  // namespace bubblescope::analysis
