#pragma once
// What PyTorch's emit_nvtx() adds to the name of every record_function it turns into an NVTX
// range ("PP:0F1, op_id = 812", "aten::mm, seq = 33, op_id = 813, sizes = [[8, 4]]"), so that the
// same op has the same name in an nsys export as in a Kineto trace.
#include <string_view>

namespace bubblescope::traces::import {

// `name` without emit_nvtx's ", seq = N", ", op_id = N", ", sizes = [...]" and
// ", input_op_ids = [...]" (in that order, seq or op_id present); any other name unchanged.
std::string_view withoutEmitNvtxSuffix(std::string_view name);

}  // namespace bubblescope::traces::import
