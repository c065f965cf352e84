#pragma once
// Which process of `analyze` under MPI reads which input file of the run: the processes list what
// they can read (all of it on a shared file system; with --local, what their node holds), rank 0
// puts the lists together in the run's input order and gives each file to one process that has
// it, spreading the bytes. Pure: the listing and the sending are the caller's.
#include <cstdint>
#include <string>
#include <vector>

#include "traces/import/input_formats.h"

namespace bubblescope::cli {

struct ListedFile {
  uint32_t argument = 0;  // which of the paths given it came from
  std::string path;
  uint64_t bytes = 0;
};

// What one process found: the format of its files (Unknown: none), the files, or why it could not
// list them.
struct Listing {
  traces::import::InputFormat format = traces::import::InputFormat::Unknown;
  std::vector<ListedFile> files;
  uint32_t filesAtOnce = 1;  // how many files it loads at once (its cores)
  std::string error;         // one sentence; empty when listed
};

// Each round of loading ends in a lock-step gather where every process waits for the slowest:
// a round a file made each process wait, file after file, for the other's larger file (rounds
// were 6-9% of the wall on a 64-file job); in a few rounds the waits are the shares' differences.
// A file no process could read stops the others' loading only at the end of its round.
inline constexpr uint64_t kMostRounds = 4;

struct Assignment {
  traces::import::InputFormat format = traces::import::InputFormat::Unknown;
  std::vector<std::string> files;              // the run's files in input order
  std::vector<std::vector<size_t>> byProcess;  // indexes into files, per process
  // The most any process takes to load its files, filesAtOnce a round, but at most kMostRounds:
  // then a process loads ceil(its files / rounds) a round, filesAtOnce at a time.
  uint64_t rounds = 0;
  std::string error;  // one sentence, said by rank 0; empty when none
};

// The listings of every process (by MPI rank) put together: a file several processes list (a
// shared file system) is one file. Files in input order: by argument, and within one as its loader
// lists a directory (bubblescope traces by name, other formats in natural order). Each goes to
// the process with the fewest bytes so far among those that list it, largest files first (ties:
// the lower rank). The first process's error, formats that differ, no file at all, or (without
// `local`: every process is to see the whole run) processes that list different files: `error`.
Assignment assignFiles(const std::vector<Listing>& listings, bool local);

std::string encodeListing(const Listing& listing);
Listing decodeListing(const std::string& bytes);
std::string encodeAssignment(const Assignment& assignment);
Assignment decodeAssignment(const std::string& bytes);

}  // namespace bubblescope::cli
