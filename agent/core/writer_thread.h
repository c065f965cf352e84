#pragma once
// The writer thread's object, shared by the two files that implement it: writer.cpp (the thread,
// the drains, the trace file and its parts) and writer_memory.cpp (memory windows for watch).
// Producers and the process layer use writer.h, never this.
#include <pthread.h>
#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>

#include "agent/core/clock.h"
#include "agent/core/log.h"
#include "agent/core/memory_window.h"
#include "agent/core/names.h"
#include "agent/core/producer.h"
#include "agent/core/recorder.h"
#include "agent/core/thread_state.h"
#include "agent/core/writer.h"
#include "agent/core/writer_output.h"
#include "traces/errors.h"

namespace bubblescope::agent {

class Writer {
 public:
  explicit Writer(FileSetup setup);

  bool start();
  void run();
  // Control thread, under io_: the memory window's trace as an image (writer_memory.cpp).
  MemorySnapshot memoryImage(uint64_t maxBytes);

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
  // Memory windows (writer_memory.cpp): the output follows the recorder's memory window.
  void followMemoryWindow();
  // `carried`: the watch's trace so far, which goes on (else a new one), holding every event that
  // ended since `carriedFromNs`.
  void startMemoryTrace(const MemoryWindowState& window,
                        std::unique_ptr<traces::TraceWriter> carried = nullptr,
                        int64_t carriedFromNs = 0);
  // `keep`: where the memory trace goes (else it is freed).
  void endMemoryTrace(std::unique_ptr<traces::TraceWriter>* keep = nullptr);
  void startMirror(const MemoryWindowState& window, std::unique_ptr<traces::TraceWriter> carried,
                   int64_t carriedFromNs);
  void followFile();
  void stopFollowingFile();
  void memoryFailed(const std::string& why);
  traces::RankMeta baseMeta() const;
  void dropTotals(uint64_t totals[kSourceCount]) const;
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
  WriterOutput out_;          // written now: the file, or a memory window's trace
  WriterOutput parked_;       // the file, left aside while a memory window is open
  int64_t memoryIndex_ = -1;  // the recorder's window out_ holds, when it is a memory window
  int64_t memoryKeepNs_ = 0;
  bool memoryBroken_ = false;  // a write into it failed: nothing more goes there
  MemoryPruning pruning_;
  int64_t memoryHeldFromNs_ = 0;  // out_'s memory trace holds every event that ended since then
  std::unique_ptr<FileMirror> mirror_;  // a watch beside the file window (memory_window.h)
  bool failed_ = false;
  int files_ = 0;                  // files opened so far
  std::string previousFile_;       // the file whose descriptors the job closed, if any
  uint64_t lostWithPrevious_ = 0;  // events and records it could not take
  std::unordered_map<uint64_t, std::string> nvtxNames_;  // tid → name from the registry
  const ThreadName* namesSeen_ = nullptr;                // newest registry entry applied
};

// The process's writer, once started (never freed).
Writer* currentWriter();

}  // namespace bubblescope::agent
