#pragma once
// What the agent learns from its environment: settings (BUBBLESCOPE_*) and identity (the
// launcher's rank variables). Pure functions over a copy of the environment, so every rule
// (which variable names the file, what is refused) is unit-tested without a process.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace bubblescope::agent {

using Environment = std::map<std::string, std::string>;

// The variables the agent reads or records, from `envp` (environ): BUBBLESCOPE_*, the
// launcher's rank and topology variables, NVTX_INJECTION64_PATH.
Environment relevantEnvironment(char** envp);

struct AgentConfig {
  std::filesystem::path outputDir;  // absolute
  bool disabled = false;            // BUBBLESCOPE_DISABLE=1: the agent does nothing
  bool dormant = false;
  bool controlSocket = true;  // BUBBLESCOPE_CONTROL=0: no socket, cannot be attached to
  // BUBBLESCOPE_OPEN_OPS=0: a dormant agent keeps no open ranges (a live `hang` query then
  // sees only NCCL calls). Only matters with a control socket.
  bool openOps = true;
  bool privateFiles = false;  // BUBBLESCOPE_PRIVATE=1: traces 0600 whatever the umask
  std::string runId;
  bool cudaRequested = true;
  std::string cudaNote;
  size_t ringBytes = size_t{1} << 20;
  size_t maxRings = 256;
  bool useTsc = true;
  std::vector<std::string> warnings;  // bad settings, one line each
};

inline constexpr std::string_view kDefaultOutputDir = "bubblescope-run";

// Settings; a relative output directory is taken relative to `cwd`.
AgentConfig configFromEnvironment(const Environment& env, const std::filesystem::path& cwd);

struct Identity {
  int rank = -1;
  std::string rankVariable;  // which variable gave it
  int localRank = -1;
  int worldSize = -1;
  std::vector<std::string> warnings;  // variables refused (not a number)
};

// Rank from RANK, LOCAL_RANK, SLURM_PROCID, OMPI_COMM_WORLD_RANK, PMI_RANK (the first one set
// that is a plain decimal number; others are refused with a warning and never reach a path),
// local rank and world size likewise from their launcher variables.
Identity identityFromEnvironment(const Environment& env);

// "rank-00003.sqlite", or "pid-12345.sqlite" without a rank.
std::string traceFileName(int rank, int64_t pid);

// Facts recorded as meta extra.<NAME>: every BUBBLESCOPE_* variable and the launcher variables.
std::map<std::string, std::string> extraFromEnvironment(const Environment& env);

// A non-negative decimal number of at most 9 digits (so it fits an int and a file name).
bool isPlainNumber(std::string_view text);
bool isTruthy(std::string_view text);

}  // namespace bubblescope::agent
