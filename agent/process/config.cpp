#include "agent/process/config.h"

#include <array>
#include <charconv>
#include <cstdio>

namespace bubblescope::agent {
namespace {

constexpr std::array kRankVariables = {"RANK", "LOCAL_RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK",
                                       "PMI_RANK"};
constexpr std::array kLocalRankVariables = {"LOCAL_RANK", "SLURM_LOCALID",
                                            "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
                                            "PMI_LOCAL_RANK"};
constexpr std::array kWorldSizeVariables = {"WORLD_SIZE", "SLURM_NTASKS", "OMPI_COMM_WORLD_SIZE",
                                            "PMI_SIZE"};
// Launcher and topology facts worth keeping in the file (besides BUBBLESCOPE_*).
constexpr std::array kLauncherVariables = {"RANK",
                                           "LOCAL_RANK",
                                           "WORLD_SIZE",
                                           "LOCAL_WORLD_SIZE",
                                           "GROUP_RANK",
                                           "ROLE_RANK",
                                           "NODE_RANK",
                                           "MASTER_ADDR",
                                           "MASTER_PORT",
                                           "TORCHELASTIC_RUN_ID",
                                           "TORCHELASTIC_RESTART_COUNT",
                                           "SLURM_PROCID",
                                           "SLURM_LOCALID",
                                           "SLURM_NTASKS",
                                           "SLURM_NODEID",
                                           "SLURM_JOB_ID",
                                           "SLURM_STEP_ID",
                                           "SLURMD_NODENAME",
                                           "OMPI_COMM_WORLD_RANK",
                                           "OMPI_COMM_WORLD_SIZE",
                                           "OMPI_COMM_WORLD_LOCAL_RANK",
                                           "OMPI_COMM_WORLD_LOCAL_SIZE",
                                           "PMI_RANK",
                                           "PMI_SIZE",
                                           "PMI_LOCAL_RANK",
                                           "MPI_LOCALRANKID",
                                           "CUDA_VISIBLE_DEVICES"};

constexpr std::string_view kPrefix = "BUBBLESCOPE_";

const std::string* find(const Environment& env, std::string_view name) {
  auto it = env.find(std::string(name));
  return it == env.end() ? nullptr : &it->second;
}

int toInt(std::string_view text) {
  int v = 0;
  std::from_chars(text.data(), text.data() + text.size(), v);
  return v;
}

// The first variable of `names` that is set and non-empty; refused ones are reported.
template <size_t N>
int firstNumber(const Environment& env, const std::array<const char*, N>& names, std::string* from,
                std::vector<std::string>* refused) {
  for (const char* name : names) {
    const std::string* value = find(env, name);
    if (value == nullptr || value->empty()) continue;
    if (isPlainNumber(*value)) {
      if (from != nullptr) *from = name;
      return toInt(*value);
    }
    // Quote at most a short, printable prefix: the value is untrusted.
    std::string shown;
    for (char c : value->substr(0, 32)) shown += (c >= 0x20 && c < 0x7f) ? c : '?';
    refused->push_back(std::string(name) + "='" + shown + "'");
  }
  return -1;
}

size_t sizeSetting(const Environment& env, const char* name, size_t fallback, size_t lo, size_t hi,
                   std::vector<std::string>* warnings) {
  const std::string* value = find(env, name);
  if (value == nullptr || value->empty()) return fallback;
  size_t v = 0;
  const auto [ptr, ec] = std::from_chars(value->data(), value->data() + value->size(), v);
  if (ec != std::errc() || ptr != value->data() + value->size() || v < lo || v > hi) {
    warnings->push_back("ignoring " + std::string(name) + "='" + value->substr(0, 32) +
                        "' (expected a number from " + std::to_string(lo) + " to " +
                        std::to_string(hi) + ")");
    return fallback;
  }
  return v;
}

// An on/off setting. A value that is neither (BUBBLESCOPE_DORMANT=maybe) keeps the default, with
// one warning: silently reading it as "off" hid typos.
bool switchSetting(const Environment& env, const char* name, bool fallback,
                   std::vector<std::string>* warnings) {
  const std::string* value = find(env, name);
  if (value == nullptr || value->empty()) return fallback;
  if (isTruthy(*value)) return true;
  for (const char* no : {"0", "false", "no", "off", "FALSE", "NO", "OFF"}) {
    if (*value == no) return false;
  }
  std::string shown;
  for (char c : value->substr(0, 32)) shown += (c >= 0x20 && c < 0x7f) ? c : '?';
  warnings->push_back("ignoring " + std::string(name) + "='" + shown +
                      "' (1 or 0, on or off: " + (fallback ? "on" : "off") + " it stays)");
  return fallback;
}

}  // namespace

bool isPlainNumber(std::string_view text) {
  if (text.empty() || text.size() > 9) return false;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

bool isTruthy(std::string_view text) {
  return text == "1" || text == "true" || text == "yes" || text == "on" || text == "TRUE" ||
         text == "YES" || text == "ON";
}

Environment relevantEnvironment(char** envp) {
  Environment env;
  if (envp == nullptr) return env;
  for (char** e = envp; *e != nullptr; ++e) {
    const std::string_view kv(*e);
    const size_t eq = kv.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string_view name = kv.substr(0, eq);
    bool keep = name.substr(0, kPrefix.size()) == kPrefix || name == "NVTX_INJECTION64_PATH";
    for (const char* v : kLauncherVariables) keep = keep || name == v;
    for (const char* v : kRankVariables) keep = keep || name == v;
    for (const char* v : kLocalRankVariables) keep = keep || name == v;
    for (const char* v : kWorldSizeVariables) keep = keep || name == v;
    if (keep) env.emplace(std::string(name), std::string(kv.substr(eq + 1)));
  }
  return env;
}

AgentConfig configFromEnvironment(const Environment& env, const std::filesystem::path& cwd) {
  AgentConfig c;
  const std::string* dir = find(env, "BUBBLESCOPE_OUTPUT_DIR");
  std::filesystem::path out = dir != nullptr && !dir->empty()
                                  ? std::filesystem::path(*dir)
                                  : std::filesystem::path(kDefaultOutputDir);
  c.outputDir = out.is_absolute() ? out : cwd / out;
  c.disabled = switchSetting(env, "BUBBLESCOPE_DISABLE", false, &c.warnings);
  c.dormant = switchSetting(env, "BUBBLESCOPE_DORMANT", false, &c.warnings);
  c.controlSocket = switchSetting(env, "BUBBLESCOPE_CONTROL", true, &c.warnings);
  c.openOps = switchSetting(env, "BUBBLESCOPE_OPEN_OPS", true, &c.warnings);
  c.privateFiles = switchSetting(env, "BUBBLESCOPE_PRIVATE", false, &c.warnings);
  if (const std::string* v = find(env, "BUBBLESCOPE_RUN_ID")) c.runId = *v;
  if (const std::string* v = find(env, "BUBBLESCOPE_CUDA"))
    c.cudaRequested = *v != "off" && *v != "0";
  if (const std::string* v = find(env, "BUBBLESCOPE_CUDA_NOTE")) c.cudaNote = *v;
  if (c.cudaNote.empty()) {
    c.cudaNote = c.cudaRequested ? "CUDA was not initialised in this process"
                                 : "CUDA capture turned off (--cuda off)";
  }
  c.ringBytes = sizeSetting(env, "BUBBLESCOPE_BUFFER_KB", 1024, 16, 1 << 20, &c.warnings) * 1024;
  c.maxRings = sizeSetting(env, "BUBBLESCOPE_MAX_THREADS", 256, 1, 65536, &c.warnings);
  if (const std::string* v = find(env, "BUBBLESCOPE_CLOCK")) {
    if (*v == "realtime") {
      c.useTsc = false;
    } else if (*v != "tsc" && *v != "auto" && !v->empty()) {
      c.warnings.push_back("ignoring BUBBLESCOPE_CLOCK='" + v->substr(0, 32) +
                           "' (auto, tsc or realtime)");
    }
  }
  return c;
}

Identity identityFromEnvironment(const Environment& env) {
  Identity id;
  std::vector<std::string> refused;
  id.rank = firstNumber(env, kRankVariables, &id.rankVariable, &refused);
  id.localRank = firstNumber(env, kLocalRankVariables, nullptr, &refused);
  id.worldSize = firstNumber(env, kWorldSizeVariables, nullptr, &refused);
  if (!refused.empty()) {
    std::string line = "ignoring ";
    for (size_t i = 0; i < refused.size(); ++i) line += (i == 0 ? "" : ", ") + refused[i];
    line += refused.size() == 1 ? " (not a number)" : " (not numbers)";
    line += id.rank >= 0 ? ": rank " + std::to_string(id.rank) + " from " + id.rankVariable
                         : ": the trace is named by process id";
    id.warnings.push_back(line);
  }
  return id;
}

std::string traceFileName(int rank, int64_t pid) {
  char name[64];
  if (rank >= 0) {
    std::snprintf(name, sizeof name, "rank-%05d.sqlite", rank);
  } else {
    std::snprintf(name, sizeof name, "pid-%lld.sqlite", static_cast<long long>(pid));
  }
  return name;
}

std::map<std::string, std::string> extraFromEnvironment(const Environment& env) {
  std::map<std::string, std::string> extra;
  for (const auto& [name, value] : env) {
    bool keep = std::string_view(name).substr(0, kPrefix.size()) == kPrefix;
    for (const char* v : kLauncherVariables) keep = keep || name == v;
    if (keep) extra[name] = value;
  }
  return extra;
}

}  // namespace bubblescope::agent
