#pragma once
// The wire format between stages: a fixed 24-byte header (kind, step, microbatch, chunk, payload
// size) followed by the payload. Both ends are on one machine, so integers are in host order.
#include <array>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

namespace bubblescope::engine {

using Payload = std::vector<std::byte>;

enum class MessageKind : uint8_t {
  Activation = 1,      // output of F, to the next virtual stage
  Gradient = 2,        // input gradient of B/BW, to the previous virtual stage
  GradReduce = 3,      // grad_sync: partial sums travelling towards stage 0
  GradBroadcast = 4,   // grad_sync: the total travelling back
  Rendezvous = 5,      // start-up barrier, as init_process_group: towards stage 0
  RendezvousDone = 6,  // and back
};

struct MessageHeader {
  MessageKind kind = MessageKind::Activation;
  int step = 0;
  int mb = 0;
  int chunk = 0;  // the receiving op's chunk
  uint64_t bytes = 0;

  bool operator==(const MessageHeader&) const = default;
};

// What a receiver waits for. Unique per receiving stage: each op has at most one remote input.
struct MessageKey {
  int step = 0;
  MessageKind kind = MessageKind::Activation;
  int mb = 0;
  int chunk = 0;

  auto operator<=>(const MessageKey&) const = default;
};

inline MessageKey keyOf(const MessageHeader& h) {
  return {h.step, h.kind, h.mb, h.chunk};
}

inline constexpr size_t kHeaderBytes = 24;
// Far above any activation the engine sends; a larger size means a corrupt stream.
inline constexpr uint64_t kMaxPayloadBytes = uint64_t{1} << 32;

class FramingError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

std::array<std::byte, kHeaderBytes> encodeHeader(const MessageHeader& header);
// Throws FramingError on a wrong magic number, an unknown kind or an impossible size.
MessageHeader decodeHeader(std::span<const std::byte, kHeaderBytes> bytes);

}  // namespace bubblescope::engine
