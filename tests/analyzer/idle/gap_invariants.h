#pragma once
// The invariants every gap of every analysis holds (issue 26, item 3), asserted over all gaps of
// a pipeline, not only the top one: its pieces add up to its idle; its label is its largest piece;
// its sentence names that class first, and no second label ("counted as").
#include <gtest/gtest.h>

#include <string>

#include "analyzer/result/result.h"

namespace bubblescope::testing {

// The class whose "(name)" tag comes first in a gap's sentence; -1 when none is named.
inline int firstClassNamed(const std::string& text) {
  size_t first = std::string::npos;
  int cls = -1;
  for (int c = 0; c < analysis::kIdleClasses; ++c) {
    const std::string tag = std::string("(") + analysis::idleClassName(analysis::idleClassAt(c));
    for (size_t at = text.find(tag); at != std::string::npos; at = text.find(tag, at + 1)) {
      const char next = at + tag.size() < text.size() ? text[at + tag.size()] : '\0';
      if (next != ')' && next != ';') continue;  // "(stall: host)" or "(stall: host; ...)"
      if (at < first) first = at, cls = c;
      break;
    }
  }
  return cls;
}

inline void expectGapInvariants(const analysis::PipelineResult& pl, const std::string& what = "") {
  for (size_t i = 0; i < pl.gaps.size(); ++i) {
    const analysis::Gap& g = pl.gaps[i];
    const std::string where = "gap " + std::to_string(i) + " (stage " + std::to_string(g.stage) +
                              ", step " + std::to_string(g.step) + "): " + g.blame.text + "\n" +
                              what;
    TimeNs sum = 0;
    for (TimeNs t : g.byClass) sum += t;
    EXPECT_EQ(sum, g.idle) << where;
    for (int c = 0; c < analysis::kIdleClasses; ++c) {
      EXPECT_LE(g.byClass[c], g.byClass[static_cast<int>(g.dominant)])
          << "labelled " << analysis::idleClassName(g.dominant) << " but "
          << analysis::idleClassName(analysis::idleClassAt(c)) << " is larger; " << where;
    }
    EXPECT_EQ(firstClassNamed(g.blame.text), static_cast<int>(g.dominant))
        << "labelled " << analysis::idleClassName(g.dominant) << "; " << where;
    EXPECT_EQ(g.blame.text.find("counted as"), std::string::npos) << where;
  }
}

}  // namespace bubblescope::testing
