#include "tests/tracegen/op_labels.h"

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

}  // namespace

std::string torchOpLabel(const JobSpec& spec, const OpId& id) {
  // torch's letters: B is the full backward, I the input-gradient half of a split one.
  const char* action = id.pass == PassKind::BW  ? "B"
                       : id.pass == PassKind::B ? "I"
                                                : passName(id.pass);
  return "PP:" + std::to_string(virtualStage(spec, id.stage, id.chunk)) + action +
         std::to_string(id.mb);
}

std::string bubblescopeOpLabel(const JobSpec& spec, const OpId& id) {
  std::string s = std::string(passName(id.pass)) + " mb=" + std::to_string(id.mb);
  if (spec.schedule == JobSchedule::ZbV) s += " ch=" + std::to_string(id.chunk);
  return s;
}

}  // namespace bubblescope::tracegen
