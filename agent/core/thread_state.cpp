#include "agent/core/thread_state.h"

#include <pthread.h>
#include <unistd.h>

#include <new>

#include "agent/core/ring_memory.h"

namespace bubblescope::agent {

__thread ThreadState* t_thread __attribute__((tls_model("initial-exec"))) = nullptr;

namespace {

std::atomic<ThreadState*> g_threads{nullptr};
std::atomic<uint32_t> g_nextSerial{1};
std::atomic<size_t> g_ringCount{0};
size_t g_ringBytes = size_t{1} << 20;
size_t g_maxRings = 256;

pthread_key_t g_exitKey;
pthread_once_t g_exitKeyOnce = PTHREAD_ONCE_INIT;

// Runs when a thread that recorded exits: hand its state to the writer to drain and recycle.
void onThreadExit(void* value) {
  auto* state = static_cast<ThreadState*>(value);
  if (t_thread == state) t_thread = nullptr;  // a later event on this thread takes a new state
  state->status.store(ThreadStatus::Retired, std::memory_order_release);
}

void makeExitKey() {
  pthread_key_create(&g_exitKey, onThreadExit);
}

void attachRing(ThreadState& state) {
  if (g_ringCount.fetch_add(1, std::memory_order_relaxed) >= g_maxRings) {
    g_ringCount.fetch_sub(1, std::memory_order_relaxed);
    state.ring.attach(nullptr, 0);  // over the limit: everything this thread emits is dropped
    return;
  }
  // Faulted in now, not on the hot path later.
  uint8_t* mem = mapRingMemory(g_ringBytes);
  if (mem == nullptr) {
    g_ringCount.fetch_sub(1, std::memory_order_relaxed);
    state.ring.attach(nullptr, 0);
    return;
  }
  state.ringMemory = mem;
  state.ring.attach(state.ringMemory, g_ringBytes);
}

// Takes a drained state left by a thread that exited, if there is one.
ThreadState* claimFreeState() {
  for (ThreadState* s = g_threads.load(std::memory_order_acquire); s != nullptr; s = s->next) {
    ThreadStatus expected = ThreadStatus::Free;
    if (s->status.compare_exchange_strong(expected, ThreadStatus::Claiming,
                                          std::memory_order_acq_rel)) {
      return s;
    }
  }
  return nullptr;
}

}  // namespace

const char* sourceName(Source source) {
  switch (source) {
    case Source::Nvtx:
      return "nvtx";
    case Source::Cupti:
      return "cupti";
    case Source::Nccl:
      return "nccl";
  }
  return "unknown";
}

void configureThreadBuffers(size_t ringBytes, size_t maxRings) {
  size_t pow2 = 4096;
  while (pow2 < ringBytes && pow2 < (size_t{1} << 30)) pow2 <<= 1;
  g_ringBytes = pow2;
  g_maxRings = maxRings;
}

size_t threadRingBytes() {
  return g_ringBytes;
}

ThreadState* acquireThreadState() {
  pthread_once(&g_exitKeyOnce, makeExitKey);
  ThreadState* state = claimFreeState();
  const bool fresh = state == nullptr;
  if (!fresh) {
    state->ring.reset();
    state->ranges.clear();
  } else {
    state = new (std::nothrow) ThreadState;
    if (state == nullptr) return nullptr;
    state->serial = g_nextSerial.fetch_add(1, std::memory_order_relaxed);
    attachRing(*state);
  }
  state->generation = 0;
  state->tid.store(static_cast<uint64_t>(gettid()), std::memory_order_relaxed);
  state->status.store(ThreadStatus::Active, std::memory_order_release);
  if (fresh) {
    // Publish it at the head of the registry (a recycled state is there already).
    ThreadState* head = g_threads.load(std::memory_order_relaxed);
    do {
      state->next = head;
    } while (!g_threads.compare_exchange_weak(head, state, std::memory_order_release,
                                              std::memory_order_relaxed));
  }
  t_thread = state;
  pthread_setspecific(g_exitKey, state);
  return state;
}

ThreadState* firstThreadState() {
  return g_threads.load(std::memory_order_acquire);
}

void resetThreadStatesInForkChild() {
  ThreadState* self = t_thread;
  for (ThreadState* s = g_threads.load(std::memory_order_acquire); s != nullptr; s = s->next) {
    s->ring.reset();
    s->ranges.clear();
    for (auto& d : s->dropped) d.store(0, std::memory_order_relaxed);
    if (s == self) {
      s->tid.store(static_cast<uint64_t>(gettid()), std::memory_order_relaxed);
      s->status.store(ThreadStatus::Active, std::memory_order_relaxed);
    } else {
      s->status.store(ThreadStatus::Free, std::memory_order_relaxed);
    }
  }
}

}  // namespace bubblescope::agent
