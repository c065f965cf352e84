// End to end: a 4-stage 1F1B job written as PyTorch profiler traces (one file per rank, PP:
// record_function labels, kernels, c10d send/recv metadata, distributedInfo), imported and
// analysed. Without faults its only idle is the pipeline filling and draining.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "analyzer/analyze.h"
#include "tests/analyzer/synthetic_run.h"
#include "tests/support/subprocess.h"
#include "tests/support/temp_dir.h"
#include "tests/traces/import/compress.h"
#include "tests/traces/import/kineto_writer.h"
#include "traces/import/run_import.h"

namespace bubblescope::traces::import {
namespace {

using analysis::IdleClass;
using testing::TempDir;

TimeNs idleOf(const analysis::Split& s, IdleClass c) {
  return s.idleByClass[static_cast<int>(c)];
}

// Writes the job's ranks as Kineto traces: gzipped, relative to a base time, like torch 2.x.
void writeKinetoRun(const std::filesystem::path& dir, const testing::SyntheticJob& job) {
  const Run synthetic = testing::synthesize(job);
  for (const RankTrace& t : synthetic.ranks) {
    testing::KinetoWriterOptions o;
    o.stage = t.meta.rank;
    o.worldSize = static_cast<int>(synthetic.ranks.size());
    o.base = job.start - 1'000'000'000;
    testing::writeFile(dir / ("rank" + std::to_string(t.meta.rank) + ".pt.trace.json.gz"),
                       testing::gzipped(testing::kinetoJson(t, o)));
  }
}

TEST(KinetoPipeline, PipeliningLabelsFollowTorchsNames) {
  EXPECT_EQ(testing::pipeliningLabel("F mb=3", 2), "PP:2F3");
  EXPECT_EQ(testing::pipeliningLabel("BW mb=3", 2), "PP:2B3");
  EXPECT_EQ(testing::pipeliningLabel("B mb=3", 2), "PP:2I3");
  EXPECT_EQ(testing::pipeliningLabel("SEND F mb=3 to=3", 2), "PP:2SEND_F3");
  EXPECT_EQ(testing::pipeliningLabel("RECV B mb=0 from=3", 2), "PP:2RECV_B0");
  EXPECT_EQ(testing::pipeliningLabel("step 4", 2), "ProfilerStep#4");
}

TEST(KinetoPipeline, FaultFreeOneF1BIdlesOnlyInWarmupAndDrain) {
  TempDir dir;
  testing::SyntheticJob job;
  job.schedule = engine::Schedule::oneF1B(4, 8);
  writeKinetoRun(dir.path(), job);

  const ImportedRun imported = importRun(resolveInputs({dir.path()}));
  ASSERT_EQ(imported.run.ranks.size(), 4u);
  for (int r = 0; r < 4; ++r) {
    const RankTrace& t = imported.run.ranks[r];
    EXPECT_EQ(t.meta.rank, r);
    EXPECT_EQ(t.meta.worldSize, 4);
    EXPECT_GT(t.kernels->size(), 0u);
    EXPECT_EQ(t.meta.extra.at("kineto.pg.0.ranks"), "0,1,2,3");
  }
  // Stage 1 receives activations from rank 0 and sends them to rank 2: 1 MiB of bf16 each.
  const RankTrace& s1 = imported.run.ranks[1];
  size_t sends = 0, recvs = 0;
  for (size_t i = 0; i < s1.ncclCalls->size(); ++i) {
    EXPECT_EQ(s1.ncclCalls->bytes[i], 1u << 20);
    if (s1.ncclCalls->op[i] == NcclOp::Send)
      sends += s1.ncclCalls->peer[i] == 2 || s1.ncclCalls->peer[i] == 0;
    if (s1.ncclCalls->op[i] == NcclOp::Recv)
      recvs += s1.ncclCalls->peer[i] == 0 || s1.ncclCalls->peer[i] == 2;
  }
  EXPECT_EQ(sends, 3u * 8 * 2);  // 3 steps x 8 microbatches x (activations + gradients)
  EXPECT_EQ(recvs, 3u * 8 * 2);

  const analysis::AnalysisResult r = analysis::analyzeRun(imported.run);
  EXPECT_EQ(r.ruleSet, "torch.distributed.pipelining");
  EXPECT_EQ(r.pp, 4);
  EXPECT_EQ(r.topologySource, "labels");
  ASSERT_EQ(r.pipelines.size(), 1u);
  const analysis::PipelineResult& pl = r.pipelines[0];
  EXPECT_EQ(pl.steps.size(), 3u);
  EXPECT_EQ(pl.schedule.name, "1F1B");
  for (const auto& st : pl.stages) {
    const analysis::Split& s = st.total;
    EXPECT_EQ(s.compute + s.exposedComm + s.otherBusy + s.idle, s.span) << "stage " << st.stage;
    EXPECT_EQ(idleOf(s, IdleClass::Imbalance) + idleOf(s, IdleClass::Jitter), 0)
        << "stage " << st.stage;
    EXPECT_EQ(idleOf(s, IdleClass::CommStall) + idleOf(s, IdleClass::HostStall) +
                  idleOf(s, IdleClass::OtherStall),
              0)
        << "stage " << st.stage;
    EXPECT_EQ(idleOf(s, IdleClass::Warmup) + idleOf(s, IdleClass::Drain) +
                  idleOf(s, IdleClass::ScheduleBubble),
              s.idle)
        << "stage " << st.stage;
  }
  // Stage 0 starts at once but fills the pipeline until the first backward comes back
  // through three stages (warm-up), and in the cool-down waits for each remaining backward
  // after its last forward (drain).
  EXPECT_GT(idleOf(pl.stages[0].total, IdleClass::Warmup), 3 * 3 * 1'900'000);
  EXPECT_GT(idleOf(pl.stages[0].total, IdleClass::Drain), 0);
  EXPECT_GT(idleOf(pl.stages[3].total, IdleClass::Warmup), 3 * 3 * 1'900'000);
  EXPECT_GT(idleOf(pl.stages[3].total, IdleClass::Drain), 0);  // the last stage finishes first

  // The same job as our own recorder writes it is split the same, to the nanosecond.
  const analysis::AnalysisResult direct = analysis::analyzeRun(testing::synthesize(job));
  ASSERT_EQ(direct.pipelines.size(), 1u);
  ASSERT_EQ(direct.pipelines[0].stages.size(), pl.stages.size());
  for (size_t i = 0; i < pl.stages.size(); ++i) {
    const analysis::Split& a = pl.stages[i].total;
    const analysis::Split& b = direct.pipelines[0].stages[i].total;
    EXPECT_EQ(a.span, b.span) << "stage " << i;
    EXPECT_EQ(a.compute, b.compute) << "stage " << i;
    EXPECT_EQ(a.idle, b.idle) << "stage " << i;
    for (int c = 0; c < analysis::kIdleClasses; ++c) {
      EXPECT_EQ(a.idleByClass[c], b.idleByClass[c]) << "stage " << i << " class " << c;
    }
  }
}

TEST(KinetoPipeline, AnalyzeReadsKinetoTracesDirectly) {
  TempDir dir;
  testing::SyntheticJob job;
  job.schedule = engine::Schedule::oneF1B(4, 4);
  job.steps = 2;
  writeKinetoRun(dir.path(), job);
  const auto r = testing::runBubblescope({"analyze", dir.path().string(), "--format", "json"});
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("\"schema_version\""), std::string::npos);
  EXPECT_NE(r.out.find("torch.distributed.pipelining"), std::string::npos);
}

TEST(KinetoPipeline, ExportPerfettoReadsKinetoTracesDirectly) {
  TempDir dir;
  std::filesystem::create_directory(dir / "traces");
  testing::SyntheticJob job;
  job.schedule = engine::Schedule::oneF1B(4, 4);
  job.steps = 2;
  writeKinetoRun(dir / "traces", job);
  const auto r = testing::runBubblescope(
      {"export", "perfetto", (dir / "traces").string(), "-o", (dir / "trace.json").string()});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const nlohmann::json doc = nlohmann::json::parse(testing::readFile(dir / "trace.json"));
  std::set<std::string> processes, idleNames;
  size_t forwards = 0, backwards = 0, flows = 0;
  for (const nlohmann::json& ev : doc["traceEvents"]) {
    if (ev["ph"] == "M" && ev["name"] == "process_name") processes.insert(ev["args"]["name"]);
    if (ev["ph"] == "X" && ev["cat"] == "idle") idleNames.insert(ev["name"]);
    if (ev["ph"] == "X" && ev["name"].get<std::string>().starts_with("F mb=")) ++forwards;
    if (ev["ph"] == "X" && ev["name"].get<std::string>().starts_with("BW mb=")) ++backwards;
    flows += ev["ph"] == "s";
  }
  EXPECT_EQ(processes, (std::set<std::string>{"stage 0 (rank 0)", "stage 1 (rank 1)",
                                              "stage 2 (rank 2)", "stage 3 (rank 3)"}));
  EXPECT_EQ(forwards, 4u * 4 * 2);  // stages x microbatches x steps
  EXPECT_EQ(backwards, 4u * 4 * 2);
  EXPECT_EQ(flows, 3u * 2 * 4 * 2);  // stage boundaries x (activations + gradients) x mbs x steps
  EXPECT_TRUE(idleNames.count("warmup"));  // named by the class key, which Perfetto colors by
  EXPECT_TRUE(idleNames.count("drain"));
}

}  // namespace
}  // namespace bubblescope::traces::import
