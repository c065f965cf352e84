// `bubblescope record [-o DIR] [--dormant] [--private] [--cuda on|off] [--hang-timeout SEC]
// [--watch ...] -- CMD ARGS...`: runs CMD
// with the capture agent injected through the environment, so every process CMD starts (torchrun's
// or mpirun's workers included) records its NVTX ranges into DIR/rank-NNNNN.sqlite. The exit code
// is CMD's (128 + signal if a signal ended it). docs/agent.md lists the variables it sets.
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cli/cmd_record.h"
#include "cli/exit_codes.h"
#include "cli/hang_watch.h"
#include "cli/record_watch.h"
#include "cli/usage_error.h"
#include "traces/sqlite/sqlite_db.h"

extern char** environ;

namespace bubblescope::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kAgentFile = "libbubblescope-agent.so";
constexpr const char* kCudaDriver = "libcuda.so.1";

std::atomic<pid_t> g_child{0};

// SIGINT/SIGTERM sent to `record` alone (kill, a scheduler) go on to the command. A terminal's
// Ctrl-C reached the command already (same process group), so it is not sent twice.
void forwardSignal(int sig, siginfo_t* info, void*) {
  if (info != nullptr && info->si_code == SI_KERNEL) return;
  const pid_t child = g_child.load();
  if (child > 0 && (info == nullptr || info->si_pid != child)) kill(child, sig);
}

std::string timestamp(const char* format) {
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char buf[64];
  std::strftime(buf, sizeof buf, format, &local);
  return buf;
}

std::string newRunId() {
  unsigned char bytes[6] = {};
  if (getrandom(bytes, sizeof bytes, 0) != static_cast<ssize_t>(sizeof bytes)) {
    const auto seed = static_cast<unsigned>(std::time(nullptr)) ^ static_cast<unsigned>(getpid());
    for (size_t i = 0; i < sizeof bytes; ++i)
      bytes[i] = static_cast<unsigned char>(seed >> (i * 5));
  }
  std::string id = timestamp("%Y%m%dT%H%M%S") + "-";
  static const char* hex = "0123456789abcdef";
  for (unsigned char b : bytes) {
    id += hex[b >> 4];
    id += hex[b & 15];
  }
  return id;
}

bool isExecutableFile(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && access(p.c_str(), X_OK) == 0;
}

// The program execvp would run, or nothing.
std::optional<fs::path> findCommand(const std::string& name) {
  if (name.find('/') != std::string::npos) {
    if (isExecutableFile(name)) return fs::absolute(name);
    return std::nullopt;
  }
  const char* path = std::getenv("PATH");
  const std::string dirs = path != nullptr && *path != '\0' ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t begin = 0;
  while (begin <= dirs.size()) {
    const size_t colon = dirs.find(':', begin);
    const std::string dir = dirs.substr(begin, colon == std::string::npos ? colon : colon - begin);
    const fs::path candidate = fs::path(dir.empty() ? "." : dir) / name;
    if (isExecutableFile(candidate)) return candidate;
    if (colon == std::string::npos) break;
    begin = colon + 1;
  }
  return std::nullopt;
}

// BUBBLESCOPE_AGENT, else ../lib/bubblescope/ beside this program (the build tree mirrors an
// installation).
fs::path findAgent() {
  if (const char* forced = std::getenv("BUBBLESCOPE_AGENT"); forced != nullptr && *forced) {
    if (!fs::exists(forced)) {
      throw UsageError(std::string("BUBBLESCOPE_AGENT names a missing file: ") + forced);
    }
    return fs::absolute(forced);
  }
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  const fs::path agent =
      (self.parent_path() / ".." / "lib" / "bubblescope" / kAgentFile).lexically_normal();
  if (ec || !fs::exists(agent)) {
    throw std::runtime_error("the capture agent is missing (looked for " + agent.string() +
                             "); set BUBBLESCOPE_AGENT to libbubblescope-agent.so");
  }
  return agent;
}

bool cudaDriverLoads() {
  void* driver = dlopen(kCudaDriver, RTLD_LAZY | RTLD_LOCAL);
  if (driver == nullptr) return false;
  dlclose(driver);
  return true;
}

// Creates the output directory (ownerOnly: 0700, so the hang report is private too); false (with
// the reason) if it cannot be written.
bool prepareOutput(const fs::path& dir, bool ownerOnly, std::string* why) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (!ec && ownerOnly) fs::permissions(dir, fs::perms::owner_all, ec);
  if (ec) {
    *why = ec.message();
    return false;
  }
  if (access(dir.c_str(), W_OK | X_OK) != 0) {
    *why = std::strerror(errno);
    return false;
  }
  return true;
}

fs::path defaultOutput() {
  const std::string base = "bubblescope-run-" + timestamp("%Y%m%d-%H%M%S");
  fs::path dir = base;
  for (int n = 2; fs::exists(dir); ++n) dir = base + "-" + std::to_string(n);
  return fs::absolute(dir);
}

using Env = std::map<std::string, std::string>;

Env currentEnvironment() {
  Env env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string kv = *e;
    const size_t eq = kv.find('=');
    if (eq != std::string::npos) env[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  return env;
}

// The user's command as a shell would take it back: reports show it instead of whatever
// worker command line each process of the job ended up with.
std::string shellJoin(const std::vector<std::string>& argv) {
  std::string out;
  for (const std::string& a : argv) {
    if (!out.empty()) out += ' ';
    const bool plain = !a.empty() && a.find_first_not_of(
                                         "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN"
                                         "OPQRSTUVWXYZ0123456789_-+=.,:/@%") == std::string::npos;
    if (plain) {
      out += a;
      continue;
    }
    out += '\'';
    for (char c : a) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    out += '\'';
  }
  return out;
}

void injectAgent(Env& env, const fs::path& agent, const fs::path& output, const RecordArgs& args,
                 const std::string& cudaNote) {
  const std::string lib = agent.string();
  std::string& preload = env["LD_PRELOAD"];
  if (preload.find(lib) == std::string::npos) preload = preload.empty() ? lib : lib + ":" + preload;
  if (auto it = env.find("NVTX_INJECTION64_PATH");
      it != env.end() && !it->second.empty() && it->second != lib) {
    std::cerr << "bubblescope: NVTX_INJECTION64_PATH was " << it->second
              << ": the agent replaces it for this command\n";
  }
  env["NVTX_INJECTION64_PATH"] = lib;
  env["BUBBLESCOPE_OUTPUT_DIR"] = output.string();
  env["BUBBLESCOPE_RUN_ID"] = newRunId();
  env["BUBBLESCOPE_DORMANT"] = args.dormant ? "1" : "0";
  // Without --private a BUBBLESCOPE_PRIVATE the user set stays: privacy is never taken away.
  if (args.privateFiles) env["BUBBLESCOPE_PRIVATE"] = "1";
  env["BUBBLESCOPE_COMMAND"] = shellJoin(args.command);
  env["BUBBLESCOPE_CUDA"] = cudaNote.empty() ? "on" : "off";
  if (cudaNote.empty()) {
    env.erase("BUBBLESCOPE_CUDA_NOTE");
  } else {
    env["BUBBLESCOPE_CUDA_NOTE"] = cudaNote;
  }
}

// Runs the command, forwarding SIGINT/SIGTERM; returns its exit code (128 + signal if killed).
int runCommand(const fs::path& program, const std::vector<std::string>& argv, const Env& env) {
  std::vector<std::string> envStrings;
  for (const auto& [k, v] : env) envStrings.push_back(k + "=" + v);
  std::vector<char*> envp, args;
  for (auto& s : envStrings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> argvCopy = argv;
  for (auto& a : argvCopy) args.push_back(a.data());
  args.push_back(nullptr);
  std::string programPath = program.string();

  // A pipe closed by a successful exec: the child writes errno into it if exec fails.
  int execStatus[2];
  if (pipe2(execStatus, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");

  struct sigaction forward = {};
  forward.sa_sigaction = &forwardSignal;
  forward.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&forward.sa_mask);
  struct sigaction oldInt = {}, oldTerm = {};
  sigaction(SIGINT, &forward, &oldInt);
  sigaction(SIGTERM, &forward, &oldTerm);

  const pid_t child = fork();
  if (child < 0) throw std::runtime_error(std::string("fork failed: ") + std::strerror(errno));
  if (child == 0) {
    struct sigaction dfl = {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    // The command gets the dispositions `record` was given (ignored stays ignored).
    sigaction(SIGINT, oldInt.sa_handler == SIG_IGN ? &oldInt : &dfl, nullptr);
    sigaction(SIGTERM, oldTerm.sa_handler == SIG_IGN ? &oldTerm : &dfl, nullptr);
    execve(programPath.c_str(), args.data(), envp.data());
    if (errno == ENOEXEC) {  // a script without #!: run it with sh, as execvp does
      std::vector<char*> sh = {const_cast<char*>("/bin/sh"), programPath.data()};
      sh.insert(sh.end(), args.begin() + 1, args.end());
      execve("/bin/sh", sh.data(), envp.data());
    }
    const int err = errno;
    ssize_t ignored = write(execStatus[1], &err, sizeof err);
    (void)ignored;
    _exit(127);
  }
  g_child.store(child);
  close(execStatus[1]);
  int execErrno = 0;
  ssize_t got;
  while ((got = read(execStatus[0], &execErrno, sizeof execErrno)) < 0 && errno == EINTR) {
  }
  close(execStatus[0]);

  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  g_child.store(0);
  sigaction(SIGINT, &oldInt, nullptr);
  sigaction(SIGTERM, &oldTerm, nullptr);
  if (got == static_cast<ssize_t>(sizeof execErrno)) {
    throw UsageError("cannot run " + argv[0] + ": " + std::strerror(execErrno));
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return kInternalError;
}

std::set<std::string> traceNames(const fs::path& dir) {
  std::set<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".sqlite") names.insert(entry.path().filename().string());
  }
  return names;
}

// What a file of the run holds. One without its meta table (a process killed while making it)
// would not load, and counting it would promise a run that `analyze` refuses; a later part of a
// process's trace (the job closed the descriptors of the first) is not another process.
enum class FileKind { NoTrace, Trace, LaterPart };

FileKind kindOf(const fs::path& file) {
  try {
    traces::sqlite::Database db(file, traces::sqlite::Database::Mode::ReadOnly);
    if (!db.hasTable("meta")) return FileKind::NoTrace;
    auto st = db.prepare("SELECT 1 FROM meta WHERE key = 'extra.continues'");
    return st.step() ? FileKind::LaterPart : FileKind::Trace;
  } catch (const std::exception&) {
    return FileKind::NoTrace;
  }
}

// One line saying where the traces of this run went (files that were there before are not
// counted), and one naming a file of this run that holds no trace.
void reportTraces(const fs::path& dir, bool createdDir, const std::set<std::string>& before) {
  int ranks = 0, others = 0, parts = 0;
  std::vector<std::string> unfinished;
  std::error_code ec;
  for (const std::string& name : traceNames(dir)) {
    if (before.count(name) != 0) continue;
    const FileKind kind = kindOf(dir / name);
    if (kind == FileKind::NoTrace) {
      unfinished.push_back(name);
    } else if (kind == FileKind::LaterPart) {
      ++parts;
    } else {
      (name.rfind("rank-", 0) == 0 && name.find(".pid-") == std::string::npos ? ranks : others)++;
    }
  }
  if (!unfinished.empty()) {
    std::cerr << "bubblescope: " << (dir / unfinished.front()).string();
    if (unfinished.size() > 1) std::cerr << " (and " << unfinished.size() - 1 << " more)";
    std::cerr << " holds no trace (no meta table): not counted; remove it before 'bubblescope "
                 "analyze'\n";
  }
  if (ranks + others == 0) {
    std::cerr << "bubblescope: nothing was recorded";
    if (unfinished.empty()) std::cerr << " (no process emitted NVTX ranges)";
    if (createdDir && fs::is_empty(dir, ec) && fs::remove(dir, ec)) {
      std::cerr << "\n";
    } else {
      std::cerr << "; " << dir.string() << " holds no trace\n";
    }
    return;
  }
  auto count = [](int n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
  };
  std::cerr << "bubblescope: traces in " << dir.string() << ": ";
  if (ranks > 0) {
    std::cerr << count(ranks, "rank", "ranks");
    if (others > 0) std::cerr << " and " << count(others, "other process", "other processes");
  } else {
    std::cerr << count(others, "process", "processes") << " (no launcher rank)";
  }
  if (parts > 0) std::cerr << " in " << count(ranks + others + parts, "file", "files");
  if (!before.empty()) {
    std::cerr << " (beside "
              << count(static_cast<int>(before.size()), "earlier trace", "earlier traces") << ")";
  }
  std::cerr << "\n";
}

}  // namespace

int runRecord(const RecordArgs& args, bool sawSeparator) {
  if (!sawSeparator) {
    throw UsageError("put '--' before the command: bubblescope record [-o DIR] -- CMD ARGS...");
  }
  if (args.command.empty()) {
    throw UsageError("no command to record: bubblescope record [-o DIR] -- CMD ARGS...");
  }
  const auto program = findCommand(args.command.front());
  if (!program) {
    // A path to something that is there but cannot be run is not "not found".
    const std::string& name = args.command.front();
    std::error_code ec;
    if (name.find('/') != std::string::npos && fs::exists(name, ec)) {
      throw UsageError(name + ": cannot be run (" +
                       (fs::is_directory(name, ec) ? "a directory" : "not executable") + ")");
    }
    throw UsageError("command not found: " + name);
  }
  if (!args.watch &&
      (!args.live.prometheus.empty() || !args.live.listen.empty() || args.live.keepSeconds > 0)) {
    throw UsageError(
        "--prometheus, --listen and --keep are for --watch: bubblescope record --watch "
        "[--prometheus FILE] -- CMD ARGS...");
  }
  if (args.watch) checkRecordWatch(args.live);
  fs::path agent;
  try {
    agent = findAgent();
  } catch (const std::runtime_error& e) {
    std::cerr << "bubblescope: " << e.what() << "\n";
    return kInternalError;
  }

  const bool createdDir = args.output.empty() || !fs::exists(args.output);
  const fs::path output = args.output.empty() ? defaultOutput() : fs::absolute(args.output);
  std::string why;
  Env env = currentEnvironment();
  const bool writable = prepareOutput(output, createdDir && args.privateFiles, &why);
  if (!writable) {
    std::cerr << "bubblescope: cannot write to " << output.string() << " (" << why
              << "): the command runs without capture\n";
  } else {
    std::string cudaNote;
    if (args.cuda == "off") {
      cudaNote = "CUDA capture turned off (--cuda off)";
    } else if (!cudaDriverLoads()) {
      cudaNote = "no CUDA driver (libcuda.so.1 cannot be loaded)";
      std::cerr << "bubblescope: no CUDA driver (" << kCudaDriver
                << " cannot be loaded): CUDA capture is off, NVTX and NCCL capture go on\n";
    }
    injectAgent(env, agent, output, args, cudaNote);
    if (args.dormant) {
      const std::string& run = env["BUBBLESCOPE_RUN_ID"];
      std::cerr << "bubblescope: dormant: nothing is recorded until 'bubblescope attach --all "
                << "--run-id " << run << " --steps N' (or --duration SECONDS)\n";
    }
  }
  const std::set<std::string> before = writable ? traceNames(output) : std::set<std::string>();
  std::optional<HangWatch> watch;
  if (writable && args.hangTimeout > 0) {
    // Dormant, the agents write nothing to watch: they are asked where they are instead.
    watch.emplace(output, args.hangTimeout, before,
                  args.dormant ? env["BUBBLESCOPE_RUN_ID"] : std::string());
  }
  // Its own agents, by the run id (no agent, nothing to watch: the line above said so).
  std::optional<RecordWatch> live;
  if (writable && args.watch) live.emplace(args.live, env["BUBBLESCOPE_RUN_ID"]);
  const int code = runCommand(*program, args.command, env);
  live.reset();  // the job's end is the watch's last line
  watch.reset();
  if (writable) reportTraces(output, createdDir, before);
  return code;
}

}  // namespace bubblescope::cli
