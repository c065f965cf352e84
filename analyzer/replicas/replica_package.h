#pragma once
// A DP replica built where its ranks' ops are (`analyze` under MPI, docs/mpi.md): once the job's
// comms are matched and its clocks aligned (split_matching.h), what the owner of a replica (the
// process holding its ranks' whole recognised ops) builds the replica's pipeline by is its
// package. The owner's pipeline is the one a single process builds of the whole job
// (buildPipeline).
// Pure: no I/O. A reader that runs past the end throws std::runtime_error.
#include <cstdint>
#include <vector>

#include "analyzer/comm/comm_match.h"
#include "analyzer/pipeline/pipeline_trace.h"
#include "analyzer/pipeline/topology.h"
#include "analyzer/recognize/recognized.h"
#include "traces/model/byte_codec.h"

namespace bubblescope::analysis {

struct ReplicaPackage {
  int dpRank = 0;
  int pp = 0;
  std::vector<uint32_t> ranks;  // each stage's rank (index into the run), in stage order
  bool alignClocks = true;
  int64_t firstStep = INT64_MIN, lastStep = INT64_MAX;  // the warm-up step already left out
  bool offsetsApplied = false;  // the comms aligned the clocks (PipelineOptions::appliedOffsets)
  std::vector<TimeNs> offsets;  // per rank of `ranks`, when applied
  // Per rank of `ranks`: its NCCL kernels on the job's clock, split into waiting and transfer
  // (splitCommKernels reads the other members' kernels, which the owner may not hold).
  std::vector<std::vector<CommKernel>> commKernels;
  // The job's matched sends and receives with a side on `ranks`, in the job's order: what the
  // stages whose labels name no transfer take theirs from (commsFromKernels).
  std::vector<P2pMatch> p2p;
};

// What an owner builds `topo`'s replica `replica` by but its comms: its place and the steps kept
// (`options`), each rank's NCCL kernels empty, no offsets, no sends and receives. Throws
// std::invalid_argument for a stage of several ranks (a TP group, folded where its ranks are).
ReplicaPackage replicaFrame(const Topology& topo, size_t replica, const PipelineOptions& options);

// The package of `topo`'s replica `replica`: `light[r]` holds rank r's NCCL kernels, shifted by its
// offset and split (as the analysis leaves every rank's ops after matching), `options` what the
// pipelines are built with (its comms are `comms`). Throws std::invalid_argument for a stage of
// several ranks (a TP group, folded where its ranks are).
ReplicaPackage packageReplica(const Topology& topo, size_t replica, const CommMatches& comms,
                              const std::vector<RankOps>& light, const PipelineOptions& options);

void encodeReplicaPackage(const ReplicaPackage& p, traces::ByteWriter& out);
ReplicaPackage decodeReplicaPackage(traces::ByteReader& in);

// The replica's pipeline, built by its owner: `ops[r]` is the whole of each of the package's
// ranks as recognised (its own clock), moved into the stages; `ops` is indexed as the run, the
// ranks of other replicas may be empty. Throws as buildPipeline does.
PipelineTrace buildOwnedReplica(const ReplicaPackage& package, std::vector<RankOps>& ops);

}  // namespace bubblescope::analysis
