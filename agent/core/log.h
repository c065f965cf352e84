#pragma once
// The agent's only output: one line per problem on stderr, prefixed "bubblescope:", each problem
// at most once per process. It runs inside someone else's job and must not flood its logs.
#include <cstdint>

namespace bubblescope::agent {

enum class Problem : uint8_t {
  BadLauncherVariable,  // a rank variable that is not a number
  OtherNvtxTool,        // NVTX_INJECTION64_PATH names another tool
  OutputUnwritable,     // cannot create the directory or the trace file
  WriteFailed,          // disk full or I/O error while recording
  FileExists,           // the trace file name was taken: another name is used
  TraceClosed,          // the job closed the trace's descriptors: a next part goes on
  ForkDuringWrite,      // a child forked while the writer was busy is not recorded
  ShutdownTimeout,      // the final flush did not finish in time
  ControlMessage,       // a malformed control mark
  CudaCaptureOff,       // CUPTI cannot be used: CUDA capture is off, the rest goes on
  NcclUnresolved,       // an NCCL call whose real library cannot be found
  ControlUnavailable,   // no control socket (directory unsafe or unusable): attach is off
  ControlRefused,       // a control connection from another user was refused
  WatchEnded,           // a memory window could not be written and ended (watch goes on later)
  Internal,             // anything unexpected: capture stops, the job goes on
  kCount
};

// Prints "bubblescope: <message>" once for this problem; later calls are ignored.
void warnOnce(Problem problem, const char* format, ...) __attribute__((format(printf, 2, 3)));

}  // namespace bubblescope::agent
