#include "analyzer/export/device_tracks.h"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <string>
#include <utility>

namespace bubblescope::analysis {
namespace {

constexpr uint32_t kNcclTrack = UINT32_MAX;  // the NCCL calls' track; kernels: their stream index

TimeNs offsetOf(const std::vector<TimeNs>& offsets, size_t rank) {
  return rank < offsets.size() ? offsets[rank] : 0;
}

// One rank's tracks, each split into lanes where its slices overlap (the JSON importers need the
// slices of one thread to nest): a slice goes to the first lane free at its start. The tables
// are sorted by start, so a lane's slices come in order.
class RankTracks {
 public:
  RankTracks(const traces::RankTrace& t, size_t index, int pid, int& nextTid, TraceEventWriter& out)
      : t_(t),
        pid_(pid),
        nextTid_(nextTid),
        out_(out),
        rank_(std::to_string(t.meta.rank >= 0 ? t.meta.rank : static_cast<int>(index))) {}

  // The thread for a slice [start, end) on `track`, named when it is first used.
  int threadFor(uint32_t track, TimeNs start, TimeNs end) {
    std::vector<TimeNs>& ends = laneEnds_[track];
    auto free = std::find_if(ends.begin(), ends.end(), [&](TimeNs e) { return e <= start; });
    const size_t lane = static_cast<size_t>(free - ends.begin());
    if (free == ends.end()) {
      ends.push_back(end);
    } else {
      *free = end;
    }
    auto [it, added] = tids_.try_emplace({track, lane}, 0);
    if (added) {
      it->second = nextTid_++;
      std::string name = trackName(track);
      if (lane > 0) name += " #" + std::to_string(lane + 1);
      out_.thread(pid_, it->second, name);
    }
    return it->second;
  }

 private:
  // "rank 5: GPU 5 stream 7", "rank 5: NCCL calls".
  std::string trackName(uint32_t track) const {
    const std::string rank = "rank " + rank_ + ": ";
    if (track == kNcclTrack) return rank + "NCCL calls";
    if (track >= t_.streams.size()) return rank + "kernels on no stream";
    const traces::Stream& s = t_.streams[track];
    std::string name = "GPU " + std::to_string(s.device) + " stream " + std::to_string(s.streamId);
    const auto label = t_.strings.at(s.name);  // importers may name it "stream 7" too
    if (!label.empty() && label != "stream " + std::to_string(s.streamId)) {
      name += " (" + std::string(label) + ")";
    }
    return rank + name;
  }

  const traces::RankTrace& t_;
  int pid_;
  int& nextTid_;
  TraceEventWriter& out_;
  std::string rank_;
  std::map<uint32_t, std::vector<TimeNs>> laneEnds_;
  std::map<std::pair<uint32_t, size_t>, int> tids_;
};

std::string kernelArgs(const traces::RankTrace& t, size_t i) {
  const traces::StreamIndex si = t.kernels->stream[i];
  std::string args;
  if (si < t.streams.size()) {
    args = "\"device\":" + std::to_string(t.streams[si].device) +
           ",\"stream\":" + std::to_string(t.streams[si].streamId) + ",";
  }
  args += "\"duration_us\":" + microsText(t.kernels->end[i] - t.kernels->start[i]);
  if (t.kernels->correlation[i] != 0) {
    args += ",\"correlation\":" + std::to_string(t.kernels->correlation[i]);
  }
  return args;
}

// What the call says, leaving out what was not recorded (0 or -1).
std::string ncclArgs(const traces::NcclCalls& c, size_t i) {
  std::string args = "\"op\":" + jsonString(traces::ncclOpInfo(c.op[i]).human) +
                     ",\"duration_us\":" + microsText(c.end[i] - c.start[i]);
  auto add = [&](const char* key, auto value) {
    args += ",\"" + std::string(key) + "\":" + std::to_string(value);
  };
  if (c.bytes[i] != 0) add("bytes", c.bytes[i]);
  if (c.count[i] != 0) add("count", c.count[i]);
  if (c.peer[i] >= 0) add("peer", c.peer[i]);
  if (c.comm[i] != 0) {
    char comm[24];
    std::snprintf(comm, sizeof comm, "0x%016llx", static_cast<unsigned long long>(c.comm[i]));
    args += ",\"comm\":\"" + std::string(comm) + "\"";
  }
  if (c.commRank[i] >= 0) add("comm_rank", c.commRank[i]);
  if (c.commSize[i] >= 0) add("comm_size", c.commSize[i]);
  if (c.seq[i] != 0) add("seq", c.seq[i]);
  if (c.groupDepth[i] != 0) add("group_depth", static_cast<int>(c.groupDepth[i]));
  return args;
}

}  // namespace

TimeNs earliestDeviceTime(const traces::Run& run, const std::vector<TimeNs>& offsets) {
  TimeNs earliest = INT64_MAX;
  for (size_t r = 0; r < run.ranks.size(); ++r) {
    const traces::RankTrace& t = run.ranks[r];
    const TimeNs offset = offsetOf(offsets, r);
    // Sorted by start: the first of each table is its earliest.
    if (!t.kernels->start.empty()) earliest = std::min(earliest, t.kernels->start.front() + offset);
    if (!t.ncclCalls->start.empty()) {
      earliest = std::min(earliest, t.ncclCalls->start.front() + offset);
    }
  }
  return earliest;
}

DeviceTrackCounts writeDeviceTracks(const traces::Run& run, const std::vector<TimeNs>& offsets,
                                    const std::vector<int>& pids, std::map<int, int>& nextTid,
                                    TraceEventWriter& out) {
  DeviceTrackCounts counts;
  for (size_t r = 0; r < run.ranks.size() && r < pids.size(); ++r) {
    if (pids[r] == 0) continue;
    const traces::RankTrace& t = run.ranks[r];
    const TimeNs offset = offsetOf(offsets, r);
    RankTracks tracks(t, r, pids[r], nextTid.try_emplace(pids[r], 1).first->second, out);
    const traces::Kernels& k = t.kernels;
    for (size_t i = 0; i < k.size(); ++i) {
      const TimeNs start = k.start[i] + offset, end = std::max(k.start[i], k.end[i]) + offset;
      const auto name = t.strings.at(k.name[i]);
      out.slice(pids[r], tracks.threadFor(k.stream[i], start, end), name.empty() ? "kernel" : name,
                "kernel", start, end, "", kernelArgs(t, i));
    }
    const traces::NcclCalls& c = t.ncclCalls;
    for (size_t i = 0; i < c.size(); ++i) {
      const TimeNs start = c.start[i] + offset, end = std::max(c.start[i], c.end[i]) + offset;
      const std::string_view api = traces::ncclOpInfo(c.op[i]).api;
      out.slice(pids[r], tracks.threadFor(kNcclTrack, start, end), api.empty() ? "NCCL call" : api,
                "nccl", start, end, "", ncclArgs(c, i));
    }
    counts.kernels += k.size();
    counts.ncclCalls += c.size();
  }
  return counts;
}

}  // namespace bubblescope::analysis
