// The writer's memory windows (watch): its output follows the recorder's memory window, or, beside
// a file window, a mirror follows the file; the control thread takes the memory trace's image
// while the writer waits on its lock.
#include <pthread.h>
#include <time.h>

#include <algorithm>
#include <iterator>

#include "agent/core/writer_thread.h"

namespace bubblescope::agent {

// The output follows the recorder: a memory window that opened gets a trace of its own in memory
// (the file, if any, is set aside untouched); one that ended is freed and the file comes back. A
// watch beside a file window gets a mirror of the file. Across a switch of kind (an attach, its
// end) the watch's trace goes on, so a watcher reads the steps around it.
void Writer::followMemoryWindow() {
  const MemoryWindowState window = Recorder::instance().memoryWindow();
  const bool alone = window.open && !window.besideFile && window.index >= 0;
  if (alone && window.index == memoryIndex_) {
    memoryKeepNs_ = window.keepNs;  // a renewal may change it
    return;
  }
  if (window.open && window.besideFile && mirror_ != nullptr && mirror_->serial == window.serial) {
    mirror_->keepNs = window.keepNs;
    return;
  }
  std::unique_ptr<traces::TraceWriter> carried;
  // What the carried trace holds reaches back past the switch: snapshots say so (held_from_ns).
  int64_t carriedFromNs = 0;
  if (memoryIndex_ >= 0) {
    carriedFromNs = std::max(memoryHeldFromNs_, pruning_.cutoffNs());
    endMemoryTrace(window.open ? &carried : nullptr);
  }
  if (mirror_ != nullptr && out_.trace != nullptr && !failed_) {
    // What the file window published before it ended is the file's (the recorder woke the writer
    // at the switch: little or nothing of the next window's is among it), and the watch's.
    try {
      drainAll(false);
      commit();
    } catch (const traces::TraceError& e) {
      writeFailed(e, 0);
    }
    followFile();
  }
  stopFollowingFile();
  if (mirror_ != nullptr && !mirror_->broken && window.open) {
    carried = std::move(mirror_->trace);
    carriedFromNs = std::max(mirror_->heldFromNs, mirror_->pruning.cutoffNs());
  }
  mirror_.reset();
  if (alone) {
    startMemoryTrace(window, std::move(carried), carriedFromNs);
  } else if (window.open) {
    startMirror(window, std::move(carried), carriedFromNs);
  }
}

void Writer::startMirror(const MemoryWindowState& window,
                         std::unique_ptr<traces::TraceWriter> carried, int64_t carriedFromNs) {
  auto m = std::make_unique<FileMirror>();
  m->serial = window.serial;
  m->keepNs = window.keepNs;
  m->startNs = realtimeNs();
  m->heldFromNs = carried != nullptr ? std::min(carriedFromNs, m->startNs) : m->startNs;
  m->fileAtStart = out_.trace.get();
  mirror_ = std::move(m);
  try {
    mirror_->trace =
        carried != nullptr ? std::move(carried) : makeMemoryTrace(baseMeta(), mirror_->startNs);
  } catch (const traces::TraceError& e) {
    memoryFailed(e.what());
  }
}

// After the file's commit: the mirror takes what it added, and is pruned as a memory window is.
// Its failures end the watch, never the file.
void Writer::followFile() {
  if (mirror_ == nullptr || mirror_->broken || out_.trace == nullptr || mirror_->trace == nullptr) {
    return;
  }
  FileMirror& m = *mirror_;
  try {
    if (m.copy != nullptr && m.copy->file() != out_.trace.get()) m.copy.reset();
    if (m.copy == nullptr) {
      // A file opened since the watch began (a later part too) is followed whole.
      const bool fromStart = out_.trace.get() != m.fileAtStart;
      m.copy = std::make_unique<traces::TraceMirror>(*out_.trace, *m.trace, fromStart);
    }
    m.copy->copyCommitted();
    m.pruning.afterCommit(*m.trace, realtimeNs(), m.keepNs);
  } catch (const traces::TraceError& e) {
    memoryFailed(e.what());
  } catch (const std::bad_alloc&) {
    memoryFailed("out of memory");
  }
}

// The mirror's statements on the file's connection go before the file closes or is let go.
void Writer::stopFollowingFile() {
  if (mirror_ == nullptr) return;
  mirror_->copy.reset();
  mirror_->fileAtStart = nullptr;  // gone: a file followed next is followed whole
}

void Writer::startMemoryTrace(const MemoryWindowState& window,
                              std::unique_ptr<traces::TraceWriter> carried, int64_t carriedFromNs) {
  if (out_.trace != nullptr) {
    try {
      commit();
    } catch (const traces::TraceError& e) {
      writeFailed(e, 0);
      if (failed_) return;
    }
  }
  parked_ = std::move(out_);
  out_ = WriterOutput();
  memoryIndex_ = window.index;
  memoryKeepNs_ = window.keepNs;
  memoryBroken_ = false;
  pruning_ = MemoryPruning();
  const auto windows = Recorder::instance().windows();
  const size_t index = static_cast<size_t>(window.index);
  out_.startNs = index < windows.size() ? windows[index].startNs : realtimeNs();
  memoryHeldFromNs_ = carried != nullptr ? std::min(carriedFromNs, out_.startNs) : out_.startNs;
  dropTotals(out_.droppedBefore);  // drops before it are the file's
  try {
    if (carried != nullptr) carried->commit();
    out_.trace =
        carried != nullptr ? std::move(carried) : makeMemoryTrace(baseMeta(), out_.startNs);
  } catch (const traces::TraceError& e) {
    memoryFailed(e.what());
    return;
  }
  out_.sink.emplace(*out_.trace, clock_);
  out_.lastCommitNs = monotonicNs();
  runHooks(&WriterHooks::fileOpened);
}

// The window ended: what the rings hold was published while it was open and goes into it, the
// producers see it closed (CUDA capture flushes CUPTI and turns its kinds off), then it is freed.
void Writer::endMemoryTrace(std::unique_ptr<traces::TraceWriter>* keep) {
  if (!memoryBroken_ && out_.trace != nullptr) {
    try {
      drainAll(false);
      if (!memoryBroken_) runHooks(&WriterHooks::cycle);
      drainAll(memoryBroken_);
    } catch (const traces::TraceError&) {
      drainAll(true);  // going anyway
    }
  } else {
    drainAll(true);
  }
  if (keep != nullptr && !memoryBroken_ && out_.trace != nullptr) {
    try {
      out_.trace->commit();
      *keep = std::move(out_.trace);
    } catch (const traces::TraceError&) {
      // Not carried: the watch's next kind starts a trace of its own.
    }
  }
  uint64_t atMemoryStart[kSourceCount];
  std::copy(std::begin(out_.droppedBefore), std::end(out_.droppedBefore), atMemoryStart);
  out_ = std::move(parked_);  // frees the memory trace (unless kept)
  parked_ = WriterOutput();
  memoryIndex_ = -1;
  memoryBroken_ = false;
  if (out_.trace == nullptr) return;
  if (!out_.handles.intact()) {  // the job closed its descriptors meanwhile: not one write more
    abandonFile(0);
    return;
  }
  // The file goes on: drops counted meanwhile were the memory window's, and the producers write
  // names into it again (they had interned them into the memory trace).
  uint64_t totals[kSourceCount];
  dropTotals(totals);
  for (int i = 0; i < kSourceCount; ++i) out_.droppedBefore[i] += totals[i] - atMemoryStart[i];
  try {
    runHooks(&WriterHooks::fileOpened);
    for (uint64_t tid : out_.tidsSeen) {
      if (auto named = nvtxNames_.find(tid); named != nvtxNames_.end()) {
        out_.trace->addThread(tid, named->second);
      }
    }
  } catch (const traces::TraceError& e) {
    writeFailed(e, 0);
  }
}

// A memory trace that cannot be written (it outgrew its limit, or memory ran out) ends its
// window, with one line; the job and any later watch go on.
void Writer::memoryFailed(const std::string& why) {
  if (mirror_ != nullptr) {
    mirror_->broken = true;
    mirror_->copy.reset();
  } else {
    memoryBroken_ = true;
  }
  warnOnce(Problem::WatchEnded, "the memory window for watch ended: %s; the job goes on",
           why.c_str());
  Recorder::instance().endWatch("it could not be written: " + why);
}

namespace {

// A watch's trace as a snapshot: its image, and since when it holds events.
MemorySnapshot snapshotOf(traces::TraceWriter& trace, int64_t startNs, int64_t heldFromNs,
                          const MemoryPruning& pruning, uint64_t maxBytes) {
  MemorySnapshot s = imageOf(trace, maxBytes);
  s.nowNs = realtimeNs();
  s.windowStartNs = startNs;
  s.heldFromNs = std::max(heldFromNs, pruning.cutoffNs());
  return s;
}

}  // namespace

MemorySnapshot Writer::memoryImage(uint64_t maxBytes) {
  const MemoryWindowState window = Recorder::instance().memoryWindow();
  if (mirror_ != nullptr && !mirror_->broken && mirror_->trace != nullptr && window.open &&
      window.besideFile && window.serial == mirror_->serial) {
    return snapshotOf(*mirror_->trace, mirror_->startNs, mirror_->heldFromNs, mirror_->pruning,
                      maxBytes);
  }
  if (memoryIndex_ < 0 || memoryBroken_ || out_.trace == nullptr || !window.open ||
      window.index != memoryIndex_) {
    MemorySnapshot s;
    s.error = "the memory window is not being written (it ended or is just starting)";
    return s;
  }
  return snapshotOf(*out_.trace, out_.startNs, memoryHeldFromNs_, pruning_, maxBytes);
}

MemorySnapshot memoryWindowImage(int timeoutMs, uint64_t maxBytes) {
  MemorySnapshot s;
  const int64_t deadline = monotonicNs() + int64_t{timeoutMs} * 1'000'000;
  Writer* w = currentWriter();
  if (w == nullptr || w->finished_.load(std::memory_order_acquire) != 0) {
    s.error = "the writer is not running";
    return s;
  }
  if (!flushWriter(timeoutMs)) {
    s.error = "the writer did not take the last events within " + std::to_string(timeoutMs) + " ms";
    return s;
  }
  // The rest of the time for the lock: the writer may be in its next cycle already.
  const int64_t leftNs = std::max<int64_t>(deadline - monotonicNs(), 1'000'000);
  timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += static_cast<time_t>(leftNs / 1'000'000'000);
  until.tv_nsec += static_cast<long>(leftNs % 1'000'000'000);
  until.tv_sec += until.tv_nsec / 1'000'000'000;
  until.tv_nsec %= 1'000'000'000;
  if (pthread_mutex_timedlock(&w->io_, &until) != 0) {
    s.error = "the writer was busy for " + std::to_string(timeoutMs) + " ms";
    return s;
  }
  try {
    s = w->memoryImage(maxBytes);
  } catch (...) {
    s = MemorySnapshot();
    s.error = "internal error while taking the image";
  }
  pthread_mutex_unlock(&w->io_);
  return s;
}

}  // namespace bubblescope::agent
