#include "reference_engine/executor/message.h"

#include <cstring>
#include <string>

namespace bubblescope::engine {
namespace {

constexpr uint32_t kMagic = 0x50504253;  // "SBPP": catches a stream that lost its framing

// Layout: magic u32 | kind u8 | 0 u8 | chunk u16 | mb u32 | step u32 | bytes u64
struct Wire {
  uint32_t magic;
  uint8_t kind;
  uint8_t reserved;
  uint16_t chunk;
  uint32_t mb;
  uint32_t step;
  uint64_t bytes;
};
static_assert(sizeof(Wire) == kHeaderBytes);

}  // namespace

std::array<std::byte, kHeaderBytes> encodeHeader(const MessageHeader& h) {
  Wire w{kMagic,
         static_cast<uint8_t>(h.kind),
         0,
         static_cast<uint16_t>(h.chunk),
         static_cast<uint32_t>(h.mb),
         static_cast<uint32_t>(h.step),
         h.bytes};
  std::array<std::byte, kHeaderBytes> out{};
  std::memcpy(out.data(), &w, sizeof w);
  return out;
}

MessageHeader decodeHeader(std::span<const std::byte, kHeaderBytes> bytes) {
  Wire w{};
  std::memcpy(&w, bytes.data(), sizeof w);
  if (w.magic != kMagic) throw FramingError("message header has a wrong magic number");
  if (w.kind < static_cast<uint8_t>(MessageKind::Activation) ||
      w.kind > static_cast<uint8_t>(MessageKind::RendezvousDone)) {
    throw FramingError("message header has an unknown kind " + std::to_string(w.kind));
  }
  if (w.bytes > kMaxPayloadBytes) {
    throw FramingError("message header announces " + std::to_string(w.bytes) + " bytes");
  }
  if (w.mb > INT32_MAX || w.step > INT32_MAX) throw FramingError("message header out of range");
  return {static_cast<MessageKind>(w.kind), static_cast<int>(w.step), static_cast<int>(w.mb),
          static_cast<int>(w.chunk), w.bytes};
}

}  // namespace bubblescope::engine
