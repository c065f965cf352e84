#pragma once
// Names of the NVTX ranges the engine emits: the bubblescope convention (analysis.md §4), which
// the analyzer's first rule set recognises. `ch=` appears only for chunks other than 0.
#include <string>

#include "reference_engine/schedule/op.h"

namespace bubblescope::engine {

inline constexpr const char* kGradSyncRange = "grad_sync";
inline constexpr const char* kOptimizerRange = "optimizer";
inline constexpr const char* kDataloaderRange = "dataloader";

// "F mb=3", "BW mb=0 ch=1"
std::string opRangeName(const Op& op);
// The data a SEND/RECV carries is named by the pass that needs it: "F" (activations) or "B"
// (gradients, also when a fused BW produced them). `chunk` is the local op's chunk.
std::string sendRangeName(bool gradient, int mb, int chunk, int toStage);    // "SEND F mb=3 to=2"
std::string recvRangeName(bool gradient, int mb, int chunk, int fromStage);  // "RECV B mb=3 from=3"
std::string stepRangeName(int step);                                         // "step 12"

}  // namespace bubblescope::engine
