#pragma once
// The real NCCL behind the agent's interposed entry points, found on first use of each function:
// the next definition in the loader's search order (RTLD_NEXT), else NCCL's PMPI-style pnccl*
// names anywhere in the process, else libnccl.so.2 or any loaded library defining the function,
// for a libnccl loaded with RTLD_LOCAL (Python extensions). Never the agent's own definition.
#include <atomic>

namespace bubblescope::agent {

// The address of NCCL's `name` ("ncclAllReduce"), or nullptr. Cold; thread-safe.
void* findRealNccl(const char* name);

// One NCCL function: resolved once, then a relaxed load per call. A failed lookup is retried
// on the next call (the library may be loaded later).
template <class Fn>
class RealNccl {
 public:
  explicit constexpr RealNccl(const char* name) : name_(name) {}
  Fn get() {
    void* p = fn_.load(std::memory_order_acquire);
    if (__builtin_expect(p == nullptr, 0)) {
      p = findRealNccl(name_);
      if (p != nullptr) fn_.store(p, std::memory_order_release);
    }
    return reinterpret_cast<Fn>(p);
  }
  const char* name() const { return name_; }

 private:
  const char* name_;
  std::atomic<void*> fn_{nullptr};
};

// One line, once per process: `name` cannot reach NCCL and fails with ncclSystemError.
void reportMissingNccl(const char* name);

}  // namespace bubblescope::agent
