// A pipeline's matched transfers, held as places among its comms (pipeline_trace.h).
#include <algorithm>
#include <limits>
#include <string>

#include "analyzer/pipeline/pipeline_trace.h"
#include "analyzer/result/errors.h"

namespace bubblescope::analysis {
namespace {

bool holds(const PipelineTrace& pl, int stage, uint32_t place) {
  const auto s = static_cast<size_t>(stage);
  return stage >= 0 && s + 1 < pl.commBase.size() && pl.commBase[s] <= place &&
         place < pl.commBase[s + 1];
}

}  // namespace

CommAt PipelineTrace::commAt(uint32_t place, int near) const {
  // Most transfers link neighbours: their stages are found without a search.
  if (near >= 0) {
    for (const int s : {near, near + 1, near - 1}) {
      if (holds(*this, s, place)) return {s, place - commBase[static_cast<size_t>(s)]};
    }
  }
  // The last stage whose first place is at most `place` (stages without comms share theirs).
  const auto after = std::upper_bound(commBase.begin(), commBase.end(), place);
  const auto s = static_cast<int>(after - commBase.begin()) - 1;
  return {s, place - commBase[static_cast<size_t>(s)]};
}

std::optional<CommAt> PipelineTrace::peerOf(int stage, size_t comm) const {
  if (commBase.empty()) return std::nullopt;  // never linked: its comms hold their labels' peers
  const int32_t place = stages[static_cast<size_t>(stage)].ops.comms[comm].peerPlace;
  if (place < 0) return std::nullopt;
  return commAt(static_cast<uint32_t>(place), stage);
}

Transfer PipelineTrace::transfer(size_t i) const {
  const CommAt send = commAt(transferSends[i]);
  const int32_t recvPlace = stages[static_cast<size_t>(send.stage)].ops.comms[send.comm].peerPlace;
  const CommAt recv = commAt(static_cast<uint32_t>(recvPlace), send.stage);
  return {send.stage, recv.stage, send.comm, recv.comm};
}

void linkTransfers(PipelineTrace& pl, const std::vector<Transfer>& transfers) {
  pl.commBase.assign(pl.stages.size() + 1, 0);
  uint64_t places = 0;
  for (size_t s = 0; s < pl.stages.size(); ++s) {
    pl.commBase[s] = static_cast<uint32_t>(places);
    places += pl.stages[s].ops.comms.size();
    if (places > static_cast<uint64_t>(std::numeric_limits<int32_t>::max())) {
      throw AnalysisInputError("pipeline " + std::to_string(pl.dpRank) + " holds more than " +
                               std::to_string(std::numeric_limits<int32_t>::max()) +
                               " sends and receives; analyse fewer steps (--steps)");
    }
  }
  pl.commBase.back() = static_cast<uint32_t>(places);
  for (StageTrace& st : pl.stages) {
    for (RecognizedComm& c : st.ops.comms) c.peerPlace = -1;
  }
  pl.transferSends.clear();
  pl.transferSends.reserve(transfers.size());
  for (const Transfer& t : transfers) {
    const uint32_t send = pl.commBase[static_cast<size_t>(t.fromStage)] + t.send;
    const uint32_t recv = pl.commBase[static_cast<size_t>(t.toStage)] + t.recv;
    pl.stages[static_cast<size_t>(t.fromStage)].ops.comms[t.send].peerPlace =
        static_cast<int32_t>(recv);
    pl.stages[static_cast<size_t>(t.toStage)].ops.comms[t.recv].peerPlace =
        static_cast<int32_t>(send);
    pl.transferSends.push_back(send);
  }
}

std::vector<Transfer> transfersOf(const PipelineTrace& pl) {
  std::vector<Transfer> out;
  out.reserve(pl.transferCount());
  for (size_t i = 0; i < pl.transferCount(); ++i) out.push_back(pl.transfer(i));
  return out;
}

}  // namespace bubblescope::analysis
