// Which process of `analyze` under MPI reads which file (cli/file_assignment.h): the files in the
// run's input order, each read once by a process that has it, the bytes spread; listings that
// cannot make one run are one sentence.
#include "cli/file_assignment.h"

#include <gtest/gtest.h>

namespace bubblescope::cli {
namespace {

using traces::import::InputFormat;

Listing listing(InputFormat format, std::vector<ListedFile> files) {
  Listing l;
  l.format = format;
  l.files = std::move(files);
  return l;
}

TEST(FileAssignment, EveryFileOnceInInputOrderTheLargestFirstToTheLeastLoaded) {
  // A shared file system: every process lists the same files.
  const Listing all = listing(InputFormat::ChromeTrace, {{0, "run/rank10.json", 100},
                                                         {0, "run/rank2.json", 300},
                                                         {0, "run/rank1.json", 200},
                                                         {1, "extra/a.json", 50}});
  const Assignment a = assignFiles({all, all, all}, false);
  ASSERT_EQ(a.error, "");
  EXPECT_EQ(a.format, InputFormat::ChromeTrace);
  // Natural order within an argument, arguments in the order given.
  EXPECT_EQ(a.files, (std::vector<std::string>{"run/rank1.json", "run/rank2.json",
                                               "run/rank10.json", "extra/a.json"}));
  // 300 -> 0, 200 -> 1, 100 -> 2, 50 -> 2 (the least bytes so far).
  EXPECT_EQ(a.byProcess, (std::vector<std::vector<size_t>>{{1}, {0}, {2, 3}}));
  // Process 2 loads its two files one at a time; two at once, in one round.
  EXPECT_EQ(a.rounds, 2u);
  Listing twoAtOnce = all;
  twoAtOnce.filesAtOnce = 2;
  EXPECT_EQ(assignFiles({all, all, twoAtOnce}, false).rounds, 1u);
}

TEST(FileAssignment, AtMostAFewRoundsEachEndingInALockStepGather) {
  // Two processes, 32 files of alike size, one at a time: 16 rounds a file would make each
  // process wait in 16 gathers; four rounds of four files each.
  std::vector<ListedFile> files;
  for (int i = 0; i < 32; ++i) {
    files.push_back({0, "run/rank" + std::to_string(i) + ".json", uint64_t(1000 + i)});
  }
  const Listing all = listing(InputFormat::ChromeTrace, files);
  const Assignment a = assignFiles({all, all}, false);
  ASSERT_EQ(a.error, "");
  EXPECT_EQ(a.byProcess[0].size() + a.byProcess[1].size(), 32u);
  EXPECT_EQ(a.rounds, kMostRounds);
  // Fewer files than that: a round each, as before.
  const Listing three = listing(InputFormat::ChromeTrace, {files.begin(), files.begin() + 3});
  EXPECT_EQ(assignFiles({three}, false).rounds, 3u);
}

TEST(FileAssignment, BubblescopeTracesKeepTheirNameOrder) {
  const Listing all = listing(InputFormat::Bubblescope,
                              {{0, "run/rank-10.sqlite", 1}, {0, "run/rank-9.sqlite", 1}});
  EXPECT_EQ(assignFiles({all}, false).files,
            (std::vector<std::string>{"run/rank-10.sqlite", "run/rank-9.sqlite"}));
}

TEST(FileAssignment, WithLocalEachFileGoesToAProcessOfTheNodeThatHasIt) {
  const Listing nodeA = listing(InputFormat::Bubblescope, {{0, "run/r0.sqlite", 10}});
  const Listing nodeB =
      listing(InputFormat::Bubblescope, {{0, "run/r1.sqlite", 10}, {0, "run/r2.sqlite", 10}});
  const Listing none;  // a node without any of the run
  const Assignment a = assignFiles({nodeA, nodeB, nodeB, none}, true);
  ASSERT_EQ(a.error, "");
  EXPECT_EQ(a.files, (std::vector<std::string>{"run/r0.sqlite", "run/r1.sqlite", "run/r2.sqlite"}));
  EXPECT_EQ(a.byProcess, (std::vector<std::vector<size_t>>{{0}, {1}, {2}, {}}));
}

TEST(FileAssignment, ListingsThatMakeNoOneRunAreOneSentence) {
  const Listing a = listing(InputFormat::Bubblescope, {{0, "run/r0.sqlite", 10}});
  const Listing b = listing(InputFormat::Bubblescope, {{0, "run/r1.sqlite", 10}});
  EXPECT_EQ(assignFiles({a, b}, false).error,
            "MPI rank 1 sees 1 trace file(s) in the paths given where MPI rank 0 sees 1 others: "
            "where each node holds its own traces, give --local");
  const Listing kineto = listing(InputFormat::ChromeTrace, {{0, "run/r1.json", 10}});
  EXPECT_NE(assignFiles({a, kineto}, true).error.find("MPI rank 1 found"), std::string::npos);
  Listing broken;
  broken.error = "run: no such file or directory";
  EXPECT_EQ(assignFiles({a, broken}, false).error, "run: no such file or directory");
  EXPECT_EQ(assignFiles({Listing{}, Listing{}}, true).error,
            "no process of the job found a trace in the paths given");
}

TEST(FileAssignment, TheAssignmentAndListingsTravelAsBytes) {
  const Listing l = listing(InputFormat::Nsys, {{2, "x.sqlite", 7}});
  const Listing back = decodeListing(encodeListing(l));
  EXPECT_EQ(back.format, InputFormat::Nsys);
  ASSERT_EQ(back.files.size(), 1u);
  EXPECT_EQ(back.files[0].argument, 2u);
  EXPECT_EQ(back.files[0].path, "x.sqlite");
  EXPECT_EQ(back.files[0].bytes, 7u);
  EXPECT_EQ(back.filesAtOnce, 1u);
  const Assignment a = assignFiles({l, l}, false);
  const Assignment b = decodeAssignment(encodeAssignment(a));
  EXPECT_EQ(b.files, a.files);
  EXPECT_EQ(b.byProcess, a.byProcess);
  EXPECT_EQ(b.format, a.format);
  EXPECT_EQ(b.rounds, a.rounds);
}

}  // namespace
}  // namespace bubblescope::cli
