#pragma once
// The vocabulary of NDTimeline's Megatron-LM op-level timelines (ByteDance's exporter, as traced
// in Lin et al., OSDI '25): `pid` = DP rank ("DP rank d"), one thread per (global rank, category)
// with tid = rank * 5 + category, named "PP rank S, TP rank T, <category>", and the timer names
// each category holds. Pure parsing, no I/O.
#include <cstdint>
#include <optional>
#include <string_view>

namespace bubblescope::traces::import::ndtimeline {

// The five threads of a rank, in the order of tid % 5.
enum class Category : uint8_t { Compute, PpComm, TpComm, DpComm, Misc };
inline constexpr int kCategories = 5;
const char* categoryName(Category c);  // "compute", "pp-comm", ...

// Numbers as written (int64, INT64_MAX beyond it): the importer checks their range.
struct ThreadPlace {
  int64_t pp = 0, tp = 0;
  std::optional<Category> category;  // when the name's last part is one of the five
};

// "PP rank 3, TP rank 1, compute" -> {3, 1, Compute}; nullopt when the name is not of that form.
std::optional<ThreadPlace> parseThreadName(std::string_view name);
// "DP rank 2" or "DP rank [2]" -> 2.
std::optional<int64_t> parseProcessName(std::string_view name);

// What a timer name stands for in a pipeline.
enum class Meaning : uint8_t {
  Forward,     // forward-compute
  Backward,    // backward-compute (input and weight gradient unless wgrad is its own)
  WeightGrad,  // backward-wgrad-compute
  SendF,
  RecvF,  // forward-send, forward-recv: activations
  SendB,
  RecvB,       // backward-send, backward-recv: gradients
  SendFRecvB,  // forward-send-backward-recv: one batch, both transfers
  SendBRecvF,  // backward-send-forward-recv
  // The interleaved schedule's batches (Megatron-LM's p2p_communication timers): the warm-up's
  // forward-send-forward-recv, the cool-down's backward-send-backward-recv, and the steady
  // state's forward-backward-send-forward-backward-recv, sent after both ops of a 1F1B pair.
  SendFRecvF,
  SendBRecvB,
  SendFBRecvFB,
  TpCollective,  // tp-allreduce, tp-allgather, tp-reducescatter
  DpCollective,  // grads-reduce-scatter, params-all-gather, *-grads-all-reduce (+ variants)
  Optimizer,     // optimizer, optimizer-clip-main-grad, optimizer-inner-step
  HostWork,      // data-load, data-sync, gc, forward-backward: the host, not the pipeline
  Unknown,       // kept as a range of its own name
};
Meaning meaningOf(std::string_view name);
// The category the exporter files a meaning under (Unknown: misc).
Category categoryOf(Meaning m);
// Whether the `-nonoverlapping` suffix was stripped to find the meaning.
bool isNonOverlapping(std::string_view name);

}  // namespace bubblescope::traces::import::ndtimeline
