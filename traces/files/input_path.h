#pragma once
// The one check every input path goes through before anything opens it: a regular file or a
// directory, told by stat (which never blocks), so a FIFO or a device is refused in one line
// instead of hanging the loader that would open it.
#include <filesystem>

namespace bubblescope::traces {

enum class InputKind { File, Directory };

// What `path` is. Throws TraceError naming it: missing, not readable, or neither a regular file
// nor a directory (a FIFO, a socket, a device).
InputKind checkInputPath(const std::filesystem::path& path);

// The same, but a directory is refused too ("a directory, not a file").
void checkInputFile(const std::filesystem::path& path);

}  // namespace bubblescope::traces
