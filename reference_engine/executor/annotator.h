#pragma once
// Emits the engine's NVTX ranges and keeps a record of every one (name, thread, start, end), so a
// test can check that a profiler captured exactly what was emitted. Without CUDA the NVTX calls
// are compiled out and only the record remains.
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace bubblescope::engine {

struct RangeRecord {
  std::string name;
  int tid = 0;
  int64_t startNs = 0;  // CLOCK_REALTIME
  int64_t endNs = 0;
};

struct ThreadRecord {
  int tid = 0;
  std::string name;
};

class Annotator {
 public:
  // `emitNvtx` false: ranges and thread names are recorded but not emitted (a run without the
  // engine's labels, `--no-labels`), but for hostWork().
  explicit Annotator(bool emitNvtx = true) : emitNvtx_(emitNvtx) {}

  // An open range on the calling thread; closes (and is recorded) at end() or destruction.
  class Range {
   public:
    Range(Range&& other) noexcept;
    Range(const Range&) = delete;
    Range& operator=(const Range&) = delete;
    Range& operator=(Range&&) = delete;
    ~Range() { end(); }

    int64_t startNs() const { return startNs_; }
    // Pops the range (once) and returns its end time.
    int64_t end();

   private:
    friend class Annotator;
    Range(Annotator* owner, std::string name, bool emit);
    Annotator* owner_;
    bool emit_;
    std::string name_;
    int tid_;
    int64_t startNs_;
    int64_t endNs_ = 0;
  };

  // Names the calling thread in the profiler's view ("stage 2", "stage 2 send→3").
  void nameThisThread(const std::string& name);
  Range range(std::string name) { return Range(this, std::move(name), emitNvtx_); }
  // A range of the workload's own host code (its data loader), not one of the engine's labels:
  // emitted with or without them, as a real job's profiler ranges would be.
  Range hostWork(std::string name) { return Range(this, std::move(name), true); }

  std::vector<RangeRecord> ranges() const;
  std::vector<ThreadRecord> threads() const;

 private:
  void record(RangeRecord r);

  const bool emitNvtx_;

  mutable std::mutex mutex_;
  std::vector<RangeRecord> ranges_;
  std::vector<ThreadRecord> threads_;
};

// Whether this build emits NVTX (false: the CUDA toolkit was absent at build time).
bool nvtxCompiledIn();

}  // namespace bubblescope::engine
