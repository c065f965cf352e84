// libFuzzer target: any bytes as saved hang answers (`bubblescope hang --all --save FILE`), read
// as `bubblescope hang FILE` reads them (cli/cmd_hang.cpp): each answer as a live rank, its grid
// metadata checked, the run they make analysed and the report written both ways. Bad input must
// end in a TraceError, an AnalysisInputError or an answer refused in one line; the report of
// what is read must be written whatever the answers say.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/hang/hang_analysis.h"
#include "analyzer/hang/hang_output.h"
#include "analyzer/hang/live_run.h"
#include "analyzer/pipeline/topology.h"
#include "analyzer/result/errors.h"
#include "cli/cmd_hang.h"
#include "cli/live_answers.h"
#include "cli/live_query.h"
#include "traces/errors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace bubblescope;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    // Whatever hang took for answers (cli/input_kind.h: a top-level "kind" of theirs) is read
    // here; anything else is refused by the reader too, naming the file.
    const cli::SavedAnswers saved = cli::parseAnswers(text, "fuzz.json");
    std::vector<cli::LiveRank> ranks;
    std::set<std::string> runs;
    for (const control::Reply& reply : saved.replies) {
      cli::LiveRank r;
      if (!cli::liveRankFromReply(reply, reply.integer("pid", 0), &r).empty()) {
        return 0;  // the file is refused, naming the answer
      }
      traces::RankTrace t;
      t.file = "fuzz.json";
      t.meta.extra = r.snapshot.env;
      analysis::checkGridMetadata(t);
      runs.insert(r.status.runId);
      ranks.push_back(std::move(r));
    }
    // No answers, or answers of several runs: one line, before any analysis.
    if (ranks.empty() || runs.size() > 1) return 0;
    const double minWait = saved.minWaitSeconds.value_or(cli::HangOptions{}.minWaitSeconds);
    const traces::Run run = analysis::hang::liveRun(
        std::move(ranks), static_cast<int64_t>(std::llround(minWait * 1e9)));
    const analysis::hang::HangReport report = analysis::hang::analyzeHang(run);
    std::ostringstream out;
    analysis::hang::printHangReport(report, out);
    analysis::hang::writeHangReportJson(report, out);
    if (out.str().empty()) __builtin_trap();
  } catch (const traces::TraceError&) {
    // Not saved answers, or an answer that cannot be read: the file is named.
  } catch (const analysis::AnalysisInputError&) {
    // Grid metadata out of range (BUBBLESCOPE_PP_RANK = 4294967297, ...).
  }
  return 0;
}
