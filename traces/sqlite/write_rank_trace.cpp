// Model -> file: what importers and tests use to store a whole RankTrace.
#include "traces/sqlite/trace_writer.h"

namespace bubblescope::traces {

void writeRankTrace(const RankTrace& t, const std::filesystem::path& file) {
  TraceWriter w(file, t.meta);
  writeRankTraceRows(t, w);
  w.close();
}

void writeRankTraceRows(const RankTrace& t, TraceWriter& w) {
  // The model's ids index its own table; re-intern them into the file's.
  std::vector<StringId> ids(t.strings.size());
  for (StringId i = 0; i < t.strings.size(); ++i) ids[i] = w.intern(t.strings.at(i));
  auto tid = [&](ThreadIndex i) { return t.threads.at(i).tid; };

  for (const auto& th : t.threads) w.addThread(th.tid, t.strings.at(th.name));
  for (const auto& d : t.devices) w.addDevice(d.id, t.strings.at(d.name), d.uuid, d.memoryBytes);
  for (const auto& s : t.streams) w.addStream(s.device, s.streamId, t.strings.at(s.name));

  const auto& r = *t.ranges;
  for (size_t i = 0; i < r.size(); ++i) {
    w.add(RangeRecord{r.start[i], r.end[i], tid(r.thread[i]), tid(r.thread[i]), ids[r.domain[i]],
                      ids[r.name[i]], r.depth[i], r.kind[i], 0, 0});
  }
  const auto& o = *t.openRanges;
  std::vector<OpenRangeRecord> open;
  for (size_t i = 0; i < o.size(); ++i) {
    open.push_back(OpenRangeRecord{o.start[i], tid(o.thread[i]), ids[o.domain[i]], ids[o.name[i]],
                                   o.depth[i], o.kind[i]});
  }
  if (!open.empty()) w.replaceOpenRanges(open);
  if (t.meta.aliveNs != 0) w.setAliveNs(t.meta.aliveNs);
  const auto& mk = *t.marks;
  for (size_t i = 0; i < mk.size(); ++i) {
    w.add(MarkRecord{mk.start[i], tid(mk.thread[i]), ids[mk.domain[i]], ids[mk.name[i]]});
  }
  auto device = [&](StreamIndex s) { return t.streams.at(s).device; };
  auto stream = [&](StreamIndex s) { return t.streams.at(s).streamId; };
  const auto& k = *t.kernels;
  for (size_t i = 0; i < k.size(); ++i) {
    KernelRecord rec;
    rec.start = k.start[i];
    rec.end = k.end[i];
    rec.device = device(k.stream[i]);
    rec.stream = stream(k.stream[i]);
    rec.correlation = k.correlation[i];
    rec.name = ids[k.name[i]];
    w.add(rec);
  }
  const auto& mc = *t.memcpys;
  for (size_t i = 0; i < mc.size(); ++i) {
    w.add(MemcpyRecord{mc.start[i], mc.end[i], device(mc.stream[i]), stream(mc.stream[i]),
                       mc.correlation[i], mc.bytes[i], mc.copyKind[i], 0, 0});
  }
  const auto& ms = *t.memsets;
  for (size_t i = 0; i < ms.size(); ++i) {
    w.add(MemsetRecord{ms.start[i], ms.end[i], device(ms.stream[i]), stream(ms.stream[i]),
                       ms.correlation[i], ms.bytes[i], 0});
  }
  const auto& sy = *t.syncs;
  for (size_t i = 0; i < sy.size(); ++i) {
    const bool none = sy.stream[i] == kNoStream;
    w.add(SyncRecord{sy.start[i], sy.end[i], none ? 0 : device(sy.stream[i]),
                     none ? UINT32_MAX : stream(sy.stream[i]), sy.correlation[i], sy.syncKind[i]});
  }
  const auto& a = *t.apiCalls;
  for (size_t i = 0; i < a.size(); ++i) {
    w.add(ApiCallRecord{a.start[i], a.end[i], tid(a.thread[i]), ids[a.name[i]], a.correlation[i], 0,
                        ApiDomain::Runtime, 0});
  }
  const auto& n = *t.ncclCalls;
  for (size_t i = 0; i < n.size(); ++i) {
    w.add(NcclCallRecord{n.fieldsAt(i), n.id[i], n.start[i], n.end[i], tid(n.thread[i]),
                         n.streamHandle[i], n.source[i]});
  }
  const auto& c = *t.correlations;
  for (size_t i = 0; i < c.size(); ++i) {
    w.add(CorrelationRecord{c.correlation[i], c.externalKind[i], c.externalId[i]});
  }
  const auto& mu = *t.memory;
  for (size_t i = 0; i < mu.size(); ++i) {
    w.add(MemoryUsageRecord{mu.start[i], mu.device[i], mu.allocated[i], mu.reserved[i]});
  }
  w.commit();
}

}  // namespace bubblescope::traces
