#pragma once
// The report sections' name for the one JSON writer, which lives below the analyzer in
// traces/json (the reference engine writes JSON too and must not depend on the analyzer).
#include "traces/json/json_writer.h"

namespace bubblescope::analysis {

using traces::JsonWriter;

}  // namespace bubblescope::analysis
