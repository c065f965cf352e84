#include "reference_engine/executor/annotator.h"

#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>

#include "reference_engine/executor/clock.h"

#if BUBBLESCOPE_HAVE_NVTX
#include <nvtx3/nvToolsExt.h>
#endif

namespace bubblescope::engine {

bool nvtxCompiledIn() {
  return BUBBLESCOPE_HAVE_NVTX != 0;
}

Annotator::Range::Range(Annotator* owner, std::string name, bool emit)
    : owner_(owner), emit_(emit), name_(std::move(name)), tid_(static_cast<int>(gettid())) {
#if BUBBLESCOPE_HAVE_NVTX
  if (emit_) nvtxRangePushA(name_.c_str());
#endif
  startNs_ = realtimeNs();
}

Annotator::Range::Range(Range&& other) noexcept
    : owner_(other.owner_),
      emit_(other.emit_),
      name_(std::move(other.name_)),
      tid_(other.tid_),
      startNs_(other.startNs_),
      endNs_(other.endNs_) {
  other.owner_ = nullptr;
}

int64_t Annotator::Range::end() {
  if (owner_ == nullptr) return endNs_;
  endNs_ = realtimeNs();
#if BUBBLESCOPE_HAVE_NVTX
  if (emit_) nvtxRangePop();
#endif
  owner_->record({std::move(name_), tid_, startNs_, endNs_});
  owner_ = nullptr;
  return endNs_;
}

void Annotator::nameThisThread(const std::string& name) {
  const int tid = static_cast<int>(gettid());
#if BUBBLESCOPE_HAVE_NVTX
  if (emitNvtx_) nvtxNameOsThreadA(static_cast<uint32_t>(tid), name.c_str());
#endif
  // The kernel keeps 15 bytes of a thread name, shown by ps and gdb: keep it ASCII.
  std::string ascii = name;
  for (auto [arrow, plain] : {std::pair{"→", ">"}, std::pair{"←", "<"}}) {
    for (size_t at; (at = ascii.find(arrow)) != std::string::npos;) {
      ascii.replace(at, std::string_view(arrow).size(), plain);
    }
  }
  pthread_setname_np(pthread_self(), ascii.substr(0, 15).c_str());
  std::lock_guard lock(mutex_);
  threads_.push_back({tid, name});
}

void Annotator::record(RangeRecord r) {
  std::lock_guard lock(mutex_);
  ranges_.push_back(std::move(r));
}

std::vector<RangeRecord> Annotator::ranges() const {
  std::lock_guard lock(mutex_);
  auto out = ranges_;
  std::stable_sort(out.begin(), out.end(), [](const RangeRecord& a, const RangeRecord& b) {
    return a.startNs < b.startNs;
  });
  return out;
}

std::vector<ThreadRecord> Annotator::threads() const {
  std::lock_guard lock(mutex_);
  return threads_;
}

}  // namespace bubblescope::engine
