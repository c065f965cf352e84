#include "analyzer/replicas/job_rounds_codec.h"

#include <type_traits>

namespace bubblescope::analysis {
namespace {

// Cost keys travel as two ints: the kind's value and the chunk.
void encodeKey(const CostKey& key, traces::ByteWriter& out) {
  out.value(static_cast<int32_t>(key.first));
  out.value(static_cast<int32_t>(key.second));
}
CostKey decodeKey(traces::ByteReader& in) {
  const auto kind = static_cast<OpKind>(in.value<int32_t>());
  const int chunk = in.value<int32_t>();
  return {kind, chunk};
}

}  // namespace

static_assert(std::is_trivially_copyable_v<ReplicaStep>);

void encodeArrivals(const ReplicaArrivals& a, traces::ByteWriter& out) {
  out.value<int32_t>(a.dpRank);
  out.value<int32_t>(a.p);
  out.value<uint64_t>(a.byStep.size());
  for (const auto& [number, stages] : a.byStep) {
    out.value(number);
    out.column(stages);
  }
}

ReplicaArrivals decodeArrivals(traces::ByteReader& in) {
  ReplicaArrivals a;
  a.dpRank = in.value<int32_t>();
  a.p = in.value<int32_t>();
  const uint64_t n = in.count(2 * sizeof(uint64_t));
  for (uint64_t i = 0; i < n; ++i) {
    const auto number = in.value<int64_t>();
    in.column(a.byStep[number]);
  }
  return a;
}

void encodeReplicaCosts(const ReplicaCosts& c, traces::ByteWriter& out) {
  out.value<int32_t>(c.dpRank);
  out.value<int32_t>(c.p);
  out.column(c.steps);
  out.value<uint64_t>(c.sums.size());
  for (const auto& [key, s] : c.sums) {
    encodeKey(key, out);
    out.value(s.first);
    out.value(s.second);
  }
  out.column(c.kinds);
  out.value<uint64_t>(c.lags.size());
  for (const auto& [link, lags] : c.lags) {
    out.value<int32_t>(link.first);
    out.value<int32_t>(link.second);
    out.column(lags);
  }
}

ReplicaCosts decodeReplicaCosts(traces::ByteReader& in) {
  ReplicaCosts c;
  c.dpRank = in.value<int32_t>();
  c.p = in.value<int32_t>();
  in.column(c.steps);
  const uint64_t sums = in.count(2 * sizeof(int32_t) + 2 * sizeof(int64_t));
  for (uint64_t i = 0; i < sums; ++i) {
    const CostKey key = decodeKey(in);
    auto& s = c.sums[key];
    s.first = in.value<TimeNs>();
    s.second = in.value<int64_t>();
  }
  in.column(c.kinds);
  const uint64_t links = in.count(2 * sizeof(int32_t) + sizeof(uint64_t));
  for (uint64_t i = 0; i < links; ++i) {
    const int from = in.value<int32_t>();
    const int to = in.value<int32_t>();
    in.column(c.lags[{from, to}]);
  }
  return c;
}

void encodeJobIdeal(const JobIdeal& ideal, traces::ByteWriter& out) {
  out.column(ideal.steps);
  out.value<uint64_t>(ideal.stepsMissing);
  out.value<uint64_t>(ideal.ideal.size());
  for (const auto& [key, cost] : ideal.ideal) {
    encodeKey(key, out);
    out.value(cost);
  }
  out.value(ideal.transfer);
  out.column(ideal.kinds);
  out.value<int32_t>(ideal.p);
}

JobIdeal decodeJobIdeal(traces::ByteReader& in) {
  JobIdeal ideal;
  in.column(ideal.steps);
  ideal.stepsMissing = in.value<uint64_t>();
  const uint64_t n = in.count(2 * sizeof(int32_t) + sizeof(TimeNs));
  for (uint64_t i = 0; i < n; ++i) {
    const CostKey key = decodeKey(in);
    ideal.ideal[key] = in.value<TimeNs>();
  }
  ideal.transfer = in.value<TimeNs>();
  in.column(ideal.kinds);
  ideal.p = in.value<int32_t>();
  return ideal;
}

void encodeReplay(const ReplicaReplay& r, traces::ByteWriter& out) {
  out.value(r.width);
  out.column(r.makespans);
  out.column(r.replayed);
}

ReplicaReplay decodeReplay(traces::ByteReader& in) {
  ReplicaReplay r;
  r.width = in.value<uint32_t>();
  in.column(r.makespans);
  in.column(r.replayed);
  if (r.makespans.size() != r.replayed.size() * r.width) {
    throw std::runtime_error("a replay's makespans do not fill its steps");
  }
  return r;
}

void encodeSequenceImbalance(const std::optional<SequenceImbalance>& s, traces::ByteWriter& out) {
  out.value<bool>(s.has_value());
  if (!s) return;
  out.value<int32_t>(s->dp);
  out.value(s->correlation);
  out.value(s->spread);
  out.value<int32_t>(s->longestMb);
  out.value(s->longestFactor);
  out.text(s->text);
}

std::optional<SequenceImbalance> decodeSequenceImbalance(traces::ByteReader& in) {
  if (!in.value<bool>()) return std::nullopt;
  SequenceImbalance s;
  s.dp = in.value<int32_t>();
  s.correlation = in.value<double>();
  s.spread = in.value<double>();
  s.longestMb = in.value<int32_t>();
  s.longestFactor = in.value<double>();
  s.text = in.text();
  return s;
}

}  // namespace bubblescope::analysis
