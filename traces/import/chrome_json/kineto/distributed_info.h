#pragma once
// Kineto's "distributedInfo" (torch.profiler's _get_distributed_info): this rank, the world
// size, and every process group with its ranks, into RankMeta. The groups go to meta.extra under
// the keys below, flat, so the analyzer's topology can read them without a JSON parser:
//   kineto.backend, kineto.nccl_version, kineto.pg_count = N,
//   kineto.pg.<i>.name, kineto.pg.<i>.desc (pg_desc, or the older uid), kineto.pg.<i>.size,
//   kineto.pg.<i>.ranks ("0,4,8,12": global ranks in group order), kineto.pg.<i>.backend
// for i = 0 .. N-1 in the order of pg_config.
#include <cstddef>
#include <filesystem>
#include <string_view>

#include "traces/model/trace.h"

namespace bubblescope::traces::import {

// `json` is the value's text with `capacity` readable bytes (simdjson padding). False if it is not
// an object. Throws TraceError naming `file` for a rank or world size that is a number out of
// range (a cast used to wrap 4294967297 to rank 1).
bool applyDistributedInfo(std::string_view json, size_t capacity, RankMeta& meta,
                          const std::filesystem::path& file);

}  // namespace bubblescope::traces::import
