#include "analyzer/recognize/rank_order.h"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

namespace bubblescope::analysis {
namespace {

// Throws if `beside` is neither empty nor one per record.
template <class Beside>
void checkBeside(size_t records, const std::vector<Beside>& beside, const char* what) {
  if (!beside.empty() && beside.size() != records) {
    throw std::logic_error(std::string(what) + ": " + std::to_string(beside.size()) +
                           " entries beside " + std::to_string(records) + " records");
  }
}

// `v` in `order` (a permutation of its indexes); empty stays empty.
template <class T>
void permute(std::vector<T>& v, const std::vector<uint32_t>& order) {
  if (v.empty()) return;
  std::vector<T> out;
  out.reserve(order.size());
  for (uint32_t i : order) out.push_back(v[i]);
  v = std::move(out);
}

// Sorts `records` by start (stable) and each list `beside` them with them; with every one empty,
// the records alone.
template <class Record, class... Beside>
void sortBeside(std::vector<Record>& records, const char* what, std::vector<Beside>&... beside) {
  (checkBeside(records.size(), beside, what), ...);
  auto byStart = [](const Record& a, const Record& b) { return a.start < b.start; };
  if ((beside.empty() && ...)) {
    std::stable_sort(records.begin(), records.end(), byStart);
    return;
  }
  std::vector<uint32_t> order(records.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<uint32_t>(i);
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return records[a].start < records[b].start; });
  permute(records, order);
  (permute(beside, order), ...);
}

// Makes `beside` one per record, each `of(record)`, where it was empty: what it stood for until a
// record's times move away from it.
template <class Record, class Beside, class Of>
void holdBeside(const std::vector<Record>& records, std::vector<Beside>& beside, Of&& of) {
  if (!beside.empty() || records.empty()) return;
  beside.reserve(records.size());
  for (const Record& r : records) beside.push_back(of(r));
}

}  // namespace

void sortOpsByStart(RankOps& ops) {
  sortBeside(ops.ops, "sortOpsByStart", ops.opKernels, ops.opHosts);
}

void sortCommsByStart(RankOps& ops) {
  sortBeside(ops.comms, "sortCommsByStart", ops.commLaunches);
}

void holdOpHosts(RankOps& ops) {
  holdBeside(ops.ops, ops.opHosts, [](const RecognizedOp& o) { return HostSpan{o.start, o.end}; });
}

void holdCommLaunches(RankOps& ops) {
  holdBeside(ops.comms, ops.commLaunches, [](const RecognizedComm& c) { return c.start; });
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
