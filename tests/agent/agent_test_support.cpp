#include "tests/agent/agent_test_support.h"

#include <sqlite3.h>

#include <algorithm>
#include <sstream>
#include <stdexcept>
#include <utility>

namespace bubblescope::testing {

ProcessOptions cleanEnv(std::map<std::string, std::string> env) {
  ProcessOptions o;
  o.unsetEnv = {"RANK",
                "LOCAL_RANK",
                "SLURM_PROCID",
                "OMPI_COMM_WORLD_RANK",
                "PMI_RANK",
                "WORLD_SIZE",
                "SLURM_NTASKS",
                "OMPI_COMM_WORLD_SIZE",
                "PMI_SIZE",
                "SLURM_LOCALID",
                "LD_PRELOAD",
                "NVTX_INJECTION64_PATH",
                "CUDA_INJECTION64_PATH",
                "BUBBLESCOPE_DORMANT",
                "BUBBLESCOPE_OUTPUT_DIR",
                "BUBBLESCOPE_RUN_ID",
                "BUBBLESCOPE_CONTROL",
                "BUBBLESCOPE_CUDA",
                "BUBBLESCOPE_CUDA_NOTE",
                "BUBBLESCOPE_PRIVATE"};
  o.env = std::move(env);
  return o;
}

ProcessResult recordApp(const std::filesystem::path& dir, const std::vector<std::string>& appArgs,
                        const std::vector<std::string>& recordOptions, ProcessOptions options) {
  std::vector<std::string> args = {"record", "-o", dir.string()};
  args.insert(args.end(), recordOptions.begin(), recordOptions.end());
  args.push_back("--");
  args.push_back(kTestApp);
  args.insert(args.end(), appArgs.begin(), appArgs.end());
  if (options.timeout == std::chrono::seconds(120)) options.timeout = std::chrono::seconds(60);
  return runBubblescope(args, options);
}

std::vector<std::filesystem::path> traceFiles(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    if (e.path().extension() == ".sqlite") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<std::vector<std::string>> sqlRows(const std::filesystem::path& file,
                                              const std::string& query) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    sqlite3_close(db);
    throw std::runtime_error("cannot open " + file.string());
  }
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db, query.c_str(), -1, &st, nullptr) != SQLITE_OK) {
    const std::string msg = sqlite3_errmsg(db);
    sqlite3_close(db);
    throw std::runtime_error(file.string() + ": " + msg + " in: " + query);
  }
  std::vector<std::vector<std::string>> rows;
  while (sqlite3_step(st) == SQLITE_ROW) {
    std::vector<std::string> row;
    for (int c = 0; c < sqlite3_column_count(st); ++c) {
      const auto* text = sqlite3_column_text(st, c);
      row.emplace_back(text != nullptr ? reinterpret_cast<const char*>(text) : "");
    }
    rows.push_back(std::move(row));
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  return rows;
}

int64_t sqlInt(const std::filesystem::path& file, const std::string& query) {
  const auto rows = sqlRows(file, query);
  return rows.empty() || rows[0].empty() ? 0 : std::stoll(rows[0][0]);
}

std::string sqlText(const std::filesystem::path& file, const std::string& query) {
  const auto rows = sqlRows(file, query);
  return rows.empty() || rows[0].empty() ? "" : rows[0][0];
}

std::vector<std::string> agentLines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("bubblescope:", 0) == 0) lines.push_back(line);
  }
  return lines;
}

}  // namespace bubblescope::testing
