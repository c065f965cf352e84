#include "tests/traces/import/kineto_writer.h"

#include <regex>
#include <sstream>

namespace bubblescope::testing {
namespace {

// Kineto's number format: microseconds with three decimals.
std::string us(TimeNs ns) {
  std::string s = std::to_string(ns / 1000) + ".";
  const std::string frac = std::to_string(ns % 1000);
  return s + std::string(3 - frac.size(), '0') + frac;
}

class EventList {
 public:
  void add(const std::string& json) {
    out_ << (first_ ? "\n  " : ",\n  ") << json;
    first_ = false;
  }
  std::string str() const { return out_.str(); }

 private:
  std::ostringstream out_;
  bool first_ = true;
};

std::string complete(const char* cat, const std::string& name, int64_t pid, uint64_t tid, TimeNs ts,
                     TimeNs dur, const std::string& args) {
  return std::string("{\"ph\": \"X\", \"cat\": \"") + cat + "\", \"name\": \"" + name +
         "\", \"pid\": " + std::to_string(pid) + ", \"tid\": " + std::to_string(tid) +
         ", \"ts\": " + us(ts) + ", \"dur\": " + us(dur) + ", \"args\": {" + args + "}}";
}

}  // namespace

std::string pipeliningLabel(const std::string& name, int stage) {
  static const std::regex op(R"((F|B|W|BW) mb=(\d+)(?: ch=\d+)?)");
  static const std::regex comm(R"((SEND|RECV) (F|B) mb=(\d+)(?: ch=\d+)? (?:to|from)=\d+)");
  static const std::regex step(R"(step (\d+))");
  std::smatch m;
  const std::string s = std::to_string(stage);
  if (std::regex_match(name, m, op)) {
    // torch pipelining: I = input gradient (our B), B = full backward (our BW).
    const std::string kind = m[1] == "B" ? "I" : m[1] == "BW" ? "B" : std::string(m[1]);
    return "PP:" + s + kind + std::string(m[2]);
  }
  if (std::regex_match(name, m, comm))
    return "PP:" + s + std::string(m[1]) + "_" + std::string(m[2]) + std::string(m[3]);
  if (std::regex_match(name, m, step)) return "ProfilerStep#" + std::string(m[1]);
  if (name == "optimizer") return "Optimizer.step#SGD.step";
  return name;
}

std::string kinetoJson(const traces::RankTrace& t, const KinetoWriterOptions& o) {
  const int64_t pid = 1000 + t.meta.rank;
  const int rank = t.meta.rank;
  EventList events;
  static const std::regex commName(R"((SEND|RECV) (F|B) mb=\d+(?: ch=\d+)? (?:to|from)=(\d+))");
  uint32_t correlation = 1000;
  uint64_t externalId = 1;
  for (size_t i = 0; i < t.ranges->size(); ++i) {
    const std::string name(t.strings.at(t.ranges->name[i]));
    const TimeNs start = t.ranges->start[i] - o.base;
    const TimeNs dur = t.ranges->end[i] - t.ranges->start[i];
    const uint64_t tid = t.threads[t.ranges->thread[i]].tid;
    const std::string label = pipeliningLabel(name, o.stage);
    events.add(complete("user_annotation", label, pid, tid, start, dur,
                        "\"External id\": " + std::to_string(externalId++)));
    std::smatch m;
    const bool work = (label.starts_with("PP:") && label.find("SEND") == std::string::npos &&
                       label.find("RECV") == std::string::npos) ||
                      label.starts_with("Optimizer.step");
    if (work && o.withKernels && dur > 10'000) {
      // The op's (or the optimizer's) work: an aten op launching one kernel that runs as long as
      // the range (the stream is idle, so it starts at once), keeping the synthetic timing exact.
      // With kernels in a trace, the device's work is its kernels, not host ranges.
      const uint32_t c = correlation++;
      events.add(complete("cpu_op", "aten::linear", pid, tid, start, 2'000,
                          "\"External id\": " + std::to_string(externalId++)));
      events.add(complete("cuda_runtime", "cudaLaunchKernel", pid, tid, start, 1'000,
                          "\"correlation\": " + std::to_string(c) + ", \"cbid\": 211"));
      events.add(complete("kernel", "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_tn", 0, 7, start,
                          dur,
                          "\"device\": 0, \"stream\": 7, \"correlation\": " + std::to_string(c) +
                              ", \"grid\": [108, 1, 1], \"block\": [256, 1, 1]"));
    }
    if (o.withComms && std::regex_match(name, m, commName)) {
      // c10d's metadata: the peer's global rank (stages are ranks here), 1 MiB of bf16.
      const bool send = m[1] == "SEND";
      const std::string peer = m[3];
      events.add(complete(
          "cpu_op", "record_param_comms", pid, tid, start + 100, std::max<TimeNs>(dur - 200, 0),
          "\"External id\": " + std::to_string(externalId++) + ", \"Collective name\": \"" +
              (send ? "send" : "recv") + "\", \"dtype\": \"BFloat16\", \"In msg nelems\": " +
              (send ? "524288" : "0") + ", \"Out msg nelems\": " + (send ? "0" : "524288") +
              ", \"Group size\": " + std::to_string(o.worldSize) +
              ", \"Process Group Name\": \"0\", \"Process Group Description\": \"default_pg\", "
              "\"Process Group Ranks\": \"[0, 1, 2, 3]\", \"" +
              (send ? "Dst Rank" : "Src Rank") + "\": " + peer));
    }
  }
  for (const auto& th : t.threads) {
    events.add("{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": " + std::to_string(pid) +
               ", \"tid\": " + std::to_string(th.tid) + ", \"args\": {\"name\": \"thread " +
               std::to_string(th.tid) + " (pt_main_thread)\"}}");
  }
  std::ostringstream out;
  out << "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA "
         "H100 80GB HBM3\", \"numSms\": 132}],\n  \"distributedInfo\": {\"backend\": \"nccl\", "
         "\"rank\": "
      << rank << ", \"world_size\": " << o.worldSize
      << ", \"pg_count\": 1, \"pg_config\": [{\"pg_name\": \"0\", \"pg_desc\": \"default_pg\", "
         "\"backend_config\": \"cuda:nccl\", \"pg_size\": "
      << o.worldSize << ", \"ranks\": [";
  for (int r = 0; r < o.worldSize; ++r) out << (r ? ", " : "") << r;
  out << "]}], \"nccl_version\": \"2.21.5\"},\n";
  if (o.base != 0) out << "  \"baseTimeNanoseconds\": " << o.base << ",\n";
  out << "  \"traceEvents\": [" << events.str() << "\n  ],\n  \"traceName\": \"rank" << rank
      << ".pt.trace.json\"\n}\n";
  return out.str();
}

}  // namespace bubblescope::testing
