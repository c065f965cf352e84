#include "analyzer/report/sections/gap_list_section.h"

#include <algorithm>
#include <iomanip>
#include <vector>

#include "analyzer/report/format.h"

namespace bubblescope::analysis {

void writeGapListText(const PipelineResult& pl, std::ostream& out) {
  out << "\nEvery gap (" << pl.gaps.size()
      << "; step, stage, start from the step's start, idle, its largest class, what caused it):\n";
  // pl.gaps is held by stage and step; a reader scans a step across its stages.
  std::vector<int> order(pl.gaps.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    const Gap& x = pl.gaps[a];
    const Gap& y = pl.gaps[b];
    if (x.step != y.step) return x.step < y.step;
    if (x.stage != y.stage) return x.stage < y.stage;
    return x.start < y.start;
  });
  for (int i : order) {
    const Gap& g = pl.gaps[i];
    const StepInfo& step = pl.steps[g.step];
    out << "  step " << std::setw(6) << std::left << step.number << std::right << " stage "
        << std::setw(3) << g.stage << " +" << std::setw(9) << formatMs(g.start - step.start, 3)
        << " ms " << std::setw(9) << formatMs(g.idle, 3) << " ms  " << std::setw(15) << std::left
        << idleClassName(g.dominant) << std::right << "  " << g.blame.text << "\n";
  }
}

}  // namespace bubblescope::analysis
