// The NVTX hot path: the handlers NVTX calls for every push, pop, mark and start/end. Dormant
// with open-op tracking off, a push costs one relaxed load and a pop one TLS load; recording, a
// push copies the message into the thread's open-range stack and a pop writes one record into
// the thread's ring. Dormant with tracking on (the default while a control socket serves live
// `hang` queries), a push still copies its message into the stack and a pop only drops it.
// No locks, no allocation after the thread's first event, no I/O.
#include "agent/nvtx/nvtx_handlers.h"

#include <cstring>
#include <cwchar>

#include "agent/core/clock.h"
#include "agent/core/names.h"
#include "agent/core/recorder.h"
#include "agent/core/thread_state.h"
#include "agent/core/writer.h"
#include "agent/nccl/nccl_nvtx.h"
#include "agent/nvtx/control_marks.h"
#include "agent/nvtx/message_copy.h"
#include "agent/nvtx/nvtx_records.h"
#include "agent/nvtx/step_name.h"

namespace bubblescope::agent {
namespace {

#define BUBBLESCOPE_HOT __attribute__((always_inline)) inline
#define BUBBLESCOPE_COLD __attribute__((noinline, cold))

// Message::size of a NUL-terminated text not measured yet: a push measures it while copying it
// (copyMessage); the other events measure it first (measured()).
inline constexpr uint32_t kUnmeasured = UINT32_MAX;

// What an event is called: inline text (bounded), or a registered string.
struct Message {
  const char* text = nullptr;
  uint32_t size = 0;  // or kUnmeasured
  const NvtxString* registered = nullptr;
};

// Cuts at most kMaxMessageBytes, backing up to a UTF-8 character boundary.
BUBBLESCOPE_HOT uint32_t boundedLength(const char* text) {
  size_t n = strnlen(text, kMaxMessageBytes + 1);
  if (__builtin_expect(n > kMaxMessageBytes, 0)) {
    n = kMaxMessageBytes;
    while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) --n;
  }
  return static_cast<uint32_t>(n);
}

// A NUL-terminated message, measured when it is used.
BUBBLESCOPE_HOT Message ascii(const char* text) {
  Message m;
  if (text != nullptr) {
    m.text = text;
    m.size = kUnmeasured;
  }
  return m;
}

BUBBLESCOPE_HOT Message measured(Message m) {
  if (m.size == kUnmeasured) m.size = boundedLength(m.text);
  return m;
}

// wchar_t (UTF-32 on Linux) → UTF-8 into `out`, truncated to whole characters.
uint32_t utf8FromWide(const wchar_t* in, char* out, uint32_t capacity) {
  uint32_t n = 0;
  if (in == nullptr) return 0;
  for (; *in != 0; ++in) {
    auto c = static_cast<uint32_t>(*in);
    char buf[4];
    uint32_t len;
    if (c < 0x80) {
      buf[0] = static_cast<char>(c);
      len = 1;
    } else if (c < 0x800) {
      buf[0] = static_cast<char>(0xC0 | (c >> 6));
      buf[1] = static_cast<char>(0x80 | (c & 0x3F));
      len = 2;
    } else if (c < 0x10000) {
      buf[0] = static_cast<char>(0xE0 | (c >> 12));
      buf[1] = static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      buf[2] = static_cast<char>(0x80 | (c & 0x3F));
      len = 3;
    } else if (c < 0x110000) {
      buf[0] = static_cast<char>(0xF0 | (c >> 18));
      buf[1] = static_cast<char>(0x80 | ((c >> 12) & 0x3F));
      buf[2] = static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      buf[3] = static_cast<char>(0x80 | (c & 0x3F));
      len = 4;
    } else {
      continue;  // not a character
    }
    if (n + len > capacity) break;
    std::memcpy(out + n, buf, len);
    n += len;
  }
  return n;
}

// Event attributes (the Ex calls). Returned by value; the buffer a wide message is converted
// into is the caller's: in a struct holding it, category and colour lived in memory and were
// read back as one 8-byte load after two 4-byte stores, a stall (store forwarding fails).
struct Attributes {
  Message message;
  uint32_t category = 0;
  uint32_t color = 0;
};

// Attributes too short to hold a message are read as none.
inline constexpr size_t kAttributesNeeded =
    offsetof(nvtxEventAttributes_t, message) + sizeof(nvtxEventAttributes_t::message);

BUBBLESCOPE_HOT Attributes readAttributes(const nvtxEventAttributes_t* a,
                                          char (&wide)[kMaxMessageBytes]) {
  Attributes out;
  if (a == nullptr || a->size < kAttributesNeeded) return out;
  out.category = a->category;
  if (a->colorType == NVTX_COLOR_ARGB) out.color = a->color;
  switch (a->messageType) {
    case NVTX_MESSAGE_TYPE_ASCII:
      out.message = ascii(a->message.ascii);
      break;
    case NVTX_MESSAGE_TYPE_UNICODE:
      out.message.text = wide;
      out.message.size = utf8FromWide(a->message.unicode, wide, kMaxMessageBytes);
      break;
    case NVTX_MESSAGE_TYPE_REGISTERED:
      out.message.registered = reinterpret_cast<const NvtxString*>(a->message.registered);
      break;
    default:
      break;
  }
  return out;
}

BUBBLESCOPE_HOT const NvtxDomain* asDomain(nvtxDomainHandle_t d) {
  return reinterpret_cast<const NvtxDomain*>(d);
}

// First event of this thread in this window: a state, a clean stack, a running writer (when
// recording: tracking open ranges while dormant needs no writer).
BUBBLESCOPE_COLD ThreadState* enterRecording(uint32_t word) {
  ThreadState* ts = currentThreadState();
  if (ts == nullptr) return nullptr;
  if (ts->generation != generationOf(word)) {
    ts->ranges.clear();
    ts->generation = generationOf(word);
    ts->ranges.setDepth(0);  // a copy that read the old generation is taken again
  }
  if (isRecording(word)) ensureWriter();
  return ts;
}

// A "step N" range is opening and step boundaries are watched: tell the recorder, which may
// open or close a window right here (before this range is recorded).
// (The message's fields one by one: a reference, or the struct by value, kept the push's message
// in memory.)
BUBBLESCOPE_COLD uint32_t noteStep(uint32_t word, const char* text, uint32_t size,
                                   const NvtxString* registered) {
  const Message m = measured(Message{text, size, registered});
  const int64_t step = m.registered != nullptr ? m.registered->step
                       : m.text != nullptr     ? parseStepName(std::string_view(m.text, m.size))
                                               : -1;
  if (step < 0) return word;
  Recorder::instance().onStepBoundary(step);
  return controlWord();
}

BUBBLESCOPE_HOT bool mayBeStep(const Message& m) {
  return m.registered != nullptr ? m.registered->step >= 0 : m.size != 0 && m.text[0] == 's';
}

// An Ex push's category and colour (none without attributes).
BUBBLESCOPE_HOT uint32_t categoryOf(const nvtxEventAttributes_t* a) {
  return a != nullptr ? a->category : 0;
}
BUBBLESCOPE_HOT uint32_t colorOf(const nvtxEventAttributes_t* a) {
  return a != nullptr && a->colorType == NVTX_COLOR_ARGB ? a->color : 0;
}

// Any push (pushRange takes the common one): recording, a name that may be a step's, the
// thread's first push in a window, past the depth limit, a long or converted message. The
// message's fields one by one, so that pushRange reaches it by a jump.
__attribute__((noinline)) int pushRangeGeneral(uint32_t word, const NvtxDomain* domain,
                                               const char* text, const NvtxString* registered,
                                               uint32_t size, const nvtxEventAttributes_t* a) {
  const Message m{text, size, registered};
  // Steps are watched while dormant (attach wants the current step), so this check runs on
  // every push: only a name that starts "step " can be one.
  if (stepsWatched(word) && __builtin_expect(mayBeStep(m), 0))
    word = noteStep(word, m.text, m.size, m.registered);
  if (!rangesTracked(word)) return 0;
  ThreadState* ts = t_thread;
  if (__builtin_expect(ts == nullptr || ts->generation != generationOf(word), 0)) {
    ts = enterRecording(word);
    if (ts == nullptr) return 0;
  }
  RangeStack& stack = ts->ranges;
  const uint64_t state = stack.load();
  const uint32_t depth = RangeStack::depthOf(state);
  if (__builtin_expect(depth >= kMaxRangeDepth, 0)) {
    // Too deep to track: dropped, and counted when it pops (overflow is 0 below the limit).
    ++stack.overflow;
    return static_cast<int>(depth + stack.overflow - 1);
  }
  // Stamped after the agent's own work (a thread's first event sets up its ring): the range
  // starts as late, and ends (popRange) as early, as the agent can make it. Dormant, only a live
  // `hang` query reads it: a tenth of a second is precise enough there.
  uint64_t now = coarseTicks();
  if (isRecording(word)) now = nowTicks();
  OpenRange& e = stack.entries[depth];
  RangeStack::beforeEntryWrite();
  e.startTicks = now;
  e.domain = domain;
  e.registered = m.registered;
  e.category = categoryOf(a);
  e.color = colorOf(a);
  uint32_t textSize = m.size;
  if (textSize != 0) {
    if (__builtin_expect(textSize == kUnmeasured, 1)) {
      textSize = copyMessage(e.text, m.text, kMaxMessageBytes);
    } else {
      std::memcpy(e.text, m.text, textSize);
    }
  }
  e.textSize = static_cast<uint16_t>(textSize);
  // Pushed while dormant: its pop records nothing, even if a window has opened by then.
  e.flags = isRecording(word) ? 0 : kPushedDormant;
  stack.pushed(state);
  return static_cast<int>(depth);
}

// `word` is the control word the caller read; `a` the attributes of an Ex push (category and
// colour, read only if recording), else nullptr. The common push, dormant with open ranges kept
// (the default while a control socket serves live `hang` queries) and a short message or a
// registered one, is done here straight through: no call (so no registers to save), no loop;
// every other push goes on to pushRangeGeneral, by a jump.
BUBBLESCOPE_HOT int pushRange(uint32_t word, const NvtxDomain* domain, const Message& m,
                              const nvtxEventAttributes_t* a) {
  if ((word & (kRecordingBit | kWatchStepsBit | kOpenOpsBit)) == 0) return 0;
  static_assert(kMaxMessageBytes >= kMessageCopyChunk);
  ThreadState* ts = t_thread;
  if (__builtin_expect((word & (kRecordingBit | kOpenOpsBit)) == kOpenOpsBit && ts != nullptr &&
                           ts->generation == generationOf(word) &&
                           !(stepsWatched(word) && mayBeStep(m)),
                       1)) {
    RangeStack& stack = ts->ranges;
    const uint64_t state = stack.load();
    const uint32_t depth = RangeStack::depthOf(state);
    if (__builtin_expect(depth < kMaxRangeDepth, 1)) {
      OpenRange& e = stack.entries[depth];
      RangeStack::beforeEntryWrite();
      uint32_t textSize = m.size;
      if (textSize == 0 ||
          (textSize == kUnmeasured && copyShortMessage(e.text, m.text, &textSize))) {
        // Dormant, only a live `hang` query reads the start: a tenth of a second is precise
        // enough there.
        e.startTicks = coarseTicks();
        e.domain = domain;
        e.registered = m.registered;
        // No category or colour: a range pushed dormant is never written (nor are they part of
        // what a live `hang` or the file's open_ranges holds).
        e.textSize = static_cast<uint16_t>(textSize);
        e.flags = kPushedDormant;  // its pop records nothing, even if a window has opened by then
        stack.pushed(state);
        return static_cast<int>(depth);
      }
    }
  }
  return pushRangeGeneral(word, domain, m.text, m.registered, m.size, a);
}

// Writes the finished range `e` (at stack index `depth`) into the ring, or counts the drop.
BUBBLESCOPE_HOT void emitRange(ThreadState* ts, const OpenRange& e, uint64_t end, uint32_t depth) {
  const uint32_t bytes = recordBytes(sizeof(NvtxRangePayload), e.textSize);
  uint8_t* at = ts->ring.reserve(bytes);
  if (__builtin_expect(at == nullptr, 0)) {
    ts->countDrop(Source::Nvtx);
    return;
  }
  *reinterpret_cast<RecordHeader*>(at) =
      RecordHeader{g_nvtxTypes.range, static_cast<uint16_t>(sizeof(NvtxRangePayload)), e.textSize,
                   static_cast<uint16_t>(bytes / 8)};
  auto* p = reinterpret_cast<NvtxRangePayload*>(at + sizeof(RecordHeader));
  p->start = e.startTicks;
  p->end = end;
  p->domain = static_cast<const NvtxDomain*>(e.domain);
  p->registered = static_cast<const NvtxString*>(e.registered);
  p->category = e.category;
  p->color = e.color;
  p->depth = depth;
  p->reserved = 0;
  if (e.textSize != 0) {
    std::memcpy(at + sizeof(RecordHeader) + sizeof(NvtxRangePayload), e.text, e.textSize);
  }
  ts->ring.commit(bytes);
}

// Every pop popRange does not do itself or pass to closeRecorded: another domain's range under
// the innermost, past the depth limit, or on a stack from an earlier window (a range pushed
// while recording is written here too).
__attribute__((noinline)) int closeRange(ThreadState* ts, const NvtxDomain* domain, uint32_t word) {
  RangeStack& stack = ts->ranges;
  if (__builtin_expect(ts->generation != generationOf(word), 0)) {
    // Opened in an earlier window (or capture was turned off): forget them.
    stack.clear();
    ts->generation = generationOf(word);
    stack.setDepth(0);
    return -1;
  }
  const uint64_t state = stack.load();
  const uint32_t depth = RangeStack::depthOf(state);
  if (__builtin_expect(stack.overflow != 0, 0)) {
    --stack.overflow;
    if (isRecording(word)) ts->countDrop(Source::Nvtx);
    return static_cast<int>(depth + stack.overflow);
  }
  uint32_t i = depth - 1;
  if (__builtin_expect(stack.entries[i].domain != domain, 0)) {
    // Each domain has its own stack: close this domain's innermost range.
    while (i > 0 && stack.entries[i].domain != domain) --i;
    if (stack.entries[i].domain != domain) return -1;  // its push came before recording
  }
  // A range pushed while recording is written even when its window has closed since (it ends
  // at its pop, as it always did); one pushed while dormant never is.
  if ((stack.entries[i].flags & kPushedDormant) == 0)
    emitRange(ts, stack.entries[i], nowTicks(), i);
  if (__builtin_expect(i != depth - 1, 0)) {
    stack.lowerTo(i);
    std::memmove(&stack.entries[i], &stack.entries[i + 1], (depth - 1 - i) * sizeof(OpenRange));
    stack.setDepth(depth - 1);
  } else {
    stack.popped(state);  // the innermost: see popRange
  }
  return static_cast<int>(i);
}

// popRange's common pop of a range pushed while recording: written, then closed.
__attribute__((noinline)) int closeRecorded(ThreadState* ts, uint64_t state) {
  const uint32_t i = RangeStack::depthOf(state) - 1;
  emitRange(ts, ts->ranges.entries[i], nowTicks(), i);
  ts->ranges.popped(state);
  return static_cast<int>(i);
}

BUBBLESCOPE_HOT int popRange(const NvtxDomain* domain) {
  ThreadState* ts = t_thread;
  if (ts == nullptr) return -1;
  RangeStack& stack = ts->ranges;
  const uint64_t state = stack.load();
  const uint32_t depth = RangeStack::depthOf(state);
  if (depth == 0) return -1;  // untracked, or pushed before recording (no overflow either)
  const uint32_t word = controlWord();
  const OpenRange& top = stack.entries[depth - 1];
  // The common pop: this window's innermost range of this domain, below the depth limit (so
  // nothing overflowed). Pushed while dormant, there is nothing to write. Popping the innermost
  // range changes no entry: a copy taken meanwhile holds it or not, and a push that reuses its
  // slot changes the count in `state` (RangeStack).
  if (__builtin_expect(
          ts->generation == generationOf(word) && depth < kMaxRangeDepth && top.domain == domain,
          1)) {
    if (__builtin_expect((top.flags & kPushedDormant) == 0, 0)) return closeRecorded(ts, state);
    stack.popped(state);
    return static_cast<int>(depth - 1);
  }
  return closeRange(ts, domain, word);
}

// An Ex push whose message is wide: converted here, so that the others need no buffer.
__attribute__((noinline)) int pushRangeWide(uint32_t word, const NvtxDomain* domain,
                                            const nvtxEventAttributes_t* attributes) {
  char wide[kMaxMessageBytes];
  return pushRange(word, domain, readAttributes(attributes, wide).message, attributes);
}

// An Ex push (nvtxRangePushEx, nvtxDomainRangePushEx: a registered string or text). The
// attributes are read only once the control word says the range may be kept, registered
// strings first.
BUBBLESCOPE_HOT int pushRangeEx(const NvtxDomain* domain, const nvtxEventAttributes_t* a) {
  const uint32_t word = controlWord();
  if ((word & (kRecordingBit | kWatchStepsBit | kOpenOpsBit)) == 0) return 0;
  if (__builtin_expect(a == nullptr || a->size < kAttributesNeeded, 0)) {
    return pushRange(word, domain, Message{}, nullptr);
  }
  Message m;
  if (__builtin_expect(a->messageType == NVTX_MESSAGE_TYPE_REGISTERED, 1)) {
    m.registered = reinterpret_cast<const NvtxString*>(a->message.registered);
  } else if (a->messageType == NVTX_MESSAGE_TYPE_ASCII) {
    m = ascii(a->message.ascii);
  } else if (a->messageType == NVTX_MESSAGE_TYPE_UNICODE) {
    return pushRangeWide(word, domain, a);
  }
  return pushRange(word, domain, m, a);
}

// NCCL's API ranges are also NCCL calls (their payload is read now, while it exists).
__attribute__((noinline)) int pushNcclRange(const NvtxDomain* domain,
                                            const nvtxEventAttributes_t* attributes) {
  char wide[kMaxMessageBytes];
  const NvtxString* name = readAttributes(attributes, wide).message.registered;
  ncclNvtxPush(name != nullptr ? name->ncclOp : traces::NcclOp::Unknown, attributes);
  return pushRangeEx(domain, attributes);
}

__attribute__((noinline)) int popNcclRange(const NvtxDomain* domain) {
  ncclNvtxPop(nullptr, 0);
  return popRange(domain);
}

// Writes a fixed payload plus the message text, or counts the drop.
template <class Payload>
BUBBLESCOPE_HOT bool emit(ThreadState* ts, RecordType type, const Payload& payload,
                          const Message& m) {
  const uint32_t textSize = m.registered != nullptr ? 0 : m.size;
  const uint32_t bytes = recordBytes(sizeof(Payload), textSize);
  uint8_t* at = ts->ring.reserve(bytes);
  if (__builtin_expect(at == nullptr, 0)) {
    ts->countDrop(Source::Nvtx);
    return false;
  }
  writeRecord(at, bytes, type, &payload, sizeof(Payload), m.text, static_cast<uint16_t>(textSize));
  ts->ring.commit(bytes);
  return true;
}

nvtxRangeId_t startRange(const NvtxDomain* domain, const Message& message, uint32_t category,
                         uint32_t color) {
  uint32_t word = controlWord();
  if ((word & (kRecordingBit | kWatchStepsBit)) == 0) return 0;
  const Message m = measured(message);
  if (stepsWatched(word)) {
    word = noteStep(word, m.text, m.size, m.registered);
    if (!isRecording(word)) return 0;
  }
  ThreadState* ts = t_thread;
  if (ts == nullptr || ts->generation != generationOf(word)) {
    ts = enterRecording(word);
    if (ts == nullptr) return 0;
  }
  const uint64_t now = nowTicks();
  const uint64_t id =
      (uint64_t{ts->serial} << 40) | ((++ts->nextRangeId & ((uint64_t{1} << 39) - 1)) << 1);
  const NvtxStartPayload p{id | 1, now, domain, m.registered, category, color};
  return emit(ts, g_nvtxTypes.start, p, m) ? (id | 1) : id;
}

void endRange(nvtxRangeId_t id) {
  if ((id & 1) == 0) return;  // not recorded: its start was dropped (and counted) or dormant
  const uint64_t now = nowTicks();
  ThreadState* ts = t_thread;
  if (ts == nullptr) {
    ts = currentThreadState();
    if (ts == nullptr) return;
    ensureWriter();
  }
  emit(ts, g_nvtxTypes.end, NvtxEndPayload{id, now}, Message{});
}

void mark(const NvtxDomain* domain, const Message& message, uint32_t category, uint32_t color) {
  const uint32_t word = controlWord();
  if (!isRecording(word)) return;
  const Message m = measured(message);
  ThreadState* ts = t_thread;
  if (ts == nullptr || ts->generation != generationOf(word)) {
    ts = enterRecording(word);
    if (ts == nullptr) return;
  }
  const uint64_t now = nowTicks();
  emit(ts, g_nvtxTypes.mark, NvtxMarkPayload{now, domain, m.registered, category, color}, m);
}

// ---- The NVTX entry points (signatures from nvtxDetail/nvtxTypes.h) ----

int NVTX_API rangePushA(const char* message) {
  // Neither recording nor keeping open ranges, the only range that matters is a "step N" (it may
  // open a window): other names are turned away on their first byte, before their length is
  // measured.
  const uint32_t word = controlWord();
  if (!rangesTracked(word) && (!stepsWatched(word) || message == nullptr || message[0] != 's')) {
    return 0;
  }
  return pushRange(word, nullptr, ascii(message), nullptr);
}

int NVTX_API rangePushW(const wchar_t* message) {
  char buf[kMaxMessageBytes];
  Message m;
  m.text = buf;
  m.size = utf8FromWide(message, buf, sizeof buf);
  return pushRange(controlWord(), nullptr, m, nullptr);
}

int NVTX_API rangePushEx(const nvtxEventAttributes_t* attributes) {
  return pushRangeEx(nullptr, attributes);
}

int NVTX_API rangePop() {
  return popRange(nullptr);
}

nvtxRangeId_t NVTX_API rangeStartA(const char* message) {
  return startRange(nullptr, ascii(message), 0, 0);
}

nvtxRangeId_t NVTX_API rangeStartW(const wchar_t* message) {
  char buf[kMaxMessageBytes];
  Message m;
  m.text = buf;
  m.size = utf8FromWide(message, buf, sizeof buf);
  return startRange(nullptr, m, 0, 0);
}

nvtxRangeId_t NVTX_API rangeStartEx(const nvtxEventAttributes_t* attributes) {
  char wide[kMaxMessageBytes];
  const Attributes a = readAttributes(attributes, wide);
  return startRange(nullptr, a.message, a.category, a.color);
}

void NVTX_API rangeEnd(nvtxRangeId_t id) {
  endRange(id);
}

void NVTX_API markA(const char* message) {
  mark(nullptr, ascii(message), 0, 0);
}

void NVTX_API markW(const wchar_t* message) {
  char buf[kMaxMessageBytes];
  Message m;
  m.text = buf;
  m.size = utf8FromWide(message, buf, sizeof buf);
  mark(nullptr, m, 0, 0);
}

void NVTX_API markEx(const nvtxEventAttributes_t* attributes) {
  char wide[kMaxMessageBytes];
  const Attributes a = readAttributes(attributes, wide);
  mark(nullptr, a.message, a.category, a.color);
}

void NVTX_API nameOsThreadA(uint32_t tid, const char* name) {
  if (name != nullptr) nameThread(tid, name);
}

void NVTX_API nameOsThreadW(uint32_t tid, const wchar_t* name) {
  char buf[kMaxMessageBytes];
  nameThread(tid, std::string_view(buf, utf8FromWide(name, buf, sizeof buf)));
}

void NVTX_API nameCategoryA(uint32_t category, const char* name) {
  if (name != nullptr) nameCategory(nullptr, category, name);
}

void NVTX_API nameCategoryW(uint32_t category, const wchar_t* name) {
  char buf[kMaxMessageBytes];
  nameCategory(nullptr, category, std::string_view(buf, utf8FromWide(name, buf, sizeof buf)));
}

// ---- CORE2: domains ----

void NVTX_API domainMarkEx(nvtxDomainHandle_t domain, const nvtxEventAttributes_t* attributes) {
  char wide[kMaxMessageBytes];
  const Attributes a = readAttributes(attributes, wide);
  const NvtxDomain* d = asDomain(domain);
  if (d != nullptr && d->control) {
    const Message m = measured(a.message);
    if (m.registered != nullptr) {
      handleControlMark(m.registered->text);
    } else if (m.text != nullptr) {
      handleControlMark(std::string_view(m.text, m.size));
    }
  }
  mark(d, a.message, a.category, a.color);
}

nvtxRangeId_t NVTX_API domainRangeStartEx(nvtxDomainHandle_t domain,
                                          const nvtxEventAttributes_t* attributes) {
  char wide[kMaxMessageBytes];
  const Attributes a = readAttributes(attributes, wide);
  return startRange(asDomain(domain), a.message, a.category, a.color);
}

void NVTX_API domainRangeEnd(nvtxDomainHandle_t /*domain*/, nvtxRangeId_t id) {
  endRange(id);
}

int NVTX_API domainRangePushEx(nvtxDomainHandle_t domain, const nvtxEventAttributes_t* attributes) {
  const NvtxDomain* d = asDomain(domain);
  if (d != nullptr && __builtin_expect(d->nccl, 0)) return pushNcclRange(d, attributes);
  return pushRangeEx(d, attributes);
}

int NVTX_API domainRangePop(nvtxDomainHandle_t domain) {
  const NvtxDomain* d = asDomain(domain);
  if (d != nullptr && __builtin_expect(d->nccl, 0)) return popNcclRange(d);
  return popRange(d);
}

void NVTX_API domainNameCategoryA(nvtxDomainHandle_t domain, uint32_t category, const char* name) {
  if (name != nullptr) nameCategory(asDomain(domain), category, name);
}

void NVTX_API domainNameCategoryW(nvtxDomainHandle_t domain, uint32_t category,
                                  const wchar_t* name) {
  char buf[kMaxMessageBytes];
  nameCategory(asDomain(domain), category,
               std::string_view(buf, utf8FromWide(name, buf, sizeof buf)));
}

nvtxStringHandle_t NVTX_API domainRegisterStringA(nvtxDomainHandle_t domain, const char* text) {
  const NvtxString* s = registerString(asDomain(domain), text != nullptr ? text : "");
  return reinterpret_cast<nvtxStringHandle_t>(const_cast<NvtxString*>(s));
}

nvtxStringHandle_t NVTX_API domainRegisterStringW(nvtxDomainHandle_t domain, const wchar_t* text) {
  // Registered strings are kept whole: convert without the message bound.
  std::string utf8;
  if (text != nullptr) {
    const size_t chars = std::wcslen(text);
    utf8.resize(chars * 4);
    utf8.resize(utf8FromWide(text, utf8.data(), static_cast<uint32_t>(utf8.size())));
  }
  const NvtxString* s = registerString(asDomain(domain), utf8);
  return reinterpret_cast<nvtxStringHandle_t>(const_cast<NvtxString*>(s));
}

nvtxDomainHandle_t NVTX_API domainCreateA(const char* name) {
  const NvtxDomain* d = createDomain(name != nullptr ? name : "");
  return reinterpret_cast<nvtxDomainHandle_t>(const_cast<NvtxDomain*>(d));
}

nvtxDomainHandle_t NVTX_API domainCreateW(const wchar_t* name) {
  char buf[kMaxMessageBytes];
  const NvtxDomain* d = createDomain(std::string_view(buf, utf8FromWide(name, buf, sizeof buf)));
  return reinterpret_cast<nvtxDomainHandle_t>(const_cast<NvtxDomain*>(d));
}

// Domains are never freed: records in the rings may still point at them.
void NVTX_API domainDestroy(nvtxDomainHandle_t /*domain*/) {}

template <class Fn>
void install(NvtxFunctionTable table, unsigned size, unsigned id, Fn fn) {
  if (table != nullptr && id < size && table[id] != nullptr) {
    *table[id] = reinterpret_cast<NvtxFunctionPointer>(fn);
  }
}

}  // namespace

int pushRangeForExtension(nvtxDomainHandle_t domain) {
  return pushRange(controlWord(), asDomain(domain), Message{}, nullptr);
}

int popRangeForExtension(nvtxDomainHandle_t domain) {
  return popRange(asDomain(domain));
}

bool installNvtxHandlers(NvtxGetExportTableFunc_t getExportTable) {
  if (getExportTable == nullptr) return false;
  const auto* callbacks =
      static_cast<const NvtxExportTableCallbacks*>(getExportTable(NVTX_ETID_CALLBACKS));
  if (callbacks == nullptr || callbacks->GetModuleFunctionTable == nullptr) return false;

  NvtxFunctionTable core = nullptr;
  unsigned coreSize = 0;
  if (callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &core, &coreSize) == 0) {
    return false;
  }
  install(core, coreSize, NVTX_CBID_CORE_MarkEx, &markEx);
  install(core, coreSize, NVTX_CBID_CORE_MarkA, &markA);
  install(core, coreSize, NVTX_CBID_CORE_MarkW, &markW);
  install(core, coreSize, NVTX_CBID_CORE_RangeStartEx, &rangeStartEx);
  install(core, coreSize, NVTX_CBID_CORE_RangeStartA, &rangeStartA);
  install(core, coreSize, NVTX_CBID_CORE_RangeStartW, &rangeStartW);
  install(core, coreSize, NVTX_CBID_CORE_RangeEnd, &rangeEnd);
  install(core, coreSize, NVTX_CBID_CORE_RangePushEx, &rangePushEx);
  install(core, coreSize, NVTX_CBID_CORE_RangePushA, &rangePushA);
  install(core, coreSize, NVTX_CBID_CORE_RangePushW, &rangePushW);
  install(core, coreSize, NVTX_CBID_CORE_RangePop, &rangePop);
  install(core, coreSize, NVTX_CBID_CORE_NameCategoryA, &nameCategoryA);
  install(core, coreSize, NVTX_CBID_CORE_NameCategoryW, &nameCategoryW);
  install(core, coreSize, NVTX_CBID_CORE_NameOsThreadA, &nameOsThreadA);
  install(core, coreSize, NVTX_CBID_CORE_NameOsThreadW, &nameOsThreadW);

  NvtxFunctionTable core2 = nullptr;
  unsigned core2Size = 0;
  if (callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &core2, &core2Size) != 0) {
    install(core2, core2Size, NVTX_CBID_CORE2_DomainMarkEx, &domainMarkEx);
    install(core2, core2Size, NVTX_CBID_CORE2_DomainRangeStartEx, &domainRangeStartEx);
    install(core2, core2Size, NVTX_CBID_CORE2_DomainRangeEnd, &domainRangeEnd);
    install(core2, core2Size, NVTX_CBID_CORE2_DomainRangePushEx, &domainRangePushEx);
    install(core2, core2Size, NVTX_CBID_CORE2_DomainRangePop, &domainRangePop);
    install(core2, core2Size, NVTX_CBID_CORE2_DomainNameCategoryA, &domainNameCategoryA);
    install(core2, core2Size, NVTX_CBID_CORE2_DomainNameCategoryW, &domainNameCategoryW);
    install(core2, core2Size, NVTX_CBID_CORE2_DomainRegisterStringA, &domainRegisterStringA);
    install(core2, core2Size, NVTX_CBID_CORE2_DomainRegisterStringW, &domainRegisterStringW);
    install(core2, core2Size, NVTX_CBID_CORE2_DomainCreateA, &domainCreateA);
    install(core2, core2Size, NVTX_CBID_CORE2_DomainCreateW, &domainCreateW);
    install(core2, core2Size, NVTX_CBID_CORE2_DomainDestroy, &domainDestroy);
  }

  const auto* version =
      static_cast<const NvtxExportTableVersionInfo*>(getExportTable(NVTX_ETID_VERSIONINFO));
  if (version != nullptr && version->struct_size >= sizeof(NvtxExportTableVersionInfo) &&
      version->SetInjectionNvtxVersion != nullptr) {
    version->SetInjectionNvtxVersion(NVTX_VERSION);
  }
  return true;
}

}  // namespace bubblescope::agent
