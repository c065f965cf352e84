#pragma once
// Pipeline schedules: for each stage, the order in which it runs its ops. Generators build the
// schedules of the literature; the simulator and the executor run any Schedule, including one
// observed in a trace.
#include <stdexcept>
#include <string>
#include <vector>

#include "reference_engine/schedule/op.h"

namespace bubblescope::engine {

// One per row of kSchedules (schedule_table.h), whose names, bounds and formulas go with it.
enum class ScheduleKind { GPipe, OneF1B, Interleaved1F1B, ZbH1, ZbH2, ZbV, Custom };

// Parameters a schedule cannot serve (p < 1, interleaved with m % p != 0, ...). The message is one
// sentence a user can act on.
class ScheduleError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// How model chunks map to positions in the model (virtual stages).
enum class ChunkLayout {
  Looped,  // chunk c of stage s is virtual stage c*p + s (interleaved 1F1B)
  V,       // p stages, 2 chunks: chunk 0 is virtual stage s, chunk 1 is 2p-1-s (ZB-V)
};

struct Schedule {
  ScheduleKind kind = ScheduleKind::Custom;
  int p = 0;  // stages
  int m = 0;  // microbatches per step
  int v = 1;  // model chunks per stage
  ChunkLayout layout = ChunkLayout::Looped;
  std::vector<std::vector<Op>> stages;  // stages[s] = ops of stage s in execution order

  int virtualStages() const { return p * v; }
  int virtualStage(int stage, int chunk) const;
  int stageOf(int virtualStage) const;
  int chunkOf(int virtualStage) const;
  // Whether backward is split into B and W (the zero-bubble family).
  bool splitsBackward() const;

  static Schedule gpipe(int p, int m);
  static Schedule oneF1B(int p, int m);
  static Schedule interleaved1F1B(int p, int m, int v);
  static Schedule zbH1(int p, int m);
  static Schedule zbH2(int p, int m);
  static Schedule zbV(int p, int m);
  // By command-line key or alias (case-insensitive), as kSchedules lists them.
  static Schedule byName(const std::string& name, int p, int m, int v = 2);
};

const char* scheduleName(ScheduleKind kind);  // "1F1B", "ZB-H1", ..., "custom"
// The keys byName() accepts, in kSchedules' order.
const std::vector<std::string>& scheduleNames();

}  // namespace bubblescope::engine
