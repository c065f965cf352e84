#include "tests/reference_engine/executor/engine_run.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace bubblescope::engine::test {

EngineRun runEngine(const testing::TempDir& dir, std::vector<std::string> args,
                    const std::map<std::string, std::string>& env) {
  const std::filesystem::path truthPath = dir / "truth.json";
  auto has = [&](const std::string& flag) {
    return std::find(args.begin(), args.end(), flag) != args.end();
  };
  if (!has("--truth")) args.insert(args.end(), {"--truth", truthPath.string()});
  if (!has("--timeout")) args.insert(args.end(), {"--timeout", "60"});
  args.insert(args.begin(), {"engine", "run", "-q"});
  testing::ProcessOptions options;
  options.timeout = std::chrono::seconds(90);
  options.env = env;
  EngineRun run;
  const auto start = std::chrono::steady_clock::now();
  run.process = testing::runBubblescope(args, options);
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::string text = testing::readFile(truthPath);
  if (!text.empty()) run.truth = json::parse(text);
  return run;
}

std::vector<json> opsOf(const json& stage, int step) {
  std::vector<json> ops;
  for (const auto& op : stage.at("ops")) {
    if (op.at("step") == step) ops.push_back(op);
  }
  return ops;
}

json findOp(const json& stage, int step, const std::string& kind, int mb, int chunk) {
  for (const auto& op : stage.at("ops")) {
    if (op.at("step") == step && op.at("kind") == kind && op.at("mb") == mb &&
        op.at("chunk") == chunk) {
      return op;
    }
  }
  return nullptr;
}

double durationMs(const json& i) {
  return static_cast<double>(i.at("end_ns").get<int64_t>() - i.at("start_ns").get<int64_t>()) / 1e6;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(q * static_cast<double>(v.size() - 1))];
}

std::vector<double> opDurationsMs(const json& stage, const std::string& kind) {
  std::vector<double> out;
  for (const auto& op : stage.at("ops")) {
    if (op.at("kind") == kind) out.push_back(durationMs(op));
  }
  return out;
}

int rangeCount(const json& stage, const std::string& name) {
  int n = 0;
  for (const auto& r : stage.at("nvtx")) n += r.at("name") == name;
  return n;
}

std::vector<int> processesMentioning(const std::string& marker) {
  // Processes come and go while /proc is listed: every step tolerates a vanished entry.
  std::vector<int> pids;
  std::error_code ec;
  for (std::filesystem::directory_iterator it("/proc", ec), end; !ec && it != end;
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string cmd;
    try {
      std::ifstream in(it->path() / "cmdline", std::ios::binary);
      cmd.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    } catch (const std::ios_base::failure&) {
      // A process that exited between the open and the read: libstdc++'s filebuf throws on the
      // read's ESRCH (once in a suite run at -j3).
      continue;
    }
    if (cmd.find(marker) != std::string::npos) pids.push_back(std::atoi(name.c_str()));
  }
  return pids;
}

}  // namespace bubblescope::engine::test
