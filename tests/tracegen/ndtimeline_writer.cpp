#include "tests/tracegen/ndtimeline_writer.h"

#include <zlib.h>

#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <vector>

namespace bubblescope::tracegen {
namespace {

constexpr const char* kCategories[] = {"compute", "pp-comm", "tp-comm", "dp-comm", "misc"};

void microseconds(std::string& out, TimeNs ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%lld.%03lld", static_cast<long long>(ns / 1000),
                static_cast<long long>(ns % 1000));
  out += buf;
}

}  // namespace

std::string ndTimelineJson(const MegatronTimeline& tl, NdMetadata metadata) {
  std::string out = "[\n";
  bool first = true;
  auto sep = [&] {
    if (!first) out += ",\n";
    first = false;
  };
  auto processName = [&](int d) {
    sep();
    out += R"({"ph":"M","name":"process_name","pid":)" + std::to_string(d) +
           R"(,"tid":0,"args":{"name":"DP rank )" + std::to_string(d) + "\"}}";
  };
  auto threadNames = [&](const NdRank& r) {
    for (int c = 0; c < 5; ++c) {
      const std::string tid = std::to_string(r.rank * 5 + c);
      sep();
      out += R"({"ph":"M","name":"thread_name","pid":)" + std::to_string(r.dp) + R"(,"tid":)" +
             tid + R"(,"args":{"name":"PP rank )" + std::to_string(r.pp) + ", TP rank " +
             std::to_string(r.tp) + ", " + kCategories[c] + "\"}}";
      sep();
      out += R"({"ph":"M","name":"thread_sort_index","pid":)" + std::to_string(r.dp) +
             R"(,"tid":)" + tid + R"(,"args":{"sort_index":)" + tid + "}}";
    }
  };
  auto allMetadata = [&] {
    for (int d = 0; d < tl.job.dp; ++d) processName(d);
    for (const NdRank& r : tl.ranks) threadNames(r);
  };
  auto events = [&](const NdRank& r) {
    for (const NdEvent& e : r.events) {
      sep();
      out += R"({"ph":"X","name":")";
      out += e.name;
      out += R"(","pid":)" + std::to_string(r.dp) + R"(,"tid":)" +
             std::to_string(r.rank * 5 + static_cast<int>(e.thread)) + R"(,"ts":)";
      microseconds(out, e.start);
      out += R"(,"dur":)";
      microseconds(out, e.end - e.start);
      out += R"(,"args":{"step":)" + std::to_string(e.step);
      if (e.mb >= 0) {
        out += R"(,"mb_id":)" + std::to_string(e.mb) + R"(,"model_chunk":)" +
               std::to_string(e.chunk) + R"(,"seq_id":)" + std::to_string(e.mb);
      }
      out += "}}";
    }
  };
  if (metadata == NdMetadata::First) allMetadata();
  std::vector<bool> named(static_cast<size_t>(tl.job.dp), false);
  for (const NdRank& r : tl.ranks) {
    events(r);
    if (metadata != NdMetadata::Interleaved) continue;
    threadNames(r);
    if (!named[static_cast<size_t>(r.dp)]) processName(r.dp);
    named[static_cast<size_t>(r.dp)] = true;
  }
  if (metadata == NdMetadata::Last) allMetadata();
  out += "\n]\n";
  return out;
}

void writeNdTimeline(const MegatronTimeline& tl, const std::filesystem::path& file, bool gzip,
                     NdMetadata metadata) {
  const std::string json = ndTimelineJson(tl, metadata);
  if (gzip) {
    gzFile f = gzopen(file.c_str(), "wb1");
    if (!f || gzwrite(f, json.data(), static_cast<unsigned>(json.size())) !=
                  static_cast<int>(json.size())) {
      if (f) gzclose(f);
      throw std::runtime_error("cannot write " + file.string());
    }
    gzclose(f);
    return;
  }
  std::ofstream out(file, std::ios::binary);
  out << json;
  if (!out) throw std::runtime_error("cannot write " + file.string());
}

}  // namespace bubblescope::tracegen
