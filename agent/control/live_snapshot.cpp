#include "agent/control/live_snapshot.h"

#include <algorithm>
#include <charconv>
#include <cinttypes>
#include <cstdio>
#include <string_view>

namespace bubblescope::control {
namespace {

using traces::NcclOp;

// Reply room left for the identity fields status also sends (a command line of 256 bytes, paths).
constexpr size_t kSnapshotBytes = kMaxReplyBytes - 8 * 1024;

// A call's op on the wire: NCCL's name in lower case without "nccl" ("allreduce"). Only calls
// that move data are in the history.
std::string opWord(NcclOp op) {
  if (!traces::movesData(op)) return "unknown";
  const std::string_view api = traces::ncclOpInfo(op).api;
  std::string word;
  for (char c : api.substr(std::string_view("nccl").size())) {
    word.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c);  // any locale
  }
  return word;
}

bool opFromWord(std::string_view w, NcclOp* op) {
  for (const traces::NcclOpInfo& row : traces::kNcclOps) {
    if (traces::movesData(row.op) && w == opWord(row.op)) {
      *op = row.op;
      return true;
    }
  }
  return false;
}

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%" PRIx64, v);
  return buf;
}

// Splits off the text before the next comma.
std::string_view nextPart(std::string_view& rest) {
  const size_t comma = rest.find(',');
  const std::string_view part = rest.substr(0, comma);
  rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
  return part;
}

template <class T>
bool number(std::string_view text, T* out, int base = 10) {
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), *out, base);
  return !text.empty() && ec == std::errc() && ptr == text.data() + text.size();
}

std::string rangeField(const LiveRange& r) {
  return std::to_string(r.tid) + "," + std::to_string(r.depth) + "," + std::to_string(r.startNs) +
         "," + r.name;
}

std::string callField(const LiveCall& c) {
  return opWord(c.op) + "," + std::to_string(c.peer) + "," + std::to_string(c.count) + "," +
         std::to_string(c.bytes) + "," + std::to_string(c.dtype) + "," + hex(c.comm) + "," +
         std::to_string(c.commRank) + "," + std::to_string(c.commSize) + "," +
         std::to_string(c.seq) + "," + std::to_string(c.startNs) + "," + std::to_string(c.endNs) +
         "," + std::to_string(c.tid);
}

std::string countField(const LiveCount& c) {
  return c.kind + "," + hex(c.comm) + "," + std::to_string(c.peer) + "," + std::to_string(c.calls) +
         "," + std::to_string(c.commRank);
}

}  // namespace

void addSnapshot(const LiveSnapshot& s, Reply& reply) {
  auto& f = reply.fields;
  f["alive_ns"] = std::to_string(s.aliveNs);
  f["nccl"] = s.ncclRead ? "ok" : "busy";
  for (const auto& [name, value] : s.env) f["env." + name] = value;
  size_t bytes = 0;
  // The counts first: without them no call can be paired. Then the innermost ranges (where a
  // thread waits), then the newest calls.
  size_t n = 0;
  for (const LiveCount& c : s.counts) {
    std::string v = countField(c);
    bytes += v.size() + 8;
    f["n" + std::to_string(n++)] = std::move(v);
  }
  f["call_counts"] = std::to_string(n);
  std::vector<const LiveRange*> ranges;
  for (const LiveRange& r : s.ranges) ranges.push_back(&r);
  std::stable_sort(ranges.begin(), ranges.end(),
                   [](const LiveRange* a, const LiveRange* b) { return a->depth > b->depth; });
  n = 0;
  for (const LiveRange* r : ranges) {
    std::string v = rangeField(*r);
    const size_t need = v.size() * 3 + r->domain.size() * 3 + 16;  // escaping at worst triples
    if (bytes + need > kSnapshotBytes / 2) break;
    bytes += need;
    if (!r->domain.empty()) f["od" + std::to_string(n)] = r->domain;
    f["o" + std::to_string(n++)] = std::move(v);
  }
  f["open_ranges"] = std::to_string(n);
  // Newest first while they fit, then numbered oldest first (c0 is the oldest kept).
  std::vector<std::string> kept;
  for (auto c = s.calls.rbegin(); c != s.calls.rend(); ++c) {
    std::string v = callField(*c);
    if (bytes + v.size() + 8 > kSnapshotBytes) break;
    bytes += v.size() + 8;
    kept.push_back(std::move(v));
  }
  n = 0;
  for (auto v = kept.rbegin(); v != kept.rend(); ++v) f["c" + std::to_string(n++)] = std::move(*v);
  f["nccl_calls"] = std::to_string(n);
}

bool snapshotFromReply(const Reply& reply, LiveSnapshot* out, std::string* error) {
  LiveSnapshot s;
  s.aliveNs = reply.integer("alive_ns", 0);
  s.ncclRead = reply.text("nccl") != "busy";
  for (const auto& [key, value] : reply.fields) {
    if (key.rfind("env.", 0) == 0) s.env[key.substr(4)] = value;
  }
  auto bad = [&](const std::string& key) {
    *error = "malformed field '" + key + "' in the reply to hang";
    return false;
  };
  const int64_t ranges = reply.integer("open_ranges", -1);
  const int64_t calls = reply.integer("nccl_calls", -1);
  const int64_t counts = reply.integer("call_counts", -1);
  if (s.aliveNs <= 0 || ranges < 0 || calls < 0 || counts < 0 || ranges > 100000 ||
      calls > 100000 || counts > 100000) {
    *error = "the reply to hang lacks alive_ns, open_ranges, nccl_calls or call_counts";
    return false;
  }
  for (int64_t i = 0; i < ranges; ++i) {
    const std::string key = "o" + std::to_string(i);
    const std::string text = reply.text(key);
    std::string_view rest = text;
    LiveRange r;
    if (!number(nextPart(rest), &r.tid) || !number(nextPart(rest), &r.depth) ||
        !number(nextPart(rest), &r.startNs)) {
      return bad(key);
    }
    r.name = std::string(rest);
    r.domain = reply.text("od" + std::to_string(i));
    s.ranges.push_back(std::move(r));
  }
  for (int64_t i = 0; i < calls; ++i) {
    const std::string key = "c" + std::to_string(i);
    const std::string text = reply.text(key);
    std::string_view rest = text;
    LiveCall c;
    unsigned dtype = 0;
    if (!opFromWord(nextPart(rest), &c.op) || !number(nextPart(rest), &c.peer) ||
        !number(nextPart(rest), &c.count) || !number(nextPart(rest), &c.bytes) ||
        !number(nextPart(rest), &dtype) || dtype > 255 || !number(nextPart(rest), &c.comm, 16) ||
        !number(nextPart(rest), &c.commRank) || !number(nextPart(rest), &c.commSize) ||
        !number(nextPart(rest), &c.seq) || !number(nextPart(rest), &c.startNs) ||
        !number(nextPart(rest), &c.endNs) || !number(nextPart(rest), &c.tid) || !rest.empty()) {
      return bad(key);
    }
    c.dtype = static_cast<uint8_t>(dtype);
    s.calls.push_back(c);
  }
  for (int64_t i = 0; i < counts; ++i) {
    const std::string key = "n" + std::to_string(i);
    const std::string text = reply.text(key);
    std::string_view rest = text;
    LiveCount c;
    c.kind = std::string(nextPart(rest));
    if ((c.kind != "collective" && c.kind != "send" && c.kind != "recv") ||
        !number(nextPart(rest), &c.comm, 16) || !number(nextPart(rest), &c.peer) ||
        !number(nextPart(rest), &c.calls) || !number(nextPart(rest), &c.commRank) ||
        !rest.empty()) {
      return bad(key);
    }
    s.counts.push_back(std::move(c));
  }
  *out = std::move(s);
  return true;
}

}  // namespace bubblescope::control
