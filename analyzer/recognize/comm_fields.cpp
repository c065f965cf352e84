#include "analyzer/recognize/comm_fields.h"

#include <string>

#include "analyzer/recognize/recognized.h"
#include "analyzer/result/errors.h"

namespace bubblescope::analysis {
namespace {

std::string rankOf(const traces::RankTrace& t) {
  return t.file.string() + ": rank " + std::to_string(t.meta.rank);
}

int checkedChunk(const traces::RankTrace& t, int chunk, const char* what) {
  if (chunk < 0 || chunk >= kCommChunks) {
    throw AnalysisInputError(rankOf(t) + " labels " + what + " with model chunk " +
                             std::to_string(chunk) + "; at most " + std::to_string(kCommChunks) +
                             " chunks a stage are supported");
  }
  return chunk;
}

}  // namespace

uint8_t commChunk(const traces::RankTrace& t, int chunk) {
  return static_cast<uint8_t>(checkedChunk(t, chunk, "a send or receive"));
}

int opChunk(const traces::RankTrace& t, int chunk) {
  return checkedChunk(t, chunk, "an op");
}

uint16_t commThread(const traces::RankTrace& t, traces::ThreadIndex thread) {
  if (thread >= kCommThreads) {
    throw AnalysisInputError(rankOf(t) + " sends and receives on more than " +
                             std::to_string(kCommThreads) +
                             " threads; at most that many are supported");
  }
  return static_cast<uint16_t>(thread);
}

}  // namespace bubblescope::analysis
