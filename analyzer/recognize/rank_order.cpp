#include "analyzer/recognize/rank_order.h"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace bubblescope::analysis {
namespace {

// Sorts `records` by start (stable) and `beside` with them; `beside` empty: records alone.
template <class Record, class Beside>
void sortBeside(std::vector<Record>& records, std::vector<Beside>& beside, const char* what) {
  auto byStart = [](const Record& a, const Record& b) { return a.start < b.start; };
  if (beside.empty()) {
    std::stable_sort(records.begin(), records.end(), byStart);
    return;
  }
  if (beside.size() != records.size()) {
    throw std::logic_error(std::string(what) + ": " + std::to_string(beside.size()) +
                           " entries beside " + std::to_string(records.size()) + " records");
  }
  std::vector<uint32_t> order(records.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<uint32_t>(i);
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return records[a].start < records[b].start; });
  std::vector<Record> sorted;
  std::vector<Beside> kept;
  sorted.reserve(order.size());
  kept.reserve(order.size());
  for (uint32_t i : order) {
    sorted.push_back(records[i]);
    kept.push_back(beside[i]);
  }
  records = std::move(sorted);
  beside = std::move(kept);
}

}  // namespace

void sortOpsByStart(RankOps& ops) {
  sortBeside(ops.ops, ops.opKernels, "sortOpsByStart");
}

void sortCommsByStart(RankOps& ops) {
  sortBeside(ops.comms, ops.commLaunches, "sortCommsByStart");
}

void holdCommLaunches(RankOps& ops) {
  if (!ops.commLaunches.empty() || ops.comms.empty()) return;
  ops.commLaunches.reserve(ops.comms.size());
  for (const RecognizedComm& c : ops.comms) ops.commLaunches.push_back(c.start);
}

void addComms(RankOps& ops, PostedComms added) {
  if (added.launches.size() != added.comms.size()) {
    throw std::logic_error("addComms: " + std::to_string(added.launches.size()) + " launches for " +
                           std::to_string(added.comms.size()) + " comms");
  }
  if (ops.comms.empty()) {
    added.comms.shrink_to_fit();
    added.launches.shrink_to_fit();
    ops.comms = std::move(added.comms);  // held once, not copied
    ops.commLaunches = std::move(added.launches);
  } else if (!added.comms.empty()) {
    holdCommLaunches(ops);
    ops.comms.insert(ops.comms.end(), added.comms.begin(), added.comms.end());
    ops.commLaunches.insert(ops.commLaunches.end(), added.launches.begin(), added.launches.end());
  }
  sortCommsByStart(ops);
}

}  // namespace bubblescope::analysis
