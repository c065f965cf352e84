#pragma once
// The writer: one background thread per process. It drains every thread's ring, hands each
// record to its decoder, and commits a batch to the trace file at least every 200 ms (WAL, so a
// killed process leaves every committed batch readable). The file is created with the first
// record: a process that records nothing leaves no file. Any failure (directory unwritable,
// disk full) stops capture with one warning line; the job goes on.
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "agent/core/clock.h"
#include "agent/core/memory_window.h"
#include "traces/model/trace.h"

namespace bubblescope::agent {

// Where and as what this process writes, from the process layer. Built on the thread whose
// event starts the writer (environment reads happen where the application's own do).
struct FileSetup {
  std::filesystem::path dir;
  std::string fileName;               // "rank-00003.sqlite"
  std::string fallbackName;           // used when fileName exists already
  bool ownerOnly = false;             // files 0600 (BUBBLESCOPE_PRIVATE), else the umask's
  traces::RankMeta meta;              // identity and extra; host, command filled in if empty
  std::vector<std::string> warnings;  // printed (once each kind) when the file is created
};

struct WriterOptions {
  FileSetup (*setup)() = nullptr;  // called once, when the writer starts
  void (*started)() = nullptr;     // after the writer thread runs (install signal handlers)
  int cycleMs = 20;                // drain interval
  int commitEveryMs = 100;         // longest batch while the writer is busy draining
  TickAnchor startAnchor;          // ticks and realtime read at agent start
};
void configureWriter(const WriterOptions& options);

namespace detail {
enum WriterState : int { kWriterNone = 0, kWriterStarting = 1, kWriterRunning = 2, kWriterOff = 3 };
extern std::atomic<int> g_writerState;
}  // namespace detail

void startWriterSlow();
// Producers call this when they start recording on a thread: starts the writer on first need.
inline void ensureWriter() {
  if (detail::g_writerState.load(std::memory_order_relaxed) != detail::kWriterRunning) {
    startWriterSlow();
  }
}

// Async-signal-safe: asks the writer to commit everything published so far and waits for it
// up to timeoutMs. False if there is no writer or it did not finish in time. `signal`, when not
// 0, is the signal ending the process: written as meta extra.end_signal, so a reader can tell a
// rank that crashed (SIGABRT) from one that was stopped (SIGTERM, SIGINT).
bool flushWriterFromSignal(int timeoutMs, int signal = 0);
// Same, from ordinary code (tests, benchmarks).
bool flushWriter(int timeoutMs);
// Any thread, async-signal-safe: the writer runs its next cycle now, not at its period's end.
void wakeWriter();
// At exit: the last drain, windows closed, the file closed (indexes built), within timeoutMs.
// Idempotent; afterwards nothing more is written.
void finishWriter(int timeoutMs);

// The control thread's `snapshot`: the open memory window's trace as an SQLite image holding
// everything published before the call (the writer is flushed first, then read while it waits
// on its lock). Within timeoutMs, or an error saying what did not answer; never blocks the job.
MemorySnapshot memoryWindowImage(int timeoutMs, uint64_t maxBytes);

// fork(): the child never touches the parent's file. If the writer was inside SQLite when the
// process forked (and did not leave it within a short wait), the child records nothing.
void writerPrepareFork();
void writerParentAfterFork();
void writerChildAfterFork();

struct WriterStats {
  bool running = false;
  uint64_t eventsWritten = 0;
  uint64_t recordsDrained = 0;
  std::string file;
};
WriterStats writerStats();

}  // namespace bubblescope::agent
