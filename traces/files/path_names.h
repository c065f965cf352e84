#pragma once
// Two files named in one message by as much of their paths as tells them apart: a message that
// says "rank-00000.sqlite and rank-00000.sqlite" names one file twice when two directories each
// hold one. Pure: paths as given, nothing is looked up on disk.
#include <filesystem>
#include <string>
#include <utility>

namespace bubblescope::traces {

// The shortest trailing parts of `a` and `b` that differ ("rank-00000.sqlite" and
// "rank-00001.sqlite"; "a/rank-00000.sqlite" and "b/rank-00000.sqlite"); the paths whole when one
// ends the other, or they are one path.
std::pair<std::string, std::string> distinctNames(const std::filesystem::path& a,
                                                  const std::filesystem::path& b);

}  // namespace bubblescope::traces
