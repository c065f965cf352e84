#pragma once
// Whether the node's CPUs had time to spare, from the kernel's counters (/proc/stat): a live watch
// parses its snapshots and analyses its steps in Linux's idle class only then
// (cli/yielding_work.h).
#include <cstdint>
#include <optional>
#include <string_view>

namespace bubblescope::cli {

// The node's CPU time so far, all CPUs together, in the kernel's ticks.
struct CpuTimes {
  uint64_t idle = 0;   // idle and waiting for I/O
  uint64_t total = 0;  // every state
};

// /proc/stat's first line ("cpu  user nice system idle iowait irq softirq steal ..."); none when it
// is not one.
std::optional<CpuTimes> parseCpuLine(std::string_view line);

// The node's, now; none where /proc/stat cannot be read.
std::optional<CpuTimes> readCpuTimes();

// Whether, between two readings, the node's `cores` CPUs were idle for at least half of one
// core's time. None when too little time passed between them to say (under 5 ticks a core).
std::optional<bool> hadIdleCpu(const CpuTimes& before, const CpuTimes& after, unsigned cores);

}  // namespace bubblescope::cli
