#include "analyzer/comm/collective_coverage.h"

namespace bubblescope::analysis {

CollectiveCoverage collectiveCoverage(const CommMatches& m) {
  CollectiveCoverage out;
  // One entry per collective in collectiveMembers; a full one's members are its kernels.
  for (size_t c = 0; c < m.collectiveMembers.size(); ++c) {
    const TracedMembers& t = m.collectiveMembers[c];
    ++out.collectives;
    if (!t.partial()) {
      const int64_t all =
          c < m.collectives.size() ? static_cast<int64_t>(m.collectives[c].size()) : 0;
      out.traced += all;
      out.members += all;
      continue;
    }
    out.traced += t.traced;
    out.members += t.of;
    out.alike =
        out.alike && (out.partial == 0 || (t.traced == out.least.traced && t.of == out.least.of));
    ++out.partial;
    out.least.widen(t);
  }
  return out;
}

}  // namespace bubblescope::analysis
