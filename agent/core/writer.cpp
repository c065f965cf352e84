#include "agent/core/writer.h"

#include "agent/core/high_descriptors.h"
#include "agent/core/open_ranges.h"

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

class Writer {
 public:
  explicit Writer(FileSetup setup) : setup_(std::move(setup)), clock_(!ticksAreTsc()) {
    clock_.addAnchor(g_options.startAnchor);
    pthread_mutex_init(&io_, nullptr);
  }

  bool start();
  void run();

  // Shared with other threads (signal handlers included): counters and futex words.
  std::atomic<uint32_t> wake_{0};
  std::atomic<uint32_t> flushRequested_{0};
  std::atomic<uint32_t> flushDone_{0};
  std::atomic<bool> stopRequested_{false};
  std::atomic<uint32_t> finished_{0};
  std::atomic<uint64_t> eventsWritten_{0};
  std::atomic<uint64_t> recordsDrained_{0};
  std::atomic<pid_t> threadId_{0};
  pthread_mutex_t io_;  // held while the writer is inside SQLite (fork waits for it)
  // The file written now, once there is one (read by writerStats); each is leaked, not freed,
  // when the next replaces it, so a reader never holds a freed one.
  std::atomic<const std::string*> fileName_{nullptr};

 private:
  void cycle(bool final);
  void drainAll(bool discardOnly);
  void drainRing(ThreadState& s, uint64_t upTo);
  bool openFile();
  void closeFile();
  void fail(Problem problem, const std::string& message);
  void writeFailed(const traces::TraceError& e, uint64_t recordsLost);
  void abandonFile(uint64_t recordsLost);
  void dropFile();
  void commit();
  void commitIfDue();
  void noteThread(uint64_t tid);
  void syncThreadNames();
  void syncWindows(bool final);
  void syncDrops();
  void runHooks(void (*WriterHooks::*which)(RecordSink&));

  FileSetup setup_;
  TickConverter clock_;
  std::unique_ptr<traces::TraceWriter> file_;
  TraceHandles handles_;  // file_'s descriptors
  std::optional<RecordSink> sink_;
  bool failed_ = false;
  int files_ = 0;                  // files opened so far
  std::string previousFile_;       // the file whose descriptors the job closed, if any
  uint64_t lostWithPrevious_ = 0;  // events and records it could not take
  int64_t fileStartNs_ = 0;        // when a later part began (0 for the first file)
  int64_t lastCommitNs_ = 0;
  uint64_t eventsAtCommit_ = 0;
  uint64_t recorderVersion_ = UINT64_MAX;
  int endSignalWritten_ = 0;
  std::vector<int64_t> windowIds_;           // file ids of the windows written so far
  std::vector<int64_t> windowEnds_;          // their end as written (0 = open)
  uint64_t droppedWritten_[kSourceCount];    // the process's totals as last written (or UINT64_MAX)
  uint64_t droppedCommitted_[kSourceCount];  // ... as last committed
  uint64_t droppedBefore_[kSourceCount] = {};  // totals the earlier parts hold: not this file's
  std::unordered_set<uint64_t> tidsSeen_;
  std::unordered_map<uint64_t, std::string> nvtxNames_;  // tid → name from the registry
  const ThreadName* namesSeen_ = nullptr;                // newest registry entry applied
};

std::atomic<Writer*> g_writer{nullptr};
std::atomic<int> g_endSignal{0};  // the signal ending the process, once one is being handled
bool g_forkHeldIo = false;
bool g_childMayNotRecord = false;

bool Writer::start() {
  for (auto& d : droppedWritten_) d = UINT64_MAX;
  for (auto& d : droppedCommitted_) d = UINT64_MAX;
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
      if (stopping) closeFile();
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
  if (file_ != nullptr && !handles_.intact()) abandonFile(0);
  if (file_ == nullptr) {
    // A rank blocked in its first receive has finished nothing, but where it waits must be in a
    // trace: open ranges alone are reason enough for the file.
    const uint32_t word = controlWord();
    if (recorder.wantsFile() || (isRecording(word) && anyRecordedRangeOpen(generationOf(word)))) {
      openFile();
    }
  }
  drainAll(false);
  if (file_ == nullptr) return;
  try {
    syncThreadNames();
    syncWindows(final);
    syncDrops();
    runHooks(&WriterHooks::cycle);
    if (const int sig = g_endSignal.load(std::memory_order_acquire); sig != endSignalWritten_) {
      file_->setMeta("extra.end_signal", std::to_string(sig));
      endSignalWritten_ = sig;
    }
    commit();
  } catch (const traces::TraceError& e) {
    writeFailed(e, 0);
  }
}

void Writer::drainAll(bool discardOnly) {
  for (ThreadState* s = firstThreadState(); s != nullptr; s = s->next) {
    const ThreadStatus status = s->status.load(std::memory_order_acquire);
    if (status != ThreadStatus::Active && status != ThreadStatus::Retired) continue;
    // Only what was published when its turn came, so a busy thread cannot hold the writer.
    const uint64_t upTo = s->ring.published();
    if (s->ring.consumed() < upTo) {
      if (discardOnly || failed_ || (file_ == nullptr && !openFile())) {
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
        decoder(*sink_, view);
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
  if (failed_) return false;
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
  traces::RankMeta meta = setup_.meta;
  if (meta.host.empty()) meta.host = hostName();
  if (meta.command.empty()) meta.command = commandLine();
  if (meta.pid == 0) meta.pid = getpid();
  const auto windows = Recorder::instance().windows();
  meta.startNs = windows.empty() ? realtimeNs() : windows.front().startNs;
  const bool laterPart = !previousFile_.empty();
  if (laterPart) {
    // Goes on from now where the previous part, whose descriptors the job closed, stopped.
    path = setup_.dir / partName(setup_.fileName, setup_.fallbackName, files_ + 1);
    meta = withoutRank(std::move(meta));
    meta.extra["continues"] = previousFile_;
    fileStartNs_ = realtimeNs();
    meta.startNs = fileStartNs_;
    meta.clockAnchors.push_back(readClockAnchor());
    meta.dropped["unwritten"] = lostWithPrevious_;
  }
  const auto access =
      setup_.ownerOnly ? traces::TraceAccess::OwnerOnly : traces::TraceAccess::Umask;
  try {
    try {
      // No exists() first: another process may take the name between a check and the create.
      openSqliteFilesHigh();
      file_ = std::make_unique<traces::TraceWriter>(path, meta, access);
    } catch (const traces::TraceFileExists&) {
      if (laterPart || setup_.fallbackName.empty()) throw;
      const auto taken = path;
      path = setup_.dir / setup_.fallbackName;
      meta = withoutRank(std::move(meta));
      warnOnce(Problem::FileExists, "%s exists (another run in this directory?): writing %s",
               taken.c_str(), path.filename().c_str());
      file_ = std::make_unique<traces::TraceWriter>(path, meta, access);
    }
  } catch (const traces::TraceError& e) {
    fail(Problem::OutputUnwritable,
         std::string(e.what()) + ": nothing is recorded, the job goes on");
    return false;
  }
  ++files_;
  handles_ = TraceHandles::of(path);
  fileName_.store(new std::string(path.string()), std::memory_order_release);
  sink_.emplace(*file_, clock_);
  lastCommitNs_ = monotonicNs();
  runHooks(&WriterHooks::fileOpened);
  return true;
}

void Writer::closeFile() {
  if (file_ != nullptr && !failed_ && !handles_.intact()) abandonFile(0);
  if (file_ == nullptr || failed_) return;
  try {
    runHooks(&WriterHooks::closing);
    syncThreadNames();
    syncWindows(true);
    syncDrops();
    file_->addClockAnchor(readClockAnchor());
    eventsWritten_.store(file_->eventsWritten(), std::memory_order_relaxed);
    file_->close();
  } catch (const traces::TraceError& e) {
    warnOnce(Problem::WriteFailed, "cannot finish the trace: %s", e.what());
  }
}

void Writer::fail(Problem problem, const std::string& message) {
  if (failed_) return;
  failed_ = true;
  warnOnce(problem, "%s", message.c_str());
  Recorder::instance().disable();
  dropFile();
}

// Closing tries a last commit; on a full disk it fails quietly and the file stays at its last
// committed batch. A file whose descriptors the job closed is not closed: that would close, and
// its last commit write, descriptor numbers the job may have opened again.
void Writer::dropFile() {
  sink_.reset();
  if (file_ != nullptr && !handles_.intact()) (void)file_.release();  // left allocated on purpose
  file_.reset();
  handles_ = TraceHandles();
}

// A write failed: because the job closed the file's descriptors (the writer goes on in a new
// file), or for want of room (capture stops).
void Writer::writeFailed(const traces::TraceError& e, uint64_t recordsLost) {
  if (file_ != nullptr && !handles_.intact()) {
    abandonFile(recordsLost);
    return;
  }
  fail(Problem::WriteFailed,
       std::string("cannot write the trace: ") + e.what() + ": capture stopped, the job goes on");
}

// The job closed the descriptors of the file (close_range): the file keeps every committed
// batch, the batch in flight is lost and counted, and the next record opens the next part.
void Writer::abandonFile(uint64_t recordsLost) {
  const std::string closed = file_->file().filename().string();
  const uint64_t lost = file_->eventsWritten() - eventsAtCommit_ + recordsLost;
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
  windowIds_.clear();
  windowEnds_.clear();
  recorderVersion_ = UINT64_MAX;
  endSignalWritten_ = 0;
  tidsSeen_.clear();
  for (int i = 0; i < kSourceCount; ++i) {
    if (droppedCommitted_[i] != UINT64_MAX) droppedBefore_[i] = droppedCommitted_[i];
    droppedWritten_[i] = droppedCommitted_[i] = UINT64_MAX;
  }
}

void Writer::commit() {
  file_->commit();
  std::copy(std::begin(droppedWritten_), std::end(droppedWritten_), droppedCommitted_);
  eventsWritten_.store(file_->eventsWritten(), std::memory_order_relaxed);
  lastCommitNs_ = monotonicNs();
  eventsAtCommit_ = file_->eventsWritten();
}

void Writer::commitIfDue() {
  if (file_ != nullptr &&
      (file_->eventsWritten() - eventsAtCommit_ >= kMaxBatchEvents ||
       monotonicNs() - lastCommitNs_ >= int64_t{g_options.commitEveryMs} * 1'000'000)) {
    commit();
  }
}

void Writer::noteThread(uint64_t tid) {
  if (!tidsSeen_.insert(tid).second) return;
  auto named = nvtxNames_.find(tid);
  const std::string name = named != nvtxNames_.end() ? named->second : osThreadName(tid);
  file_->addThread(tid, name);
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
    if (tidsSeen_.count((*it)->tid) != 0) file_->addThread((*it)->tid, (*it)->name);
  }
}

void Writer::syncWindows(bool final) {
  Recorder& recorder = Recorder::instance();
  const uint64_t version = recorder.version();
  if (version == recorderVersion_ && !final) return;
  recorderVersion_ = version;
  const auto windows = recorder.windows();
  for (size_t i = 0; i < windows.size(); ++i) {
    const WindowRecord& w = windows[i];
    if (i == windowIds_.size()) {
      if (w.endNs != 0 && w.endNs < fileStartNs_) {  // over before this part began
        windowIds_.push_back(-1);
        windowEnds_.push_back(w.endNs);
        continue;
      }
      windowIds_.push_back(file_->openCaptureWindow(std::max(w.startNs, fileStartNs_), w.reason));
      windowEnds_.push_back(0);
      file_->addClockAnchor(w.anchor);
    }
    if (windowIds_[i] < 0) continue;
    int64_t end = w.endNs;
    if (end == 0 && final) end = realtimeNs();  // the process is exiting with it open
    if (end != 0 && windowEnds_[i] == 0) {
      file_->closeCaptureWindow(windowIds_[i], end);
      windowEnds_[i] = end;
    }
  }
}

void Writer::syncDrops() {
  uint64_t totals[kSourceCount] = {};
  for (ThreadState* s = firstThreadState(); s != nullptr; s = s->next) {
    for (int i = 0; i < kSourceCount; ++i) {
      totals[i] += s->dropped[i].load(std::memory_order_relaxed);
    }
  }
  for (int i = 0; i < kSourceCount; ++i) {
    const uint64_t here = totals[i] - droppedBefore_[i];
    // NVTX always gets a row: "0 dropped" is worth stating.
    const bool show = here != 0 || static_cast<Source>(i) == Source::Nvtx;
    if (show && totals[i] != droppedWritten_[i]) {
      file_->setDropped(sourceName(static_cast<Source>(i)), here);
      droppedWritten_[i] = totals[i];
    }
  }
}

void Writer::runHooks(void (*WriterHooks::*which)(RecordSink&)) {
  int count = 0;
  const WriterHooks* hooks = writerHooks(&count);
  for (int i = 0; i < count; ++i) {
    if (hooks[i].*which != nullptr) (hooks[i].*which)(*sink_);
  }
}

}  // namespace

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
