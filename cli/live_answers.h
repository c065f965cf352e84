#pragma once
// A job spread over several nodes: each node's `bubblescope hang --all --save FILE` keeps the
// answers its processes gave (every field of every reply, as JSON), and `bubblescope hang FILE...`
// reads the files of all nodes as one live job, so the wait-for graph crosses nodes (control
// sockets are local to a node; NCCL communicators are not).
#include <filesystem>
#include <string>
#include <vector>

#include "agent/control/protocol.h"

namespace bubblescope::cli {

// The file's text: {"tool": "bubblescope", "kind": "hang-answers", "host": ..., "answers": [...]}.
std::string answersJson(const std::vector<control::Reply>& replies, const std::string& host);
// Whether `path` is such a file (a regular file whose first bytes say so). Never throws.
bool isAnswersFile(const std::filesystem::path& path);
// The replies saved in `path`. Throws TraceError naming the file when it is not such a file.
std::vector<control::Reply> readAnswers(const std::filesystem::path& path);

}  // namespace bubblescope::cli
