#pragma once
// What one stage process did, as it will appear in truth.json: every op, transfer, step phase,
// injected fault and NVTX range, with CLOCK_REALTIME start/end in ns.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "reference_engine/executor/annotator.h"
#include "reference_engine/executor/channel.h"
#include "reference_engine/schedule/op.h"
#include "traces/json/json_writer.h"

namespace bubblescope::engine {

struct OpRecord {
  int step = 0;
  Op op;
  int64_t startNs = 0;
  int64_t endNs = 0;
};

struct Interval {
  int64_t startNs = 0;
  int64_t endNs = 0;
};

struct StepRecord {
  int step = 0;
  Interval span;  // the `step N` range: ops, grad_sync and optimizer
  Interval gradSync;
  Interval optimizer;
  std::optional<double> loss;  // mlp mode: mean loss of the step's microbatches
};

// A stall or host stall the engine put there on purpose (comm delays sit inside SEND ranges).
struct InjectedRecord {
  std::string fault;  // "stall", "host_stall"
  int step = 0;
  int mb = 0;
  Interval span;
};

struct StageRecord {
  int stage = 0;
  int pid = 0;
  std::vector<OpRecord> ops;
  std::vector<TransferRecord> sends;
  std::vector<TransferRecord> recvs;
  std::vector<StepRecord> steps;
  std::vector<InjectedRecord> injected;
  std::vector<RangeRecord> ranges;
  std::vector<ThreadRecord> threads;
  // The launcher variables the process saw (RANK, BUBBLESCOPE_PP_RANK, ...): what an agent reads.
  std::vector<std::pair<std::string, std::string>> environment;
};

// The stage's part, as it leaves it for the engine (one line) and as truth.json holds it: members
// in the byte order of their names, sends and receives in time order.
void writeStageRecordJson(const StageRecord& record, traces::JsonWriter& out);
// What writeStageRecordJson wrote. Throws nlohmann::json's exceptions where a member is missing or
// of the wrong type, std::invalid_argument for an unknown op kind.
StageRecord stageRecordFromJson(const nlohmann::json& j);

}  // namespace bubblescope::engine
