#pragma once
// What the things on the timeline are called: box labels that fit the box, names the search box
// matches, and the hover text (what a box is, when, how long, and for a gap its classes and blame).
#include <string>
#include <string_view>

#include "gui/model/timeline_model.h"

namespace bubblescope::gui {

// "F mb=5", "B mb=3 ch=1".
std::string opName(const analysis::Op& op);
// The longest of "F mb=5 ch=1", "F5.1", "5.1" that fits `widthPx` (monospace of `charW` px), or "".
std::string opLabel(const analysis::Op& op, double widthPx, double charW);
// `text` if it fits, else its head and "..", else "" (fewer than 3 characters would fit).
std::string fitLabel(std::string_view text, double widthPx, double charW);

// The name of an item of a row: what the search box matches and detail boxes are labelled with.
std::string itemName(const TimelineModel& model, const PipelineRows& p, const Row& row,
                     uint32_t item);
// The hover text of an item; times are given from `origin` (the selected step's start).
std::string itemTooltip(const TimelineModel& model, const PipelineRows& p, const Row& row,
                        uint32_t item, TimeNs origin);
// The hover text of an idle gap: its length, its classes, the blame.
std::string gapTooltip(const PipelineRows& p, uint32_t gap, TimeNs origin);
// The hover text of `count` intervals folded into one box over [start, end).
std::string foldedTooltip(const Row& row, size_t count, TimeNs start, TimeNs end, TimeNs origin);

const char* ncclOpName(traces::NcclOp op);         // "ncclAllReduce"
const char* memcpyKindName(traces::MemcpyKind k);  // "HtoD"

}  // namespace bubblescope::gui
