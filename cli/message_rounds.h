#pragma once
// What one MPI process hands the others, cut into rounds: each round's message to a peer holds
// whole pieces up to a size (a larger piece goes alone), so that a process holds at most a
// round's bytes from each peer beside what it has decoded (not the whole move twice), and no
// message nears the 2 GiB one MPI message carries. Each message opens with whether its sender has
// pieces left for anyone after this round: every process reads every other's, so all agree when
// the rounds end. Pure: the bytes only (MpiJob::exchangeInRounds sends them).
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace bubblescope::cli {

// The pieces still to send to each peer, taken from the front round by round.
class OutgoingPieces {
 public:
  // `pieces[p]`: what goes to process p, in order. `roundBytes`: the most of a round's message
  // to one peer, but for a single piece larger than it.
  OutgoingPieces(std::vector<std::vector<std::string>>&& pieces, size_t roundBytes);
  // This round's message to each peer (framed pieces, each freed once framed), and whether any
  // piece is left after it (for any peer), which every message says.
  std::vector<std::string> nextRound();
  bool left() const;

 private:
  std::vector<std::vector<std::string>> pieces_;
  std::vector<size_t> next_;  // per peer, its first piece not sent
  size_t roundBytes_;
};

// Whether the sender of a round's message has pieces left after it: read apart from the pieces,
// so that a process agrees on the rounds even where it cannot read them.
bool piecesLeftAfter(std::string_view message);
// Hands each piece of a round's message to `take`; returns whether its sender has pieces left.
// Throws std::runtime_error for bytes that are not such a message.
bool takePieces(std::string_view message, const std::function<void(std::string_view)>& take);

}  // namespace bubblescope::cli
