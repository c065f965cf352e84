#include "analyzer/comm/comm_warnings.h"

#include "analyzer/comm/collective_coverage.h"

namespace bubblescope::analysis {

std::vector<std::string> commWarnings(const CommMatches& m) {
  std::vector<std::string> out;
  if (m.p2pWithoutPeer > 0) {
    out.push_back(
        std::to_string(m.p2pWithoutPeer) +
        " NCCL send/receive call(s) name no peer (an nsys export made without "
        "--include-json=true drops NCCL's payloads): their kernels are counted as communication "
        "whole, the waiting inside them unknown");
  }
  if (const int n = m.p2pUnmatched - m.p2pWithoutPeer + m.collectiveUnmatched; n > 0) {
    out.push_back(std::to_string(n) +
                  " NCCL call(s) have a peer that is not in the run (a rank not "
                  "traced?): counted as communication whole, their waiting unknown");
  }
  if (m.withoutCall > 0) {
    // Without its call a kernel has no peer: a wait inside it cannot be told from its transfer.
    out.push_back(std::to_string(m.withoutCall) +
                  " NCCL kernel(s) are tied to no NCCL call (NCCL not hooked, or its ranges not "
                  "traced, and no collective args on the kernel): counted as communication whole, "
                  "the waiting inside them unknown");
  }
  if (const CollectiveCoverage c = collectiveCoverage(m); c.partial > 0) {
    out.push_back(std::to_string(c.partial) +
                  " NCCL collective(s) ran on communicators with members the run does not hold (" +
                  (c.alike ? "" : "as few as ") + tracedMembersText(c.least) +
                  "): their waiting is for the traced members only, a lower bound "
                  "on the job's, and every wait figure that holds it says so");
  }
  return out;
}

}  // namespace bubblescope::analysis
