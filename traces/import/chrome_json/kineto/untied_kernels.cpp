#include "traces/import/chrome_json/kineto/untied_kernels.h"

#include <algorithm>

namespace bubblescope::traces::import {
namespace {

// Two calls that are the same point-to-point op with the same peer on the same communicator.
bool sameSendOrReceive(const NcclCallFields& a, const NcclCallFields& b) {
  return isPointToPoint(a.op) && a.op == b.op && a.peer >= 0 && a.peer == b.peer &&
         a.comm == b.comm && a.commRank == b.commRank && a.commSize == b.commSize;
}

// The kernels on a stream, by stream then start (launches whose kernel never ran have none).
std::vector<size_t> streamOrder(const std::vector<KernelTie>& k) {
  std::vector<size_t> order;
  for (size_t i = 0; i < k.size(); ++i) {
    if (k[i].kernel->stream != kNoStream) order.push_back(i);
  }
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const NcclKernelRef& x = *k[a].kernel;
    const NcclKernelRef& y = *k[b].kernel;
    return x.stream != y.stream ? x.stream < y.stream : x.start < y.start;
  });
  return order;
}

// A send/receive kernel that says no more than that, between two kernels of its stream whose
// calls are each one send (or each one receive) to the same peer: it is another of those. A
// group's kernel ("coalesced") ran several calls, which its neighbours cannot tell.
void typeByNeighbours(const std::vector<KernelTie>& k, const std::vector<size_t>& order,
                      std::vector<std::optional<ImportCall>>& out) {
  auto single = [&](size_t i) -> const NcclCallFields* {
    if (k[i].call) return k[i].group ? nullptr : k[i].call;
    return out[i] ? &*out[i] : nullptr;
  };
  std::vector<std::pair<size_t, NcclCallFields>> typed;  // applied after: no typing in chains
  for (size_t pos = 1; pos + 1 < order.size(); ++pos) {
    const size_t i = order[pos], prev = order[pos - 1], next = order[pos + 1];
    const NcclKernelRef& kernel = *k[i].kernel;
    if (k[i].call || !kernel.pointToPointName) continue;
    if (kernel.args && kernel.args->coalesced) continue;
    if (out[i] && !(isPointToPoint(out[i]->op) && out[i]->peer < 0)) continue;  // typed already
    if (k[prev].kernel->stream != kernel.stream || k[next].kernel->stream != kernel.stream) {
      continue;
    }
    const NcclCallFields* a = single(prev);
    const NcclCallFields* b = single(next);
    if (!a || !b || !sameSendOrReceive(*a, *b)) continue;
    if (out[i] && (out[i]->op != a->op || (out[i]->comm != 0 && out[i]->comm != a->comm))) {
      continue;
    }
    NcclCallFields f = out[i] ? out[i]->fields() : NcclCallFields{};
    f.op = a->op;
    f.peer = a->peer;
    f.comm = a->comm;
    f.commRank = a->commRank;
    f.commSize = a->commSize;
    typed.emplace_back(i, f);
  }
  for (auto& [i, f] : typed) {
    if (!out[i]) out[i].emplace();
    out[i]->fields() = f;
  }
}

// Where and when each typed call was made (see the header).
void placeCalls(const std::vector<KernelTie>& k, const std::vector<size_t>& order,
                std::vector<std::optional<ImportCall>>& out) {
  // The thread of the nearest call before each kernel on its stream, for those after no call.
  std::vector<std::optional<ThreadIndex>> earlierThread(k.size());
  for (size_t pos = 0; pos < order.size(); ++pos) {
    const size_t i = order[pos];
    const bool sameStream = pos > 0 && k[order[pos - 1]].kernel->stream == k[i].kernel->stream;
    if (!sameStream) continue;
    const size_t prev = order[pos - 1];
    earlierThread[i] = k[prev].call ? std::optional(k[prev].call->thread) : earlierThread[prev];
  }
  TimeNs bound = INT64_MAX;
  std::optional<ThreadIndex> laterThread;
  for (size_t pos = order.size(); pos-- > 0;) {
    const size_t i = order[pos];
    if (pos + 1 == order.size() || k[order[pos + 1]].kernel->stream != k[i].kernel->stream) {
      bound = INT64_MAX;
      laterThread.reset();
    }
    if (k[i].call) {
      bound = std::min(bound, k[i].call->start);
      laterThread = k[i].call->thread;
      continue;
    }
    if (!out[i]) continue;
    ImportCall& c = *out[i];
    if (k[i].launch) {
      c.start = k[i].launch->start;
      c.end = k[i].launch->end;
      c.thread = k[i].launch->thread;
    } else {
      c.start = std::min(k[i].kernel->start, bound == INT64_MAX ? bound : bound - 1);
      c.end = c.start;
      c.thread = laterThread.value_or(earlierThread[i].value_or(0));
    }
    bound = std::min(bound, c.start);
  }
}

}  // namespace

std::vector<std::optional<ImportCall>> callsOfUntiedKernels(const std::vector<KernelTie>& k,
                                                            int rank) {
  std::vector<std::optional<ImportCall>> out(k.size());
  bool untied = false;
  for (size_t i = 0; i < k.size(); ++i) {
    if (k[i].call) continue;
    untied = true;
    const std::optional<CommRecord>& args = k[i].kernel->args;
    if (!args || !args->op || !movesData(*args->op)) continue;
    out[i].emplace();
    out[i]->fields() = callFieldsOf(*args, rank);
  }
  if (!untied) return out;
  const std::vector<size_t> order = streamOrder(k);
  typeByNeighbours(k, order, out);
  for (auto& c : out) {
    if (c && isPointToPoint(c->op) && c->peer < 0) c.reset();  // a peer nobody names
  }
  placeCalls(k, order, out);
  return out;
}

}  // namespace bubblescope::traces::import
