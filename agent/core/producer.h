#pragma once
// The producer API. A producer (the NVTX handlers, the CUPTI buffer decoder, the NCCL wrappers)
// turns what it sees into records: a small trivially-copyable payload plus optional text,
// appended to the calling thread's ring with no lock, no allocation and no I/O. The writer
// thread drains the rings and hands each record to the decoder registered for its type, which
// writes trace rows through a RecordSink. See docs/agent.md, "Adding a producer".
//
//   struct KernelPayload { uint64_t start, end; ... };          // ticks or ns, as you like
//   RecordType kKernel = registerRecordType("cupti.kernel", &decodeKernel);   // at start-up
//   append(Source::Cupti, kKernel, KernelPayload{...}, name);   // on any thread
//   void decodeKernel(RecordSink& sink, const RecordView& r) { sink.trace().add(...); }
#include <cstdint>
#include <cstring>
#include <string_view>
#include <type_traits>

#include "agent/core/recorder.h"
#include "agent/core/thread_state.h"

namespace bubblescope::agent {

using RecordType = uint16_t;
class RecordSink;

struct RecordView {
  RecordType type = 0;
  uint64_t tid = 0;  // OS thread whose ring held the record
  const void* payload = nullptr;
  uint16_t payloadSize = 0;
  std::string_view text;

  // The payload as the producer's struct (payloads are 8-byte aligned in the ring).
  template <class Payload>
  const Payload& as() const {
    static_assert(std::is_trivially_copyable_v<Payload> && alignof(Payload) <= 8);
    return *static_cast<const Payload*>(payload);
  }
};

using Decoder = void (*)(RecordSink& sink, const RecordView& record);

inline constexpr int kMaxRecordTypes = 64;

// Start-up only, before the first record: a new record type and its decoder. 0 = table full.
RecordType registerRecordType(const char* name, Decoder decoder);
Decoder decoderOf(RecordType type);
const char* recordTypeName(RecordType type);

// Writer-thread callbacks around each file, for producers that keep per-file state or write
// rows that are not events (names, metadata).
struct WriterHooks {
  void (*fileOpened)(RecordSink&) = nullptr;  // a new trace file: forget per-file state
  void (*cycle)(RecordSink&) = nullptr;       // every writer cycle, after the rings are drained
  void (*closing)(RecordSink&) = nullptr;     // the last cycle before the file is closed
};
void addWriterHooks(const WriterHooks& hooks);  // start-up only
// The hooks added so far (writer side).
const WriterHooks* writerHooks(int* count);

// Any thread: appends a record to the calling thread's ring and makes sure the writer runs.
// False when the ring was full: the record is dropped and counted for `source`.
bool appendRecord(Source source, RecordType type, const void* payload, uint16_t payloadSize,
                  std::string_view text = {});

template <class Payload>
bool append(Source source, RecordType type, const Payload& payload, std::string_view text = {}) {
  static_assert(std::is_trivially_copyable_v<Payload> && alignof(Payload) <= 8);
  return appendRecord(source, type, &payload, static_cast<uint16_t>(sizeof(Payload)), text);
}

// Whether producers should record now (one relaxed load).
inline bool recordingNow() {
  return isRecording(controlWord());
}

// Writes header, payload and text into ring space from EventRing::reserve().
inline void writeRecord(uint8_t* at, uint32_t bytes, RecordType type, const void* payload,
                        uint16_t payloadSize, const char* text, uint16_t textSize) {
  auto* h = reinterpret_cast<RecordHeader*>(at);
  *h = RecordHeader{type, payloadSize, textSize, static_cast<uint16_t>(bytes / 8)};
  std::memcpy(at + sizeof(RecordHeader), payload, payloadSize);
  if (textSize != 0) std::memcpy(at + sizeof(RecordHeader) + payloadSize, text, textSize);
}

}  // namespace bubblescope::agent
