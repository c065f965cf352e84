#pragma once
// How a report is written, beside which format (report.h).

namespace bubblescope::analysis {

// `detail` adds the records a summary leaves out: the JSON's per-op, per-transfer, per-comm-wait
// and per-gap arrays (and the gap and step indexes that point into them), and the text report's
// list of every gap. A summary's size follows the job's shape (stages, causes, steps), not the
// number of ops and gaps in it.
struct ReportStyle {
  bool color = false;
  bool detail = false;
};

}  // namespace bubblescope::analysis
