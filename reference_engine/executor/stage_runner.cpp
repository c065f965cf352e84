#include "reference_engine/executor/stage_runner.h"

#include <sys/resource.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "reference_engine/executor/clock.h"
#include "reference_engine/executor/order_fault.h"
#include "reference_engine/executor/range_names.h"

namespace bubblescope::engine {

namespace {

bool isBackward(OpKind kind) {
  return kind == OpKind::B || kind == OpKind::BW;
}

[[noreturn]] void crashOnPurpose() {
  // An injected crash is a test of the launcher, not a bug: no core file.
  rlimit none{0, 0};
  setrlimit(RLIMIT_CORE, &none);
  std::abort();
}

// An injected hang: the stage stops with nothing open but its step and never returns, as a rank
// stuck in host code does; the launcher's watchdog (or a signal) ends it.
[[noreturn]] void hangOnPurpose() {
  for (;;) ::pause();
}

Communicator pipelineCommunicator(int p, int stage) {
  std::vector<int> members;
  for (int s = 0; s < p; ++s) members.push_back(s);
  return {communicatorHash("pipeline", members), p, stage};
}

}  // namespace

StageRunner::StageRunner(const EngineConfig& config, int stage, Mailbox& mailbox,
                         std::map<int, std::unique_ptr<Channel>>& channels, Annotator& annotator,
                         Compute& compute, StageRecord& record, const NcclRanges& nccl)
    : config_(config),
      stage_(stage),
      plan_(plannedOrder(config.schedule, stage, config.faults)),
      costs_(config.costs, config.faults, config.seed),
      mailbox_(mailbox),
      channels_(channels),
      annotator_(annotator),
      compute_(compute),
      record_(record),
      nccl_(nccl),
      pipelineComm_(pipelineCommunicator(config.schedule.p, stage)) {}

void StageRunner::run() {
  // Every stage is up before step 0 starts, as after init_process_group.
  {
    auto init = nccl_.commInitRank(pipelineComm_);
    allReduce(0, MessageKind::Rendezvous, MessageKind::RendezvousDone, {});
  }
  for (int step = 0; step < config_.steps; ++step) runStep(step);
}

void StageRunner::runStep(int step) {
  StepRecord rec;
  rec.step = step;
  auto stepRange = annotator_.range(stepRangeName(step));
  for (size_t i = 0; i < plan_.size(); ++i) {
    const PlannedOp& planned = plan_[i];
    Payload input = receiveInput(step, planned);
    if (planned.firstOfMicrobatch) injectFaults(step, planned);
    const int index = static_cast<int>(i);
    const int64_t cost = costs_.opNs(stage_, step, index, planned.op.kind);
    const double scale = costs_.scale(stage_, step, index);
    auto range = annotator_.range(opRangeName(planned.op));
    Payload output = compute_.runOp(planned, step, std::move(input), cost, scale);
    const int64_t end = range.end();
    record_.ops.push_back({step, planned.op, range.startNs(), end});
    sendOutput(step, planned, std::move(output));
  }

  GradSyncValues total;
  {
    auto range = annotator_.range(kGradSyncRange);
    auto call = nccl_.allReduce(pipelineComm_, sizeof(GradSyncValues));
    // No stage leaves before every stage has finished its ops, as with Megatron's grad-norm
    // all-reduce: the next step starts when this one ended on every stage.
    total = allReduce(step, MessageKind::GradReduce, MessageKind::GradBroadcast,
                      compute_.gradSyncContribution());
    rec.gradSync = {range.startNs(), range.end()};
  }
  {
    auto range = annotator_.range(kOptimizerRange);
    compute_.runOptimizer(total);
    rec.optimizer = {range.startNs(), range.end()};
  }
  if (total.lossCount > 0) rec.loss = total.lossSum / total.lossCount;
  rec.span = {stepRange.startNs(), stepRange.end()};
  record_.steps.push_back(rec);
}

Payload StageRunner::receiveInput(int step, const PlannedOp& planned) {
  if (!planned.input) return {};
  const Op& op = planned.op;
  const bool gradient = isBackward(op.kind);
  const MessageKey key{step, gradient ? MessageKind::Gradient : MessageKind::Activation, op.mb,
                       op.chunk};
  const Endpoint from = *planned.input;
  if (from.stage == stage_) {
    auto it = handoffs_.find(key);
    if (it == handoffs_.end()) {
      throw std::logic_error("the schedule runs " + opRangeName(op) + " on stage " +
                             std::to_string(stage_) + " before chunk " +
                             std::to_string(from.chunk) + " produced its input");
    }
    Payload p = std::move(it->second);
    handoffs_.erase(it);
    return p;
  }
  auto range = annotator_.range(recvRangeName(gradient, op.mb, op.chunk, from.stage));
  Payload payload;
  {
    // The size is the message's: known when it is there, handed over at the range's pop.
    auto call = nccl_.recv(pipelineComm_, 0, from.stage);
    payload = mailbox_.take(from.stage, key);
    call.setBytes(payload.size());
  }
  const int64_t end = range.end();
  record_.recvs.push_back({step, gradient, op.mb, op.chunk, from.stage, from.chunk, payload.size(),
                           range.startNs(), end});
  return payload;
}

void StageRunner::sendOutput(int step, const PlannedOp& planned, Payload output) {
  if (!planned.output) return;
  const Op& op = planned.op;
  const bool gradient = isBackward(op.kind);
  const Endpoint to = *planned.output;
  OutgoingMessage m;
  m.header = {gradient ? MessageKind::Gradient : MessageKind::Activation, step, op.mb, to.chunk,
              output.size()};
  if (to.stage == stage_) {
    handoffs_[keyOf(m.header)] = std::move(output);
    return;
  }
  m.payload = std::move(output);
  m.rangeName = sendRangeName(gradient, op.mb, op.chunk, to.stage);
  m.record = {step, gradient, op.mb, op.chunk, to.stage, to.chunk, 0, 0, 0};
  m.delayNs = msToNs(config_.faults.commDelayMs(stage_, step));
  // As with ncclSend, the call posts the transfer and returns; the channel's sender moves it.
  auto call = nccl_.send(pipelineComm_, m.payload.size(), to.stage);
  channels_.at(to.stage)->send(std::move(m));
}

void StageRunner::injectFaults(int step, const PlannedOp& planned) {
  const int mb = planned.op.mb;
  for (const Crash& c : config_.faults.crashes) {
    if (c.stage != stage_ || c.mb != mb || c.step != step) continue;
    // The sends posted before it leave first (their SEND ranges closed): the stage dies outside
    // any transfer however late a loaded machine runs its sender threads.
    for (auto& [peer, channel] : channels_) channel->waitUntilWritten();
    crashOnPurpose();
  }
  for (const Hang& h : config_.faults.hangs) {
    if (h.stage == stage_ && h.mb == mb && h.step == step) hangOnPurpose();
  }
  for (const Stall& s : config_.faults.stalls) {
    if (!s.hits(stage_, step, mb)) continue;
    // Idle with nothing open: the host neither computes nor waits on a visible call.
    const int64_t start = realtimeNs();
    sleepUntil(monotonicNs() + msToNs(s.ms));
    record_.injected.push_back({"stall", step, mb, {start, realtimeNs()}});
  }
  for (const Stall& s : config_.faults.hostStalls) {
    if (!s.hits(stage_, step, mb)) continue;
    auto range = annotator_.hostWork(kDataloaderRange);
    spinUntil(monotonicNs() + msToNs(s.ms));
    const int64_t end = range.end();
    record_.injected.push_back({"host_stall", step, mb, {range.startNs(), end}});
  }
}

GradSyncValues StageRunner::allReduce(int step, MessageKind towardsFirst, MessageKind back,
                                      GradSyncValues v) {
  const int p = config_.schedule.p;
  if (stage_ + 1 < p) {
    GradSyncValues later = receiveValues(step, towardsFirst, stage_ + 1);
    v.gradSquares += later.gradSquares;
    v.lossSum += later.lossSum;
    v.lossCount += later.lossCount;
  }
  if (stage_ > 0) {
    sendValues(step, towardsFirst, stage_ - 1, v);
    v = receiveValues(step, back, stage_ - 1);
  }
  if (stage_ + 1 < p) sendValues(step, back, stage_ + 1, v);
  return v;
}

void StageRunner::sendValues(int step, MessageKind kind, int to, const GradSyncValues& values) {
  OutgoingMessage m;
  m.payload.resize(sizeof values);
  std::memcpy(m.payload.data(), &values, sizeof values);
  m.header = {kind, step, 0, 0, m.payload.size()};
  channels_.at(to)->send(std::move(m));
}

GradSyncValues StageRunner::receiveValues(int step, MessageKind kind, int from) {
  Payload p = mailbox_.take(from, {step, kind, 0, 0});
  GradSyncValues v;
  if (p.size() != sizeof v) throw std::runtime_error("all-reduce: malformed message");
  std::memcpy(&v, p.data(), sizeof v);
  return v;
}

}  // namespace bubblescope::engine
