#include "reference_engine/schedule/schedule_table.h"

#include <algorithm>
#include <cctype>

namespace bubblescope::engine {
namespace {

// The paper formulas: Qi et al., "Zero Bubble Pipeline Parallelism" (ICLR'24) Table 1 and §6;
// Narayanan et al. (SC'21) §2.2. Each generator's file says why its pattern keeps its bound.
constexpr NamedSchedule kRows[] = {
    {.kind = ScheduleKind::GPipe,
     .key = "gpipe",
     .name = "GPipe",
     .alias = "",
     .takesChunks = false,
     .splitsBackward = false,
     .generate = [](int p, int m, int) { return Schedule::gpipe(p, m); },
     .inFlightBound = [](int, int m, int) { return m; },
     .stageActivations = [](int, int m, int, int) -> double { return m; },
     .stageActivationsFormula = "m",
     .paper =
         [](int p, int m, int, const PaperCosts& c) {
           return PaperPrediction{.bubbleFormula = "(p-1)(T_F+T_B+T_W)",
                                  .bubble = (p - 1) * (c.f + c.bw),
                                  .conditions = "",
                                  .conditionsHold = true,
                                  .memoryFormula = "mM_B",
                                  .peakActivations = static_cast<double>(m)};
         }},
    {.kind = ScheduleKind::OneF1B,
     .key = "1f1b",
     .name = "1F1B",
     .alias = "",
     .takesChunks = false,
     .splitsBackward = false,
     .generate = [](int p, int m, int) { return Schedule::oneF1B(p, m); },
     .inFlightBound = [](int p, int m, int) { return std::min(p, m); },
     // Megatron: stage s warms up p-s-1 forwards, then holds one more.
     .stageActivations = [](int p, int m, int, int s) -> double { return std::min(p - s, m); },
     .stageActivationsFormula = "min(p-s, m)",
     .paper =
         [](int p, int m, int, const PaperCosts& c) {
           return PaperPrediction{.bubbleFormula = "(p-1)(T_F+T_B+T_W)",
                                  .bubble = (p - 1) * (c.f + c.bw),
                                  .conditions = "",
                                  .conditionsHold = true,
                                  .memoryFormula = "pM_B",
                                  .peakActivations = static_cast<double>(std::min(p, m))};
         }},
    {.kind = ScheduleKind::Interleaved1F1B,
     .key = "interleaved",
     .name = "interleaved 1F1B",
     .alias = "interleaved-1f1b",
     .takesChunks = true,
     .splitsBackward = false,
     .generate = [](int p, int m, int v) { return Schedule::interleaved1F1B(p, m, v); },
     .inFlightBound =
         [](int p, int m, int v) {
           // Megatron: stage 0 warms up 2(p-1) + (v-1)p chunk forwards, then holds one more.
           return std::min(2 * (p - 1) + (v - 1) * p + 1, m * v);
         },
     // The same on stage s, 2(p-s-1) + (v-1)p + 1 chunk forwards, each 1/v of the stage's M_B.
     .stageActivations =
         [](int p, int m, int v, int s) {
           return static_cast<double>(std::min(2 * (p - s - 1) + (v - 1) * p + 1, m * v)) / v;
         },
     .stageActivationsFormula = "min(2(p-s-1)+(v-1)p+1, mv)/v",
     .paper =
         [](int p, int m, int v, const PaperCosts& c) {
           // Narayanan et al.: the bubble shrinks by v, each chunk costing 1/v of the stage.
           return PaperPrediction{
               .bubbleFormula = "(p-1)(T_F+T_B+T_W)/v",
               .bubble = (p - 1) * (c.f + c.bw) / v,
               .conditions = "T_F and T_B+T_W divisible by v",
               .conditionsHold = c.f % v == 0 && c.bw % v == 0,
               .memoryFormula = "(2(p-1)+(v-1)p+1)M_B/v",
               .peakActivations =
                   static_cast<double>(std::min(2 * (p - 1) + (v - 1) * p + 1, m * v)) / v};
         }},
    {.kind = ScheduleKind::ZbH1,
     .key = "zb-h1",
     .name = "ZB-H1",
     .alias = "zbh1",
     .takesChunks = false,
     .splitsBackward = true,
     .generate = [](int p, int m, int) { return Schedule::zbH1(p, m); },
     .inFlightBound = [](int p, int m, int) { return std::min(p, m); },
     // Every stage: the ZB paper's pM_B (Table 1), the ZB implementation's memory limit; the
     // later stages reach it through the W they run late.
     .stageActivations = [](int p, int m, int, int) -> double { return std::min(p, m); },
     .stageActivationsFormula = "min(p, m)",
     .paper =
         [](int p, int m, int, const PaperCosts& c) {
           return PaperPrediction{.bubbleFormula = "(p-1)(T_F+T_B-T_W)",
                                  .bubble = (p - 1) * (c.f + c.b - c.w),
                                  .conditions = "T_W <= T_F and m >= p",
                                  .conditionsHold = c.w <= c.f && m >= p,
                                  .memoryFormula = "pM_B",
                                  .peakActivations = static_cast<double>(std::min(p, m))};
         }},
    {.kind = ScheduleKind::ZbH2,
     .key = "zb-h2",
     .name = "ZB-H2",
     .alias = "zbh2",
     .takesChunks = false,
     .splitsBackward = true,
     .generate = [](int p, int m, int) { return Schedule::zbH2(p, m); },
     .inFlightBound = [](int p, int m, int) { return std::min(2 * p - 1, m); },
     // Every stage: the ZB paper's (2p-1)M_B (Table 1), on the last stages through their late W.
     .stageActivations = [](int p, int m, int, int) -> double { return std::min(2 * p - 1, m); },
     .stageActivationsFormula = "min(2p-1, m)",
     .paper =
         [](int p, int m, int, const PaperCosts& c) {
           return PaperPrediction{.bubbleFormula = "(p-1)(T_F+T_B-2T_W)",
                                  .bubble = (p - 1) * (c.f + c.b - 2 * c.w),
                                  .conditions = "T_W <= T_F, T_W <= T_B and m >= 2p-1",
                                  .conditionsHold = c.w <= c.f && c.w <= c.b && m >= 2 * p - 1,
                                  .memoryFormula = "(2p-1)M_B",
                                  .peakActivations = static_cast<double>(std::min(2 * p - 1, m))};
         }},
    {.kind = ScheduleKind::ZbV,
     .key = "zb-v",
     .name = "ZB-V",
     .alias = "zbv",
     .takesChunks = false,
     .splitsBackward = true,
     .generate = [](int p, int m, int) { return Schedule::zbV(p, m); },
     // 2 chunks per stage: p M_B is 2p chunk activations.
     .inFlightBound = [](int p, int m, int) { return 2 * std::min(p, m); },
     // The ZB paper's pM_B (§6) on every stage once m >= 2p-1; with fewer microbatches stage s
     // holds at most m+s+1 chunk activations (half an M_B each), and never more than all 2m.
     .stageActivations =
         [](int p, int m, int, int s) {
           return std::min({2 * p, m + s + 1, 2 * m}) / 2.0;
         },
     .stageActivationsFormula = "min(2p, m+s+1, 2m)/2",
     .paper =
         [](int p, int m, int, const PaperCosts& c) {
           return PaperPrediction{.bubbleFormula = "0",
                                  .bubble = 0,
                                  .conditions = "T_F = T_B = T_W and m >= 2p-1",
                                  .conditionsHold = c.f == c.b && c.b == c.w && m >= 2 * p - 1,
                                  .memoryFormula = "pM_B",
                                  .peakActivations = static_cast<double>(std::min(p, m))};
         }},
};

bool equalIgnoringCase(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](unsigned char x, unsigned char y) {
    return std::tolower(x) == std::tolower(y);
  });
}

}  // namespace

const std::span<const NamedSchedule> kSchedules = kRows;

const NamedSchedule* scheduleByKey(std::string_view key) {
  for (const NamedSchedule& s : kSchedules) {
    if (equalIgnoringCase(key, s.key) || (!s.alias.empty() && equalIgnoringCase(key, s.alias))) {
      return &s;
    }
  }
  return nullptr;
}

const NamedSchedule* scheduleByName(std::string_view name) {
  for (const NamedSchedule& s : kSchedules) {
    if (name == s.name) return &s;
  }
  return nullptr;
}

const NamedSchedule* scheduleOfKind(ScheduleKind kind) {
  for (const NamedSchedule& s : kSchedules) {
    if (s.kind == kind) return &s;
  }
  return nullptr;
}

std::string scheduleKeyList(std::string_view lastSeparator) {
  std::string list;
  for (size_t i = 0; i < kSchedules.size(); ++i) {
    if (i > 0) list += i + 1 == kSchedules.size() ? lastSeparator : ", ";
    list += kSchedules[i].key;
  }
  return list;
}

}  // namespace bubblescope::engine
