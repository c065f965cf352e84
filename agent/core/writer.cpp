#include "agent/core/writer.h"

#include "agent/core/high_descriptors.h"
#include "agent/core/open_ranges.h"
#include "agent/core/writer_thread.h"

#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <memory>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "agent/core/agent_thread.h"
#include "agent/core/log.h"
#include "agent/core/names.h"
#include "agent/core/producer.h"
#include "agent/core/record_sink.h"
#include "agent/core/recorder.h"
#include "agent/core/thread_state.h"
#include "agent/core/trace_file_names.h"
#include "agent/core/trace_handles.h"
#include "agent/core/writer_output.h"
#include "traces/errors.h"
#include "traces/sqlite/trace_writer.h"

namespace bubblescope::agent {

namespace detail {
std::atomic<int> g_writerState{kWriterNone};
}  // namespace detail

namespace {

using detail::g_writerState;

constexpr size_t kRecordsPerDrainCall = 4096;
// A batch is committed after this many events even within the time limit: a batch that cannot
// be written (full disk) loses at most this many, and SQLite's cache stays small.
constexpr uint64_t kMaxBatchEvents = 65536;
constexpr int kForkWaitMs = 200;  // how long fork() waits for the writer to leave SQLite
// A job that keeps closing every descriptor gets this many files (each closed one's connection is
// left allocated), then capture stops.
constexpr int kMaxFiles = 8;

// futex on a std::atomic<uint32_t> (same layout as uint32_t): async-signal-safe waiting.
void futexWait(std::atomic<uint32_t>* word, uint32_t expected, int64_t timeoutNs) {
  timespec ts{static_cast<time_t>(timeoutNs / 1'000'000'000),
              static_cast<long>(timeoutNs % 1'000'000'000)};
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAIT_PRIVATE, expected, &ts, nullptr,
          0);
}

void futexWake(std::atomic<uint32_t>* word) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr,
          nullptr, 0);
}

// Waits until `word` reaches `target` (wrap-safe), up to timeoutMs. Async-signal-safe.
bool waitUntilReached(std::atomic<uint32_t>* word, uint32_t target, int timeoutMs) {
  const int64_t deadline = monotonicNs() + int64_t{timeoutMs} * 1'000'000;
  for (;;) {
    const uint32_t now = word->load(std::memory_order_acquire);
    if (static_cast<int32_t>(now - target) >= 0) return true;
    const int64_t left = deadline - monotonicNs();
    if (left <= 0) return false;
    futexWait(word, now, left < 50'000'000 ? left : 50'000'000);
  }
}

// A small /proc file, with plain system calls (no iostreams: this may run while exit() tears
// down static objects).
std::string readSmallFile(const char* path) {
  std::string s;
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return s;
  char buf[4096];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0 && s.size() < (1u << 20);) {
    s.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return s;
}

// /proc/self/cmdline: arguments separated by NULs; shown space-separated.
std::string commandLine() {
  std::string s = readSmallFile("/proc/self/cmdline");
  while (!s.empty() && s.back() == '\0') s.pop_back();
  for (char& c : s) {
    if (c == '\0') c = ' ';
  }
  return s;
}

std::string hostName() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "";
  return buf;
}

// The OS name of a live thread of this process, or "" if it has gone.
std::string osThreadName(uint64_t tid) {
  std::string path = "/proc/self/task/" + std::to_string(tid) + "/comm";
  std::string s = readSmallFile(path.c_str());
  while (!s.empty() && (s.back() == '\n' || s.back() == '\0')) s.pop_back();
  return s;
}

WriterOptions g_options;

std::atomic<Writer*> g_writer{nullptr};
std::atomic<int> g_endSignal{0};  // the signal ending the process, once one is being handled
bool g_forkHeldIo = false;
bool g_childMayNotRecord = false;

}  // namespace

Writer::Writer(FileSetup setup) : setup_(std::move(setup)), clock_(!ticksAreTsc()) {
  clock_.addAnchor(g_options.startAnchor);
  pthread_mutex_init(&io_, nullptr);
}

Writer* currentWriter() {
  return g_writer.load(std::memory_order_acquire);
}

bool Writer::start() {
  pthread_t thread;
  const int rc = startAgentThread(
      [](void* self) -> void* {
        static_cast<Writer*>(self)->run();
        return nullptr;
      },
      this, 0, &thread);
  if (rc == 0) pthread_setname_np(thread, "bubblescope");
  return rc == 0;
}

void Writer::run() {
  threadId_.store(static_cast<pid_t>(gettid()), std::memory_order_release);
  const int64_t cycleNs = int64_t{g_options.cycleMs} * 1'000'000;
  for (;;) {
    const uint32_t seen = wake_.load(std::memory_order_acquire);
    if (!stopRequested_.load(std::memory_order_acquire) &&
        flushRequested_.load(std::memory_order_acquire) ==
            flushDone_.load(std::memory_order_relaxed)) {
      futexWait(&wake_, seen, cycleNs);
    }
    const uint32_t flushTarget = flushRequested_.load(std::memory_order_acquire);
    const bool stopping = stopRequested_.load(std::memory_order_acquire);
    pthread_mutex_lock(&io_);
    try {
      cycle(stopping);
      if (stopping) {
        if (memoryIndex_ >= 0) endMemoryTrace();
        mirror_.reset();
        closeFile();
      }
    } catch (const std::exception& e) {
      fail(Problem::Internal, std::string("internal error in the writer: ") + e.what() +
                                  ": capture stopped, the job goes on");
    } catch (...) {
      fail(Problem::Internal, "internal error in the writer: capture stopped, the job goes on");
    }
    pthread_mutex_unlock(&io_);
    flushDone_.store(flushTarget, std::memory_order_release);
    futexWake(&flushDone_);
    if (stopping) {
      finished_.store(1, std::memory_order_release);
      futexWake(&finished_);
      return;
    }
  }
}

void Writer::cycle(bool final) {
  clock_.addAnchor(readTickAnchor());
  Recorder& recorder = Recorder::instance();
  if (!final) recorder.tick(realtimeNs());
  if (failed_) {
    drainAll(true);
    return;
  }
  followMemoryWindow();
  if (out_.trace != nullptr && !out_.handles.intact()) abandonFile(0);
  if (out_.trace == nullptr && memoryIndex_ < 0) {
    // A rank blocked in its first receive has finished nothing, but where it waits must be in a
    // trace: open ranges alone are reason enough for the file.
    const uint32_t word = controlWord();
    if (recorder.wantsFile() || (isRecording(word) && anyRecordedRangeOpen(generationOf(word)))) {
      openFile();
    }
  }
  drainAll(false);
  if (out_.trace == nullptr || memoryBroken_) return;
  try {
    syncThreadNames();
    syncWindows(final);
    syncDrops();
    runHooks(&WriterHooks::cycle);
    if (const int sig = g_endSignal.load(std::memory_order_acquire); sig != out_.endSignalWritten) {
      out_.trace->setMeta("extra.end_signal", std::to_string(sig));
      out_.endSignalWritten = sig;
    }
    commit();
    if (memoryIndex_ >= 0) pruning_.afterCommit(*out_.trace, realtimeNs(), memoryKeepNs_);
  } catch (const traces::TraceError& e) {
    writeFailed(e, 0);
    return;
  }
  if (mirror_ != nullptr) followFile();  // outside the try: its failures are the watch's
}

traces::RankMeta Writer::baseMeta() const {
  traces::RankMeta meta = setup_.meta;
  if (meta.host.empty()) meta.host = hostName();
  if (meta.command.empty()) meta.command = commandLine();
  if (meta.pid == 0) meta.pid = getpid();
  return meta;
}

void Writer::dropTotals(uint64_t totals[kSourceCount]) const {
  for (int i = 0; i < kSourceCount; ++i) totals[i] = 0;
  for (ThreadState* s = firstThreadState(); s != nullptr; s = s->next) {
    for (int i = 0; i < kSourceCount; ++i) {
      totals[i] += s->dropped[i].load(std::memory_order_relaxed);
    }
  }
}

void Writer::drainAll(bool discardOnly) {
  for (ThreadState* s = firstThreadState(); s != nullptr; s = s->next) {
    const ThreadStatus status = s->status.load(std::memory_order_acquire);
    if (status != ThreadStatus::Active && status != ThreadStatus::Retired) continue;
    // Only what was published when its turn came, so a busy thread cannot hold the writer.
    const uint64_t upTo = s->ring.published();
    if (s->ring.consumed() < upTo) {
      if (discardOnly || failed_ || memoryBroken_ || (out_.trace == nullptr && !openFile())) {
        s->ring.discard();
      } else {
        drainRing(*s, upTo);
      }
    }
    if (status == ThreadStatus::Retired && s->ring.empty()) {
      ThreadStatus expected = ThreadStatus::Retired;
      s->status.compare_exchange_strong(expected, ThreadStatus::Free, std::memory_order_acq_rel);
    }
  }
}

void Writer::drainRing(ThreadState& s, uint64_t upTo) {
  const uint64_t tid = s.tid.load(std::memory_order_relaxed);
  try {
    noteThread(tid);
    RecordView view;
    view.tid = tid;
    // A failed write ends the decoding, not the drain call: the call frees every record it
    // visited, so none is decoded twice (a CUPTI buffer would be released twice). The records
    // after it in the call are counted as lost.
    std::optional<traces::TraceError> error;
    uint64_t skipped = 0;
    auto visit = [&](const RecordHeader& h, const uint8_t* payload, const char* text) {
      const Decoder decoder = decoderOf(h.type);
      if (decoder == nullptr) return;
      if (error) {
        ++skipped;
        return;
      }
      view.type = h.type;
      view.payload = payload;
      view.payloadSize = h.payloadSize;
      view.text = std::string_view(text, h.textSize);
      try {
        decoder(*out_.sink, view);
      } catch (const traces::TraceError& e) {
        error.emplace(e);
        ++skipped;
      }
    };
    while (s.ring.consumed() < upTo) {
      recordsDrained_.fetch_add(s.ring.drain(visit, kRecordsPerDrainCall, upTo),
                                std::memory_order_relaxed);
      if (error) {
        writeFailed(*error, skipped);
        break;
      }
      commitIfDue();
    }
  } catch (const traces::TraceError& e) {
    writeFailed(e, 0);
  }
  if (failed_) s.ring.discard();
}

bool Writer::openFile() {
  // Records of a memory window (late ones, after it ended) never make a file.
  if (failed_ || !Recorder::instance().hadFileWindow()) return false;
  for (const auto& w : setup_.warnings) warnOnce(Problem::BadLauncherVariable, "%s", w.c_str());
  std::error_code ec;
  std::filesystem::create_directories(setup_.dir, ec);
  if (ec) {
    fail(Problem::OutputUnwritable, "cannot create the output directory " + setup_.dir.string() +
                                        " (" + ec.message() +
                                        "): nothing is recorded, the job goes on");
    return false;
  }
  std::filesystem::path path = setup_.dir / setup_.fileName;
  traces::RankMeta meta = baseMeta();
  const auto windows = Recorder::instance().windows();
  meta.startNs = windows.empty() ? realtimeNs() : windows.front().startNs;
  const bool laterPart = !previousFile_.empty();
  if (laterPart) {
    // Goes on from now where the previous part, whose descriptors the job closed, stopped.
    path = setup_.dir / partName(setup_.fileName, setup_.fallbackName, files_ + 1);
    meta = withoutRank(std::move(meta));
    meta.extra["continues"] = previousFile_;
    out_.startNs = realtimeNs();
    meta.startNs = out_.startNs;
    meta.clockAnchors.push_back(readClockAnchor());
    meta.dropped["unwritten"] = lostWithPrevious_;
  }
  const auto access =
      setup_.ownerOnly ? traces::TraceAccess::OwnerOnly : traces::TraceAccess::Umask;
  try {
    try {
      // No exists() first: another process may take the name between a check and the create.
      openSqliteFilesHigh();
      out_.trace = std::make_unique<traces::TraceWriter>(path, meta, access);
    } catch (const traces::TraceFileExists&) {
      if (laterPart || setup_.fallbackName.empty()) throw;
      const auto taken = path;
      path = setup_.dir / setup_.fallbackName;
      meta = withoutRank(std::move(meta));
      warnOnce(Problem::FileExists, "%s exists (another run in this directory?): writing %s",
               taken.c_str(), path.filename().c_str());
      out_.trace = std::make_unique<traces::TraceWriter>(path, meta, access);
    }
  } catch (const traces::TraceError& e) {
    fail(Problem::OutputUnwritable,
         std::string(e.what()) + ": nothing is recorded, the job goes on");
    return false;
  }
  ++files_;
  out_.handles = TraceHandles::of(path);
  fileName_.store(new std::string(path.string()), std::memory_order_release);
  out_.sink.emplace(*out_.trace, clock_);
  out_.lastCommitNs = monotonicNs();
  runHooks(&WriterHooks::fileOpened);
  return true;
}

void Writer::closeFile() {
  stopFollowingFile();
  if (out_.trace != nullptr && !failed_ && !out_.handles.intact()) abandonFile(0);
  if (out_.trace == nullptr || failed_) return;
  try {
    runHooks(&WriterHooks::closing);
    syncThreadNames();
    syncWindows(true);
    syncDrops();
    out_.trace->addClockAnchor(readClockAnchor());
    eventsWritten_.store(out_.trace->eventsWritten(), std::memory_order_relaxed);
    out_.trace->close();
  } catch (const traces::TraceError& e) {
    warnOnce(Problem::WriteFailed, "cannot finish the trace: %s", e.what());
  }
}

void Writer::fail(Problem problem, const std::string& message) {
  if (failed_) return;
  failed_ = true;
  warnOnce(problem, "%s", message.c_str());
  Recorder::instance().disable();
  if (memoryIndex_ >= 0) {  // the memory trace goes; the file is dropped as it would have been
    out_ = std::move(parked_);
    parked_ = WriterOutput();
    memoryIndex_ = -1;
  }
  mirror_.reset();
  dropFile();
}

// Closing tries a last commit; on a full disk it fails quietly and the file stays at its last
// committed batch. A file whose descriptors the job closed is not closed: that would close, and
// its last commit write, descriptor numbers the job may have opened again.
void Writer::dropFile() {
  stopFollowingFile();
  out_.sink.reset();
  if (out_.trace != nullptr && !out_.handles.intact())
    (void)out_.trace.release();  // left allocated on purpose
  out_.trace.reset();
  out_.handles = TraceHandles();
}

// A write failed: because the job closed the file's descriptors (the writer goes on in a new
// file), or for want of room (capture stops).
void Writer::writeFailed(const traces::TraceError& e, uint64_t recordsLost) {
  if (memoryIndex_ >= 0) {
    memoryFailed(e.what());
    return;
  }
  if (out_.trace != nullptr && !out_.handles.intact()) {
    abandonFile(recordsLost);
    return;
  }
  fail(Problem::WriteFailed,
       std::string("cannot write the trace: ") + e.what() + ": capture stopped, the job goes on");
}

// The job closed the descriptors of the file (close_range): the file keeps every committed
// batch, the batch in flight is lost and counted, and the next record opens the next part.
void Writer::abandonFile(uint64_t recordsLost) {
  const std::string closed = out_.trace->file().filename().string();
  const uint64_t lost = out_.trace->eventsWritten() - out_.eventsAtCommit + recordsLost;
  if (files_ >= kMaxFiles) {  // the first closing was said; this is the end of capture
    fail(Problem::WriteFailed, "the job closed the descriptors of its trace again (" + closed +
                                   ", part " + std::to_string(files_) +
                                   "): capture stopped, the job goes on");
    return;
  }
  const std::string next = partName(setup_.fileName, setup_.fallbackName, files_ + 1);
  warnOnce(Problem::TraceClosed,
           "the job closed the descriptors of %s (close_range?): it holds every batch committed "
           "until then (%llu events after them are lost); what follows goes to %s",
           closed.c_str(), static_cast<unsigned long long>(lost), next.c_str());
  dropFile();
  previousFile_ = closed;
  lostWithPrevious_ = lost;
  // What the earlier parts hold is not this file's.
  WriterOutput fresh;
  for (int i = 0; i < kSourceCount; ++i) {
    fresh.droppedBefore[i] =
        out_.droppedCommitted[i] != UINT64_MAX ? out_.droppedCommitted[i] : out_.droppedBefore[i];
  }
  out_ = std::move(fresh);
}

void Writer::commit() {
  out_.trace->commit();
  std::copy(std::begin(out_.droppedWritten), std::end(out_.droppedWritten), out_.droppedCommitted);
  if (memoryIndex_ < 0)
    eventsWritten_.store(out_.trace->eventsWritten(), std::memory_order_relaxed);
  out_.lastCommitNs = monotonicNs();
  out_.eventsAtCommit = out_.trace->eventsWritten();
}

void Writer::commitIfDue() {
  if (out_.trace != nullptr &&
      (out_.trace->eventsWritten() - out_.eventsAtCommit >= kMaxBatchEvents ||
       monotonicNs() - out_.lastCommitNs >= int64_t{g_options.commitEveryMs} * 1'000'000)) {
    commit();
  }
}

void Writer::noteThread(uint64_t tid) {
  if (!out_.tidsSeen.insert(tid).second) return;
  auto named = nvtxNames_.find(tid);
  const std::string name = named != nvtxNames_.end() ? named->second : osThreadName(tid);
  out_.trace->addThread(tid, name);
}

void Writer::syncThreadNames() {
  const ThreadName* newest = newestThreadName();
  if (newest == namesSeen_) return;
  std::vector<const ThreadName*> fresh;
  for (const ThreadName* n = newest; n != nullptr && n != namesSeen_; n = n->next) {
    fresh.push_back(n);
  }
  namesSeen_ = newest;
  for (auto it = fresh.rbegin(); it != fresh.rend(); ++it) {  // oldest first: renames win
    nvtxNames_[(*it)->tid] = (*it)->name;
    if (out_.tidsSeen.count((*it)->tid) != 0) out_.trace->addThread((*it)->tid, (*it)->name);
  }
}

void Writer::syncWindows(bool final) {
  Recorder& recorder = Recorder::instance();
  const uint64_t version = recorder.version();
  if (version == out_.recorderVersion && !final) return;
  out_.recorderVersion = version;
  const auto windows = recorder.windows();
  for (size_t i = 0; i < windows.size(); ++i) {
    const WindowRecord& w = windows[i];
    if (i == out_.windowIds.size()) {
      // A memory trace holds its own window only; a file holds no memory window.
      const bool elsewhere = memoryIndex_ >= 0 ? static_cast<int64_t>(i) != memoryIndex_ : w.memory;
      if (elsewhere || (w.endNs != 0 && w.endNs < out_.startNs)) {  // or over before this part
        out_.windowIds.push_back(-1);
        out_.windowEnds.push_back(w.endNs);
        continue;
      }
      out_.windowIds.push_back(
          out_.trace->openCaptureWindow(std::max(w.startNs, out_.startNs), w.reason));
      out_.windowEnds.push_back(0);
      out_.trace->addClockAnchor(w.anchor);
    }
    if (out_.windowIds[i] < 0) continue;
    int64_t end = w.endNs;
    if (end == 0 && final) end = realtimeNs();  // the process is exiting with it open
    if (end != 0 && out_.windowEnds[i] == 0) {
      out_.trace->closeCaptureWindow(out_.windowIds[i], end);
      out_.windowEnds[i] = end;
    }
  }
}

void Writer::syncDrops() {
  uint64_t totals[kSourceCount];
  dropTotals(totals);
  for (int i = 0; i < kSourceCount; ++i) {
    const uint64_t here = totals[i] - out_.droppedBefore[i];
    // NVTX always gets a row: "0 dropped" is worth stating.
    const bool show = here != 0 || static_cast<Source>(i) == Source::Nvtx;
    if (show && totals[i] != out_.droppedWritten[i]) {
      out_.trace->setDropped(sourceName(static_cast<Source>(i)), here);
      out_.droppedWritten[i] = totals[i];
    }
  }
}

void Writer::runHooks(void (*WriterHooks::*which)(RecordSink&)) {
  int count = 0;
  const WriterHooks* hooks = writerHooks(&count);
  for (int i = 0; i < count; ++i) {
    if (hooks[i].*which != nullptr) (hooks[i].*which)(*out_.sink);
  }
}

void configureWriter(const WriterOptions& options) {
  g_options = options;
}

void startWriterSlow() {
  int expected = detail::kWriterNone;
  if (!g_writerState.compare_exchange_strong(expected, detail::kWriterStarting)) return;
  if (g_childMayNotRecord) {
    warnOnce(Problem::ForkDuringWrite,
             "this process forked while its parent was writing its trace: it is not recorded");
    Recorder::instance().disable();
    g_writerState.store(detail::kWriterOff);
    return;
  }
  Writer* writer = nullptr;
  try {
    writer = new Writer(g_options.setup != nullptr ? g_options.setup() : FileSetup{});
  } catch (...) {
    writer = nullptr;
  }
  if (writer == nullptr || !writer->start()) {
    warnOnce(Problem::Internal, "cannot start the writer thread: nothing is recorded");
    Recorder::instance().disable();
    g_writerState.store(detail::kWriterOff);
    return;
  }
  g_writer.store(writer, std::memory_order_release);
  g_writerState.store(detail::kWriterRunning, std::memory_order_release);
  if (g_options.started != nullptr) g_options.started();
}

bool flushWriterFromSignal(int timeoutMs, int signal) {
  if (signal != 0) g_endSignal.store(signal, std::memory_order_release);
  Writer* w = g_writer.load(std::memory_order_acquire);
  if (w == nullptr || w->finished_.load(std::memory_order_acquire) != 0) return false;
  if (w->threadId_.load(std::memory_order_acquire) == static_cast<pid_t>(syscall(SYS_gettid))) {
    return false;  // the writer cannot wait for itself
  }
  const uint32_t ticket = w->flushRequested_.fetch_add(1, std::memory_order_acq_rel) + 1;
  w->wake_.fetch_add(1, std::memory_order_release);
  futexWake(&w->wake_);
  return waitUntilReached(&w->flushDone_, ticket, timeoutMs);
}

bool flushWriter(int timeoutMs) {
  return flushWriterFromSignal(timeoutMs);
}

void wakeWriter() {
  Writer* w = g_writer.load(std::memory_order_acquire);
  if (w == nullptr) return;
  w->wake_.fetch_add(1, std::memory_order_release);
  futexWake(&w->wake_);
}

void finishWriter(int timeoutMs) {
  Recorder::instance().disable();
  Writer* w = g_writer.load(std::memory_order_acquire);
  g_writerState.store(detail::kWriterOff, std::memory_order_release);
  if (w == nullptr || w->finished_.load(std::memory_order_acquire) != 0) return;
  if (w->threadId_.load(std::memory_order_acquire) == static_cast<pid_t>(gettid())) return;
  w->stopRequested_.store(true, std::memory_order_release);
  w->wake_.fetch_add(1, std::memory_order_release);
  futexWake(&w->wake_);
  if (!waitUntilReached(&w->finished_, 1, timeoutMs)) {
    warnOnce(Problem::ShutdownTimeout,
             "the trace was not finished within %d ms at exit: it holds the batches committed "
             "until then",
             timeoutMs);
  }
}

void writerPrepareFork() {
  Writer* w = g_writer.load(std::memory_order_acquire);
  g_forkHeldIo = false;
  if (w == nullptr) return;
  timespec deadline;
  clock_gettime(CLOCK_REALTIME, &deadline);
  deadline.tv_nsec += kForkWaitMs * 1'000'000L;
  deadline.tv_sec += deadline.tv_nsec / 1'000'000'000;
  deadline.tv_nsec %= 1'000'000'000;
  g_forkHeldIo = pthread_mutex_timedlock(&w->io_, &deadline) == 0;
}

void writerParentAfterFork() {
  Writer* w = g_writer.load(std::memory_order_acquire);
  if (w != nullptr && g_forkHeldIo) pthread_mutex_unlock(&w->io_);
  g_forkHeldIo = false;
}

void writerChildAfterFork() {
  // The parent's writer (its thread is gone) and its SQLite connection are abandoned, never
  // touched: the child writes a file of its own, started by its first event.
  // Call after Recorder::resetInChild (which releases the recorder's lock).
  Writer* w = g_writer.exchange(nullptr, std::memory_order_acq_rel);
  g_childMayNotRecord = w != nullptr && !g_forkHeldIo;
  g_forkHeldIo = false;
  g_writerState.store(Recorder::instance().disabled() ? detail::kWriterOff : detail::kWriterNone,
                      std::memory_order_relaxed);
}

WriterStats writerStats() {
  WriterStats s;
  Writer* w = g_writer.load(std::memory_order_acquire);
  if (w == nullptr) return s;
  s.running = w->finished_.load(std::memory_order_acquire) == 0;
  s.eventsWritten = w->eventsWritten_.load(std::memory_order_relaxed);
  s.recordsDrained = w->recordsDrained_.load(std::memory_order_relaxed);
  if (const std::string* file = w->fileName_.load(std::memory_order_acquire)) s.file = *file;
  return s;
}

}  // namespace bubblescope::agent
