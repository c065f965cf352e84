#pragma once
// The on-disk trace format: one SQLite file per rank. docs/trace-format.md documents every table;
// bump kSchemaVersion on any change a reader must know about.
#include <string_view>

namespace bubblescope::traces {

inline constexpr std::string_view kFormatName = "bubblescope-trace";
// 2: open_ranges (ranges still open at the last commit) and meta.alive_ns.
// 3: memory_usage (the job's device memory over time) and devices.memory_bytes.
inline constexpr int kSchemaVersion = 3;

// Tables, created when a trace file is created. All times are int64 ns (CLOCK_REALTIME epoch).
inline constexpr std::string_view kSchemaSql = R"sql(
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE clock_anchors(realtime_ns INTEGER NOT NULL, monotonic_ns INTEGER NOT NULL,
  cupti_ns INTEGER NOT NULL);
CREATE TABLE capture_windows(id INTEGER PRIMARY KEY, start_ns INTEGER NOT NULL,
  end_ns INTEGER NOT NULL, reason TEXT NOT NULL);
CREATE TABLE dropped_events(source TEXT PRIMARY KEY, count INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE strings(id INTEGER PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE threads(tid INTEGER PRIMARY KEY, name_id INTEGER NOT NULL);
CREATE TABLE devices(id INTEGER PRIMARY KEY, name_id INTEGER NOT NULL, uuid TEXT NOT NULL,
  memory_bytes INTEGER NOT NULL DEFAULT 0);
CREATE TABLE streams(device INTEGER NOT NULL, stream INTEGER NOT NULL, name_id INTEGER NOT NULL,
  PRIMARY KEY(device, stream)) WITHOUT ROWID;
CREATE TABLE nvtx_ranges(start INTEGER NOT NULL, end INTEGER NOT NULL, tid INTEGER NOT NULL,
  end_tid INTEGER NOT NULL, domain_id INTEGER NOT NULL, name_id INTEGER NOT NULL,
  depth INTEGER NOT NULL, kind INTEGER NOT NULL, category INTEGER NOT NULL, color INTEGER NOT NULL);
CREATE TABLE nvtx_marks(ts INTEGER NOT NULL, tid INTEGER NOT NULL, domain_id INTEGER NOT NULL,
  name_id INTEGER NOT NULL);
CREATE TABLE kernels(start INTEGER NOT NULL, end INTEGER NOT NULL, device INTEGER NOT NULL,
  stream INTEGER NOT NULL, correlation INTEGER NOT NULL, name_id INTEGER NOT NULL,
  grid_x INTEGER NOT NULL, grid_y INTEGER NOT NULL, grid_z INTEGER NOT NULL,
  block_x INTEGER NOT NULL, block_y INTEGER NOT NULL, block_z INTEGER NOT NULL,
  registers INTEGER NOT NULL, shared_static INTEGER NOT NULL, shared_dynamic INTEGER NOT NULL);
CREATE TABLE memcpys(start INTEGER NOT NULL, end INTEGER NOT NULL, device INTEGER NOT NULL,
  stream INTEGER NOT NULL, correlation INTEGER NOT NULL, bytes INTEGER NOT NULL,
  copy_kind INTEGER NOT NULL, src_kind INTEGER NOT NULL, dst_kind INTEGER NOT NULL);
CREATE TABLE memsets(start INTEGER NOT NULL, end INTEGER NOT NULL, device INTEGER NOT NULL,
  stream INTEGER NOT NULL, correlation INTEGER NOT NULL, bytes INTEGER NOT NULL,
  value INTEGER NOT NULL);
CREATE TABLE syncs(start INTEGER NOT NULL, end INTEGER NOT NULL, device INTEGER NOT NULL,
  stream INTEGER NOT NULL, correlation INTEGER NOT NULL, sync_type INTEGER NOT NULL);
CREATE TABLE api_calls(start INTEGER NOT NULL, end INTEGER NOT NULL, tid INTEGER NOT NULL,
  name_id INTEGER NOT NULL, correlation INTEGER NOT NULL, cbid INTEGER NOT NULL,
  domain INTEGER NOT NULL, return_value INTEGER NOT NULL);
CREATE TABLE nccl_calls(id INTEGER NOT NULL, start INTEGER NOT NULL, end INTEGER NOT NULL,
  tid INTEGER NOT NULL, op INTEGER NOT NULL, peer INTEGER NOT NULL, count INTEGER NOT NULL,
  dtype INTEGER NOT NULL, bytes INTEGER NOT NULL, comm INTEGER NOT NULL,
  comm_rank INTEGER NOT NULL, comm_size INTEGER NOT NULL, stream INTEGER NOT NULL,
  group_depth INTEGER NOT NULL, seq INTEGER NOT NULL, source INTEGER NOT NULL);
CREATE TABLE correlations(correlation INTEGER NOT NULL, external_kind INTEGER NOT NULL,
  external_id INTEGER NOT NULL);
CREATE TABLE open_ranges(start INTEGER NOT NULL, tid INTEGER NOT NULL, domain_id INTEGER NOT NULL,
  name_id INTEGER NOT NULL, depth INTEGER NOT NULL, kind INTEGER NOT NULL);
CREATE TABLE memory_usage(ts INTEGER NOT NULL, device INTEGER NOT NULL,
  allocated INTEGER NOT NULL, reserved INTEGER NOT NULL);
)sql";

// Indexes for the analyzer and viewer (time per thread/stream, correlation joins). Created when a
// writer closes cleanly: they would slow every batch if kept up to date while recording, and the
// reader does not need them, so a file from a killed process stays fully readable without them.
inline constexpr std::string_view kIndexSql = R"sql(
CREATE INDEX IF NOT EXISTS nvtx_ranges_by_thread ON nvtx_ranges(tid, start);
CREATE INDEX IF NOT EXISTS nvtx_marks_by_thread ON nvtx_marks(tid, ts);
CREATE INDEX IF NOT EXISTS kernels_by_stream ON kernels(device, stream, start);
CREATE INDEX IF NOT EXISTS kernels_by_correlation ON kernels(correlation);
CREATE INDEX IF NOT EXISTS memcpys_by_stream ON memcpys(device, stream, start);
CREATE INDEX IF NOT EXISTS memsets_by_stream ON memsets(device, stream, start);
CREATE INDEX IF NOT EXISTS syncs_by_stream ON syncs(device, stream, start);
CREATE INDEX IF NOT EXISTS api_calls_by_thread ON api_calls(tid, start);
CREATE INDEX IF NOT EXISTS api_calls_by_correlation ON api_calls(correlation);
CREATE INDEX IF NOT EXISTS nccl_calls_by_thread ON nccl_calls(tid, start);
CREATE INDEX IF NOT EXISTS correlations_by_correlation ON correlations(correlation);
CREATE INDEX IF NOT EXISTS memory_usage_by_device ON memory_usage(device, ts);
)sql";

}  // namespace bubblescope::traces
