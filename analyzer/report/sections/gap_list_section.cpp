#include "analyzer/report/sections/gap_list_section.h"

#include <iomanip>

#include "analyzer/report/format.h"

namespace bubblescope::analysis {

void writeGapListText(const PipelineResult& pl, std::ostream& out) {
  out << "\nEvery gap (" << pl.gaps.size()
      << "; step, stage, start from the step's start, idle, its largest class, what caused it):\n";
  // pl.gaps is already in this order: each step's stages in turn, each stage's gaps by start.
  for (const Gap& g : pl.gaps) {
    const StepInfo& step = pl.steps[g.step];
    out << "  step " << std::setw(6) << std::left << step.number << std::right << " stage "
        << std::setw(3) << g.stage << " +" << std::setw(9) << formatMs(g.start - step.start, 3)
        << " ms " << std::setw(9) << formatMs(g.idle, 3) << " ms  " << std::setw(15) << std::left
        << idleClassName(g.dominant) << std::right << "  " << g.blame.text << "\n";
  }
}

}  // namespace bubblescope::analysis
