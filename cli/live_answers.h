#pragma once
// A job spread over several nodes: each node's `bubblescope hang --all --save FILE` keeps the
// answers its processes gave (every field of every reply, as JSON), and `bubblescope hang FILE...`
// reads the files of all nodes as one live job, so the wait-for graph crosses nodes (control
// sockets are local to a node; NCCL communicators are not).
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "agent/control/protocol.h"

namespace bubblescope::cli {

// The top-level "kind" that makes a JSON file saved answers.
inline constexpr const char* kAnswersKind = "hang-answers";

// The file, streamed: {"tool": "bubblescope", "kind": "hang-answers", "host": ..., "min_wait_s":
// ..., "answers": [...]} in that order, one space a level, a newline after. `minWaitSeconds`: the
// --min-wait the answers were taken with, so that reading them later finds the same hang.
void writeAnswersJson(const std::vector<control::Reply>& replies, const std::string& host,
                      double minWaitSeconds, std::ostream& out);
// cli/input_kind.h tells such a file by its top-level "kind", wherever the key is (a file
// re-serialised with sorted keys or without spaces is still one).

struct SavedAnswers {
  std::vector<control::Reply> replies;
  std::optional<double> minWaitSeconds;  // absent in files saved before it was kept
  std::string host;                      // the node that saved them ("" if not said)
};
// The answers of one node, named for messages: the file they were saved in, or the node that
// sent them (cli/hang_nodes.h).
struct NodeAnswers {
  std::string name;
  SavedAnswers answers;
};

// This machine's name, as saved answers say where they were taken.
std::string hostName();
// The replies saved in `path`. Throws TraceError naming the file when it is not such a file.
SavedAnswers readAnswers(const std::filesystem::path& path);
// The replies in `text`, read from `path` (named in the TraceError).
SavedAnswers parseAnswers(std::string_view text, const std::filesystem::path& path);

}  // namespace bubblescope::cli
