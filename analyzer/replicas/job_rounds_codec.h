#pragma once
// What a replica analysed on one process tells the process that analyses the job, and what comes
// back, as bytes: its arrivals at the DP sync (dp_waits.h), its steps and op costs and then its
// replays at the job's ideal (job_whatif.h), its sequence-length finding. Pure: no I/O. A reader
// that runs past the end throws std::runtime_error.
#include <optional>

#include "analyzer/replicas/dp_waits.h"
#include "analyzer/replicas/job_whatif.h"
#include "analyzer/result/job_result.h"
#include "traces/model/byte_codec.h"

namespace bubblescope::analysis {

void encodeArrivals(const ReplicaArrivals& a, traces::ByteWriter& out);
ReplicaArrivals decodeArrivals(traces::ByteReader& in);

void encodeReplicaCosts(const ReplicaCosts& c, traces::ByteWriter& out);
ReplicaCosts decodeReplicaCosts(traces::ByteReader& in);

void encodeJobIdeal(const JobIdeal& ideal, traces::ByteWriter& out);
JobIdeal decodeJobIdeal(traces::ByteReader& in);

void encodeReplay(const ReplicaReplay& r, traces::ByteWriter& out);
ReplicaReplay decodeReplay(traces::ByteReader& in);

void encodeSequenceImbalance(const std::optional<SequenceImbalance>& s, traces::ByteWriter& out);
std::optional<SequenceImbalance> decodeSequenceImbalance(traces::ByteReader& in);

}  // namespace bubblescope::analysis
