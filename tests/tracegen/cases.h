#pragma once
// The jobs every stack is tested on, each with what the analysis must find: the dominant
// avoidable idle class of the pipeline and where it comes from. The same cases for Kineto JSON,
// Nsight Systems SQLite and the agent's own capture, so all of them must agree.
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "analyzer/result/idle_class.h"
#include "tests/tracegen/pp_job.h"

namespace bubblescope::tracegen {

struct Case {
  std::string name;
  JobSpec spec;
  // The largest avoidable class over the pipeline (none: every gap is the schedule's own).
  std::optional<analysis::IdleClass> dominant;
  int culpritStage = -1;  // the stage the largest avoidable gap is blamed on (-1: no check)
  // That gap's blame text holds one of these (none: no check).
  std::vector<std::string> culpritTexts;
};

// gtest prints a case by its name.
inline void PrintTo(const Case& c, std::ostream* os) {
  *os << c.name;
}

// fault-free, slow stage, host stall (late launch), comm delay on one link, jitter, a mix; every
// rank's clock skewed, the step range opening after the first op's annotation.
std::vector<Case> standardCases();

// The same faults on a ZB-V job (torch's ScheduleZBVZeroBubble: two chunks per rank in a V,
// F, B and W), p = 4, m = 8.
std::vector<Case> zbVCases();

// Fault-free, slow-stage and host-stall jobs, 1F1B and ZB-V, whose messages fit NCCL's buffer:
// a send that goes alone ends without waiting for its receiver, whose receive only copies it
// out when it starts (pp_job.h, bufferedBytes).
std::vector<Case> bufferedCases();

}  // namespace bubblescope::tracegen
