#pragma once
// How many members of an NCCL collective the run traced, when its communicator holds more: the
// wait measured among them is the wait for the traced members only, a lower bound on the real
// one, and every figure that holds it says so ("2 of 128 members traced").
#include <cstdint>
#include <string>

namespace bubblescope::analysis {

struct TracedMembers {
  int32_t traced = 0;
  int32_t of = 0;  // the communicator's members; 0: every member traced (or none partial)

  bool partial() const { return of > traced; }
  // Keeps the one that traced the smaller share (the larger communicator on a tie): the figure
  // it marks is then said to rest on no more than that.
  TracedMembers& widen(const TracedMembers& o) {
    if (!o.partial()) return *this;
    const int64_t mine = int64_t{traced} * o.of, theirs = int64_t{o.traced} * of;
    if (!partial() || theirs < mine || (theirs == mine && o.of > of)) *this = o;
    return *this;
  }
};

// The collectives the run matched, and how many of their members it traced, each collective
// counted once: a run holding few of the members measures its waits among those few.
struct CollectiveCoverage {
  int collectives = 0;
  int partial = 0;      // of them, on communicators with members the run does not hold
  int64_t traced = 0;   // members traced, summed over the collectives
  int64_t members = 0;  // their communicators' members, summed likewise
  TracedMembers least;  // the smallest share traced among the partial ones (widen())
  bool alike = true;    // every partial one traced as many of as many members
};

// "2 of 128 members traced": how every report marks a figure that holds such a wait.
inline std::string tracedMembersText(const TracedMembers& m) {
  return std::to_string(m.traced) + " of " + std::to_string(m.of) + " members traced";
}

}  // namespace bubblescope::analysis
