#pragma once
// The one way anything bubblescope writes for a user reaches its path (reports, exports, imported
// traces, the engine's truth, screenshots): whole or not at all. The bytes go to a temporary file
// beside the target, every write error is reported, and only a complete file is renamed into
// place, and only onto a new path or a regular file, so a device node, FIFO or directory named as
// the output is refused instead of replaced, and a full disk leaves no empty file behind.
#include <filesystem>
#include <functional>
#include <ostream>
#include <string_view>

namespace bubblescope::traces {

// Throws TraceError naming `target` when it exists and is not a regular file (a symbolic link is
// judged by what it points to).
void checkOutputPath(const std::filesystem::path& target);

// Writes what `fill` streams into `target`. Throws TraceError naming `target` (a bad target, a
// write error such as a full disk); then neither `target` nor a temporary file is left changed.
void writeOutputFile(const std::filesystem::path& target,
                     const std::function<void(std::ostream&)>& fill);
void writeOutputFile(const std::filesystem::path& target, std::string_view bytes);

// Moves a complete file a writer made elsewhere in the same directory (an imported trace) onto
// `target`, with the same rules. On failure `temp` is removed.
void publishOutputFile(const std::filesystem::path& temp, const std::filesystem::path& target);

}  // namespace bubblescope::traces
