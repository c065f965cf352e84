#pragma once
// Helpers for the agent's integration tests: run the test program under `bubblescope record`
// (or the agent preloaded by hand) and read what it wrote, through the reader and raw SQL.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "tests/support/subprocess.h"

namespace bubblescope::testing {

inline constexpr const char* kTestApp = NVTX_TEST_APP;
inline constexpr const char* kAgentLibrary = AGENT_LIBRARY;

// Options for a child that sees none of the launcher's rank variables of the machine running the
// tests, nor an agent or NVTX/CUDA tool of its own: only `env`.
ProcessOptions cleanEnv(std::map<std::string, std::string> env = {});

// `bubblescope record -o dir [extra...] -- nvtx_test_app appArgs...`
ProcessResult recordApp(const std::filesystem::path& dir, const std::vector<std::string>& appArgs,
                        const std::vector<std::string>& recordOptions = {},
                        ProcessOptions options = {});

// The *.sqlite files of a directory, sorted by name.
std::vector<std::filesystem::path> traceFiles(const std::filesystem::path& dir);

// Rows of a query, each column as text ("" for NULL).
std::vector<std::vector<std::string>> sqlRows(const std::filesystem::path& file,
                                              const std::string& query);
// The first column of the first row as an integer (0 if no row).
int64_t sqlInt(const std::filesystem::path& file, const std::string& query);
std::string sqlText(const std::filesystem::path& file, const std::string& query);

// Lines of `text` that start with "bubblescope:".
std::vector<std::string> agentLines(const std::string& text);

}  // namespace bubblescope::testing
