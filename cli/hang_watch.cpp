#include "cli/hang_watch.h"

#include <time.h>

#include <algorithm>
#include <functional>
#include <iostream>
#include <vector>

#include "analyzer/hang/hang_analysis.h"
#include "analyzer/hang/hang_output.h"
#include "cli/attach_session.h"
#include "cli/live_query.h"
#include "traces/files/output_file.h"
#include "traces/sqlite/run_reader.h"
#include "traces/sqlite/sqlite_db.h"

namespace bubblescope::cli {
namespace {

namespace fs = std::filesystem;

int64_t monotonicNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace

bool StallClock::stalled(int64_t nowNs, int64_t progress) {
  if (progress != progress_) {
    progress_ = progress;
    since_ = nowNs;
    return false;
  }
  return progress_ > 0 && nowNs - since_ >= timeoutNs_;
}

HangWatch::HangWatch(fs::path dir, double timeoutSeconds, std::set<std::string> ignore,
                     std::string liveRunId)
    : dir_(std::move(dir)),
      timeoutSeconds_(timeoutSeconds),
      ignore_(std::move(ignore)),
      liveRunId_(std::move(liveRunId)) {
  thread_ = std::thread([this] { run(); });
}

HangWatch::~HangWatch() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

// Rows of finished ranges and NCCL calls over every trace of the job: it grows while any rank
// finishes an op (the agents commit at least every 200 ms).
int64_t HangWatch::progress() const {
  int64_t total = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir_, ec)) {
    if (entry.path().extension() != ".sqlite" || ignore_.count(entry.path().filename().string())) {
      continue;
    }
    try {
      traces::sqlite::Database db(entry.path(), traces::sqlite::Database::Mode::ReadOnly);
      auto st = db.prepare(
          "SELECT (SELECT ifnull(max(rowid), 0) FROM nvtx_ranges) + "
          "(SELECT ifnull(max(rowid), 0) FROM nccl_calls)");
      if (st.step()) total += st.int64(0);
    } catch (const std::exception&) {
      // A file being created: counted at the next look.
    }
  }
  return total;
}

// A dormant job: where every process is now (open ranges, NCCL calls made). It changes while any
// rank moves; the value is a fingerprint of it (0 until a process answers).
int64_t HangWatch::liveProgress() {
  Problems quiet;
  quiet.quiet = true;
  lastAnswers_ = askProcesses(true, {}, liveRunId_, quiet).ranks;
  uint64_t h = 1469598103934665603ull;  // FNV-1a over what moves
  auto mix = [&h](uint64_t v) { h = (h ^ v) * 1099511628211ull; };
  for (const LiveRank& r : lastAnswers_) {
    mix(static_cast<uint64_t>(r.status.pid));
    for (const auto& o : r.snapshot.ranges) {
      mix(o.tid);
      mix(static_cast<uint64_t>(o.startNs));
      mix(std::hash<std::string>()(o.name));
    }
    for (const auto& c : r.snapshot.counts) mix(c.calls);
  }
  return lastAnswers_.empty() ? 0 : static_cast<int64_t>(h >> 1) | 1;
}

void HangWatch::writeReport(const analysis::hang::HangReport& rep) {
  traces::writeOutputFile(dir_ / "hang.txt",
                          [&](std::ostream& out) { analysis::hang::printHangReport(rep, out); });
  traces::writeOutputFile(dir_ / "hang.json", [&](std::ostream& out) {
    analysis::hang::writeHangReportJson(rep, out);
    out << "\n";
  });
  std::cerr << "bubblescope: no rank has finished an op for " << timeoutSeconds_
            << " s: hang report in " << (dir_ / "hang.txt").string() << " (" << rep.diagnosis
            << "); the job is left running\n";
}

void HangWatch::report() {
  traces::Run run;
  if (!liveRunId_.empty()) {
    // Nothing has moved for the timeout: every wait is at least that old.
    run = analysis::hang::liveRun(lastAnswers_, static_cast<int64_t>(timeoutSeconds_ * 0.5e9));
  } else {
    std::vector<fs::path> files;
    for (const fs::path& f : traces::findTraceFiles(dir_)) {
      if (!ignore_.count(f.filename().string())) files.push_back(f);
    }
    run = traces::readRunFiles(files);
  }
  writeReport(analysis::hang::analyzeHang(run));
}

void HangWatch::run() {
  StallClock clock(timeoutSeconds_);
  // Look a few times per timeout, at most every second.
  const auto every = std::chrono::milliseconds(
      static_cast<int64_t>(std::min(1000.0, std::max(50.0, timeoutSeconds_ * 250))));
  std::unique_lock lock(mutex_);
  while (!stop_) {
    wake_.wait_for(lock, every, [this] { return stop_; });
    if (stop_) return;
    lock.unlock();
    bool done = false;
    try {
      if (clock.stalled(monotonicNs(), liveRunId_.empty() ? progress() : liveProgress())) {
        report();
        done = true;
      }
    } catch (const std::exception& e) {
      std::cerr << "bubblescope: --hang-timeout: cannot write the hang report: " << e.what()
                << "\n";
      done = true;
    }
    lock.lock();
    if (done) return;  // once
  }
}

}  // namespace bubblescope::cli
