#pragma once
// What owners and the coordinator of a job analysed where its ranks are (owned_analysis.h) send
// each other, as bytes: a failure, a replica's comms matched, a built replica, its costs, its
// replay, its analysis, and a replica's waits at the DP sync. Pure: no I/O. A reader that runs past
// the end throws std::runtime_error.
#include "analyzer/owned_analysis.h"
#include "traces/model/byte_codec.h"

namespace bubblescope::analysis {

void encodeFailure(const Failure& f, traces::ByteWriter& out);
Failure decodeFailure(traces::ByteReader& in);

void encodeOwnedMatching(const OwnedMatching& m, traces::ByteWriter& out);
OwnedMatching decodeOwnedMatching(traces::ByteReader& in);

void encodeBuiltReplica(const BuiltReplica& b, traces::ByteWriter& out);
BuiltReplica decodeBuiltReplica(traces::ByteReader& in);

void encodeOwnedCosts(const OwnedCosts& c, traces::ByteWriter& out);
OwnedCosts decodeOwnedCosts(traces::ByteReader& in);

void encodeOwnedReplay(const OwnedReplay& r, traces::ByteWriter& out);
OwnedReplay decodeOwnedReplay(traces::ByteReader& in);

void encodeAnalysedReplica(const AnalysedReplica& a, traces::ByteWriter& out);
AnalysedReplica decodeAnalysedReplica(traces::ByteReader& in);

void encodeDpWaits(const DpWaits& w, traces::ByteWriter& out);
DpWaits decodeDpWaits(traces::ByteReader& in);

}  // namespace bubblescope::analysis
