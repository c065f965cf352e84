#include "analyzer/infer/p2p_chain.h"

#include <algorithm>
#include <set>

namespace bubblescope::analysis {

P2pChains p2pChains(const std::vector<P2pEdge>& edges, size_t ranks) {
  std::vector<std::set<uint32_t>> peers(ranks);
  std::vector<TimeNs> firstSend(ranks, INT64_MAX), firstRecv(ranks, INT64_MAX);
  for (const P2pEdge& e : edges) {
    if (e.from == e.to || e.from >= ranks || e.to >= ranks) continue;
    peers[e.from].insert(e.to);
    peers[e.to].insert(e.from);
    firstSend[e.from] = std::min(firstSend[e.from], e.posted);
    firstRecv[e.to] = std::min(firstRecv[e.to], e.posted);
  }
  P2pChains out;
  std::vector<bool> seen(ranks, false);
  for (uint32_t r = 0; r < ranks; ++r) {
    if (seen[r] || peers[r].empty()) continue;
    // The connected set of r.
    std::vector<uint32_t> set = {r};
    seen[r] = true;
    for (size_t i = 0; i < set.size(); ++i) {
      for (uint32_t q : peers[set[i]]) {
        if (!seen[q]) {
          seen[q] = true;
          set.push_back(q);
        }
      }
    }
    std::vector<uint32_t> ends;
    bool simple = true;
    for (uint32_t q : set) {
      if (peers[q].size() > 2) simple = false;
      if (peers[q].size() == 1) ends.push_back(q);
    }
    if (!simple || ends.size() != 2) {
      ++out.notChains;
      continue;
    }
    // Stage 0 sends its first activations before it receives anything; the last stage receives
    // before it sends.
    auto sendsFirst = [&](uint32_t q) { return firstSend[q] < firstRecv[q]; };
    uint32_t head = ends[0];
    if (!sendsFirst(ends[0]) && sendsFirst(ends[1])) head = ends[1];
    if (sendsFirst(ends[0]) == sendsFirst(ends[1]) && firstSend[ends[1]] < firstSend[ends[0]]) {
      head = ends[1];
    }
    std::vector<uint32_t> chain = {head};
    uint32_t prev = head, cur = *peers[head].begin();
    chain.push_back(cur);
    while (peers[cur].size() == 2) {
      const uint32_t next =
          *peers[cur].begin() == prev ? *peers[cur].rbegin() : *peers[cur].begin();
      prev = cur;
      cur = next;
      chain.push_back(cur);
    }
    out.chains.push_back(std::move(chain));
  }
  return out;
}

}  // namespace bubblescope::analysis
