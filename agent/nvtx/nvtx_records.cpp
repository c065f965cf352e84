#include "agent/nvtx/nvtx_records.h"

#include <string>
#include <unordered_map>
#include <vector>

#include "agent/core/record_sink.h"
#include "agent/nvtx/open_range_rows.h"

namespace bubblescope::agent {

NvtxRecordTypes g_nvtxTypes;

namespace {

using traces::StringId;

// Start/end ranges waiting for their other half, per file (writer thread only).
struct OpenStart {
  int64_t start;
  uint64_t tid;
  StringId domain, name;
  uint32_t category, color;
};
struct EarlyEnd {
  int64_t end;
  uint64_t tid;
};
// Writer thread only. Leaked, not destroyed: the writer may still run while exit() destroys
// static objects.
struct Pending {
  std::unordered_map<uint64_t, OpenStart> starts;
  std::unordered_map<uint64_t, EarlyEnd> earlyEnds;
};
Pending& pending() {
  static auto* p = new Pending;
  return *p;
}
const NvtxCategoryName* g_categoriesWritten = nullptr;

StringId domainId(RecordSink& sink, const NvtxDomain* d) {
  return d == nullptr ? 0 : sink.internHandle(d, d->name);
}

StringId nameId(RecordSink& sink, const NvtxString* registered, std::string_view text) {
  if (registered != nullptr) return sink.internHandle(registered, registered->text);
  return sink.intern(text);
}

void writeStartEnd(RecordSink& sink, const OpenStart& s, int64_t end, uint64_t endTid) {
  traces::RangeRecord r;
  r.start = s.start;
  r.end = end;
  r.tid = s.tid;
  r.endTid = endTid;
  r.domain = s.domain;
  r.name = s.name;
  r.depth = 0;
  r.kind = traces::RangeKind::StartEnd;
  r.category = s.category;
  r.color = s.color;
  sink.trace().add(r);
}

void decodeRange(RecordSink& sink, const RecordView& v) {
  const auto& p = v.as<NvtxRangePayload>();
  traces::RangeRecord r;
  r.start = sink.toNs(p.start);
  r.end = sink.toNs(p.end);
  r.tid = v.tid;
  r.endTid = v.tid;
  r.domain = domainId(sink, p.domain);
  r.name = nameId(sink, p.registered, v.text);
  r.depth = static_cast<uint16_t>(p.depth);
  r.kind = traces::RangeKind::PushPop;
  r.category = p.category;
  r.color = p.color;
  sink.trace().add(r);
}

void decodeStart(RecordSink& sink, const RecordView& v) {
  const auto& p = v.as<NvtxStartPayload>();
  OpenStart s{
      sink.toNs(p.start), v.tid,  domainId(sink, p.domain), nameId(sink, p.registered, v.text),
      p.category,         p.color};
  if (auto early = pending().earlyEnds.find(p.id); early != pending().earlyEnds.end()) {
    writeStartEnd(sink, s, early->second.end, early->second.tid);
    pending().earlyEnds.erase(early);
    return;
  }
  pending().starts[p.id] = s;
}

void decodeEnd(RecordSink& sink, const RecordView& v) {
  const auto& p = v.as<NvtxEndPayload>();
  const int64_t end = sink.toNs(p.end);
  if (auto open = pending().starts.find(p.id); open != pending().starts.end()) {
    writeStartEnd(sink, open->second, end, v.tid);
    pending().starts.erase(open);
    return;
  }
  // Its start is in a ring not drained yet (another thread's).
  pending().earlyEnds[p.id] = EarlyEnd{end, v.tid};
}

void decodeMark(RecordSink& sink, const RecordView& v) {
  const auto& p = v.as<NvtxMarkPayload>();
  traces::MarkRecord m;
  m.ts = sink.toNs(p.ts);
  m.tid = v.tid;
  m.domain = domainId(sink, p.domain);
  m.name = nameId(sink, p.registered, v.text);
  sink.trace().add(m);
}

void onFileOpened(RecordSink&) {
  pending().starts.clear();
  pending().earlyEnds.clear();
  g_categoriesWritten = nullptr;
  forgetOpenRanges();
}

// Start/end ranges begun and not ended yet, for the open_ranges snapshot.
std::vector<traces::OpenRangeRecord> openStarts() {
  std::vector<traces::OpenRangeRecord> rows;
  for (const auto& [id, s] : pending().starts) {
    rows.push_back({s.start, s.tid, s.domain, s.name, 0, traces::RangeKind::StartEnd});
  }
  return rows;
}

void onClosing(RecordSink& sink) {
  writeOpenRanges(sink, openStarts(), true);
}

// Category names (nvtxNameCategory) go to the metadata: extra.nvtx_category.<id>, or
// extra.nvtx_category.<domain>.<id> outside the default domain.
void onCycle(RecordSink& sink) {
  const NvtxCategoryName* newest = newestCategoryName();
  std::vector<const NvtxCategoryName*> fresh;
  for (const NvtxCategoryName* c = newest; c != nullptr && c != g_categoriesWritten; c = c->next) {
    fresh.push_back(c);
  }
  for (auto it = fresh.rbegin(); it != fresh.rend(); ++it) {  // oldest first: renames win
    const NvtxCategoryName* c = *it;
    std::string key = "extra.nvtx_category.";
    if (c->domain != nullptr) key += c->domain->name + ".";
    key += std::to_string(c->category);
    sink.trace().setMeta(key, c->name);
  }
  g_categoriesWritten = newest;
  writeOpenRanges(sink, openStarts(), false);
}

}  // namespace

const NvtxRecordTypes& registerNvtxRecords() {
  if (g_nvtxTypes.range == 0) {
    g_nvtxTypes.range = registerRecordType("nvtx.range", &decodeRange);
    g_nvtxTypes.start = registerRecordType("nvtx.start", &decodeStart);
    g_nvtxTypes.end = registerRecordType("nvtx.end", &decodeEnd);
    g_nvtxTypes.mark = registerRecordType("nvtx.mark", &decodeMark);
    WriterHooks hooks;
    hooks.fileOpened = &onFileOpened;
    hooks.cycle = &onCycle;
    hooks.closing = &onClosing;
    addWriterHooks(hooks);
  }
  return g_nvtxTypes;
}

}  // namespace bubblescope::agent
