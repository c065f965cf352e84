#pragma once
// The state of one nsys import: the file, its schema, and a RankBuilder per process with GPU
// activity, keyed by nsys's process id (globalPid >> 24, which keeps the VM id bits).
#include <cstdint>
#include <filesystem>
#include <string>
#include <unordered_map>
#include <vector>

#include "traces/import/imported.h"
#include "traces/import/nsys/nsys_schema.h"
#include "traces/import/rank_builder.h"
#include "traces/sqlite/sqlite_db.h"

namespace bubblescope::traces::import {

class NsysReader {
 public:
  explicit NsysReader(const std::filesystem::path& file);
  // An export already open (the fuzzer's, from memory); `file` is what messages call it.
  NsysReader(sqlite::Database&& db, const std::filesystem::path& file);
  ImportedFile read();

 private:
  struct Rank {
    RankBuilder builder;
    int64_t key = 0;
    uint32_t device = 0;
    std::unordered_map<int64_t, StringId> names;  // StringIds id -> this trace's id
  };

  void findProcesses();
  void readKernels();
  void readCopies();
  void readSyncs();
  StreamIndex syncStream(Rank& r, int64_t device, int64_t stream);
  void readRuntime();
  void readThreadNames();
  void readMemory();  // nsys_memory.cpp
  void readDevices();
  void readNvtx();                // nsys_nvtx.cpp
  void linkNcclKernels(Rank& r);  // nsys_nccl.cpp
  void fillMeta(TimeNs offset);
  TimeNs epochOffset();

  Rank* rankOf(int64_t key);
  // A name from a row: column `idCol` holds the StringIds id (or text), `textCol` its text.
  StringId name(Rank& r, const sqlite::Statement& st, int idCol, int textCol);
  void note(TimeNs t) { lastTime_ = std::max(lastTime_, t); }

  std::filesystem::path file_;
  sqlite::Database db_;
  NsysSchema schema_;
  std::vector<Rank> ranks_;
  std::unordered_map<int64_t, size_t> rankOfKey_;
  ImportedFile out_;
  TimeNs lastTime_ = 0;
};

}  // namespace bubblescope::traces::import
