#include "agent/core/producer.h"

#include <atomic>

#include "agent/core/writer.h"

namespace bubblescope::agent {
namespace {

struct TypeEntry {
  const char* name = nullptr;
  Decoder decoder = nullptr;
};

TypeEntry g_types[kMaxRecordTypes];
std::atomic<int> g_typeCount{1};  // type 0 is padding

constexpr int kMaxHooks = 8;
WriterHooks g_hooks[kMaxHooks];
std::atomic<int> g_hookCount{0};

}  // namespace

RecordType registerRecordType(const char* name, Decoder decoder) {
  const int id = g_typeCount.fetch_add(1);
  if (id >= kMaxRecordTypes) return 0;
  g_types[id] = TypeEntry{name, decoder};
  return static_cast<RecordType>(id);
}

Decoder decoderOf(RecordType type) {
  return type < kMaxRecordTypes ? g_types[type].decoder : nullptr;
}

const char* recordTypeName(RecordType type) {
  return type < kMaxRecordTypes && g_types[type].name != nullptr ? g_types[type].name : "?";
}

void addWriterHooks(const WriterHooks& hooks) {
  const int i = g_hookCount.fetch_add(1);
  if (i < kMaxHooks) g_hooks[i] = hooks;
}

const WriterHooks* writerHooks(int* count) {
  const int n = g_hookCount.load();
  *count = n < kMaxHooks ? n : kMaxHooks;
  return g_hooks;
}

bool appendRecord(Source source, RecordType type, const void* payload, uint16_t payloadSize,
                  std::string_view text) {
  ThreadState* ts = currentThreadState();
  if (ts == nullptr) return false;
  ensureWriter();
  const auto textSize = static_cast<uint16_t>(text.size() < 4096 ? text.size() : 4096);
  const uint32_t bytes = recordBytes(payloadSize, textSize);
  uint8_t* at = ts->ring.reserve(bytes);
  if (at == nullptr) {
    ts->countDrop(source);
    return false;
  }
  writeRecord(at, bytes, type, payload, payloadSize, text.data(), textSize);
  ts->ring.commit(bytes);
  return true;
}

}  // namespace bubblescope::agent
