#include "tests/tracegen/stack_analysis.h"

#include <stdexcept>

#include "analyzer/analyze.h"
#include "tests/support/temp_dir.h"
#include "tests/tracegen/kineto_stack.h"
#include "traces/import/run_import.h"
#include "traces/sqlite/run_reader.h"
#if BUBBLESCOPE_TRACEGEN_AGENT
#include "tests/tracegen/agent_stack.h"
#endif

namespace bubblescope::tracegen {

StackRun analyseAs(Stack stack, const JobSpec& spec, const std::filesystem::path& dir) {
  const JobTimeline job = execute(spec);
  StackRun out;
  out.truth = truthOf(job);
  traces::Run run;
  switch (stack) {
    case Stack::Kineto: {
      KinetoOptions o;
      o.base = spec.start - 2'000'000'000;  // torch 2.x: relative to a base a little earlier
      for (int r = 0; r < spec.p; ++r) {
        testing::writeFile(dir / ("rank" + std::to_string(r) + ".pt.trace.json"),
                           kinetoRankJson(job, r, o));
      }
      run = traces::import::importRun(traces::import::resolveInputs({dir})).run;
      break;
    }
    case Stack::Agent:
#if BUBBLESCOPE_TRACEGEN_AGENT
      run = traces::readRun(recordAgentRun(job, dir));
      break;
#else
      throw std::logic_error("tracegen: built without the capture agent");
#endif
  }
  out.result = analysis::analyzeRun(run);
  return out;
}

}  // namespace bubblescope::tracegen
