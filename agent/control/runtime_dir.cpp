#include "agent/control/runtime_dir.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace bubblescope::control {
namespace {

namespace fs = std::filesystem;

fs::path tmpDir(uid_t uid) {
  return fs::path("/tmp") / ("bubblescope-" + std::to_string(uid));
}

void addOnce(std::vector<fs::path>& dirs, const fs::path& dir) {
  for (const fs::path& d : dirs) {
    if (d == dir) return;
  }
  dirs.push_back(dir);
}

}  // namespace

DirEnvironment dirEnvironmentFromProcess() {
  DirEnvironment env;
  if (const char* v = std::getenv("BUBBLESCOPE_RUNTIME_DIR")) env.override = v;
  if (const char* v = std::getenv("XDG_RUNTIME_DIR")) env.xdgRuntimeDir = v;
  return env;
}

std::vector<fs::path> agentRuntimeDirs(const DirEnvironment& env, uid_t uid) {
  if (!env.override.empty()) return {fs::path(env.override).lexically_normal()};
  std::vector<fs::path> dirs;
  if (!env.xdgRuntimeDir.empty() && fs::path(env.xdgRuntimeDir).is_absolute()) {
    dirs.push_back((fs::path(env.xdgRuntimeDir) / "bubblescope").lexically_normal());
  }
  addOnce(dirs, tmpDir(uid));
  return dirs;
}

std::vector<fs::path> clientRuntimeDirs(const DirEnvironment& env, uid_t uid, uid_t self) {
  if (!env.override.empty()) return {fs::path(env.override).lexically_normal()};
  // The client's XDG_RUNTIME_DIR speaks only for its own user.
  std::vector<fs::path> dirs = uid == self ? agentRuntimeDirs(env, uid) : std::vector<fs::path>();
  // An agent started from a login session has XDG_RUNTIME_DIR=/run/user/<uid>, a client in an
  // ssh or batch shell may not (and the reverse): look in both places.
  addOnce(dirs, fs::path("/run/user") / std::to_string(uid) / "bubblescope");
  addOnce(dirs, tmpDir(uid));
  return dirs;
}

std::string socketFileName(int64_t pid) {
  return std::to_string(pid) + ".sock";
}

int64_t pidOfSocketFile(std::string_view name) {
  constexpr std::string_view kSuffix = ".sock";
  if (name.size() <= kSuffix.size() || name.size() > kSuffix.size() + 10 ||
      name.substr(name.size() - kSuffix.size()) != kSuffix) {
    return -1;
  }
  int64_t pid = 0;
  for (const char c : name.substr(0, name.size() - kSuffix.size())) {
    if (c < '0' || c > '9') return -1;
    pid = pid * 10 + (c - '0');
  }
  return pid > 0 ? pid : -1;
}

DirState inspectRuntimeDir(const fs::path& dir, uid_t owner, std::string* why) {
  struct stat st = {};
  if (::lstat(dir.c_str(), &st) != 0) {
    if (errno == ENOENT) return DirState::Missing;
    *why = std::string("cannot be read (") + std::strerror(errno) + ")";
    return DirState::Unsafe;
  }
  if (S_ISLNK(st.st_mode)) {
    *why = "is a symbolic link";
    return DirState::Unsafe;
  }
  if (!S_ISDIR(st.st_mode)) {
    *why = "is not a directory";
    return DirState::Unsafe;
  }
  if (st.st_uid != owner) {
    *why = "is owned by uid " + std::to_string(st.st_uid) + ", not " + std::to_string(owner);
    return DirState::Unsafe;
  }
  if ((st.st_mode & 077) != 0) {
    char mode[16];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    *why = std::string("is open to other users (mode ") + mode + ", needs 0700)";
    return DirState::Unsafe;
  }
  return DirState::Usable;
}

bool prepareRuntimeDir(const fs::path& dir, uid_t owner, std::string* why) {
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    *why = std::string("cannot be created (") + std::strerror(errno) + ")";
    return false;
  }
  const DirState state = inspectRuntimeDir(dir, owner, why);
  if (state == DirState::Missing) *why = "vanished while it was being created";
  return state == DirState::Usable;
}

}  // namespace bubblescope::control
