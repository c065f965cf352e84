#include "analyzer/owned_rounds_codec.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "analyzer/replicas/job_rounds_codec.h"
#include "analyzer/result/pipeline_result_codec.h"

namespace bubblescope::analysis {
namespace {

void encodeTexts(const std::vector<std::string>& texts, traces::ByteWriter& out) {
  out.value<uint64_t>(texts.size());
  for (const std::string& t : texts) out.text(t);
}

std::vector<std::string> decodeTexts(traces::ByteReader& in) {
  std::vector<std::string> out(in.count(sizeof(uint64_t)));
  for (std::string& t : out) t = in.text();
  return out;
}

}  // namespace

void encodeFailure(const Failure& f, traces::ByteWriter& out) {
  out.value(f.kind);
  if (f) out.text(f.what);
}

Failure decodeFailure(traces::ByteReader& in) {
  Failure f;
  f.kind = in.value<Failure::Kind>();
  if (f.kind > Failure::Kind::Other) throw std::runtime_error("a failure of an unknown kind");
  if (f) f.what = in.text();
  return f;
}

void encodeOwnedMatching(const OwnedMatching& m, traces::ByteWriter& out) {
  encodeFailure(m.failure, out);
  if (!m.failure) encodeReplicaMatching(m.matching, out);
}

OwnedMatching decodeOwnedMatching(traces::ByteReader& in) {
  OwnedMatching m;
  m.failure = decodeFailure(in);
  if (!m.failure) m.matching = decodeReplicaMatching(in);
  return m;
}

void encodeBuiltReplica(const BuiltReplica& b, traces::ByteWriter& out) {
  encodeFailure(b.failure, out);
  if (b.failure) return;
  out.column(b.offsets);
  encodeTexts(b.warnings, out);
  encodeArrivals(b.arrivals, out);
}

BuiltReplica decodeBuiltReplica(traces::ByteReader& in) {
  BuiltReplica b;
  b.failure = decodeFailure(in);
  if (b.failure) return b;
  in.column(b.offsets);
  b.warnings = decodeTexts(in);
  b.arrivals = decodeArrivals(in);
  return b;
}

void encodeOwnedCosts(const OwnedCosts& c, traces::ByteWriter& out) {
  encodeFailure(c.failure, out);
  if (c.failure) return;
  encodeReplicaCosts(c.costs, out);
  encodeSequenceImbalance(c.imbalance, out);
}

OwnedCosts decodeOwnedCosts(traces::ByteReader& in) {
  OwnedCosts c;
  c.failure = decodeFailure(in);
  if (c.failure) return c;
  c.costs = decodeReplicaCosts(in);
  c.imbalance = decodeSequenceImbalance(in);
  return c;
}

void encodeOwnedReplay(const OwnedReplay& r, traces::ByteWriter& out) {
  encodeFailure(r.failure, out);
  if (!r.failure) encodeReplay(r.replay, out);
}

OwnedReplay decodeOwnedReplay(traces::ByteReader& in) {
  OwnedReplay r;
  r.failure = decodeFailure(in);
  if (!r.failure) r.replay = decodeReplay(in);
  return r;
}

void encodeAnalysedReplica(const AnalysedReplica& a, traces::ByteWriter& out) {
  encodeFailure(a.failure, out);
  encodeTexts(a.said, out);
  if (!a.failure) encodePipelineResult(a.result, out);
}

AnalysedReplica decodeAnalysedReplica(traces::ByteReader& in) {
  AnalysedReplica a;
  a.failure = decodeFailure(in);
  a.said = decodeTexts(in);
  if (!a.failure) a.result = decodePipelineResult(in);
  return a;
}

void encodeDpWaits(const DpWaits& w, traces::ByteWriter& out) {
  out.value(w.p);
  out.column(w.steps);
  out.column(w.waits);
}

DpWaits decodeDpWaits(traces::ByteReader& in) {
  DpWaits w;
  w.p = in.value<int>();
  in.column(w.steps);
  in.column(w.waits);
  if (w.p < 0 || w.waits.size() != w.steps.size() * static_cast<size_t>(w.p) ||
      !std::is_sorted(w.steps.begin(), w.steps.end())) {
    throw std::runtime_error("DP waits of " + std::to_string(w.steps.size()) + " steps of " +
                             std::to_string(w.p) + " stages, but " +
                             std::to_string(w.waits.size()) + " waits");
  }
  return w;
}

}  // namespace bubblescope::analysis
