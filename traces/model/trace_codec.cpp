#include "traces/model/trace_codec.h"

#include <type_traits>

namespace bubblescope::traces {
namespace {

void encodeMeta(const RankMeta& m, ByteWriter& out) {
  out.value(m.schemaVersion);
  out.text(m.source);
  out.text(m.runId);
  out.value(m.rank);
  out.value(m.localRank);
  out.value(m.worldSize);
  out.text(m.host);
  out.value(m.pid);
  out.text(m.command);
  out.text(m.agentVersion);
  out.value(m.startNs);
  out.value(m.aliveNs);
  out.value(m.cudaCapture);
  out.text(m.cudaNote);
  out.column(m.clockAnchors);
  out.value<uint64_t>(m.captureWindows.size());
  for (const CaptureWindow& w : m.captureWindows) {
    out.value(w.start);
    out.value(w.end);
    out.text(w.reason);
  }
  out.value<uint64_t>(m.dropped.size());
  for (const auto& [source, n] : m.dropped) {
    out.text(source);
    out.value(n);
  }
  out.value<uint64_t>(m.extra.size());
  for (const auto& [key, value] : m.extra) {
    out.text(key);
    out.text(value);
  }
}

RankMeta decodeMeta(ByteReader& in) {
  RankMeta m;
  m.schemaVersion = in.value<int>();
  m.source = in.text();
  m.runId = in.text();
  m.rank = in.value<int>();
  m.localRank = in.value<int>();
  m.worldSize = in.value<int>();
  m.host = in.text();
  m.pid = in.value<int64_t>();
  m.command = in.text();
  m.agentVersion = in.text();
  m.startNs = in.value<TimeNs>();
  m.aliveNs = in.value<TimeNs>();
  m.cudaCapture = in.value<bool>();
  m.cudaNote = in.text();
  in.column(m.clockAnchors);
  for (auto n = in.value<uint64_t>(); n > 0; --n) {
    CaptureWindow w;
    w.start = in.value<TimeNs>();
    w.end = in.value<TimeNs>();
    w.reason = in.text();
    m.captureWindows.push_back(std::move(w));
  }
  for (auto n = in.value<uint64_t>(); n > 0; --n) {
    std::string source = in.text();
    m.dropped[source] = in.value<uint64_t>();
  }
  for (auto n = in.value<uint64_t>(); n > 0; --n) {
    std::string key = in.text();
    m.extra[key] = in.text();
  }
  return m;
}

}  // namespace

void encodeRankTrace(const RankTrace& trace, ByteWriter& out) {
  out.text(trace.file.string());
  encodeMeta(trace.meta, out);
  out.value<uint64_t>(trace.strings.size());
  for (size_t i = 1; i < trace.strings.size(); ++i) out.text(trace.strings.at(i));
  out.column(trace.threads);
  out.column(trace.streams);
  out.value<uint64_t>(trace.devices.size());
  for (const Device& d : trace.devices) {
    out.value(d.id);
    out.value(d.name);
    out.text(d.uuid);
    out.value(d.memoryBytes);
  }
  // Every table, held or not: an absent one is written as empty columns (and dropped again when
  // read back). forEachColumn only reads here: the tables offer no const form of it.
  RankTrace::forEachGroup(trace, [&](const auto& group) {
    using Table = std::remove_cvref_t<decltype(*group)>;
    const_cast<Table&>(*group).forEachColumn([&](const auto& column) { out.column(column); });
  });
}

RankTrace decodeRankTrace(ByteReader& in) {
  RankTrace t;
  t.file = in.text();
  t.meta = decodeMeta(in);
  // Interned in id order, each string gets the id it had (id 0, "", is there already).
  const auto strings = in.value<uint64_t>();
  for (uint64_t i = 1; i < strings; ++i) t.strings.intern(in.text());
  in.column(t.threads);
  in.column(t.streams);
  for (auto n = in.value<uint64_t>(); n > 0; --n) {
    Device d;
    d.id = in.value<uint32_t>();
    d.name = in.value<StringId>();
    d.uuid = in.text();
    d.memoryBytes = in.value<uint64_t>();
    t.devices.push_back(std::move(d));
  }
  RankTrace::forEachGroup(
      t, [&](auto& group) { group->forEachColumn([&](auto& column) { in.column(column); }); });
  t.settle();
  return t;
}

}  // namespace bubblescope::traces
