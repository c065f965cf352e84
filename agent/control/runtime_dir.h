#pragma once
// Where control sockets live: `<pid>.sock` in one directory per user, mode 0700, owned by that
// user. The agent creates its socket there; the client scans it. A directory that is a link,
// owned by someone else or open to group/others is never used (docs/agent.md, "Security").
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace bubblescope::control {

// The variables that choose the directory: BUBBLESCOPE_RUNTIME_DIR, XDG_RUNTIME_DIR.
struct DirEnvironment {
  std::string override;
  std::string xdgRuntimeDir;
};
DirEnvironment dirEnvironmentFromProcess();

// The agent's choices, best first: the override alone if set; else $XDG_RUNTIME_DIR/bubblescope
// (when set and absolute), then /tmp/bubblescope-<uid>. Pure.
std::vector<std::filesystem::path> agentRuntimeDirs(const DirEnvironment& env, uid_t uid);
// Where a client looks for the sockets of `uid`: every directory an agent of that user may have
// chosen (its environment may differ from the client's). Pure.
std::vector<std::filesystem::path> clientRuntimeDirs(const DirEnvironment& env, uid_t uid,
                                                     uid_t self);

std::string socketFileName(int64_t pid);         // "1234.sock"
int64_t pidOfSocketFile(std::string_view name);  // 1234 for "1234.sock", else -1

// sun_path holds 108 bytes with its NUL.
inline constexpr size_t kMaxSocketPath = 107;

enum class DirState { Usable, Missing, Unsafe };
// A real directory (not a link), owned by `owner`, without group or other permissions. `why`
// says what is wrong with an unsafe one, in words ("is open to other users (mode 0755)").
DirState inspectRuntimeDir(const std::filesystem::path& dir, uid_t owner, std::string* why);
// The agent's side: creates the directory (0700) if missing, then inspects it.
bool prepareRuntimeDir(const std::filesystem::path& dir, uid_t owner, std::string* why);

}  // namespace bubblescope::control
