#pragma once
// Imports an Nsight Systems SQLite export (`nsys export --type sqlite`): every process with GPU
// activity becomes a rank (one file per rank, or one multi-process file split by process),
// ordered by its GPU, then pid. Kernels (names via StringIds), memcpy/memset, synchronisations,
// CUDA runtime/driver calls (correlationId joins them to the kernels within a process), NVTX
// ranges and marks with their domains (NCCL's own included, which also become ncclCalls with
// what their payloads say, as JSON or as blobs: nvtx_payload_blob.h) and thread names. Times
// become epoch ns through TARGET_INFO_SESSION_START_TIME.
#include <filesystem>

#include "traces/import/imported.h"
#include "traces/sqlite/sqlite_db.h"

namespace bubblescope::traces::import {

// Ranks come out with meta.rank from MPI_RANKS when the file has it, else -1 (the caller numbers
// them). Throws TraceError naming the file (not an nsys export, no GPU activity, unreadable).
ImportedFile importNsysFile(const std::filesystem::path& file);

// The same from an export already open (the fuzzer's, from memory); `file` names it in messages.
ImportedFile importNsysDatabase(sqlite::Database&& db, const std::filesystem::path& file);

}  // namespace bubblescope::traces::import
