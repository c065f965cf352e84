#include "tests/tracegen/op_labels.h"

#include <algorithm>

namespace bubblescope::tracegen {
namespace {

const char* passName(PassKind pass) {
  switch (pass) {
    case PassKind::F:
      return "F";
    case PassKind::BW:
      return "BW";
    case PassKind::B:
      return "B";
    case PassKind::W:
      return "W";
  }
  return "?";
}

// The microbatch the labels name (JobSpec::mislabelledStages).
int labelledMb(const JobSpec& spec, const OpId& id) {
  const auto& bad = spec.mislabelledStages;
  if (id.mb > 1 || std::find(bad.begin(), bad.end(), id.stage) == bad.end()) return id.mb;
  return 1 - id.mb;
}

}  // namespace

std::string torchOpLabel(const JobSpec& spec, const OpId& id) {
  // torch's letters: B is the full backward, I the input-gradient half of a split one.
  const char* action = id.pass == PassKind::BW  ? "B"
                       : id.pass == PassKind::B ? "I"
                                                : passName(id.pass);
  return "PP:" + std::to_string(virtualStage(spec, id.stage, id.chunk)) + action +
         std::to_string(labelledMb(spec, id));
}

std::string bubblescopeOpLabel(const JobSpec& spec, const OpId& id) {
  std::string s = std::string(passName(id.pass)) + " mb=" + std::to_string(labelledMb(spec, id));
  if (chunksPerStage(spec) > 1) s += " ch=" + std::to_string(id.chunk);
  return s;
}

std::string torchCommLabel(const JobSpec& spec, int rank, const NcclCall& call) {
  const bool send = call.kind == CallKind::Send;
  return "PP:" + std::to_string(virtualStage(spec, rank, call.chunk)) + (send ? "SEND_" : "RECV_") +
         (call.pass == PassKind::F ? "F" : "B") + std::to_string(call.mb);
}

std::string bubblescopeCommLabel(const JobSpec& spec, const NcclCall& call) {
  const bool send = call.kind == CallKind::Send;
  std::string s = std::string(send ? "SEND " : "RECV ") + (call.pass == PassKind::F ? "F" : "B") +
                  " mb=" + std::to_string(call.mb);
  if (chunksPerStage(spec) > 1) s += " ch=" + std::to_string(call.chunk);
  return s + (send ? " to=" : " from=") + std::to_string(call.peer);
}

}  // namespace bubblescope::tracegen
