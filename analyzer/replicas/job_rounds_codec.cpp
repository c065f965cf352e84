#include "analyzer/replicas/job_rounds_codec.h"

#include <stdexcept>
#include <type_traits>

#include "traces/model/field_codec.h"

namespace bubblescope::analysis {

static_assert(std::is_trivially_copyable_v<ReplicaStep>);

// Each message's fields, in one order for both directions (traces/model/field_codec.h finds
// these by the struct's namespace).
template <typename F, traces::FieldsOf<ReplicaArrivals> S>
void fields(F& f, S& a) {
  f(a.dpRank), f(a.p), f(a.byStep);
}

template <typename F, traces::FieldsOf<ReplicaCosts> S>
void fields(F& f, S& c) {
  f(c.dpRank), f(c.p), f(c.steps), f(c.sums), f(c.kinds), f(c.lags);
}

template <typename F, traces::FieldsOf<JobIdeal> S>
void fields(F& f, S& ideal) {
  f(ideal.steps), f(ideal.stepsMissing), f(ideal.ideal), f(ideal.transfer), f(ideal.kinds);
  f(ideal.p);
}

template <typename F, traces::FieldsOf<ReplicaReplay> S>
void fields(F& f, S& r) {
  f(r.width), f(r.makespans), f(r.replayed);
}

template <typename F, traces::FieldsOf<SequenceImbalance> S>
void fields(F& f, S& s) {
  f(s.dp), f(s.correlation), f(s.spread), f(s.longestMb), f(s.longestFactor), f(s.text);
}

void encodeArrivals(const ReplicaArrivals& a, traces::ByteWriter& out) {
  traces::writeFields(a, out);
}
ReplicaArrivals decodeArrivals(traces::ByteReader& in) {
  return traces::readFields<ReplicaArrivals>(in);
}

void encodeReplicaCosts(const ReplicaCosts& c, traces::ByteWriter& out) {
  traces::writeFields(c, out);
}
ReplicaCosts decodeReplicaCosts(traces::ByteReader& in) {
  return traces::readFields<ReplicaCosts>(in);
}

void encodeJobIdeal(const JobIdeal& ideal, traces::ByteWriter& out) {
  traces::writeFields(ideal, out);
}
JobIdeal decodeJobIdeal(traces::ByteReader& in) {
  return traces::readFields<JobIdeal>(in);
}

void encodeReplay(const ReplicaReplay& r, traces::ByteWriter& out) {
  traces::writeFields(r, out);
}
ReplicaReplay decodeReplay(traces::ByteReader& in) {
  ReplicaReplay r = traces::readFields<ReplicaReplay>(in);
  if (r.makespans.size() != r.replayed.size() * r.width) {
    throw std::runtime_error("a replay's makespans do not fill its steps");
  }
  return r;
}

void encodeSequenceImbalance(const std::optional<SequenceImbalance>& s, traces::ByteWriter& out) {
  traces::writeFields(s, out);
}
std::optional<SequenceImbalance> decodeSequenceImbalance(traces::ByteReader& in) {
  return traces::readFields<std::optional<SequenceImbalance>>(in);
}

}  // namespace bubblescope::analysis
