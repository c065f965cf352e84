#pragma once
// Every named schedule in one table: the names it goes by, what it takes, its generator, its
// activation bound, the activations it holds per stage and what the papers predict. Adding a
// schedule is adding a row here.
#include <span>
#include <string>
#include <string_view>

#include "reference_engine/schedule/paper_prediction.h"
#include "reference_engine/schedule/schedule.h"

namespace bubblescope::engine {

struct NamedSchedule {
  ScheduleKind kind;
  const char* key;         // the command line's --schedule name: "zb-h1"
  const char* name;        // as reports, truth.json and the papers write it: "ZB-H1"
  std::string_view alias;  // another spelling --schedule accepts ("zbh1"); empty: none
  bool takesChunks;        // v is the caller's (--v); otherwise the generator fixes it
  bool splitsBackward;     // backward split into B and W (the zero-bubble family)
  Schedule (*generate)(int p, int m, int v);
  // The most chunk activations a stage holds at once (validate.h's inFlightBound).
  int (*inFlightBound)(int p, int m, int v);
  // The most microbatches' activations (M_B) stage s holds at once, each until its W or BW ends,
  // as heldActivations() (held_activations.h) counts them on the generated order; and the formula
  // as text, "min(p-s, m)".
  double (*stageActivations)(int p, int m, int v, int s);
  const char* stageActivationsFormula;
  // What the literature predicts with equal stages; null when no paper gives a formula.
  PaperPrediction (*paper)(int p, int m, int v, const PaperCosts& costs);
};

// In the order the help lists them, the what-if table shows them and matching tries them (the
// first generator whose order equals the observed one names it).
extern const std::span<const NamedSchedule> kSchedules;

// By --schedule key or alias, case-insensitive; null when none is called that.
const NamedSchedule* scheduleByKey(std::string_view key);
// By the name reports write ("interleaved 1F1B"); null when none is called that.
const NamedSchedule* scheduleByName(std::string_view name);
// Null for Custom.
const NamedSchedule* scheduleOfKind(ScheduleKind kind);
// The keys for help and error texts, "gpipe, 1f1b, ..." with the last joined by lastSeparator.
std::string scheduleKeyList(std::string_view lastSeparator = ", ");

}  // namespace bubblescope::engine
