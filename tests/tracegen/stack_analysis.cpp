#include "tests/tracegen/stack_analysis.h"

#include <stdexcept>

#include "analyzer/analyze.h"
#include "tests/support/temp_dir.h"
#include "tests/tracegen/kineto_stack.h"
#include "tests/tracegen/nsys_stack.h"
#include "tests/tracegen/unlabelled.h"
#include "traces/import/run_import.h"
#include "traces/sqlite/run_reader.h"
#if BUBBLESCOPE_TRACEGEN_AGENT
#include "tests/tracegen/agent_stack.h"
#endif

namespace bubblescope::tracegen {

StackRun analyseAs(Stack stack, const JobSpec& spec, const std::filesystem::path& dir,
                   Labels labels) {
  const JobTimeline labelled = execute(spec);
  const JobTimeline job = labels == Labels::Labelled     ? labelled
                          : labels == Labels::Unlabelled ? withoutOpLabels(labelled)
                                                         : withoutAnyMarkers(labelled);
  switch (stack) {
    case Stack::Kineto: {
      KinetoOptions o;
      o.base = spec.start - 2'000'000'000;  // torch 2.x: relative to a base a little earlier
      for (int r = 0; r < worldSize(spec); ++r) {
        testing::writeFile(dir / ("rank" + std::to_string(r) + ".pt.trace.json"),
                           kinetoRankJson(job, r, o));
      }
      break;
    }
    case Stack::Nsys:
      writeNsysExports(job, dir);
      break;
    case Stack::Agent: {
#if BUBBLESCOPE_TRACEGEN_AGENT
      StackRun out;
      out.truth = truthOf(labelled);
      out.result = analysis::analyzeRun(traces::readRun(recordAgentRun(job, dir)));
      return out;
#else
      throw std::logic_error("tracegen: built without the capture agent");
#endif
    }
  }
  return analyseWritten(labelled, dir);  // the truth is the labelled job's
}

StackRun analyseWritten(const JobTimeline& job, const std::filesystem::path& dir) {
  StackRun out;
  out.truth = truthOf(job);
  const traces::import::ImportedRun imported =
      traces::import::importRun(traces::import::resolveInputs({dir}));
  out.importNotes = imported.notes;
  for (const auto& f : imported.files) {
    for (const std::string& n : f.notes)
      out.importNotes.push_back(f.file.filename().string() + ": " + n);
  }
  out.result = analysis::analyzeRun(imported.run);
  return out;
}

}  // namespace bubblescope::tracegen
